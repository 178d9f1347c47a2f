"""A player disqualified at a tournament table (取消比赛资格: a penalty that `disqualify`, seed 000 范文四 八 4
停赛 "取消本次比赛资格", 八 2(8)③ 有意诈和): the table's standing names them (`StateMsg.disqualified`) over a real
Mosquitto, and the hub marks their row, alerts the chief referee on the table's row and leaves them out of
the next round's seating by itself; an undo at the table seats them again, and after the table's round has
closed (its rulings final) the organiser's 恢复编排 does. Before, only the table recorded it: the next
round's seating seated the player again and the standings did not say it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
from test_tournament import TOURNAMENT, _config, _in_step  # type: ignore[import-not-found]
from tournament_helpers import Broker, until

from table_controller.service import TableService
from table_controller.tournament.web import HubService

NAMES = ["甲", "乙", "丙", "丁"]
IDS = ["A01", "A02", "A03", "A04"]
REGISTERED = [{"id": i, "name": n} for i, n in zip(IDS, NAMES)]
ORGANISER = {"Authorization": "Bearer org-dq-5150"}


def _seated(pairs: dict[str, Any]) -> set[str]:
    """Everyone a proposed seating seats or gives a bye."""
    return {s["name"] for t in pairs["tables"] for s in t["seats"].values()} | {b["name"] for b in pairs["byes"]}


async def test_a_player_disqualified_at_a_table_is_marked_and_left_out_of_the_next_seating(
        tmp_path: Path, broker: Broker) -> None:
    hub = HubService(broker.url, TOURNAMENT, tmp_path / "hub", port=0, registered=REGISTERED,
                     organizer_token=ORGANISER["Authorization"].split()[1])
    await hub.start()
    t1 = TableService(_config(broker.url, "t1", NAMES, seed=1, ids=IDS), tmp_path / "t1")
    await t1.start()
    await t1.controller.wait_linked(10)
    ctl = t1.controller
    try:
        await ctl.start_hand(by="operator")
        wind = next(w for w, p in ctl.state.hand["seats"].items() if str(p) == "4")
        ruled = ctl.referee_action("referee.penalty", {"seat": wind, "code": "cheating", "note": "袖中藏牌"},
                                   by="referee")
        await until(lambda: _in_step(hub, t1, "t1"), 10, "the hub to follow the table")
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{hub.bound_port}") as http:
            async def look() -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
                body = (await http.get("/api/standings")).json()
                pairs = (await http.get("/api/pairings", params={"round": 2})).json()
                return {p["name"]: p for p in body["players"]}, body["tables"][0], pairs

            players, table, pairs = await look()
            ding = players["丁"]
            assert ding["out"] is not None, ding  # before: None, and 丁 seated in round 2
            assert ding["out"]["reason"] == "取消比赛资格（t1号桌 第1轮：偷牌、藏牌（停赛），袖中藏牌）"
            assert [(d["table_id"], d["round"], d["position"], d["seq"]) for d in ding["disqualified"]] == [
                ("t1", 1, "4", ruled.seq)]
            assert ding["rank"] is not None  # the results stand as played: ranked
            (alert,) = [a for a in table["alerts"] if a["kind"] == "disqualified"]
            assert alert["text_zh"].startswith("4号位 丁 取消比赛资格（偷牌、藏牌（停赛），袖中藏牌）：不再参加编排")
            assert "丁" not in _seated(pairs) and {"甲", "乙", "丙"} == _seated(pairs)
            assert [(p["name"], p.get("disqualified")) for p in pairs["players_out"]] == [("丁", True)]

            # the ruling undone at the table: 丁 is seated again, the alert goes
            ctl.referee_action("referee.undo", {"reason": "看错了", "target": ruled.seq}, by="referee")
            await until(lambda: _in_step(hub, t1, "t1"), 10, "the hub to follow the undo")
            players, table, pairs = await look()
            assert players["丁"]["out"] is None and players["丁"]["disqualified"] == []
            assert not [a for a in table["alerts"] if a["kind"] == "disqualified"]
            assert "丁" in _seated(pairs) and pairs["players_out"] == []

            # ruled again and the round closed at the table (its rulings final): it stands at the hub
            again = ctl.referee_action("referee.penalty", {"seat": wind, "code": "cheating"}, by="referee")
            await ctl.end_hand(by="operator", result="draw")
            ctl.referee_action("referee.round_start", {"round": 2, "players": dict(zip("1234", "甲乙丙丁"))},
                               by="referee")
            await until(lambda: _in_step(hub, t1, "t1") and 1 in hub.hub.tables["t1"].states
                        and hub.hub.tables["t1"].states[1]["final"], 10, "round 1's final standing")
            players, table, pairs = await look()
            assert players["丁"]["out"]["reason"] == "取消比赛资格（t1号桌 第1轮：偷牌、藏牌（停赛））"
            assert not [a for a in table["alerts"] if a["kind"] == "disqualified"]  # round 2's row: none now
            pairs3 = (await http.get("/api/pairings", params={"round": 3})).json()
            assert "丁" not in _seated(pairs3)
            # the committee overturned it after the round closed: the organiser seats 丁 again
            back = await http.post("/api/organiser", json={"action": "player_back", "player": "id:A04",
                                                            "reason": "仲裁委员会改判"}, headers=ORGANISER)
            assert back.status_code == 200, back.text  # before: 409 未退出编排
            assert back.json()["data"]["reinstated"] == [{"table_id": "t1", "round": 1, "seq": again.seq}]
            players, _, _ = await look()
            assert players["丁"]["out"] is None
            assert "丁" in _seated((await http.get("/api/pairings", params={"round": 3})).json())
            twice = await http.post("/api/organiser", json={"action": "player_back", "player": "id:A04"},
                                    headers=ORGANISER)
            assert twice.status_code == 409 and "未退出编排" in twice.json()["detail"]
    finally:
        await t1.stop()
        await hub.stop()

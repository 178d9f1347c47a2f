"""A substitute (替补) at a tournament table: the table sends who sat each chair's hands with its
standing (`StateMsg.sitters`) over a real Mosquitto, and the hub credits each hand's points to the one
who sat it (the chair's 标准分 shared by hands sat), or all to the round's player with
`--substitute-credit seat`; its standings, CSV, statistics and page say so. A standing from before
substitutes (no `sitters`) is credited as it always was."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from test_pages_browser import hub_page_alone  # type: ignore[import-not-found]
from test_tournament import TOURNAMENT, _config, _in_step  # type: ignore[import-not-found]
from tournament_helpers import Broker, until

from table_controller.scoresheet import compute
from table_controller.service import TableService
from table_controller.tournament.hub import Hub
from table_controller.tournament.web import HubService

NAMES = ["甲", "乙", "丙", "丁"]
IDS = ["A01", "A02", "A03", "A04"]
REGISTERED = [{"id": i, "name": n} for i, n in zip(IDS, NAMES)]


def _wind_of(svc: TableService, chair: str) -> str:
    return next(w for w, p in svc.controller.state.hand["seats"].items() if str(p) == chair)


def _pay(svc: TableService, chair: str, to: str, amount: int) -> None:
    svc.controller.referee_action("referee.penalty", {"seat": _wind_of(svc, chair), "code": "exposed_other",
                                                      "amount": amount, "victim": _wind_of(svc, to)}, by="referee")


async def _hub(tmp: Path, broker: Broker, credit: str = "hands") -> HubService:
    hub = HubService(broker.url, TOURNAMENT, tmp / "hub", port=0, registered=REGISTERED, substitute_credit=credit)
    await hub.start()
    await until(lambda: hub.hub.connected, 5, "the hub to connect")
    return hub


@pytest.mark.browser
async def test_the_hub_credits_each_hand_to_who_sat_it(tmp_path: Path, broker: Broker) -> None:
    hub = await _hub(tmp_path, broker)
    t1 = TableService(_config(broker.url, "t1", NAMES, seed=1, ids=IDS), tmp_path / "t1")
    await t1.start()
    await t1.controller.wait_linked(10)
    try:
        await t1.controller.start_hand(by="operator")
        _pay(t1, "4", "2", 30)  # hand 1: 丁 (chair 4) pays 乙 (chair 2) 30
        await t1.controller.end_hand(by="operator", result="draw")
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{t1.port}") as http:
            r = await http.post("/api/referee/substitute", headers={"Authorization": "Bearer ref"},
                                json={"position": "2", "name": "壬", "reason": "中途离场超过10分钟，按自动弃权"})
        assert r.status_code == 200, r.text
        await t1.controller.start_hand(by="operator")
        _pay(t1, "2", "1", 20)  # hand 2: 壬, in chair 2 now, pays 甲 20
        await t1.controller.end_hand(by="operator", result="draw")
        sheet = compute(t1.controller.state)
        await until(lambda: _in_step(hub, t1, "t1"), 10,
                    "the hub to follow the table")
        await until(lambda: len(hub.hub.tables["t1"].records()) == 2, 10, "both hands' records")
        tp = sheet["table_points"]["2"]
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{hub.bound_port}") as http:
            body = (await http.get("/api/standings")).json()
            csv = (await http.get("/api/standings.csv")).text
            stats = (await http.get("/api/stats")).json()
        players = {p["name"]: p for p in body["players"]}
        yi, ren = players["乙"], players["壬"]
        assert (yi["points"], ren["points"]) == (30, -20) and sheet["totals"]["2"] == 10
        assert tp == 2 and yi["table_points"] == ren["table_points"] == 1  # chair 2 placed 2nd: one hand each
        assert yi["rank"] is not None and ren["rank"] is None and ren["stand_in"]  # 陪打: scored, not ranked
        assert yi["tables"][0]["sat"] == {"credit": "hands", "hands": 1, "substitute": False, "with": ["壬"],
                                          "spans": [{"name": "乙", "from_hand": 1, "to_hand": 1, "reason": ""}]}
        assert ren["tables"][0]["sat"]["substitute"] and ren["tables"][0]["position"] == 2
        assert "sat" not in players["甲"]["tables"][0] and players["甲"]["points"] == 20
        # every point and 标准分 of the table is credited once
        assert sum(p["points"] for p in body["players"]) == 0
        assert abs(sum(p["table_points"] for p in body["players"]) - sum(sheet["table_points"].values())) < 0.02
        assert "t1号桌（替补 第2盘起）" in csv and "t1号桌（第1-1盘；替补：壬）" in csv
        hands = {p["name"]: p["hands"] for p in stats["players"]}
        assert hands["乙"] == hands["壬"] == 1 and hands["甲"] == 2
        async with hub_page_alone(hub) as page:  # Debian's Chromium on the standings page
            row = '[data-testid=standings] tr[data-player="{}"] [data-testid=sat]'
            await page.wait_for_selector(row.format("壬"), timeout=10000)
            assert await page.inner_text(row.format("壬")) == "替补 第2盘起"
            assert await page.inner_text(row.format("乙")) == "第1-1盘；替补：壬"
            assert await page.query_selector(row.format("甲")) is None

        # the same files under `--substitute-credit seat`: everything to the round's player
        await hub.stop()
        hub = await _hub(tmp_path, broker, credit="seat")
        body = hub.hub.standings()
        players = {p["name"]: p for p in body["players"]}
        assert "壬" not in players and players["乙"]["points"] == 10 and players["乙"]["table_points"] == 2
        assert players["乙"]["tables"][0]["sat"]["with"] == ["壬"]
    finally:
        await t1.stop()
        await hub.stop()


def _state(**more: Any) -> bytes:
    msg = {"v": 1, "tournament": TOURNAMENT, "table_id": "t1", "seq": 9, "round": 1, "at": 1.0,
           "table_name": "t1号桌", "ruleset": "mcr", "players": dict(zip("1234", NAMES)),
           "totals": {"1": 20, "2": -35, "3": 15, "4": 0}, "table_points": {"1": 4, "2": 0, "3": 2, "4": 1},
           "final": False, "hand_no": 2, "hands_played": 2, "phase": "idle", "phase_zh": "空闲", **more}
    return json.dumps(msg, ensure_ascii=False).encode("utf-8")


def test_a_standing_from_before_substitutes_is_credited_as_before_and_a_wrong_one_is_refused(tmp_path: Path) -> None:
    hub = Hub("mqtt://127.0.0.1:1", TOURNAMENT, tmp_path)
    topic = f"mahjong/{TOURNAMENT}/t1/state"
    try:
        assert hub.handle(topic, _state()) == "state"  # an older table's: no `sitters`
        entries = {p["name"]: p["tables"][0] for p in hub.standings()["players"]}
        assert entries["乙"] == {"table_id": "t1", "table_name": "t1号桌", "round": 1, "position": 2, "points": -35,
                                "table_points": 0, "final": False}
        # sitters that do not add up to the chair's total: refused and kept for the audit, the standing stays
        bad = {"2": [{"name": "乙", "from_hand": 1, "to_hand": 1, "hands": 1, "points": -15},
                     {"name": "壬", "from_hand": 2, "hands": 1, "points": -10}]}
        assert hub.handle(topic, _state(seq=10, sitters=bad)) == "malformed" and hub.rejected == 1
        assert {p["name"] for p in hub.standings()["players"]} == set(NAMES)
        bad["2"][1]["points"] = -20
        assert hub.handle(topic, _state(seq=10, sitters=bad)) == "state"
        assert {p["name"]: p["points"] for p in hub.standings()["players"]}["壬"] == -20
    finally:
        hub.close()


def test_a_chair_whose_player_has_a_long_name_still_sends_its_sitters() -> None:
    """The table's config gives names of any length (a round's keyed ones stop at 40): the standing
    with a substitution must still be built, or the table's publisher stops."""
    from table_controller.tournament.publisher import _sitters
    from table_controller.tournament.wire import StateMsg, decode, encode

    long_name = "欧阳" * 30
    spans = [{"name": long_name, "id": "", "from_hand": 1, "to_hand": 1, "hands": 1, "points": 8, "reason": ""},
             {"name": "壬", "id": "", "from_hand": 2, "to_hand": None, "hands": 1, "points": -8, "reason": "伤病"}]
    sent = json.loads(_state(totals={"1": 0, "2": 0, "3": 0, "4": 0}).decode("utf-8"))
    msg = StateMsg(**{**sent, "sitters": _sitters({"sitters": {"2": spans}})})
    assert decode(StateMsg, encode(msg), TOURNAMENT, "t1").sitters["2"][0].name == long_name

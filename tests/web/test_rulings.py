"""The referee's rulings beyond keying play in each state of a hand and a round, over real HTTP on a service
with the simulated table and its real SQLite log: a win read and then ruled out (停和, 相公, 诈和), an appeal
waiting for the committee when the next round (轮次) starts; what the pages and the hub's standing show."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest_asyncio

from table_controller.config import parse_config
from table_controller.service import TableService

from keyed_hand import dealt

REFEREE = "ref-rounds-6093"
AUTH = {"Authorization": f"Bearer {REFEREE}"}
ROUND_2 = {"1": "戊", "2": "己", "3": "庚", "4": "辛"}
#: N wins on a self-drawn 2p (MCR: 清龙 and more)
WIN = {"seat_wind": "N", "prevalent_wind": "E", "melds": [],
       "concealed": "1m 2m 3m 4m 5m 6m 7m 8m 9m 1p 1p 1p 2p".split(), "win_tile": "2p", "win": "self_draw"}


def _config() -> Any:
    return parse_config({"table": {"link": "sim://", "sim_seed": 3, "sim_speed": 1000.0},
                         "players": [{"position": i + 1, "name": n} for i, n in enumerate("甲乙丙丁")],
                         "display": {"port": 0, "operator_token": "op", "referee_token": REFEREE}}, source="test")


@pytest_asyncio.fixture
async def service(tmp_path: Path) -> Any:
    svc = TableService(_config(), tmp_path)
    await svc.start()
    try:
        yield svc
    finally:
        await svc.stop()


async def test_an_appeal_waiting_when_the_next_round_starts_is_still_shown_and_decided(
        service: TableService, tmp_path: Path) -> None:
    """Seed 000 九 2: an appeal is due within 30 minutes of the session's end, and a tournament's next
    round at the table may start inside them. Before, the round's start took its waiting appeal with
    the closed round: the committee's decision was refused (409 没有申诉 #n), the Score sheet and the
    hub's standing (`appeals_waiting`) no longer showed it."""
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{service.port}") as http:
        late = await http.post("/api/referee/penalty", json={"seat": "S", "code": "late_5"}, headers=AUTH)
        assert late.status_code == 200, late.text
        appeal = await http.post("/api/referee/appeal", json={"position": 2, "target": late.json()["seq"],
                                                              "text": "我没有迟到"}, headers=AUTH)
        assert appeal.status_code == 200, appeal.text
        seq = appeal.json()["seq"]
        r = await http.post("/api/referee/round", json={"round": 2, "players": ROUND_2}, headers=AUTH)
        assert r.status_code == 200, r.text
        (a,) = (await http.get("/api/state")).json()["appeals"]  # round 1's, waiting: shown to everyone
        assert (a["seq"], a["round"], a["player"], a["ruling"]) == (seq, 1, "乙", None)
        from table_controller.projection import public_view

        assert sum(1 for x in public_view(service.controller.state)["appeals"] if x["ruling"] is None) == 1

        decided = await http.post("/api/referee/appeal/ruling", json={"appeal": seq, "upheld": True,
                                                                       "note": "签到表显示准时"}, headers=AUTH)
        assert decided.status_code == 200, decided.text  # before: 409 没有申诉 #n
        (a,) = (await http.get("/api/state")).json()["appeals"]
        assert a["ruling"]["upheld"] is True and a["ruling"]["note"] == "签到表显示准时"
        again = await http.post("/api/referee/appeal/ruling", json={"appeal": seq, "upheld": False, "note": "x"},
                                headers=AUTH)
        assert again.status_code == 409 and "已裁决" in again.json()["detail"]
        # the decision is this round's action: undone, the appeal waits again; made again, it stands
        undo = await http.post("/api/referee/undo", json={"reason": "录错", "target": decided.json()["seq"]},
                               headers=AUTH)
        assert undo.status_code == 200, undo.text
        assert (await http.get("/api/state")).json()["appeals"][0]["ruling"] is None
        assert (await http.post("/api/referee/appeal/ruling", json={"appeal": seq, "upheld": False, "note": "迟到属实"},
                                headers=AUTH)).status_code == 200
        # the round after: round 1's appeal, decided in round 2, is no longer listed in round 3
        r3 = await http.post("/api/referee/penalty", json={"seat": "E", "code": "warning"}, headers=AUTH)
        assert r3.status_code == 200
        assert [x["seq"] for x in (await http.get("/api/state")).json()["appeals"]] == [seq]
        assert (await http.post("/api/referee/round", json={"round": 3, "players": ROUND_2},
                                headers=AUTH)).status_code == 200
        assert (await http.get("/api/state")).json()["appeals"] == []
    # a restart folds the same from the log
    await service.stop()
    svc = TableService(_config(), tmp_path)
    await svc.start()
    try:
        from table_controller.appeals import appeals

        every = appeals([a for r in svc.controller.state.rounds for a in r["actions"]])
        assert [(a["seq"], a["ruling"]["upheld"]) for a in every] == [(seq, False)]
    finally:
        await svc.stop()


async def test_a_win_read_and_then_ruled_out_of_winning_is_not_confirmed(service: TableService) -> None:
    """N's win read, then N ruled 相公 (多张/少张, seed 000 八 3(1) 没有和牌的权利) or 诈和 (本盘停和) on it: the
    Win page's 确认和牌, pressed on a view that shows the ruling, was taken: N paid for the offence and was paid
    for the win. Now 409 naming the ruling, nothing logged; the ruling undone, the win is confirmed."""
    ctl = service.controller
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{service.port}") as http:
        await dealt(service, http)
        assert (await http.post("/api/referee/win", json={"hand": WIN}, headers=AUTH)).status_code == 200
        for code, name in (("wrong_count", "相公"), ("false_win", "诈和")):
            ruled = await http.post("/api/referee/penalty", json={"seat": "N", "code": code}, headers=AUTH)
            assert ruled.status_code == 200, ruled.text
            seen = int((await http.get("/api/referee/state", headers=AUTH)).json()["seq"])
            assert "N" in (await http.get("/api/state")).json()["stopped"]
            head = ctl.state.seq
            r = await http.post("/api/referee/win/confirm", json={"seen": seen}, headers=AUTH)
            assert r.status_code == 409, r.text  # before: 200, the win confirmed
            said = r.json()["detail"]
            assert said.startswith("北家已被判") and name in said and f"#{ruled.json()['seq']}" in said, said
            assert ctl.state.seq == head
            assert not [a for a in ctl.state.actions if a["type"] == "referee.win_confirm"]
            undo = await http.post("/api/referee/undo", json={"reason": "判错", "target": ruled.json()["seq"]},
                                   headers=AUTH)
            assert undo.status_code == 200, undo.text
        ok = await http.post("/api/referee/win/confirm", json={}, headers=AUTH)
        assert ok.status_code == 200, ok.text
        assert (await http.get("/api/state")).json()["scoresheet"]["rows"][-1]["points"]["4"] > 0


async def test_a_win_waiting_for_confirmation_holds_the_next_hand_and_round_until_it_is_settled(
        service: TableService) -> None:
    """A hand ended as 和牌 with no confirmed win (its confirmation undone at the hand's end; the API took
    result "win" with none) let the next hand and 开始新一轮 go on: the round closed with a 0-point
    和牌（待确认） row, final, and the hub got 1.75 标准分 each. A read waiting in a hand still in play was
    dropped by 开始新一盘 (中止). Now both are refused (409) saying how to get out, and each way out works:
    confirm it (the read put right first), undo the read or rule 诈和 and end the hand again as 荒牌."""
    ctl = service.controller
    op = {"Authorization": "Bearer op"}
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{service.port}") as http:
        async def post(path: str, body: dict[str, Any], who: dict[str, str] = AUTH, status: int = 200) -> Any:
            r = await http.post(path, json=body, headers=who)
            assert r.status_code == status, (path, body, r.text)
            return r.json()

        async def waiting() -> bool:
            """Whether a new round is held by a win (409), not refused for its roster missing chairs (422)."""
            r = await http.post("/api/referee/round", json={"round": 2, "players": {"1": "戊"}}, headers=AUTH)
            assert r.status_code in (409, 422), r.text
            return r.status_code == 409

        await dealt(service, http)
        read = await post("/api/referee/win", {"hand": WIN})
        head = ctl.state.seq
        held = await post("/api/hand/start", {}, op, 409)  # before: 200, hand 1 stopped as 中止 and the read dropped
        assert held["detail"].startswith("第 1 盘北家的和牌读牌") and "确认和牌" in held["detail"], held
        assert "撤销该读牌" in held["detail"] and "判诈和" in held["detail"] and "结束本盘" in held["detail"]
        assert (await post("/api/hand/end", {"result": "win"}, op, 409))["detail"].startswith("第 1 盘没有已确认的和牌")
        assert ctl.state.seq == head and not ctl.state.hand.get("ended")

        confirm = await post("/api/referee/win/confirm", {})
        await post("/api/hand/end", {"result": "win"}, op)
        await post("/api/referee/undo", {"reason": "番数有误", "target": confirm["seq"]})
        assert (await http.get("/api/state")).json()["win_unconfirmed"] is True
        assert (await http.get("/api/state")).json()["scoresheet"]["rows"][-1]["result"] == "win_pending"
        held = await post("/api/hand/start", {}, op, 409)  # before: 200, and the round went on past the win
        assert held["detail"].startswith("第 1 盘以和牌结束，北家的和牌读牌") and "确认和牌" in held["detail"], held
        r = await http.post("/api/referee/round", json={"round": 2, "players": ROUND_2}, headers=AUTH)
        assert r.status_code == 409 and "不能开始新一轮" in r.json()["detail"], r.text  # before: 200, closed 1.75 each
        assert ctl.state.round == 1

        # out 1: confirmed again
        again = await post("/api/referee/win/confirm", {})
        assert not await waiting()
        await post("/api/referee/undo", {"reason": "再核", "target": again["seq"]})
        assert await waiting()
        # out 2: the read put right on the ended hand (before: 409 没有进行中的牌局), then confirmed
        fixed = await post("/api/referee/win", {"hand": {**WIN, "win": "self_draw"}})
        assert fixed["seq"] > read["seq"]
        sure = await post("/api/referee/win/confirm", {})
        assert not await waiting()
        for target in (sure["seq"], fixed["seq"], read["seq"]):  # back to no read at all
            await post("/api/referee/undo", {"reason": "重来", "target": target})
        assert await waiting()
        held = await post("/api/hand/start", {}, op, 409)
        assert "没有已确认的和牌" in held["detail"] and "改记为荒牌" in held["detail"], held
        # out 3: read again, ruled 诈和, and the hand ended again as 荒牌 (only 荒牌 or 中止 now)
        await post("/api/referee/win", {"hand": WIN})
        await post("/api/referee/penalty", {"seat": "N", "code": "false_win"})
        assert await waiting()
        assert "只能改记为荒牌或中止" in (await post("/api/hand/end", {"result": "abortive", "abortive": "four_winds"},
                                                  op, 409))["detail"]
        await post("/api/hand/end", {"result": "draw"}, op)
        assert not await waiting()
        state = (await http.get("/api/state")).json()
        row = state["scoresheet"]["rows"][-1]
        assert (row["result"], row["penalty_count"], state["win_unconfirmed"]) == ("draw", 1, False)
        assert row["points"]["4"] < 0
        await post("/api/hand/end", {"result": "draw"}, op, 409)  # ended: nothing left to end again
        await post("/api/hand/start", {}, op)
        assert ctl.state.hand["hand_no"] == 2

"""The referee's rulings across a round's (轮次) end, over real HTTP on a service with the simulated table
and its real SQLite log: what the round's start carries on (an appeal waiting for the committee) and
what each page and the hub's standing show of it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest_asyncio

from table_controller.config import parse_config
from table_controller.service import TableService

REFEREE = "ref-rounds-6093"
AUTH = {"Authorization": f"Bearer {REFEREE}"}
ROUND_2 = {"1": "戊", "2": "己", "3": "庚", "4": "辛"}


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

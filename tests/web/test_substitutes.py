"""A player replaced mid-round (替补): the referee seats a substitute in a chair from the next hand,
over real HTTP, on a table with the simulator and its real SQLite log. Refused during a hand and
for a player already seated, Chinese first, nothing logged; the score sheet, its CSV and the hand
records name who sat each hand; an undo drops it; a restart folds the same sheet from the log."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest_asyncio

from table_controller.config import parse_config
from table_controller.scoresheet import compute, to_csv
from table_controller.service import TableService

REFEREE = "ref-pin-5317"
AUTH = {"Authorization": f"Bearer {REFEREE}"}
NAMES = ["甲", "乙", "丙", "丁"]


def _config() -> Any:
    return parse_config({"table": {"link": "sim://", "sim_seed": 3, "sim_speed": 1000.0},
                         "players": [{"position": i + 1, "name": n} for i, n in enumerate(NAMES)],
                         "display": {"port": 0, "operator_token": "op", "referee_token": REFEREE}}, source="test")


async def _start(tmp: Path) -> TableService:
    svc = TableService(_config(), tmp)
    await svc.start()
    await svc.controller.wait_linked(10)
    return svc


@pytest_asyncio.fixture
async def service(tmp_path: Path) -> Any:
    svc = await _start(tmp_path)
    try:
        yield svc
    finally:
        await svc.stop()


def _wind_of(svc: TableService, chair: str) -> str:
    """The wind the player of `chair` (抽签号位) holds in the hand in play."""
    return next(w for w, p in svc.controller.state.hand["seats"].items() if str(p) == chair)


def _pay(svc: TableService, chair: str, to: str, amount: int) -> None:
    svc.controller.referee_action("referee.penalty", {"seat": _wind_of(svc, chair), "code": "exposed_other",
                                                      "amount": amount, "victim": _wind_of(svc, to)}, by="referee")


def _referee_types(svc: TableService, after: int) -> list[str]:
    return [e.type for e in svc.controller.store.since(after) if e.source == "referee"]


async def test_a_substitute_sits_from_the_next_hand_and_the_sheet_names_who_sat_each(
        service: TableService, tmp_path: Path) -> None:
    svc = service
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{svc.port}") as http:
        body = {"position": "4", "name": "壬", "player_id": "R09", "reason": "身体不适，无法继续"}
        assert (await http.post("/api/referee/substitute", json=body)).status_code == 403  # a credential first
        await svc.controller.start_hand(by="operator")
        _pay(svc, "4", "1", 15)  # hand 1: 丁 (chair 4) pays 甲 15
        before = svc.controller.state.seq
        r = await http.post("/api/referee/substitute", json=body, headers=AUTH)
        assert r.status_code == 409 and r.json()["detail"].startswith("第 1 盘进行中，不能换人"), r.text
        assert _referee_types(svc, before) == []  # refused: nothing logged
        await svc.controller.end_hand(by="operator", result="draw")

        wrong = await http.post("/api/referee/substitute", json={**body, "name": "葵"}, headers=AUTH)
        assert wrong.status_code == 200
        assert (await http.get("/api/state")).json()["sitting"]["4"] == "葵"
        undo = await http.post("/api/referee/undo", json={"reason": "名字记错", "target": wrong.json()["seq"]},
                               headers=AUTH)
        assert undo.status_code == 200 and (await http.get("/api/state")).json()["sitting"]["4"] == "丁"
        before = svc.controller.state.seq
        twice = await http.post("/api/referee/substitute", json={**body, "name": "乙", "player_id": ""}, headers=AUTH)
        assert twice.status_code == 422 and twice.json()["detail"].startswith("乙 已在 2 号位"), twice.text
        assert _referee_types(svc, before) == []
        ok = await http.post("/api/referee/substitute", json=body, headers=AUTH)
        assert ok.status_code == 200, ok.text

        await svc.controller.start_hand(by="operator")
        assert svc.controller.state.hand["hand_no"] == 2
        _pay(svc, "4", "3", 10)  # hand 2: 壬, now in chair 4, pays 丙 10
        await svc.controller.end_hand(by="operator", result="draw")

        sheet = (await http.get("/api/scoresheet")).json()
        csv = (await http.get("/api/scoresheet.csv")).text
        record = (await http.get("/api/hands/2/record")).json()
        first = (await http.get("/api/hands/1/record")).json()
        actions = (await http.get("/api/actions")).json()
    assert sheet["players"]["4"] == "丁"  # the round's player stays the chair's name
    assert [r["sat"]["4"] for r in sheet["rows"]] == ["丁", "壬"]
    assert [r["sat"]["1"] for r in sheet["rows"]] == ["甲", "甲"]
    assert sheet["totals"] == {"1": 15, "2": 0, "3": 10, "4": -25}
    four = sheet["sitters"]["4"]
    assert [(s["name"], s["id"], s["from_hand"], s["to_hand"], s["hands"], s["points"]) for s in four] == [
        ("丁", "", 1, 1, 1, -15), ("壬", "R09", 2, None, 1, -10)]
    assert four[1]["reason"] == "身体不适，无法继续" and set(sheet["sitters"]) == {"1", "2", "3", "4"}
    assert "上场（替补）" in csv and "4号位 壬" in csv and "4号位,替补,壬,第2盘起,1盘,-10" in csv
    who = {w: s["player"] for w, s in record["seats"].items()}
    assert who[next(w for w, s in record["seats"].items() if s["player_no"] == 4)] == "壬"
    assert next(s["player"] for s in first["seats"].values() if s["player_no"] == 4) == "丁"
    subs = [a for a in actions if a["type"] == "referee.substitute"]
    assert [(a["name"], a["from_hand"], a["undone"]) for a in subs] == [("葵", 2, True), ("壬", 2, False)]
    assert subs[1]["replaces"] == {"name": "丁", "id": ""}

    # the log is the record: a restart folds the same sheet from the SQLite file
    await svc.stop()
    again = await _start(tmp_path)
    try:
        folded = compute(again.controller.state)
        assert folded["sitters"] == sheet["sitters"] and [r["sat"] for r in folded["rows"]] == [
            r["sat"] for r in sheet["rows"]]
        assert "4号位,替补,壬,第2盘起,1盘,-10" in to_csv(folded)
    finally:
        await again.stop()


async def test_no_substitute_once_the_rounds_session_has_ended(service: TableService) -> None:
    svc = service
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{svc.port}") as http:
        assert (await http.post("/api/referee/session/start", json={"minutes": 60}, headers=AUTH)).status_code == 200
        assert (await http.post("/api/referee/session/end", json={}, headers=AUTH)).status_code == 200
        r = await http.post("/api/referee/substitute", json={"position": "1", "name": "壬", "reason": "弃权"},
                            headers=AUTH)
        no_reason = await http.post("/api/referee/substitute", json={"position": "1", "name": "壬", "reason": ""},
                                    headers=AUTH)
    assert r.status_code == 409 and r.json()["detail"].startswith("本轮比赛已结束"), r.text
    assert no_reason.status_code == 422  # a substitution says why

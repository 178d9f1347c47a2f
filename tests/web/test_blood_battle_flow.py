"""四川血战到底's flow keyed over HTTP on a real service with the simulated table: 定缺 against the
melds already laid, and a 补杠 robbed by two seats (the turn after them, the wall's count)."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from keyed_hand import OP, dealt  # type: ignore[import-not-found]
from table_controller.service import TableService

REFEREE = "ref-xuezhan-8642"
RULESET = "sichuan"  # the conftest's service plays 四川血战到底
RF = {"Authorization": f"Bearer {REFEREE}"}


def _http(svc: TableService) -> httpx.AsyncClient:
    return httpx.AsyncClient(base_url=f"http://127.0.0.1:{svc.port}", timeout=10)


async def _win(http: httpx.AsyncClient, seat: str, concealed: str, tile: str, how: str, by: str) -> None:
    hand = {"seat_wind": seat, "prevalent_wind": "E", "melds": [], "concealed": concealed.split(),
            "win_tile": tile, "win": how, "discarder": by}
    r = await http.post("/api/referee/win", json={"hand": hand}, headers=RF)
    assert r.status_code == 200, r.text
    r = await http.post("/api/referee/win/confirm", json={}, headers=RF)
    assert r.status_code == 200, r.text


@pytest.mark.asyncio
async def test_a_missing_suit_is_refused_for_a_suit_the_seat_has_melded(service: TableService) -> None:
    """定缺 (seed 003 "必须缺门可胡"): a seat that pung'd 5m before its 定缺 was keyed cannot name 万 as
    the suit it gives up. The record took it, and the seat then held a meld of its 缺门: no win of it
    could stand and the claim it made was one `_holds_missing` refuses."""
    async with _http(service) as http:
        play = await dealt(service, http)
        await play(type="missing", seat="E", suit="s")
        await play(type="discard", seat="E", tile="5m")
        await play(type="claim", kind="pung", seat="S", tiles=["5m"] * 3, **{"from": "E"})
        seq = service.controller.state.seq
        r = await http.post("/api/play", json={"type": "missing", "seat": "S", "suit": "m"}, headers=OP)
        assert r.status_code == 409, r.text
        assert r.json()["detail"].startswith("南家已有万的副露，不能定缺万")
        assert service.controller.state.seq == seq  # refused: nothing logged
        await play(type="missing", seat="S", suit="s")  # another suit stands
        public = (await http.get("/api/state")).json()
        assert public["hand"]["missing"] == {"E": "s", "S": "s"}


@pytest.mark.asyncio
async def test_two_seats_robbing_one_added_kong_leave_the_turn_to_the_konger(service: TableService) -> None:
    """血战: S and N both rob W's 补杠 of 5p (seed 000 抢杠). The turn passes as after two winners on one
    discard: to the seat after the last of them counted from the konger (N, E, S: after S comes W), and
    nobody drew for the robs. It went to E, skipping W, whose discard was then refused, and the second
    rob counted a draw from the wall."""
    async with _http(service) as http:
        play = await dealt(service, http)
        for seat, suit in zip("ESWN", "ssms"):
            await play(type="missing", seat=seat, suit=suit)
        await play(type="discard", seat="E", tile="5p")
        await play(type="claim", kind="pung", seat="W", tiles=["5p"] * 3, **{"from": "E"})
        for seat, tile in (("W", "1s"), ("N", "1s"), ("E", "9s"), ("S", "9s")):
            await play(type="discard", seat=seat, tile=tile)
        await play(type="kong", seat="W", tiles=["5p"] * 4, added=True)
        left = service.controller.state.hand["tiles_left"]
        await _win(http, "S", "1m 1m 1m 2m 3m 4m 5m 6m 7m 8m 8m 4p 6p", "5p", "rob_kong", "W")
        await _win(http, "N", "4m 5m 6m 7m 8m 9m 3p 4p 6p 6p 6p 7p 7p", "5p", "rob_kong", "W")
        public: dict[str, Any] = (await http.get("/api/state")).json()
        assert public["hand"]["out"] == ["S", "N"]
        assert public["hand"]["turn"]["seat"] == "W"
        assert public["hand"]["tiles_left"] == left + 1  # the robbed kong's replacement was never drawn
        assert [m["type"] for m in public["hand"]["melds"]["W"]] == ["pung"]
        assert {w["seat"]: w["payments"]["W"] for w in public["wins"]} == {"S": -2, "N": -2}
        await play(type="discard", seat="W", tile="1m")
        assert service.controller.state.hand["turn"]["seat"] == "E"  # S and N are skipped

"""No play before the break: a hand started (开始) has no wall until its dice are thrown (the table's unit, or
keyed on the Table page where the table reports none), so `POST /api/play` refuses every play before then,
409 naming what is missing (尚未开门 … 请先掷骰, and who throws), nothing logged. Over real HTTP against a
service on the simulated table (a real pseudo-terminal) with its real SQLite log. Before, a discard, a flower,
配牌完成 or a 定缺 keyed then was recorded into a hand with no wall (no tiles left, 海底 or 荒牌 counted)."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import httpx

from table_controller.config import parse_config
from table_controller.controller import side_of_wind
from table_controller.service import TableService
from table_controller.tiles import SEAT_NAMES

OP = {"Authorization": "Bearer op"}
NO_BREAK = "尚未开门，不能录入行牌：请先掷骰"


async def _until(check: Callable[[], Any], what: str, timeout: float = 15) -> None:
    end = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < end, f"timed out waiting for {what}"
        await asyncio.sleep(0.02)


@contextlib.asynccontextmanager
async def _started(tmp_path: Path, ruleset: str, dialect: str = "mahjong-link"
                   ) -> AsyncIterator[tuple[TableService, httpx.AsyncClient]]:
    """A service of `ruleset` on the simulator (`dialect`), a hand started and no dice thrown yet."""
    config = parse_config({"table": {"link": "sim://", "sim_seed": 5, "sim_speed": 1000.0, "dialect": dialect},
                           "rules": {"ruleset": ruleset},
                           "display": {"port": 0, "operator_token": "op", "referee_token": "ref-pin-2468"}},
                          source="test")
    svc = TableService(config, tmp_path / ruleset)
    await svc.start()
    try:
        await svc.controller.wait_linked(10)
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{svc.port}") as http:
            r = await http.post("/api/hand/start", headers=OP)
            assert r.status_code == 200, r.text
            yield svc, http
    finally:
        await svc.stop()


async def _refused(svc: TableService, http: httpx.AsyncClient, words: str, **body: Any) -> None:
    """A play refused with 409 and `words` first (Chinese), nothing logged."""
    seq = svc.controller.state.seq
    r = await http.post("/api/play", json=body, headers=OP)
    assert r.status_code == 409 and r.json()["detail"].startswith(words), (body, r.text)
    assert len(svc.controller.store.since(seq)) == 0 and not any(svc.controller.state.hand["flowers"].values())


async def _taken(http: httpx.AsyncClient, **body: Any) -> None:
    r = await http.post("/api/play", json=body, headers=OP)
    assert r.status_code == 200, (body, r.text)


async def test_an_automatic_tables_hand_takes_no_play_before_its_dice(tmp_path: Path) -> None:
    """国标: two throws (the dealer, then the seat the first counts to); every play waits for both."""
    async with _started(tmp_path, "mcr") as (svc, http):
        await _until(lambda: svc.controller.state.phase == "walls_raised", "the walls")
        hand = svc.controller.state.hand
        assert hand["table_dice"] == 2 and hand["deal"] is None
        for body in ({"type": "discard", "seat": "E", "tile": "1z"}, {"type": "flower", "seat": "S", "tile": "5f"},
                     {"type": "deal_done"}, {"type": "kong", "seat": "E", "tiles": ["7s"] * 4, "concealed": True}):
            await _refused(svc, http, NO_BREAK + "（应由东家掷骰；", **body)
        svc.sim.press_button(seat=side_of_wind("E", hand["dealer_position"]), button="dice")  # the dealer's throw
        await _until(lambda: svc.controller.state.hand["throws"], "the dealer's throw")
        second = svc.controller.state.hand["next_thrower"]
        await _refused(svc, http, f"{NO_BREAK}（应由{SEAT_NAMES[second]}家掷第二次骰", type="discard", seat="E", tile="1z")
        svc.sim.press_button(seat=side_of_wind(second, hand["dealer_position"]), button="dice")
        await _until(lambda: svc.controller.state.hand["deal"] is not None, "the break")
        await _taken(http, type="flower", seat="S", tile="5f")  # the opening 补花, then the dealer's discard
        await _taken(http, type="discard", seat="E", tile="1z")
        hand = svc.controller.state.hand
        assert hand["turn"]["seat"] == "S" and hand["flowers"]["S"] == ["5f"]
        assert hand["tiles_left"] == 144 - 53 - 1  # the wall counts from the break: 53 dealt, a replacement
        types = [e.type for e in svc.controller.store.since(0)]
        assert types.index("play.flower") > max(i for i, t in enumerate(types) if t == "table.dice")


async def test_a_table_without_dice_takes_play_once_its_dice_are_keyed(tmp_path: Path) -> None:
    """A remote-control table reports no dice: the operator keys them (录入骰子), then play is taken; 定缺
    (四川) is said after the deal too."""
    async with _started(tmp_path, "sichuan", dialect="remote-control") as (svc, http):
        assert svc.controller.state.hand["table_dice"] == 0
        await _refused(svc, http, NO_BREAK, type="missing", seat="S", suit="m")
        await _refused(svc, http, NO_BREAK, type="discard", seat="E", tile="1s")
        r = await http.post("/api/dice", json={"seat": "E", "dice": [6, 3]}, headers=OP)
        assert r.status_code == 200, r.text
        await _taken(http, type="missing", seat="S", suit="m")
        await _taken(http, type="discard", seat="E", tile="1s")
        hand = svc.controller.state.hand
        assert hand["missing"] == {"S": "m"} and hand["turn"]["seat"] == "S" and hand["tiles_left"] == 108 - 53

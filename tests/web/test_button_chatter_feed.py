"""The display's sockets under a chattering button (a board that does not debounce: 300 `button` reports in
a burst over the real pty), over a real uvicorn: every report is logged, but the live feed and the
broadcast feed send a chattering button's reports once a second at most, the notice's count right in the
last; before, each report was a socket message with the whole state (13 KB), to every page open."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import websockets

from drivers.messages import SEATS as SIDES
from table_controller.service import TableService

REFEREE = "ref-chatter-9"
BUTTON, START = 0x93, 1  # protocol.md §7: the board's `button` event, 开始键
REPORTS = 300


async def drain(ws: Any, quiet: float) -> list[dict[str, Any]]:
    """The socket's messages until it says nothing for `quiet` seconds but health or `alive`."""
    got: list[dict[str, Any]] = []
    end = time.monotonic() + quiet
    while (left := end - time.monotonic()) > 0:
        try:
            msg = json.loads(await asyncio.wait_for(ws.recv(), left))
        except asyncio.TimeoutError:
            break
        if msg.get("type") not in ("health", "alive"):
            got.append(msg)
            end = time.monotonic() + quiet
    return got


async def test_a_chattering_button_reaches_the_sockets_as_a_few_messages_and_the_notice_counts_every_report(
        service: TableService) -> None:
    c, sim = service.controller, service.sim
    assert c is not None and sim is not None
    await c.wait_linked(10)
    url = f"ws://127.0.0.1:{service.port}"
    async with websockets.connect(f"{url}/ws", max_size=None) as live, \
            websockets.connect(f"{url}/ws?delay=1", max_size=None) as aired:
        await drain(live, 0.5)
        await drain(aired, 0.5)
        start = c.state.seq
        for _ in range(REPORTS):
            sim.newer_event(BUTTON, bytes([SIDES.index("N"), START]))
        for _ in range(3000):
            if sum(1 for e in service.store.since(start) if e.type == "table.button") == REPORTS:
                break
            await asyncio.sleep(0.01)
        live_got, aired_got = await asyncio.gather(drain(live, 2.5), drain(aired, 2.5))
    logged = [e for e in service.store.since(start) if e.type == "table.button"]
    assert len(logged) == REPORTS  # every report in the record
    assert [e.type for e in service.store.since(start)].count("controller.button_chatter") == 1
    for got in (live_got, aired_got):
        events = [m for m in got if m["type"] == "event"]
        # ten lines before it chattered, its notice, and its counted reports once a second at most
        assert len(events) < 30, [m["seq"] for m in events]
        last = [m for m in events if m["seq"] <= logged[-1].seq][-1]  # (its notice may have cleared since)
        assert last["seq"] == logged[-1].seq  # the last report is sent, so the count shown is right
        [notice] = last["state"]["buttons"]
        assert (notice["where_zh"], notice["presses"]) == ("4号位开始键", REPORTS)
        page = [line for line in last["state"]["log"] if line["type"] == "table.button"]
        assert len(page) == 10

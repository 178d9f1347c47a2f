"""A hand begun over HTTP as an operator begins one at a table: 开始 pressed, the walls up, the dice keyed.

Shared by the tests that key plays (`test_play_corrections`, `test_opening_turn`, `test_play_before_dice`,
`test_two_referees`)."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx

from table_controller.config import parse_config
from table_controller.service import TableService

#: the operator's credential every service of these tests is started with
OP = {"Authorization": "Bearer op"}


async def start_hand(svc: TableService, http: httpx.AsyncClient, walls_s: float = 15) -> None:
    """The table linked, 开始 pressed, and its walls raised (the simulator builds them)."""
    await svc.controller.wait_linked(10)
    r = await http.post("/api/hand/start", headers=OP)
    assert r.status_code == 200, r.text
    end = time.monotonic() + walls_s
    while svc.controller.state.phase != "walls_raised":
        assert time.monotonic() < end, "the walls never went up"
        await asyncio.sleep(0.02)


async def key_dice(svc: TableService, http: httpx.AsyncClient) -> None:
    """Each throw the hand waits for keyed (3 + 4) until the deal exists."""
    while (hand := svc.controller.state.hand)["deal"] is None:
        r = await http.post("/api/dice", json={"seat": hand["next_thrower"], "dice": [3, 4]}, headers=OP)
        assert r.status_code == 200, r.text


async def dealt(svc: TableService, http: httpx.AsyncClient) -> Callable[..., Awaitable[int]]:
    """A hand started on the simulated table, its dice keyed, the deal done; returns `play(**body)`,
    the operator keying a play that must be taken, answering its event's seq."""
    await start_hand(svc, http)
    await key_dice(svc, http)

    async def play(**body: Any) -> int:
        r = await http.post("/api/play", json=body, headers=OP)
        assert r.status_code == 200, (body, r.text)
        return int(r.json()["seq"])

    await play(type="deal_done")
    return play


@contextlib.asynccontextmanager
async def served_page(tmp_path: Path, chromium: Any, settings: dict[str, Any], token: str,
                      role: str) -> AsyncIterator[tuple[TableService, Any]]:
    """A service of `settings` on the simulator (linked) and a 1280×720 page of it logged in with `token` as
    `role`; both closed after."""
    svc = TableService(parse_config(settings, source="test"), tmp_path)
    await svc.start()
    context = await chromium.new_context(viewport={"width": 1280, "height": 720})
    try:
        assert svc.controller is not None and svc.sim is not None
        await svc.controller.wait_linked(10)
        yield svc, await logged_in(context, svc, token, role)
    finally:
        await context.close()
        await svc.stop()


async def logged_in(context: Any, svc: TableService, token: str, role: str) -> Any:
    """A page of `svc` opened in the browser `context`, logged in with `token` as `role` (operator, referee)."""
    page = await context.new_page()
    await page.goto(f"http://127.0.0.1:{svc.port}/")
    await page.fill("#token", token)
    await page.click("#login button[type=submit]")
    await page.wait_for_function(f"document.body?.dataset.role === '{role}'")
    return page

"""A board that identifies and falls at once is linked again after the backoff, not at once, over and over.

A firmware in a crash loop, or a bridge that drops each connection after the handshake: the link loop took
each fall as the end of a link that had held and linked again at once, two events in the log each time (a
table's link.up and link.down), as fast as the board answered: 600 a second here, the card filling. A link
that falls within `STEADY_LINK_S` of coming up now counts as a failed attempt and waits the backoff; one that
held is linked again at once, as before. The log is a real SQLite file; the board is a stand-in that answers
the handshake and then has nothing (its events end with an error at once).
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

import table_controller.controller as controller_module
from table_controller.config import parse_config
from table_controller.controller import Controller
from table_controller.store import EventStore


class _FallingTable:
    """Linked, then gone: its events end with the transport's error at once (a board that reset)."""

    info = None

    async def events(self) -> Any:
        raise ConnectionResetError("the board reset")
        yield  # an async generator, as the driver's

    async def close(self) -> None:
        await asyncio.sleep(0)


async def _linked_count(tmp_path: Path, watch_s: float) -> tuple[int, list[float]]:
    opened: list[float] = []

    async def board_that_falls(url: str) -> Any:
        await asyncio.sleep(0)  # the handshake's round trip: answered at once
        opened.append(asyncio.get_running_loop().time())
        return _FallingTable()

    store = EventStore(tmp_path / "events.sqlite3")
    c = Controller(parse_config({"table": {"link": "socket://127.0.0.1:9"}}, "test"), store, board_that_falls)
    await c.start()
    try:
        await asyncio.sleep(watch_s)
    finally:
        await c.stop()
    ups = sum(1 for e in store.since(0) if e.type == "link.up")
    store.close()
    return ups, opened


async def test_a_board_that_falls_at_each_link_is_tried_again_with_the_backoff(tmp_path: Path) -> None:
    ups, opened = await _linked_count(tmp_path, 2.0)
    # 0.2 + 0.5 + 1.0 s of backoff fit in 2 s: four links at most (hundreds a second before)
    assert 2 <= ups <= 4, f"{ups} links in 2 s"
    gaps = [b - a for a, b in zip(opened, opened[1:])]
    assert all(g >= 0.19 for g in gaps), gaps
    assert gaps == sorted(gaps), f"the waits grow: {gaps}"


async def test_a_link_that_held_is_linked_again_at_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The backoff is for links that fell at once: one that held `STEADY_LINK_S` is tried again without a wait."""
    monkeypatch.setattr(controller_module, "STEADY_LINK_S", 0.0)
    ups, opened = await _linked_count(tmp_path, 0.3)
    assert ups >= 20, f"only {ups} links in 0.3 s: a link that held waited before the next"

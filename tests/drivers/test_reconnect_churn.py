"""A board that answers the handshake and drops at once is tried again with a growing backoff, not every 0.1 s.

A firmware in a crash loop comes up, answers identify (and the status the host asks next), then restarts: the
driver's reconnect loop started its backoff again at 0.1 s after every link up, so it linked and lost such a
board ten times a second for as long as it ran, a link_up and a link_down each time into the controller and
its log. A link that falls within `STEADY_LINK` of coming up now keeps the backoff doubling (to `BACKOFF_MAX`);
one that held is tried again after the first, short wait, as before. The board is the simulator on a real pty
(a TCP connection, the virtual USB bus: the three transports share the loop), on the injected clock.
"""

from __future__ import annotations

from typing import Any

import pytest

from drivers.clock import Clock, SystemClock, VirtualClock
from drivers.table import BACKOFF_FIRST, BACKOFF_MAX, STEADY_LINK, Table
from tablesim import SimTable

from test_reconnect import start  # type: ignore[import-not-found]


class _CrashLoopingBoard(SimTable):
    """The simulator with a firmware that restarts (a brown-out's RESET and hello) right after it answered a
    host's handshake, identify and then status, while `crashing`."""

    crashing = True
    _handshaking = False

    def _identify(self, conn: Any, v: dict[str, Any]) -> None:
        super()._identify(conn, v)
        self._handshaking = True

    def _run_command(self, name: str, values: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        reply = super()._run_command(name, values)
        if name == "status" and self._handshaking:
            self._handshaking = False
            if self.crashing:
                self._spawn(self._crash(), "crash")  # once the reply has left (the pump flushes it first)
        return reply

    async def _crash(self) -> None:
        self.brown_out()


async def _start(transport: str, clock: Clock) -> tuple[_CrashLoopingBoard, Table]:
    sim, table = await start(transport, clock, board=_CrashLoopingBoard, seed=11)
    assert isinstance(sim, _CrashLoopingBoard)
    return sim, table


def _ups(table: Table) -> list[float]:
    """When each link_up came, from the events not yet taken (nobody consumes them here)."""
    queued = list(table._events._queue)  # type: ignore[attr-defined]
    return [e.at for e in queued if e is not None and e.type == "link_up"]


# Over USB on the real clock, a short while: the virtual bus's transfers run on threads in real time, and an auto
# virtual clock jumps past them (a link seemed to hold 10 s and the backoff started over; 7 to 12 links in a
# simulated minute, 0.7 to 13 s of real time). pty and TCP show the minute on the virtual clock.
@pytest.mark.parametrize(("transport", "watch_s", "most"), [("pty", 60.0, 17), ("tcp", 60.0, 17), ("usb", 2.5, 6)])
async def test_a_board_that_drops_after_each_handshake_is_linked_a_few_times_a_minute(
        no_leaks: None, transport: str, watch_s: float, most: int) -> None:
    clock: Clock = SystemClock() if transport == "usb" else VirtualClock(auto=True)
    sim, table = await _start(transport, clock)
    try:
        await clock.sleep(watch_s)
        ups = _ups(table)
        # links 0.1, 0.2, 0.4 ... 3.2 s apart, then 5 s: 17 in a minute (about 600 before), 5 in 2.5 s (25)
        assert 3 <= len(ups) <= most, f"{len(ups)} links in {watch_s:g} s over {transport}"
        gaps = [b - a for a, b in zip(ups, ups[1:])]
        doubling = [min(BACKOFF_FIRST * 2 ** i, BACKOFF_MAX) for i in range(len(gaps))]
        assert all(g >= w - 0.01 for g, w in zip(gaps, doubling)), f"the waits double to the cap: {gaps}"
    finally:
        await table.close()
        await sim.close()
        if isinstance(clock, VirtualClock):
            await clock.close()


@pytest.mark.parametrize("transport", ["pty", "tcp"])
async def test_a_link_that_held_is_linked_again_at_once_after_one_drop(no_leaks: None, transport: str) -> None:
    """The backoff that grew over a crash loop is forgotten once a link holds `STEADY_LINK`: the next drop (one
    restart) is linked again after the first wait, not after `BACKOFF_MAX`."""
    clock = VirtualClock(auto=True)
    sim, table = await _start(transport, clock)
    try:
        await clock.sleep(20.0)  # the crash loop: the backoff is at its cap by now
        sim.crashing = False  # a fixed firmware: the next link holds
        n = len(_ups(table))
        await table.wait_for_event("link_up", timeout=2 * BACKOFF_MAX)
        assert len(_ups(table)) == n + 1
        await clock.sleep(STEADY_LINK + 1.0)
        assert table.health.up
        sim.brown_out()
        down = await table.wait_for_event("link_down", timeout=5)
        up = await table.wait_for_event("link_up", timeout=BACKOFF_MAX)
        assert up.at - down.at <= 2 * BACKOFF_FIRST, f"linked again after {up.at - down.at:.2f} s"
        assert (await table.status()).phase == "idle"
    finally:
        await table.close()
        await sim.close()
        await clock.close()

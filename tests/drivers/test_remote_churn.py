"""A remote-control table that drops after each echo (a crash loop, a loose plug): the keepalive's reconnects
back off instead of linking again every couple of seconds (`drivers.remote.RemoteTable._keepalive`)."""

from __future__ import annotations

from typing import Any

from drivers.clock import VirtualClock
from drivers.remote import KEEPALIVE, PING, frame
from drivers.table import BACKOFF_FIRST, STEADY_LINK, open_table
from tablesim import SimTable

#: How long the board is gone after each echo of a PING: past the keepalive's next PING.
CRASH_S = KEEPALIVE + 0.5


class _CrashAfterEcho(SimTable):
    """Echoes a PING, then is gone for `CRASH_S` (nothing crosses the cable), while `crashing`."""

    crashing = True

    def _write(self, conn: Any, data: bytes) -> None:
        super()._write(conn, data)
        if self.crashing and data == frame(PING):
            self.unplug(CRASH_S)


def _ups(table: Any) -> list[float]:
    """When each link_up came, from the events not yet taken (nobody consumes them here)."""
    return [e.at for e in list(table._events._queue) if e is not None and e.type == "link_up"]


async def test_a_remote_table_that_drops_after_each_link_is_linked_a_few_times_a_minute(no_leaks: None) -> None:
    """Before: the backoff started over at each link up, 22 links (and as many link_down) in a minute (11 now,
    then one each 7.6 s): the waits double while the links fall within `STEADY_LINK`."""
    clock = VirtualClock(auto=True)
    sim = _CrashAfterEcho(seed=1, clock=clock, dialect="remote-control")
    table = await open_table(await sim.serve_pty(), clock=clock, dialect="remote-control")
    try:
        await clock.sleep(60.0)
        ups = _ups(table)
        assert 3 <= len(ups) <= 12, f"{len(ups)} links in a minute: {[round(u - ups[0], 1) for u in ups]}"
        sim.crashing = False  # the board mended: the next link holds, and a drop after it is retried at once
        await table.wait_for_event("link_up", timeout=30)
        await clock.sleep(STEADY_LINK + 1.0)
        assert table.health.up
        sim.unplug(CRASH_S)
        await table.wait_for_event("link_down", timeout=10)
        tries = table.health.reconnects
        await clock.sleep(1.5 * BACKOFF_FIRST)
        assert table.health.reconnects == tries + 1, "a link that held is tried again after the first wait"
        await table.wait_for_event("link_up", timeout=30)
    finally:
        await table.close()
        await sim.close()
        await clock.close()

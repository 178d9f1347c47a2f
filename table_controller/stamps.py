"""The events' stamps continued across restarts of the service within one boot of the Pi.

A Pi has no real-time clock: it boots with a saved time and NTP steps the clock when it first
syncs, maybe mid-session. Within one run the stamps follow the monotonic clock (`SteadyWallClock`),
so the session clock does not jump. A restart (a crash, systemd's restart, an upgrade) made a new
steady clock from the system clock as it then was: after such a step the record's timeline jumped
by it, and a session started before the step read as hours over, so no new hand could start. The
monotonic clock runs on across processes until the next boot, so the clock's anchor (stamp minus
monotonic reading) is kept in the log's `meta` with the kernel's boot id, and a restart in the
same boot, while a session runs or a hand is in play, stamps on from it: the downtime is counted,
the step is not. Between matches the system clock is taken (a technician who set the time and
restarted the service gets it). After a reboot the anchor is of no use (the monotonic clock started
again); the system clock is taken, as before, and a clock behind the record is reported
(`Controller.check_clock`).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from pathlib import Path

from drivers.clock import SteadyWallClock
from table_controller.state import TableState
from table_controller.store import EventStore, StoreError

log = logging.getLogger("table_controller.stamps")

BOOT_ID = Path("/proc/sys/kernel/random/boot_id")
#: The `meta` key: "<boot id> <anchor>".
META_KEY = "stamp_clock"


def boot_id() -> str | None:
    """The kernel's id of this boot (Linux), or None where there is none."""
    try:
        return BOOT_ID.read_text(encoding="ascii").strip() or None
    except OSError:
        return None


def in_play(state: TableState) -> bool:
    """Whether intervals measured from stamps already logged still matter: a session running, a hand in play."""
    from table_controller.referee import session

    running = session(state.actions)
    hand = state.hand
    return bool(running and not running.get("ended_at")) or bool(hand and not hand.get("ended"))


def stamp_clock(store: EventStore, state: TableState, wall: Callable[[], float] = time.time,
                mono: Callable[[], float] = time.monotonic,
                boot: Callable[[], str | None] = boot_id) -> SteadyWallClock:
    """The stamps' clock for a service starting on `store` (folded to `state`): the last run's, when it
    ran in this boot and a session or a hand it timed goes on."""
    here = boot()
    try:
        kept = store.get_meta(META_KEY)
    except StoreError:
        kept = None
    if here and kept and in_play(state):
        kept_boot, _, anchor = kept.partition(" ")
        try:
            if kept_boot == here:
                return SteadyWallClock(wall, mono, anchor=float(anchor))
        except ValueError:  # a hand-edited row: start a new timeline
            pass
    clock = SteadyWallClock(wall, mono)
    if here:
        try:
            store.put_meta(META_KEY, f"{here} {clock.anchor!r}")
        except StoreError as exc:  # a full card: the stamps are right for this run anyway
            log.warning("stamp clock not kept", extra={"error": str(exc)})
    return clock

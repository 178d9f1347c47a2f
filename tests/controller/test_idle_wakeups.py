"""A controller with nothing to do does not wake its Pi every second to find that out.

Two loops looked every second for work an idle table rarely has: the held events a full card keeps
back (`_retry_log`: nothing held while the log writes), and the session clock's 报时 (no clock runs
between matches). Each now waits for what makes it due: a refused write, an event folded. The
wakeups are the kernel's count (the loop thread's voluntary context switches); the log is a real
SQLite file and the full card SQLite's own refusal.
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


def switches() -> int:
    """This thread's voluntary context switches so far (each a sleep it woke from)."""
    text = Path("/proc/thread-self/status").read_text()
    return int(next(line.split()[1] for line in text.splitlines() if line.startswith("voluntary_ctxt_switches")))


async def _until(check: Any, timeout: float = 5.0) -> None:
    for _ in range(int(timeout / 0.05)):
        if check():
            return
        await asyncio.sleep(0.05)
    raise AssertionError("not reached")


#: The two loops' periods, made short: a loop that polled at its period again would wake 1 / PERIOD_S times a
#: second (4 in the IDLE_S below, twice the bound), and the held event is retried within PERIOD_S, not 1 s.
PERIOD_S = 0.25
#: How long the idle controller is watched: at least 4 periods, so even one loop polling alone shows 4 wakeups.
IDLE_S = 1.0


async def test_an_idle_controller_sleeps_and_still_retries_a_full_log_and_announces_a_session(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(controller_module, "LOG_RETRY_S", PERIOD_S)
    monkeypatch.setattr(controller_module, "ANNOUNCE_CHECK_S", PERIOD_S)
    never = asyncio.Event()

    async def table_that_never_answers(url: str) -> Any:  # a board's port that does not open (nothing to hear)
        await never.wait()
        # at the end, as a port that never opened: returning (None) linked a table, and a link loop without a wait
        # then ran on without yielding, the stop never reached (CI: a worker at 7 GB, the run held)
        raise ConnectionRefusedError(url)

    store = EventStore(tmp_path / "events.sqlite3")
    c = Controller(parse_config({"table": {"link": "socket://127.0.0.1:9"}}, "test"), store, table_that_never_answers)
    await c.start()
    try:
        await asyncio.sleep(0.3)
        before = switches()
        await asyncio.sleep(IDLE_S)
        idle = switches() - before
        # the test's own sleep, and nothing else (was 4 in 3 s at the loops' 1 s: the two loops, woken together)
        assert idle <= 2, f"{idle} wakeups in {IDLE_S} s of an idle controller"

        # a full card: the event held is written once there is room again, without any action asked
        pages = store._db.execute("PRAGMA page_count").fetchone()[0]
        store._db.execute(f"PRAGMA max_page_count = {pages}")
        n = 0
        while c.log_error is None:
            c.offer("table", "table.button", {"seat": "E", "button": "start", "n": n, "pad": "x" * 400})
            n += 1
            assert n < 100, "the capped log never filled"
        held = len(c._held)
        store._db.execute("PRAGMA max_page_count = 1000000")
        await _until(lambda: c.log_error is None and not c._held, 3 * controller_module.LOG_RETRY_S)
        assert held >= 1 and [e.type for e in store.since(0)][-1] == "controller.log_restored"

        # a session started inside its 15-minute warning: announced by the loop, without a poll before it
        c.referee_action("referee.session_start", {"minutes": 10}, by="referee")
        await _until(lambda: any(e.type == "controller.session_alert" for e in store.since(0)), 3.0)
        assert [e.data["minutes"] for e in store.since(0) if e.type == "controller.session_alert"] == [15]
    finally:
        never.set()
        await c.stop()
        store.close()

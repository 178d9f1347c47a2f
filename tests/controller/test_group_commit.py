"""The table's events waiting behind one are written to the log together (a group commit), over the simulated
board on a real pty and a real SQLite log: a fault behind a chattering button's flood waits for a few durable
commits, not one for every event before it, and every event is still on disk before anything shows it, none
lost, none out of order. The commits are counted from SQLite's own statements (each is an fsync on the card:
3-5 ms here, more on a Pi's), not timed."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from simtable import linked_table, until  # type: ignore[import-not-found]

from drivers.messages import SEATS as SIDES
from table_controller.controller import GROUP_MOST
from table_controller.store import EventStore, StoreError

BUTTON = 0x93  # protocol.md §7: the board's `button` event
START = 1      # protocol.md §7 `button`: 1 开始键
FLOOD = 300


class Commits:
    """The event log's transactions that wrote events, counted from the statements SQLite runs: an INSERT
    outside a transaction is one, a BEGIN .. COMMIT around INSERTs is one."""

    def __init__(self, store: EventStore) -> None:
        self.count = 0
        self.largest = 0  # events in the largest transaction
        self._open = False
        self._wrote = 0
        store._db.set_trace_callback(self._saw)  # noqa: SLF001 - the log's own connection is what commits

    def _saw(self, sql: str) -> None:
        head = sql.lstrip().upper()
        if head.startswith("BEGIN"):
            self._open, self._wrote = True, 0
        elif head.startswith("INSERT INTO EVENTS"):
            if self._open:
                self._wrote += 1
            else:
                self.count += 1
                self.largest = max(self.largest, 1)
        elif head.startswith(("COMMIT", "ROLLBACK")):
            if head.startswith("COMMIT") and self._wrote:
                self.count += 1
                self.largest = max(self.largest, self._wrote)
            self._open = False


async def test_a_fault_behind_a_flood_waits_for_a_few_commits_and_nothing_is_shown_before_it_is_on_disk(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # groups cut by GROUP_MOST and by what is waiting, not by GROUP_S of the real steady clock: a worker descheduled
    # for tens of ms at a load of ~10 cut groups of 2.5 on average (120 commits, once in the review's runs)
    monkeypatch.setattr("table_controller.controller.GROUP_S", 60.0)
    async with linked_table(tmp_path) as service:
        c, sim, store = service.controller, service.sim, service.store
        assert c is not None and sim is not None and store is not None
        reader = sqlite3.connect(store.path)  # another connection sees only what is committed
        shown: list[int] = []
        late: list[int] = []
        commits_when_fault_shown: list[int] = []
        counted = Commits(store)
        queue = c.subscribe()
        put = queue.put_nowait

        def checked(ev: Any) -> None:
            if reader.execute("SELECT 1 FROM events WHERE seq = ?", (ev.seq,)).fetchone() is None:
                late.append(ev.seq)  # shown before it was on disk
            shown.append(ev.seq)
            if ev.type == "table.fault_raised":
                commits_when_fault_shown.append(counted.count)
            put(ev)

        queue.put_nowait = checked  # type: ignore[method-assign]
        start = c.state.seq
        # the board has the flood and then the fault to send at once (a board without debounce, a worn key)
        for _ in range(FLOOD):
            sim.newer_event(BUTTON, bytes([SIDES.index("S"), START]))
        sim.raise_fault("sensor", "photo E")
        await until(lambda: "7" in c.state.faults, 30)
        logged = store.since(start)
        buttons = [e for e in logged if e.type == "table.button"]
        [fault] = [e for e in logged if e.type == "table.fault_raised"]
        # none lost, none after the fault, numbered without a gap
        assert len(buttons) == FLOOD and all(b.seq < fault.seq for b in buttons)
        assert [e.seq for e in logged] == list(range(start + 1, start + 1 + len(logged)))
        # written in groups: the fault waited for a few commits, not 300 (one each, before)
        [commits] = commits_when_fault_shown
        assert commits <= FLOOD // 4, f"{commits} commits before the fault was shown"
        assert counted.largest <= GROUP_MOST  # bounded: the first of a group is shown at most that many folds late
        # every event was on disk when it was shown, and shown in the log's order
        assert late == []
        assert shown == sorted(shown) and set(range(start + 1, fault.seq + 1)) <= set(shown)
        reader.close()
        c.unsubscribe(queue)


async def test_a_lone_event_is_written_at_once_in_a_group_of_its_own(tmp_path: Path) -> None:
    """A press with nothing behind it is not held for company: one commit, shown at once."""
    async with linked_table(tmp_path) as service:
        c, sim, store = service.controller, service.sim, service.store
        assert c is not None and sim is not None and store is not None
        counted = Commits(store)
        start = c.state.seq
        sim.newer_event(BUTTON, bytes([SIDES.index("W"), START]))
        await until(lambda: any(line["type"] == "table.button" and line["seq"] > start for line in c.state.log))
        assert counted.count == 1 and [e.type for e in store.since(start)] == ["table.button"]


async def test_an_idle_tables_heartbeats_run_nothing_on_the_log(tmp_path: Path) -> None:
    """The board's heartbeat each second is taken by the link loop as any table event, but is no row of the log
    (`TRANSIENT`). Each one's group asked the log for its next number first (two SELECTs and their read locks on
    the card's files, every second of an idle day on a Pi) to number events it never had; the number is asked
    for by the group's first event now, and a quiet linked table runs no statement at all."""
    async with linked_table(tmp_path) as service:
        c, sim, store = service.controller, service.sim, service.store
        assert c is not None and c.table is not None and sim is not None and store is not None
        ran: list[str] = []
        store._db.set_trace_callback(ran.append)  # noqa: SLF001 - the log's own connection
        beats, start = c.table.health.frames_received, c.state.seq
        await until(lambda: c.table.health.frames_received >= beats + 3 and not c.table.events_waiting(), 10)
        assert ran == [] and c.state.seq == start
        sim.newer_event(BUTTON, bytes([SIDES.index("N"), START]))  # an event: numbered and written as before
        await until(lambda: c.state.seq == start + 1)
        assert [e.type for e in store.since(start)] == ["table.button"]
        assert any(sql.lstrip().upper().startswith("INSERT INTO EVENTS") for sql in ran)


CHILD = textwrap.dedent("""
    import asyncio, sys
    from pathlib import Path
    from drivers.messages import SEATS as SIDES
    from table_controller.config import parse_config
    from table_controller.service import TableService

    async def main() -> None:
        config = parse_config({"table": {"link": "sim://", "sim_speed": 500},
                               "display": {"port": 0, "operator_token": "op-token-1", "referee_token": "ref-token-1"}},
                              source="test")
        service = TableService(config, Path(sys.argv[1]), serve_http=False)
        await service.start()
        c, sim = service.controller, service.sim
        await c.wait_linked(10)
        queue = c.subscribe()
        print("ready", flush=True)
        while True:  # a flood the board sends at once, over and over, until killed
            for _ in range(200):
                sim.newer_event(0x93, bytes([SIDES.index("S"), 1]))
            for _ in range(200):
                ev = await queue.get()
                print(ev.seq, flush=True)  # shown

    asyncio.run(main())
""")


def test_a_service_killed_mid_flood_kept_every_event_it_had_shown(tmp_path: Path) -> None:
    """SIGKILL while groups are being written: every event the child had shown is in the log, numbered without
    a gap, and the table's cursor in the log is a table event's (written in the same transaction)."""
    env = {**os.environ, "PYTHONPATH": f"hardware-sim{os.pathsep}."}
    root = Path(__file__).resolve().parents[2]
    child = subprocess.Popen([sys.executable, "-c", CHILD, str(tmp_path)], cwd=root, env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    assert child.stdout is not None
    try:
        assert child.stdout.readline().strip() == "ready"
        shown = []
        for line in child.stdout:
            shown.append(int(line))
            if len(shown) >= 700:  # mid-flood: groups behind it are being folded and written
                break
    finally:
        os.kill(child.pid, signal.SIGKILL)
        child.wait(10)
        child.stdout.close()
    db = sqlite3.connect(tmp_path / "events.sqlite3")
    seqs = [r[0] for r in db.execute("SELECT seq FROM events ORDER BY seq")]
    assert seqs == list(range(1, len(seqs) + 1))
    assert set(shown) <= set(seqs) and max(seqs) >= max(shown)
    cursor = db.execute("SELECT value FROM meta WHERE key = 'table_cursor'").fetchone()[0]
    buttons = db.execute("SELECT COUNT(*) FROM events WHERE type = 'table.button'").fetchone()[0]
    assert int(cursor.split(":")[1]) >= buttons  # the cursor covers every table event the log holds
    assert all(json.loads(d)["seat"] == "S" for (d,) in db.execute(
        "SELECT data FROM events WHERE type = 'table.button'"))
    db.close()


def test_the_log_refuses_a_group_numbered_out_of_its_order(tmp_path: Path) -> None:
    """`append_group` writes events numbered from the log's next on, or nothing (a number given twice)."""
    store = EventStore(tmp_path / "events.sqlite3")
    first = store.append("table", "table.button", {"seat": "S"}, at=1.0)
    with pytest.raises(StoreError):
        store.append_group([EventStore.event(first.seq, "table", "table.button", {"seat": "E"}, 2.0)])
    group = [EventStore.event(store.next_seq() + i, "table", "table.button", {"seat": s}, 2.0 + i)
             for i, s in enumerate("EW")]
    store.append_group(group, table_cursor=(7, 3))
    assert [(e.seq, e.data["seat"]) for e in store.since(0)] == [(1, "S"), (2, "E"), (3, "W")]
    assert store.table_cursor() == (7, 3)
    store.close()


"""The SQLite event log: durable, ordered, numbered once, readable from any sequence number."""

import sqlite3
from typing import Any
from pathlib import Path

import pytest

from table_controller.store import EventStore, StoreError


def test_append_numbers_and_persists_across_reopen(tmp_path: Path) -> None:
    path = tmp_path / "events.sqlite3"
    store = EventStore(path)
    a = store.append("table", "table.phase", {"phase": "shuffling"}, at=100.0)
    b = store.append("referee", "referee.note", {"text": "迟到"}, at=101.0)
    assert (a.seq, b.seq) == (1, 2)
    store.close()
    again = EventStore(path)
    events = list(again)
    assert [e.type for e in events] == ["table.phase", "referee.note"]
    assert events[1].data == {"text": "迟到"}
    assert again.since(1)[0].seq == 2
    assert again.last_seq() == 2
    c = again.append("table", "table.phase", {"phase": "ready"}, at=102.0)
    assert c.seq == 3  # never reuses a number
    # Another reader (an auditor with sqlite3) sees the same rows.
    rows = sqlite3.connect(path).execute("SELECT seq, type FROM events ORDER BY seq").fetchall()
    assert rows == [(1, "table.phase"), (2, "referee.note"), (3, "table.phase")]


def test_unknown_source_is_refused_and_nothing_is_written(tmp_path: Path) -> None:
    store = EventStore(tmp_path / "e.sqlite3")
    with pytest.raises(ValueError, match="unknown event source"):
        store.append("martians", "x", {}, at=0.0)
    assert store.last_seq() == 0


def test_unopenable_path_gives_a_clear_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises((StoreError, OSError)):
        EventStore(blocker / "events.sqlite3")


def test_since_with_limit(tmp_path: Path) -> None:
    store = EventStore(tmp_path / "e.sqlite3")
    for i in range(10):
        store.append("table", "table.tile_count", {"count": i}, at=float(i))
    assert [e.data["count"] for e in store.since(3, limit=2)] == [3, 4]


async def test_a_restarted_controller_takes_the_tables_phase_and_faults_from_the_table(tmp_path: Path) -> None:
    """The service stops (a crash, a power cut) with a jam in its log; the table is cleared and
    restarts meanwhile, so no event will ever say the jam is gone. On the next start the log learns
    it from the table (resync), instead of showing a fault that is gone."""
    import asyncio

    from drivers.clock import SystemClock
    from tablesim import SimTable

    from table_controller.config import parse_config
    from table_controller.service import TableService

    sim = SimTable(seed=2, clock=SystemClock())
    pty = await sim.serve_pty()
    config = parse_config({"table": {"link": pty}, "display": {"port": 0, "operator_token": "op",
                                                              "referee_token": "ref"}}, source="test")

    async def until(check: Any) -> None:
        for _ in range(200):
            if check():
                return
            await asyncio.sleep(0.05)
        raise AssertionError("not reached")

    try:
        first = TableService(config, tmp_path, serve_http=False)
        await first.start()
        await first.controller.wait_linked(10)
        sim.raise_fault("jam", where="S")
        await until(lambda: "1" in first.controller.state.faults or first.controller.state.faults)
        await first.stop()
        sim.clear_fault("jam")
        sim.brown_out()  # the table restarted while nobody listened: its new boot replays none of it
        second = TableService(config, tmp_path, serve_http=False)
        await second.start()
        try:
            await second.controller.wait_linked(10)
            await until(lambda: not second.controller.state.faults)
            cleared = [e for e in second.store.since(0) if e.type == "table.fault_cleared"]
            assert [(e.data.get("id"), e.data.get("resync")) for e in cleared] == [("jam", True)]
        finally:
            await second.stop()
    finally:
        await sim.close()


def test_a_data_directory_that_cannot_be_written_is_named_with_the_reason() -> None:
    """A card mounted read-only (or any directory nobody may write): the start says where and why."""
    from table_controller.store import WriterLock

    with pytest.raises(StoreError, match="cannot write in the data directory /proc/"):
        WriterLock("/proc/self/no-such-dir").acquire()

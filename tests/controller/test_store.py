"""The SQLite event log: durable, ordered, numbered once, readable from any sequence number."""

import sqlite3
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

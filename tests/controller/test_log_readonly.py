"""The log read without writing (`store.ReadOnlyLog`), from a data directory whose name SQLite's URI would
cut: `file:{path}?mode=ro` ends the file's name at a '?' or '#' and opens another file, writable."""

from __future__ import annotations

from pathlib import Path

import pytest

from table_controller.config import parse_config
from table_controller.preflight import check_confirmed, check_storage
from table_controller.store import EventStore, NotALog, ReadOnlyLog, read_events


@pytest.mark.parametrize("name", ["桌 1", "table#1", "table?1", "a b#c?d%20e"])
def test_a_log_under_a_folder_named_with_uri_characters_is_read_and_left_alone(tmp_path: Path, name: str) -> None:
    data = tmp_path / name
    store = EventStore(data / "events.sqlite3")
    store.append("referee", "referee.note", {"text": "开赛"}, at=1.0)
    store.append("referee", "referee.note", {"text": "暂停"}, at=2.0)
    store.close()
    def files() -> list[str]:  # (a read-only reader of a WAL log keeps its -shm and -wal beside it)
        return sorted(str(p) for p in tmp_path.rglob("*") if not p.name.endswith(("-wal", "-shm")))

    before = files()

    assert [e.data["text"] for e in read_events(data / "events.sqlite3")] == ["开赛", "暂停"]
    with ReadOnlyLog(data / "events.sqlite3") as log:
        assert log.last_seq() == 2 and [e.seq for e in log.since(1)] == [2] and log.get_snapshot() is None
    config = parse_config({"storage": {"data_dir": str(data)}}, source=str(tmp_path / "t.toml"))
    found = check_storage(config)[0]
    assert found.level == "ok" and "the log holds 2 events" in found.detail
    check_confirmed(config)
    assert files() == before  # no other file opened (nor made) in the log's place


def test_a_foreign_file_is_refused_before_anything_is_read(tmp_path: Path) -> None:
    import sqlite3

    other = tmp_path / "d#1" / "events.sqlite3"
    other.parent.mkdir()
    with sqlite3.connect(other) as db:
        db.execute("CREATE TABLE photos (id INTEGER)")
    db.close()
    with pytest.raises(NotALog, match="not a table's event log"), ReadOnlyLog(other):
        pass

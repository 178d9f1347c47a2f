"""A data directory from another version of tablectl: an older one's log is opened and carried on,
a newer one's is refused by name and left byte for byte as it was (a Pi rolled back, a card moved)."""

from __future__ import annotations

import hashlib
import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from table_controller.snapshot import restore
from table_controller.store import SCHEMA_VERSION, EventStore, LogTooNew

TABLECTL = [sys.executable, "-m", "table_controller.cli"]

#: The log as the first version wrote it (git show eef2b4a:table_controller/store.py): no snapshot
#: table, no table cursor; the meta row says schema 1.
FIRST_SCHEMA = (
    "CREATE TABLE events (seq INTEGER PRIMARY KEY AUTOINCREMENT,"
    " at REAL NOT NULL, source TEXT NOT NULL, type TEXT NOT NULL, data TEXT NOT NULL)",
    "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    "INSERT INTO meta (key, value) VALUES ('schema_version', '1')",
)
OLD_EVENTS = [
    (100.0, "controller", "controller.configured",
     {"table_name": "1号桌", "ruleset": "mcr", "players": {"1": "甲", "2": "乙", "3": "丙", "4": "丁"}}),
    (101.0, "link", "link.up", {"protocol_version": 1, "firmware": "tablesim 1.0"}),
    (102.0, "operator", "operator.hand_start", {"hand_no": 1, "ruleset": "mcr", "dealer_position": 1}),
    (103.0, "table", "table.dice", {"seat": "E", "dice": [3, 4]}),
]


def _log(path: Path, statements: tuple[str, ...], events: list[tuple[float, str, str, dict]]) -> None:
    db = sqlite3.connect(path)
    with db:
        for sql in statements:
            db.execute(sql)
        db.executemany("INSERT INTO events (at, source, type, data) VALUES (?, ?, ?, ?)",
                       [(at, src, t, json.dumps(d, ensure_ascii=False)) for at, src, t, d in events])
    db.close()


def _newer_log(data: Path) -> Path:
    """A log a future version wrote: its schema number above ours, and a table this code knows nothing of."""
    data.mkdir(parents=True)
    path = data / "events.sqlite3"
    newer = FIRST_SCHEMA[:2] + (f"INSERT INTO meta (key, value) VALUES ('schema_version', '{SCHEMA_VERSION + 1}')",
                                "CREATE TABLE hands (hand_no INTEGER PRIMARY KEY, summary TEXT)")
    _log(path, newer, OLD_EVENTS)
    return path


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_a_log_of_the_first_version_opens_with_every_event_and_numbers_on(tmp_path: Path) -> None:
    path = tmp_path / "events.sqlite3"
    _log(path, FIRST_SCHEMA, OLD_EVENTS)
    store = EventStore(path)
    events = store.since(0)
    assert [(e.seq, e.type) for e in events] == [(i + 1, t) for i, (_, _, t, _) in enumerate(OLD_EVENTS)]
    assert events[0].data["players"]["1"] == "甲"
    assert store.table_cursor() is None  # the first version kept none: the table replays its whole ring
    state, folded = restore(store)  # no snapshot table before: folded whole, then one can be kept
    assert folded == len(OLD_EVENTS) and state.table_name == "1号桌" and state.hand is not None
    assert store.append("referee", "referee.note", {"text": "升级后"}, at=104.0).seq == len(OLD_EVENTS) + 1
    store.close()


def test_a_log_of_a_newer_version_is_refused_and_left_as_it_was(tmp_path: Path) -> None:
    path = _newer_log(tmp_path / "data")
    before = _digest(path)
    with pytest.raises(LogTooNew, match=f"较新版本.*schema {SCHEMA_VERSION + 1}"):
        EventStore(path)
    assert _digest(path) == before
    with sqlite3.connect(path) as db:  # nothing of this version's added to it
        tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert "snapshot" not in tables


@pytest.mark.parametrize("written", ["q", "0", "-3", ""])
def test_a_version_no_tablectl_writes_is_named_damaged_not_newer(tmp_path: Path, written: str) -> None:
    """A byte flipped on the card ('1' → 'q'): the log was refused as written by a newer tablectl, and the
    operator told to upgrade a Pi that had nothing newer to take. Still refused untouched, named as it is."""
    data = tmp_path / "data"
    data.mkdir()
    path = data / "events.sqlite3"
    _log(path, FIRST_SCHEMA[:2] + (f"INSERT INTO meta (key, value) VALUES ('schema_version', '{written}')",),
         OLD_EVENTS)
    before = _digest(path)
    with pytest.raises(LogTooNew) as refused:
        EventStore(path)
    assert "无法识别" in str(refused.value) and "较新版本" not in str(refused.value) and "damaged" in str(refused.value)
    assert _digest(path) == before


def test_the_service_stops_for_good_on_a_newer_log_and_the_check_says_why(tmp_path: Path) -> None:
    """`tablectl run` exits 2 (the unit's RestartPreventExitStatus: restarting cannot help) without
    taking the newer layout for damage (the salvage would have moved it aside); `check` fails it."""
    path = _newer_log(tmp_path / "data")
    before = _digest(path)
    config = tmp_path / "table.toml"
    config.write_text('[display]\nport = 0\n[storage]\ndata_dir = "data"\n', encoding="utf-8")
    run = subprocess.run(TABLECTL + ["run", "--config", str(config)], capture_output=True, text=True, timeout=30)
    assert run.returncode == 2, run.stdout + run.stderr
    assert "written by a newer tablectl" in run.stderr and "事件记录由较新版本" in run.stderr
    assert "Traceback" not in run.stderr
    assert _digest(path) == before
    assert sorted(p.name for p in path.parent.iterdir() if p.name.startswith("events")) == ["events.sqlite3"]
    check = subprocess.run(TABLECTL + ["check", "--config", str(config), "--no-table", "--json"],
                           capture_output=True, text=True, timeout=60)
    assert check.returncode == 1
    found = {f["what"]: f for f in json.loads(check.stdout)["findings"]}
    assert found["事件记录 / event log"]["level"] == "fail"
    assert "newer tablectl" in found["事件记录 / event log"]["detail"]
    record = subprocess.run(TABLECTL + ["record", "--data-dir", str(path.parent), "--hand", "1"],
                            capture_output=True, text=True, timeout=60)
    assert record.returncode == 2 and "newer tablectl" in record.stderr and "damaged" not in record.stderr
    assert _digest(path) == before

"""A venue's Pi upgraded between match days, and rolled back after a bad upgrade.

`data/upgrade-<rev>/` are data directories older versions wrote themselves (`tablectl run` of that
commit with the built-in simulator and the demo players; a session started, two penalties, one undone),
with their table.toml and what their own pages showed (`expected.json`). This version must read them
as they were: the same hands, points, penalties and actions, and `tablectl check` passes. A log this
version writes is marked for the oldest reader that folds all of it (`store.NEEDS_SCHEMA`), so a
rollback to a version that would drop events refuses the log by name instead.
"""

from __future__ import annotations

import json
import re
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from table_controller.config import load_config
from table_controller.referee import ACTION_ZH
from table_controller.scoresheet import compute
from table_controller.snapshot import restore
from table_controller.store import NEEDS_SCHEMA, SCHEMA_VERSION, EventStore, schema_problem

DATA = Path(__file__).parent / "data"
OLD = sorted(p for p in DATA.glob("upgrade-*") if p.is_dir())
TABLECTL = [sys.executable, "-m", "table_controller.cli"]
#: The referee events a schema-1 reader folds (tablectl 2235b62, the first to refuse a newer log).
SCHEMA_1_REFEREE = frozenset({
    "referee.appeal", "referee.appeal_ruling", "referee.camera_confirm", "referee.clock_pause",
    "referee.clock_resume", "referee.exhaustive", "referee.penalty", "referee.round_start", "referee.session_end",
    "referee.session_start", "referee.undo", "referee.win_confirm", "referee.win_read"})


def _copy(old: Path, tmp: Path) -> Path:
    """The fixture copied (never opened in place: opening writes this version's tables)."""
    dst = tmp / old.name
    shutil.copytree(old, dst)
    return dst


def _meta(path: Path, key: str) -> str | None:
    with sqlite3.connect(path) as db:
        row = db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
    return None if row is None else str(row[0])


def test_there_are_old_data_directories() -> None:
    assert len(OLD) >= 3
    for old in OLD:  # small enough to commit
        assert sum(f.stat().st_size for f in old.rglob("*") if f.is_file()) < 200_000


@pytest.mark.parametrize("old", OLD, ids=[p.name for p in OLD])
def test_an_old_data_directory_reads_as_its_own_version_showed_it(old: Path, tmp_path: Path) -> None:
    expected = json.loads((old / "expected.json").read_text(encoding="utf-8"))
    copy = _copy(old, tmp_path)
    config = load_config(copy / "table.toml")  # the old version's config: no key renamed or removed
    store = EventStore(config.data_path() / "events.sqlite3")
    assert store.last_seq() == expected["events"]
    state, folded = restore(store)
    assert folded == expected["events"]
    sheet = compute(state)
    assert sheet["players"] == expected["players"]
    rows = {r["hand_no"]: r for r in sheet["rows"]}
    for hand in expected["hands"]:
        assert {k: rows[hand["hand_no"]][k] for k in hand} == hand
    assert [{k: a.get(k) for k in ("seq", "type", "undone")} for a in state.actions] == expected["actions"]
    penalties = [a for a in state.actions if a["type"] == "referee.penalty"]
    assert [a["undone"] for a in penalties] == [False, True]
    assert store.append("referee", "referee.penalty", {"seat": "E", "code": "late_5"}, at=state.last_at + 1).seq \
        == expected["events"] + 1
    store.close()
    assert _meta(copy / "data" / "events.sqlite3", "schema_version") == "1"  # still readable by the old version


@pytest.mark.parametrize("old", OLD, ids=[p.name for p in OLD])
def test_the_check_passes_on_an_old_data_directory(old: Path, tmp_path: Path) -> None:
    copy = _copy(old, tmp_path)
    toml = copy / "table.toml"
    toml.write_text(re.sub(r"(?m)^port = \d+", "port = 0", toml.read_text(encoding="utf-8")), encoding="utf-8")
    check = subprocess.run(TABLECTL + ["check", "--config", str(toml), "--no-table", "--json"],
                           capture_output=True, text=True, timeout=60)
    assert check.returncode == 0, check.stdout + check.stderr
    found = {f["what"]: f for f in json.loads(check.stdout)["findings"]}
    assert found["事件记录 / event log"]["level"] == "ok"


def test_a_substitute_marks_the_log_for_readers_that_fold_it(tmp_path: Path) -> None:
    """Rolled back to a schema-1 version, a log with a substitute would fold without him (his hands credited
    to the player he replaced) and go on being written: the log now says it needs schema 2, and that version
    refuses it, untouched, with its 'written by a newer tablectl' (`schema_problem` as it was at 1)."""
    copy = _copy(OLD[-1], tmp_path)
    path = copy / "data" / "events.sqlite3"
    store = EventStore(path)
    at = store.since(store.last_seq() - 1)[0].at
    store.append("referee", "referee.substitute", {"position": 2, "name": "戊", "reason": "伤病"}, at=at + 1)
    assert _meta(path, "schema_version") == "2"  # in the event's own transaction, before anyone reads it
    store.close()
    assert int(_meta(path, "schema_version") or 0) > 1  # a schema-1 reader: `1 <= version <= 1` or refuse
    assert schema_problem("2") is None and SCHEMA_VERSION >= 2  # this version reads it on
    reopened = EventStore(path)
    assert reopened.since(0)[-1].type == "referee.substitute"
    reopened.close()


def test_a_log_a_version_before_the_mark_wrote_is_marked_at_the_next_start(tmp_path: Path) -> None:
    """Versions between the substitutes and this change wrote them into logs kept at schema 1."""
    copy = _copy(OLD[-1], tmp_path)
    path = copy / "data" / "events.sqlite3"
    with sqlite3.connect(path) as db:
        db.execute("INSERT INTO events (at, source, type, data) VALUES (?, 'referee', 'referee.play_correct', ?)",
                   (2e9, json.dumps({"target": 40, "void": True, "reason": "输错"})))
    assert _meta(path, "schema_version") == "1"
    EventStore(path).close()
    assert _meta(path, "schema_version") == "2"


def test_every_referee_event_is_read_by_schema_1_or_named_with_its_schema() -> None:
    """A new referee action older versions would fold as nothing must raise the log's schema."""
    unknown = set(ACTION_ZH) - SCHEMA_1_REFEREE - set(NEEDS_SCHEMA)
    assert not unknown, f"add to store.NEEDS_SCHEMA with schema {SCHEMA_VERSION + 1}: {sorted(unknown)}"

"""A damaged event log at start: kept aside, its readable events (and the mirror's) carried over.

An SD card that lost power mid-write, or wears out, leaves a log SQLite calls "database disk image
is malformed". The service cannot run on it, and refusing to start helps nobody at a match: the
table has a session to finish. So at start (`TableService.start`), a log that fails SQLite's
`quick_check` is renamed `events.damaged-<time>.sqlite3` (kept byte for byte, with its WAL, for
whoever wants to look at it), every event that can still be read is copied into a fresh log under
its own number, the events it lost are taken from the mirror (`[storage] mirror_dir`) where the
mirror holds this log, and the new log's first new event, `controller.log_salvaged`, says what was
recovered, from where, and which numbers are gone. The referee sees it in the event list.

A log that reads whole but ends before its mirror (a card that lost its last writes at a power cut,
a WAL frame gone bad: SQLite reads the log up to there and says nothing) is salvaged the same way
(`behind_mirror`): the events only the mirror holds come back under their numbers.

The salvage runs at start, often right after a power cut, and may itself be cut: the fresh log is
written whole beside the damaged one (`events.salvaging.sqlite3`, with its news), named
`events.salvaged.sqlite3` once whole, and only then takes the log's place; the next start finishes
such a salvage (`finish`) or, where its log was not yet whole, does it again. Before, a salvage cut
while it read left no log at all and the next start began an empty one.
"""

from __future__ import annotations

import json
import logging
import os
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from table_controller.store import (
    SOURCES,
    EventStore,
    emptied_with_wal,
    parse_cursor,
    read_only_uri,
    refused_open,
    storage_refusal,
)

log = logging.getLogger("table_controller.salvage")

#: Events read per query; a range that touches a damaged page is read again one event at a time.
CHUNK = 256
#: The fresh log while a salvage writes it, and once it is whole (`finish` puts it in the log's place).
BUILDING = "events.salvaging.sqlite3"
BUILT = "events.salvaged.sqlite3"

Row = tuple[int, float, str, str, str]


@dataclass
class SalvageReport:
    """What `salvage` did, as logged in `controller.log_salvaged`."""

    problem: str
    damaged_file: str
    recovered: int = 0
    from_mirror: int = 0
    lost: list[tuple[int, int]] = field(default_factory=list)  # seq ranges, both ends included
    last_seq: int = 0

    def to_json(self) -> dict[str, Any]:
        return {"problem": self.problem, "damaged_file": self.damaged_file, "recovered": self.recovered,
                "from_mirror": self.from_mirror, "lost": [list(r) for r in self.lost],
                "lost_count": sum(b - a + 1 for a, b in self.lost), "last_seq": self.last_seq}


def damage(path: Path) -> str | None:
    """What is wrong with the log at `path` (SQLite's own words), or None when it reads whole. A card that
    refuses the check's one write (the WAL's index file on a full card) raises `StoreError`: that is no damage,
    and a salvage would only stop on the same card (`store.storage_refusal`)."""
    if emptied_with_wal(path):
        return "the log file is empty but its WAL holds events (a file system repair cut it?)"
    try:  # read-only: a writer's close would checkpoint the WAL into the damaged file and delete it
        db = sqlite3.connect(read_only_uri(path), uri=True)
        try:
            result = [str(r[0]) for r in db.execute("PRAGMA quick_check").fetchall()]
            db.execute("SELECT seq, at, source, type, data FROM events ORDER BY seq DESC LIMIT 1").fetchall()
            if result == ["ok"]:
                return unsound_events(db) or _wal_break(path)
        finally:
            db.close()
    except sqlite3.Error as exc:
        if storage_refusal(exc):
            raise refused_open(path, exc) from None
        return str(exc)
    lines = [line for r in result for line in r.splitlines() if line.strip() and not line.startswith("***")]
    return "; ".join(lines[:3])[:300] + (" …" if len(lines) > 3 else "")


def _wal_break(path: Path) -> str | None:
    """A WAL frame damaged on the card with commits behind it (`pages.commits_past`): SQLite reads the log
    up to it and the events after it are gone without a word; None when SQLite reads every commit."""
    from table_controller.pages import commits_past, read_frames

    read = read_frames(path)
    if read is None or commits_past(path, read) < 2:
        return None
    return (f"WAL frame {read + 1} damaged: SQLite reads the log only up to it, "
            f"{commits_past(path, read)} commits after it unread")


def unsound_events(db: sqlite3.Connection) -> str | None:
    """What is wrong with the events of a file SQLite reads whole: a bit flipped in an event (SQLite keeps no
    checksum of its rows) leaves its data no JSON object, its text no UTF-8 or its source unknown, and the
    fold at every start stopped on it (the service never came up). None when every event reads as the
    service reads it. In SQLite's own code but the text's decoding: 150,000 events in 0.3 s here."""
    marks = ", ".join("?" * len(SOURCES))
    bad = [int(r[0]) for r in db.execute(
        f"SELECT seq FROM events WHERE NOT (typeof(at) = 'real' AND source IN ({marks}) AND typeof(type) = 'text'"
        " AND CASE WHEN json_valid(data) THEN json_type(data) = 'object' ELSE 0 END) ORDER BY seq LIMIT 4", SOURCES)]
    if bad:
        return f"events unreadable (bytes changed in them): #{', #'.join(map(str, bad[:3]))}" + (" …" if bad[3:] else "")
    try:
        for _ in db.execute("SELECT type, data FROM events"):
            pass
    except sqlite3.OperationalError as exc:  # text that is not UTF-8: Python's reading of it fails
        return f"an event unreadable (bytes changed in it): {str(exc)[:120]}"
    return None


def behind_mirror(path: Path, mirror_dir: Path | None) -> str | None:
    """Why the log at `path`, whole to SQLite, must be salvaged from its mirror: the mirror is this log's
    copy (its first event and the log's last are the log's own) and holds events past the log's last (the
    card lost its last writes); None otherwise, or where either cannot be read (read only)."""
    copy = Path(mirror_dir) / "events.sqlite3" if mirror_dir is not None else None
    if copy is None or not copy.is_file() or not path.is_file() or emptied_with_wal(path):
        return None
    try:
        log_db = sqlite3.connect(read_only_uri(path), uri=True)
        mirror_db = sqlite3.connect(read_only_uri(copy), uri=True)
        try:
            last = _top(log_db)
            theirs = _top(mirror_db)
            if not last or theirs <= last:
                return None
            for seq in {1, last}:
                sql = "SELECT seq, at, source, type, data FROM events WHERE seq = ?"
                mine, copied = log_db.execute(sql, (seq,)).fetchone(), mirror_db.execute(sql, (seq,)).fetchone()
                if mine is None or copied is None or _same(mine) != _same(copied):
                    return None
        finally:
            log_db.close()
            mirror_db.close()
    except (sqlite3.Error, ValueError, TypeError):
        return None
    return (f"事件记录止于 #{last}，备份盘上的副本记到 #{theirs}：存储卡丢失了最后写入的事件（断电？）/ the log ends at "
            f"#{last}, its mirror holds events to #{theirs}: the card lost its last writes")


def salvage(path: Path, problem: str, at: float, mirror_dir: Path | None = None) -> SalvageReport:
    """Move the damaged log at `path` aside and put a fresh one there from what can be read, its first
    new event `controller.log_salvaged` (stamped `at`). Cut at any point, it leaves the damaged log in
    place or a whole fresh log for `finish`: never no log, never one without its news."""
    building = path.with_name(BUILDING)
    _remove(building)  # a salvage cut before its log was whole: done again
    aside = _aside(path, at)
    report = SalvageReport(problem=problem, damaged_file=aside.name)
    rows, cursor, top = _read(path)  # (read only: the damaged log stays as it is until the fresh one is whole)
    report.recovered = len(rows)
    if mirror_dir is not None:
        mirrored = _mirror_rows(Path(mirror_dir) / "events.sqlite3", rows)
        top = max(top, max(mirrored, default=0))
        for seq, row in mirrored.items():
            if seq not in rows:
                rows[seq] = row
                report.from_mirror += 1
    report.lost = _gaps(sorted(rows), top)
    report.last_seq = top
    # the table cursor stands for the log's last table event: kept only if nothing at the end is
    # lost (else the table replays its whole ring: a repeat is better than a loss)
    keep_cursor = not report.lost or report.lost[-1][1] < top
    store = EventStore(building)
    try:
        store.restore([rows[s] for s in sorted(rows)], cursor if keep_cursor else None, last_seq=top)
        store.append("controller", "controller.log_salvaged", report.to_json(), at=at)
    finally:
        store.close()
    one = sqlite3.connect(building)  # one file, its WAL put in it: nothing to lose in the moves below
    try:
        one.execute("PRAGMA journal_mode=DELETE")
    finally:
        one.close()
    _sync_dir(path.parent)
    building.rename(path.with_name(BUILT))
    _sync_dir(path.parent)
    finish(path)
    log.error("damaged event log moved aside and salvaged", extra=report.to_json())
    return report


def finish(path: Path) -> bool:
    """Put a salvage's whole fresh log (`BUILT`) in the place of the log at `path`, the damaged log (with its
    WAL) moved aside under the name the fresh log's news gives; False when no salvage waits. Done again
    after a cut, it moves what is left to move."""
    built = path.with_name(BUILT)
    if not built.is_file():
        return False
    db = sqlite3.connect(read_only_uri(built), uri=True)
    try:
        row = db.execute("SELECT data FROM events WHERE type = 'controller.log_salvaged' ORDER BY seq DESC"
                         " LIMIT 1").fetchone()
    finally:
        db.close()
    name = json.loads(row[0]).get("damaged_file") if row is not None else None
    aside = path.with_name(name if isinstance(name, str) and name.startswith("events.damaged-")
                           else f"events.damaged-{int(built.stat().st_mtime)}.sqlite3")
    for suffix in ("", "-wal", "-shm"):  # the WAL goes with its database (SQLite finds it by name)
        side = Path(f"{path}{suffix}")
        if side.exists():
            side.rename(Path(f"{aside}{suffix}"))
    built.rename(path)
    _sync_dir(path.parent)
    return True


def _aside(path: Path, at: float) -> Path:
    """The damaged log's name beside it, one no earlier damaged log has (a Pi without a clock may start
    at the same saved time twice): `rename` would put it over that one."""
    stamp = _stamp(at)
    for n in range(1, 1000):
        aside = path.with_name(f"events.damaged-{stamp}{'' if n == 1 else f'-{n}'}.sqlite3")
        if not any(Path(f"{aside}{s}").exists() for s in ("", "-wal", "-shm")):
            return aside
    raise FileExistsError(aside)


def _remove(db: Path) -> None:
    for suffix in ("", "-wal", "-shm", "-journal"):
        Path(f"{db}{suffix}").unlink(missing_ok=True)


def _sync_dir(directory: Path) -> None:
    """The renames in `directory` on the card before anything is written to the log they name."""
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _read(db_path: Path) -> tuple[dict[int, Row], tuple[int, int] | None, int]:
    """Every event of the damaged file that reads and parses, by number; its table cursor; the
    highest number it knows of (events past the last readable one count as lost)."""
    rows: dict[int, Row] = {}
    top, cursor = 0, None
    if db_path.stat().st_size > 0:  # (SQLite takes an empty file for a new one and deletes its WAL)
        try:  # read-only: a closing writer would checkpoint the WAL into the damaged file kept aside
            db = sqlite3.connect(read_only_uri(db_path), uri=True)
        except sqlite3.Error:
            db = None
        if db is not None:
            top, cursor = _read_sql(db, rows)
    if top == 0 or _gaps(sorted(rows), top) or _wal_break(db_path):  # SQLite could not read it all: the pages
        found, raw_top, raw_cursor = _read_pages(db_path)
        rows = {**found, **rows}
        top = max(top, raw_top)
        cursor = cursor or raw_cursor
    return rows, cursor, max(top, max(rows, default=0))


def _read_sql(db: sqlite3.Connection, rows: dict[int, Row]) -> tuple[int, tuple[int, int] | None]:
    """Into `rows`, the events SQLite reads of the damaged file, a range at a time and around
    its damaged pages one by one; the highest number it knows of, and its table cursor."""
    try:
        top = _top(db)
        for first in range(1, top + 1, CHUNK):
            last = min(first + CHUNK - 1, top)
            try:
                got = db.execute("SELECT seq, at, source, type, data FROM events WHERE seq BETWEEN ? AND ?",
                                 (first, last)).fetchall()
            except sqlite3.DatabaseError:
                got = []
                for seq in range(first, last + 1):  # only the events on the damaged pages are lost
                    try:
                        got += db.execute("SELECT seq, at, source, type, data FROM events WHERE seq = ?",
                                          (seq,)).fetchall()
                    except sqlite3.DatabaseError:
                        continue
            rows.update({r[0]: r for r in got if _sound(r)})
        cursor = None
        try:
            row = db.execute("SELECT value FROM meta WHERE key = 'table_cursor'").fetchone()
            cursor = parse_cursor(row[0]) if row is not None else None
        except sqlite3.DatabaseError:
            pass
        return top, cursor
    finally:
        db.close()


def _read_pages(db_path: Path) -> tuple[dict[int, Row], int, tuple[int, int] | None]:
    """The events found in the file's pages and its WAL's (`table_controller.pages`), where SQLite
    refuses the file (a file cut short: every query fails, the whole pages too); the highest
    number its counter (`sqlite_sequence`) gave, so the lost ones are named, and its table cursor."""
    from table_controller.pages import table_rows

    rows: dict[int, Row] = {}
    top, cursor = 0, None
    try:
        found = table_rows(db_path)
    except OSError:
        return rows, 0, None
    for r in found:
        if len(r) == 6 and r[1] is None and isinstance(r[2], (int, float)) and not isinstance(r[2], bool):
            row = (r[0], float(r[2]), r[3], r[4], r[5])  # (SQLite keeps a whole REAL as an integer)
            if _sound(row):
                rows[r[0]] = row
        elif len(r) == 3 and r[1] == "events" and isinstance(r[2], int):  # sqlite_sequence's row
            top = max(top, r[2])
        elif len(r) == 3 and r[1] == "table_cursor" and isinstance(r[2], str):  # meta's row
            cursor = parse_cursor(r[2])
    return rows, top, cursor


def _top(db: sqlite3.Connection) -> int:
    """The highest event number the file knows of, from the table or, failing that, its counter."""
    for sql in ("SELECT COALESCE(MAX(seq), 0) FROM events",
                "SELECT COALESCE(MAX(seq), 0) FROM sqlite_sequence WHERE name = 'events'"):
        try:
            return int(db.execute(sql).fetchone()[0])
        except sqlite3.DatabaseError:
            continue
    return 0


def _sound(row: Any) -> bool:
    """A row a damaged page did not garble: typed fields, a known source, JSON data."""
    try:
        seq, at, source, type_, data = row
        fields = json.loads(data)
    except (ValueError, TypeError):
        return False
    return (isinstance(seq, int) and isinstance(at, float) and source in SOURCES and isinstance(type_, str)
            and isinstance(fields, dict))


def _mirror_rows(mirror: Path, ours: dict[int, Row]) -> dict[int, Row]:
    """The mirror's events, if it is this log's copy (every number both hold agrees), else none."""
    if not mirror.exists():
        return {}
    theirs, _, _ = _read(mirror)
    both = set(theirs) & set(ours)
    if not both or any(_same(theirs[s]) != _same(ours[s]) for s in both):
        if theirs:
            log.warning("the log mirror is not this log's copy: not used to salvage", extra={"mirror": str(mirror)})
        return {}
    return theirs


def _same(row: Row) -> tuple[Any, ...]:
    return (*row[:4], json.loads(row[4]))


def _gaps(numbers: list[int], top: int) -> list[tuple[int, int]]:
    gaps, expect = [], 1
    for n in numbers:
        if n > expect:
            gaps.append((expect, n - 1))
        expect = n + 1
    if top >= expect:
        gaps.append((expect, top))
    return gaps


def _stamp(at: float) -> str:
    import time

    return time.strftime("%Y%m%dT%H%M%S", time.gmtime(at))

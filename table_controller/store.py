"""The event log: every accepted event is appended to SQLite *before* it is acted on or shown.

The controller's state is a fold over this log (`table_controller.state`), so a restart, an
audit or a replay reads the same history the referee saw.
"""

from __future__ import annotations

import json
import logging
import sqlite3
import threading
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Iterator

#: SQLite's largest integer: a number past it cannot even be looked up (OverflowError, a 500 at the API).
MAX_INTEGER = 2**63 - 1
#: The newest log this code reads and writes. A log's meta `schema_version` is the *oldest* reader it
#: needs: 1 while it holds only events a reader of schema 1 folds, raised (with the event, in one
#: transaction) when an event of `NEEDS_SCHEMA` is written. A reader refuses a log above its own number
#: (`schema_problem`, since 2235b62), so a Pi rolled back to such a version says why instead of folding
#: the log without the events it does not know (a substitute dropped: his hands credited to the player
#: he replaced; a corrected play folded as first keyed). Old logs need no change (upgrades read them).
SCHEMA_VERSION = 3
#: Event types a schema-1 reader (tablectl 2235b62 .. this change) would fold as nothing, by the schema
#: that reads them. A new event type, or a new field that changes what an old type means, that an older
#: reader would drop or misread goes here with the next number (`tests/controller/test_log_upgrades.py`).
NEEDS_SCHEMA: dict[str, int] = {"referee.play_correct": 2, "referee.substitute": 2, "referee.camera_dismiss": 3}
log = logging.getLogger("table_controller.store")

#: The HTTP action being served, as `web/replays.py` keys it: (its Idempotency-Key's slot, the
#: request's fingerprint). A person's event appended meanwhile keeps it in the same transaction
#: (`requests`), so a repeat of the action after a crash that lost the answer is not done again.
REQUEST: ContextVar[tuple[str, str] | None] = ContextVar("table_controller_request", default=None)
#: Who acts through the display's actions (the events a request's key is kept with).
PEOPLE = ("referee", "operator")
#: How long a request's key is kept in the log: a referee may press again after a long restart.
REQUEST_KEEP_S = 86_400.0

#: Who may originate an event; the display colours the log by it.
SOURCES = ("table", "link", "camera", "referee", "operator", "controller", "demo", "tournament")


def cursor_text(cursor: tuple[int, int]) -> str:
    """The table cursor as the log's `meta` keeps it: "boot_id:event_number"."""
    return f"{int(cursor[0])}:{int(cursor[1])}"


def parse_cursor(text: str) -> tuple[int, int] | None:
    """`cursor_text` read back; None for a value that is not one (a hand-edited or damaged row)."""
    boot, _, number = str(text).partition(":")
    try:
        return int(boot), int(number)
    except ValueError:
        return None


class StoreError(RuntimeError):
    """The log cannot be opened or written; nothing was accepted."""


class LogTooNew(StoreError):
    """The log was written by a newer version of the service (a Pi rolled back, a card moved to an
    older table): this code would misread or damage what it does not know, so it leaves the file as
    it is; or its version is none any tablectl writes (damaged on the card), left as it is too. Restarting
    cannot help (the service exits with the config error's status)."""


def schema_problem(found: str | None) -> str | None:
    """Why a log whose meta says `schema_version = found` must not be opened by this code, or None.
    A log without the row (none yet, or made before it was written) is this version's."""
    if found is None:
        return None
    try:
        version = int(found)
    except ValueError:
        version = None
    if version is not None and 1 <= version <= SCHEMA_VERSION:
        return None
    if version is None or version < 1:
        # no version any tablectl writes: a flipped byte on the card, not a newer tablectl (it said so)
        return (f"事件记录的格式版本 {found!r} 无法识别（存储卡上的数据可能已损坏），未作任何改动：请把数据目录移开另建记录，"
                f"并保留旧目录以便恢复 / the event log's schema version {found!r} is no version tablectl writes "
                "(damaged on the card?); it was left untouched: move the data directory aside to start a new "
                "log, and keep it for recovery")
    what = f"格式版本 {version}"
    return (f"事件记录由较新版本的 tablectl 写入（{what}，本版本只读到 {SCHEMA_VERSION}），未作任何改动 / the event log "
            f"was written by a newer tablectl (schema {found}, this one knows up to {SCHEMA_VERSION}) and was left "
            "untouched: upgrade tablectl on this Pi, or move the data directory aside to start a new log")


def schema_needed(types: Iterable[str], at_least: int = 1) -> int:
    """The oldest schema a reader needs for a log holding events of `types` (and already at `at_least`)."""
    return max([at_least, *(NEEDS_SCHEMA.get(t, 1) for t in types)])


def raise_schema(db: sqlite3.Connection, types: Iterable[str]) -> int:
    """Raise the log's meta `schema_version` to what `types` need (inside the caller's transaction, with
    the events); the version now. A row this code cannot read is left to `schema_problem`."""
    found = log_schema(db)
    now = int(found) if found is not None and found.isdigit() else 1
    need = schema_needed(types, now)
    if need > now:
        db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('schema_version', ?)", (str(need),))
    return need


def log_schema(db: sqlite3.Connection) -> str | None:
    """The log's `schema_version` as written, or None (no meta table or no row)."""
    try:
        row = db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
    except sqlite3.OperationalError:  # no meta table: a fresh file, or one made before meta was
        return None
    return None if row is None else str(row[0])


def emptied_with_wal(path: str | Path) -> bool:
    """Whether the log's file is empty while its WAL holds events (a file system repair cut it): SQLite
    would take the file for a new database and delete the WAL, the only copy of those events, even on a
    read-only connection. Nothing may open such a file; the salvage reads the WAL itself."""
    wal = Path(f"{path}-wal")
    return Path(path).is_file() and Path(path).stat().st_size == 0 and wal.exists() and wal.stat().st_size > 0


def read_only_uri(path: Path) -> str:
    """SQLite's read-only URI for `path`: its characters quoted (a '?', '#' or '%' in a folder's name would
    otherwise end the file's name there and open another file, writable)."""
    return f"{path.resolve().as_uri()}?mode=ro"


def refuse_newer(path: str | Path) -> None:
    """Raise `LogTooNew` for a log at `path` written by a newer version; read-only, before anything
    else opens it (the damage check would otherwise take a newer layout for damage and move it aside)."""
    path = Path(path)
    if not path.is_file() or emptied_with_wal(path):
        return
    try:
        db = sqlite3.connect(read_only_uri(path), uri=True)
        try:
            problem = schema_problem(log_schema(db))
        finally:
            db.close()
    except sqlite3.Error:
        return  # not readable as a database: the damage check and the salvage deal with it
    if problem:
        raise LogTooNew(f"{path}: {problem}")


class NotALog(StoreError):
    """A file in the log's place that is not a table's event log (another program's SQLite file, an
    empty file): a reader names it, and nothing is written into it."""


class LogEmptied(StoreError):
    """The log's file is empty while its WAL holds events (`emptied_with_wal`): left unopened."""


class ReadOnlyLog:
    """A table's event log opened read-only, for a reader beside the service (`tablectl record`, `tablectl
    check`): an `EventStore` opened on the file writes its tables and WAL mode into it: into another program's
    SQLite file too, and a log emptied by a file system repair lost its WAL, the only copy of its events, that
    way. It offers what `snapshot.restore` and `LogMirror` read of an `EventStore` (`since`, `last_seq`,
    `get_snapshot`), and its connection (`db`) for a check's own questions.

    `with ReadOnlyLog(path) as log:` refuses, in this order and before anything is read, a file emptied with
    its events in the WAL (`LogEmptied`), an empty file (`NotALog`), a log of a newer version (`LogTooNew`)
    and an SQLite file without the events (`NotALog`). SQLite's own errors (a damaged file) pass as
    `sqlite3.Error`; with `read_damaged` a log whose version cannot be read is read as far as it reads (as
    `refuse_newer` leaves it to the damage check) instead of failing there."""

    db: sqlite3.Connection

    def __init__(self, path: str | Path, *, read_damaged: bool = False) -> None:
        self.path = Path(path)
        self._read_damaged = read_damaged

    def __enter__(self) -> ReadOnlyLog:
        path = self.path
        if emptied_with_wal(path):
            raise LogEmptied(f"事件记录文件为空，事件只在 WAL 中，未作任何改动 / the event log {path} is empty but its "
                             f"WAL ({path.name}-wal) holds events: left untouched")
        if path.is_file() and path.stat().st_size == 0:
            raise NotALog(f"事件记录是空文件 / the event log {path} is an empty file: nothing recorded in it")
        db = sqlite3.connect(read_only_uri(path), uri=True)
        try:
            try:
                problem = schema_problem(log_schema(db))
            except sqlite3.Error:
                if not self._read_damaged:
                    raise
                problem = None
            if problem:
                raise LogTooNew(f"{path}: {problem}")
            if db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'events'").fetchone() is None:
                raise NotALog(f"不是牌桌的事件记录 / {path} is not a table's event log (an SQLite file without its "
                              "events): check --data-dir")
        except BaseException:
            db.close()
            raise
        self.db = db
        return self

    def __exit__(self, *exc: object) -> None:
        self.db.close()

    def get_snapshot(self) -> tuple[int, str, float, bytes] | None:
        try:
            row = self.db.execute("SELECT seq, version, at, state FROM snapshot WHERE id = 1").fetchone()
        except sqlite3.OperationalError:  # a log written before snapshots: none
            return None
        return None if row is None else (int(row[0]), str(row[1]), float(row[2]), bytes(row[3]))

    def since(self, seq: int, limit: int | None = None) -> list[Event]:
        """Events with a sequence number greater than `seq`, oldest first."""
        sql = "SELECT seq, at, source, type, data FROM events WHERE seq > ? ORDER BY seq" + (" LIMIT ?" if limit else "")
        rows = self.db.execute(sql, (seq, limit) if limit else (seq,)).fetchall()
        return [Event(r[0], r[1], r[2], r[3], json.loads(r[4])) for r in rows]

    def last_seq(self) -> int:
        return int(self.db.execute("SELECT COALESCE(MAX(seq), 0) FROM events").fetchone()[0])


def read_events(path: str | Path) -> list[Event]:
    """Every event of the log at `path`, oldest first, read without writing anything (`ReadOnlyLog`): for a
    reader beside the service (`tablectl record`).

    Raises `LogTooNew`, `NotALog`, or `StoreError` for a damaged log (the service salvages it)."""
    path = Path(path)
    try:
        with ReadOnlyLog(path, read_damaged=True) as log:
            return log.since(0)
    except (sqlite3.Error, ValueError, TypeError) as exc:
        raise StoreError(f"无法读取事件记录 / cannot read the event log {path}: {exc}") from None


class LogInUse(StoreError):
    """Another running controller writes this log; the message names its process."""


class WriterLock:
    """One writing service per data directory (`controller.lock`, an flock the kernel lifts when
    the process dies). Two services on one log (the systemd unit and a hand-started `tablectl run`)
    would number events over each other and fold different states; the second is refused."""

    def __init__(self, data_dir: str | Path, who: tuple[str, str] = ("控制器", "controller")) -> None:
        self.path = Path(data_dir) / f"{who[1]}.lock"
        self.who = who
        self._fd: int | None = None

    def acquire(self) -> None:
        import fcntl
        import os

        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as exc:
            raise StoreError(f"无法写入数据目录 / cannot write in the data directory {self.path.parent}: "
                             f"{exc.strerror or exc} (a read-only or full card? a directory of another user?)") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 32, 0).decode(errors="replace").strip() or "?"
            os.close(fd)
            zh, en = self.who
            raise LogInUse(f"另一个{zh}正在使用此数据目录（进程 {holder}）/ another {en} (pid {holder}) is "
                           f"running on {self.path.parent}: stop it first (systemctl stop, or Ctrl-C in its "
                           "terminal); reading its files needs no stop") from None
        except OSError as exc:  # a file system without locks (some network shares): run, and say so
            log.warning(
                "the data directory cannot be locked: a second service on it would not be refused",
                extra={"path": str(self.path), "error": str(exc)})
        try:  # the holder's pid is for the message above only: a full card must not stop the start
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        except OSError:
            pass
        self._fd = fd

    @staticmethod
    def holder(data_dir: str | Path, who: tuple[str, str] = ("控制器", "controller")) -> str | None:
        """The pid of the service holding this data directory's lock, or None when none does (read
        only: `tablectl check` beside a running service)."""
        import fcntl
        import os

        path = Path(data_dir) / f"{who[1]}.lock"
        try:
            fd = os.open(path, os.O_RDONLY)
        except OSError:
            return None
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return os.pread(fd, 32, 0).decode(errors="replace").strip() or "?"
        except OSError:
            return None
        finally:
            os.close(fd)  # (a shared lock taken is lifted with it)
        return None

    def release(self) -> None:
        import os

        if self._fd is not None:
            os.close(self._fd)  # closing lifts the flock
            self._fd = None


@dataclass(frozen=True)
class Event:
    """One accepted fact, numbered by the log (`seq` starts at 1 and never repeats)."""

    seq: int
    at: float  # wall-clock seconds since the epoch, from the injected clock
    source: str
    type: str
    data: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"seq": self.seq, "at": self.at, "source": self.source, "type": self.type, "data": self.data}


#: SQLite's primary codes for a card that refuses writes: no room (SQLITE_FULL), read-only (SQLITE_READONLY).
_REFUSED_PRIMARY = (13, 8)
#: Its I/O errors of a card without room: the WAL's index file (`-shm`, 32 KiB, made by the first opener after a
#: clean stop, a read-only one too) not grown (SQLITE_IOERR_SHMSIZE), a write refused (SQLITE_IOERR_WRITE).
_REFUSED_IOERR = (4874, 778)


def storage_refusal(exc: BaseException) -> bool:
    """Whether SQLite's error is the card refusing a write (full, read-only), which says nothing of the file:
    a whole log on a full card is not a damaged one (a start took it for one and began a salvage)."""
    code = getattr(exc, "sqlite_errorcode", None)
    return isinstance(code, int) and (code & 0xFF in _REFUSED_PRIMARY or code in _REFUSED_IOERR)


def refused_open(path: Path, exc: BaseException) -> StoreError:
    """The technician's words, Chinese first, for a log the card would not let SQLite open (`storage_refusal`),
    with the room left on it."""
    import shutil

    try:
        room = f"{shutil.disk_usage(path.parent).free / 1e6:.1f} MB free"
    except OSError:
        room = "free space unknown"
    return StoreError(f"无法打开事件记录（{_open_hint_zh(str(exc))}；记录本身未改动）/ cannot open the event log "
                      f"{path}: {exc} ({room}; the log itself is left as it was)")


def _open_hint_zh(error: str) -> str:
    """The technician's words for why SQLite could not open or start a log (the console and the journal)."""
    if "full" in error or "disk I/O" in error:
        return "写入存储卡失败：卡已满或已损坏，删除旧文件或换一张卡"
    if "readonly" in error or "read-only" in error:
        return "存储卡只读：检查卡的写保护开关，或卡已损坏"
    if "unable to open" in error:
        return "目录不可写或不存在：检查 [storage] data_dir 和服务用户的权限"
    return "文件损坏或被另一程序占用"


class EventStore:
    """An append-only SQLite file (WAL, synchronous=FULL: an acknowledged event survives power loss)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._log_id: str | None = None
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
            problem = schema_problem(log_schema(self._db))  # before anything writes to it
            if problem:
                self._db.close()
                raise LogTooNew(f"{self.path}: {problem}")
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.execute(
                "CREATE TABLE IF NOT EXISTS events ("
                " seq INTEGER PRIMARY KEY AUTOINCREMENT,"
                " at REAL NOT NULL, source TEXT NOT NULL, type TEXT NOT NULL, data TEXT NOT NULL)"
            )
            self._db.execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
            # the folded state after event `seq` (table_controller.snapshot): one row, replaced
            self._db.execute("CREATE TABLE IF NOT EXISTS snapshot (id INTEGER PRIMARY KEY CHECK (id = 1),"
                             " seq INTEGER NOT NULL, version TEXT NOT NULL, at REAL NOT NULL, state BLOB NOT NULL)")
            # the display's actions by Idempotency-Key (`REQUEST`): the event each one made
            self._db.execute("CREATE TABLE IF NOT EXISTS requests (slot TEXT PRIMARY KEY, fingerprint TEXT NOT NULL,"
                             " seq INTEGER NOT NULL, at REAL NOT NULL)")
            self._db.execute("INSERT OR IGNORE INTO meta (key, value) VALUES ('schema_version', '1')")
            self._schema = self._check_schema()
        except sqlite3.Error as exc:
            raise StoreError(f"无法打开事件记录（{_open_hint_zh(str(exc))}）/ cannot open the event log {self.path}: {exc}") \
                from None
        self._lock = threading.Lock()

    def _check_schema(self) -> int:
        """The log's schema, raised for events of `NEEDS_SCHEMA` written since the last check (by a
        version before this one, which kept the log at 1 whatever it wrote). Only the events after
        meta `schema_checked` are read: a long log is read once, at its first start on this version."""
        row = self._db.execute("SELECT value FROM meta WHERE key = 'schema_checked'").fetchone()
        after = int(row[0]) if row is not None and str(row[0]).isdigit() else 0
        marks = ", ".join("?" * len(NEEDS_SCHEMA))
        found = [r[0] for r in self._db.execute(
            f"SELECT DISTINCT type FROM events WHERE seq > ? AND type IN ({marks})", (after, *NEEDS_SCHEMA))]
        last = int(self._db.execute("SELECT COALESCE(MAX(seq), 0) FROM events").fetchone()[0])
        schema = schema_needed(found, int(log_schema(self._db) or 1))
        if last == after:
            return schema
        try:  # a full or read-only card still starts (the log is read; the mark waits for the next start)
            self._db.execute("BEGIN IMMEDIATE")
            raise_schema(self._db, found)
            self._db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('schema_checked', ?)", (str(last),))
            self._db.execute("COMMIT")
        except sqlite3.Error as exc:
            if self._db.in_transaction:
                self._db.execute("ROLLBACK")
            log.warning("the log's schema mark not written", extra={"path": str(self.path), "error": str(exc)})
        return schema

    def append(self, source: str, type: str, data: dict[str, Any], at: float,
               table_cursor: tuple[int, int] | None = None) -> Event:
        """Write one event durably and return it with its sequence number: a group of one (`append_group`),
        numbered and written under one hold of the lock.

        `table_cursor` (the table's boot id and its number for this event) is kept with the event
        in one transaction: after a restart the host asks the table to replay only what came
        after it (docs/protocol.md §5), so nothing the log holds is logged twice and nothing the
        log missed is lost.
        """
        request = REQUEST.get() if source in PEOPLE else None
        with self._lock:
            try:
                seq = self._next_seq()
            except sqlite3.Error as exc:
                raise StoreError(f"cannot append to the event log {self.path}: {exc}") from None
            ev = self.event(seq, source, type, data, at)
            self._append_group([ev], table_cursor, {seq: request} if request is not None else None)
        return ev

    def next_seq(self) -> int:
        """The number the next event will be given: past every number this log ever gave (a salvage's lost
        ones too, kept in `sqlite_sequence`), so a group of events can be folded before it is written."""
        with self._lock:
            return self._next_seq()

    def _next_seq(self) -> int:
        given = self._db.execute("SELECT seq FROM sqlite_sequence WHERE name = 'events'").fetchone()
        last = self._db.execute("SELECT COALESCE(MAX(seq), 0) FROM events").fetchone()[0]
        return max(int(given[0]) if given is not None else 0, int(last)) + 1

    @staticmethod
    def event(seq: int, source: str, type: str, data: dict[str, Any], at: float) -> Event:
        """The event `append` would return for these (the data as the log keeps it: JSON, keys sorted), not
        yet written: a group is folded ahead and written whole by `append_group`."""
        if source not in SOURCES:
            raise ValueError(f"unknown event source {source!r}; allowed: {', '.join(SOURCES)}")
        return Event(seq=seq, at=at, source=source, type=type,
                     data=json.loads(json.dumps(data, ensure_ascii=False, sort_keys=True)))

    def append_group(self, events: list[Event], table_cursor: tuple[int, int] | None = None,
                     requests: dict[int, tuple[str, str]] | None = None) -> None:
        """Write `events` (made by `event`, numbered from `next_seq` on) in one transaction, one durable
        commit for them all: every one of them is in the log, or none (a power cut mid-write, a full card).

        A chattering board sends hundreds of events a second, and a commit each (an fsync, 3-5 ms on a VM's
        disk, more on an SD card) was the table's pace: its faults waited seconds behind the queue. With
        them `table_cursor` (the table's newest) and each person's request key (`requests`, by seq: `REQUEST`)."""
        if not events:
            return
        with self._lock:
            self._append_group(events, table_cursor, requests)

    def _append_group(self, events: list[Event], table_cursor: tuple[int, int] | None,
                      requests: dict[int, tuple[str, str]] | None) -> None:
        """`append_group` with the lock held."""
        newer = {e.type for e in events if NEEDS_SCHEMA.get(e.type, 1) > self._schema}
        try:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                first = self._next_seq()
                if [e.seq for e in events] != list(range(first, first + len(events))):
                    raise sqlite3.IntegrityError(f"events numbered {events[0].seq}..{events[-1].seq}, "
                                                 f"the log's next is {first}")
                self._db.executemany(
                    "INSERT INTO events (seq, at, source, type, data) VALUES (?, ?, ?, ?, ?)",
                    [(e.seq, e.at, e.source, e.type, json.dumps(e.data, ensure_ascii=False, sort_keys=True))
                     for e in events])
                if table_cursor is not None:
                    self._db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('table_cursor', ?)",
                                     (cursor_text(table_cursor),))
                schema = raise_schema(self._db, newer) if newer else self._schema
                for seq, request in (requests or {}).items():
                    at = next(e.at for e in events if e.seq == seq)
                    self._db.execute("DELETE FROM requests WHERE at < ?", (at - REQUEST_KEEP_S,))
                    self._db.execute("INSERT OR REPLACE INTO requests (slot, fingerprint, seq, at)"
                                     " VALUES (?, ?, ?, ?)", (*request, seq, at))
                self._db.execute("COMMIT")
            except BaseException:
                if self._db.in_transaction:  # SQLite may have rolled back already (disk full)
                    self._db.execute("ROLLBACK")
                raise
            self._schema = schema
        except sqlite3.Error as exc:
            raise StoreError(f"cannot append to the event log {self.path}: {exc}") from None

    def restore(self, rows: list[tuple[int, float, str, str, str]], table_cursor: tuple[int, int] | None,
                last_seq: int = 0) -> None:
        """Write events under their own numbers into this (fresh) log, in one transaction: a
        damaged log's salvage (`table_controller.salvage`). Later events number on from the last,
        or from `last_seq` (the damaged log's last number, its events lost): no number is given twice."""
        with self._lock:
            try:
                self._db.execute("BEGIN IMMEDIATE")
                self._db.executemany("INSERT INTO events (seq, at, source, type, data) VALUES (?, ?, ?, ?, ?)", rows)
                bumped = self._db.execute("UPDATE sqlite_sequence SET seq = MAX(seq, ?) WHERE name = 'events'",
                                          (last_seq,)).rowcount
                if last_seq and not bumped:
                    self._db.execute("INSERT INTO sqlite_sequence (name, seq) VALUES ('events', ?)", (last_seq,))
                if table_cursor is not None:
                    self._db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('table_cursor', ?)",
                                     (cursor_text(table_cursor),))
                schema = raise_schema(self._db, {r[3] for r in rows})
                self._db.execute("COMMIT")
                self._schema = schema
            except sqlite3.Error as exc:
                if self._db.in_transaction:
                    self._db.execute("ROLLBACK")
                raise StoreError(f"cannot restore events into {self.path}: {exc}") from None

    def put_snapshot(self, seq: int, version: str, at: float, state: bytes) -> None:
        """Replace the snapshot (`table_controller.snapshot`): the state after event `seq` (stamped `at`)."""
        with self._lock:
            try:
                self._db.execute("INSERT OR REPLACE INTO snapshot (id, seq, version, at, state) VALUES (1, ?, ?, ?, ?)",
                                 (seq, version, at, state))
            except sqlite3.Error as exc:
                raise StoreError(f"cannot write the snapshot into {self.path}: {exc}") from None

    def get_snapshot(self) -> tuple[int, str, float, bytes] | None:
        with self._lock:
            try:
                row = self._db.execute("SELECT seq, version, at, state FROM snapshot WHERE id = 1").fetchone()
            except sqlite3.Error as exc:
                raise StoreError(f"cannot read the snapshot in {self.path}: {exc}") from None
        return None if row is None else (int(row[0]), str(row[1]), float(row[2]), bytes(row[3]))

    def request_done(self, slot: str) -> tuple[str, int, str] | None:
        """The action kept under this Idempotency-Key slot: its request's fingerprint, the last event
        it made and that event's type; None when no action of it is in the log."""
        with self._lock:
            try:
                row = self._db.execute("SELECT r.fingerprint, r.seq, e.type FROM requests r JOIN events e"
                                       " ON e.seq = r.seq WHERE r.slot = ?", (slot,)).fetchone()
            except sqlite3.Error:
                return None
        return None if row is None else (str(row[0]), int(row[1]), str(row[2]))

    def get_meta(self, key: str) -> str | None:
        """A value the service keeps beside the log (`meta`), or None."""
        with self._lock:
            try:
                row = self._db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
            except sqlite3.Error as exc:
                raise StoreError(f"cannot read {self.path}: {exc}") from None
        return None if row is None else str(row[0])

    def put_meta(self, key: str, value: str) -> None:
        with self._lock:
            try:
                self._db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (key, value))
            except sqlite3.Error as exc:
                raise StoreError(f"cannot write {self.path}: {exc}") from None

    def table_cursor(self) -> tuple[int, int] | None:
        """The table's (boot id, event number) of the last table event logged, or None."""
        with self._lock:
            row = self._db.execute("SELECT value FROM meta WHERE key = 'table_cursor'").fetchone()
        # (a value that is not a cursor: start over, the table replays its whole ring)
        return None if row is None else parse_cursor(row[0])

    def log_id(self) -> str | None:
        """This log's name for the pages: its first event's stamp (kept by a salvage and by the mirror), None
        while it is empty. A page reconnecting with `since=N` names the log it holds, so that a service back
        on another log (a new card, the next day's) sends it a snapshot, not that log's events after N."""
        if self._log_id is None:
            with self._lock:
                try:
                    row = self._db.execute("SELECT at FROM events ORDER BY seq LIMIT 1").fetchone()
                except sqlite3.Error:  # damaged under the running service: the pages go on by numbers
                    return None
            self._log_id = None if row is None else f"{row[0]:.6f}"
        return self._log_id

    def hand_start(self, hand_no: int, from_seq: int = 0) -> int | None:
        """The sequence number of hand `hand_no`'s last start at or after `from_seq` (a round's start), or None:
        a hand's record reads the log from there, not the whole day's (a page asks for it at every play)."""
        sql = ("SELECT MAX(seq) FROM events WHERE seq >= ? AND type = 'operator.hand_start'"
               " AND json_extract(data, '$.hand_no') = ?")
        with self._lock:
            try:
                row = self._db.execute(sql, (from_seq, hand_no)).fetchone()
            except sqlite3.Error as exc:
                raise StoreError(f"cannot read the event log {self.path}: {exc}") from None
        return None if row is None or row[0] is None else int(row[0])

    def since(self, seq: int, limit: int | None = None) -> list[Event]:
        """Events with a sequence number greater than `seq`, oldest first."""
        sql = "SELECT seq, at, source, type, data FROM events WHERE seq > ? ORDER BY seq"
        params: tuple[Any, ...] = (seq,)
        if limit is not None:
            sql += " LIMIT ?"
            params += (limit,)
        with self._lock:
            try:
                rows = self._db.execute(sql, params).fetchall()
            except sqlite3.Error as exc:  # damaged under a running service: say so; the next start salvages
                raise StoreError(f"cannot read the event log {self.path}: {exc}") from None
        return [Event(r[0], r[1], r[2], r[3], json.loads(r[4])) for r in rows]

    def __iter__(self) -> Iterator[Event]:
        return iter(self.since(0))

    def last_seq(self) -> int:
        with self._lock:
            row = self._db.execute("SELECT COALESCE(MAX(seq), 0) FROM events").fetchone()
        return int(row[0])

    def close(self) -> None:
        with self._lock:
            self._db.close()

"""A second copy of the event log on another device (`[storage] mirror_dir`, e.g. a USB stick).

A Pi's SD card is the usual casualty of a match day (power cut mid-write, a worn card): the log
on it is the whole record. The mirror copies every event, as it is accepted, into an ordinary
event log (`events.sqlite3`, the same schema) in `mirror_dir`, so a dead card loses nothing and
the copy opens as it is (`tablectl record --data-dir <mirror_dir>`; or copy it back as the
table's log). The table never waits for it: it runs in the background, and when the stick is
pulled, full or broken the health panel says so and the copy catches up once it is back.

- `mirror_dir` must exist (made once on the stick): an absent one means the stick is not in, and
  nothing is written to the card's empty mount point instead.
- A mirror that holds another log (another table's, or this table's from before its card was
  replaced and its log restarted) is never written to: the health panel says to move it aside.
- A mirror file SQLite cannot read (pulled mid-write on a stick without a journal) is renamed
  `events.corrupt-<time>.sqlite3` and the copy starts again from the first event.
"""

from __future__ import annotations

import asyncio
import json
import logging
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any, Callable

from table_controller.store import Event, EventStore, raise_schema, read_only_uri

log = logging.getLogger("table_controller.mirror")

MIRROR_FILE = "events.sqlite3"
#: How often the mirror looks for new events (and for a stick put back).
PERIOD_S = 0.5
#: Events copied per transaction: a long backlog goes over in steps, each durable.
BATCH = 2000
#: How often a stick that is in but refuses the copy (full, read-only, failing) is tried again. Each try opens
#: the copy and checks it whole (`PRAGMA quick_check`) before a batch is written and rolled back: every
#: `PERIOD_S` that was 22-35 ms of CPU per try here with a 3 MB copy, a season's 20 MB ~50 ms (a Pi: x5-8, half a
#: core for as long as the stick stays full). A stick pulled and put back is tried at once.
RETRY_S = 10.0


class MirrorRefused(RuntimeError):
    """The mirror holds a log that is not this table's; the text says what to do."""


class LogMirror:
    """Copies `store`'s events into `<mirror_dir>/events.sqlite3` (`sync`), in the background (`run`)."""

    def __init__(self, store: EventStore, mirror_dir: Path, wall_clock: Callable[[], float] = time.time,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.store = store
        self.dir = Path(mirror_dir)
        self.path = self.dir / MIRROR_FILE
        self._wall_clock = wall_clock
        self._clock = clock
        self._retry_at: float | None = None  # while the stick refuses the copy: when to try again (`RETRY_S`)
        self._db: sqlite3.Connection | None = None
        self.mirrored = 0  # the last seq known to be in the mirror
        self.error = ""
        self.present = False
        self.refused = False
        self.moved_aside: list[str] = []
        # One copy at a time, and no closing under a copy in flight: the copying runs in a worker
        # thread, and closing its connection from the event loop mid-write crashed the process
        # (SIGSEGV inside SQLite) when the service stopped while the mirror was writing.
        self._busy = threading.RLock()

    # -- shown on the table's health panel ---------------------------------------------------------
    def health(self) -> dict[str, Any]:
        last = self.store.last_seq()
        behind = max(0, last - self.mirrored)
        ok = self.present and not self.error and behind == 0
        where = str(self.dir)
        if self.refused:
            zh, en = f"备份盘存有别的记录，未写入：{self.error}", f"log mirror refused: {self.error}"
        elif not self.present:
            zh = f"备份盘未插入（{where}）· {behind} 条未备份"
            en = f"log mirror not present ({where}) · {behind} events not copied"
        elif self.error:
            why = _stick_words_zh(self.error)
            said = f"{why}（{self.error}）" if why else self.error
            zh = f"备份失败，重试中：{said} · {behind} 条未备份"
            en = f"log mirror failing, retrying: {self.error}"
        elif behind:
            zh, en = f"备份中 · {behind} 条待备份", f"copying to the log mirror · {behind} to copy"
        else:
            zh, en = f"记录已备份至 #{self.mirrored}（{where}）", f"log mirrored to #{self.mirrored} ({where})"
        return {"ok": ok, "present": self.present, "path": str(self.path), "mirrored_seq": self.mirrored,
                "last_seq": last, "behind": behind, "error": self.error, "refused": self.refused,
                "moved_aside": list(self.moved_aside), "message": zh, "message_en": en}

    # -- copying -----------------------------------------------------------------------------------
    def sync(self) -> int:
        """Copy what the mirror lacks; the number of events copied. Never raises for the stick's
        troubles: they go to `error` / `present` and the next call tries again."""
        with self._busy:
            return self._sync()

    def _sync(self) -> int:
        self.present = self.dir.is_dir()
        if not self.present:
            self._close()
            self._retry_at = None  # the next stick in is tried at once
            return 0
        if self._retry_at is not None and self._clock() < self._retry_at:
            return 0
        if self.refused:
            if self.path.exists():
                return 0
            self.refused, self.error = False, ""  # the file was moved aside: copy afresh
        try:
            if self._db is None:
                self._open()
            copied = 0
            while True:
                batch = self.store.since(self.mirrored, limit=BATCH)
                if not batch:
                    break
                self._write(batch)
                copied += len(batch)
            self.error, self._retry_at = "", None
            return copied
        except MirrorRefused as exc:
            self.refused, self.error = True, str(exc)
            log.error("log mirror refused", extra={"path": str(self.path), "error": str(exc)})
            self._close()
            return 0
        except (sqlite3.Error, OSError) as exc:
            if self.error != str(exc):
                log.warning("log mirror failed; retrying", extra={"path": str(self.path), "error": str(exc)})
            self.error = str(exc)
            self._close()
            self._retry_at = self._clock() + RETRY_S
            return 0

    def inspect(self) -> int | None:
        """Without writing: the events the mirror file holds (0 for none), None when SQLite cannot
        read it; `MirrorRefused` when it is not this table's log (left byte for byte)."""
        if not self.path.exists():
            return 0
        if not self._readable():
            return None
        ro = sqlite3.connect(read_only_uri(self.path), uri=True, check_same_thread=False)
        try:
            last = int(ro.execute("SELECT COALESCE(MAX(seq), 0) FROM events").fetchone()[0])
            if last:
                self._check_same_log(ro, last)
            return last
        finally:
            ro.close()

    def _open(self) -> None:
        last = self.inspect()
        if last is None:
            aside = self.dir / f"events.corrupt-{int(self._wall_clock())}.sqlite3"
            self.path.rename(aside)
            for suffix in ("-journal", "-wal", "-shm"):
                Path(f"{self.path}{suffix}").unlink(missing_ok=True)
            self.moved_aside.append(aside.name)
            log.warning("log mirror unreadable: moved aside, copying afresh", extra={"aside": str(aside)})
            last = 0
        db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        try:
            # a rollback journal, not WAL: the stick may be FAT, and a pulled stick keeps a whole file
            db.execute("PRAGMA journal_mode=DELETE")
            db.execute("PRAGMA synchronous=FULL")
            db.execute("CREATE TABLE IF NOT EXISTS events (seq INTEGER PRIMARY KEY AUTOINCREMENT,"
                       " at REAL NOT NULL, source TEXT NOT NULL, type TEXT NOT NULL, data TEXT NOT NULL)")
            db.execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
            db.execute("INSERT OR IGNORE INTO meta (key, value) VALUES ('schema_version', '1')")
        except BaseException:
            db.close()
            raise
        self._db, self.mirrored = db, last

    def _readable(self) -> bool:
        try:
            db = sqlite3.connect(read_only_uri(self.path), uri=True)
            try:
                ok = db.execute("PRAGMA quick_check").fetchone()[0] == "ok"
                db.execute("SELECT seq, at, source, type, data FROM events LIMIT 1").fetchall()
                return bool(ok)
            finally:
                db.close()
        except sqlite3.Error:
            return False

    def _check_same_log(self, db: sqlite3.Connection, last: int) -> None:
        """The mirror's events are this log's first `last` events (its first and its last agree)."""
        ours = self.store.last_seq()
        if last > ours:
            raise MirrorRefused(f"{self.path} holds {last} events, this table's log {ours}: another table's log, "
                                "or this table's from before its log was replaced. Move the file aside.")
        for seq in {1, last}:
            row = db.execute("SELECT seq, at, source, type, data FROM events WHERE seq = ?", (seq,)).fetchone()
            mine = self.store.since(seq - 1, limit=1)
            if row is None or not mine or _row(mine[0]) != (row[0], row[1], row[2], row[3], json.loads(row[4])):
                raise MirrorRefused(f"{self.path}: its event #{seq} is not this table's: another table's log. "
                                    "Move the file aside.")

    def _write(self, batch: list[Event]) -> None:
        assert self._db is not None
        rows = [(e.seq, e.at, e.source, e.type, json.dumps(e.data, ensure_ascii=False, sort_keys=True)) for e in batch]
        self._db.execute("BEGIN IMMEDIATE")
        try:
            self._db.executemany("INSERT INTO events (seq, at, source, type, data) VALUES (?, ?, ?, ?, ?)", rows)
            raise_schema(self._db, {e.type for e in batch})  # a copy put back on an older Pi is refused the same
            self._db.execute("COMMIT")
        except BaseException:
            if self._db.in_transaction:  # SQLite rolls back itself on a full stick: a ROLLBACK then failed, and
                self._db.execute("ROLLBACK")  # its "no transaction is active" took the place of "disk is full"
            raise
        self.mirrored = batch[-1].seq

    def close(self) -> None:
        self._close()

    def _close(self) -> None:
        with self._busy:  # waits for a copy in flight in the worker thread
            if self._db is not None:
                try:
                    self._db.close()
                except sqlite3.Error:
                    pass
                self._db = None

    # -- life cycle --------------------------------------------------------------------------------
    async def run(self, period_s: float = PERIOD_S) -> None:
        """Keep the mirror up to date for as long as the table runs: a copy every `period_s`, in a
        thread of its own (a slow stick never holds up the table). The thread waits between copies
        itself: before, the event loop slept and handed each copy to a worker thread, nine wakeups a
        second of an idle table for a look at the stick and the log."""
        stop = threading.Event()

        def copy_until_stopped() -> None:
            while True:
                with self._busy:  # the stop is seen under the lock: no copy reopens the file after `_close`
                    if stop.is_set():
                        return
                    self._sync()
                stop.wait(period_s)

        try:
            await asyncio.to_thread(copy_until_stopped)
        finally:
            stop.set()
            self._close()


def _stick_words_zh(error: str) -> str:
    """The technician's words for what SQLite or the system said of the stick (its own words follow)."""
    if "full" in error or "No space" in error:
        return "备份盘已满，请换一个或腾出空间"
    if "readonly" in error or "read-only" in error or "Read-only" in error:
        return "备份盘只读，请检查写保护开关"
    return ""


def _row(e: Event) -> tuple[int, float, str, str, dict[str, Any]]:
    return (e.seq, e.at, e.source, e.type, e.data)

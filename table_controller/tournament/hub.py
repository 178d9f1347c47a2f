"""The tournament hub: every table's public log in its own SQLite file, and the standings across tables.

The tables are the source of truth. The hub keeps what they publish, each event once (by table and
seq), follows the `prev` chain to know whether it holds a table's whole log, and asks the table
to send again from where a gap starts (a broker restarted without persistence, a hub that was
down). Standings add up each table's latest published score sheet of every round (轮次) it played,
never a refold: the
public log has no concealed tiles to refold a win from.
"""

from __future__ import annotations

import asyncio
import json
import logging
import math
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import aiomqtt

from table_controller.store import StoreError, WriterLock
from table_controller.tournament.client_id import private_client_id
from table_controller.tournament.organiser import Standing, check as check_decision, fold as fold_decisions, player_key
from table_controller.tournament.stats import summary
from table_controller.tournament.wire import (
    ID_RE, POSITIONS, EventMsg, OnlineMsg, RecordMsg, ReplayMsg, SeatingMsg, StateMsg, Topics, WireError, check_id, check_prefix,
    decode, encode, KEEPALIVE, backoff, endpoint, table_order,
)

log = logging.getLogger("table_controller.tournament.hub")

#: Seconds between looks for gaps; a gap must last this long without progress before a replay is asked.
REPAIR_S = 1.0
GAP_GRACE_S = 2.0
#: Seconds between two replay requests to the same table.
ASK_EVERY_S = 5.0
#: Bytes of a rejected message kept for the audit.
REJECT_KEEP = 65536
#: Hub seconds (monotonic) a table's clock offset (`TableLog.skew`) stands against larger readings: the
#: least reading is the freshest message, but a table rebooted onto a timeline further behind (or the hub's
#: own clock stepped forward) reads larger from then on, and is taken once this long has passed.
SKEW_KEEP_S = 120.0


class HubError(RuntimeError):
    """The hub's files cannot be opened or written."""


def _connect(path: Path) -> sqlite3.Connection:
    path.parent.mkdir(parents=True, exist_ok=True)
    db = sqlite3.connect(path, check_same_thread=False, isolation_level=None, timeout=10)
    db.execute("PRAGMA journal_mode=WAL")
    # NORMAL, not FULL: a power cut may lose the last events here, and the tables send them again.
    db.execute("PRAGMA synchronous=NORMAL")
    return db


#: The public events that raise or clear a table's alerts on the hub's page.
ALERT_EVENTS = frozenset({"table.fault_raised", "table.fault_cleared", "link.down", "link.up", "link.restored",
                          "camera.status"})


def camera_alert(d: dict[str, Any]) -> dict[str, str]:
    """The hub's words for a table's `camera.status`: its message, named as the camera's once (the
    messages "摄像头未连接…" were shown as "摄像头：摄像头未连接…"), and the reason nothing is read
    where the picture is fine but the reader is not (`problem`: a knocked camera, hidden markers),
    which raised no alert before."""
    out = {}
    for key, said, prefix in (("text_zh", d.get("message"), "摄像头："), ("text_en", d.get("message_en"), "camera: ")):
        text = str(said or d.get("code") or "")
        if not text.lower().startswith(prefix.rstrip("：: ").lower()):
            text = prefix + text
        out[key] = text + (f" · {d['problem']}" if d.get("problem") else "")
    return out


class TableLog:
    """One table's events as published (public projection), and its latest standing of each round."""

    def __init__(self, path: Path, table_id: str) -> None:
        self.table_id = table_id
        self.path = path
        self._db = _connect(path)
        self._db.execute("CREATE TABLE IF NOT EXISTS events (seq INTEGER PRIMARY KEY, prev INTEGER NOT NULL,"
                         " at REAL NOT NULL, source TEXT NOT NULL, type TEXT NOT NULL, data TEXT NOT NULL,"
                         " received REAL NOT NULL)")
        self._db.execute("CREATE INDEX IF NOT EXISTS events_prev ON events (prev)")
        # One standing per round (轮次) the table played, and one record per round's hand.
        self._db.execute("CREATE TABLE IF NOT EXISTS rounds (round INTEGER PRIMARY KEY, seq INTEGER NOT NULL,"
                         " payload TEXT NOT NULL, received REAL NOT NULL)")
        self._db.execute("CREATE TABLE IF NOT EXISTS hand_records (round INTEGER NOT NULL, hand_no INTEGER NOT NULL,"
                         " seq INTEGER NOT NULL, record TEXT NOT NULL, received REAL NOT NULL,"
                         " PRIMARY KEY (round, hand_no))")
        # Events that came under a seq already kept with other content: the table's log was replaced
        self._db.execute("CREATE TABLE IF NOT EXISTS conflicts (seq INTEGER PRIMARY KEY, received REAL NOT NULL)")
        # Since when the table has been cut off from the broker: its retained will comes again at each
        # hub start, and the alert's 分钟 must count from the loss, not from the hub's restart
        self._db.execute("CREATE TABLE IF NOT EXISTS cut_off (id INTEGER PRIMARY KEY CHECK (id = 1), since REAL NOT NULL)")
        # Rounds the table withdrew, with the seq of its word (`set_state`): a standing or record of the round
        # from before it, delivered again or late, must not bring the round back
        self._db.execute("CREATE TABLE IF NOT EXISTS withdrawn (round INTEGER PRIMARY KEY, seq INTEGER NOT NULL)")
        if "summary" not in {r[1] for r in self._db.execute("PRAGMA table_info(hand_records)")}:
            self._db.execute("ALTER TABLE hand_records ADD COLUMN summary TEXT")  # a file from before
        self._migrate()
        self.states: dict[int, dict[str, Any]] = {}
        self.received_at: dict[int, float] = {}
        for number, payload, received in self._db.execute("SELECT round, payload, received FROM rounds"):
            self.states[int(number)], self.received_at[int(number)] = json.loads(payload), received
        #: The hub's clock minus the table's (seconds), as its freshest message read (`heard_clock`): a Pi has
        #: no real-time clock, and one without NTP runs hours or years off the hub's. None until heard.
        self.skew: float | None = None
        #: the hub's monotonic time `skew` was taken; None: the last run's reading, which stands from this
        #: run's first message (a retained one, read late) as a fresh one would
        self._skew_taken: float | None = -math.inf
        latest = self.states.get(max(self.states)) if self.states else None
        if latest is not None and latest.get("at") is not None:
            self.skew = float(self.received_at[max(self.states)]) - float(latest["at"])
            self._skew_taken = None
        #: each hand's record as the statistics read it (`stats.summary`), by (round, hand_no): made as each
        #: record comes and kept beside it (the hub's `stats` parsed every record again at each change)
        self.summaries: dict[tuple[int, int], dict[str, Any]] = self._summaries()
        self.count = int(self._db.execute("SELECT COUNT(*) FROM events").fetchone()[0])
        self.max_seq = int(self._db.execute("SELECT COALESCE(MAX(seq), 0) FROM events").fetchone()[0])
        #: Every event up to this seq is here (the prev chain from 0 is unbroken).
        self.contiguous = 0
        #: What needs the chief referee at this table now, from its events in order: a table fault,
        #: the table's link down, the camera failing (`alerts`)
        self._alerts: dict[str, dict[str, Any]] = {}
        #: the table's word on its broker connection (`set_online`): "connected", "lost", "stopped"
        self.online_reason: str | None = None
        self._follow()
        self._conflict_alert()

    @property
    def state(self) -> dict[str, Any] | None:
        """The standing of the latest round the table has sent (its progress on the page)."""
        return self.states[max(self.states)] if self.states else None

    @property
    def state_received(self) -> float | None:
        return self.received_at[max(self.received_at)] if self.received_at else None

    def _migrate(self) -> None:
        """Files written before rounds kept one standing and records by hand only: they become round 1's."""
        tables = {r[0] for r in self._db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        for old, copy in (("state", "INSERT OR IGNORE INTO rounds (round, seq, payload, received)"
                                    " SELECT 1, seq, payload, received FROM state"),
                          ("records", "INSERT OR IGNORE INTO hand_records (round, hand_no, seq, record, received)"
                                      " SELECT 1, hand_no, seq, record, received FROM records")):
            if old in tables:
                with self._db:  # copied and dropped together, or neither
                    self._db.execute("BEGIN")
                    self._db.execute(copy)
                    self._db.execute(f"DROP TABLE {old}")

    def _summaries(self) -> dict[tuple[int, int], dict[str, Any]]:
        """The hands' summaries as kept; a record kept before summaries were (an older hub's file) is read
        and its summary written once. A start reads a few hundred bytes a hand, not the records."""
        out: dict[tuple[int, int], dict[str, Any]] = {}
        for r, h, kept in self._db.execute("SELECT round, hand_no, summary FROM hand_records").fetchall():
            if kept is None:
                (record,) = self._db.execute("SELECT record FROM hand_records WHERE round = ? AND hand_no = ?",
                                             (r, h)).fetchone()
                made = summary(json.loads(record))
                self._db.execute("UPDATE hand_records SET summary = ? WHERE round = ? AND hand_no = ?",
                                 (json.dumps(made, ensure_ascii=False), r, h))
                out[(int(r), int(h))] = made
            else:
                out[(int(r), int(h))] = json.loads(kept)
        return out

    def _follow(self) -> None:
        while True:
            row = self._db.execute("SELECT seq, at, type, data FROM events WHERE prev = ? ORDER BY seq LIMIT 1",
                                   (self.contiguous,)).fetchone()
            if row is None:
                return
            self.contiguous = int(row[0])
            if row[2] in ALERT_EVENTS:
                self._alert(float(row[1]), str(row[2]), json.loads(row[3]))

    def heard_clock(self, at: float, received: float, mono: float) -> None:
        """A message the table stamped `at` (its clock) as it sent it came at the hub's `received`: the
        least difference is the freshest delivery (a retained or queued one reads late), taken as the offset
        between the two clocks; a larger one only once `SKEW_KEEP_S` (at the hub's monotonic `mono`) passed."""
        reading = float(received) - float(at)
        if self._skew_taken is None:
            self._skew_taken = mono
        if self.skew is None or reading <= self.skew or mono - self._skew_taken >= SKEW_KEEP_S:
            self.skew, self._skew_taken = reading, mono

    def hub_time(self, at: float) -> float:
        """The table's time `at` on the hub's clock (as it is, before the table is heard from)."""
        return float(at) + (self.skew or 0.0)

    def _alert(self, at: float, type_: str, d: dict[str, Any]) -> None:
        """Raise or clear what an event says about the table's health (only in order: a clear
        never lands before its raise). Its `since` is the event's stamp, the table's clock (`table_at`):
        the hub's clock at `alerts`."""
        if type_ == "table.fault_raised":
            from drivers.faults import where_zh

            # the place in words ("lift N" → 4号位升降台), from `where` itself: older logs lack where_zh
            where = f"（{where_zh(str(d['where']))}）" if d.get("where") and d.get("where") != "table" else ""
            self._alerts[f"fault:{d.get('code')}"] = {
                "kind": "fault", "since": at, "table_at": True, "text_zh": f"故障：{d.get('name_zh', d.get('code'))}{where}",
                "text_en": f"fault: {d.get('name_en', d.get('code'))}" + (f" ({d['where']})" if where else "")}
        elif type_ == "table.fault_cleared":
            self._alerts.pop(f"fault:{d.get('code')}", None)
        elif type_ == "link.down":
            from drivers.names import reason_en, reason_zh

            # the driver's reason is a code (silent, unplugged): in words, as the table's display names it
            reason = str(d.get("reason", ""))
            zh, en = reason_zh(reason), reason_en(reason)
            self._alerts["link"] = {"kind": "link", "since": at, "table_at": True, "text_zh": f"牌桌连接中断：{zh}",
                                    "text_en": f"table link down: {en}"}
        elif type_ in ("link.up", "link.restored"):
            self._alerts.pop("link", None)
        elif type_ == "camera.status":
            if d.get("code") in (None, "ok") and not d.get("problem"):
                self._alerts.pop("camera", None)
            else:
                self._alerts["camera"] = {"kind": "camera", "since": at, "table_at": True, **camera_alert(d)}

    def set_online(self, msg: "OnlineMsg", received: float) -> None:
        """The table's connection to the broker: its will ("lost") raises an alert until it is back;
        a table stopped in good order, or connected again, has none."""
        self.online_reason = msg.reason
        if msg.online or msg.reason != "lost":
            self._alerts.pop("offline", None)
            with self._db:
                self._db.execute("DELETE FROM cut_off")
            return
        with self._db:  # the first word of the loss sets the time; the same will again keeps it
            self._db.execute("INSERT OR IGNORE INTO cut_off (id, since) VALUES (1, ?)", (received,))
        since = float(self._db.execute("SELECT since FROM cut_off").fetchone()[0])
        self._alerts["offline"] = {
            "kind": "offline", "since": since,
            "text_zh": "与赛事服务器断线（牌桌断电、断网或死机？）：本桌照常记录，重连后补发",
            "text_en": "cut off from the tournament broker (power, network or a crash?): the table keeps its log "
                       "and sends it when back"}

    def _conflict_alert(self) -> None:
        """A table that sends other events under seqs the hub already holds has a new log under an
        old table id (a Pi or card swapped, the log wiped): what the hub shows for it mixes two logs.
        It stays on the page until the hub's files for that table are sorted out (docs/tournament.md)."""
        first, count, since = self._db.execute("SELECT MIN(seq), COUNT(*), MIN(received) FROM conflicts").fetchone()
        if count:
            self._alerts["conflict"] = {
                "kind": "conflict", "since": since,
                "text_zh": f"记录冲突：{count} 条事件与已收到的不同（自 #{first}）。本桌的记录可能被换过，"
                           "或两张牌桌设成了同一桌号（请核对各桌设置）；新牌桌须用新的桌号",
                "text_en": f"log conflict: {count} events differ from those kept (from #{first}); the table's log "
                           "was replaced, or two tables are set to the same table id (check each table's "
                           "config)? A new table needs its own table id"}

    @property
    def alerts(self) -> list[dict[str, Any]]:
        """What needs attention at this table now, oldest first; `since` on the hub's clock (an event's
        stamp moved by `skew`: a table hours off read as cut off for hours, or for 0 minutes)."""
        out = [{k: v for k, v in a.items() if k != "table_at"} | {"since": self.hub_time(a["since"])}
               if a.get("table_at") else a for a in self._alerts.values()]
        return sorted(out, key=lambda a: a["since"])

    def add_event(self, msg: EventMsg, received: float) -> str:
        """Keep the event unless it is already here: "new", "duplicate", or "conflict" (same seq, other content)."""
        data = json.dumps(msg.data, ensure_ascii=False, sort_keys=True)
        row = self._db.execute("SELECT prev, at, source, type, data FROM events WHERE seq = ?", (msg.seq,)).fetchone()
        if row is not None:
            if tuple(row) == (msg.prev, msg.at, msg.source, msg.type, data):
                return "duplicate"
            self._db.execute("INSERT OR IGNORE INTO conflicts (seq, received) VALUES (?, ?)", (msg.seq, received))
            self._conflict_alert()
            return "conflict"
        self._db.execute("INSERT INTO events (seq, prev, at, source, type, data, received)"
                         " VALUES (?, ?, ?, ?, ?, ?, ?)",
                         (msg.seq, msg.prev, msg.at, msg.source, msg.type, data, received))
        self.count += 1
        self.max_seq = max(self.max_seq, msg.seq)
        if msg.prev == self.contiguous:
            self._follow()
        return "new"

    def _withdrawn_after(self, round_no: int, seq: int) -> bool:
        """The table withdrew round `round_no` at or after `seq`: what it sent of the round before is void."""
        row = self._db.execute("SELECT seq FROM withdrawn WHERE round = ?", (round_no,)).fetchone()
        return row is not None and seq <= int(row[0])

    def set_state(self, msg: StateMsg, received: float) -> bool:
        """Keep the newer standing of its round only (a retained message may be older than one here). A round
        withdrawn is remembered with the seq of the withdrawal: a standing of it from before, delivered again
        (QoS 1 is at least once) or late, brought the round back into the standings, 1.75 标准分 each."""
        held = self.states.get(msg.round)
        if held is not None and msg.seq < held["seq"]:
            return False
        if self._withdrawn_after(msg.round, msg.seq) and not msg.withdrawn:
            return False
        if msg.withdrawn:  # a round started by mistake, its start undone at the table
            self._db.execute("INSERT INTO withdrawn (round, seq) VALUES (?, ?) ON CONFLICT(round)"
                             " DO UPDATE SET seq = MAX(seq, excluded.seq)", (msg.round, msg.seq))
            self._db.execute("DELETE FROM rounds WHERE round = ?", (msg.round,))
            self._db.execute("DELETE FROM hand_records WHERE round = ?", (msg.round,))
            self.states.pop(msg.round, None)
            self.received_at.pop(msg.round, None)
            self.summaries = {k: v for k, v in self.summaries.items() if k[0] != msg.round}
            return True
        payload = msg.model_dump()
        self._db.execute("INSERT INTO rounds (round, seq, payload, received) VALUES (?, ?, ?, ?) ON CONFLICT(round)"
                         " DO UPDATE SET seq = excluded.seq, payload = excluded.payload, received = excluded.received",
                         (msg.round, msg.seq, json.dumps(payload, ensure_ascii=False), received))
        self.states[msg.round], self.received_at[msg.round] = payload, received
        return True

    def set_record(self, msg: RecordMsg, received: float) -> bool:
        """Keep a hand's record unless a newer one (by the table's seq) is here already."""
        row = self._db.execute("SELECT seq FROM hand_records WHERE round = ? AND hand_no = ?",
                               (msg.round, msg.hand_no)).fetchone()
        if (row is not None and int(row[0]) > msg.seq) or self._withdrawn_after(msg.round, msg.seq):
            return False
        made = summary(msg.record)
        self._db.execute("INSERT INTO hand_records (round, hand_no, seq, record, received, summary)"
                         " VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT(round, hand_no) DO UPDATE SET seq = excluded.seq,"
                         " record = excluded.record, received = excluded.received, summary = excluded.summary",
                         (msg.round, msg.hand_no, msg.seq, json.dumps(msg.record, ensure_ascii=False), received,
                          json.dumps(made, ensure_ascii=False)))
        self.summaries[(msg.round, msg.hand_no)] = made
        return True

    def records(self, round_no: int | None = None) -> list[dict[str, Any]]:
        """The hands' records the table has sent, round by round in hand order (or one round's)."""
        return [json.loads(r) for r in self.records_json(round_no)]

    def records_json(self, round_no: int | None = None) -> list[str]:
        """`records` as kept (JSON text): read on the loop, parsed where it costs the loop nothing."""
        if round_no is None:
            rows = self._db.execute("SELECT record FROM hand_records ORDER BY round, hand_no")
        else:
            rows = self._db.execute("SELECT record FROM hand_records WHERE round = ? ORDER BY hand_no", (round_no,))
        return [r[0] for r in rows]

    def record_json(self, hand_no: int, round_no: int | None = None) -> str | None:
        """One hand's record as kept, of `round_no` (default: the latest round that has the hand): one row
        read (a hand's page read and parsed all of the table's day, 35 ms a hand late in a big day)."""
        where, args = ("AND round = ?", (hand_no, round_no)) if round_no is not None else ("", (hand_no,))
        row = self._db.execute(f"SELECT record FROM hand_records WHERE hand_no = ? {where}"
                               " ORDER BY round DESC LIMIT 1", args).fetchone()
        return None if row is None else str(row[0])

    def behind(self) -> int:
        """The highest seq this table is known to have logged beyond what the hub holds in full (0: none)."""
        known = max(self.max_seq, self.state["seq"] if self.state else 0)
        return known if known > self.contiguous else 0

    def events(self, after: int = 0, limit: int = 1000) -> list[dict[str, Any]]:
        return events_from_rows(self.event_rows(after, limit))

    def event_rows(self, after: int = 0, limit: int = 1000) -> list[tuple[Any, ...]]:
        """`events` as kept (their data JSON text): read on the loop, parsed where it costs the loop nothing."""
        return self._db.execute("SELECT seq, prev, at, source, type, data FROM events WHERE seq > ? ORDER BY seq"
                                " LIMIT ?", (after, limit)).fetchall()

    def close(self) -> None:
        self._db.close()


def events_from_rows(rows: list[tuple[Any, ...]]) -> list[dict[str, Any]]:
    """A table's events from their rows (`TableLog.event_rows`)."""
    return [{"seq": r[0], "prev": r[1], "at": r[2], "source": r[3], "type": r[4], "data": json.loads(r[5])}
            for r in rows]


class Hub:
    """Subscribes to one tournament's tables, keeps their logs and computes the standings."""

    def __init__(self, broker: str, tournament: str, data_dir: Path, prefix: str = "mahjong", username: str = "",
                 password: str = "", client_id: str = "", wall_clock: Callable[[], float] = time.time,
                 monotonic: Callable[[], float] = time.monotonic,
                 ca_file: str = "", organizer_token: str = "",
                 registered: list[dict[str, str]] | None = None, expected: list[str] | None = None,
                 substitute_credit: str = "hands", names: dict[str, str] | None = None, title: str = "") -> None:
        self.broker = broker
        if substitute_credit not in SUBSTITUTE_CREDIT:
            raise HubError(f"substitute credit must be one of {', '.join(SUBSTITUTE_CREDIT)}, "
                           f"not {substitute_credit!r}")
        #: how a chair's points are credited where a substitute (替补) sat part of a round (`credited`)
        self.substitute_credit = substitute_credit
        self.host, self.port, self.tls = endpoint(broker, ca_file)
        self.tournament = check_id(tournament, "tournament")
        names = {check_id(t, "table"): str(n) for t, n in (names or {}).items() if n}
        self.prefix = check_prefix(prefix)
        self.username, self.password = username or None, password or None
        # an id another table's user cannot take over (`client_id.private_client_id`)
        self.client_id = client_id or private_client_id(f"hub-{tournament}", password)
        self.dir = Path(data_dir) / tournament
        self._wall_clock = wall_clock
        self._monotonic = monotonic  # how long a table's clock offset stands (`TableLog.heard_clock`)
        # one hub per tournament's files: a second would write them too and, under the same MQTT
        # client id, throw the first off the broker at each reconnect (and be thrown off in turn)
        self._writer = WriterLock(self.dir, ("汇总服务", "hub"))
        try:
            self._writer.acquire()
        except StoreError as exc:
            raise HubError(str(exc)) from None
        try:
            self._db = _connect(self.dir / "hub.sqlite3")
            self._db.execute("CREATE TABLE IF NOT EXISTS rejected (id INTEGER PRIMARY KEY AUTOINCREMENT,"
                             " received REAL NOT NULL, topic TEXT NOT NULL, payload BLOB NOT NULL,"
                             " error TEXT NOT NULL)")
            # The seatings the organiser published (编排), per round and table: re-posted on each connection.
            self._db.execute("CREATE TABLE IF NOT EXISTS seatings (round INTEGER NOT NULL, table_id TEXT NOT NULL,"
                             " payload TEXT NOT NULL, at REAL NOT NULL, PRIMARY KEY (round, table_id))")
            # The organiser's decisions (organiser.py), in order, never changed: what stands is their fold
            self._db.execute("CREATE TABLE IF NOT EXISTS decisions (id INTEGER PRIMARY KEY AUTOINCREMENT,"
                             " at REAL NOT NULL, action TEXT NOT NULL, data TEXT NOT NULL)")
            # The tables' names as the organiser gave them (`--tables t01=一号桌`): kept, so a hub started
            # again without them still names the tables as the seating posted in the hall did
            self._db.execute("CREATE TABLE IF NOT EXISTS table_names (table_id TEXT PRIMARY KEY, name TEXT NOT NULL,"
                             " at REAL NOT NULL)")
            with self._db:
                for table_id, name in names.items():
                    self._db.execute("INSERT INTO table_names (table_id, name, at) VALUES (?, ?, ?) ON CONFLICT"
                                     "(table_id) DO UPDATE SET name = excluded.name, at = excluded.at"
                                     " WHERE name != excluded.name", (table_id, name, wall_clock()))
            # the tournament's name as players read it (`--title`), kept as the names are
            self._db.execute("CREATE TABLE IF NOT EXISTS settings (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
            if title.strip():
                with self._db:
                    self._db.execute("INSERT OR REPLACE INTO settings (key, value) VALUES ('title', ?)",
                                     (title.strip(),))
            kept = self._db.execute("SELECT value FROM settings WHERE key = 'title'").fetchone()
            #: what the page's heading and the posted seating call the tournament (its id without a title)
            self.title: str = kept[0] if kept else self.tournament
            # the registration list (`--players`), kept as the names are: a hub started again without it
            # showed a number keyed under a mistyped name by that name, and ranked and seated stand-ins
            self._db.execute("CREATE TABLE IF NOT EXISTS registered (k INTEGER PRIMARY KEY, id TEXT NOT NULL,"
                             " name TEXT NOT NULL)")
            if registered:
                with self._db:
                    self._db.execute("BEGIN")
                    self._db.execute("DELETE FROM registered")
                    self._db.executemany("INSERT INTO registered (id, name) VALUES (?, ?)",
                                         [(r["id"], r["name"]) for r in registered])
            listed = [{"id": i, "name": n} for i, n in self._db.execute("SELECT id, name FROM registered ORDER BY k")]
            #: table id → the organiser's name for it: shown everywhere in place of the name the table sends
            self.names: dict[str, str] = dict(self._db.execute("SELECT table_id, name FROM table_names ORDER BY rowid"))
            #: Messages kept in `rejected` since the hub's first start (the audit); `malformed` counts this run's.
            self.rejected = int(self._db.execute("SELECT COUNT(*) FROM rejected").fetchone()[0])
            self.tables: dict[str, TableLog] = {}
            for path in sorted((self.dir / "tables").glob("*.sqlite3")):
                if ID_RE.match(path.stem):  # only files this hub wrote
                    self.tables[path.stem] = TableLog(path, path.stem)
        except sqlite3.Error as exc:
            self._writer.release()
            raise HubError(f"cannot open the hub's files in {self.dir}: {exc}") from None
        self.connected = False
        self.error = ""
        self.received = self.malformed = self.errors = self.duplicates = self.conflicts = self.replays_asked = 0
        self._progress: dict[str, tuple[int, float]] = {}
        self._asked: dict[str, float] = {}
        #: the organiser's credential for publishing a seating ("" : publishing is off)
        self.organizer_token = organizer_token
        #: the registration list (id, name): round 1 is drawn from it, and players not yet seated join;
        #: the one given last where none is given now
        self.registered = listed
        #: registration number → registered name: a number keyed at a table goes by this name everywhere
        self.registered_names = {r["id"]: r["name"] for r in self.registered if r["id"]}
        #: the venue's tables (`--tables`, as `tablectl broker-config` made their users): each is on the
        #: page from the start, flagged until it is heard from, and seated by its own id; a hub started
        #: again without them has the tables the organiser named (`names`)
        self.expected = [check_id(t, "table") for t in (expected or [])] or list(self.names)
        self._started = wall_clock()
        self._stats: dict[str, Any] | None = None  # the players' statistics, until a record or standing changes
        #: how many times the statistics were counted: what `stats()` says changes only with it
        self.stats_counted = 0
        #: counts the changes of what the ranking and the seating read (`_results_changed`); `_kept` holds
        #: them as counted since
        self.results = 0
        self._kept: dict[tuple[Any, ...], Any] = {}
        self._decided: Standing | None = None  # the organiser's decisions folded, until the next one
        self._outbox: asyncio.Queue[tuple[str, bytes]] = asyncio.Queue()
        #: Counts what the page shows changing (a message filed, a seating published, the broker
        #: come or gone): the page's live channel (`wait_change`) fetches at once instead of polling.
        self.version = 0
        self._changed = asyncio.Event()

    # -- messages ----------------------------------------------------------------------------------
    def changed(self) -> None:
        """Wake every page waiting in `wait_change`."""
        self.version += 1
        self._changed.set()
        self._changed = asyncio.Event()

    async def wait_change(self, after: int, timeout: float) -> int:
        """The version, once it is past `after` or `timeout` seconds have gone."""
        if self.version <= after:
            try:
                await asyncio.wait_for(self._changed.wait(), timeout)
            except asyncio.TimeoutError:
                pass
        return self.version

    def handle(self, topic: str, payload: bytes) -> str:
        """File one received message; what it was ("new", "duplicate", "state", "malformed", ...). Never raises."""
        outcome = self._handle(topic, payload)
        if outcome != "ignored":
            self.changed()
        return outcome

    def _handle(self, topic: str, payload: bytes) -> str:
        now = self._wall_clock()
        self.received += 1
        try:
            table_id, kind = Topics.parse(self.prefix, self.tournament, topic)
            if kind in ("replay", "seating"):
                return "ignored"  # our own messages to the tables
            if kind == "events":
                event = decode(EventMsg, payload, self.tournament, table_id)  # first: garbage makes no table
                outcome = self._table(table_id).add_event(event, now)
                if outcome == "duplicate":
                    self.duplicates += 1
                elif outcome == "conflict":
                    self.conflicts += 1
                    log.error("a table sent a different event under a seq already kept; kept the first",
                              extra={"topic": topic})
                    self._reject(now, topic, payload, "conflict: another event with this seq is already kept")
                return outcome
            if kind == "online":
                online = decode(OnlineMsg, payload, self.tournament, table_id)
                if online.online:  # stamped as it connected (a will is read long after it was written)
                    self._table(table_id).heard_clock(online.at, now, self._monotonic())
                self._table(table_id).set_online(online, now)
                return "online"
            if kind == "records":
                record = decode(RecordMsg, payload, self.tournament, table_id)
                readable(record.record)
                if self._table(table_id).set_record(record, now):
                    self._stats = None  # the players' statistics are counted again on the next ask
                return "record"
            state = decode(StateMsg, payload, self.tournament, table_id)
            table = self._table(table_id)
            table.heard_clock(state.at, now, self._monotonic())  # stamped as it was sent
            held = table.states.get(state.round)
            before = _stats_inputs(held), _results_inputs(held)
            # a standing comes at each change of a table (every half second in play): the statistics read
            # only who sat and the table's name of it (they were counted again after each, 0.5 s at 900 hands),
            # the ranking and the seating its results
            if table.set_state(state, now):
                after = table.states.get(state.round)
                if state.withdrawn or _stats_inputs(after) != before[0]:
                    self._stats = None
                if state.withdrawn or _results_inputs(after) != before[1]:
                    self._results_changed()
            return "state"
        except WireError as exc:
            self.malformed += 1
            self._reject(now, topic, payload, str(exc))
            return "malformed"
        except Exception as exc:  # a bug or a full disk must not stop the standings of the other tables
            self.errors += 1
            log.exception("could not file a message", extra={"topic": topic})
            self._reject(now, topic, payload, f"internal error: {exc}")
            return "error"

    def _table(self, table_id: str) -> TableLog:
        table = self.tables.get(table_id)
        if table is None:
            table = self.tables[table_id] = TableLog(self.dir / "tables" / f"{table_id}.sqlite3", table_id)
            log.info("new table in the tournament", extra={"table_id": table_id})
            self._results_changed()  # heard from: on the seating
        return table

    def _reject(self, now: float, topic: str, payload: bytes, error: str) -> None:
        """Log a message that cannot be filed, and keep it for the audit (not lost, not used)."""
        self.rejected += 1
        log.warning("rejected a message", extra={"topic": topic, "error": error, "bytes": len(payload)})
        try:
            self._db.execute("INSERT INTO rejected (received, topic, payload, error) VALUES (?, ?, ?, ?)",
                             (now, topic, bytes(payload[:REJECT_KEEP]), error))
        except sqlite3.Error:
            log.exception("could not keep the rejected message")

    def gaps(self, now: float) -> list[tuple[str, int]]:
        """Tables to ask again, and from after which seq: a gap that has not closed for `GAP_GRACE_S`."""
        out = []
        for table_id, table in self.tables.items():
            if not table.behind():
                self._progress.pop(table_id, None)
                continue
            seen, since = self._progress.get(table_id, (-1, now))
            if seen != table.contiguous:
                self._progress[table_id] = (table.contiguous, now)
                continue
            if now - since >= GAP_GRACE_S and now - self._asked.get(table_id, -ASK_EVERY_S) >= ASK_EVERY_S:
                self._asked[table_id] = now
                out.append((table_id, table.contiguous))
        return out

    # -- what the pages show -----------------------------------------------------------------------
    def standings(self, through: int | None = None) -> dict[str, Any]:
        """Players across tables and rounds: summed 标准分 and points; equal on both, equal rank (as the
        score sheet shares). `through`: counting rounds 1..through only (the standings after that round).
        The ranking is counted when a result changes (`_ranked`); each table's row is made at each ask."""
        return {**self.progress(through), "players": self._ranked(through), "at": self._wall_clock()}

    def ranked(self, through: int | None = None) -> list[dict[str, Any]]:
        """The standings' players (`standings`): the same list until `results` moves."""
        return self._ranked(through)

    def progress(self, through: int | None = None) -> dict[str, Any]:
        """The standings but their players and time: each table's row, the hub's counters. Made again at each
        ask; what they show changes only with `version` and `health()`."""
        tables = [self._table_row(table_id, self.tables.get(table_id))
                  for table_id in table_order(set(self.tables) | set(self.expected), self.expected)]
        order = self._ranked(through)
        key = ("twice", through)  # found with the ranking it is found in (2.4 ms at 64 tables' 7 rounds)
        if key not in self._kept:
            self._kept[key] = _twice(order)
        for row in tables:
            row["alerts"] += self._kept[key].get(row["table_id"], [])
        _same_name(tables)
        return {"tournament": self.tournament, "title": self.title, "tables": tables, "through": through,
                "hub": self.health()}

    def now(self) -> float:
        """The hub's wall clock (what `at` says in its answers)."""
        return self._wall_clock()

    def _results_changed(self) -> None:
        """Something the ranking or the seating reads changed: a table's result, a table first heard, the
        organiser's decision, a seating published. They are counted again at the next ask."""
        self.results += 1
        self._kept.clear()

    def _ranked(self, through: int | None) -> list[dict[str, Any]]:
        """The players ranked, kept until a result changes (`_results_changed`): a page fetches the standings
        and the seating at every table's message, and they were counted again each time (every round of every
        table, and the Swiss draw: 35 ms a page's fetch at 64 tables' 7 rounds). Never changed once made."""
        key = ("ranked", through)
        if key not in self._kept:
            self._kept[key] = self._rank(through)
        return self._kept[key]

    def _rank(self, through: int | None) -> list[dict[str, Any]]:
        players: dict[str, dict[str, Any]] = {}
        decided = self.decided()
        out = self._out_of_seating(decided)
        for table_id in table_order(set(self.tables) | set(self.expected), self.expected):
            if table_id not in self.tables:  # on the venue's list, never heard from
                continue
            for number, st in sorted(self._rounds(table_id).items()):
                if through is not None and number > through:
                    continue
                for pos in POSITIONS:
                    for who in credited(st, pos, self.substitute_credit):
                        # a name keyed without its number, registered once with one: that player (a table that
                        # keyed 甲 in round 1 and A01 甲 in round 2 split 甲 into two rows, each with half the points)
                        name, pid = who["name"], who["id"] or self._number_of(who["name"])
                        # a registration number tells apart two players of one name; without one, the name
                        p = players.setdefault(f"id:{pid}" if pid else f"name:{name}",
                                               {"name": name, "id": pid, "table_points": 0, "points": 0, "tables": []})
                        p["table_points"] += who["table_points"]
                        p["points"] += who["points"]
                        p["tables"].append({"table_id": table_id, "table_name": self.name_of(table_id, st),
                                            "round": number, "position": int(pos), "points": who["points"],
                                            "table_points": _tidy(who["table_points"]), "final": st["final"],
                                            **({"sat": who["sat"]} if "sat" in who else {})})
        for key, p in players.items():
            p["tables"].sort(key=lambda x: (x["round"], x["table_id"]))
            # left out of the seating by the organiser (withdrew, late): the results stand, shown so
            p["out"] = out.get(key)
            # 取消比赛资格 at a table (`disqualified`): where and why, on the row and in /api/standings
            p["disqualified"] = [{k: d[k] for k in ("table_id", "table_name", "round", "position", "ruling", "note",
                                                     "seq")} for d in self.disqualified().get(key, [])]
            p["stand_in"] = self._stand_in(p)
            # a registered number goes by its registered name: a name mistyped at one table (王玮 for
            # 王伟) was shown for the player everywhere, and posted in the next round's seating
            p["name"] = self.registered_names.get(p["id"], p["name"])
            # three tied places share 7/3: summed as floats, equal totals differ in the last digit
            # (6.666666666666668 against …667) and would be ranked apart, not by points nor shared
            p["table_points"] = _tidy(p["table_points"])
        order = sorted((p for p in players.values() if not p["stand_in"]),
                       key=lambda p: (-p["table_points"], -p["points"], p["name"], p["id"]))
        for i, p in enumerate(order):
            same = i > 0 and (p["table_points"], p["points"]) == (order[i - 1]["table_points"], order[i - 1]["points"])
            p["rank"] = order[i - 1]["rank"] if same else i + 1
        stand_ins = sorted((p for p in players.values() if p["stand_in"]), key=lambda p: (p["name"], p["id"]))
        for p in stand_ins:  # 陪打: shown with their points, never ranked
            p["rank"] = None
        return order + stand_ins

    def _table_row(self, table_id: str, table: TableLog | None) -> dict[str, Any]:
        """A table's row on the page: where it is, what it sent, what needs attention. `table` None:
        a table on the venue's list that has sent nothing (not on, not on the network, or set up
        with another table id, tournament or broker user, whose every message the broker drops),
        which would otherwise be simply absent from the page."""
        rounds = self._rounds(table_id)
        st = rounds[max(rounds)] if rounds else None
        decided = self.decided()
        if table is None:
            alerts = [{"kind": "unheard", "since": self._started,
                       "text_zh": "尚未收到本桌任何消息（未开机、未联网，或桌号、赛事名、账号不符？）",
                       "text_en": "nothing heard from this table yet (off, not on the network, or another table id, "
                                  "tournament or broker user?)"}]
        else:
            alerts = (table.alerts + _appeal_alert(st) + _name_alert(self.names.get(table_id), st)
                      + self._disqualified_alert(table_id, st))
        return {
            "heard": table is not None, "table_id": table_id, "table_name": self.name_of(table_id, st),
            "seq": st["seq"] if st else None, "events": table.count if table else 0,
            "contiguous": table.contiguous if table else 0, "complete": table is None or table.behind() == 0,
            "round": st.get("round", 1) if st else None, "rounds": sorted(table.states) if table else [],
            "hand_no": st["hand_no"] if st else None, "hands_played": st["hands_played"] if st else 0,
            "phase": st["phase"] if st else None, "phase_zh": st["phase_zh"] if st else None,
            "final": st["final"] if st else False, "updated_at": table.state_received if table else None,
            "alerts": alerts,
            # the session clock as the table last told it: when it runs out, or frozen while paused
            "clock": None if st and st.get("ended_by_organiser") else _clock_left(st, table),
            # the organiser's decisions on this table: out of service, rounds ended with the scores so far
            "out": decided.tables_out.get(table_id),
            "ended": sorted(n for t, n in decided.rounds_ended if t == table_id),
        }

    def _disqualified_alert(self, table_id: str, st: dict[str, Any] | None) -> list[dict[str, Any]]:
        """The players the table's current round disqualified (取消比赛资格), for the chief referee: the hub
        leaves them out of the seating; an undo at the table, or the organiser's 恢复编排, seats them again."""
        number = (st or {}).get("round", 1)
        barred = [d for ds in self.disqualified().values() for d in ds
                  if d["table_id"] == table_id and d["round"] == number]
        return [{"kind": "disqualified", "since": None,
                 "text_zh": f"{d['position']}号位 {d['name']} {disqualified_words(d, table=False)}：不再参加编排；改判时在本桌撤销该判罚"
                            "（本轮结束后由组织者点 恢复编排）",
                 "text_en": f"chair {d['position']} {d['name']} disqualified ({d['ruling']}): left out of the seating; "
                            "if overturned, undo the ruling at the table (after its round: the organiser's player_back)"}
                for d in barred]

    def name_of(self, table_id: str, st: dict[str, Any] | None = None) -> str:
        """What players and referees read for a table: the organiser's name for it (`--tables
        t01=一号桌`), else the name the table sent with its standing `st` (default: its latest), else
        its id. The organiser's wins: it is the name posted in the hall before any table was on."""
        if table_id in self.names:
            return self.names[table_id]
        if st is None and table_id in self.tables:
            st = self.tables[table_id].state
        return str((st or {}).get("table_name") or table_id)

    def records(self, table_id: str, round_no: int | None = None) -> list[dict[str, Any]]:
        """A table's hands' records as the hub serves and archives them: named as `name_of` names the
        table (the record as the table sent it is kept unchanged in its file)."""
        found = self.tables[table_id].records(round_no)
        name = self.names.get(table_id)
        return [{**r, "table_name": name} for r in found] if name else found

    def record(self, table_id: str, hand_no: int, round_no: int | None = None) -> dict[str, Any] | None:
        """One hand's record (`TableLog.record_json`), named as `records` names it; None until it has come."""
        kept = self.tables[table_id].record_json(hand_no, round_no)
        if kept is None:
            return None
        found = json.loads(kept)
        name = self.names.get(table_id)
        return {**found, "table_name": name} if name else found

    def counted_rounds(self, table_id: str) -> dict[int, dict[str, Any]]:
        """The table's standing of each round as the ranking counts it (`_rounds`): the archive's."""
        return self._rounds(table_id)

    def _rounds(self, table_id: str) -> dict[int, dict[str, Any]]:
        """The table's standing of each round it played, a round the organiser ended as it was ended."""
        table = self.tables.get(table_id)
        rounds = dict(table.states) if table is not None else {}
        for (t, number), ended in self.decided().rounds_ended.items():
            if t == table_id:
                rounds[number] = ended["standing"]
        return rounds

    # -- the organiser's decisions ------------------------------------------------------------------
    def decisions(self) -> list[dict[str, Any]]:
        """Every decision the organiser took, in order (the record of the day)."""
        rows = self._db.execute("SELECT id, at, action, data FROM decisions ORDER BY id").fetchall()
        return [{"id": r[0], "at": r[1], "action": r[2], "data": json.loads(r[3])} for r in rows]

    def decided(self) -> Standing:
        """What the organiser's decisions mean now (`organiser.fold`)."""
        if self._decided is None:
            self._decided = fold_decisions(self.decisions())
        return self._decided

    def decide(self, action: str, body: dict[str, Any]) -> dict[str, Any]:
        """Take and record one of the organiser's decisions (`organiser.ACTIONS`); `OrganiserError`
        (nothing recorded) when it cannot be taken as asked."""
        known = {t: (dict(self.tables[t].states) if t in self.tables else None)
                 for t in set(self.tables) | set(self.expected)}
        who = {player_key(r["id"], r["name"]): {"name": r["name"], "id": r["id"]} for r in self.registered}
        for p in self.standings()["players"]:
            who.setdefault(player_key(p["id"], p["name"]), {"name": p["name"], "id": p["id"]})
        listed = {player_key("", r["name"]) for r in self.registered}  # names: a stand-in is keyed by name
        twin = self._twin(str(body.get("player", ""))) if action in ("player_out", "player_back") else None
        if twin and (twin in self.decided().players_out or (action == "player_back" and twin in self.disqualified())):
            # 恢复 on the row of 甲 keyed by name, withdrawn (or disqualified) as A01: the decision in force is A01's
            body = {**body, "player": twin}
        data = check_decision(action, body, self.decided(), known, who, listed if self.registered else set(),
                              {t: self.name_of(t) for t in known}, self.disqualified())
        now = self._wall_clock()
        with self._db:
            cur = self._db.execute("INSERT INTO decisions (at, action, data) VALUES (?, ?, ?)",
                                   (now, action, json.dumps(data, ensure_ascii=False)))
        self._decided, self._stats = None, None
        self._results_changed()
        log.info("organiser's decision", extra={"action": action, "subject": data.get("table_id") or data.get("key")})
        self.changed()
        return {"id": cur.lastrowid, "at": now, "action": action, "data": data}

    def stats(self) -> dict[str, Any]:
        """Players' statistics (技术统计) over every round's hands the tables sent (`stats.player_stats`)."""
        from table_controller.tournament.stats import player_stats

        if self._stats is not None:  # every page asks every 3 s; records change once a hand
            return {**self._stats, "at": self._wall_clock()}
        self.stats_counted += 1
        rounds = []
        for table in self.tables.values():
            by_round: dict[int, list[dict[str, Any]]] = {}
            for key in sorted(table.summaries):  # in (round, hand_no) order, as the records are read
                rec = table.summaries[key]
                by_round.setdefault(int(rec.get("round", 1)), []).append(rec)
            for number, records in by_round.items():
                standing = table.states.get(number) or {}
                rounds.append((self.name_of(table.table_id, standing), standing, records))
        found = [{**p, "name": self.registered_names.get(p["id"], p["name"])}  # as in `standings`
                 for p in player_stats(rounds)]
        self._stats = {"tournament": self.tournament, "at": self._wall_clock(), "players": found}
        return self._stats

    def _stand_in(self, player: dict[str, Any]) -> bool:
        """A player not on the registration list, where there is one: a stand-in (陪打) seated to
        fill a table, whose results count for the table but who is not ranked and not seated again
        (seed 000: "临时请一人参加陪打（陪打只计名次，不能出线）"). Matched as `with_registered` does:
        by number, or by name where the table keyed none."""
        if not self.registered:
            return False
        if player["id"]:
            return player["id"] not in self.registered_names
        return player["name"] not in {r["name"] for r in self.registered}

    def pairings(self, round_no: int | None = None, fresh: bool = False) -> dict[str, Any]:
        """The next round's seating proposed from the standings (`pairing.propose`): Swiss order,
        repeat meetings moved apart, no one back in a chair they had where it can be helped.
        `round_no` defaults to the round after the latest any table has played. A round published
        before keeps the tables it can (`pairing.keep_published`) unless `fresh` (a new draw). Kept until
        a result changes (`_results_changed`), as the ranking it is drawn from; never changed once made."""
        key = ("pairings", round_no, fresh)
        if key not in self._kept:
            self._kept[key] = self._pairings(round_no, fresh)
        return self._kept[key]

    def _pairings(self, round_no: int | None, fresh: bool) -> dict[str, Any]:
        from table_controller.tournament.pairing import Entrant, entrants, keep_published, propose, with_registered

        played = [r for t in self.tables.values() for r in t.states]
        number = round_no or (max(played) + 1 if played else 1)
        # from the rounds before it only: a round's seating published again once it is under way (a
        # player late, a correction) must not be drawn from that round's own results and meetings
        standings = self.standings(number - 1)
        decided = self.decided()
        # a table out of service seats no one: fewer chairs, and those beyond them sit out as byes
        tables = [(t["table_id"], t["table_name"]) for t in standings["tables"]
                  if t["table_id"] not in decided.tables_out]
        out = self._out_keys(decided)
        players = [e for e in with_registered(entrants(standings), self.registered, self.tournament)
                   if e.key not in out]  # withdrew, or not here yet
        last = max((e.rank for e in players), default=0)
        # stand-ins (陪打) fill the chairs a withdrawal left empty: last, and the first to sit out
        # (`played` above anyone's) when there are chairs enough without them
        players += [Entrant(key=f"name:{name}", name=name, id="", rank=last + 1 + k, played=10 ** 6)
                    for k, name in enumerate(sorted(decided.stand_ins))]
        published = [json.loads(p) for (p,) in self._db.execute(
            "SELECT payload FROM seatings WHERE round = ? ORDER BY table_id", (number,))]
        if published and not fresh:
            seating = keep_published(players, tables, number, published, seed=self.tournament,
                                     tables_only=bool(decided.tables_out))
        else:
            seating = propose(players, tables, number, seed=self.tournament, tables_only=bool(decided.tables_out))
        out = seating.to_json()
        out["kept"] = sorted(t["table_id"] for t in out["tables"] if _same_seats(t, published)) \
            if published and not fresh else []  # tables whose offer stands as published
        out["tournament"], out["title"] = self.tournament, self.title
        out["tables_out"] = sorted(decided.tables_out)
        out["players_out"] = [{"name": p["name"], "id": p["id"], "reason": p["reason"]}
                              for p in decided.players_out.values()]
        gone = {k for key in decided.players_out for k in (key, self._twin(key)) if k}
        out["players_out"] += [{"name": d[0]["name"], "id": d[0]["id"], "reason": "；".join(map(disqualified_words, d)),
                                "disqualified": True}
                               for key, d in self.disqualified().items() if key not in gone]
        out["stand_ins"] = sorted(decided.stand_ins)
        # tables still playing an earlier round: the standings, and so this seating, may still move
        out["unfinished"] = [t["table_name"] for t in standings["tables"]
                             if t["heard"] and not t["final"] and (t["round"] or 0) < number]
        return out

    def _number_of(self, name: str) -> str:
        """The registration number of the one registered player called `name`, "" where none or several are."""
        numbers = [r["id"] for r in self.registered if r["name"] == name]
        return numbers[0] if len(numbers) == 1 else ""

    def _twin(self, key: str) -> str | None:
        """The player's other key where the registration list ties a number to a name no one else has
        (id:A01 ↔ name:甲): a table may key the player by name alone."""
        kind, _, who = key.partition(":")
        if kind == "name":
            return f"id:{number}" if (number := self._number_of(who)) else None
        name = self.registered_names.get(who) if kind == "id" else None
        return f"name:{name}" if name and self._number_of(name) == who else None

    def _out_of_seating(self, decided: Standing) -> dict[str, dict[str, Any]]:
        """The players left out of the seating by key, each both ways (`_twin`): a player withdrawn by
        number (id:A01) whom a table keyed by name alone (甲) is name:甲 in the standings, and was seated
        again; its row did not say 不参加编排. The organiser's decisions, then the players disqualified at a
        table (`disqualified`: 取消比赛资格, by the hub itself; an undo at the table puts them back)."""
        out = dict(decided.players_out)
        for key, barred in self.disqualified().items():
            d = barred[0]
            out.setdefault(key, {"name": d["name"], "id": d["id"], "at": None, "disqualified": True,
                                 "reason": "；".join(disqualified_words(b) for b in barred)})
        for key, decision in list(out.items()):
            twin = self._twin(key)
            if twin:
                out.setdefault(twin, decision)
        return out

    def disqualified(self) -> dict[str, list[dict[str, Any]]]:
        """The players disqualified at a table (取消比赛资格: `StateMsg.disqualified` of each round's standing) whom
        the organiser has not seated again (`player_back`), by player key (as `_rank` keys them): each
        disqualification's table, round, chair, ruling, note and # in the table's log. Before, only the table
        recorded it: the next round's seating seated the player again and the standings did not say it."""
        if ("dq",) in self._kept:
            return self._kept[("dq",)]  # type: ignore[no-any-return]
        again = self.decided().reinstated
        out: dict[str, list[dict[str, Any]]] = {}
        for table_id in table_order(set(self.tables), self.expected):
            for number, st in sorted(self._rounds(table_id).items()):
                for d in st.get("disqualified") or []:
                    pid = d.get("id") or self._number_of(d["name"])
                    key = f"id:{pid}" if pid else f"name:{d['name']}"
                    if (table_id, number, int(d["seq"])) in again.get(key, set()):
                        continue
                    out.setdefault(key, []).append({**d, "id": pid, "table_id": table_id, "round": number,
                                                    "table_name": self.name_of(table_id, st)})
        self._kept[("dq",)] = out
        return out

    def _out_keys(self, decided: Standing) -> set[str]:
        return set(self._out_of_seating(decided))

    def publish_seating(self, round_no: int | None = None, fresh: bool = False) -> dict[str, Any]:
        """Publish the proposed seating of a round (`pairings`) to its tables: each table's players go
        to `<table_id>/seating` (retained) for its referee to key. Kept, and posted again on each
        connection; publishing a round again replaces it, keeping the tables it can unless `fresh`."""
        proposal = self.pairings(round_no, fresh=fresh)
        if not proposal["tables"] and proposal["byes"]:
            # players and no chair: every table out of service, or fewer than four to seat; it said
            # 尚无成绩 (no results yet) to an organiser whose tables all had results
            if proposal["tables_out"] and len(proposal["byes"]) >= 4:
                raise HubError("所有桌子均已停用，无桌可编排：请先恢复一张桌子（恢复此桌） / every table is out of "
                               "service: put one back first")
            raise HubError(f"只有 {len(proposal['byes'])} 名选手可编排，不足一桌四人 / only "
                           f"{len(proposal['byes'])} players to seat, fewer than four")
        if not proposal["tables"]:
            raise HubError("尚无成绩，无法编排 / no results to seat from yet")
        # a group beyond the tables known has no table to go to: its seating would go to a topic no
        # table reads, and its players, told they were seated, would find no table
        known = set(self.tables) | set(self.expected)
        homeless = [t["table_name"] for t in proposal["tables"] if t["table_id"] not in known]
        if homeless:
            raise HubError(f"{'、'.join(homeless)}没有桌子可坐：请用 tablectl hub --tables 列出场地的全部桌子，"
                           "或先开桌再发布 / groups without a table: list the venue's tables (--tables) or switch "
                           "them on first")
        now = self._wall_clock()
        before = {t for (t,) in self._db.execute("SELECT table_id FROM seatings WHERE round = ?", (proposal["round"],))}
        with self._db:
            self._db.execute("BEGIN")
            self._db.execute("DELETE FROM seatings WHERE round = ?", (proposal["round"],))
            for t in proposal["tables"]:
                msg = SeatingMsg(v=1, tournament=self.tournament, table_id=t["table_id"], round=proposal["round"],
                                 at=now, table_name=t["table_name"],
                                 players={c: p["name"] for c, p in t["seats"].items()},
                                 player_ids={c: p["id"] for c, p in t["seats"].items() if p["id"]})
                self._db.execute("INSERT INTO seatings (round, table_id, payload, at) VALUES (?, ?, ?, ?)",
                                 (proposal["round"], t["table_id"], encode(msg).decode("utf-8"), now))
        for topic, payload in self._seatings(proposal["round"]):
            self._outbox.put_nowait((topic, payload))
        # a table the round was published to before and is not now (taken out of service): its
        # retained offer is replaced by a withdrawal, or its referee would still be shown four players
        # who now sit elsewhere (and one keyed there would be at two tables)
        for table_id in sorted(before - {t["table_id"] for t in proposal["tables"]}):
            self._outbox.put_nowait(self._void(table_id, proposal["round"], now))
        log.info("seating published", extra={"round": proposal["round"], "tables": len(proposal["tables"])})
        self._results_changed()  # a round published again keeps its tables
        self.changed()
        return {**proposal, "published_at": now}

    def published(self) -> dict[str, Any] | None:
        """The latest round whose seating was published, as posted to the tables."""
        row = self._db.execute("SELECT MAX(round) FROM seatings").fetchone()
        if row is None or row[0] is None:
            return None
        tables = [json.loads(p) for (p,) in self._db.execute(
            "SELECT payload FROM seatings WHERE round = ? ORDER BY table_id", (row[0],))]
        return {"round": int(row[0]), "tables": tables}

    def seatings(self) -> list[dict[str, Any]]:
        """Every round's published seating, round by round (the tournament's record of who sat where)."""
        rounds: dict[int, list[dict[str, Any]]] = {}
        for number, payload in self._db.execute("SELECT round, payload FROM seatings ORDER BY round, table_id"):
            rounds.setdefault(int(number), []).append(json.loads(payload))
        return [{"round": n, "tables": t} for n, t in rounds.items()]

    def _seatings(self, round_no: int) -> list[tuple[str, bytes]]:
        rows = self._db.execute("SELECT table_id, payload FROM seatings WHERE round = ?", (round_no,)).fetchall()
        return [(Topics(self.prefix, self.tournament, t).seating, p.encode("utf-8")) for t, p in rows]

    def _void(self, table_id: str, round_no: int, at: float) -> tuple[str, bytes]:
        """The withdrawal of round `round_no`'s offer to a table it is not published to (retained)."""
        void = SeatingMsg(v=1, tournament=self.tournament, table_id=table_id, round=round_no, at=at,
                          table_name=self.name_of(table_id), withdrawn=True)
        return Topics(self.prefix, self.tournament, table_id).seating, encode(void)

    def _reposted(self) -> list[tuple[str, bytes]]:
        """What a new connection posts again, retained (the broker may have lost it: restarted without
        persistence, its power cut): the latest round's seatings, and its withdrawal to every other table the
        hub knows. Only the seatings were posted again: a table taken out while its Pi was off, the withdrawal
        lost with the broker's retained messages, came back still offered four players now seated elsewhere.
        A table that holds no offer of that round takes the withdrawal as nothing (`publisher._seating`)."""
        latest = self.published()
        if latest is None:
            return []
        seated = {t["table_id"] for t in latest["tables"]}
        (at,) = self._db.execute("SELECT MAX(at) FROM seatings WHERE round = ?", (latest["round"],)).fetchone()
        ever = {t for (t,) in self._db.execute("SELECT DISTINCT table_id FROM seatings")}
        others = table_order((set(self.tables) | set(self.expected) | ever) - seated, self.expected)
        return self._seatings(latest["round"]) + [self._void(t, latest["round"], float(at)) for t in others]

    def health(self) -> dict[str, Any]:
        return {"connected": self.connected, "broker": self.broker, "error": self.error, "received": self.received,
                "malformed": self.malformed, "errors": self.errors, "rejected": self.rejected,
                "duplicates": self.duplicates, "conflicts": self.conflicts, "replays_asked": self.replays_asked}

    # -- the broker --------------------------------------------------------------------------------
    async def run(self) -> None:
        """Stay subscribed for as long as the hub runs; reconnect with backoff when the broker goes."""
        attempt = 0
        while True:
            try:
                # A persistent session: messages sent while the hub reconnects wait at the broker.
                async with aiomqtt.Client(self.host, self.port, username=self.username, password=self.password,
                                          tls_context=self.tls, identifier=self.client_id, clean_session=False,
                                          keepalive=KEEPALIVE) as client:
                    self.connected, self.error, attempt = True, "", 0
                    self.changed()
                    log.info("hub connected", extra={"broker": self.broker, "tournament": self.tournament})
                    await self._session(client)
            except aiomqtt.MqttError as exc:
                self.error = str(exc)
                log.warning("hub lost the broker; reconnecting", extra={"broker": self.broker, "error": self.error})
            except Exception as exc:  # a bug here must not leave the standings frozen
                self.error = f"{type(exc).__name__}: {exc}"
                log.exception("hub session failed; reconnecting", extra={"broker": self.broker})
            self.connected = False
            self.changed()
            await asyncio.sleep(backoff(attempt))
            attempt += 1

    async def _session(self, client: Any) -> None:
        base = f"{self.prefix}/{self.tournament}/+"
        await client.subscribe(f"{base}/events", qos=1)
        await client.subscribe(f"{base}/state", qos=1)
        await client.subscribe(f"{base}/records", qos=1)
        await client.subscribe(f"{base}/online", qos=1)  # retained: each table's connection, or its will
        for topic, payload in self._reposted():
            await client.publish(topic, payload, qos=1, retain=True)  # the broker may have lost it
        tasks = [asyncio.create_task(self._listen(client)), asyncio.create_task(self._repair(client)),
                 asyncio.create_task(self._post(client))]
        try:
            done, _ = await asyncio.wait(tasks, return_when=asyncio.FIRST_EXCEPTION)
            for task in done:
                task.result()
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

    async def _listen(self, client: Any) -> None:
        async for message in client.messages:
            payload = message.payload
            if isinstance(payload, str):
                payload = payload.encode("utf-8")
            elif not isinstance(payload, (bytes, bytearray)):
                payload = b"" if payload is None else str(payload).encode("utf-8")
            self.handle(str(message.topic), bytes(payload))

    async def _post(self, client: Any) -> None:
        """Send what the organiser published (seatings), retained, as it comes."""
        while True:
            topic, payload = await self._outbox.get()
            await client.publish(topic, payload, qos=1, retain=True)

    async def _repair(self, client: Any) -> None:
        while True:
            await asyncio.sleep(REPAIR_S)
            for table_id, after in self.gaps(time.monotonic()):
                log.info("asking a table for its events again", extra={"table_id": table_id, "after": after})
                msg = ReplayMsg(v=1, tournament=self.tournament, table_id=table_id, after=after)
                await client.publish(Topics(self.prefix, self.tournament, table_id).replay, encode(msg), qos=1)
                self.replays_asked += 1

    def close(self) -> None:
        for table in self.tables.values():
            table.close()
        self._db.close()
        self._writer.release()


#: Where a substitute (替补) sat part of a round, whom the chair's results go to: "hands" (each hand's
#: points to the one who sat it, the chair's 标准分 shared by hands sat) or "seat" (all to the round's
#: player: a team's reserve playing for the seat, seed 001 "或可增加替补队员一人").
SUBSTITUTE_CREDIT = ("hands", "seat")


def readable(record: dict[str, Any]) -> None:
    """`WireError` unless the hub can count `record` in the statistics (`stats.summary_problem`): a record with a
    win's total "<b>8</b>", seats as a list or a player that is no text was filed, and from then on `/api/stats`
    and the archive were a 500 for the whole hall, even after a restart. (One the hub cannot print is kept and
    printed as such: `web.printed`.)"""
    from table_controller.tournament.stats import summary_problem

    try:
        problem = summary_problem(summary(record))
    except (AttributeError, TypeError) as exc:  # seats or wins of another shape
        raise WireError(f"a hand's record the hub cannot read ({type(exc).__name__}: {exc})") from None
    if problem is not None:
        raise WireError(f"a hand's record the hub cannot read ({problem})")


def credited(st: dict[str, Any], pos: str, how: str = "hands") -> list[dict[str, Any]]:
    """Who a standing's chair `pos` credits, with its points and 标准分: the chair's player, or where a
    substitute came in (`sitters`) each who sat it, one entry per player (one who came back is
    counted once), with `sat`: the hands credited, the spans sat (from which hand to which, why),
    whether a substitute, and who else sat the chair. A standing from before substitutes, or of a
    chair nobody replaced, credits its player as it always did."""
    spans = (st.get("sitters") or {}).get(pos) or []
    pid = (st.get("player_ids") or {}).get(pos, "")
    whole = {"name": st["players"][pos], "id": pid, "points": st["totals"][pos],
             "table_points": float(st["table_points"][pos])}
    if len(spans) < 2:
        return [whole]
    span = [{"name": s["name"], "from_hand": s["from_hand"], "to_hand": s["to_hand"], "reason": s["reason"]}
            for s in spans]
    hands = sum(s["hands"] for s in spans)
    if how == "seat":
        return [{**whole, "sat": {"credit": how, "hands": hands, "spans": span, "substitute": False,
                                  "with": list(dict.fromkeys(s["name"] for s in spans[1:]))}}]
    out: dict[str, dict[str, Any]] = {}
    for k, s in enumerate(spans):
        key = f"id:{s['id']}" if s["id"] else f"name:{s['name']}"
        who = out.setdefault(key, {"name": s["name"], "id": s["id"], "points": 0, "table_points": 0.0,
                                   "sat": {"credit": how, "hands": 0, "spans": [], "substitute": k > 0}})
        who["points"] += s["points"]
        # the chair's 标准分 by the hands each sat (all to the first where none was played)
        share = s["hands"] / hands if hands else (1.0 if k == 0 else 0.0)
        who["table_points"] += float(st["table_points"][pos]) * share
        who["sat"]["hands"] += s["hands"]
        who["sat"]["spans"].append(span[k])
    for who in out.values():
        who["sat"]["with"] = [w["name"] for w in out.values() if w is not who]
    return [w for k, w in enumerate(out.values()) if k == 0 or w["sat"]["hands"] or w["points"]]


def disqualified_words(d: dict[str, Any], table: bool = True) -> str:
    """A disqualification in words (the standings row, the seating's 不参加编排, the alert):
    "取消比赛资格（一号桌 第1轮：偷牌、藏牌（停赛），换牌）" (the player is named beside it)."""
    where = f"{d['table_name']} 第{d['round']}轮：" if table else ""
    note = f"，{d['note']}" if d.get("note") else ""
    return f"取消比赛资格（{where}{d.get('ruling') or '取消比赛资格'}{note}）"


def sat_note(sat: dict[str, Any]) -> str:
    """A standing entry's substitution in words (the CSV, the archive): "替补 第3盘起", "第1-2盘；替补：壬",
    or, all credited to the chair's player, "含替补 壬"."""
    if sat["credit"] == "seat":
        return f"含替补 {'、'.join(sat['with'])}"
    hands = "、".join(f"第{s['from_hand']}盘起" if s["to_hand"] is None else f"第{s['from_hand']}-{s['to_hand']}盘"
                     for s in sat["spans"])
    return f"替补 {hands}" if sat["substitute"] else f"{hands}；替补：{'、'.join(sat['with'])}"


def _clock_left(st: dict[str, Any] | None, table: TableLog | None = None) -> dict[str, Any] | None:
    """The table's session clock for the page: `ends_at` while it runs (the table's clock moved onto the
    hub's, `TableLog.hub_time`: a table hours off showed 时间到 or hours left), or `left_s` frozen while
    the referee has paused it; None without a running clock."""
    if not st or st.get("clock_ends_at") is None:
        return None
    if st.get("clock_paused"):
        return {"paused": True, "left_s": round(float(st["clock_ends_at"]) - float(st["at"]), 1)}
    ends_at = float(st["clock_ends_at"])
    return {"paused": False, "ends_at": table.hub_time(ends_at) if table is not None else ends_at}


def _twice(players: Any) -> dict[str, list[dict[str, Any]]]:
    """A player sits at one table a round: one number (or name, where a table keyed none) in two
    chairs of a round is a keying mistake (D012 for D021) that the standings would add up silently.
    The tables it involves get an alert (需要裁判长处理) until the referee corrects the number: by table id."""
    out: dict[str, list[dict[str, Any]]] = {}
    for p in players:
        by_round: dict[int, list[dict[str, Any]]] = {}
        for entry in p["tables"]:
            by_round.setdefault(entry["round"], []).append(entry)
        for number, seats in sorted(by_round.items()):
            if len(seats) < 2:
                continue
            who = f"{p['name']}（{p['id']}）" if p["id"] else p["name"]
            where = "、".join(f"{e['table_name']} {e['position']}号位" for e in seats)
            where_en = ", ".join(f"{e['table_name']} chair {e['position']}" for e in seats)
            for table_id in dict.fromkeys(e["table_id"] for e in seats):
                out.setdefault(table_id, []).append({
                    "kind": "twice", "since": None,
                    "text_zh": f"第 {number} 轮 {who} 同时记在 {where}：请核对选手编号",
                    "text_en": f"round {number}: {p['id'] or p['name']} is keyed at {where_en}; check the numbers"})
    return out


def _name_alert(name: str | None, st: dict[str, Any] | None) -> list[dict[str, Any]]:
    """A table that calls itself otherwise than the organiser named it (its config's `[table] name`,
    "1号桌" by default at every table): the hub shows the organiser's name, but the table's own display
    and printed sheets show the other, and players sent to 三号桌 find a table saying 1号桌."""
    said = str((st or {}).get("table_name") or "")
    if not name or not said or said == name:
        return []
    return [{"kind": "name", "since": None,
             "text_zh": f"本桌自称「{said}」，组织者定名「{name}」：以组织者所定为准，请改本桌设置（[table] name）",
             "text_en": f"the table calls itself {said!r}, the organiser named it {name!r}: the organiser's name is "
                        "shown; set the table's [table] name"}]


def _same_name(rows: list[dict[str, Any]]) -> None:
    """Two tables shown by one name (two Pis left at the config's "1号桌", no name given at the hub): the
    seating sends players to a name two tables answer to. Each such row gets an alert until one is renamed."""
    by_name: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        by_name.setdefault(row["table_name"], []).append(row)
    for name, same in by_name.items():
        if len(same) < 2:
            continue
        for row in same:
            row["alerts"].append({
                "kind": "name", "since": None,
                "text_zh": f"{len(same)} 张桌同名「{name}」：选手无法区分，请在 tablectl hub --tables 中给各桌定名"
                           "（如 t01=一号桌），或改各桌设置（[table] name）",
                "text_en": f"{len(same)} tables are named {name!r}: name each with tablectl hub --tables (t01=…) "
                           "or in its [table] name"})


def _appeal_alert(st: dict[str, Any] | None) -> list[dict[str, Any]]:
    """Appeals (申诉) waiting at a table for the arbitration committee, from its latest standing."""
    n = int((st or {}).get("appeals_waiting") or 0)
    if not n:
        return []
    # the standing says how many wait, not since when: no `since` (the page shows none)
    return [{"kind": "appeal", "since": None,
             "text_zh": f"申诉待仲裁委员会裁决 {n} 件", "text_en": f"{n} appeal(s) awaiting the committee"}]


def _results_inputs(st: dict[str, Any] | None) -> tuple[Any, ...]:
    """What the ranking (`Hub._rank`: `credited`, `name_of`) and the seating (`Hub.pairings`) read of a round's
    standing: not its phase, hand, turn or clock, which move at every standing a table sends in play."""
    if st is None:
        return (None,)
    return tuple(st.get(k) for k in ("players", "player_ids", "totals", "table_points", "final", "sitters",
                                     "table_name", "disqualified"))


def _stats_inputs(st: dict[str, Any] | None) -> tuple[Any, ...]:
    """What `Hub.stats` reads of a round's standing (`stats.player_stats`, `Hub.name_of`)."""
    st = st or {}
    return (st.get("player_ids"), st.get("sitters"), st.get("table_name"))


def _tidy(x: float) -> float | int:
    """Shared 标准分 may be halves; whole numbers print without ".0" (as the score sheet shows them)."""
    x = round(float(x), 2)
    return int(x) if x.is_integer() else x


def _same_seats(table: dict[str, Any], published: list[dict[str, Any]]) -> bool:
    """Whether a proposed table seats the players its published offer named, in the same chairs."""
    msg = next((p for p in published if p.get("table_id") == table["table_id"]), None)
    return msg is not None and {c: s["name"] for c, s in table["seats"].items()} == msg.get("players")

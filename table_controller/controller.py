"""The controller service: table events in, log append, state fold, live fan-out to the display.

Every accepted event goes through `accept()` or `offer()`, which fold it into the state, append it to the
SQLite log and publish it; the table's events waiting together are folded ahead and written in one
transaction (`_grouped`), and none is published, journaled or followed up before its transaction is on disk.
Operator actions become table commands only after their event is in the log, so the record never misses a cause.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import time
from collections import Counter, deque
from collections.abc import Awaitable, Callable, Coroutine, Iterator
from dataclasses import dataclass
from typing import Any

from drivers.faults import BY_CODE
from drivers.names import COMMAND_NAMES, command_failed

from table_controller import chatter, snapshot
from table_controller.config import TableConfig
from table_controller.journal import journal_fields
from table_controller.stamps import stamp_clock
from table_controller.state import SEATS, TableState, apply, dice_refusal, fold, seat_of_position, walls_down
from table_controller.store import PEOPLE, REQUEST, Event, EventStore, StoreError
from table_controller.supervise import Progress, end_tasks, finish, held_at
from table_controller.tiles import SEAT_NAMES

log = logging.getLogger("table_controller.controller")

#: How often events held while the log could not be written are offered to it again (seconds).
LOG_RETRY_S = 1.0
#: How long a reconnect waits after the n-th failed attempt (seconds), capped at the last.
RECONNECT_BACKOFF = (0.2, 0.5, 1.0, 2.0, 5.0)
#: A link that fell sooner than this after it came up counts as a failed attempt: the next connect waits the
#: backoff. A board that identifies and falls at once (a firmware crash loop, a bridge that drops each
#: connection) was linked again at once, over and over: two events in the log each time, as fast as it answered.
STEADY_LINK_S = 5.0
#: A group commit (`Controller._grouped`): the table's events waiting when the link loop looks are written in one
#: transaction, at most `GROUP_MOST` of them and as many as are folded within `GROUP_S` (the steady clock), so the
#: first of them is shown at most that much later than alone, and a fault behind a chattering button's flood is
#: not behind a commit (an fsync) for each event before it.
GROUP_MOST = 64
GROUP_S = 0.025
#: Link-health events that change state but are too frequent to be worth a log row.
TRANSIENT = frozenset({"heartbeat"})

TableOpener = Callable[[str], Awaitable[Any]]

#: What follows a command a fault refused, for the operator: the steps that go on by themselves once
#: the fault clears, and those that wait for the operator.
FAULT_HINT_ZH = {"start_shuffle": "故障排除后自动洗牌砌牌", "raise_walls": "故障排除后自动升牌",
                 "lower_walls": "故障排除后按“开始新一盘”，牌桌先降牌再升起新牌",
                 "roll_dice": "请掷骰后在本页录入骰子"}


class ActionError(ValueError):
    """An operator or referee action that cannot be done now; the message says why (in Chinese).

    `status` is the HTTP answer: 409 for "not now", 422 for a ruling the rules do not allow.
    """

    def __init__(self, message: str, status: int = 409) -> None:
        super().__init__(message)
        self.status = status


#: How far the system clock may move from the stamps before the record says so, and how often it is checked.
CLOCK_STEP_S = 2.0
CLOCK_CHECK_S = 10.0
#: How often the session clock is looked at for its 报时 (a warning or the end, announced once).
ANNOUNCE_CHECK_S = 1.0
#: An action asked for while the log is folded at start (`Controller.recover`).
RECOVERING_ZH = ("正在恢复记录，本操作未执行，请稍候重试 / "
                 "the record is being recovered: nothing was done, retry shortly")
#: The broadcast feed's longest delay (`/ws?delay=S`), and how many events apart the states kept for it are.
PAST_WINDOW_S = 3600.0
PAST_EVERY = 50


@dataclass
class _Written:
    """An event of the group being written (`Controller._grouped`): folded, not yet on disk."""

    event: Event
    state: TableState | None  # the state it left; None: its fold raised (in the log, never shown)
    held: _Held | None  # offered: held again, in order, when the write fails; None: accepted (refused then)
    request: tuple[str, str] | None  # the person's request key kept with it (`store.REQUEST`)


@dataclass(frozen=True)
class _Held:
    """An event from the table, the camera or the link that the log could not take yet."""

    source: str
    type: str
    data: dict[str, Any]
    table_cursor: tuple[int, int] | None
    then: Callable[[], None] | None


class Controller:
    """Owns the event log, the folded state, the table link and the subscribers of the display."""

    def __init__(self, config: TableConfig, store: EventStore, open_table: TableOpener,
                 wall_clock: Callable[[], float] | None = None, fold_now: bool = True,
                 steady: Callable[[], float] = time.monotonic) -> None:
        """`fold_now=False`: the state stays empty until `recover()` folds the log in a worker
        thread, so the display can answer (and say 正在恢复记录) while a long log is folded. `steady`: the
        clock the link's stalls are timed on (`link_stuck`)."""
        self.config = config
        self.store = store
        self._open_table = open_table
        #: the link loop's turns (an event taken, a connection tried or given up) and the driver's, sampled by
        #: `link_stuck` before each watchdog ping
        self._link_turns = 0
        self._taking = Progress(steady)
        self._driving = Progress(steady)
        self._drift_logged = 0.0
        self._given_clock = wall_clock
        self.state: TableState = TableState()
        self.folded_at_start = 0
        #: While the log is folded at start (`recover`): events folded and to fold; None once done.
        self.recovering: dict[str, int] | None = None
        self.recovered = asyncio.Event()
        #: Set when the log refuses a write (its retries run only then), and when an event is folded
        #: (the 报时 loop waits for one while no session clock runs): no timer wakes an idle table for them.
        self._log_failing = asyncio.Event()
        self._folded = asyncio.Event()
        #: The snapshot being written in a worker thread (`save_snapshot_soon`), if one is.
        self._snapshotting: asyncio.Future[bool] | None = None
        self._wall_clock: Callable[[], float] = time.time  # until the fold says which timeline goes on
        self._behind_at_start = 0.0
        self._snapshot_seq = 0
        #: States of the last hour, one every `PAST_EVERY` events, for the broadcast feed (`state_at`).
        self._past: deque[TableState] = deque([self.state])
        #: The fold that fills `_past` back after a start (`state_before`), shared by the viewers joining meanwhile.
        self._refolding: asyncio.Future[None] | None = None
        if fold_now:
            # the snapshot and the events after it (a long log folded whole only after an upgrade)
            self._took(*snapshot.restore(store))
        else:
            self.recovering = {"done": 0, "total": 0}
        self.table: Any = None
        #: Extra health sources shown beside the link's (e.g. the camera): name -> () -> dict.
        self.health_sources: dict[str, Callable[[], dict[str, Any]]] = {}
        #: The camera watcher (`table_controller.camera.CameraWatcher`) when a camera is configured.
        self.camera: Any = None
        self._subscribers: set[asyncio.Queue[Event]] = set()
        #: queues dropped for falling behind, until their feed subscribes again (`dropped`)
        self._dropped: set[asyncio.Queue[Event]] = set()
        self._tasks: list[asyncio.Task[Any]] = []
        self._stopping = asyncio.Event()
        self._linked = asyncio.Event()
        self._resync_due = False  # the table's phase and faults to be taken once its replay is in
        self._announced: set[tuple[int, float]] = set()  # (session start, minutes) already announced
        #: Table commands awaiting their answer, by name (a command the driver will resend is not asked twice).
        self._sending: Counter[str] = Counter()
        self._starting = 0  # hand starts still sending their table commands
        self._followups: set[asyncio.Task[None]] = set()
        #: the seat buttons' recent reports, on this controller's clock: a chattering one is told once (`chatter.py`)
        self._buttons = chatter.ButtonWatch(config.buttons.rules())
        #: Why the log refused the last write (disk full, card gone read-only), None while it writes.
        self.log_error: str | None = None
        self._log_failed_at: float | None = None
        self._held: deque[_Held] = deque()  # in order; written before anything newer
        #: the group being folded, to be written in one transaction (`_grouped`), and the number its next event gets
        #: (None until its first event asks the log: a group of heartbeats alone runs nothing on it)
        self._group: list[_Written] | None = None
        self._group_seq: int | None = None
        self._showing = False  # a written group's events being shown (`_show`): an offer meanwhile waits its turn
        self._refused = False  # the log refused the last write: the next try writes one event
        self._steady = steady
        self._last_written: Event | None = None
        #: The table's (boot id, event number) of the newest table event logged or held.
        self._table_position: tuple[int, int] | None = store.table_cursor()

    def _took(self, state: TableState, folded: int) -> None:
        """Start from `state`, the log folded (`folded` events of it at this start)."""
        self.state, self.folded_at_start = state, folded
        self._folded.set()
        # (after the fold: a session or hand in play keeps the last run's timeline, `stamps.py`)
        given = self._given_clock
        self._wall_clock = given if given is not None else stamp_clock(self.store, self.state)
        #: How far behind the record's last stamp the clock started (said once by `check_clock`).
        self._behind_at_start = 0.0
        going_on = getattr(self._wall_clock, "not_before", None)
        if going_on is not None and self.state.last_at is not None:
            # a boot with an old saved time: the stamps go on from the record, so the session clock
            # and the turn timers neither gain the hour back nor run backwards
            self._behind_at_start = float(going_on(self.state.last_at))
            if self._behind_at_start:  # said as `behind_record_s`, not again as a drift
                self._drift_logged = float(self._wall_clock.drift())  # type: ignore[attr-defined]
        self._snapshot_seq = self.state.seq
        self._past = deque([self.state])
        self._refolding = None

    async def recover(self) -> None:
        """Fold the log in a worker thread (`snapshot.restore`, progress in `recovering`) while the
        loop serves the display; a long fold (an upgrade: 40,000 events took 3 s here, 15-25 s on a
        Pi, with the display down) is then kept as a snapshot at once, so a power cut before the
        next 1,000 events does not fold it all again."""
        if self.recovering is None:
            return

        def progress(done: int, total: int) -> None:
            self.recovering = {"done": done, "total": total}

        def fold_and_keep() -> tuple[TableState, int]:
            state, folded = snapshot.restore(self.store, progress)
            if folded >= snapshot.EVERY:
                snapshot.save(self.store, state)
            return state, folded

        state, folded = await asyncio.to_thread(fold_and_keep)
        self._took(state, folded)
        self.recovering = None
        self.recovered.set()

    def now(self) -> float:
        """The wall clock events are stamped with (the display's timers count against it)."""
        return self._wall_clock()

    def health_report(self) -> dict[str, Any]:
        """The link's counters (and other sources') as the display shows them; not logged, always fresh."""
        link: dict[str, Any] = {"up": bool(self.state.link.get("up")), "reason": self.state.link.get("reason", "")}
        table = self.table
        if table is not None and getattr(table, "health", None) is not None:
            h = table.health.as_dict()
            heard = h.get("last_heard")
            clock = getattr(table, "clock", None)
            link.update({
                "rtt_ms": round(h["rtt"] * 1000, 1) if h.get("rtt") is not None else None,
                "retransmits": h.get("retransmits", 0),
                "naks": h.get("naks", 0),
                "crc_errors": h.get("crc_errors", 0),
                "junk_bytes": h.get("junk_bytes", 0),
                "reconnects": h.get("reconnects", 0),
                "missed_events": getattr(table, "missed_events", 0),
                "heard_s_ago": round(clock.now() - heard, 1) if heard is not None and clock is not None else None,
            })
        report: dict[str, Any] = {"link": link, "log": self.log_health()}
        for name, source in self.health_sources.items():
            try:
                report[name] = source()
            except Exception as exc:  # a broken health source is itself news, not a crash
                report[name] = {"ok": False, "error": str(exc)}
        return report

    # -- the log ---------------------------------------------------------------------------------
    def accept(self, source: str, type: str, data: dict[str, Any]) -> Event:
        """Fold, append, publish: folded ahead (`_grouped`), shown only once it is on disk, so nothing shown is
        missing from the record.

        Raises `StoreError` when the log cannot be written (the action is then not done, the state as before);
        events held from the table or the camera meanwhile are written first, so the order stays. While the log
        is folded at start (`recover`) nothing is accepted: the fold has not seen it."""
        if self.recovering is not None:
            raise ActionError(RECOVERING_ZH, status=503)
        self._write_held()
        return self._append(source, type, data)

    def offer(self, source: str, type: str, data: dict[str, Any], *, table_cursor: tuple[int, int] | None = None,
              then: Callable[[], None] | None = None) -> Event | None:
        """An event nobody can be asked to repeat (from the table, the link, the camera): logged
        now, or, while the log cannot be written, held in order and written as soon as it can
        (every `LOG_RETRY_S`); `then` runs once it is in the log. None while held, and inside a group
        (`_grouped`: the link loop's) until the group is written."""
        held = _Held(source, type, data, table_cursor, then)
        if table_cursor is None and held in self._held:
            return None  # the same news again (a retained message, a status) while it waits
        self._held.append(held)
        if self._group is not None:
            self._write_held()  # folded now (what the link loop decides next reads it), written with the group
            return None
        if self._showing:
            return None  # a follow-up of an event being shown: written after the events before it
        try:
            self._write_held()
        except StoreError:
            return None
        return self._last_written

    def table_resume(self) -> tuple[int, int] | None:
        """Where the table's replay should start for this record (`drivers.table.open_table(resume=)`)."""
        return self._table_position

    def log_health(self) -> dict[str, Any]:
        """The log's own line on the health panel: it writes, or why not and how much waits, or
        how far the fold at start is (the display is up before the record is read)."""
        if self.recovering is not None:
            done, total = self.recovering["done"], self.recovering["total"]
            return {"ok": False, "waiting": 0, "recovering": dict(self.recovering),
                    "message": f"正在恢复记录：已读 {done} / {total} 条事件，请稍候",
                    "message_en": f"recovering the record: {done} of {total} events read, please wait"}
        if self.log_error is None:
            return {"ok": True, "message": "事件记录正常", "message_en": "event log writing", "waiting": 0}
        waiting = len(self._held)
        return {"ok": False, "waiting": waiting, "error": self.log_error,
                "message": f"事件记录无法写入（存储已满或只读？）：{waiting} 条牌桌/摄像头事件等待写入，"
                           "裁判操作暂不能执行",
                "message_en": f"the event log cannot be written (storage full or read-only?): {waiting} "
                              "table/camera events waiting, referee actions refused"}

    @contextlib.contextmanager
    def _grouped(self) -> Iterator[None]:
        """Events appended or offered inside are folded at once but written together, in one transaction, at
        the end (a group commit); then each is shown, journaled and followed up (`then`) in order, as the state
        it left. A chattering board's hundreds of events a second were a commit each, and the table's faults
        waited seconds behind them (bench/chatter.py). Nothing is shown before the whole group is on disk;
        when the write fails, the state goes back to before the group and the offered events are held again,
        in order (an accepted one is refused: `StoreError`). Nested, the outer group writes."""
        if self._group is not None:
            yield
            return
        before, self._group, self._group_seq = self.state, [], None
        try:
            yield
        finally:
            group, self._group = self._group, None
            if group:
                self._write_group(group, before)

    def _write_group(self, group: list[_Written], before: TableState) -> None:
        cursor = next((w.held.table_cursor for w in reversed(group)
                       if w.held is not None and w.held.table_cursor is not None), None)
        requests = {w.event.seq: w.request for w in group if w.request is not None}
        try:
            self.store.append_group([w.event for w in group], table_cursor=cursor, requests=requests)
        except StoreError as exc:
            self.state, self._refused = before, True
            self._held.extendleft(reversed([w.held for w in group if w.held is not None]))
            if self.log_error is None:
                self._log_failed_at = self.now()
                log.error("event log cannot be written", extra={"error": str(exc)})
            self.log_error = str(exc)
            self._log_failing.set()
            raise
        self._refused = False
        if any(w.event.type == "controller.log_restored" for w in group):
            self.log_error = None
        last, self._showing = self.state, True
        try:
            for w in group:
                self._show(w)
        finally:
            self.state, self._showing = last, False

    def _show(self, w: _Written) -> None:
        """An event of a group now on disk: the state as it left it kept, published, journaled, followed up."""
        if w.state is None:
            return  # its fold raised (said with the traceback when it did): in the log, not shown
        self.state = w.state
        ev = w.event
        self._folded.set()
        self._keep_past()
        if ev.seq - self._snapshot_seq >= snapshot.EVERY:
            self.save_snapshot_soon()
        for q in list(self._subscribers):
            try:
                q.put_nowait(ev)
            except asyncio.QueueFull:  # a stalled client drops out and catches up from the log (`dropped`)
                self._subscribers.discard(q)
                self._dropped.add(q)
        if chatter.muted(ev.type, ev.data, ev.seq, self.state.buttons):
            log.debug("event", extra=journal_fields(ev, self.state))  # counted on the notice; the log has it
        else:
            log.info("event", extra=journal_fields(ev, self.state))
        if w.held is not None:
            self._last_written = ev
            if w.held.then is not None:
                try:
                    w.held.then()
                except Exception:  # a follow-up's failure is its own news, never the event's
                    log.exception("follow-up of a held event failed")

    def _write_held(self, most: int | None = None) -> None:
        """Write the held events in order, `GROUP_MOST` to a transaction; then, after a failure, record that the
        log works again. Inside a group they are folded now (`most` of them, all for None) and written with it."""
        if self._group is None:
            while self._held or self.log_error is not None:
                with self._grouped():
                    self._write_held(GROUP_MOST)
            return
        # the link loop's group takes every event offered in it (the loop bounds it); the first try after a
        # refusal one (a card still full refuses it at once, and the rest are not folded for nothing)
        room = len(self._held) if most is None else most
        if self._refused:
            room = min(room, 1 - len(self._group))
        while self._held and room > 0:
            h = self._held.popleft()
            room -= 1
            self._append(h.source, h.type, h.data, h.table_cursor, held=h)
        if self.log_error is not None and not self._held \
                and not any(w.event.type == "controller.log_restored" for w in self._group):
            # the error stays set until the news is in the log: a refusal of it keeps the first failure's time
            since = self._log_failed_at
            self._append("controller", "controller.log_restored",
                         {"error": self.log_error, "failed_at": since,
                          "unwritable_s": round(self.now() - (since or self.now()), 1)})

    def _append(self, source: str, type: str, data: dict[str, Any],
                table_cursor: tuple[int, int] | None = None, held: _Held | None = None) -> Event:
        """One event into the group being written (`_grouped`; a group of its own outside one): numbered, its
        stamp and payment set, folded into `state`; shown once the group is on disk."""
        if self._group is None:
            with self._grouped():
                return self._append(source, type, data, table_cursor, held)
        at = self._wall_clock()
        if self._group_seq is None:  # the group's first event: the log's next number, asked once per group
            self._group_seq = self.store.next_seq()
        seq = self._group_seq
        if type.startswith("play."):
            data = self._with_payment(source, type, data, at, seq)
        ev = self.store.event(seq, source, type, data, at)
        request = REQUEST.get() if source in PEOPLE else None
        self._group_seq += 1
        written = _Written(ev, None, held, request)
        self._group.append(written)
        try:
            self.state = written.state = apply(self.state, ev)
        except Exception:
            log.exception("event not folded", extra={"seq": ev.seq, "type": ev.type})
            raise
        return ev

    def _with_payment(self, source: str, type: str, data: dict[str, Any], at: float, seq: int) -> dict[str, Any]:
        """A play's data as logged: with the on-the-spot payment (a kong's, 追牌's) the fold makes for it
        now, so a ruleset edited later changes no payment made (`settlements.of_play`); figures the
        camera or a request sent are never taken."""
        from table_controller import settlements

        data = {k: v for k, v in data.items() if k != settlements.KEY}
        shown = settlements.of_play(self.state, Event(seq, at, source, type, data))
        return data if shown is None else {**data, settlements.KEY: shown}

    def _keep_past(self) -> None:
        """Keep every `PAST_EVERY`-th state (folds share what they did not change, so each is small),
        and of those older than `PAST_WINDOW_S` only the newest."""
        if self.state.seq - self._past[-1].seq >= PAST_EVERY:
            self._past.append(self.state)
        horizon = self.now() - PAST_WINDOW_S
        while len(self._past) > 1 and (self._past[1].last_at or 0.0) <= horizon:
            self._past.popleft()

    def state_at(self, cutoff: float) -> tuple[TableState, list[Event]]:
        """The state as it was at time `cutoff` (every event stamped then or before), and the events
        logged since, for the broadcast feed S seconds behind. Folded from the newest kept state before
        `cutoff`: at most `PAST_EVERY` events, not the day's log (each viewer that joined a long
        session's feed held the display's loop for a whole fold: 65 ms at 1,500 events here)."""
        start = next((p for p in reversed(self._past) if (p.last_at or 0.0) <= cutoff), None)
        base = start if start is not None else TableState()
        after = self.store.since(base.seq)
        n = next((i for i, ev in enumerate(after) if ev.at > cutoff), len(after))
        return fold(after[:n], base), after[n:]

    async def state_before(self, cutoff: float) -> tuple[TableState, list[Event]]:
        """`state_at` for a viewer joining the broadcast feed. After a start the only state kept is the
        one started from; a feed whose delay reaches back before it folded the log from its first
        event, on the loop, for each viewer: just when every viewer's page reconnects at once (3 s at
        40,000 events here, 15-25 s on a Pi, times the viewers, the display and the table's link held).
        Now the log is folded once, in a worker thread, for all the viewers joining meanwhile, and the
        states of the last hour it passes are kept as the running ones are."""
        if (self._past[0].last_at or 0.0) > cutoff and self._past[0].seq > 0:
            if self._refolding is None or self._refolding.done():
                self._refolding = asyncio.ensure_future(self._refold_past())
            await asyncio.shield(self._refolding)
        return self.state_at(cutoff)

    async def _refold_past(self) -> None:
        """Fold the log up to the oldest kept state in a worker thread, keeping every `PAST_EVERY`-th
        state (and the empty one) as `_keep_past` would have; put them before the kept ones."""
        first = self._past[0]
        horizon = self.now() - PAST_WINDOW_S

        def build() -> list[TableState]:
            kept = [TableState()]
            state = kept[0]
            for ev in self.store.since(0):
                if ev.seq >= first.seq:
                    break
                state = apply(state, ev)
                if state.seq - kept[-1].seq >= PAST_EVERY:
                    kept.append(state)
            while len(kept) > 1 and (kept[1].last_at or 0.0) <= horizon:
                kept.pop(0)
            return kept

        kept = await asyncio.to_thread(build)
        if self._past and self._past[0] is first:  # (not started again from another state meanwhile)
            self._past.extendleft(reversed(kept))

    def subscribe(self) -> asyncio.Queue[Event]:
        q: asyncio.Queue[Event] = asyncio.Queue(maxsize=1000)
        self._subscribers.add(q)
        return q

    def unsubscribe(self, q: asyncio.Queue[Event]) -> None:
        self._subscribers.discard(q)
        self._dropped.discard(q)

    def dropped(self, q: asyncio.Queue[Event]) -> bool:
        """Whether this queue was dropped for falling `maxsize` events behind: its feed, once it has sent
        what the queue holds, must subscribe again and read the rest from the log."""
        return q in self._dropped

    # -- life cycle ------------------------------------------------------------------------------
    async def start(self) -> None:
        cfg = self.config
        configured = {
            "table_name": cfg.table.name,
            "ruleset": cfg.rules.ruleset,
            "players": {str(p.position): p.name for p in cfg.players},
            "player_ids": {str(p.position): p.id for p in cfg.players if p.id},
        }
        st = self.state
        if (st.table_name, st.ruleset, {str(k): v for k, v in st.players.items()},
                {str(k): v for k, v in st.player_ids.items()}) != (
            configured["table_name"], configured["ruleset"], configured["players"], configured["player_ids"]
        ):
            self.offer("controller", "controller.configured", configured)  # a full card must not stop the start
        self._tasks.append(asyncio.create_task(self._link_loop(cfg.table.link), name="table-link"))
        try:
            self.check_clock()
        except StoreError:
            pass  # the health panel says why; checked again by the clock loop
        self._tasks.append(asyncio.create_task(self._every(CLOCK_CHECK_S, self.check_clock), name="clock-watch"))
        self._tasks.append(asyncio.create_task(self._announce_loop(), name="session-announce"))
        self._tasks.append(asyncio.create_task(self._retry_loop(), name="log-retry"))

    async def _retry_loop(self) -> None:
        """`_retry_log` every `LOG_RETRY_S` while the log refuses writes, and not at all while it writes
        (before, it was woken every second of the day to find nothing held)."""
        while not self._stopping.is_set():
            await self._log_failing.wait()
            await asyncio.sleep(LOG_RETRY_S)
            try:
                self._retry_log()
            except StoreError:
                continue
            if not self._held and self.log_error is None:
                self._log_failing.clear()

    def _clock_runs(self) -> bool:
        """Whether a session clock runs (not paused, not ended): only then can time alone bring a 报时."""
        from table_controller.referee import session
        from table_controller.timers import session_status

        clock = session_status(session(self.state.actions), self.now())
        return clock is not None and not clock.get("ended_at") and clock["level"] != "paused"

    async def _announce_loop(self) -> None:
        """`announce_time` every `ANNOUNCE_CHECK_S` while a session clock runs; while none does, after
        each event folded (only an event starts, resumes or restarts one) instead of every second."""
        while not self._stopping.is_set():
            if self._clock_runs():
                await asyncio.sleep(ANNOUNCE_CHECK_S)
            else:
                self._folded.clear()
                await self._folded.wait()
            try:
                self.announce_time()
            except StoreError:
                continue

    def _retry_log(self) -> None:
        """While the log refuses writes, offer it the held events (and the news that it writes
        again): freeing space on the card is all the operator has to do."""
        if self._held or self.log_error is not None:
            self._write_held()

    def announce_time(self) -> Event | None:
        """报时: once the running session clock reaches one of its warnings (MCR: 15 and 5 minutes
        before the end, "比赛结束前15分钟，报时提醒") or runs out, say so in the log once per session
        start, and sound the table's buzzer where it has one (a long beep for a warning, three
        short ones at the end), so the players hear it without looking at a screen."""
        from table_controller.referee import session
        from table_controller.timers import session_status

        clock = session_status(session(self.state.actions), self.now())
        if clock is None or clock.get("ended_at") or clock["level"] == "paused":
            return None
        at = 0 if clock["remaining_s"] <= 0 else clock["warning_min"]
        if at is None:
            return None
        key = (clock["seq"], at)
        if key in self._announced:
            return None
        if any(e.type == "controller.session_alert" and e.data.get("session_seq") == clock["seq"]
               and e.data.get("minutes") == at for e in self.store.since(clock["seq"])):
            self._announced.add(key)
            return None  # announced before a restart
        left = max(0, math.ceil(clock["remaining_s"] / 60))  # a short session may start inside a warning
        ev = self.accept("controller", "controller.session_alert", {"minutes": at, "left_min": left,
                                                                     "session_seq": clock["seq"]})
        self._announced.add(key)  # only once it is in the log: a log that refused it is asked again
        if self.table is not None and getattr(getattr(getattr(self.table, "info", None), "capabilities", None),
                                              "buzzer", False):
            self._follow(self._beep([300, 300, 300] if at == 0 else [800]), "beep")
        return ev

    async def _beep(self, lengths_ms: list[int]) -> None:
        for ms in lengths_ms:
            await self._command("buzzer", ms)
            await asyncio.sleep(ms / 1000 + 0.2)

    def check_clock(self) -> Event | None:
        """Record it when the system clock was stepped away from the stamps (NTP's first sync on a
        Pi without a real-time clock), or when the stamps would run behind the record's last
        event (a clock set back while the service was down). The stamps themselves stay steady."""
        drift = getattr(self._wall_clock, "drift", None)
        now = self._wall_clock()
        last = self.state.last_at
        if self._behind_at_start > CLOCK_STEP_S:
            ev = self.accept("controller", "controller.clock_step",
                             {"behind_record_s": round(self._behind_at_start, 1), "from_record": True})
            self._behind_at_start = 0.0
            return ev
        if last is not None and now < last - CLOCK_STEP_S:
            return self.accept("controller", "controller.clock_step", {"behind_record_s": round(last - now, 1)})
        if drift is None:
            return None
        d = float(drift())
        if abs(d - self._drift_logged) < CLOCK_STEP_S:
            return None
        ev = self.accept("controller", "controller.clock_step", {"drift_s": round(d, 1)})
        self._drift_logged = d
        return ev

    async def _every(self, period_s: float, step: Callable[[], object]) -> None:
        """Run `step` every `period_s` until the service stops. A log that refuses writes only
        delays it (the health panel says why): a clock step is logged once it writes."""
        while not self._stopping.is_set():
            await asyncio.sleep(period_s)
            try:
                step()
            except StoreError:
                continue

    def save_snapshot(self) -> None:
        """Keep the folded state beside the log (`snapshot.py`): the next start folds only what follows."""
        if snapshot.save(self.store, self.state):
            self._snapshot_seq = self.state.seq

    def save_snapshot_soon(self) -> None:
        """`save_snapshot` in a worker thread: the SQLite write and its fsync (a 400 KB blob at 400
        hands; an SD card's sync) no longer hold the loop. States are never changed once made
        (`state.apply` copies what it changes), so the thread pickles the one it was given while the
        loop folds newer ones. One at a time; without a running loop (a script), at once."""
        if self._snapshotting is not None and not self._snapshotting.done():
            return  # the next event past `EVERY` tries again
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            self.save_snapshot()
            return
        state = self.state
        self._snapshot_seq = state.seq  # not asked again for the next `EVERY` events
        self._snapshotting = loop.run_in_executor(None, snapshot.save, self.store, state)

    async def stop(self) -> None:
        """Its tasks ended, the last snapshot kept, the table closed; done whole though the caller be cancelled
        meanwhile, whose cancellation is then raised (`supervise.finish`)."""
        await finish(self._stop())

    async def _stop(self) -> None:
        self._stopping.set()
        # the steps beside the link too (报时's beeps, the walls for a phase): their table is closed below
        await end_tasks([*self._tasks, *self._followups])
        self._tasks.clear()
        if self._snapshotting is not None:  # written before the last one, never over it
            await asyncio.wait([self._snapshotting])
        # (with events held back, the fold is behind the table: the log decides next time; while
        # recovering, the state is not the log's yet)
        if not self._held and self.recovering is None:
            self.save_snapshot()
        if self.table is not None:
            try:
                await self.table.close()
            except Exception:  # closing a dead link must not stop shutdown
                log.debug("close failed", exc_info=True)
            self.table = None

    @property
    def tasks(self) -> tuple[asyncio.Task[Any], ...]:
        """The controller's long-running tasks (`start`), for the service's supervisor (`supervise.py`)."""
        return tuple(self._tasks)

    async def wait_linked(self, timeout: float = 10.0) -> None:
        await asyncio.wait_for(self._linked.wait(), timeout)

    async def _link_loop(self, url: str) -> None:
        """Keep the table linked: connect, identify, relay its events; reconnect with backoff."""
        attempt = 0
        while not self._stopping.is_set():
            self._link_turns += 1
            try:
                self.table = await self._open_table(url)
            except Exception as exc:  # every transport error means the same: not linked yet
                self._link_turns += 1
                if self.state.link.get("up") or attempt == 0:
                    self.offer("link", "link.down", {"reason": f"无法连接牌桌：{exc}"})
                delay = RECONNECT_BACKOFF[min(attempt, len(RECONNECT_BACKOFF) - 1)]
                attempt += 1
                await asyncio.sleep(delay)
                continue
            up_at = self._steady()
            self.offer("link", "link.up", _identity(self.table))
            self._resync_due = True
            self._resync_when_replayed()
            self._linked.set()
            try:
                async for ev in self.table.events():
                    self._take_table_events(ev)
                    self._resync_when_replayed()
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                log.warning("table link lost", extra={"error": str(exc)})
                reason = str(exc) or type(exc).__name__
            else:
                reason = "牌桌关闭了连接"
            self._linked.clear()
            self.offer("link", "link.down", {"reason": reason})
            try:
                await self.table.close()
            except Exception:
                log.debug("close after link loss failed", exc_info=True)
            self.table = None
            if self._steady() - up_at >= STEADY_LINK_S:
                attempt = 0  # a link that held: linked again at once
                continue
            await asyncio.sleep(RECONNECT_BACKOFF[min(attempt, len(RECONNECT_BACKOFF) - 1)])
            attempt += 1

    def _take_table_events(self, first: Any) -> None:
        """`first` and the table's events waiting behind it, in order, written as one group (`_grouped`): at most
        `GROUP_MOST`, and no more once `GROUP_S` has gone on folding them. Only those already waiting are taken:
        a lone event is written at once, never held for company. A log that refuses the write holds them."""
        taken, began = 0, self._steady()
        try:
            with self._grouped():
                ev = first
                while ev is not None:
                    self._link_turns += 1
                    self._on_table_event(ev)
                    taken += 1
                    if taken >= GROUP_MOST or self._steady() - began >= GROUP_S:
                        break
                    ev = self.table.next_waiting()
            if self._held:  # offered past the group's room (the first try after a refusal takes one)
                self._write_held()
        except StoreError:
            pass  # held, in order: written by the log's retry (`_retry_loop`) or the next event

    def link_stuck(self) -> tuple[str, str] | None:
        """Why the table link no longer does its work though its task runs (Chinese, English), or None; asked
        before each watchdog ping (`supervise.Supervisor.check`). Stuck: the driver neither heard the table (a
        frame, a heartbeat, a keep-alive's echo; bytes that are no frame too) nor tried to reach it again for
        `supervise.STUCK_S`, or the link loop took none of the events waiting for it (or did not finish trying
        to connect) as long. A table unplugged or switched off is waited for, not stuck: the driver tries again
        every few seconds (STATUS= says 等待牌桌), and the service is not restarted over and over for it."""
        if self._stopping.is_set() or self.recovering is not None:
            return None
        table = self.table
        waiting = table.events_waiting() if table is not None else 0
        runner = getattr(table, "link_task", None) if table is not None else None
        looping = next((t for t in self._tasks if t.get_name() == "table-link"), None)
        if table is None or waiting:
            quiet = self._taking.stalled(self._link_turns)
            if quiet is not None:
                at = held_at(looping)
                where_zh, where_en = (f"，停在 {at}", f", held at {at}") if at else ("", "")
                if table is None:
                    return (f"卡住：{quiet:.0f} 秒未完成连接牌桌{where_zh}",
                            f"stuck: trying to connect the table for {quiet:.0f} s{where_en}")
                return (f"卡住：{waiting} 条牌桌事件 {quiet:.0f} 秒未被取走{where_zh}",
                        f"stuck: {waiting} table events not taken for {quiet:.0f} s{where_en}")
        else:
            self._taking.idle()
        health = getattr(table, "health", None)
        if health is None:
            self._driving.idle()
            return None
        quiet = self._driving.stalled((health.frames_received, health.frames_sent, health.crc_errors,
                                       health.junk_bytes, health.reconnects, health.resets))
        if quiet is None:
            return None
        at = held_at(runner)
        where_zh, where_en = (f"，停在 {at}", f", held at {at}") if at else ("", "")
        return (f"卡住：牌桌驱动 {quiet:.0f} 秒既未收到牌桌的帧，也未重新连接{where_zh}",
                f"stuck: the table driver neither heard the table nor tried to reach it again for {quiet:.0f} s"
                f"{where_en}")

    def _resync_when_replayed(self) -> None:
        """Resync once the events the table replays after a (re)link are all taken in, so that the
        log does not clear a fault its replay is about to clear."""
        waiting = getattr(self.table, "events_waiting", None)
        if self._resync_due and not self._held and (waiting is None or not waiting()):
            # (while the log holds events back, its fold is behind the table: compare later)
            self._resync_due = False
            self._resync_with_table()

    def _resync_with_table(self) -> None:
        """The log's picture of the table against the table's own, after a (re)link: this service
        restarted mid-hand (a power cut, a crash) while the table rebooted, or a fault cleared
        while nobody listened. Each difference is logged as the table's event (`resync`), so the
        fold follows the table: a stale "playing" from the old log would leave the next hand
        waiting for walls the table will never raise."""
        table = self.table
        phase = getattr(table, "phase", None)
        if phase and phase != self.state.phase:
            self.offer("table", "table.phase", {"phase": phase, "resync": True})
        faults = getattr(table, "faults", None)
        if isinstance(faults, dict):
            live = {str(code): fields for code, fields in faults.items()}
            for code, fields in list(self.state.faults.items()):
                if code not in live:
                    self.offer("table", "table.fault_cleared", {**fields, "resync": True})
            for code, fields in live.items():
                if code not in self.state.faults:
                    self.offer("table", "table.fault_raised", {**fields, "resync": True})
        self._walls_still_wanted(phase)

    def _walls_still_wanted(self, phase: str | None) -> None:
        """After a (re)link, a hand still waiting for its walls gets them asked for again: a set standing
        ready whose `raise_walls` was lost with the cable (its answer timed out), or a board back in idle
        that restarted while building or raising (its set lost with its memory). The walls were asked for
        only as a phase was reported changing, and the hand waited for good. A command the driver still
        holds is left to it (resent after the reconnect, run once by the table's request cache), and a
        hand start still sending its own is left to finish."""
        if phase not in ("ready", "idle"):
            return
        self._follow(self._on_phase(phase), "walls-again")

    async def _shuffle(self) -> None:
        """Set the tile count (a table that can say its counts) and shuffle and build the set."""
        from table_controller.rules.ruleset import in_use

        count = self.config.table.tile_count or in_use(self.state.ruleset).tiles
        caps = getattr(getattr(self.table, "info", None), "capabilities", None)
        if getattr(caps, "tile_counts", ()):  # a table that cannot say its counts (remote-control) cannot be told one
            await self._command("set_tile_count", count)
        await self._command("start_shuffle")

    def _on_table_event(self, ev: Any) -> None:
        etype = ev.type
        fields = dict(ev.fields)
        self._buttons_quiet()  # every event the board sends, its heartbeat each second included, tells the time
        if etype in TRANSIENT:
            return  # the driver's link counters already note when the table was last heard
        if etype == "link_up":
            # The driver reconnected on its own (unplug/replug): identity is unchanged.
            if fields.get("reconnects", 0) or not self.state.link.get("up"):
                self.offer("link", "link.restored", fields)
            self._resync_due = True  # once the replay that follows is in
            return
        if etype == "link_down":
            self.offer("link", "link.down", fields)
            return
        cursor = self._table_cursor(ev)
        if cursor is not None:  # (the driver drops what it was told the record holds: `table_resume`)
            self._table_position = cursor
        if etype == "hello":
            return  # the identity is recorded by link.up
        if etype in ("dice", "button") and self.state.hand is not None and fields.get("seat") in SEATS:
            # The table names its physical sides; the rules speak of winds of this hand. A side the board
            # left out (0xFF, protocol.md §7 `seat`) has no wind: logged as it came, the throw not counted
            # (it raised here, and the link was dropped and the event skipped at the reconnect)
            fields["wind"] = wind_of_side(fields["seat"], self.state.hand["dealer_position"])
        then: Callable[[], None] | None = None
        if etype == "phase":
            def then() -> None:
                self._follow(self._on_phase(fields.get("phase", "")), "phase")
        elif etype == "dice":
            def then() -> None:
                follow = _next_throw(self.state.hand)  # as this throw left the hand, not as it is later
                # a throw before the walls are up asks for none: the dealer throws once they are (a demo's
                # autopilot then), where a throw rolled now would be set aside again, and again
                if follow is not None and walls_down(self.state) is None:
                    self._follow(self._after_throw(*follow), "after-throw")
        elif etype == "fault_cleared":
            def then() -> None:  # the step a fault refused goes on (the walls of a hand waiting for them)
                self._follow(self._on_phase(self.state.phase, after_fault=True), "after-fault")
        self.offer("table", "table." + etype, fields, table_cursor=cursor, then=then)
        # (not while a relink's replay comes in: presses made seconds apart arrive within a millisecond)
        if etype == "button" and not self._resync_due and (key := chatter.key_of(fields)) is not None:
            presses = self._buttons.press(key, self.now(), key in self.state.buttons)
            if presses is not None:
                self.offer("controller", "controller.button_chatter",
                           {"key": key, "seat": fields["seat"], "button": fields["button"], "presses": presses,
                            "window_s": self._buttons.rules.window_s})

    def _buttons_quiet(self) -> None:
        """A chattering button not reported for `[buttons] quiet_s`: its notice is cleared, with the count of
        its reports (a notice from before a restart is timed from the first event the board sends after it)."""
        if not self.state.buttons:
            return
        for key in self._buttons.quiet(self.now(), list(self.state.buttons)):
            held = self.state.buttons[key]
            self.offer("controller", "controller.button_chatter_ended",
                       {"key": key, "seat": held.get("seat"), "button": held.get("button"),
                        "presses": held.get("presses", 0), "quiet_s": self._buttons.rules.quiet_s})

    def _table_cursor(self, ev: Any) -> tuple[int, int] | None:
        """(boot id, event number) of a numbered table event, None for a table that numbers none."""
        boot = getattr(getattr(self.table, "info", None), "boot_id", 0)
        number = getattr(ev, "seq", 0)
        return (int(boot), int(number)) if boot and isinstance(number, int) and number > 0 else None

    async def _on_phase(self, phase: str, after_fault: bool = False) -> None:
        """The built set is raised as soon as it is ready for a hand that has started (and not ended: a
        hand ended before its dice has no deal either, and the next set waits for the next hand); a table
        back in `idle` (its reset, 按复位, dropped the set) shuffles and builds again for that hand.
        `after_fault`: a fault cleared; the step it refused is taken again unless another fault still
        blocks it (a missing tile put back: the walls waited under the table for good before)."""
        hand = self.state.hand
        if hand is None or hand.get("deal") is not None or hand.get("ended") or self.table is None:
            return
        # a command still in flight (a hand start's own, one the driver resends after a relink, run once by
        # the table's request cache) is not sent again: the phase, the relink (`_walls_still_wanted`) and a
        # fault's clearing may each ask for the same walls
        if phase == "ready" and not self._sending["raise_walls"] and not (after_fault and self._blocked("lift")):
            await self._command("raise_walls")
        elif (phase == "idle" and not self._starting and not (self._sending["start_shuffle"] or self._sending["set_tile_count"])
              and not (after_fault and self._blocked("build"))):
            await self._shuffle()

    def _follow(self, step: Coroutine[Any, Any, None], name: str) -> None:
        """Run a table step (the walls for a phase, the seat lights after a throw, 报时's beeps) beside the link
        loop: held until done (a task nobody holds may be collected mid-command; the phase's, the throw's and the
        fault's were not), and its exception logged with its traceback as it ends (an ActionError once the link
        is gone mid-step, a bug), never left to the garbage collector's "Task exception was never retrieved"."""
        task = asyncio.get_running_loop().create_task(step, name=name)
        self._followups.add(task)
        task.add_done_callback(self._followed)

    def _followed(self, task: asyncio.Task[None]) -> None:
        self._followups.discard(task)
        if task.cancelled() or (exc := task.exception()) is None:
            return
        log.error(f"牌桌步骤出错：{task.get_name()} / a table step failed: {type(exc).__name__}: {exc}",
                  exc_info=(type(exc), exc, exc.__traceback__), extra={"step": task.get_name()})

    def _blocked(self, part: str) -> bool:
        """Whether a fault the log holds stops `part` of the machine ("build", "lift", "dice": protocol.md §9)."""
        return any(part in kind.blocks for code in self.state.faults
                   if str(code).isdigit() and (kind := BY_CODE.get(int(code))) is not None)

    async def _after_throw(self, throw: tuple[int, int, int], thrower: str) -> None:
        """Light the seat that throws next (mcr's second throw); the sim's autopilot presses it. Only
        while the hand still waits for it (`throw`, `thrower`: `_next_throw` when the throw was folded):
        read later, a 定庄 throw followed at once by a hand start rolled that hand's dice while its
        walls were still building, and the demo stopped the hand (中止) for want of a wall."""
        hand = self.state.hand
        if hand is None or _next_throw(hand) != (throw, thrower) or self.table is None:
            return
        side = side_of_wind(thrower, hand["dealer_position"])
        caps = getattr(getattr(self.table, "info", None), "capabilities", None)
        if getattr(caps, "seat_lights", False):
            await self._command("set_seat_lights", dealer=side_of_wind("E", hand["dealer_position"]), turn=side)
        if self.config.demo.autoplay:
            await self._command("roll_dice", side)

    async def _command(self, name: str, *args: Any, **kwargs: Any) -> Any:
        """Send one command; a failure is recorded and shown, never raised into the event loop."""
        if self.table is None:
            raise ActionError("牌桌未连接")
        self._sending[name] += 1
        try:
            return await getattr(self.table, name)(*args, **kwargs)
        except Exception as exc:
            self.offer("controller", "controller.rejected", {"action": name, "reason": self._refusal(name, exc)})
            return None
        finally:
            self._sending[name] -= 1

    def _refusal(self, name: str, exc: Exception) -> str:
        """A table command that failed, in the operator's words first: which step, the faults in the way
        and what happens next (it said "lower_walls: lower_walls refused by the table: …" alone)."""
        if getattr(exc, "code", None) != "fault_active":
            return command_failed(name, exc)  # the link lost it, the board refused it for another reason
        step = COMMAND_NAMES.get(name, (name, name))[0]
        names = "、".join(str(f.get("name_zh") or f.get("code")) for f in self.state.faults.values())
        hint = FAULT_HINT_ZH.get(name, "")
        said = str(exc)  # the driver's words, the command named once
        return (f"牌桌故障{f'（{names}）' if names else ''}，未能{step}" + (f"：{hint}" if hint else "")
                + f" / {said if said.startswith(name) else f'{name}: {said}'}")

    # -- actions ---------------------------------------------------------------------------------
    async def start_hand(self, by: str) -> Event:
        """Start the next hand: record it, set the tile count, shuffle and build."""
        from table_controller.referee import win_waiting

        # a win read waiting for its confirmation: the hand in play would be stopped as 中止 and the read
        # dropped, a hand ended as a win would stay a 0-point 和牌（待确认） row for good
        waiting = win_waiting(self.state, "开始新一盘", "start the next hand")
        if waiting:
            raise ActionError(waiting)
        self._time_left()
        prev = self.state.hand
        if prev is None or prev.get("ended"):
            self._coming()  # the session's hands all played: said before anything else
        if self.table is None or not self.state.link.get("up"):
            raise ActionError("牌桌未连接，无法开始新一盘")
        from table_controller.rules.ruleset import in_use

        rs = in_use(self.state.ruleset)
        _check_tile_count(self.table, self.config.table.tile_count or rs.tiles)
        hand_no = self.state.hands_played + 1 if prev is None or prev.get("ended") else prev["hand_no"] + 1
        if prev is not None and not prev.get("ended"):
            # a hand its confirmed wins have ended is a win, as 结束本盘 records it; only one still in play is
            # stopped short (中止, dealt again by the same dealer). Before, a win confirmed and 开始新一盘 pressed
            # went down as 中止: the sheet counted the win, and the same dealer dealt again (MCR's 16 hands went 17)
            from table_controller.referee import ended_by_wins

            won = ended_by_wins(self.state.ruleset, self.state.actions, prev["hand_no"])
            self.accept("operator", "operator.hand_end", {"hand_no": prev["hand_no"], "by": by,
                                                          "result": "win" if won else "abandoned"})
            hand_no = self.state.hands_played + 1
        places = self._coming()
        dealer_position, prevalent, double = places.dealer_position, places.prevalent, places.double
        ev = self.accept("operator", "operator.hand_start", {
            "hand_no": hand_no, "by": by, "ruleset": rs.id,
            "dealer_position": dealer_position, "prevalent_wind": prevalent,
            "wall_lengths": _wall_lengths(self.table, self.config.table.tile_count or rs.tiles, dealer_position),
            # wind -> the player holding it (抽签号位: moved by 换位); the chair is dealer_position's
            "seats": places.seats(),
            **({"seating": {str(c): p for c, p in enumerate(places.seating, start=1)}}
               if places.seating != (1, 2, 3, 4) else {}),
            "table_dice": _table_dice(self.table),
            **({"double": True} if double else {}),
            **({"honba": places.honba} if places.honba else {}),  # 本场 (riichi): the scorer's, on each win read
        })
        caps = getattr(getattr(self.table, "info", None), "capabilities", None)
        self._starting += 1
        try:
            if getattr(caps, "seat_lights", False):
                await self._command("set_seat_lights", dealer=side_of_wind("E", dealer_position),
                                    prevalent=prevalent, turn=side_of_wind("E", dealer_position))
            phase = self.state.phase
            if phase in ("walls_raised", "playing") and not self._sending["lower_walls"]:
                # the last hand's walls are still up (a hand abandoned now, one whose lower_walls was lost
                # with the cable, or whose end's lowering a fault refused: the lid left open): the table takes
                # them in first, as at a hand's end, and the next set goes up when it reports "ready" (see
                # _on_phase); they were left up and the new hand never got walls
                await self._command("lower_walls")
            elif phase == "ready":  # the next set was built under the table during the last hand
                await self._command("raise_walls")
            elif phase == "idle":
                await self._shuffle()
            # building / raising: the walls go up when the table reports "ready" (see _on_phase)
        finally:
            self._starting -= 1
        return ev

    def _time_left(self) -> None:
        """A hand starts only while the session clock has time left: the hand in play when time
        runs out is the session's last (seed 000 "以尚在进行的一盘比赛结束为结束时间"; seed 004 第五条
        "满足规定时间后的最后一次成牌或荒牌，比赛结束"). Time the referee paused is added back."""
        from table_controller.referee import session
        from table_controller.timers import session_status

        clock = session_status(session(self.state.actions), self.now())
        if clock is not None and not clock.get("ended_at") and clock["remaining_s"] <= 0:
            raise ActionError("比赛时间到：时间到时进行中的一盘已是最后一盘，不再开始新一盘；请裁判结束比赛 / time is up: "
                              "the hand in play when it ran out was the last; the referee ends the session")

    def _coming(self) -> Any:
        """The coming hand's places (`seating.for_state`); ActionError while a 定庄 is unfinished, or once
        the session's hands are played."""
        from table_controller.seating import for_state, pending

        if not self.state.hands and (why := pending(self.state.first_dealer)):
            raise ActionError(why)
        places = for_state(self.state)
        if places.over:
            if places.ended_by_referee:
                raise ActionError("裁判已结束本局比赛：请裁判在成绩表页开始新一轮 / the referee ended the session: "
                                  "the referee starts the next round")
            if places.busted:  # 飛び ([match] bust, riichi)
                who = "、".join(f"{self.state.players.get(p) or f'{p}号位'}（{held}点）" for p, held in places.busted)
                chairs = ", ".join(f"player {p} ({held})" for p, held in places.busted)
                raise ActionError(f"{who}点数为负，被击飞，比赛结束：请裁判在成绩表页开始新一轮 / {chairs} below zero "
                                  "(bust): the session is over; the referee starts the next round")
            raise ActionError(f"本局 {places.hands_per_session or len(self.state.hands)} 盘已打完，比赛结束：请裁判在成绩表页"
                              f"开始新一轮 / the session's hands are played: the referee starts the next round")
        return places

    async def end_hand(self, by: str, result: str = "draw", abortive: str | None = None, seat: str | None = None,
                       tiles: list[str] | None = None) -> Event:
        """End the hand in play: 荒牌, 和牌, 中止, or (riichi) an abortive draw (`abortive`: its kind,
        `seat`: who declared 九种九牌, `tiles`: the hand shown), checked against the record first."""
        from table_controller.referee import confirmed_wins, ended_unconfirmed, redeal_due

        hand = self.state.hand
        again = ended_unconfirmed(self.state)  # ended as a win no confirmed win stands for: ended otherwise now
        redeal = redeal_due(self.state)  # 荒牌 with a 错和 found at it: played again (中止)
        if redeal is not None and not again:
            if result != "abandoned":
                raise ActionError(f"第 {hand['hand_no']} 盘已结束，已判{redeal['name_zh']}（#{redeal['seq']}）：只能改记为中止（重打）"
                                  f" / the hand has ended with {redeal['name_en']} ruled: it can only be recorded again "
                                  "as abandoned (dealt again)")
            again = True
        if hand is None or (hand.get("ended") and not again):
            raise ActionError("没有进行中的牌局")
        if result == "win" and not confirmed_wins(self.state.actions, hand["hand_no"]):
            raise ActionError(f"第 {hand['hand_no']} 盘没有已确认的和牌，不能记为和牌：请先在和牌页确认和牌，"
                              "无人和牌则记为荒牌 / no confirmed win this hand: confirm the win first, or end it as a draw")
        if again and result not in ("draw", "abandoned"):
            raise ActionError(f"第 {hand['hand_no']} 盘已结束，只能改记为荒牌或中止 / the hand has ended: "
                              "it can only be recorded again as a draw or abandoned")
        data: dict[str, Any] = {"hand_no": hand["hand_no"], "by": by, "result": result}
        if result == "abortive":
            data.update(_abortive(self.state, abortive, seat, tiles))
        ev = self.accept("operator", "operator.hand_end", data)
        if self.table is not None and not again:  # the walls came down when it first ended
            await self._command("lower_walls")
        return ev

    def referee_action(self, type: str, data: dict[str, Any], by: str, client: str | None = None,
                       source: str = "referee", by_name: str = "") -> Event:
        """Log a referee action (who, by name when the referee has a credential of their own,
        and from where) after checking the fold would accept it."""
        from table_controller.penalties import PenaltyError
        from table_controller.referee import CAMERA_RULINGS, RefereeError, validate

        from table_controller import settlements
        from table_controller.corrections import TYPE as CORRECTION

        from table_controller import stale

        payload = {**data, "by": by, "client": client}
        seen = payload.pop("seen", None)  # the page's view (`stale`): checked, not logged
        mine = frozenset(m for m in payload.pop("mine", None) or () if isinstance(m, int))  # its own since
        why = (stale.changed_since(self.state, type, payload, int(seen), mine) if isinstance(seen, int) else None) or (
            stale.undo_refusal(self.state, payload.get("target")) if type == "referee.undo" else
            stale.ruled_already(self.state, payload.get("appeal")) if type == "referee.appeal_ruling" else
            stale.camera_ruled(self.state, payload.get("seq")) if type in CAMERA_RULINGS else
            stale.ended_already(self.state) if type == "referee.session_end" else None)
        if why:
            raise ActionError(why)
        payload.pop(settlements.KEY, None)  # a win's figures are the scorer's, as shown, never a caller's
        payload.pop(settlements.AGAIN, None)
        if by_name:
            payload["by_name"] = by_name
        at = self._wall_clock()
        if type == "referee.win_confirm":  # what the referee confirms is the record (`settlements`)
            shown = settlements.of_read(self.state)
        else:  # a 查叫's or a penalty's figures as the fold rules them now (None for other actions)
            shown = settlements.of_action(self.state, type, payload, at)
        if shown is not None:
            payload[settlements.KEY] = shown
        try:
            validate(self.state, type, payload, at=at)  # the time it is logged with
        except PenaltyError as exc:
            raise ActionError(str(exc), status=422) from None
        except RefereeError as exc:
            raise ActionError(str(exc)) from None
        if type == CORRECTION:  # the hand's confirmed wins scored again on the plays as corrected, and logged
            again = settlements.again(self.state, Event(self.state.seq + 1, at, source, type, payload))
            if again:
                payload[settlements.AGAIN] = again
        return self.accept(source, type, payload)

    def record_dice(self, seat: str, dice: list[int], by: str, source: str = "operator", seen: int | None = None,
                    mine: list[int] | None = None) -> Event:
        """Key a throw of the dice by hand: for a table whose dice unit reports nothing (the
        remote-control dialect), throws fewer dice than the ruleset's, or is out of order. The
        throw counts as if the table had reported it, in the ruleset's order of throwers. Before
        the round's first hand it is a 定庄 throw, `seat` naming the chair (E = 1号位 … N = 4号位).
        `seen`: the page's view (`mine`: its own actions since); a throw logged after it, the board's or
        another page's, refuses this one, naming it: the operator keyed the throw the board had just
        reported, and under 国标 a dealer's 5 or 9 took the keyed one as the dealer's second throw."""
        from table_controller.rules.ruleset import in_use

        if seen is not None and (why := self._thrown_since(seen, set(mine or ()))):
            raise ActionError(why)
        hand = self.state.hand
        if hand is None and not self.state.hands:
            # before the round's first hand: 定庄, by chair (chair 1 is E until a dealer is chosen)
            if seat not in SEATS:
                raise ActionError(f"未知座位 {seat!r} / unknown seat (E, S, W or N)", status=422)
            if len(dice) not in (2, 3) or not all(isinstance(x, int) and 1 <= x <= 6 for x in dice):
                raise ActionError(f"定庄掷两颗骰子（三颗骰的牌桌：三颗），每颗 1 至 6 点 / two dice (three on a "
                                  f"three-dice table) of 1 to 6, got {dice}", status=422)
            from table_controller.seating import first_dealer_throw, method_of

            trial = first_dealer_throw(self.state.first_dealer, method_of(self.state.ruleset), SEATS.index(seat) + 1, dice)
            if trial["throws"][-1].get("ignored"):  # out of turn, or the dealer is chosen: said, not logged
                raise ActionError(trial["throws"][-1]["ignored"])
            return self.accept(source, "operator.dice", {"seat": seat, "dice": list(dice), "by": by})
        if hand is None or hand.get("ended"):
            raise ActionError("没有进行中的牌局 / no hand in play")
        if hand.get("deal") is not None:
            raise ActionError("本盘已开门，骰子已定 / the dice are thrown: the break is set")
        if (refused := dice_refusal(self.state)) is not None:
            # as the table's own report now would not count (`state._apply_throw`): said, not logged; the page's
            # form is disabled on the same words (`projection._base` `dice_refused`)
            raise ActionError(f"{refused[0]} / {refused[1]}")
        if seat not in SEATS:
            raise ActionError(f"未知座位 {seat!r} / unknown seat (E, S, W or N)", status=422)
        want = hand.get("next_thrower")
        if want and seat != want:
            raise ActionError(f"应由 {SEAT_NAMES[want]} 家掷骰 / {want} throws next, not {seat}")
        count = in_use(hand["ruleset"]).dice_count
        if len(dice) != count or not all(isinstance(x, int) and 1 <= x <= 6 for x in dice):
            raise ActionError(f"本规则须掷 {count} 颗骰子，每颗 1 至 6 点 / this ruleset throws {count} dice of 1 to 6, "
                              f"got {dice}", status=422)
        # as the table reports a throw: `seat` its physical side, `wind` the wind sitting there this hand
        side = side_of_wind(seat, hand["dealer_position"])
        return self.accept(source, "operator.dice", {"seat": side, "wind": seat, "dice": list(dice), "by": by})

    def _thrown_since(self, seen: int, mine: set[int]) -> str | None:
        """Why a throw keyed on a view of the log up to `seen` is refused: a throw logged since (not the
        page's own), named; None when there is none."""
        from table_controller.state import describe

        for ev in self.store.since(seen):
            if ev.type in ("table.dice", "operator.dice") and ev.seq not in mine:
                return (f"未录入：你的页面显示之后，已有掷骰（#{ev.seq} {describe(ev)}）；请看清现在的状态再录入 / "
                        f"not keyed: a throw (#{ev.seq}) came after your page's view (#{seen}): look again")
        return None

    def record_play(self, type: str, data: dict[str, Any], by: str, source: str = "referee") -> Event:
        """Log what happened on the table (a discard, a claim, a flower) as keyed or seen by the camera."""
        hand = self.state.hand
        if hand is None or hand.get("ended"):
            raise ActionError("没有进行中的牌局 / no hand in play")
        problem = _play_problem(hand, type, data) or (
            _riichi_won_on_problem(self.state, data.get("seat")) or _riichi_stopped_problem(self.state, data.get("seat"))
            or _riichi_points_problem(self.state, data.get("seat")) if type == "play.riichi" else None)
        if problem:
            raise ActionError(problem)
        return self.accept(source, type, {**data, "by": by})


def _next_throw(hand: dict[str, Any] | None) -> tuple[tuple[int, int, int], str] | None:
    """The throw a hand waits for: ((round, hand_no, throws so far), the wind to throw), or None (no
    hand: a 定庄 throw; the hand ended or its dice all thrown)."""
    if hand is None or hand.get("ended") or hand.get("next_thrower") is None:
        return None
    return (int(hand.get("round", 1)), int(hand["hand_no"]), len(hand.get("throws") or [])), str(hand["next_thrower"])


def _face_up(hand: dict[str, Any], tile: str) -> int:
    """Copies of `tile` the record already shows: in the pools (a claimed discard counts in its
    meld), in the melds, among the flowers."""
    pools = sum(1 for pool in hand["discards"].values() for x in pool if x.get("tile") == tile and not x.get("claimed"))
    melds = sum(m.get("tiles", []).count(tile) for ms in hand["melds"].values() for m in ms)
    return pools + melds + sum(fl.count(tile) for fl in hand["flowers"].values())


def _too_many(hand: dict[str, Any], type: str, d: dict[str, Any]) -> str | None:
    """A play that would show a fifth copy of a tile (a second of a flower): a misread or a
    mis-keyed tile, never a real one."""
    from table_controller.tiles import is_flower

    if type in ("play.discard", "play.flower"):
        new = [d.get("tile")]
    elif type == "play.claim":
        new = list(d.get("tiles", []))
        new.remove(hand["discards"][d["from"]][-1]["tile"])  # the claimed discard is already face up
    elif type == "play.kong":
        tiles = list(d.get("tiles", []))
        new = tiles[:1] if d.get("added") else tiles
    else:
        return None
    for tile in set(t for t in new if isinstance(t, str) and t != "back"):  # a face-down end of a kong
        most = 1 if is_flower(tile) else 4
        if _face_up(hand, tile) + new.count(tile) > most:
            return f"桌面将出现第 {most + 1} 张 {tile}：请核对 / a copy of {tile} too many would be face up: check it"
    return None


def _play_problem(hand: dict[str, Any], type: str, d: dict[str, Any]) -> str | None:
    """The rule a play breaks (the deal first, turn order, what may be claimed, a tile's count), or None."""
    undealt = _undealt_problem(hand)
    if undealt:
        return undealt
    turn = hand.get("turn")
    seat = d.get("seat")
    if seat in (hand.get("out") or []):
        return f"{SEAT_NAMES.get(seat, seat)}家本盘已和牌，不再行牌（血战到底）/ {seat} has won this hand and plays no more"
    if type in ("play.discard", "play.claim", "play.kong", "play.flower") and hand.get("winners") and turn is None:
        from table_controller.state import _claimed_late

        if not (type == "play.claim" and _claimed_late(hand, seat, d.get("from"))):  # 补记 stands
            return "本盘已和牌结束，不再行牌：请结束本盘 / the hand is won and over: no more play; end the hand"
    if type == "play.deal_done" and (turn is not None or any((hand.get("discards") or {}).values())):
        # a slip on 配牌完成 (beside 打出) gave the turn back to the dealer mid-hand: every play after it refused
        return "配牌已完成，本盘已开始行牌：不必再按配牌完成 / the deal is done and play has begun"
    if type == "play.missing":
        return _missing_problem(hand, seat, d.get("suit"))
    if type == "play.riichi":
        return _riichi_problem(hand, seat)
    shape = _shape_problem(hand, type, d)
    if shape:
        return shape
    held_out = _holds_missing(hand, type, d)
    if held_out:
        return held_out
    no_tile = _replacement_problem(hand, type, d)
    if no_tile:
        return no_tile
    after_chow = _kong_problem(hand, type, seat)
    if after_chow:
        return after_chow
    if type in ("play.discard", "play.kong") and turn and seat != turn["seat"]:
        return f"未轮到{SEAT_NAMES.get(seat, seat)}家，现在是{SEAT_NAMES[turn['seat']]}家 / not {seat}'s turn but {turn['seat']}'s"
    opening = _opening_problem(hand, type, seat)
    if opening:
        return opening
    if type in ("play.discard", "play.kong", "play.flower") and turn and seat == turn["seat"] and _wall_empty(hand):
        return ("荒牌：牌墙已无牌可摸，本盘应结束（查叫或结束本盘）/ the wall is exhausted: no tile to draw, the hand is "
                "a draw (荒牌)")
    if type == "play.flower" and turn and seat != turn["seat"] and not _flower_now(hand, seat):
        return (f"未轮到{SEAT_NAMES.get(seat, seat)}家补花，现在是{SEAT_NAMES[turn['seat']]}家：补花在自己摸牌后、出牌前（起牌后各家依次补花）"
                f" / not {seat}'s turn to lay a flower but {turn['seat']}'s")
    if type == "play.claim":
        frm = d.get("from")
        pool = (hand.get("discards") or {}).get(frm) or []
        if frm == seat:
            return "不能吃碰杠自己打出的牌 / a seat cannot claim its own discard"
        over = _over_chow(hand, seat, frm, d.get("kind"))
        if over:
            return over
        if not pool or pool[-1]["claimed"] or (turn and turn["seat"] == frm):
            return f"{SEAT_NAMES.get(frm, frm)}家没有可吃碰的最后一张弃牌 / {frm} has no discard to claim"
        passed = _passed_by(hand, seat, frm)
        if passed:
            return passed
        last = pool[-1]["tile"]
        if last not in d.get("tiles", []):
            return f"副露须含被吃碰的牌 {last} / the meld must contain the claimed tile {last}"
        if d.get("kind") == "chow" and SEATS[(SEATS.index(seat) - 1) % 4] != frm:
            return "只能吃上家的牌 / a chow only from the previous seat (上家)"
        if d.get("kind") == "chow":
            from table_controller.referee import flow_of

            if not flow_of(str(hand.get("ruleset", ""))).chow:  # [flow] no_chow: 四川, 南宁, 推倒胡 ...
                return f"本规则不可以吃 / {hand.get('ruleset', '')} has no chow"
    return _too_many(hand, type, d)


def _kong_problem(hand: dict[str, Any], type: str, seat: Any) -> str | None:
    """A kong by the seat that has just chowed, where the ruleset says "吃牌时，手中有杠牌，不能开杠。只能在下一次自己
    抓进牌后才能开杠" (国标, seed 000 范文五/六 七、开杠; `[flow] no_kong_after_chow`). Before, the record took it, and the
    hand machine too."""
    from table_controller.referee import flow_of

    if type != "play.kong" or hand.get("chowed") != seat or flow_of(str(hand.get("ruleset", ""))).kong_after_chow:
        return None
    return (f"{SEAT_NAMES.get(seat, seat)}家刚吃牌：吃牌时手中有杠牌不能开杠，只能在下一次自己抓进牌后才能开杠 / "
            f"{seat} has just chowed: no kong until its next draw")


def _over_chow(hand: dict[str, Any], seat: Any, frm: Any, kind: Any) -> str | None:
    """A pung or kong of a discard the record shows chowed by another seat that has not played since: "碰比吃优先"
    and "杠比吃优先" (seed 000 范文六 第三条), so a pung called with the chow took the tile, and the record is put
    right by replacing the chow (更正牌谱, a play of another kind in its place). Before, the pung was refused as
    "东家没有可吃碰的最后一张弃牌", though the discard lay in the chower's meld for all to see."""
    from table_controller.tiles import tile_name

    if kind not in ("pung", "kong") or frm not in SEATS:
        return None
    pool = (hand.get("discards") or {}).get(frm) or []
    turn = hand.get("turn") or {}
    chower = turn.get("seat")
    if not pool or not pool[-1].get("claimed") or chower in (None, seat) or hand.get("pending_draw"):
        return None
    last = ((hand.get("melds") or {}).get(chower) or [{}])[-1]
    if last.get("type") != "chow" or last.get("from") != frm or pool[-1].get("tile") not in last.get("tiles", []):
        return None
    zh, by, tile = SEAT_NAMES.get(seat, seat), SEAT_NAMES.get(chower, chower), tile_name(pool[-1]["tile"])
    call = "碰" if kind == "pung" else "杠"
    return (f"{SEAT_NAMES[frm]}家的{tile}已记为{by}家吃：{call}比吃优先，{zh}家同时报{call}时请在更正牌谱中把{by}家的吃换成{zh}家的"
            f"{call} / {frm}'s {pool[-1]['tile']} is recorded as chowed by {chower}: a {kind} called with it comes first; "
            f"correct the record (更正牌谱) with {seat}'s {kind} in the chow's place")


def _undealt_problem(hand: dict[str, Any]) -> str | None:
    """Any play before the dice have broken the wall (开门): a table deals from the break (walls.md), its
    dice thrown by the unit or keyed on the Table page where it reports none, so no tile can be laid,
    discarded or said (定缺) before it. Before, a play keyed or seen after 开始 and before the dice was
    recorded into a hand with no wall: no tiles left, 海底 or 荒牌 counted, no replacement checked."""
    if hand.get("deal") is not None:
        return None
    thrower = str(hand.get("next_thrower") or "E")
    again = "第二次" if hand.get("throws") else ""
    return (f"尚未开门，不能录入行牌：请先掷骰（应由{SEAT_NAMES.get(thrower, thrower)}家掷{again}骰；牌桌不报骰子或"
            f"掷出的骰子不能开门时，在牌桌页录入骰子）/ no break yet: throw the dice first ({thrower} throws; "
            "where the table reports none or its throw cannot break the wall, key them on the Table page)")


def _opening_problem(hand: dict[str, Any], type: str, seat: Any) -> str | None:
    """A discard or kong by a seat other than the dealer before anyone has discarded and with no turn set
    (配牌完成 not pressed): the dealer plays first (walls.md; the hand machine's turn is E from the deal).
    Before, any seat's discard was taken then, and the record began with a seat that cannot have played.
    The dealer's own discard or 暗杠 is taken and sets the turn; the opening 补花 stays every seat's."""
    if type not in ("play.discard", "play.kong") or hand.get("turn") or seat == "E":
        return None
    if any((hand.get("discards") or {}).values()):
        return None
    return (f"未轮到{SEAT_NAMES.get(seat, seat)}家，现在是{SEAT_NAMES['E']}家：庄家先出牌（配牌完成后由东家打出第一张）"
            f" / not {seat}'s turn but E's: the dealer plays first")


def _wall_empty(hand: dict[str, Any]) -> bool:
    """The seat in turn would have to draw first and no live tile is left, or the 海底 it drew was a flower
    with none to replace it (walls.md: 荒牌 when no tile is left to draw). The record counts draws from the
    plays and never runs ahead of the table, so its 0 is sure."""
    wall = hand.get("wall_now") or {}
    if hand.get("flower_unreplaced"):  # the 海底 was a flower and no tile stands to replace it
        return True
    return bool(hand.get("pending_draw")) and hand.get("tiles_left") == 0 and bool(wall) and not wall.get("error")


def _flower_now(hand: dict[str, Any], seat: Any) -> bool:
    """Whether a seat not in turn may lay a flower: in the opening 补花 (no discard or meld yet, every
    seat in its round: walls.md), or as the seat whose discard is the table's newest while nobody has
    played since (its flower seen after its discard, as a camera may see them)."""
    if not any(hand["discards"].values()) and not any(hand["melds"].values()):
        return True
    newest = _newest_discard(hand)
    return newest is not None and newest[0] == seat and bool(hand.get("pending_draw"))


def _newest_discard(hand: dict[str, Any]) -> tuple[str, float] | None:
    """(seat, seq) of the table's newest discard, or None before the first (a discard a correction
    inserted is numbered between two logged events: 19.5, not cut to 19)."""
    last = [(w, float(pool[-1]["seq"])) for w, pool in hand["discards"].items() if pool]
    return max(last, key=lambda x: x[1]) if last else None


def _passed_by(hand: dict[str, Any], seat: Any, frm: Any) -> str | None:
    """A claim of a discard the table has played past: another discard made since, the seat in turn has
    laid a flower or a kong since (it drew: the claim window closed, as `hand/state.py` has it), or a seat
    has won since where play goes on (血战, 血流: `state.after_win`'s `won_seq`). A
    claim keyed after the claimer's own next discard (`state._claimed_late`) is the record catching up,
    not a late claim, and stands."""
    from table_controller.state import _claimed_late

    if _claimed_late(hand, seat, frm):
        return None
    newest = _newest_discard(hand)
    if newest is not None and int(hand.get("won_seq") or 0) > newest[1]:  # 血战: a win since, its winner drew
        return (f"{SEAT_NAMES.get(frm, frm)}家的这张牌已过：其后已有人和牌 / {frm}'s discard was passed: "
                "a seat has won since")
    if (newest is not None and newest[0] != frm) or not hand.get("pending_draw"):
        after = newest[0] if newest is not None and newest[0] != frm else (hand.get("turn") or {}).get("seat", "?")
        return (f"{SEAT_NAMES.get(frm, frm)}家的这张牌已过：{SEAT_NAMES.get(after, after)}家已在其后行牌，不能再吃碰杠 / "
                f"{frm}'s discard was passed: {after} has played since")
    return None


def _shape_problem(hand: dict[str, Any], type: str, d: dict[str, Any]) -> str | None:
    """A play whose tiles cannot be what it says: a tile the ruleset does not play with (an honour
    under 四川), a flower discarded or a suit tile laid out as one, a pung or kong not all one
    tile, a chow not a run, a 补杠 without its pung or said concealed too, a meld of a flower (南京 中发白). A camera's misread or a mis-key is named
    here; before (twelfth session) the live record took each of them."""
    from table_controller import tiles as T
    from table_controller.scoring import ruleset_tiles

    if type not in ("play.discard", "play.flower", "play.claim", "play.kong"):
        return None
    ruleset = str(hand.get("ruleset", ""))
    rs, kinds = ruleset_tiles(ruleset)
    tiles = [d.get("tile")] if type in ("play.discard", "play.flower") else list(d.get("tiles") or [])
    for t in tiles:
        if t == T.BACK and type == "play.kong":
            continue  # a concealed kong keyed with its ends face down
        if not T.is_tile(t):
            return f"不是牌: {t!r} / not a tile code (e.g. 1m 9p 5z 3f)"
        if kinds and t not in kinds:
            return f"{T.tile_name(t)} ({t}) 不是本规则用的牌 / not a tile of {ruleset}"
    bonus = rs.tile_spec.is_bonus if rs is not None else T.is_flower
    if type == "play.flower" and not bonus(tiles[0]):
        return f"{T.tile_name(tiles[0])} 不是花牌 / {tiles[0]} is not a flower"
    if type == "play.discard" and bonus(tiles[0]):
        return f"{T.tile_name(tiles[0])} 是花牌：补花，不打出 / {tiles[0]} is a flower: laid out and replaced, not discarded"
    if type in ("play.claim", "play.kong") and any(t != T.BACK and bonus(t) for t in tiles):
        flower = next(t for t in tiles if t != T.BACK and bonus(t))  # 南京's 中发白: four could be keyed as a kong
        return (f"{T.tile_name(flower)} 是花牌：补花，不成副露 / {flower} is a flower: laid out and replaced, "
                f"never in a meld")
    faces = [t for t in tiles if t != T.BACK]
    if type == "play.claim":
        size = {"pung": 3, "kong": 4, "chow": 3}.get(str(d.get("kind")))
        if size is None or len(tiles) != size:
            return f"吃碰杠须为三张或四张 / a {d.get('kind')} is {size or '3 or 4'} tiles, not {len(tiles)}"
        if d.get("kind") != "chow" and len(set(tiles)) != 1:
            return "碰、杠须为同样的牌 / a pung or kong is of one tile"
        if d.get("kind") == "chow":
            ranks = sorted(T.rank(t) for t in tiles) if all(T.is_suited(t) for t in tiles) else []
            if len({T.suit(t) for t in tiles}) != 1 or not ranks or ranks != list(range(ranks[0], ranks[0] + 3)):
                return "吃须为同门顺子 / a chow is a run of one suit"
    if type == "play.kong":
        if len(tiles) != 4 or not faces or len(set(faces)) != 1:
            return "杠须为四张同样的牌 / a kong is four of one tile"
        if d.get("added") and d.get("concealed"):  # the fold made it the pung's kong, paid as 补杠, and shown face up
            return ("补杠是在碰出的刻子上加一张，牌是亮出的：不能同时是暗杠（补杠或暗杠，二选一）/ an added kong (补杠) "
                    "is made on an exposed pung: it cannot also be concealed")
        if d.get("added") and not any(m.get("type") == "pung" and (m.get("tiles") or [None])[0] == faces[0]
                                      for m in (hand.get("melds") or {}).get(d.get("seat")) or []):
            return (f"补杠须已碰出{T.tile_name(faces[0])} / an added kong needs "
                    f"{d.get('seat')}'s pung of {faces[0]}")
    return None


def _missing_problem(hand: dict[str, Any], seat: Any, suit: Any) -> str | None:
    """Why a seat's 定缺 cannot be recorded: the ruleset has none, the suit is not one, the seat has
    a meld of that suit laid out (a pung claimed before its 定缺 was keyed: it keeps that suit, as
    `_holds_missing` refuses the other way round), or it has already played with another (定缺
    holds for the whole hand)."""
    from table_controller.tiles import SUITS, is_suited, suit_name
    from table_controller.tiles import suit as suit_of

    if not hand.get("missing_suit"):
        return "本规则不定缺 / this ruleset has no 定缺"
    if seat not in SEATS:
        return f"未知座位 {seat!r} / unknown seat (E, S, W or N)"
    if suit not in SUITS:
        return f"定缺须为万(m)、筒(p)、条(s)之一，不是 {suit!r} / the missing suit is m, p or s"
    if any(isinstance(t, str) and is_suited(t) and suit_of(t) == suit
           for m in hand["melds"][seat] for t in m.get("tiles") or []):
        return (f"{SEAT_NAMES[seat]}家已有{suit_name(suit)}的副露，不能定缺{suit_name(suit)} / "
                f"{seat} has a meld of {suit} laid out: it cannot name {suit} as its missing suit")
    was = (hand.get("missing") or {}).get(seat)
    if was and was != suit and (hand["discards"][seat] or hand["melds"][seat]):
        return (f"{SEAT_NAMES[seat]}家已定缺{suit_name(was)}并已行牌，不可更改 / "
                f"{seat} named {was} and has played since: 定缺 holds for the hand")
    return None


def _abortive(state: Any, kind: Any, seat: Any, tiles: list[str] | None) -> dict[str, Any]:
    """The hand-end's fields of an abortive draw (途中流局) the record allows; ActionError (422) saying why
    not: a kind the ruleset does not have, one the record does not show, or a hand already won."""
    from table_controller.hand.abortive import kinds_of, refusal
    from table_controller.referee import confirmed_wins
    from table_controller.scoring.config import flow

    hand = state.hand
    if confirmed_wins(state.actions, hand["hand_no"]):
        raise ActionError("本盘已有人和牌，不能流局 / the hand has a confirmed win: no abortive draw", status=422)
    why = refusal(hand, str(kind), kinds_of(flow(state.ruleset)), seat, tiles)
    if why:
        raise ActionError(why, status=422)
    return {"abortive": kind, **({"seat": seat} if kind == "nine_terminals" else {}),
            **({"tiles": list(tiles)} if kind == "nine_terminals" and tiles else {})}


def _riichi_problem(hand: dict[str, Any], seat: Any) -> str | None:
    """Why a seat's 立直 cannot be recorded: the ruleset has none, it declared already, its hand is
    open, it has not discarded (the declaration goes with a discard), or fewer than four tiles
    stand in the live wall."""
    if not hand.get("riichi_declarations"):
        return "本规则无立直 / this ruleset has no riichi"
    if seat not in SEATS:
        return f"未知座位 {seat!r} / unknown seat (E, S, W or N)"
    zh = SEAT_NAMES[seat]
    if seat in (hand.get("riichi") or {}):
        return f"{zh}家已立直 / {seat} has declared riichi already"
    if any(not m.get("concealed") for m in hand["melds"][seat]):
        return f"{zh}家已副露，不能立直 / {seat} has an open meld: no riichi"
    if not hand["discards"][seat]:
        return f"立直随打出的牌宣告：{zh}家尚未出牌 / riichi goes with a discard: {seat} has not discarded"
    if hand.get("tiles_left") is not None and hand["tiles_left"] < 4:
        return "牌墙不足四张，不能立直 / fewer than four tiles left: no riichi"
    return None


def _riichi_won_on_problem(state: Any, seat: Any) -> str | None:
    """立直 keyed once a confirmed 荣和 took the seat's latest discard: that was the declaration tile, won on, so
    the 立直 never stood (立直宣言牌放铳, `referee._riichi_dealt_in`, which reads only a 立直 keyed before the
    confirmation). Before, it was taken and its stick paid to the winner."""
    from table_controller.referee import confirmed_wins

    pool = (state.hand.get("discards") or {}).get(seat) or []
    for win in confirmed_wins(state.actions, state.hand.get("hand_no")):
        if win.get("win_kind") == "discard" and win.get("discarder") == seat and pool \
                and pool[-1].get("tile") == win.get("win_tile"):
            return (f"{SEAT_NAMES[seat]}家的立直宣言牌已被荣和：立直不成立，不下立直棒 / {seat}'s riichi tile was won on: "
                    "the riichi does not stand and puts down no stick")
    return None


def _riichi_stopped_problem(state: Any, seat: Any) -> str | None:
    """立直 by a seat ruled out of winning this hand (和了放弃, a dead hand: WRC 7.1 "can no longer ... declare riichi
    nor win"; 错和 too): its stick would go on the table for a hand that cannot win. Before, it was taken."""
    from table_controller.referee import active

    ruled = next((a for a in reversed(active(state.actions, "referee.penalty", state.hand.get("hand_no")))
                  if a.get("stops_win") and not a.get("error") and a.get("seat") == seat), None)
    if ruled is None:
        return None
    return (f"{SEAT_NAMES[seat]}家已被判{ruled['name_zh']}（#{ruled['seq']}），本盘不得立直 / {seat} was ruled "
            f"{ruled['name_en']} (#{ruled['seq']}): no riichi this hand")


def _riichi_points_problem(state: Any, seat: Any) -> str | None:
    """立直 needs the 1000 points of its stick: a seat whose player holds less (`[scoring] start_points`
    and the score sheet's running total, this hand's kongs and sticks in it) may not declare."""
    from table_controller.scoresheet import compute
    from table_controller.scoring.config import scoring

    try:
        table = scoring(state.ruleset)
    except Exception:  # a ruleset without [scoring]: nothing to count from
        return None
    start, stick = table.get("start_points"), int(table.get("riichi_stick", 0))
    player = (state.hand.get("seats") or {}).get(seat)
    if not isinstance(start, int) or not stick or player is None:
        return None
    held = start + int(compute(state)["totals"].get(str(player), 0))
    if held < stick:
        return (f"{SEAT_NAMES[seat]}家只有{held}点，不足{stick}点，不能立直 / "
                f"{seat} holds {held} points, less than the {stick} a riichi puts down")
    return None


def _replacement_problem(hand: dict[str, Any], type: str, d: dict[str, Any]) -> str | None:
    """A kong with no tile left to replace it (杠后无牌可补: the hand machine refuses it too).

    The record does not see draws; it counts them from the plays (`state._apply_play`), so the
    count can only fall short of the table's, never run ahead: a kong refused here had no tile
    to replace it even by the record's count. A count the wall cannot hold says nothing."""
    if not hand.get("deal") or (hand.get("wall_now") or {}).get("error"):
        return None
    kong = type == "play.kong" or (type == "play.claim" and d.get("kind") == "kong")
    if not kong:
        return None
    from table_controller.rules import WallError
    from table_controller.state import hand_plan

    # a kong from the hand comes after the seat's draw (unless it claimed): that draw first
    live = hand.get("live_drawn", 0) + (1 if type == "play.kong" and hand.get("pending_draw") else 0)
    try:
        hand_plan(hand).state_after(live_drawn=live, tail_drawn=hand.get("tail_drawn", 0) + 1)
    except WallError:
        return "牌墙已无牌可补，不能开杠 / no tile left to replace a kong"
    return None


def _holds_missing(hand: dict[str, Any], type: str, d: dict[str, Any]) -> str | None:
    """A claim or kong of a seat's 定缺 suit: it would keep what it said it gives up."""
    from table_controller.tiles import is_suited, suit, suit_name

    gone = (hand.get("missing") or {}).get(d.get("seat"))
    if not gone or type not in ("play.claim", "play.kong"):
        return None
    if any(isinstance(t, str) and is_suited(t) and suit(t) == gone for t in d.get("tiles", [])):
        return (f"{SEAT_NAMES.get(d['seat'], d['seat'])}家定缺{suit_name(gone)}，不能吃碰杠{suit_name(gone)} / "
                f"{d['seat']} gave up {gone}: no claim or kong of it")
    return None


def _identity(table: Any) -> dict[str, Any]:
    info = getattr(table, "info", None)
    if info is None:
        return {}
    if hasattr(info, "as_dict"):
        return dict(info.as_dict())
    if hasattr(info, "__dataclass_fields__"):
        import dataclasses

        return dataclasses.asdict(info)
    return dict(vars(info))


def side_of_wind(wind: str, dealer_position: int) -> str:
    """The table's physical side (sides E,S,W,N are chairs 1..4) where `wind` sits this hand."""
    return SEATS[(SEATS.index(wind) + dealer_position - 1) % 4]


def wind_of_side(side: str, dealer_position: int) -> str:
    """The wind of this hand sitting at the table's physical side `side`."""
    return seat_of_position(SEATS.index(side) + 1, dealer_position)


def _table_dice(table: Any) -> int:
    """How many dice the table's unit throws and reports; 0 for a table that reports none."""
    caps = getattr(getattr(table, "info", None), "capabilities", None)
    return int(getattr(caps, "dice", 0) or 0)


def _check_tile_count(table: Any, tile_count: int) -> None:
    """A table that says which sets it builds (identity's tile_counts) and lacks this one cannot deal the
    hand: refused before it is recorded. Before, the hand was recorded without walls, set_tile_count was
    refused, and the table built and raised a set of its own count (136 tiles for 国标's 144)."""
    caps = getattr(getattr(table, "info", None), "capabilities", None)
    counts = tuple(getattr(caps, "tile_counts", ()) or ())
    if counts and tile_count not in counts:
        built = "、".join(str(c) for c in counts)
        raise ActionError(f"牌桌不能砌 {tile_count} 张一副的牌（这台只能砌 {built} 张）：请换桌，或改规则/配置 [table] tile_count"
                          f" / the table cannot build a set of {tile_count} tiles (only {built})")


def _wall_lengths(table: Any, tile_count: int, dealer_position: int) -> dict[str, int] | None:
    """Wall lengths as the machine reports them (walls.md: taken from the table, not a constant),
    re-labelled from the table's physical sides to the winds of this hand."""
    caps = getattr(getattr(table, "info", None), "capabilities", None)
    lengths = getattr(caps, "wall_lengths", None) or {}
    by_side = lengths.get(tile_count)
    if not by_side or len(by_side) != 4:
        return None  # a table that cannot say (remote-control dialect): the ruleset's defaults
    return {wind: int(by_side[SEATS.index(side_of_wind(wind, dealer_position))]) for wind in SEATS}

"""Store-and-forward of one table's log to the tournament broker: nothing lost, nothing required.

The SQLite log is the queue. The publisher sends every event after the last one the broker
acknowledged (QoS 1), then moves that mark in the log's `meta` table; a broker outage, a cut cable
or a restart of the table only delays what is sent. The table never waits for it: `accept()` does
not know the publisher exists, and a dead broker shows up on the health panel, not in play.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sqlite3
import time
from collections.abc import Callable
from contextlib import closing
from pathlib import Path
from typing import Any

import aiomqtt

from table_controller.projection import public_event, public_view
from table_controller.tournament.client_id import private_client_id
from table_controller.tournament.wire import (
    KEEPALIVE, DisqualifiedMsg, EventMsg, OnlineMsg, RecordMsg, ReplayMsg, SeatingMsg, SitterMsg, StateMsg, Topics, WireError, backoff,
    decode, encode, endpoint,
)

log = logging.getLogger("table_controller.tournament")

#: Events sent at once (each a QoS 1 publish; the broker acknowledges them in flight).
BATCH = 100
#: Seconds to wait for the broker's PUBACK before the connection is deemed dead.
PUBLISH_TIMEOUT = 10.0
#: Seconds between looks at the log when no event wakes the publisher; the least between two state messages.
POLL_S = 0.5


class AckMark:
    """The last sequence number the broker acknowledged, kept beside the log it counts.

    A second connection to the log's file writes only the `meta` table, so the mark survives a
    restart of the table with the events it refers to (WAL lets both connections work). It is
    opened on first use, so a publisher that never ran holds no file open.
    """

    def __init__(self, db_path: Path, key: str) -> None:
        self.path, self.key = db_path, key
        self._db: sqlite3.Connection | None = None
        with closing(sqlite3.connect(db_path, timeout=10)) as db:
            db.execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
            db.commit()
            row = db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        self.value = int(row[0]) if row else 0

    def _conn(self) -> sqlite3.Connection:
        if self._db is None:
            self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None, timeout=10)
            # No fsync of its own: the mark goes into the log's WAL, which the log's next event syncs (its
            # `synchronous=FULL`), and a checkpoint syncs too. With FULL here each acknowledged event cost
            # the card a second fsync (in play the publisher sends events one by one: 2.04 a table event
            # with a broker, 1.05 without, `bench/footprint.py`). A mark lost to a power cut only resends
            # what the hub already holds, and it drops it ("Nothing twice at the hub").
            self._db.execute("PRAGMA synchronous=NORMAL")
        return self._db

    def advance(self, seq: int) -> None:
        """Record `seq` as acknowledged; the mark never moves back (a replay resends, it does not un-send)."""
        if seq <= self.value:
            return
        self._conn().execute("INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = ?",
                             (self.key, str(seq), str(seq)))
        self.value = seq

    def previous_seq(self, seq: int) -> int:
        """The logged event just before `seq` (0 if none): the `prev` link of the chain the hub checks."""
        row = self._conn().execute("SELECT COALESCE(MAX(seq), 0) FROM events WHERE seq < ?", (seq,)).fetchone()
        return int(row[0])

    def close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None


def _clock(session: dict[str, Any] | None, now: float) -> dict[str, Any]:
    """The session clock for the hub's page: when it runs out (pauses added back), and whether it
    stands still (then its end moves with `now`, so the hub shows the time left frozen)."""
    from table_controller.timers import session_status

    st = session_status(session, now)
    if st is None or st.get("ended_at"):
        return {}
    return {"clock_ends_at": float(st["ends_at"]), "clock_paused": st["level"] == "paused"}


class TournamentPublisher:
    """Sends one table's public events and standing to `<prefix>/<tournament>/<table_id>/...`."""

    def __init__(self, controller: Any, broker: str, tournament: str, table_id: str, prefix: str = "mahjong",
                 username: str = "", password: str = "", wall_clock: Callable[[], float] | None = None,
                 ca_file: str = "") -> None:
        self.controller = controller
        self.broker = broker
        self.host, self.port, self.tls = endpoint(broker, ca_file)
        self.tournament, self.table_id = tournament, table_id
        self.topics = Topics(prefix, tournament, table_id)
        self.username, self.password = username or None, password or None
        # an id another table's user cannot take over (`client_id.private_client_id`)
        self.client_id = private_client_id(f"table-{self.tournament}-{self.table_id}", self.password)
        if username and username != table_id:  # broker-config's access list would drop all it sends, unseen
            log.warning("the broker user name is not the table id: a broker set up by `tablectl broker-config` "
                        "lets a table write only under its own id, and drops the rest without a word",
                        extra={"username": username, "table_id": table_id})
        # The standings' `at` on the table's stamps clock (`controller.now`), the one its events and session
        # clock (`clock_ends_at`) read: `time.time` here stepped with NTP mid-session, and the hub's paused
        # clock (`clock_ends_at - at`) read the step as hours left or none
        self._wall_clock: Callable[[], float] = wall_clock if wall_clock is not None else controller.now
        self.mark = AckMark(Path(controller.store.path), f"tournament.acked {broker} {self.topics.base}")
        self.connected = False
        self.error = ""
        #: the connection now (None between connections)
        self._client: Any = None
        self.reconnects = 0
        self._position = self.mark.value  # the next event sent is the first after this
        self._rewind: int | None = None
        self._state_sent: int | None = None  # the state seq of the last state message on this connection
        self._records_seq: int | None = None  # the state seq the hands' records were last sent for
        self._rounds_sent = 0  # closed rounds sent on this connection
        self._withdrawn_sent: dict[int, int] = {}  # rounds whose withdrawal was sent (by their start's seq)
        self._state_at = -POLL_S  # time.monotonic() of the last state message
        self._wake = asyncio.Event()

    # -- shown on the table's health panel ---------------------------------------------------------
    def health(self) -> dict[str, Any]:
        last = self.controller.store.last_seq()
        backlog = max(0, last - self.mark.value)
        if self.connected:
            zh, en = f"赛事连线正常 · 待发 {backlog} 条", f"tournament link up · {backlog} to send"
        elif not self.error:
            zh, en = f"正在连接赛事服务器 · 待发 {backlog} 条", f"connecting to the tournament · {backlog} to send"
        else:
            zh, en = f"赛事连线中断，重试中 · 待发 {backlog} 条", f"tournament link down, retrying · {backlog} to send"
        return {"ok": self.connected, "connected": self.connected, "broker": self.broker, "topic": self.topics.base,
                "acked_seq": self.mark.value, "last_seq": last, "backlog": backlog, "reconnects": self.reconnects,
                "error": self.error, "message": zh, "message_en": en}

    # -- life cycle --------------------------------------------------------------------------------
    async def run(self) -> None:
        """Connect, send, and on any broker trouble wait and connect again, for as long as the table runs."""
        attempt = 0
        try:
            while True:
                try:
                    async with aiomqtt.Client(self.host, self.port, username=self.username, password=self.password,
                                              tls_context=self.tls, keepalive=KEEPALIVE, timeout=PUBLISH_TIMEOUT,
                                              identifier=self.client_id,
                                              will=aiomqtt.Will(self.topics.online, self._online(False, "lost"),
                                                                qos=1, retain=True)) as client:
                        # a batch of BATCH events goes out at once by design (plus the online and the
                        # standing): only more than that in flight is worth aiomqtt's warning
                        client.pending_calls_threshold = BATCH + 2
                        self._client = client
                        self.connected, self.error, attempt = True, "", 0
                        log.info("tournament broker connected", extra={"broker": self.broker, "topic": self.topics.base,
                                                                       "acked_seq": self.mark.value})
                        await self._session(client)
                except aiomqtt.MqttError as exc:
                    self.error = str(exc)
                    log.warning("tournament broker unreachable; the table plays on and the log waits",
                                extra={"broker": self.broker, "error": self.error, "backlog": self.health()["backlog"]})
                except Exception as exc:  # a bug here must not end the publishing for the rest of the session
                    self.error = f"{type(exc).__name__}: {exc}"
                    log.exception("tournament publisher failed; retrying", extra={"broker": self.broker})
                if self.connected:
                    self.reconnects += 1
                self.connected = False
                await asyncio.sleep(backoff(attempt))
                attempt += 1
        finally:
            self.connected = False
            self.mark.close()

    async def _session(self, client: Any) -> None:
        """One connection: listen for the hub's replay requests while sending; either failing ends both."""
        self._position = self.mark.value
        self._state_sent = None
        self._records_seq = None  # a new connection sends every ended hand's record once
        self._rounds_sent = 0  # ... and every closed round's final standing and records
        self._withdrawn_sent: dict[int, int] = {}  # ... and that undone rounds are withdrawn
        await client.subscribe(self.topics.replay, qos=1)
        await client.subscribe(self.topics.seating, qos=1)  # the organiser's seating for a round (retained)
        await client.publish(self.topics.online, self._online(True, "connected"), qos=1, retain=True)
        queue = self.controller.subscribe()
        tasks = [asyncio.create_task(self._listen(client)), asyncio.create_task(self._send(client, queue))]
        try:
            done, _ = await asyncio.wait(tasks, return_when=asyncio.FIRST_EXCEPTION)
            for task in done:
                task.result()
        except asyncio.CancelledError:  # the table is stopped in good order: say so, not "lost"
            with contextlib.suppress(Exception):
                await asyncio.wait_for(client.publish(self.topics.online, self._online(False, "stopped"), qos=1,
                                                      retain=True), 1.0)
            raise
        finally:
            self.controller.unsubscribe(queue)
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

    def _online(self, online: bool, reason: str) -> bytes:
        return encode(OnlineMsg(v=1, tournament=self.tournament, table_id=self.table_id, online=online,
                                reason=reason, at=self.controller.now()))  # type: ignore[arg-type]

    async def _listen(self, client: Any) -> None:
        async for message in client.messages:  # raises MqttError when the connection drops
            if str(message.topic) == self.topics.seating:
                self._seating(message.payload)
                continue
            try:
                req = decode(ReplayMsg, message.payload, self.tournament, self.table_id)
            except WireError as exc:
                log.warning("ignored a malformed replay request",
                            extra={"topic": str(message.topic), "error": str(exc)})
                continue
            log.info("the hub asks for events again", extra={"after": req.after, "position": self._position})
            self._rewind = req.after if self._rewind is None else min(self._rewind, req.after)
            # a hub that lacks events lacks what was sent beside them: closed rounds and records too
            self._rounds_sent, self._records_seq, self._withdrawn_sent = 0, None, {}
            self._wake.set()

    def _seating(self, payload: Any) -> None:
        """The organiser published this table's players for a round: logged once (`tournament.seating`)
        for the referee, who keys the round with them; a malformed one is logged and dropped."""
        try:
            msg = decode(SeatingMsg, payload, self.tournament, self.table_id)
        except WireError as exc:
            log.warning("ignored a malformed seating", extra={"error": str(exc)})
            return
        if msg.withdrawn:  # the organiser published the round again without this table
            held = self.controller.state.seating_offer
            if held is not None and held.get("round") == msg.round:
                self.controller.offer("tournament", "tournament.seating",
                                      {"round": msg.round, "withdrawn": True, "at": msg.at})
            return
        offer = {"round": msg.round, "table_name": msg.table_name, "players": dict(sorted(msg.players.items())),
                 "player_ids": dict(sorted(msg.player_ids.items())), "at": msg.at}
        if self.controller.state.seating_offer != offer:  # a retained copy comes again on each connection
            self.controller.offer("tournament", "tournament.seating", offer)  # held while the log cannot be written

    async def _send(self, client: Any, queue: asyncio.Queue[Any]) -> None:
        store = self.controller.store
        while True:
            if self._rewind is not None:
                self._position, self._rewind = min(self._position, self._rewind), None
            batch = store.since(self._position, limit=BATCH)
            if batch:
                await self._publish_events(client, batch)
                continue
            await self._publish_state(client)
            await self._idle(queue)

    async def _publish_events(self, client: Any, batch: list[Any]) -> None:
        prev = self.mark.previous_seq(batch[0].seq)
        payloads = []
        for ev in batch:
            public = public_event(ev.to_json())
            payloads.append(encode(EventMsg(v=1, tournament=self.tournament, table_id=self.table_id, seq=ev.seq,
                                            prev=prev, at=ev.at, source=public["source"], type=public["type"],
                                            data=public["data"])))
            prev = ev.seq
        results = await asyncio.gather(*(client.publish(self.topics.events, p, qos=1) for p in payloads),
                                       return_exceptions=True)
        done = 0
        while done < len(batch) and not isinstance(results[done], BaseException):
            done += 1
        if done:  # one durable write per batch: the acknowledged prefix
            self.mark.advance(batch[done - 1].seq)
            self._position = batch[done - 1].seq
        if done < len(batch):
            raise results[done]  # the rest is resent after reconnecting; the hub drops what it has

    async def _publish_state(self, client: Any) -> None:
        """The retained standing, once the events it counts are out (so the hub sees no false gap)."""
        state = self.controller.state
        self._rounds_sent = min(self._rounds_sent, len(state.rounds))  # a round reopened by an undo
        owed = self._rounds_sent < len(state.rounds) or self._records_seq is None  # e.g. asked again by the hub
        if (self._state_sent == state.seq and not owed) or state.seq > self._position:
            return
        if time.monotonic() - self._state_at < POLL_S:
            return  # a burst of events: the next look (within POLL_S) sends the standing once
        view = public_view(state)
        sheet = view["scoresheet"]
        hand = view.get("hand") or {}
        await self._publish_rounds(client, state)
        msg = StateMsg(v=1, tournament=self.tournament, table_id=self.table_id, seq=state.seq, round=state.round,
                       at=self._wall_clock(),
                       table_name=view["table_name"], ruleset=view["ruleset"], players=sheet["players"],
                       player_ids=view.get("player_ids", {}),
                       totals=sheet["totals"], table_points=sheet["table_points"], final=bool(sheet["final"]),
                       hand_no=hand.get("hand_no"), hands_played=view["hands_played"],
                       phase=view["phase"], phase_zh=view["phase_zh"],
                       appeals_waiting=sum(1 for a in view.get("appeals", []) if a["ruling"] is None),
                       sitters=_sitters(sheet), disqualified=_disqualified(sheet),
                       **_clock(view.get("session"), self.controller.now()))
        await client.publish(self.topics.state, encode(msg), qos=1, retain=True)
        self._state_sent, self._state_at = state.seq, time.monotonic()
        await self._publish_records(client, state)

    async def _publish_rounds(self, client: Any, state: Any) -> None:
        """Rounds other than the one being played: each round whose start was undone, withdrawn;
        each round closed since the last look (all on a new connection), its final standing, then
        its hands' records. Not retained: the retained standing is the round being played."""
        from table_controller.record import session_records
        from table_controller.rounds import withdrawn

        for number, start in withdrawn(state).items():  # few and rare: sent with every closed-round look
            if self._withdrawn_sent.get(number) == start["seq"]:
                continue
            players = {str(p): n for p, n in start["players"].items()}
            zeros = {p: 0 for p in players}
            await client.publish(self.topics.state, encode(StateMsg(
                v=1, tournament=self.tournament, table_id=self.table_id, seq=state.seq, round=number,
                at=self._wall_clock(), table_name=state.table_name, ruleset=state.ruleset, players=players,
                totals=zeros, table_points=zeros, final=False, hand_no=None, hands_played=0, phase="withdrawn",
                phase_zh="已撤销", withdrawn=True)), qos=1)
            self._withdrawn_sent[number] = start["seq"]
        for closed in state.rounds[self._rounds_sent:]:
            sheet, number = closed["sheet"], closed["round"]
            msg = StateMsg(v=1, tournament=self.tournament, table_id=self.table_id, seq=closed["end_seq"],
                           round=number, at=self._wall_clock(), table_name=state.table_name, ruleset=state.ruleset,
                           players=sheet["players"], player_ids={str(k): v for k, v in closed["player_ids"].items()},
                           totals=sheet["totals"], table_points=sheet["table_points"], final=True, hand_no=None,
                           hands_played=len(closed["hands"]), phase="closed", phase_zh="本轮已结束",
                           sitters=_sitters(sheet), disqualified=_disqualified(sheet))
            await client.publish(self.topics.state, encode(msg), qos=1)
            records = await asyncio.to_thread(lambda: session_records(self.controller.store.since(0), state=state,
                                                                      round_no=number))
            for record in records:
                await client.publish(self.topics.records, encode(RecordMsg(
                    v=1, tournament=self.tournament, table_id=self.table_id, seq=closed["end_seq"], round=number,
                    hand_no=record["hand_no"], record=record)), qos=1)
        self._rounds_sent = len(state.rounds)

    async def _publish_records(self, client: Any, state: Any) -> None:
        """The public record (牌谱) of each hand that ended, or was ruled on after it ended, since the
        records were last sent (all of them on a new connection): the hub keeps them for the archive."""
        from table_controller.record import hand_records

        ended = {h["hand_no"] for h in state.hands}
        if self._records_seq is None:
            dirty = ended
        else:
            since = self._records_seq
            dirty = {h["hand_no"] for h in state.hands if h.get("seq", 0) > since}
            dirty |= {a.get("hand_no") for a in state.actions if a["seq"] > since and a.get("hand_no") in ended}
        if dirty:
            # the whole log read and the records built in a worker thread, in one pass: on the loop, each
            # hand's record read the whole log again (a new connection late in a day sends every hand:
            # 400 hands, 12 s here with the display held, a Pi 5-8x that; one hand's end: 0.3 s)
            hands = sorted(dirty)
            records = await asyncio.to_thread(lambda: hand_records(self.controller.store.since(0), hands, state=state))
            for hand_no, record in zip(hands, records):
                msg = RecordMsg(v=1, tournament=self.tournament, table_id=self.table_id, seq=state.seq,
                                round=state.round, hand_no=hand_no, record=record)
                await client.publish(self.topics.records, encode(msg), qos=1)
        self._records_seq = state.seq

    async def _idle(self, queue: asyncio.Queue[Any]) -> None:
        """Wait for a new event (or a replay request), at most `POLL_S`; the log, not the queue, says what to send."""
        get = asyncio.ensure_future(queue.get())
        wake = asyncio.ensure_future(self._wake.wait())
        try:
            await asyncio.wait((get, wake), timeout=POLL_S, return_when=asyncio.FIRST_COMPLETED)
        finally:
            get.cancel()
            wake.cancel()
        self._wake.clear()
        while not queue.empty():  # drained so the controller never drops this subscriber as stalled
            queue.get_nowait()


def _sitters(sheet: dict[str, Any]) -> dict[str, Any]:
    """The chairs a substitute (替补) sat in part of the round, as the hub credits them (`StateMsg.sitters`)."""
    keys = ("name", "id", "from_hand", "to_hand", "hands", "points", "reason")
    return {p: [SitterMsg(**{k: s[k] for k in keys}) for s in sat]
            for p, sat in (sheet.get("sitters") or {}).items() if len(sat) > 1}


def _disqualified(sheet: dict[str, Any]) -> list[DisqualifiedMsg]:
    """The players disqualified in the round (取消比赛资格, `scoresheet.disqualified`): the hub leaves them out
    of the next rounds' seating (`StateMsg.disqualified`)."""
    keys = DisqualifiedMsg.model_fields
    return [DisqualifiedMsg(**{k: d[k] for k in keys if k in d}) for d in sheet.get("disqualified") or []]

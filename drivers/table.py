"""The asyncio table API: `await table.raise_walls()`, `async for ev in table.events()`.

`open_table(url)` connects (RESET, identify), then keeps the link alive: on unplug or silence
it reconnects with backoff, replays the handshake, resends pending commands (the table's
request cache makes them run once) and receives the events it missed (numbered, replayed,
deduplicated). See docs/protocol.md for the wire side.
"""

from __future__ import annotations

import asyncio
import logging
import random
import struct
from dataclasses import dataclass
from typing import Any

from drivers import messages as msgs
from drivers.api import BaseTable, Capabilities, TableEvent, TableInfo, TableStatus
from drivers.clock import Clock, SystemClock
from drivers.errors import TableError, TransportError
from drivers.faults import fault_fields
from drivers.link import SILENCE_TIMEOUT, Delivery, Link, LinkHealth
from drivers.transport import Transport, open_transport

__all__ = ["BaseTable", "Capabilities", "Table", "TableError", "TableEvent", "TableInfo", "TableStatus",
           "open_table"]

log = logging.getLogger(__name__)
wire_log = logging.getLogger("drivers.wire")

# Handshake and reconnection timing (protocol.md §5-6), seconds.
RESET_INTERVAL = 0.25
RESET_TRIES = 12
IDENTIFY_TIMEOUT = 3.0
COMMAND_TIMEOUT = 15.0
BACKOFF_FIRST = 0.1
BACKOFF_MAX = 5.0
#: A link that falls within this long of coming up does not start the backoff again: a board that answers
#: the handshake and then drops (a firmware crash loop, a bridge dropping each connection) was linked again
#: every 0.1 s for as long as it ran, a link_up and a link_down each time (the controller's `STEADY_LINK_S`).
STEADY_LINK = 5.0

DIALECTS = ("mahjong-link", "remote-control")

#: Why each URL would not open, as last logged: a board left unplugged (or without its udev rule) is said
#: once at info, and again only when the reason changes; each try said it (seven lines per connect of the
#: service, a connect every few seconds, all day). Forgotten once the port opens.
_OPEN_ERROR_SAID: dict[str, str] = {}


@dataclass
class _Pending:
    """A command sent and not yet answered; resent after a reconnect unless `name` is "handshake"."""

    req: int
    name: str
    type: int
    payload: bytes
    future: asyncio.Future[dict[str, Any]]


def _capabilities(values: dict[str, Any]) -> Capabilities:
    counts = tuple(values["tile_counts"])
    lengths = values["wall_lengths"]
    walls: dict[int, tuple[int, int, int, int]] = {}
    for i, count in enumerate(counts):
        four = tuple(lengths[4 * i: 4 * i + 4])
        if len(four) == 4:
            walls[count] = (four[0], four[1], four[2], four[3])
    f = values["features"]
    bit = msgs.FEATURE_BITS
    return Capabilities(counts, walls, values["dice"], bool(f >> bit["machine_dealt"] & 1),
                        bool(f >> bit["seat_buttons"] & 1), bool(f >> bit["seat_lights"] & 1),
                        bool(f >> bit["buzzer"] & 1), bool(f >> bit["tile_counter"] & 1))


class Table(BaseTable):
    """A table speaking mahjong-link, kept connected across unplugs."""

    def __init__(self, url: str, clock: Clock, *, reconnect: bool = True,
                 command_timeout: float = COMMAND_TIMEOUT, transport_options: dict[str, Any] | None = None,
                 resume: tuple[int, int] | None = None) -> None:
        super().__init__(clock)
        self.url = url
        self._reconnect = reconnect
        self._command_timeout = command_timeout
        self._transport_options = transport_options or {}
        self.health = LinkHealth()
        self._link: Link = Link(silence_timeout=SILENCE_TIMEOUT, health=self.health)
        self._transport: Transport | None = None
        self._rx: asyncio.Queue[bytes | BaseException | None] = asyncio.Queue()
        self._host_id = random.getrandbits(32) or 1
        self._next_req = 1
        self._pending: dict[int, _Pending] = {}
        # What the host last saw of this table (protocol.md §5): a restarted host that kept a
        # record resumes from it (`resume`), so the table replays only what the record lacks.
        self._boot_id, self._last_event = resume if resume is not None else (0, 0)
        self._up = asyncio.Event()
        self._closing = False
        self._runner: asyncio.Task[None] | None = None
        self._reader: asyncio.Task[None] | None = None
        self._first: asyncio.Future[None] | None = None
        self._reset_nonce: int | None = None
        self._reset_acked = asyncio.Event()
        self._events_ended = False
        self._behind = 0  # heartbeats in a row that announced events we do not have
        self._holding = False  # during a handshake: replayed events wait until link_up is out
        self._held: list[tuple[str, dict[str, Any], int]] = []
        self._refused = False  # this connection's table speaks another protocol version: read nothing more
        self._last_error: TableError | None = None  # why the last connection ended, in words
        self.reconnects = 0
        self._up_at = 0.0  # when the link last came up, on `clock`: a link that fell soon keeps the backoff
        #: Why the port would not open on the last try (None once it opened): a connect that times
        #: out says this, not what the link heard, when the port never opened at all.
        self.open_error: str | None = None
        self.duplicate_events = 0
        self.missed_events = 0

    # ----- life cycle
    async def _start(self) -> None:
        loop = asyncio.get_running_loop()
        self._first = loop.create_future()
        self._runner = loop.create_task(self._run(), name=f"table-link {self.url}")
        try:
            await self._first
        except BaseException:
            await self.close()
            raise

    @property
    def link_task(self) -> asyncio.Task[None] | None:
        return self._runner

    @property
    def last_event(self) -> int:
        """The number of the last table event received (0 before any)."""
        return self._last_event

    async def close(self) -> None:
        """Stop the link; pending commands fail with `closed`. Idempotent."""
        self._closing = True
        if self._runner is not None:
            self._runner.cancel()
            await asyncio.gather(self._runner, return_exceptions=True)
            self._runner = None
        await self._drop_transport()
        self._fail_pending(TableError("the table link was closed", "closed"))
        if not self._events_ended:
            self._events_ended = True
            self._end_events()

    def _fail_pending(self, exc: TableError, keep: str = "") -> None:
        for req, p in list(self._pending.items()):
            if p.name == keep:
                continue
            if not p.future.done():
                p.future.set_exception(exc)
            self._pending.pop(req, None)

    async def _read_loop(self, transport: Transport) -> None:
        try:
            while True:
                data = await transport.read()
                self._rx.put_nowait(data)
        except TransportError as exc:
            self._rx.put_nowait(exc)

    def _kick(self) -> None:
        self._rx.put_nowait(None)

    async def _run(self) -> None:
        backoff = BACKOFF_FIRST
        while not self._closing:
            reason = "cannot_open"
            try:
                try:
                    self._transport = await open_transport(self.url, **self._transport_options)
                except TransportError as exc:
                    self.open_error = str(exc)
                    raise
                self.open_error = None
                if _OPEN_ERROR_SAID.pop(self.url, None) is not None:
                    log.info("table %s: opened", self.url)
                self._rx = asyncio.Queue()
                self._reader = asyncio.get_running_loop().create_task(self._read_loop(self._transport))
                reason = await self._session()
                log.info("table %s: link ended (%s)", self.url, reason)
                if reason == "protocol_version" and self._first is not None and not self._first.done():
                    await self._drop_transport()  # another protocol: trying again cannot help
                    self._first.set_exception(self._last_error or TableError(reason, reason))
                    return
            except (TableError, OSError) as exc:
                reason = getattr(exc, "code", "os_error")
                if self._first is not None and not self._first.done() and not self._reconnect:
                    await self._drop_transport()
                    self._first.set_exception(exc if isinstance(exc, TableError)
                                              else TableError(f"cannot use {self.url}: {exc}", reason))
                    return
                if self.open_error is None or _OPEN_ERROR_SAID.get(self.url) != self.open_error:
                    log.info("table %s: %s", self.url, exc)
                    if self.open_error is not None:
                        _OPEN_ERROR_SAID[self.url] = self.open_error
                else:
                    log.debug("table %s: %s", self.url, exc)
            if self.health.up:
                self.health.up = False
                self._up.clear()
                self._emit("link_down", {"reason": reason})
                held = self.clock.now() - self._up_at
                if held >= STEADY_LINK:
                    backoff = BACKOFF_FIRST  # a link that held: tried again after the first, short wait
                else:
                    log.info("table %s: the link fell %.1f s after it came up; next try in %g s",
                             self.url, held, backoff)
            await self._drop_transport()
            if not self._reconnect:
                if self._first is not None and not self._first.done():
                    why = self._last_error if self._last_error is not None else reason
                    self._first.set_exception(TableError(f"cannot reach the table at {self.url}: {why} "
                                                         f"({heard(self.health)})", reason))
                self._fail_pending(TableError(f"the link to the table went down ({reason})", "link_down"))
                return
            await self.clock.sleep(backoff)
            backoff = min(backoff * 2, BACKOFF_MAX)
            self.reconnects += 1
            self.health.reconnects = self.reconnects

    async def _session(self) -> str:
        """One connection: handshake, then pump bytes until the link goes down; returns why."""
        assert self._transport is not None
        self._link.reset()
        self.health.last_heard = None
        pump = asyncio.get_running_loop().create_task(self._pump())
        self._held = []
        self._holding = True
        self._refused = False
        self._last_error = None
        try:
            st = await self._handshake()
            self.health.up = True
            self._up_at = self.clock.now()
            self._kick()  # the pump recomputes its deadline: silence detection starts now
            self._up.set()
            if self._first is not None and not self._first.done():
                self._first.set_result(None)
            # Order for the consumer: link_up, then the replayed events, then live ones.
            self._emit("link_up", {"url": self.url, "boot_id": self._boot_id, "reconnects": self.reconnects})
            self._holding = False
            for name, fields, seq in self._held:
                self._emit(name, fields, seq)
            self._held = []
            if st is not None:
                self._resync(st)
            self._resend_pending()
            return await pump
        except TableError as exc:
            self._last_error = exc
            return exc.code
        except Exception:
            log.exception("table %s: link task failed", self.url)
            raise
        finally:
            self._holding = False
            pump.cancel()
            await asyncio.gather(pump, return_exceptions=True)

    async def _handshake(self) -> dict[str, Any] | None:
        """RESET, identify, status (protocol.md §5); events replayed meanwhile are held back."""
        for _ in range(RESET_TRIES):
            self._reset_nonce = random.getrandbits(32)
            self._reset_acked.clear()
            self._link.reset()
            self._link.send_reset(self._reset_nonce)
            self._flush()
            try:
                await self.clock.wait_for(self._reset_acked.wait(), RESET_INTERVAL)
                break
            except TimeoutError:
                continue
        else:
            raise TableError(f"no answer from {self.url} to RESET ({RESET_TRIES} tries)", "no_answer")
        try:
            values = await self.clock.wait_for(
                self._send_request("identify", host_id=self._host_id, boot_id=self._boot_id,
                                   last_event=self._last_event, resend=False), IDENTIFY_TIMEOUT)
        except TimeoutError:
            raise TableError(f"no identity from {self.url}", "no_identity") from None
        if values["_name"] != "identity":
            raise TableError(f"the table refused identify: {values.get('text', '')}", "no_identity")
        try:
            st = await self.clock.wait_for(self._send_request("status", resend=False), IDENTIFY_TIMEOUT)
        except TimeoutError:
            raise TableError(f"no status from {self.url}", "no_identity") from None
        return st if st["_name"] == "status_report" else None

    def _resend_pending(self) -> None:
        """Commands pending from before the unplug go again; the table's request cache runs each once."""
        for p in sorted(self._pending.values(), key=lambda p: p.req):
            if p.name != "handshake":
                self._link.send(p.type, p.payload, self.clock.now())
        self._flush()

    def _resync(self, st: dict[str, Any]) -> None:
        """Take the phase and the set of faults from `status`, in case more events were missed
        than the table's ring could replay (the display must not show a fault that is gone)."""
        self.phase = st["phase"]
        now_faults = set(st["faults"])
        for code in list(self.faults):
            if code not in now_faults:
                del self.faults[code]
        for code in now_faults - set(self.faults):
            self.faults[code] = fault_fields(code, "?")

    def _flush(self) -> None:
        data = self._link.take_output()
        if data and self._transport is not None:
            if wire_log.isEnabledFor(logging.DEBUG - 5):  # raw bytes only at the very verbose level
                wire_log.log(logging.DEBUG - 5, ">>> %s", data.hex(" "))
            try:
                self._transport.write(data)
            except TransportError as exc:
                self._rx.put_nowait(exc)

    async def _pump(self) -> str:
        while True:
            deadline = self._link.next_deadline()
            timeout = None if deadline is None else max(0.0, deadline - self.clock.now())
            try:
                item = await self.clock.wait_for(self._rx.get(), timeout)
            except TimeoutError:
                item = None
            now = self.clock.now()
            if isinstance(item, BaseException):
                return getattr(item, "code", "unplugged")
            deliveries: list[Delivery] = []
            if item:
                deliveries += self._link.receive(item, now)
            deliveries += self._link.poll(now)
            for d in deliveries:
                if d.kind == "down":
                    self._flush()
                    return d.reason
                self._deliver(d)
            self._flush()

    def _deliver(self, d: Delivery) -> None:
        if d.kind == "reset_ack":
            if d.nonce == self._reset_nonce:
                self._reset_acked.set()
            return
        if d.kind == "reset":  # answered once, with its nonce (protocol.md §5.1)
            self._link.send_control(msgs.RESET_ACK, struct.pack(">I", d.nonce))
            self._flush()
            if not self._reset_acked.is_set():
                # Still waiting for our own RESET's answer: that RESET resets the table anyway,
                # and this one was sent before the table saw ours (its boot announcement).
                return
            # The table rebooted and says so: the handshake starts over.
            self._reset_acked.clear()
            self._rx.put_nowait(TableError("the table reset the link (it restarted)", "table_reset"))
            return
        if self._refused:
            return  # a table of another protocol version: its frames may mean other things
        try:
            # fields a newer firmware appended are ignored (protocol.md §7): it still speaks to us
            msg, values = msgs.decode(d.type, d.payload, trailing_ok=True)
        except msgs.MessageError as exc:
            log.warning("table %s sent a frame we cannot read: %s", self.url, exc)
            if msgs.EVENT_TYPES.start <= d.type < msgs.EVENT_TYPES.stop and len(d.payload) >= 4:
                # a numbered event this host cannot read (a newer firmware's type, or fields it added):
                # its number still counts, or the numbering would stall on it and the host resync
                # every few seconds for good; the record says what came
                ev = struct.unpack_from(">I", d.payload)[0]
                self._on_event("unreadable", {"ev": ev, "type": f"0x{d.type:02X}", "error": str(exc),
                                              "payload": d.payload[4:].hex()})
            return
        if wire_log.isEnabledFor(logging.DEBUG):
            wire_log.debug("<<< %s", msg.format(values))
        if msg.name == "identity":
            refusal = msgs.version_refusal(values["protocol"])
            if refusal is not None:  # refused at connect, before any of its events is numbered
                self._refused = True
                p = self._pending.pop(values["req"], None)
                if p is not None and not p.future.done():
                    p.future.set_exception(TableError(refusal, "protocol_version"))
                return
            self._on_identity(values)  # now, before the replayed events behind it are numbered
        if msg.kind == "reply":
            p = self._pending.pop(values["req"], None)
            if p is not None and not p.future.done():
                p.future.set_result({"_name": msg.name, **values})
        elif msg.kind == "event":
            self._on_event(msg.name, values)
        elif msg.kind == "heartbeat" and not self._holding:
            self.phase = values["phase"]
            self._emit("heartbeat", {"uptime_ms": values["uptime_ms"], "phase": values["phase"],
                                     "last_event": values["last_event"]})
            self._check_numbering(values["last_event"])

    def _check_numbering(self, table_last: int) -> None:
        """A safety net under RESET: heartbeats say which event the table numbered last.

        Fewer than we have: it restarted without our noticing. More, three heartbeats running:
        events are stuck somewhere. Either way a fresh handshake resynchronises (replay by number).
        """
        if table_last < self._last_event:
            self._rx.put_nowait(TableError("the table's event numbers went back: it restarted", "table_reset"))
        elif table_last > self._last_event:
            self._behind += 1
            if self._behind >= 3:
                self._behind = 0
                self._rx.put_nowait(TableError("events the table numbered did not arrive; resynchronising",
                                               "events_behind"))
        else:
            self._behind = 0

    def _on_identity(self, values: dict[str, Any]) -> None:
        boot_id = values["boot_id"]
        if boot_id == self._boot_id and values.get("last_event", 0) < self._last_event:
            # the same boot id but fewer events than we hold: a new boot whose id happens to match
            # (32 random bits), which replayed nothing; start again from its first event
            self._last_event = 0
            self._rx.put_nowait(TableError("the table's event numbers went back: it restarted", "table_reset"))
        if self._boot_id and boot_id != self._boot_id:
            self._last_event = 0  # a new boot numbers its events from 1 again
            self._fail_pending(TableError(
                "the table restarted (power or brown-out) while the command was pending; it was not repeated",
                "table_restarted"), keep="handshake")
        self._boot_id = boot_id
        self.info = TableInfo(values["protocol"], values["firmware"], values["serial"], _capabilities(values),
                              "mahjong-link", self.url, boot_id)

    def _on_event(self, name: str, values: dict[str, Any]) -> None:
        ev = values.pop("ev")
        if ev <= self._last_event:
            self.duplicate_events += 1
            return
        if ev != self._last_event + 1:
            if not self._holding:
                # A live event ahead of the next one (a firmware that sent them out of order): taken
                # now, the ones it skipped would later be dropped as duplicates and lost for good.
                # The replay of a fresh handshake brings them all, in order, from the ring.
                self._rx.put_nowait(TableError(f"event {ev} came before event {self._last_event + 1}; "
                                               "resynchronising", "events_behind"))
                return
            self.missed_events += ev - self._last_event - 1  # the replay skips what the ring lost
        self._last_event = ev
        if name == "fault_raised":
            values = fault_fields(values["code"], values["where"])
        elif name == "dice":
            values["dice"] = list(values["dice"])
        if self._holding:
            self._held.append((name, values, ev))
        else:
            self._emit(name, values, ev)

    # ----- requests
    async def _send_request(self, name: str, resend: bool = True, **fields: Any) -> dict[str, Any]:
        req = self._next_req
        self._next_req = self._next_req % 0xFFFF + 1
        try:
            type_, payload = msgs.encode(name, req=req, **fields)
        except msgs.MessageError as exc:
            raise TableError(str(exc), "bad_argument") from None
        if wire_log.isEnabledFor(logging.DEBUG):
            wire_log.debug(">>> %s", msgs.describe(type_, payload))
        fut: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._pending[req] = _Pending(req, name if resend else "handshake", type_, payload, fut)
        self._link.send(type_, payload, self.clock.now())
        self._flush()
        self._kick()
        try:
            return await fut
        finally:
            self._pending.pop(req, None)

    async def _command(self, name: str, **fields: Any) -> dict[str, Any]:
        """Send a command once the link is up; raise TableError with the table's reason if refused."""
        if self._closing:
            raise TableError("the table link is closed", "closed")
        try:
            await self.clock.wait_for(self._up.wait(), self._command_timeout)
            reply = await self.clock.wait_for(self._send_request(name, **fields), self._command_timeout)
        except TimeoutError:
            raise TableError(f"{name}: no reply from the table within {self._command_timeout:g} s "
                             f"(link {'up' if self.health.up else 'down'}); whether it ran is unknown, "
                             "ask status", "timeout") from None
        if reply["_name"] == "result" and reply["code"] != 0:
            code = msgs.RESULT_CODES.get(reply["code"], f"code_{reply['code']}")
            raise TableError(f"{name} refused by the table: {reply['text'] or code}", code)
        return reply

    async def status(self) -> TableStatus:
        r = await self._command("status")
        st = TableStatus(r["phase"], r["tile_count"], r["next_tile_count"], r["set_ready"], r["dealer"],
                         tuple(r["faults"]), r["last_event"], r["uptime_ms"])
        self.phase = st.phase
        return st

    async def ping(self, data: bytes = b"") -> float:
        """Round-trip time of one `ping` on this clock, in seconds."""
        t0 = self.clock.now()
        r = await self._command("ping", data=data)
        if bytes(r["data"]) != data:
            raise TableError("pong carried different data than the ping", "bad_reply")
        return self.clock.now() - t0

    async def debug(self, text: str) -> str:
        """Simulator only: an in-band fault-injection command (see `tablectl sim --help`)."""
        return str((await self._command("debug", text=text))["text"])


async def open_table(url: str, clock: Clock | None = None, *, dialect: str = "mahjong-link",
                     reconnect: bool = True, connect_timeout: float | None = 10.0,
                     command_timeout: float = COMMAND_TIMEOUT, resume: tuple[int, int] | None = None,
                     **transport_options: Any) -> BaseTable:
    """Connect to a table and finish the handshake; `table.info` is then filled.

    With `reconnect=True` (the default) the link survives unplugs; `connect_timeout` bounds
    only the first connection. `resume` = (boot id, event number) of the last table event the
    host's record holds: the table then replays only the events after it (same boot) or all it
    still has (it rebooted). Transport options (`usb_backend`, `baudrate`) pass through.
    """
    clock = clock or SystemClock()
    if dialect == "remote-control":
        from drivers.remote import RemoteTable

        remote = RemoteTable(url, clock, transport_options=transport_options)
        await remote._start()
        return remote
    if dialect != "mahjong-link":
        raise TableError(f"unknown dialect {dialect!r}; use one of {', '.join(DIALECTS)}", "bad_argument")
    table = Table(url, clock, reconnect=reconnect, command_timeout=command_timeout,
                  transport_options=transport_options, resume=resume)
    try:
        await clock.wait_for(table._start(), connect_timeout)
    except TimeoutError:
        await table.close()
        if table.open_error:  # the port never opened: a missing device, no permission, not "nothing came back"
            raise TableError(f"{table.open_error} (still, after {connect_timeout:g} s)", "cannot_open") from None
        raise TableError(f"牌桌无应答：{heard_zh(table.health)} / no table answered at {url} within "
                         f"{connect_timeout:g} s ({heard(table.health)})", "no_answer") from None
    return table


def heard(health: LinkHealth) -> str:
    """What the link heard while no handshake came: a firmware engineer's first clue (a table whose
    every frame has a bad CRC looked the same as no cable at all)."""
    parts = []
    if health.crc_errors:
        parts.append(f"{health.crc_errors} frames with a bad CRC: protocol.md §2, CRC-16/CCITT-FALSE")
    if health.out_of_order or health.duplicates:
        parts.append(f"{health.out_of_order + health.duplicates} frames out of sequence: protocol.md §3, SEQ")
    if health.frames_received:
        parts.append(f"{health.frames_received} good frames, but no handshake: protocol.md §5")
    if health.junk_bytes and not parts:
        parts.append(f"{health.junk_bytes} bytes that were no frame: the baud rate, or another device")
    return "; ".join(parts) if parts else "nothing came back: the cable, the port, the table's power"


def heard_zh(health: LinkHealth) -> str:
    """`heard` in the venue technician's words, for the display: a wrong baud rate reads as bytes that are
    never a frame, and it was said in English only."""
    if health.crc_errors:
        return f"收到 {health.crc_errors} 个校验（CRC）错误的帧，请核对固件或线路干扰"
    if health.out_of_order or health.duplicates:
        return f"收到 {health.out_of_order + health.duplicates} 个序号不对的帧，请核对固件"
    if health.frames_received:
        return f"收到 {health.frames_received} 个完好的帧，但牌桌未完成握手，请核对固件"
    if health.junk_bytes:
        return f"收到 {health.junk_bytes} 字节无法成帧，请检查波特率（或是否接了别的设备）"
    return "没有收到任何数据，请检查连接线、串口和牌桌电源"

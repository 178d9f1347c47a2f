"""The simulated table's firmware: the table's side of mahjong-link over a pty, TCP or USB.

It keeps the event ring, the request cache and the boot id exactly as docs/protocol.md asks a
real table to, damages the cable as its `FaultPlan` says, and drives a `Mechanism` (the
machine itself) by the protocol's command names. Everything runs on the injected clock.
"""

from __future__ import annotations

import asyncio
import logging
import random
import struct
from collections import OrderedDict, deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from drivers import messages as msgs
from drivers.clock import Clock, SystemClock
from drivers.link import Delivery, Link
from tablesim import scenario
from tablesim.faults import FaultPlan, LinkDamage
from tablesim.mechanism import Mechanism, Refused, SimError
from tablesim.physics import WALL_LENGTHS, Timings

log = logging.getLogger(__name__)

EVENT_RING = 256
REQUEST_CACHE = 32
BOOT_RESET_INTERVAL = 0.5
FIRMWARE = "tablesim 1.0"
#: Seconds of line time a late timer may catch up on (an event loop wakes a millisecond or so
#: late; without this the paced line would lose that much per frame and look slower than a UART).
UART_SLACK = 0.01


@dataclass
class _Conn:
    """One cable end (a pty or a TCP client) with its own link state."""

    name: str
    write: Callable[[bytes], None]
    link: Link = field(default_factory=Link)
    identified: bool = False
    unplugged: bool = False
    rx: asyncio.Queue[bytes | None] = field(default_factory=asyncio.Queue)
    task: asyncio.Task[None] | None = None
    boot_nonce: int | None = None
    remote_buf: bytearray = field(default_factory=bytearray)
    line: deque[bytes] = field(default_factory=deque)
    uart: asyncio.Task[None] | None = None


class SimTable:
    """A whole automatic table in software: mechanism, buttons, dice, faults and firmware."""

    def __init__(self, seed: int = 1, clock: Clock | None = None, *, dialect: str = "mahjong-link",
                 autopilot: bool = False, tile_count: int = 144, dice: int = 2,
                 faults: FaultPlan | str | None = None, timings: Timings | None = None,
                 serial: str | None = None, ruleset: Any = None, baud: int | None = None) -> None:
        if dialect not in ("mahjong-link", "remote-control"):
            raise SimError(f"unknown dialect {dialect!r}: mahjong-link or remote-control")
        if tile_count not in WALL_LENGTHS:
            raise SimError(f"tile count {tile_count} not one of {sorted(WALL_LENGTHS)}")
        if dice not in (2, 3):
            raise SimError("a dice unit has 2 or 3 dice")
        self.seed = seed
        self.baud = baud  # pace what the table sends at this line rate (None: as fast as the port takes it)
        self.ruleset = ruleset  # optional rules-engine Ruleset: its tile set when its count is built
        self.clock = clock or SystemClock()
        self.dialect = dialect
        self.autopilot = autopilot
        self.dice_count = dice
        self.plan = faults if isinstance(faults, FaultPlan) else FaultPlan.parse(faults)
        self.timings = timings or Timings.default()
        self.serial = serial or f"SIM-{seed:06d}"
        self._rng_wall = random.Random(f"{seed}:wall")
        self._rng_dice = random.Random(f"{seed}:dice")
        self._rng_boot = random.Random(f"{seed}:boot")
        self.damage = LinkDamage(self.plan, random.Random(f"{seed}:link"))
        self._tile_count = tile_count
        self.buzzes: list[int] = []  # every buzzer command the table ran, across reboots (a bench record)
        self._conns: list[_Conn] = []
        self._ports: list[Any] = []
        self._tasks: set[asyncio.Task[Any]] = set()
        self._usb: Any = None
        self._closed = False
        self._stalled_until = 0.0
        self._brownout_armed = bool(self.plan.brownout_on)
        self._unplug_armed = bool(self.plan.unplug_on)
        self._unplug_before_armed = bool(self.plan.unplug_before)
        self.commands_executed: list[str] = []  # every command the firmware ran (not cached repeats)
        self.events_sent = 0
        self._boot(reason=0)

    # ----- state
    def _boot(self, reason: int) -> None:
        """Power on: a fresh boot id, an idle machine, an empty event ring and request cache."""
        # random per power-on, as protocol.md §5 asks of a table, not drawn from the seed: two runs of
        # one seed are two boots, and a host that kept its record must tell them apart
        self.boot_id = random.SystemRandom().getrandbits(32) or 1
        self.boot_time = self.clock.now()
        self.mech = Mechanism(self.clock, self.timings, emit=self._event, spawn=self._spawn,
                              tile_count=self._tile_count, dice=self.dice_count, rng_wall=self._rng_wall,
                              rng_dice=self._rng_dice, ruleset=self.ruleset, autopilot=self.autopilot,
                              buzzes=self.buzzes)
        self._ring: deque[tuple[int, int, bytes]] = deque(maxlen=EVENT_RING)
        self.last_event = 0
        self._cache: OrderedDict[int, tuple[int, bytes]] = OrderedDict()
        self._host_id = 0
        self._event("hello", boot_id=self.boot_id, reason=reason)

    # ----- the machine's state, as tests and the demo read it
    @property
    def phase(self) -> str:
        return self.mech.phase

    @property
    def wall(self) -> dict[str, str] | None:
        """The arrangement on the table surface if the walls are up, else the set built below."""
        return self.mech.wall

    @property
    def next_wall(self) -> dict[str, str] | None:
        """The set built under the table while a hand is played (None until built)."""
        return self.mech.next_wall

    @property
    def faults(self) -> dict[int, str]:
        return self.mech.faults

    @property
    def dealer(self) -> str:
        return self.mech.dealer

    @property
    def prevalent(self) -> str | None:
        return self.mech.prevalent

    @property
    def turn(self) -> str | None:
        return self.mech.turn

    @property
    def tile_count(self) -> int:
        return self.mech.tile_count

    @property
    def next_tile_count(self) -> int:
        return self.mech.next_tile_count

    def _spawn(self, coro: Any, name: str) -> asyncio.Task[Any]:
        task = asyncio.get_running_loop().create_task(coro, name=f"tablesim {name}")
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    # ----- serving
    async def serve_pty(self) -> str:
        """Serve the table's side on a new real pty; returns the slave's path for the driver."""
        from tablesim.ports import PtyPort

        conn = _Conn("pty", write=lambda b: None)
        port = PtyPort(lambda data: self._on_bytes(conn, data))
        conn.write = port.write
        self._ports.append(port)
        self._add_conn(conn)
        return port.path

    async def serve_tcp(self, port: int = 0, host: str = "127.0.0.1") -> int:
        """Serve on TCP (one client at a time); returns the bound port."""
        from tablesim.ports import TcpPort

        conn = _Conn("tcp", write=lambda b: None)

        def connected() -> None:
            self._replug(conn)

        server = TcpPort(lambda data: self._on_bytes(conn, data), connected)
        conn.write = server.write
        bound = await server.start(port, host)
        self._ports.append(server)
        self._add_conn(conn)
        return bound

    async def serve_usb(self, vid: int = 0x1A86, pid: int = 0x7523) -> Any:
        """A virtual pyusb backend whose one device is this table; pass it as `usb_backend`."""
        from tablesim.usb import SimUsbBackend

        conn = _Conn("usb", write=lambda b: None)
        backend = SimUsbBackend(self, conn, vid, pid)
        conn.write = backend.send
        self._usb = backend
        self._add_conn(conn)
        return backend

    def _add_conn(self, conn: _Conn) -> None:
        conn.link.paced = self.baud is not None
        self._conns.append(conn)
        conn.task = self._spawn(self._pump(conn), f"{conn.name} pump")
        if not any(t.get_name() == "tablesim heartbeat" for t in self._tasks):
            self._spawn(self._heartbeats(), "heartbeat")
            if self.plan.unplug_every:
                self._spawn(self._periodic(self.plan.unplug_every, self.plan.unplug_for, self.unplug), "unplugs")
            if self.plan.stall_every:
                self._spawn(self._periodic(self.plan.stall_every, self.plan.stall_for, self.stall), "stalls")
        if self.dialect == "mahjong-link":
            self._start_boot_reset(conn)

    def _on_bytes(self, conn: _Conn, data: bytes) -> None:
        if conn.unplugged or self.clock.now() < self._stalled_until:
            return
        conn.rx.put_nowait(data)

    async def close(self) -> None:
        """Stop every task and close every port; no fd or task is left behind."""
        self._closed = True
        for t in list(self._tasks):
            t.cancel()
        await asyncio.gather(*list(self._tasks), return_exceptions=True)
        for p in self._ports:
            r = p.close()
            if asyncio.iscoroutine(r):
                await r
        self._ports.clear()
        self._conns.clear()

    async def __aenter__(self) -> SimTable:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    # ----- the link, per connection
    def _flush(self, conn: _Conn) -> None:
        for frame in conn.link.take_frames():
            self._write(conn, frame)

    def _write(self, conn: _Conn, frame: bytes) -> None:
        if conn.unplugged:
            return
        pieces = self.damage.outbound(frame)
        queued = False
        for delay, piece, is_frame in pieces:
            if delay:
                self._spawn(self._late_write(conn, delay, piece), "late write")
            elif self.baud:
                control = len(piece) > 4 and piece[:2] == b"\xa5\x5a" and piece[4] < 0x10
                if control:
                    conn.line.appendleft(piece)
                else:
                    conn.line.append(piece)
                queued = queued or is_frame
                if conn.uart is None or conn.uart.done():
                    conn.uart = self._spawn(self._uart(conn), f"{conn.name} uart")
            else:
                conn.write(piece)
        if self.baud and not queued and frame[4] >= 0x10:
            conn.link.left_wire(frame[3], self.clock.now())  # lost or delayed on the cable: its timer runs

    async def _uart(self, conn: _Conn) -> None:
        """Send at the line rate: 10 bits a byte (8N1), so benches measure against a real UART.

        A frame leaves when the line is free and is written once its last byte would have
        left the wire. Link-control frames (ACK, NAK) jump the queue, as a firmware's TX
        priority would have them, so an ACK never waits behind eight full frames.
        """
        assert self.baud
        free_at = self.clock.now()
        while conn.line:
            piece = conn.line.popleft()
            now = self.clock.now()
            free_at = max(free_at, now - UART_SLACK) + len(piece) * 10 / self.baud  # catch up late timers
            if free_at > now:
                await self.clock.sleep(free_at - now)
            if not conn.unplugged:
                conn.write(piece)
                if len(piece) > 4 and piece[:2] == b"\xa5\x5a" and piece[4] >= 0x10:
                    conn.link.left_wire(piece[3], self.clock.now())  # its timer starts now

    async def _late_write(self, conn: _Conn, delay: float, piece: bytes) -> None:
        await self.clock.sleep(delay)
        if not conn.unplugged:
            conn.write(piece)

    async def _pump(self, conn: _Conn) -> None:
        while True:
            deadline = conn.link.next_deadline()
            timeout = None if deadline is None else max(0.0, deadline - self.clock.now())
            try:
                item = await self.clock.wait_for(conn.rx.get(), timeout)
            except TimeoutError:
                item = None
            now = self.clock.now()
            deliveries: list[Delivery] = []
            if item:
                if self.dialect == "remote-control":
                    self._remote_bytes(conn, self.damage.inbound(item))
                    continue
                deliveries += conn.link.receive(self.damage.inbound(item), now)
            deliveries += conn.link.poll(now)
            for d in deliveries:
                if d.kind == "reset":
                    conn.link.reset()
                    conn.identified = False
                    conn.boot_nonce = None
                    conn.link.send_control(msgs.RESET_ACK, struct.pack(">I", d.nonce))
                elif d.kind == "reset_ack":
                    if conn.boot_nonce is not None and d.nonce == conn.boot_nonce:
                        conn.boot_nonce = None
                elif d.kind == "down":
                    # The host stopped acknowledging: forget the frames in flight; the host
                    # replays events by number and resends commands when it comes back.
                    conn.link.reset()
                    conn.identified = False
                elif d.kind == "message":
                    try:
                        self._on_message(conn, d.type, d.payload)
                    except Exception:  # noqa: BLE001 - a firmware bug must not kill the link; log it loudly
                        log.exception("tablesim: command 0x%02X failed", d.type)
            self._flush(conn)

    def _kick(self, conn: _Conn) -> None:
        conn.rx.put_nowait(None)

    def _replug(self, conn: _Conn) -> None:
        """A fresh cable: old bytes and link state are gone; the host will RESET and identify."""
        while not conn.rx.empty():
            conn.rx.get_nowait()
        conn.line.clear()
        conn.link.reset()
        conn.identified = False
        conn.remote_buf = bytearray()
        self._kick(conn)

    def _start_boot_reset(self, conn: _Conn) -> None:
        """After boot the table announces itself with RESET until the host answers (protocol.md §5)."""
        conn.boot_nonce = self._rng_boot.getrandbits(32)
        self._spawn(self._boot_reset_loop(conn, conn.boot_nonce), "boot reset")

    async def _boot_reset_loop(self, conn: _Conn, nonce: int) -> None:
        while conn.boot_nonce == nonce:
            conn.link.send_reset(nonce)
            self._flush(conn)
            await self.clock.sleep(BOOT_RESET_INTERVAL)

    def _send(self, conn: _Conn, name: str, **values: Any) -> None:
        type_, payload = msgs.encode(name, **values)
        conn.link.send(type_, payload, self.clock.now())
        self._kick(conn)

    def _event(self, name: str, **values: Any) -> None:
        type_, payload = msgs.encode(name, ev=self.last_event + 1, **values)
        self._numbered(type_, payload)

    def newer_event(self, type_: int, fields: bytes = b"") -> None:
        """Send a numbered event as a newer firmware would: a type this protocol version does not
        define, or a known one with `fields` (the bytes after `ev`) longer than it knows. The host
        must count it and go on (for table makers and tests)."""
        if type_ not in msgs.EVENT_TYPES:
            raise ValueError(f"0x{type_:02X} is not an event type (0x90..0x9E)")
        self._numbered(type_, (self.last_event + 1).to_bytes(4, "big") + fields)

    def _numbered(self, type_: int, payload: bytes) -> None:
        self.last_event += 1
        self._ring.append((self.last_event, type_, payload))
        self.events_sent += 1
        for conn in getattr(self, "_conns", []):
            if conn.identified:
                conn.link.send(type_, payload, self.clock.now())
                self._kick(conn)

    async def _heartbeats(self) -> None:
        while True:
            await self.clock.sleep(self.timings.heartbeat)
            if self.dialect != "mahjong-link":
                continue
            for conn in self._conns:
                if conn.identified and not conn.unplugged and self.clock.now() >= self._stalled_until:
                    self._send(conn, "heartbeat", uptime_ms=self._uptime_ms(), phase=self.mech.phase,
                               last_event=self.last_event)

    def _uptime_ms(self) -> int:
        return int((self.clock.now() - self.boot_time) * 1000) & 0xFFFFFFFF

    # ----- commands
    def _on_message(self, conn: _Conn, type_: int, payload: bytes) -> None:
        req = int.from_bytes(payload[:2], "big") if len(payload) >= 2 else 0
        cached = self._cache.get(req) if type_ != 0x10 else None
        if cached is not None:  # a resent command: answer again, never run it twice
            conn.link.send(cached[0], cached[1], self.clock.now())
            return
        msg = msgs.BY_TYPE.get(type_)
        if msg is None or msg.kind != "command":
            self._reply(conn, req, "result", req=req, code=msgs.RESULT_IDS["unknown_command"],
                        text=f"unknown command type 0x{type_:02X}")
            return
        try:
            values = msg.decode(payload)
        except msgs.MessageRangeError as exc:  # a seat code no side has: a field out of range (§7)
            self._reply(conn, req, "result", req=req, code=msgs.RESULT_IDS["bad_argument"], text=str(exc))
            return
        except msgs.MessageError as exc:
            self._reply(conn, req, "result", req=req, code=msgs.RESULT_IDS["malformed"], text=str(exc))
            return
        if self._brownout_armed and msg.name == self.plan.brownout_on:
            self._brownout_armed = False
            self.brown_out()
            return
        if self._unplug_before_armed and msg.name == self.plan.unplug_before:
            self._unplug_before_armed = False
            self._pull_cable()  # the command was on its way when the cable came out: never run, never answered
            self._spawn(self._unplugged(self.plan.unplug_for, already=True), "unplug")
            return
        if msg.name == "identify":
            self._identify(conn, values)
            return
        self.commands_executed.append(msg.name)
        try:
            reply = self._run_command(msg.name, values)
        except Refused as r:
            reply = ("result", {"code": msgs.RESULT_IDS[r.code], "text": r.text})
        name, fields = reply
        if self._unplug_armed and msg.name == self.plan.unplug_on:
            self._unplug_armed = False
            self._pull_cable()  # the command ran; its reply is lost with the link
            self._spawn(self._unplugged(self.plan.unplug_for, already=True), "unplug")
        self._reply(conn, req, name, req=req, **fields)

    def _reply(self, conn: _Conn, req_no: int, name: str, **values: Any) -> None:
        if "text" in values:  # a reason must fit one frame: cut it at a character boundary
            values["text"] = values["text"].encode("utf-8")[:110].decode("utf-8", "ignore")
        type_, payload = msgs.encode(name, **values)
        self._cache[req_no] = (type_, payload)
        while len(self._cache) > REQUEST_CACHE:
            self._cache.popitem(last=False)
        conn.link.send(type_, payload, self.clock.now())

    def _identify(self, conn: _Conn, v: dict[str, Any]) -> None:
        if v["host_id"] != self._host_id:
            self._host_id = v["host_id"]
            self._cache.clear()
        counts = tuple(sorted(WALL_LENGTHS, reverse=True))
        lengths = tuple(n for c in counts for n in WALL_LENGTHS[c])
        features = sum(1 << b for b in msgs.FEATURE_BITS.values())
        type_, payload = msgs.encode(
            "identity", req=v["req"], protocol=msgs.PROTOCOL_VERSION, firmware=FIRMWARE, serial=self.serial,
            boot_id=self.boot_id, tile_counts=counts, wall_lengths=lengths, dice=self.dice_count,
            features=features, last_event=self.last_event)
        conn.link.send(type_, payload, self.clock.now())
        after = v["last_event"] if v["boot_id"] == self.boot_id else 0
        for ev, etype, epayload in self._ring:
            if ev > after:
                conn.link.send(etype, epayload, self.clock.now())
        conn.identified = True
        conn.boot_nonce = None

    def _run_command(self, name: str, values: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        """Answer the firmware's own commands; hand the machine's to the mechanism by name."""
        args = {k: v for k, v in values.items() if k != "req"}
        if name == "status":
            return "status_report", {**self.mech.status(), "last_event": self.last_event,
                                     "uptime_ms": self._uptime_ms()}
        if name == "ping":
            return "pong", {"data": args["data"]}
        if name == "debug":
            try:
                return "result", {"code": 0, "text": self.do(args["text"])}
            except SimError as exc:
                raise Refused("bad_argument", str(exc)) from None
        getattr(self.mech, name)(**args)  # set_tile_count(count=...), raise_walls(), roll_dice(seat=...) ...
        return "result", {"code": 0, "text": ""}

    def do(self, line: str) -> str:
        """Run one bench command (`fault jam chain`, `press E`, `unplug 2`...; see `tablesim.scenario`)."""
        return scenario.run_command(self, line)

    async def run_scenario(self, lines: list[str] | str) -> None:
        """Play a scenario file's lines `SECONDS COMMAND` on this table's clock."""
        await scenario.play(self, lines)

    # ----- the people at the table and the test bench
    def press_button(self, seat: str, button: str = "dice") -> None:
        """A player presses a button on their side; the dice button also rolls the dice."""
        self.mech.press_button(seat, button)

    def autopilot_next_thrower(self, seat: str) -> None:
        """Demo players: the named seat presses its dice button after a short pause."""
        self.mech.autopilot_next_thrower(seat)

    def raise_fault(self, fault: str | int, where: str = "table") -> None:
        """A fault appears (jam, missing_tile, extra_tile, motor, overheat, centre_open, sensor, power, dice)."""
        self.mech.raise_fault(fault, where)

    def clear_fault(self, fault: str | int) -> None:
        """The fault's cause is gone."""
        self.mech.clear_fault(fault)

    def press_reset(self) -> None:
        """The attendant presses the board's reset key (复位), as the jam's and the dice's remedies say:
        what the host's `reset` does (motors stop, the set is dropped, jam and dice clear, phase idle)."""
        self.mech.reset()

    def brown_out(self) -> None:
        """The supply dips: the firmware restarts, forgets everything, and says so (RESET, hello)."""
        self.mech.stop()
        self._boot(reason=1)
        for conn in self._conns:
            conn.link.reset()
            conn.identified = False
            if self.dialect == "mahjong-link":
                self._start_boot_reset(conn)

    def unplug(self, duration: float = 0.5) -> None:
        """Pull the cable for `duration` seconds: nothing crosses it (a TCP client is disconnected)."""
        self._spawn(self._unplugged(duration), "unplug")

    async def _unplugged(self, duration: float, already: bool = False) -> None:
        if not already:
            self._pull_cable()
        usb = self._usb
        try:
            await self.clock.sleep(duration)
        finally:
            if usb is not None:
                usb.plugged = True
            for port in self._ports:
                if hasattr(port, "discard_input"):
                    port.discard_input()
                if hasattr(port, "refuse"):
                    port.refuse = False
            for conn in self._conns:
                conn.unplugged = False
                self._replug(conn)

    def _pull_cable(self) -> None:
        for conn in self._conns:
            conn.unplugged = True
        for port in self._ports:
            if hasattr(port, "drop_client"):
                port.refuse = True
                port.drop_client()
        if self._usb is not None:
            self._usb.plugged = False

    def stall(self, duration: float = 0.5) -> None:
        """The firmware hangs for `duration` seconds: bytes received meanwhile are lost."""
        self._stalled_until = self.clock.now() + duration

    async def _periodic(self, every: float, duration: float, action: Callable[[float], None]) -> None:
        while True:
            await self.clock.sleep(every)
            action(duration)

    # the remote-control dialect's table side lives in tablesim.remote
    def _remote_bytes(self, conn: _Conn, data: bytes) -> None:
        from tablesim.remote import handle_remote_bytes

        handle_remote_bytes(self, conn, data)


# kept importable from here: tests and the CLI check scenarios before a run
parse_scenario = scenario.parse_scenario
__all__ = ["SimError", "SimTable", "parse_scenario"]

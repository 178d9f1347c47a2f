"""The simulated table: its firmware (the table's side of mahjong-link) and its mechanism, on a clock.

The mechanism is a small state machine (idle → building → ready → raising → walls_raised →
playing → lowering → ready/building) driven by timers on the injected clock, so a 60-second
build costs milliseconds under a `VirtualClock`. The firmware keeps the event ring, the
request cache and the boot id exactly as docs/protocol.md asks a real table to.
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
from drivers.faults import BY_CODE, BY_ID, FaultKind
from drivers.link import Delivery, Link
from tablesim.faults import FaultPlan, LinkDamage
from tablesim.physics import SIDES, WALL_LENGTHS, Timings, arrange

log = logging.getLogger(__name__)

EVENT_RING = 256
REQUEST_CACHE = 32
BOOT_RESET_INTERVAL = 0.5
FIRMWARE = "tablesim 1.0"


class SimError(ValueError):
    """A simulator call that makes no sense (unknown seat, fault, dialect); the text says why."""


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
        self.tile_count = tile_count        # the set built now / last
        self.next_tile_count = tile_count   # the setting for the next build
        self.dealer = "E"
        self.prevalent: str | None = "E"
        self.turn: str | None = None
        self.buzzes: list[int] = []
        self._conns: list[_Conn] = []
        self._ports: list[Any] = []
        self._tasks: set[asyncio.Task[Any]] = set()
        self._mech: asyncio.Task[None] | None = None
        self._background: asyncio.Task[None] | None = None
        self._closed = False
        self._stalled_until = 0.0
        self._brownout_armed = bool(self.plan.brownout_on)
        self._unplug_armed = bool(self.plan.unplug_on)
        self.commands_executed: list[str] = []  # every command the firmware ran (not cached repeats)
        self.events_sent = 0
        self._boot(reason=0)

    # ----- state
    def _boot(self, reason: int) -> None:
        self.boot_id = self._rng_boot.getrandbits(32) or 1
        self.boot_time = self.clock.now()
        self.phase = "idle"
        self.faults: dict[int, str] = {}
        self.built: dict[str, str] | None = None
        self.up: dict[str, str] | None = None
        self._ring: deque[tuple[int, int, bytes]] = deque(maxlen=EVENT_RING)
        self.last_event = 0
        self._cache: OrderedDict[int, tuple[int, bytes]] = OrderedDict()
        self._host_id = 0
        self._event("hello", boot_id=self.boot_id, reason=reason)

    @property
    def wall(self) -> dict[str, str] | None:
        """The arrangement on the table surface if the walls are up, else the set built below."""
        return self.up if self.up is not None else self.built

    @property
    def next_wall(self) -> dict[str, str] | None:
        """The set built under the table while a hand is played (None until built)."""
        return self.built if self.up is not None else None

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
        conn.write = backend.to_host.put
        self._usb = backend
        self._add_conn(conn)
        return backend

    def _add_conn(self, conn: _Conn) -> None:
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
        for delay, piece in self.damage.outbound(frame):
            if delay:
                self._spawn(self._late_write(conn, delay, piece), "late write")
            elif self.baud:
                control = len(piece) > 4 and piece[:2] == b"\xa5\x5a" and piece[4] < 0x10
                if control:
                    conn.line.appendleft(piece)
                else:
                    conn.line.append(piece)
                if conn.uart is None or conn.uart.done():
                    conn.uart = self._spawn(self._uart(conn), f"{conn.name} uart")
            else:
                conn.write(piece)

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
            free_at = max(free_at, now - 0.002) + len(piece) * 10 / self.baud  # catch up a late timer
            if free_at > now:
                await self.clock.sleep(free_at - now)
            if not conn.unplugged:
                conn.write(piece)

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
        self.last_event += 1
        type_, payload = msgs.encode(name, ev=self.last_event, **values)
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
                    self._send(conn, "heartbeat", uptime_ms=self._uptime_ms(), phase=self.phase,
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
        except msgs.MessageError as exc:
            self._reply(conn, req, "result", req=req, code=msgs.RESULT_IDS["malformed"], text=str(exc))
            return
        if self._brownout_armed and msg.name == self.plan.brownout_on:
            self._brownout_armed = False
            self.brown_out()
            return
        if msg.name == "identify":
            self._identify(conn, values)
            return
        self.commands_executed.append(msg.name)
        handler = getattr(self, f"_cmd_{msg.name}")
        try:
            reply = handler(values)
        except _Refused as r:
            reply = ("result", {"code": msgs.RESULT_IDS[r.code], "text": r.text})
        name, fields = reply if reply is not None else ("result", {"code": 0, "text": ""})
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

    def _status_fields(self) -> dict[str, Any]:
        return {"phase": self.phase, "tile_count": self.tile_count, "next_tile_count": self.next_tile_count,
                "set_ready": self.built is not None, "dealer": self.dealer,
                "faults": tuple(sorted(self.faults)), "last_event": self.last_event,
                "uptime_ms": self._uptime_ms()}

    def _cmd_status(self, v: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        return "status_report", self._status_fields()

    def _cmd_ping(self, v: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        return "pong", {"data": v["data"]}

    def _cmd_set_tile_count(self, v: dict[str, Any]) -> None:
        if v["count"] not in WALL_LENGTHS:
            raise _Refused("bad_argument", f"tile count {v['count']} not one of {sorted(WALL_LENGTHS)}")
        self.next_tile_count = v["count"]

    def _blocking(self, part: str) -> FaultKind | None:
        for code in self.faults:
            kind = BY_CODE[code]
            if part in kind.blocks:
                return kind
        return None

    def _need(self, part: str) -> None:
        kind = self._blocking(part)
        if kind is not None:
            raise _Refused("fault_active", f"{kind.name_zh} ({kind.name_en}) at {self.faults[kind.code]}")

    def _cmd_start_shuffle(self, v: dict[str, Any]) -> None:
        if self.phase != "idle":
            raise _Refused("bad_phase", f"start_shuffle needs phase idle, the table is {self.phase}")
        self._need("build")
        self._set_phase("building")
        self._background = self._spawn(self._build(then_ready=True), "build")

    def _cmd_raise_walls(self, v: dict[str, Any]) -> None:
        if self.phase != "ready":
            raise _Refused("bad_phase", f"raise_walls needs phase ready, the table is {self.phase}")
        self._need("lift")
        self._mech = self._spawn(self._raise(), "raise")

    def _cmd_lower_walls(self, v: dict[str, Any]) -> None:
        if self.phase not in ("walls_raised", "playing"):
            raise _Refused("bad_phase", f"lower_walls needs the walls up, the table is {self.phase}")
        self._need("lift")
        self._mech = self._spawn(self._lower(), "lower")

    def _cmd_roll_dice(self, v: dict[str, Any]) -> None:
        if v["seat"] is None:
            raise _Refused("bad_argument", "roll_dice needs a seat")
        self._need("dice")
        self._spawn(self._roll(v["seat"]), "dice")

    def _cmd_seat_lights(self, v: dict[str, Any]) -> None:
        self.dealer = v["dealer"] or self.dealer
        self.prevalent = v["prevalent"]
        self.turn = v["turn"]

    def _cmd_buzzer(self, v: dict[str, Any]) -> None:
        if v["ms"] > 5000:
            raise _Refused("bad_argument", f"buzzer ms {v['ms']} is over 5000")
        self.buzzes.append(v["ms"])

    def _cmd_reset(self, v: dict[str, Any]) -> None:
        for t in (self._mech, self._background):
            if t is not None:
                t.cancel()
        self._mech = self._background = None
        self.built = self.up = None
        for code in list(self.faults):
            if code in (1, 9):  # latched faults a reset clears once the tile is out / the dice checked
                self.clear_fault(code)
        self._set_phase("idle")

    def _cmd_debug(self, v: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        try:
            text = self.do(v["text"])
        except SimError as exc:
            raise _Refused("bad_argument", str(exc)) from None
        return "result", {"code": 0, "text": text}

    def do(self, line: str) -> str:
        """Run one bench command (the in-band `debug` text and the scenario file's lines).

        `fault ID [WHERE]`, `clear ID`, `press SEAT [BUTTON]`, `brownout`, `unplug [S]`,
        `stall [S]`, `tile_count N`, `help`. SimError says what is wrong with a line.
        """
        words = line.split()
        if not words or words[0] == "help":
            return DEBUG_HELP
        cmd, args = words[0], words[1:]
        try:
            if cmd == "fault" and args:
                self.raise_fault(args[0], " ".join(args[1:]) or "table")
            elif cmd == "clear" and args:
                self.clear_fault(args[0])
            elif cmd == "press" and args:
                self.press_button(args[0], args[1] if len(args) > 1 else "dice")
            elif cmd == "brownout":
                asyncio.get_running_loop().call_soon(self.brown_out)
            elif cmd == "unplug":
                self.unplug(float(args[0]) if args else 0.5)
            elif cmd == "stall":
                self.stall(float(args[0]) if args else 0.5)
            else:
                raise SimError(f"unknown bench command {line!r}; try 'help'")
        except ValueError as exc:
            raise SimError(f"{line!r}: {exc}") from None
        return "done"

    async def run_scenario(self, lines: list[str] | str) -> None:
        """Play a scenario: lines `SECONDS COMMAND...` (times from the start), `#` comments.

        Validated before it starts, so a typo fails at once with its line number, not a
        minute into the run.
        """
        steps = parse_scenario(lines)
        start = self.clock.now()
        for at, command in steps:
            await self.clock.sleep(max(0.0, start + at - self.clock.now()))
            self.do(command)

    # ----- the mechanism
    def _set_phase(self, phase: str) -> None:
        if phase != self.phase:
            self.phase = phase
            self._event("phase", phase=phase)

    async def _run_for(self, seconds: float, part: str) -> None:
        """Let a motor run `seconds` of working time; time under a fault blocking `part` does not count."""
        left = seconds
        tick = self.timings.tick
        while left > 1e-9:
            if self._blocking(part) is not None:
                await self.clock.sleep(tick)
                continue
            step = min(tick, left)
            await self.clock.sleep(step)
            left -= step

    async def _build(self, then_ready: bool) -> None:
        count = self.next_tile_count
        await self._run_for(self.timings.build[count], "build")
        self.tile_count = count
        self.built = arrange(count, self._rng_wall, self.ruleset)
        self._event("tile_count", count=len(self.built), expected=count)
        if self.phase == "building":
            self._set_phase("ready")

    async def _raise(self) -> None:
        self._set_phase("raising")
        await self._run_for(self.timings.raise_walls, "lift")
        self.up, self.built = self.built, None
        self._set_phase("walls_raised")
        # The tiles of the last hand are in the hopper: build the next set during play.
        self._background = self._spawn(self._build(then_ready=False), "next build")
        if self.autopilot:
            self._spawn(self._autopress(self.dealer), "autopilot")

    async def _lower(self) -> None:
        self._set_phase("lowering")
        await self._run_for(self.timings.lower_walls, "lift")
        self.up = None
        self._set_phase("ready" if self.built is not None else "building")

    async def _roll(self, seat: str) -> None:
        await self.clock.sleep(self.timings.dice_settle)
        values = tuple(self._rng_dice.randint(1, 6) for _ in range(self.dice_count))
        self._event("dice", seat=seat, dice=values)
        if self.phase == "walls_raised":
            self._set_phase("playing")

    async def _autopress(self, seat: str) -> None:
        await self.clock.sleep(self.timings.autopilot_pause)
        self.press_button(seat, "dice")

    # ----- the people at the table and the test bench
    def press_button(self, seat: str, button: str = "dice") -> None:
        """A player presses a button on their side; the dice button also rolls the dice."""
        if seat not in SIDES:
            raise SimError(f"seat {seat!r} is not one of {', '.join(SIDES)}")
        if button not in msgs.BUTTONS:
            raise SimError(f"button {button!r} is not one of {', '.join(msgs.BUTTONS)}")
        self._event("button", seat=seat, button=button)
        if button == "dice" and self._blocking("dice") is None:
            self._spawn(self._roll(seat), "dice")

    def autopilot_next_thrower(self, seat: str) -> None:
        """Demo players: the named seat presses its dice button after a short pause."""
        if seat not in SIDES:
            raise SimError(f"seat {seat!r} is not one of {', '.join(SIDES)}")
        self._spawn(self._autopress(seat), "autopilot")

    def raise_fault(self, fault: str | int, where: str = "table") -> None:
        """A fault appears (jam, missing_tile, motor, overheat, centre_open, sensor, power, dice)."""
        kind = self._kind(fault)
        if kind.code in self.faults:
            return
        self.faults[kind.code] = where
        self._event("fault_raised", code=kind.code, where=where)

    def clear_fault(self, fault: str | int) -> None:
        kind = self._kind(fault)
        if self.faults.pop(kind.code, None) is not None:
            self._event("fault_cleared", code=kind.code)

    @staticmethod
    def _kind(fault: str | int) -> FaultKind:
        if isinstance(fault, int) or (isinstance(fault, str) and fault.isdigit()):
            kind = BY_CODE.get(int(fault))
        else:
            kind = BY_ID.get(fault)
        if kind is None:
            raise SimError(f"unknown fault {fault!r}; known: {', '.join(BY_ID)}")
        return kind

    def brown_out(self) -> None:
        """The supply dips: the firmware restarts, forgets everything, and says so (RESET, hello)."""
        for t in (self._mech, self._background):
            if t is not None:
                t.cancel()
        self._mech = self._background = None
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
        usb = getattr(self, "_usb", None)
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
        usb = getattr(self, "_usb", None)
        if usb is not None:
            usb.plugged = False

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


class _Refused(Exception):
    """A command the firmware refuses, with the result code and the reason."""

    def __init__(self, code: str, text: str) -> None:
        super().__init__(text)
        self.code, self.text = code, text


DEBUG_HELP = "fault ID [WHERE] | clear ID | press SEAT [BUTTON] | brownout | unplug [S] | stall [S]"
_SCENARIO_VERBS = {"fault": 1, "clear": 1, "press": 1, "brownout": 0, "unplug": 0, "stall": 0}


def parse_scenario(lines: list[str] | str) -> list[tuple[float, str]]:
    """`[(seconds, command)]` from a scenario text; SimError names the bad line."""
    if isinstance(lines, str):
        lines = lines.splitlines()
    steps: list[tuple[float, str]] = []
    for n, raw in enumerate(lines, 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        when, _, command = line.partition(" ")
        try:
            at = float(when)
        except ValueError:
            raise SimError(f"scenario line {n}: {when!r} is not a time in seconds") from None
        words = command.split()
        if not words or words[0] not in _SCENARIO_VERBS or len(words) - 1 < _SCENARIO_VERBS[words[0]]:
            raise SimError(f"scenario line {n}: {command.strip()!r} is not a bench command ({DEBUG_HELP})")
        if words[0] in ("fault", "clear"):
            SimTable._kind(words[1])
        if words[0] == "press" and words[1] not in SIDES:
            raise SimError(f"scenario line {n}: seat {words[1]!r} is not one of {', '.join(SIDES)}")
        steps.append((at, command.strip()))
    return sorted(steps, key=lambda s: s[0])

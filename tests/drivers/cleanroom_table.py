"""A table's side of `mahjong-link` written from docs/protocol.md alone (not from drivers/ or tablesim).

Why: a table maker implements the board from the document; this board is that maker, kept as a test
fixture so that the host and `tablectl conform` are checked against the document, not against the
simulator that grew up beside them. It imports nothing from the project. Where the document leaves a
choice open, the choice made here is marked `DOC:`.

Run by hand: `python tests/drivers/cleanroom_table.py --pty` (or `--tcp PORT`); `--speed` runs the
mechanism faster.
"""

from __future__ import annotations

import argparse
import os
import random
import select
import socket
import struct
import sys
import termios
import threading
import time
import tty
from collections import OrderedDict, deque
from collections.abc import Callable
from dataclasses import dataclass, field

# -- §2 frame -------------------------------------------------------------------------------------

SOF = b"\xa5\x5a"
MAX_PAYLOAD = 120
ACK, NAK, RESET, RESET_ACK = 0x01, 0x02, 0x03, 0x04


def crc16(data: bytes) -> int:
    """CRC-16/CCITT-FALSE: poly 0x1021, init 0xFFFF, no reflection, no final XOR (§2)."""
    crc = 0xFFFF
    for byte in data:
        crc ^= byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) & 0xFFFF if crc & 0x8000 else (crc << 1) & 0xFFFF
    return crc


def frame(seq: int, mtype: int, payload: bytes = b"") -> bytes:
    body = bytes([len(payload), seq & 0xFF, mtype]) + payload
    return SOF + body + crc16(body).to_bytes(2, "big")


# -- §7 messages ------------------------------------------------------------------------------------

class Malformed(Exception):
    """The payload does not match the message's fields (result code 6)."""


def u16s(values: list[int]) -> bytes:
    return bytes([len(values)]) + b"".join(v.to_bytes(2, "big") for v in values)


def u8s(values: bytes | list[int]) -> bytes:
    return bytes([len(values)]) + bytes(values)


def text(s: str) -> bytes:
    raw = s.encode()[:110]  # §12: reason texts under 110 bytes, cut at a character boundary
    while raw:
        try:
            raw.decode()
            break
        except UnicodeDecodeError:
            raw = raw[:-1]
    return bytes([len(raw)]) + raw


class Reader:
    """Reads a command's fields strictly: short or surplus bytes are `Malformed` (§7: the table stays strict)."""

    def __init__(self, data: bytes) -> None:
        self.data, self.pos = data, 0

    def take(self, n: int) -> bytes:
        if self.pos + n > len(self.data):
            raise Malformed("payload too short")
        out = self.data[self.pos:self.pos + n]
        self.pos += n
        return out

    def u8(self) -> int:
        return self.take(1)[0]

    def u16(self) -> int:
        return int.from_bytes(self.take(2), "big")

    def u32(self) -> int:
        return int.from_bytes(self.take(4), "big")

    def u8s(self) -> bytes:
        return self.take(self.u8())

    def str(self) -> str:
        try:
            return self.take(self.u8()).decode()
        except UnicodeDecodeError as exc:
            raise Malformed("text is not UTF-8") from exc

    def end(self) -> None:
        if self.pos != len(self.data):
            raise Malformed(f"{len(self.data) - self.pos} bytes past the last field")


T_RESULT, T_IDENTITY, T_STATUS, T_PONG = 0x80, 0x81, 0x82, 0x83
E_HELLO, E_PHASE, E_DICE, E_BUTTON, E_TILE_COUNT, E_FAULT, E_FAULT_CLEARED, T_HEARTBEAT = (
    0x90, 0x91, 0x92, 0x93, 0x94, 0x95, 0x96, 0x9F)
OK, BAD_PHASE, BAD_ARGUMENT, UNSUPPORTED, FAULT_ACTIVE, UNKNOWN, MALFORMED = range(7)
IDLE, BUILDING, READY, RAISING, WALLS_RAISED, PLAYING, LOWERING = range(7)
PHASES = ["idle", "building", "ready", "raising", "walls_raised", "playing", "lowering"]
SEATS = "ESWN"
NONE_SEAT = 0xFF
BUTTONS = ["dice", "start", "raise", "lower"]
FAULTS = ["", "jam", "missing_tile", "extra_tile", "motor", "overheat", "centre_open", "sensor", "power", "dice"]
#: §9's *stops* column: the parts each fault stops, whatever its `where` (§8)
STOPS = {"jam": "build lift", "missing_tile": "lift", "extra_tile": "lift", "motor": "build lift",
         "overheat": "build lift", "centre_open": "build lift", "sensor": "build", "power": "build lift",
         "dice": "dice"}
CLEARED_BY_RESET = ("jam", "dice")  # §7 reset: the faults whose remedy ends "按复位"
WALLS = {144: [18, 18, 18, 18], 136: [17, 17, 17, 17], 108: [14, 13, 14, 13]}
BUILD_S = {144: 60.0, 136: 57.0, 108: 45.0}  # §8 typical times
RAISE_S, LOWER_S, DICE_S = 6.0, 8.0, 1.0


# -- §3 the link -----------------------------------------------------------------------------------

@dataclass
class InFlight:
    seq: int
    data: bytes
    sent_at: float
    sends: int = 1


@dataclass
class LinkStats:
    junk_bytes: int = 0
    crc_errors: int = 0
    naks_sent: int = 0
    retransmits: int = 0
    duplicates: int = 0


class Link:
    """Framing, ACK/NAK, window of 8, RTO and retry limit (§2-§4); fed bytes and the time, writes bytes out."""

    WINDOW, RETRIES, TORN_S = 8, 8, 0.100

    def __init__(self, write: Callable[[bytes], None], deliver: Callable[[int, bytes], None],
                 control: Callable[[int, bytes], None], append: bool = False) -> None:
        self.write, self.deliver, self.control = write, deliver, control
        self.append = b"\x00" if append else b""
        self.stats = LinkStats()
        self.buf = bytearray()
        self.partial_since: float | None = None
        self.reset_counters()

    def reset_counters(self) -> None:
        """§5.1: on RESET both counters go to 0 and every in-flight frame is forgotten."""
        self.send_seq = 0
        self.expected = 0
        self.nak_sent = False
        self.in_flight: list[InFlight] = []
        self.queue: deque[tuple[int, bytes]] = deque()
        self.srtt: float | None = None
        self.rttvar = 0.0
        self.rto = 0.250

    # receiving
    def feed(self, data: bytes, now: float) -> None:
        self.buf += data
        self._scan(now)

    def _scan(self, now: float) -> None:
        while True:
            start = self.buf.find(SOF)
            if start < 0:
                # a lone 0xA5 at the end may be the start of the next frame
                keep = 1 if self.buf.endswith(b"\xa5") else 0
                self.stats.junk_bytes += len(self.buf) - keep
                del self.buf[:len(self.buf) - keep]
                self.partial_since = now if keep else None
                return
            if start:
                self.stats.junk_bytes += start
                del self.buf[:start]
            if len(self.buf) < 3:
                self.partial_since = self.partial_since or now
                return
            n = self.buf[2]
            if n > MAX_PAYLOAD:
                self._false_start()
                continue
            if len(self.buf) < n + 7:
                if self.partial_since is None:
                    self.partial_since = now
                return
            raw = bytes(self.buf[:n + 7])
            if crc16(raw[2:-2]) != int.from_bytes(raw[-2:], "big"):
                self.stats.crc_errors += 1
                self._nak()
                self._false_start()
                continue
            del self.buf[:n + 7]
            self.partial_since = None
            self._frame(raw[3], raw[4], raw[5:-2], now)

    def _false_start(self) -> None:
        """§4: discard only the first byte of a false start and scan again."""
        self.stats.junk_bytes += 1
        del self.buf[:1]
        self.partial_since = None

    def _nak(self) -> None:
        """§3: NAK(expected), at most once until `expected` moves."""
        if not self.nak_sent:
            self.nak_sent = True
            self.stats.naks_sent += 1
            self.write(frame(self.expected, NAK))

    def _frame(self, seq: int, mtype: int, payload: bytes, now: float) -> None:
        if mtype == ACK:
            self._acked(seq, now)
        elif mtype == NAK:
            # §3: NAK(n) also says every frame before n arrived (DOC: said since this board was written)
            self._acked(seq, now)
            for f in self.in_flight:
                self._resend(f, now)
        elif mtype in (RESET, RESET_ACK):
            self.control(mtype, payload)
        elif mtype >= 0x10:
            back = (self.expected - seq) % 256
            if seq == self.expected:
                self.expected = (self.expected + 1) % 256
                self.nak_sent = False
                self.write(frame(self.expected, ACK))
                self.deliver(mtype, payload)
            elif 1 <= back <= 128:
                self.stats.duplicates += 1
                self.write(frame(self.expected, ACK))
            else:
                self._nak()
        # DOC: link control types 0x05..0x0F are not defined; ignored.

    def _acked(self, n: int, now: float) -> None:
        while self.in_flight and (n - self.in_flight[0].seq) % 256 in range(1, self.WINDOW + 1):
            f = self.in_flight.pop(0)
            if f.sends == 1:  # Karn's rule
                self._measure(now - f.sent_at)
        self._pump(now)

    def _measure(self, r: float) -> None:
        if self.srtt is None:
            self.srtt, self.rttvar = r, r / 2
        else:
            self.rttvar = 0.75 * self.rttvar + 0.25 * abs(self.srtt - r)
            self.srtt = 0.875 * self.srtt + 0.125 * r
        self.rto = min(max(self.srtt + 4 * self.rttvar, 0.025), 1.0)

    # sending
    def send(self, mtype: int, payload: bytes, now: float) -> None:
        self.queue.append((mtype, payload + self.append))
        self._pump(now)

    def _pump(self, now: float) -> None:
        while self.queue and len(self.in_flight) < self.WINDOW:
            mtype, payload = self.queue.popleft()
            f = InFlight(self.send_seq, frame(self.send_seq, mtype, payload), now)
            self.send_seq = (self.send_seq + 1) % 256
            self.in_flight.append(f)
            self.write(f.data)

    def _resend(self, f: InFlight, now: float) -> None:
        f.sends += 1
        f.sent_at = now
        self.stats.retransmits += 1
        self.write(f.data)

    def poll(self, now: float) -> None:
        """Timers: the torn-frame limit (§4) and the retransmission timeout and retry limit (§3)."""
        if self.partial_since is not None and now - self.partial_since > self.TORN_S:
            # §3, §4: a torn frame is a "truncated" one, NAKed like a bad CRC (the host's link did not)
            self._nak()
            self._false_start()
            self._scan(now)
        if self.in_flight and now - self.in_flight[0].sent_at >= self.rto:
            if self.in_flight[0].sends >= self.RETRIES:
                # §12: the host went quiet: forget the frames in flight, keep the ring.
                self.in_flight.clear()
                self._pump(now)
                return
            self.rto = min(self.rto * 2, 1.0)
            for f in self.in_flight:
                self._resend(f, now)


# -- §5-§9 the board -------------------------------------------------------------------------------

@dataclass
class Fault:
    code: int
    where: str


@dataclass
class Board:
    """The controller board: link, handshake, request cache, events, heartbeats and the mechanism (§5-§9)."""

    write_bytes: Callable[[bytes], None]
    speed: float = 1.0
    dice_count: int = 2
    features: int = 0b11111
    serial: str = "CR-0001"
    firmware: str = "cleanroom 1.0"
    seed: int = 1
    reason: int = 0
    boot_id: int = 0
    tile_counts: tuple[int, ...] = (144, 136, 108)
    early: bool = False  # DOC variant: events and heartbeats flow as soon as the link is reset, before identify
    newer: bool = False  # §7 variant: a newer firmware appends a field (one byte 0x00) to every message it sends
    link: Link = field(init=False)
    now: Callable[[], float] = time.monotonic

    def __post_init__(self) -> None:
        self.rng = random.Random(self.seed)
        self.boot_id = self.boot_id or self.rng.getrandbits(32) or 1
        self.t0 = self.now()
        self.link = Link(self.write_bytes, self._command, self._control, self.newer)
        self.ring: deque[tuple[int, int, bytes]] = deque(maxlen=256)
        self.last_event = 0
        self.host_id: int | None = None
        self.cache: OrderedDict[int, tuple[int, bytes]] = OrderedDict()
        self.identified = False  # §5: no events or heartbeats on a fresh link until identify (DOC: now said)
        self.boot_nonce: int | None = self.rng.getrandbits(32)
        self.next_boot_reset = self.t0
        self.next_heartbeat = 0.0
        self.timers: list[tuple[float, str, Callable[[], None]]] = []
        self.phase = IDLE
        self.tile_count = self.next_tile_count = self.tile_counts[0]
        self.set_ready = False
        self.next_build_left: float | None = None  # seconds of build left while `playing` / paused
        self.short_by = 0  # debug `lose N` / `add N`: tiles missing (>0) or extra (<0) at the next count
        self.faults: dict[int, Fault] = {}
        self.dealer = self.prevalent = self.turn = NONE_SEAT
        self.executed: list[tuple[int, int]] = []  # (type, req) actually run: a test sees duplicates
        self._event(E_HELLO, struct.pack(">IB", self.boot_id, self.reason))

    # time and timers
    def uptime_ms(self) -> int:
        return int((self.now() - self.t0) * 1000) & 0xFFFFFFFF

    def after(self, seconds: float, name: str, fn: Callable[[], None]) -> None:
        self.timers.append((self.now() + seconds / self.speed, name, fn))

    def cancel(self, name: str) -> None:
        self.timers = [t for t in self.timers if t[1] != name]

    def feed(self, data: bytes) -> None:
        self.link.feed(data, self.now())

    def poll(self) -> None:
        now = self.now()
        self.link.poll(now)
        if self.boot_nonce is not None and now >= self.next_boot_reset:
            self.write_bytes(frame(0, RESET, self.boot_nonce.to_bytes(4, "big")))
            self.next_boot_reset = now + 0.5
        if self.identified and now >= self.next_heartbeat:
            self.next_heartbeat = now + 1.0
            self.link.send(T_HEARTBEAT, struct.pack(">IBI", self.uptime_ms(), self.phase, self.last_event), now)
        due = [t for t in self.timers if t[0] <= now]
        self.timers = [t for t in self.timers if t[0] > now]
        for _, _, fn in sorted(due, key=lambda t: t[0]):
            fn()

    # §5.1
    def _control(self, mtype: int, payload: bytes) -> None:
        if len(payload) != 4:
            return  # DOC: a RESET without its nonce is not answered
        nonce = int.from_bytes(payload, "big")
        if mtype == RESET:
            self.boot_nonce = None
            self.link.reset_counters()
            self.identified = self.early
            self.write_bytes(frame(0, RESET_ACK, payload))
        elif mtype == RESET_ACK and nonce == self.boot_nonce:
            self.boot_nonce = None
            self.link.reset_counters()
            self.identified = self.early

    # events
    def _event(self, mtype: int, fields: bytes) -> None:
        self.last_event += 1
        payload = self.last_event.to_bytes(4, "big") + fields
        self.ring.append((self.last_event, mtype, payload))
        if self.identified:
            self.link.send(mtype, payload, self.now())

    def _reply(self, mtype: int, req: int, fields: bytes, cache: bool = True) -> None:
        payload = req.to_bytes(2, "big") + fields
        if cache:
            self.cache[req] = (mtype, payload)
            self.cache.move_to_end(req)
            while len(self.cache) > 32:
                self.cache.popitem(last=False)
        self.link.send(mtype, payload, self.now())

    def _result(self, req: int, code: int, why: str = "", cache: bool = True) -> None:
        self._reply(T_RESULT, req, bytes([code]) + text(why), cache)

    # commands (§7)
    def _command(self, mtype: int, payload: bytes) -> None:
        handler = COMMANDS.get(mtype)
        if len(payload) < 2:
            # §5: no req to answer with: answered with req 0 (DOC: now said)
            self._result(0, MALFORMED if handler else UNKNOWN, "no req")
            return
        req = int.from_bytes(payload[:2], "big")
        if mtype != 0x10 and req in self.cache:  # §5: identify is always run (DOC: now said)
            cached_type, cached = self.cache[req]
            self.link.send(cached_type, cached, self.now())
            return
        if handler is None:
            self._result(req, UNKNOWN, f"unknown command 0x{mtype:02X}")
            return
        r = Reader(payload[2:])
        try:
            handler(self, req, r)
        except Malformed as exc:
            self._result(req, MALFORMED, f"malformed: {exc}")  # §5: refusals are remembered too (DOC: now said)

    def c_identify(self, req: int, r: Reader) -> None:
        host_id, boot_id, last_event = r.u32(), r.u32(), r.u32()
        r.end()
        if host_id != self.host_id:
            self.host_id = host_id
            self.cache.clear()
        self.executed.append((0x10, req))
        caps = WALLS
        fields = (struct.pack(">H", 1) + text(self.firmware) + text(self.serial) + struct.pack(">I", self.boot_id)
                  + u16s(list(self.tile_counts)) + u8s([n for c in self.tile_counts for n in caps[c]])
                  + bytes([self.dice_count, self.features]) + struct.pack(">I", self.last_event))
        self._reply(T_IDENTITY, req, fields, cache=False)
        since = last_event if boot_id == self.boot_id else 0
        now = self.now()
        for ev, mtype, data in self.ring:
            if ev > since:
                self.link.send(mtype, data, now)
        self.identified = True
        self.next_heartbeat = now + 1.0

    def c_status(self, req: int, r: Reader) -> None:
        r.end()
        self.executed.append((0x11, req))
        fields = struct.pack(">BHHBB", self.phase, self.tile_count, self.next_tile_count, self.set_ready,
                             self.dealer) + u8s(sorted(self.faults)) + struct.pack(">II", self.last_event,
                                                                                    self.uptime_ms())
        self._reply(T_STATUS, req, fields)

    def c_set_tile_count(self, req: int, r: Reader) -> None:
        count = r.u16()
        r.end()
        self.executed.append((0x12, req))
        if count not in self.tile_counts:
            self._result(req, BAD_ARGUMENT, f"count {count} not one of {list(self.tile_counts)}")
            return
        self.next_tile_count = count
        self._result(req, OK)

    def c_start_shuffle(self, req: int, r: Reader) -> None:
        r.end()
        self.executed.append((0x13, req))
        if self.phase != IDLE:
            self._result(req, BAD_PHASE, f"phase is {PHASES[self.phase]}, not idle")
        elif self._blocking("build"):
            self._result(req, FAULT_ACTIVE, self._blocking("build"))
        else:
            self._build(BUILDING)
            self._result(req, OK)

    def c_raise_walls(self, req: int, r: Reader) -> None:
        r.end()
        self.executed.append((0x14, req))
        if self.phase != READY:
            self._result(req, BAD_PHASE, f"phase is {PHASES[self.phase]}, not ready")
        elif self._blocking("lift"):
            self._result(req, FAULT_ACTIVE, self._blocking("lift"))
        else:
            self._set_phase(RAISING)
            self.set_ready = False
            self.after(RAISE_S, "raise", lambda: self._set_phase(WALLS_RAISED))
            self._result(req, OK)

    def c_lower_walls(self, req: int, r: Reader) -> None:
        r.end()
        self.executed.append((0x15, req))
        if self.phase not in (WALLS_RAISED, PLAYING):
            self._result(req, BAD_PHASE, f"phase is {PHASES[self.phase]}, not walls_raised or playing")
        elif self._blocking("lift"):
            self._result(req, FAULT_ACTIVE, self._blocking("lift"))
        else:
            self._set_phase(LOWERING)
            self.after(LOWER_S, "lower", self._lowered)
            self._result(req, OK)

    def c_roll_dice(self, req: int, r: Reader) -> None:
        seat = r.u8()
        r.end()
        self.executed.append((0x16, req))
        if seat > 3:
            self._result(req, BAD_ARGUMENT, f"seat {seat} is not 0..3")
        elif self._blocking("dice"):
            self._result(req, FAULT_ACTIVE, self._blocking("dice"))
        else:
            self._result(req, OK)
            self.after(DICE_S, f"dice{req}", lambda: self._dice(seat))

    def c_seat_lights(self, req: int, r: Reader) -> None:
        seats = [r.u8(), r.u8(), r.u8()]
        r.end()
        self.executed.append((0x17, req))
        bad = [s for s in seats if s > 3 and s != NONE_SEAT]
        if not self.features & 0b100:
            self._result(req, UNSUPPORTED, "no seat lights")
        elif bad:
            self._result(req, BAD_ARGUMENT, f"seat {bad[0]} is not 0..3 or 0xFF")
        else:
            self.dealer, self.prevalent, self.turn = seats
            self._result(req, OK)

    def c_buzzer(self, req: int, r: Reader) -> None:
        ms = r.u16()
        r.end()
        self.executed.append((0x18, req))
        if not self.features & 0b1000:
            self._result(req, UNSUPPORTED, "no buzzer")
        elif ms > 5000:
            self._result(req, BAD_ARGUMENT, f"ms {ms} > 5000")
        else:
            self._result(req, OK)

    def c_reset(self, req: int, r: Reader) -> None:
        r.end()
        self.executed.append((0x19, req))
        self.timers = [t for t in self.timers if t[1].startswith("dice")]
        self.next_build_left = None
        self.set_ready = False  # §7: a built set is dropped
        for code in [c for c in self.faults if FAULTS[c] in CLEARED_BY_RESET]:
            self._clear_fault(code)
        if self.phase != IDLE:
            self._set_phase(IDLE)
        self._result(req, OK)

    def c_ping(self, req: int, r: Reader) -> None:
        data = r.u8s()
        r.end()
        self.executed.append((0x1A, req))
        self._reply(T_PONG, req, u8s(data))

    def c_debug(self, req: int, r: Reader) -> None:
        """The bench commands §7 names (`fault`, `clear`, `press`, `lose`, `add`); a test drives faults with them."""
        words = r.str().split()
        r.end()
        self.executed.append((0x1F, req))
        try:
            msg = self._debug(words)
        except (ValueError, IndexError) as exc:
            self._result(req, BAD_ARGUMENT, str(exc))
            return
        self._result(req, OK, msg)

    def _debug(self, words: list[str]) -> str:
        cmd = words[0] if words else "help"
        if cmd == "fault":
            code = int(words[1]) if words[1].isdigit() else FAULTS.index(words[1])
            self._raise_fault(code, " ".join(words[2:]) or "chain")
            return f"fault {FAULTS[code]}"
        if cmd == "clear":
            code = int(words[1]) if words[1].isdigit() else FAULTS.index(words[1])
            self._clear_fault(code)
            return f"cleared {FAULTS[code]}"
        if cmd == "press":
            seat = SEATS.index(words[1])
            button = BUTTONS.index(words[2]) if len(words) > 2 else 0
            self._event(E_BUTTON, bytes([seat, button]))
            if button == 0 and not self._blocking("dice"):
                # §7: the machine's own dice button throws its dice (roll_dice is "as if it was pressed")
                self.after(DICE_S, "dice-press", lambda: self._dice(seat))
            return "pressed"
        if cmd in ("lose", "add"):
            self.short_by += int(words[1]) * (1 if cmd == "lose" else -1)
            return f"{cmd} {words[1]}"
        return "fault ID [WHERE], clear ID, press SEAT [BUTTON], lose N, add N"

    # the mechanism (§8)
    def _set_phase(self, phase: int) -> None:
        self.phase = phase
        self._event(E_PHASE, bytes([phase]))

    def _build(self, phase: int | None) -> None:
        """Start a build of `next_tile_count`; `phase` BUILDING when the table waits for it."""
        self.tile_count = self.next_tile_count
        self.set_ready = False
        if phase is not None:
            self._set_phase(phase)
        self.next_build_left = BUILD_S[self.tile_count]
        self._resume_build()

    def _resume_build(self) -> None:
        if self.next_build_left is None or self._blocking("build") or any(t[1] == "build" for t in self.timers):
            return
        self.build_started = self.now()
        self.after(self.next_build_left, "build", self._built)

    def _pause_build(self) -> None:
        if any(t[1] == "build" for t in self.timers) and self.next_build_left is not None:
            spent = (self.now() - self.build_started) * self.speed
            self.next_build_left = max(self.next_build_left - spent, 0.0)
            self.cancel("build")

    def _built(self) -> None:
        self.next_build_left = None
        self.set_ready = True
        if self.features & 0b10000:
            count = self.tile_count - self.short_by
            self._event(E_TILE_COUNT, struct.pack(">HH", count, self.tile_count))
            if count < self.tile_count:
                self._raise_fault(FAULTS.index("missing_tile"), "counter")
            elif count > self.tile_count:
                self._raise_fault(FAULTS.index("extra_tile"), "counter")
        if self.phase == BUILDING:
            self._set_phase(READY)

    def _lowered(self) -> None:
        if self.set_ready:
            self._set_phase(READY)
        else:
            if self.next_build_left is None:  # lowered from walls_raised: the set taken in is built now
                self._build(None)
            self._set_phase(BUILDING)

    def _dice(self, seat: int) -> None:
        values = bytes(self.rng.randint(1, 6) for _ in range(self.dice_count))
        self._event(E_DICE, bytes([seat]) + u8s(values))
        if self.phase == WALLS_RAISED:
            self._set_phase(PLAYING)
            self._build(None)  # §8: while playing the machine builds the next set

    def _blocking(self, part: str) -> str:
        """The active fault that stops `part` ("build", "lift", "dice"), as the reason text; "" if none."""
        for f in self.faults.values():
            if part in STOPS[FAULTS[f.code]].split():
                return f"{FAULTS[f.code]} at {f.where}"
        return ""

    def _raise_fault(self, code: int, where: str) -> None:
        if not 1 <= code < len(FAULTS):
            raise ValueError(f"no fault {code}")
        self.faults[code] = Fault(code, where)
        self._event(E_FAULT, bytes([code]) + text(where))
        if self._blocking("build"):
            self._pause_build()

    def _clear_fault(self, code: int) -> None:
        if self.faults.pop(code, None) is not None:
            self._event(E_FAULT_CLEARED, bytes([code]))
            self._resume_build()


COMMANDS: dict[int, Callable[[Board, int, Reader], None]] = {
    0x10: Board.c_identify, 0x11: Board.c_status, 0x12: Board.c_set_tile_count, 0x13: Board.c_start_shuffle,
    0x14: Board.c_raise_walls, 0x15: Board.c_lower_walls, 0x16: Board.c_roll_dice, 0x17: Board.c_seat_lights,
    0x18: Board.c_buzzer, 0x19: Board.c_reset, 0x1A: Board.c_ping, 0x1F: Board.c_debug,
}


# -- serving it on a pty or TCP ------------------------------------------------------------------------

class Server:
    """Runs a `Board` in a thread on a real pseudo-terminal (`path`) or a TCP port (`socket://...`)."""

    def __init__(self, tcp_port: int | None = None, **board_args: object) -> None:
        self.stop_event = threading.Event()
        self.lock = threading.Lock()
        self.conn: socket.socket | None = None
        self.listener: socket.socket | None = None
        if tcp_port is None:
            self.master, slave = os.openpty()
            tty.setraw(slave)
            attrs = termios.tcgetattr(slave)
            attrs[3] &= ~termios.ECHO
            termios.tcsetattr(slave, termios.TCSANOW, attrs)
            self.path = os.ttyname(slave)
            self.slave = slave  # kept open so the pty survives the host closing and reopening it
            os.set_blocking(self.master, False)
        else:
            self.listener = socket.create_server(("127.0.0.1", tcp_port))
            self.path = f"socket://127.0.0.1:{self.listener.getsockname()[1]}"
        self.board = Board(self._write, **board_args)  # type: ignore[arg-type]
        self.thread = threading.Thread(target=self._run, daemon=True, name="cleanroom-table")

    def __enter__(self) -> Server:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self.stop_event.set()
        self.thread.join(5)
        for s in (self.conn, self.listener):
            if s is not None:
                s.close()
        if self.listener is None:
            os.close(self.master)
            os.close(self.slave)

    def _write(self, data: bytes) -> None:
        try:
            if self.listener is None:
                os.write(self.master, data)
            elif self.conn is not None:
                self.conn.sendall(data)
        except OSError:
            pass  # no host on the line: the bytes are lost, as on a cable with nothing at the other end

    def reboot(self, reason: int = 1, **board_args: object) -> None:
        """Power the board off and on (brown-out by default): a new boot_id, the ring and the request memory gone."""
        with self.lock:
            old = self.board
            args = dict(speed=old.speed, dice_count=old.dice_count, features=old.features, tile_counts=old.tile_counts,
                        early=old.early, seed=old.seed + 1)
            args.update(board_args)
            self.board = Board(self._write, reason=reason, **args)  # type: ignore[arg-type]

    def call(self, fn: Callable[[Board], object]) -> object:
        """Run `fn(board)` on the board's thread's lock (a test pressing a button, raising a fault)."""
        with self.lock:
            return fn(self.board)

    def _run(self) -> None:
        while not self.stop_event.is_set():
            src = self.master if self.listener is None else self.conn
            waits = [s for s in (src, self.listener) if s is not None]
            readable, _, _ = select.select(waits, [], [], 0.005)
            with self.lock:
                for r in readable:
                    if r is self.listener and self.listener is not None:
                        conn, _ = self.listener.accept()
                        conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                        if self.conn is not None:
                            self.conn.close()
                        self.conn = conn
                        continue
                    try:
                        data = os.read(r, 4096) if isinstance(r, int) else r.recv(4096)
                    except OSError:
                        data = b""  # EIO: the host closed the pty; it may reopen it
                    if not data and isinstance(r, socket.socket):
                        r.close()
                        self.conn = None
                    elif data:
                        self.board.feed(data)
                self.board.poll()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--tcp", type=int, help="serve on this TCP port instead of a pty")
    ap.add_argument("--speed", type=float, default=1.0)
    args = ap.parse_args(argv)
    with Server(args.tcp, speed=args.speed) as server:
        print(server.path, flush=True)
        try:
            while True:
                time.sleep(1)
        except KeyboardInterrupt:
            return 0


if __name__ == "__main__":
    sys.exit(main())

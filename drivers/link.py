"""The reliable link (protocol.md §3-4) as a pure state machine fed `(bytes, now)`.

No I/O and no clock of its own: the caller feeds received bytes and the time, asks for the
bytes to write and for the next deadline, and calls `poll(now)` when it comes. So every
timeout, retransmission and resynchronisation is tested without sleeping.
"""

from __future__ import annotations

import math
import struct
from collections import deque
from dataclasses import dataclass, field

from drivers.framing import Frame, FrameDecoder, encode_frame
from drivers.messages import ACK, NAK, RESET, RESET_ACK

# Bounds of the computed retransmission timeout (protocol.md §3), seconds.
RTO_INITIAL = 0.25
RTO_MIN = 0.025
RTO_MAX = 1.0
WINDOW = 8
MAX_TRIES = 8
SILENCE_TIMEOUT = 3.5  # host side: heartbeats come every 1 s


@dataclass
class LinkHealth:
    """The link's counters, shown on the referee display and printed by the bench."""

    up: bool = False
    frames_sent: int = 0
    frames_received: int = 0
    retransmits: int = 0
    naks_sent: int = 0
    naks_received: int = 0
    duplicates: int = 0
    out_of_order: int = 0
    crc_errors: int = 0
    junk_bytes: int = 0
    resets: int = 0
    reconnects: int = 0
    last_heard: float | None = None
    rtt: float | None = None
    rto: float = RTO_INITIAL

    @property
    def naks(self) -> int:
        """NAKs either way: each one is a frame lost or damaged on the cable."""
        return self.naks_sent + self.naks_received

    def as_dict(self) -> dict[str, object]:
        return {**self.__dict__, "naks": self.naks}


@dataclass(frozen=True, slots=True)
class Delivery:
    """What the link hands up: a data message, a peer's RESET / RESET_ACK, or the link going down."""

    kind: str  # "message" | "reset" | "reset_ack" | "down"
    type: int = 0
    payload: bytes = b""
    nonce: int = 0
    reason: str = ""


@dataclass
class _InFlight:
    seq: int
    type: int
    payload: bytes
    first_sent: float
    last_sent: float
    tries: int = 1


def _before(a: int, b: int) -> bool:
    """True if sequence number a comes before b (mod 256, half the space either way)."""
    return 0 < ((b - a) & 0xFF) < 128


@dataclass
class Link:
    """One side's end of the link: sequence numbers, window, ACK/NAK and retransmission."""

    window: int = WINDOW
    max_tries: int = MAX_TRIES
    rto_min: float = RTO_MIN
    rto_max: float = RTO_MAX
    silence_timeout: float | None = None
    #: The frames wait in a paced transmit queue (a UART): a frame's timer starts only when the
    #: sender reports it left the line (`left_wire`), not when the link hands it over.
    paced: bool = False
    health: LinkHealth = field(default_factory=LinkHealth)
    decoder: FrameDecoder = field(default_factory=FrameDecoder)

    def __post_init__(self) -> None:
        self._out: list[bytes] = []
        self._tx_seq = 0
        self._rx_expected = 0
        self._in_flight: deque[_InFlight] = deque()
        self._backlog: deque[tuple[int, bytes]] = deque()
        self._nak_for: int | None = None
        self._srtt: float | None = None
        self._rttvar = 0.0
        self._backoff = 1.0
        self._down_reason: str | None = None
        self._torn_seen = 0

    # ----- sending
    def send(self, type_: int, payload: bytes, now: float) -> None:
        """Queue a data message; it goes out when the window has room, and is resent until ACKed."""
        self._backlog.append((type_, payload))
        self._fill_window(now)

    def send_control(self, type_: int, payload: bytes = b"", seq: int = 0) -> None:
        self._out.append(encode_frame(seq, type_, payload))

    def send_reset(self, nonce: int) -> None:
        self.send_control(RESET, struct.pack(">I", nonce))

    def take_output(self) -> bytes:
        """Every byte to write now, frames in order."""
        return b"".join(self.take_frames())

    def take_frames(self) -> list[bytes]:
        """The frames to write now, one bytes object each (fault injection works per frame)."""
        out, self._out = self._out, []
        return out

    def reset(self) -> None:
        """Start afresh (RESET sent or received): counters to 0, every frame in flight forgotten."""
        self._tx_seq = self._rx_expected = 0
        self._in_flight.clear()
        self._backlog.clear()
        self._nak_for = None
        self._backoff = 1.0
        self._down_reason = None
        self.decoder.reset()
        self.health.resets += 1

    def left_wire(self, seq: int, now: float) -> None:
        """A data frame queued behind others has only now left the line (a paced UART): its
        retransmission timer and RTT sample start here, not when it was queued."""
        for f in self._in_flight:
            if f.seq == seq:
                f.last_sent = now
                if f.tries == 1:
                    f.first_sent = now
                return

    @property
    def in_flight(self) -> int:
        return len(self._in_flight) + len(self._backlog)

    def _transmit(self, f: _InFlight) -> None:
        self._out.append(encode_frame(f.seq, f.type, f.payload))
        self.health.frames_sent += 1

    def _fill_window(self, now: float) -> None:
        while self._backlog and len(self._in_flight) < self.window:
            type_, payload = self._backlog.popleft()
            f = _InFlight(self._tx_seq, type_, payload, self._stamp(now), self._stamp(now))
            self._tx_seq = (self._tx_seq + 1) & 0xFF
            self._in_flight.append(f)
            self._transmit(f)

    @property
    def rto(self) -> float:
        base = RTO_INITIAL if self._srtt is None else self._srtt + 4 * self._rttvar
        return min(self.rto_max, max(self.rto_min, base) * self._backoff)

    def _sample_rtt(self, r: float) -> None:
        if self._srtt is None:
            self._srtt, self._rttvar = r, r / 2
        else:
            self._rttvar = 0.75 * self._rttvar + 0.25 * abs(self._srtt - r)
            self._srtt = 0.875 * self._srtt + 0.125 * r
        self._backoff = 1.0
        self.health.rtt = self._srtt
        self.health.rto = self.rto

    def _on_ack(self, n: int, now: float) -> None:
        sampled = False
        while self._in_flight and _before(self._in_flight[0].seq, n):
            f = self._in_flight.popleft()
            if not sampled and f.tries == 1 and f.first_sent != math.inf:
                self._sample_rtt(now - f.first_sent)
                sampled = True
        self._fill_window(now)

    def _stamp(self, now: float) -> float:
        return math.inf if self.paced else now

    def _resend_from(self, n: int | None, now: float) -> None:
        for f in self._in_flight:
            if n is None or not _before(f.seq, n):
                f.tries += 1
                f.last_sent = self._stamp(now)
                self.health.retransmits += 1
                self._transmit(f)

    # ----- receiving
    def receive(self, data: bytes, now: float) -> list[Delivery]:
        frames = self.decoder.feed(data, now)
        return self._handle(frames, now)

    def _nak(self) -> None:
        if self._nak_for != self._rx_expected:
            self._nak_for = self._rx_expected
            self.send_control(NAK, seq=self._rx_expected)
            self.health.naks_sent += 1

    def _handle(self, frames: list[Frame], now: float) -> list[Delivery]:
        out: list[Delivery] = []
        st = self.decoder.stats
        if st.crc_errors > self.health.crc_errors or st.torn > self._torn_seen:
            # §3: a frame with a bad CRC, or a truncated one (its rest never came, §4): NAK(expected),
            # so the peer resends now rather than at its RTO. Torn frames went without a NAK before.
            self.health.crc_errors = st.crc_errors
            self._torn_seen = st.torn
            self._nak()
        self.health.junk_bytes = st.junk_bytes
        for f in frames:
            self.health.last_heard = now
            self.health.frames_received += 1
            if f.type == ACK:
                self._on_ack(f.seq, now)
            elif f.type == NAK:
                self.health.naks_received += 1
                self._on_ack(f.seq, now)
                self._resend_from(f.seq, now)
            elif f.type in (RESET, RESET_ACK):
                if f.type == RESET_ACK:
                    # the peer started afresh here: what it sends next is numbered from 0, and a frame
                    # it sent before it saw our RESET (read after we reset) was the old link's. Taken
                    # as the new link's first, it moved the count on, and the `identity` that came
                    # numbered 0 was dropped as a duplicate: the handshake failed on a loaded Pi
                    self._rx_expected = 0
                    self._nak_for = None
                nonce = struct.unpack(">I", f.payload)[0] if len(f.payload) == 4 else 0
                out.append(Delivery("reset" if f.type == RESET else "reset_ack", nonce=nonce))
            elif f.type < 0x10:
                continue  # an unknown control type from a newer peer: ignore it
            elif f.seq == self._rx_expected:
                self._rx_expected = (self._rx_expected + 1) & 0xFF
                self._nak_for = None
                self.send_control(ACK, seq=self._rx_expected)
                out.append(Delivery("message", type=f.type, payload=f.payload))
            elif _before(f.seq, self._rx_expected):
                self.health.duplicates += 1
                self.send_control(ACK, seq=self._rx_expected)
            else:
                self.health.out_of_order += 1
                self._nak()
        return out

    # ----- timers
    def next_deadline(self) -> float | None:
        cands = []
        if self._in_flight and self._in_flight[0].last_sent != math.inf:
            cands.append(self._in_flight[0].last_sent + self.rto)
        if self.decoder.has_partial() and self.decoder._partial_since is not None:
            cands.append(self.decoder._partial_since + self.decoder.torn_after)
        if self.silence_timeout is not None and self.health.last_heard is not None and self.health.up:
            cands.append(self.health.last_heard + self.silence_timeout)
        return min(cands) if cands else None

    def poll(self, now: float) -> list[Delivery]:
        """Run what is due at `now`: retransmissions, torn-frame expiry, silence detection."""
        out = self._handle(self.decoder.expire(now), now)
        if self._in_flight and now >= self._in_flight[0].last_sent + self.rto:
            if self._in_flight[0].tries >= self.max_tries:
                out.append(Delivery("down", reason="no_ack"))
                return out
            self._backoff = min(self._backoff * 2, self.rto_max / max(self.rto_min, 1e-9))
            self.health.rto = self.rto
            self._resend_from(None, now)
        if (self.silence_timeout is not None and self.health.up and self.health.last_heard is not None
                and now >= self.health.last_heard + self.silence_timeout):
            out.append(Delivery("down", reason="silent"))
        return out

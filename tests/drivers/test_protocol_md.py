"""docs/protocol.md, statement by statement, against the host driver and the simulated table.

Each test quotes the line of protocol.md it checks. Expected bytes come from the document: a
frame is built here by `_frame` below, an implementation of §2 written from the page (a bitwise
CRC-16/CCITT-FALSE, not `drivers.framing`), so a change of the encoder that the page does not
make fails here.
"""

from __future__ import annotations

import asyncio
import re
import struct
import sys
from pathlib import Path
from typing import Any

import pytest

from drivers import messages as m
from drivers.clock import VirtualClock
from drivers.errors import TableError, TransportError
from drivers.framing import Frame, FrameDecoder, encode_frame
from drivers.link import Link

sys.path.insert(0, str(Path(__file__).parent))
import cleanroom_table  # noqa: E402  (a fixture module beside the tests, not a package)

DOC = Path(__file__).resolve().parents[2] / "docs" / "protocol.md"


# ----- §2 from the page alone: the clean-room board's CRC and frame (written from this page, importing nothing of
# the project), so the expected bytes are not the encoder's own
_crc, _frame = cleanroom_table.crc16, cleanroom_table.frame


def _parse(stream: bytes) -> list[tuple[int, int, bytes]]:
    """(SEQ, TYPE, PAYLOAD) of each frame in a clean stream, by §2's layout; asserts each CRC."""
    out, pos = [], 0
    while pos < len(stream):
        assert stream[pos:pos + 2] == b"\xa5\x5a", stream[pos:].hex(" ")
        n = stream[pos + 2]
        body = stream[pos + 2:pos + 5 + n]
        assert int.from_bytes(stream[pos + 5 + n:pos + 7 + n], "big") == _crc(body)
        out.append((body[1], body[2], bytes(body[3:])))
        pos += n + 7
    return out


def test_the_crc_check_value() -> None:
    """§2: "Check value: the CRC of ASCII `123456789` is `0x29B1`." (the page's own CRC, then the driver's)"""
    from drivers.framing import crc16_ccitt

    assert _crc(b"123456789") == 0x29B1 == crc16_ccitt(b"123456789")


@pytest.mark.parametrize("seq, type_, payload", [
    (0, 0x01, b""), (255, 0x02, b""), (0, 0x03, b"\x12\x34\x56\x78"), (7, 0x91, b"\x00\x00\x00\x09\x04"),
    (128, 0x1A, bytes([2, 0]) + bytes([117]) + bytes(range(117))),  # LEN 120: the largest frame
])
def test_the_encoder_lays_a_frame_out_as_the_page_draws_it(seq: int, type_: int, payload: bytes) -> None:
    """§2: `| 0xA5 | 0x5A | LEN | SEQ | TYPE | PAYLOAD (LEN) | CRC hi | CRC lo |`, "CRC ... over
    `LEN SEQ TYPE PAYLOAD`, sent high byte first"; "A frame is `LEN + 7` bytes, at most **127 bytes**"."""
    raw = encode_frame(seq, type_, payload)
    assert raw == _frame(seq, type_, payload)
    assert len(raw) == len(payload) + 7 <= 127


def test_a_len_over_120_is_a_false_start_even_with_a_good_crc() -> None:
    """§2: "A received `LEN > 120` means the start was false: resynchronise (§4)." A 128-byte frame whose
    CRC is right is still not a frame; the frame behind it is read."""
    too_long = _frame(0, 0x1A, bytes(121))
    good = _frame(1, 0x01)
    dec = FrameDecoder()
    assert dec.feed(too_long + good) == [Frame(1, 0x01)]
    assert dec.stats.oversize == 1


def test_a_false_start_costs_only_its_first_byte() -> None:
    """§4: "it discards **only the first byte** of the false start and scans again from the next byte, so
    a real frame that began inside the garbage is still found. Bytes before a start are counted as garbage
    (`junk_bytes`), bad CRCs as `crc_errors`." `A5 5A 03` claims 10 bytes, of which the last 7 are a real ACK."""
    ack = _frame(3, 0x01)
    assert ack == bytes.fromhex("A5 5A 00 03 01 89 EE")
    dec = FrameDecoder()
    assert dec.feed(bytes.fromhex("A5 5A 03") + ack) == [Frame(3, 0x01)]
    assert (dec.stats.crc_errors, dec.stats.junk_bytes) == (1, 3)  # A5 (the false start), then 5A 03


# ----- §3 receiving
def test_duplicates_and_frames_from_the_future_across_the_wrap() -> None:
    """§3: "`SEQ` is one of the 127 numbers *before* `expected` (`0 < (expected − SEQ) mod 256 < 128`): a
    duplicate ... Drop it and send `ACK(expected)` again"; "otherwise (a frame from the future ...): drop it
    and send `NAK(expected)`". With expected 0: SEQ 129 is 127 before (duplicate), SEQ 128 is 128 before (future)."""
    link = Link()
    assert link.receive(_frame(129, 0x20, b"d"), 0.0) == []
    assert link.take_output() == _frame(0, 0x01)  # ACK 0
    assert link.receive(_frame(128, 0x20, b"f"), 0.0) == []
    assert link.take_output() == _frame(0, 0x02)  # NAK 0
    assert link.receive(_frame(255, 0x20, b"d"), 0.0) == [] and link.take_output() == _frame(0, 0x01)


def test_sequence_numbers_wrap_from_255_to_0_both_ways() -> None:
    """§3: "each side numbers the data frames it sends 0, 1, ... 255, 0, ..."; on `SEQ == expected`
    "`expected += 1` (mod 256), send `ACK(expected)`"."""
    tx, rx = Link(), Link()
    seqs, acks = [], []
    for i in range(258):
        tx.send(0x20, bytes([i & 0xFF]), float(i))
        (frame,) = _parse(tx.take_output())
        seqs.append(frame[0])
        got = rx.receive(_frame(*frame), float(i))
        assert [d.payload for d in got] == [bytes([i & 0xFF])]
        out = rx.take_output()
        acks.append(_parse(out)[0][0])
        tx.receive(out, float(i))
    assert seqs[254:] == [254, 255, 0, 1] and acks[254:] == [255, 0, 1, 2]


def test_one_nak_until_expected_moves_for_bad_crcs_and_future_frames_alike() -> None:
    """§3: "drop it and send `NAK(expected)`, at most once until `expected` moves"; "a bad CRC (or a
    truncated one): drop it and send `NAK(expected)` (again at most once until `expected` moves)"."""
    link = Link()
    bad = bytearray(_frame(0, 0x20, b"x"))
    bad[-1] ^= 0xFF
    link.receive(bytes(bad), 0.0)
    link.receive(_frame(2, 0x20, b"y"), 0.0)
    link.receive(bytes(bad), 0.0)
    assert link.take_output() == _frame(0, 0x02)  # NAK 0, once
    link.receive(_frame(0, 0x20, b"x"), 0.1)
    link.receive(bytes(bad[:2]) + bytes([1, 1]) + bytes(bad[4:]), 0.1)  # a bad CRC again: expected moved to 1
    assert link.take_output() == _frame(1, 0x01) + _frame(1, 0x02)


def test_a_control_type_it_does_not_know_is_ignored() -> None:
    """§3 (added by this audit): "A link control TYPE a side does not know (`0x05`..`0x0F`) is dropped:
    no ACK, no NAK, nothing delivered"."""
    link = Link()
    assert link.receive(_frame(0, 0x07, b"new"), 0.0) == [] and link.take_output() == b""
    assert [d.payload for d in link.receive(_frame(0, 0x20, b"x"), 0.0)] == [b"x"]


# ----- §3 sending: RTO, Karn, backoff, retry limit
def _acked(link: Link, sent_at: float, rtt: float) -> None:
    link.send(0x20, b"x", sent_at)
    ((seq, _, _),) = _parse(link.take_output())
    link.receive(_frame((seq + 1) & 0xFF, 0x01), sent_at + rtt)


def test_the_rto_is_computed_as_rfc_6298_says() -> None:
    """§3: "`RTO = clamp(SRTT + 4·RTTVAR, 25 ms, 1000 ms)` ... `RTTVAR ← ¾RTTVAR + ¼|SRTT−R|`, `SRTT ← ⅞SRTT +
    ⅛R`" and (added by this audit) "the first measurement R sets `SRTT = R`, `RTTVAR = R/2`". By hand:
    R = 100 ms → RTO 100 + 4·50 = 300 ms; then R = 20 ms → RTTVAR 37.5 + 20 = 57.5, SRTT 87.5 + 2.5 = 90,
    RTO 90 + 230 = 320 ms. Before any: 250 ms."""
    link = Link()
    assert link.rto == pytest.approx(0.250)
    _acked(link, 0.0, 0.100)
    assert link.rto == pytest.approx(0.300)
    _acked(link, 1.0, 0.020)
    assert link.rto == pytest.approx(0.320)
    fast = Link()
    for i in range(40):
        _acked(fast, float(i), 0.001)
    assert fast.rto == pytest.approx(0.025)  # the floor
    slow = Link()
    _acked(slow, 0.0, 0.9)
    assert slow.rto == pytest.approx(1.0)  # 0.9 + 4·0.45, clamped


def test_a_resent_frame_gives_no_rtt_sample() -> None:
    """§3: "measured only on frames sent once (Karn's rule)"."""
    link = Link()
    link.send(0x20, b"x", 0.0)
    link.take_output()
    link.poll(0.25)  # the RTO: sent a second time
    assert _parse(link.take_output()) == [(0, 0x20, b"x")]
    link.receive(_frame(1, 0x01), 0.26)
    assert link.health.rtt is None


def test_timeouts_double_the_rto_to_1_s_and_the_eighth_send_is_the_last() -> None:
    """§3: "Before the first measurement `RTO = 250 ms`. Each timeout doubles the RTO (up to 1000 ms)";
    "a frame sent **8 times** without an ACK means the link is down (reason `no_ack`)". By hand: sent at
    0, 0.25, 0.75, 1.75, 2.75, 3.75, 4.75, 5.75; down at 6.75."""
    link = Link()
    link.send(0x20, b"x", 0.0)
    sends, now, down = [0.0], 0.0, []
    link.take_output()
    while not down:
        now = link.next_deadline()
        assert now is not None
        out = link.poll(now)
        down = [d.reason for d in out if d.kind == "down"]
        if link.take_output():
            sends.append(now)
    assert sends == pytest.approx([0.0, 0.25, 0.75, 1.75, 2.75, 3.75, 4.75, 5.75])
    assert (now, down) == (pytest.approx(6.75), ["no_ack"])


def test_a_fresh_measurement_ends_the_backoff() -> None:
    """§3: "Each timeout doubles the RTO (up to 1000 ms) until the next fresh measurement."""
    link = Link()
    link.send(0x20, b"a", 0.0)
    link.take_output()
    link.poll(0.25)
    link.take_output()
    assert link.rto == pytest.approx(0.5)
    link.receive(_frame(1, 0x01), 0.3)  # acknowledges a resent frame: no measurement, the backoff stays
    assert link.rto == pytest.approx(0.5)
    _acked(link, 1.0, 0.1)
    assert link.rto == pytest.approx(0.3)


# ----- §5-6 the host's timing, on a transport that hears nothing
class _Deaf:
    """A transport that records what the host writes (with the clock's time) and answers as told."""

    def __init__(self, clock: VirtualClock, answer_reset: bool = False) -> None:
        self.url = "deaf://"
        self.clock = clock
        self.answer_reset = answer_reset
        self.writes: list[tuple[float, bytes]] = []
        self._q: asyncio.Queue[bytes] = asyncio.Queue()

    async def read(self) -> bytes:
        return await self._q.get()

    def write(self, data: bytes) -> None:
        self.writes.append((self.clock.now(), data))
        for seq, type_, payload in (_parse(data) if data[:1] == b"\xa5" else []):
            if type_ == 0x03 and self.answer_reset:
                self._q.put_nowait(_frame(0, 0x04, payload))

    async def close(self) -> None:
        pass

    def frames(self, type_: int) -> list[tuple[float, bytes]]:
        return [(t, p) for t, d in self.writes for _, ty, p in _parse(d) if ty == type_]


def _deaf_behind(monkeypatch: pytest.MonkeyPatch, module: Any, clock: VirtualClock) -> _Deaf:
    """A `_Deaf` transport that `module` (drivers.table, drivers.remote) opens whatever its URL."""
    deaf = _Deaf(clock)

    async def opener(url: str, **_: Any) -> _Deaf:
        return deaf

    monkeypatch.setattr(module, "open_transport", opener)
    return deaf


async def test_reset_every_250_ms_12_times_then_no_answer(monkeypatch: pytest.MonkeyPatch) -> None:
    """§5.1: "sends `RESET(nonce)` with a fresh random nonce every 250 ms until it receives `RESET_ACK(nonce)`
    (it gives up after 12 tries: `no_answer`"."""
    from drivers import table as tbl

    clock = VirtualClock(auto=True)
    deaf = _deaf_behind(monkeypatch, tbl, clock)
    try:
        with pytest.raises(TableError) as err:
            await tbl.open_table("deaf://", clock, reconnect=False, connect_timeout=None)
        assert err.value.code == "no_answer"
        resets = deaf.frames(0x03)
        t0 = resets[0][0]
        assert [round(t - t0, 6) for t, _ in resets] == [0.25 * i for i in range(12)]
        assert len({p for _, p in resets}) == 12 and all(len(p) == 4 for _, p in resets)  # a fresh nonce each
        assert all(d[3] == 0 for _, d in deaf.writes)  # §2: SEQ 0 in RESET
    finally:
        await clock.close()


async def test_identity_is_awaited_3_s_then_no_identity(monkeypatch: pytest.MonkeyPatch) -> None:
    """§5.1: "it waits 3 s for `identity`: `no_identity`"; §5.2: identify's fields `req=u16 host_id=u32
    boot_id=u32 last_event=u32`, "`boot_id` and `last_event` are what the host last saw from this table (0 if
    nothing)"; §5 "Every command carries `req` (u16 ...)": the first is 1."""
    from drivers import table as tbl

    clock = VirtualClock(auto=True)
    deaf = _Deaf(clock, answer_reset=True)

    async def opener(url: str, **_: Any) -> _Deaf:
        return deaf

    monkeypatch.setattr(tbl, "open_transport", opener)
    try:
        with pytest.raises(TableError) as err:
            await tbl.open_table("deaf://", clock, reconnect=False, connect_timeout=None)
        assert err.value.code == "no_identity"
        idents = deaf.frames(0x10)
        req, host_id, boot_id, last = struct.unpack(">HIII", idents[0][1])
        assert (req, boot_id, last) == (1, 0, 0) and host_id != 0
        t_first = idents[0][0]
        assert deaf.writes[-1][0] - t_first == pytest.approx(3.0, abs=0.3)  # the last resend is before the 3 s
    finally:
        await clock.close()


async def test_reconnect_backoff_doubles_from_0_1_s_to_5_s(monkeypatch: pytest.MonkeyPatch) -> None:
    """§6: "On link down the host closes the port and reconnects with backoff 0.1 s, 0.2 s, 0.4 s ... up
    to 5 s, repeating §5." (a port that will not open, tried again at these gaps)"""
    from drivers import table as tbl

    clock = VirtualClock(auto=True)
    tries: list[float] = []

    async def opener(url: str, **_: Any) -> Any:
        tries.append(clock.now())
        raise TransportError("not there", "cannot_open")

    monkeypatch.setattr(tbl, "open_transport", opener)
    try:
        with pytest.raises(TableError):
            await tbl.open_table("gone://", clock, reconnect=True, connect_timeout=30.0)
        gaps = [round(b - a, 6) for a, b in zip(tries, tries[1:])]
        assert gaps[:8] == [0.1, 0.2, 0.4, 0.8, 1.6, 3.2, 5.0, 5.0]
    finally:
        await clock.close()


def test_req_counts_1_to_65535_and_never_uses_0() -> None:
    """§5 (made explicit by this audit): "`req` (u16, counting up from 1 per connection object ... after
    65535 comes 1: 0 is never a command's `req`, it is the `req` of the answer to a command too short to
    hold one)"."""
    from drivers.table import Table

    t = Table("deaf://", VirtualClock())
    t._next_req = 65535
    seen = []
    for _ in range(3):
        seen.append(t._next_req)
        t._next_req = t._next_req % 0xFFFF + 1  # the step `_send_request` takes
    assert seen == [65535, 1, 2]
    import inspect

    assert "self._next_req % 0xFFFF + 1" in inspect.getsource(Table._send_request)


# ----- the simulated table, on its own cable end
class Bench:
    """The host's side played by hand, byte by byte, on a `_Conn` of the simulator (no driver)."""

    def __init__(self, sim: Any, clock: VirtualClock) -> None:
        from tablesim.sim import _Conn

        self.sim, self.clock = sim, clock
        self.out = bytearray()
        self.conn = _Conn("bench", write=self.out.extend)
        sim._add_conn(self.conn)
        self.seq = 0
        self.seen = 0  # bytes of `out` already parsed
        self.expected = 0

    def write(self, raw: bytes) -> None:
        self.sim._on_bytes(self.conn, raw)

    async def frames(self, wait: float = 0.05, ack: bool = True) -> list[tuple[int, int, bytes]]:
        """The frames the table wrote since the last call; data frames in order are ACKed (§3)."""
        await self.clock.sleep(wait)
        new: list[tuple[int, int, bytes]] = []
        while len(self.out) > self.seen:  # the table's window is 8 frames: ACKs let the rest come
            got = _parse(bytes(self.out[self.seen:]))
            self.seen = len(self.out)
            new += self._take(got, ack)
            await self.clock.sleep(0.01)
        return new

    def _take(self, got: list[tuple[int, int, bytes]], ack: bool) -> list[tuple[int, int, bytes]]:
        new = []
        for seq, type_, payload in got:
            if type_ >= 0x10:
                if seq != self.expected:
                    continue  # a retransmission of one already taken
                self.expected = (self.expected + 1) & 0xFF
                if ack:
                    self.write(_frame(self.expected, 0x01))
            new.append((seq, type_, payload))
        return new

    async def reset(self, nonce: int = 0x12345678) -> list[tuple[int, int, bytes]]:
        self.write(_frame(0, 0x03, struct.pack(">I", nonce)))
        self.seq = self.expected = 0
        return await self.frames()

    async def send(self, type_: int, payload: bytes, wait: float = 0.05) -> list[tuple[int, int, bytes]]:
        self.write(_frame(self.seq, type_, payload))
        self.seq = (self.seq + 1) & 0xFF
        return [f for f in await self.frames(wait) if f[1] >= 0x10 and f[1] != 0x9F]

    async def identify(self, host_id: int = 0xCAFE0001, boot_id: int = 0, last_event: int = 0,
                       req: int = 1) -> list[tuple[int, int, bytes]]:
        return await self.send(0x10, struct.pack(">HIII", req, host_id, boot_id, last_event))


@pytest.fixture
async def bench(no_leaks: None) -> Any:
    from tablesim import SimTable

    clock = VirtualClock(auto=True)
    sim = SimTable(seed=5, clock=clock)
    b = Bench(sim, clock)
    try:
        yield b
    finally:
        await sim.close()
        await clock.close()


def _result(req: int, code: int) -> bytes:
    """The first bytes of a `result` (0x80): req u16, code u8 (the text follows)."""
    return struct.pack(">HB", req, code)


async def test_reset_is_answered_with_its_nonce_every_time(bench: Bench) -> None:
    """§5.1: "The table answers every RESET with `RESET_ACK` and the same nonce, even if it is already
    reset." §11's bytes: `A5 5A 04 00 04 12 34 56 78 0D 22  RESET_ACK nonce=0x12345678`."""
    for _ in range(2):
        got = await bench.reset()
        assert bytes.fromhex("A5 5A 04 00 04 12 34 56 78 0D 22") in bytes(bench.out)
        assert (0, 0x04, b"\x12\x34\x56\x78") in got


async def test_a_booted_table_sends_reset_every_500_ms_until_answered(bench: Bench) -> None:
    """§5.1: "A table that has just booted ... sends `RESET(nonce)` itself every 500 ms until the host
    answers with `RESET_ACK` or sends its own `RESET`"."""
    got = await bench.frames(wait=1.6)
    resets = [p for s, t, p in got if t == 0x03]
    assert len(resets) in (3, 4) and len(set(resets)) == 1 and all(s == 0 for s, t, _ in got)
    bench.write(_frame(0, 0x04, resets[0]))
    await bench.frames(wait=0.01)
    assert [t for _, t, _ in await bench.frames(wait=1.5)] == []


async def test_after_reset_only_replies_until_identify_then_replay_and_heartbeats(bench: Bench) -> None:
    """§5: "After RESET the table sends replies only; its events and heartbeats start after `identify`";
    §5.3 the replay "if it does not match ... every event since boot"; §6 "`heartbeat` every **1.0 s**";
    §7 "Every event except `heartbeat` carries `ev`, the event number: 1 for `hello` after boot"."""
    await bench.reset()
    assert await bench.frames(wait=2.5) == []
    got = await bench.identify(boot_id=0)
    assert [t for _, t, _ in got] == [0x81, 0x90]
    assert got[1][2][:4] == struct.pack(">I", 1) and got[1][2][8] == 0  # hello ev=1, reason 0 power on
    beats = [p for _, t, p in await bench.frames(wait=3.05) if t == 0x9F]
    assert len(beats) == 3
    uptimes = [struct.unpack(">IBI", p)[0] for p in beats]
    assert [b - a for a, b in zip(uptimes, uptimes[1:])] == [1000, 1000]
    assert all(p[4] == 0 and struct.unpack(">I", p[5:])[0] == 1 for p in beats)  # phase idle, last_event 1


async def test_the_identity_fields(bench: Bench) -> None:
    """§7 identity: "`protocol` is 1"; "`wall_lengths` has 4 bytes per tile count in the same order ... (144 →
    18 18 18 18, 136 → 17 17 17 17, 108 → 14 13 14 13); `dice` is 2 or 3; `features` is a bit set" (five bits)."""
    await bench.reset()
    (ident, _hello) = await bench.identify(req=7)
    v = m.BY_NAME["identity"].decode(ident[2])
    assert (v["req"], v["protocol"], v["dice"], v["last_event"]) == (7, 1, 2, 1)
    assert v["tile_counts"] == (144, 136, 108)
    assert v["wall_lengths"] == (18, 18, 18, 18, 17, 17, 17, 17, 14, 13, 14, 13)
    assert v["features"] == 0b11111 and v["boot_id"] == bench.sim.boot_id


@pytest.mark.parametrize("type_, payload, want", [
    (0x1B, b"\x00\x05", _result(5, 5)),          # a command TYPE no table knows: unknown_command
    (0x7F, b"\x00\x05", _result(5, 5)),
    (0x85, b"\x00\x05", _result(5, 5)),          # a reply's TYPE sent to the table
    (0x11, b"\x00", _result(0, 6)),              # too short for its req: malformed, req 0
    (0x11, b"\x00\x05\x00", _result(5, 6)),      # a byte after the last field: malformed
    (0x16, b"\x00\x05\xff", _result(5, 2)),      # roll_dice seat 0xFF: bad_argument
    (0x16, b"\x00\x05\x04", _result(5, 2)),      # a seat code no side has: bad_argument
    (0x17, b"\x00\x05\x00\xfe\xff", _result(5, 2)),  # seat_lights with seat 0xFE: bad_argument
    (0x17, b"\x00\x05\x00\xff\xff", _result(5, 0)),  # 0xFF: that light off
    (0x1A, b"\x00\x05\x03\x01\x02", _result(5, 6)),  # ping whose data runs short: malformed
    (0x1F, b"\x00\x05\x01\xff", _result(5, 6)),      # debug text not UTF-8: malformed
    (0x18, b"\x00\x05\x13\x89", _result(5, 2)),  # buzzer 5001 ms: bad_argument
    (0x18, b"\x00\x05\x13\x88", _result(5, 0)),  # buzzer 5000 ms: ok
    (0x12, b"\x00\x05\x00\x64", _result(5, 2)),  # set_tile_count 100: bad_argument
    (0x12, b"\x00\x05\x00\x88", _result(5, 0)),  # set_tile_count 136: ok
    (0x14, b"\x00\x05", _result(5, 1)),          # raise_walls in idle: bad_phase
    (0x15, b"\x00\x05", _result(5, 1)),          # lower_walls in idle: bad_phase
])
async def test_every_refusal_code(bench: Bench, type_: int, payload: bytes, want: bytes) -> None:
    """§7 result codes: "1 `bad_phase` ... 2 `bad_argument` a field is out of range ... 5 `unknown_command` the
    TYPE is not a command this table knows ... 6 `malformed` the payload does not match the message's fields";
    (added by this audit) "a field read whole but out of range is `bad_argument`: a `seat` code 4..0xFE";
    "A command too short to hold its `req` is answered `malformed` ... with `req` 0"; roll_dice "`0xFF`:
    `bad_argument`"; buzzer "(≤ 5000)"; set_tile_count "one of the capability's tile counts"; §8
    "`raise_walls` only in `ready`"; lower_walls "`walls_raised`/`playing` →"."""
    await bench.reset()
    await bench.identify()
    (reply,) = await bench.send(type_, payload)
    assert reply[1] == 0x80 and reply[2][:3] == want


async def test_a_phase_change_comes_before_the_result_and_bad_phase_before_fault_active(bench: Bench) -> None:
    """§8: "A command that changes the phase sends the `phase` event *before* its `result`"; "Commands that
    need a stopped part reply `fault_active`" (a lid open stops build and lift, not the dice); (added by this
    audit) "a command refused for its phase and for a fault is answered `bad_phase`"."""
    await bench.reset()
    await bench.identify()
    got = await bench.send(0x13, b"\x00\x02")  # start_shuffle
    assert [(t, p[4:]) for _, t, p in got][0] == (0x91, b"\x01") and got[1][2][:3] == _result(2, 0)
    await bench.send(0x1F, b"\x00\x03\x0ffault jam chain")
    (r,) = await bench.send(0x14, b"\x00\x04")  # raise_walls while building, a jam on: bad_phase
    assert r[2][:3] == _result(4, 1)
    got = await bench.send(0x19, b"\x00\x05")  # reset: clears the jam, phase idle, before the result
    assert [t for _, t, _ in got] == [0x96, 0x91, 0x80] and got[1][2][4:] == b"\x00"
    got = await bench.send(0x1F, b"\x00\x06\x15fault centre_open lid")
    assert [(t, p[4:]) for _, t, p in got][0] == (0x95, b"\x06\x03lid")
    (r,) = await bench.send(0x13, b"\x00\x07")
    assert r[2][:3] == _result(7, 4)
    (r,) = await bench.send(0x16, b"\x00\x08\x00")  # the dice still roll
    assert r[2][:3] == _result(8, 0)
    await bench.send(0x19, b"\x00\x09")
    (st,) = await bench.send(0x11, b"\x00\x0a")
    assert m.BY_NAME["status_report"].decode(st[2])["faults"] == (6,)  # reset leaves the lid's fault


async def test_the_request_cache_holds_the_last_32_replies_of_this_host(bench: Bench) -> None:
    """§5: "The table remembers the reply to the last **32** requests of the current `host_id`. A command
    whose `req` it already answered is *not executed again*"; "A new `host_id` in identify clears this
    memory"; "`identify` is never answered from it"."""
    await bench.reset()
    await bench.identify(req=1)
    for req in range(2, 35):  # 33 buzzes, reqs 2..34: req 2 falls out of the 32
        await bench.send(0x18, struct.pack(">HH", req, req))
    assert bench.sim.buzzes == list(range(2, 35))
    (r,) = await bench.send(0x18, struct.pack(">HH", 3, 999))  # req 3: remembered, not run
    assert r[2][:3] == _result(3, 0) and bench.sim.buzzes[-1] == 34
    await bench.send(0x18, struct.pack(">HH", 2, 2))  # req 2: forgotten, run again
    assert bench.sim.buzzes[-1] == 2
    got = await bench.identify(req=3)  # identify with a req already answered: still identity
    assert got[0][1] == 0x81
    await bench.identify(host_id=0xBEEF, req=40)
    await bench.send(0x18, struct.pack(">HH", 4, 44))  # a new host: req 4 is a new command
    assert bench.sim.buzzes[-1] == 44


async def test_the_replay_is_the_ring_of_the_last_256_events(bench: Bench) -> None:
    """§5.3: "if `boot_id` matches the table's, the table resends, in order, every event with number greater
    than `last_event` still in its ring of the last **256** events. If it does not match ..., it resends
    every event since boot that is still in the ring." hello is 1, 300 presses 2..301: the ring holds 46..301."""
    for _ in range(300):  # (as the board sends them: presses at one instant would be one bounced press)
        bench.sim.newer_event(0x93, bytes([0, 1]))  # button seat=E button=start
    await bench.reset()
    got = await bench.identify(boot_id=0, req=1)
    evs = [struct.unpack(">I", p[:4])[0] for _, t, p in got if t != 0x81]
    assert evs == list(range(46, 302))
    await bench.reset()
    got = await bench.identify(boot_id=bench.sim.boot_id, last_event=299, req=2)
    assert [(t, p[:4]) for _, t, p in got] == [(0x81, got[0][2][:4]), (0x93, struct.pack(">I", 300)),
                                               (0x93, struct.pack(">I", 301))]
    assert got[1][2][4:] == b"\x00\x01"  # seat E, button start


async def test_the_simulator_sets_tcp_nodelay(no_leaks: None) -> None:
    """§1 TCP: "both ends set `TCP_NODELAY`" (the table's end here: asyncio sets it on every TCP socket)."""
    import socket

    from drivers.transport import open_transport
    from tablesim import SimTable

    clock = VirtualClock(auto=True)
    sim = SimTable(seed=5, clock=clock)
    try:
        port = await sim.serve_tcp()
        transport = await open_transport(f"socket://127.0.0.1:{port}")
        try:
            await clock.sleep(0.05)
            (tcp,) = [p for p in sim._ports if hasattr(p, "drop_client")]
            sock = tcp._writer.get_extra_info("socket")
            assert sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY)
        finally:
            await transport.close()
    finally:
        await sim.close()
        await clock.close()


# ----- §10 the remote-control dialect
async def test_remote_frames_are_sent_3_times_in_all_then_fail(monkeypatch: pytest.MonkeyPatch) -> None:
    """§10: "`0xFF CMD P1 P2 SUM`  `SUM = (CMD + P1 + P2) mod 256`" with (added by this audit) "P2 is 0";
    "The host sends a frame at most 3 times in all, 200 ms apart without its echo, then fails the command"."""
    from drivers import remote

    clock = VirtualClock(auto=True)
    deaf = _deaf_behind(monkeypatch, remote, clock)
    try:
        with pytest.raises(TableError) as err:
            await remote.RemoteTable("deaf://", clock)._start()
        assert err.value.code == "no_answer"
        assert [d for _, d in deaf.writes] == [bytes.fromhex("FF 03 00 00 03")] * 3
        t0 = deaf.writes[0][0]
        assert [round(t - t0, 6) for t, _ in deaf.writes] == [0.0, 0.2, 0.4]
        assert remote.frame(remote.LIFT, 1) == bytes.fromhex("FF 02 01 00 03")
    finally:
        await clock.close()


# ----- §11 the session on the wire, byte for byte
_LINE = re.compile(r"^(>>>|<<<) ((?:[0-9A-F]{2} )+)\s*(\S.*)$")
_VALUE = re.compile(r"(\w+)=('[^']*'|\([^)]*\)|\S+)")


def _session() -> list[tuple[str, bytes, str]]:
    text = DOC.read_text(encoding="utf-8")
    part = text[text.index("## 11."):text.index("## 12.")]
    block = part[part.index("```") + 3:]
    block = block[:block.index("```")]
    out = []
    for line in block.strip().splitlines():
        hit = _LINE.match(line)
        if hit:
            comment = re.split(r"\s{2,}", hit.group(3))[0]  # what follows two spaces is a remark
            out.append((hit.group(1), bytes.fromhex(hit.group(2)), comment))
        else:
            assert line.startswith("... "), line
            out.append(("...", b"", line))
    return out


def _value(ftype: str, text: str) -> Any:
    if text.startswith("'"):
        return text[1:-1]
    if text.startswith("("):
        return tuple(int(x) for x in text[1:-1].split(","))
    if ftype in ("seat", "phase", "button") and not text[0].isdigit():
        return text
    return int(text, 0)


def test_the_documented_session_is_what_the_encoder_writes_byte_for_byte() -> None:
    """§11: "Real bytes ... every line below must decode to what its comment says." Each line is encoded
    here from its comment by `drivers.messages` and `drivers.framing` and must equal the page's bytes, whose
    CRC is also checked by the page's own algorithm (`_crc`)."""
    checked = 0
    seq_of = {">>>": 0, "<<<": 0}  # the next data SEQ each side sends
    for direction, raw, comment in _session():
        if direction == "...":
            first, last = map(int, re.search(r"table SEQ (\d+)\.\.(\d+)", comment).groups())
            assert first == seq_of["<<<"]
            seq_of["<<<"] = last + 1
            continue
        assert _crc(raw[2:-2]) == int.from_bytes(raw[-2:], "big"), comment
        name, *rest = comment.split(" ", 1)
        values = dict(_VALUE.findall(rest[0])) if rest else {}
        if name in ("ACK", "NAK"):
            expected = encode_frame(int(rest[0]), m.ACK if name == "ACK" else m.NAK)
        elif name in ("RESET", "RESET_ACK"):
            expected = encode_frame(0, m.RESET if name == "RESET" else m.RESET_ACK,
                                    struct.pack(">I", int(values["nonce"], 0)))
        else:
            decl = dict(m.BY_NAME[name].fields)
            type_, payload = m.encode(name, **{k: _value(decl[k], v) for k, v in values.items()})
            expected = encode_frame(raw[3], type_, payload)
            assert raw[3] == seq_of[direction], f"{comment}: SEQ {raw[3]}, the sender's count is {seq_of[direction]}"
            seq_of[direction] = (seq_of[direction] + 1) & 0xFF
        assert raw == expected, f"{comment}\n page    {raw.hex(' ')}\n encoder {expected.hex(' ')}"
        checked += 1
    assert checked >= 20


def test_every_ack_in_the_session_acknowledges_what_its_side_received_so_far() -> None:
    """§3: "`ACK` | next expected | all data frames before SEQ arrived (cumulative)": each ACK in §11 is the
    number of data frames the other side had sent by then (the `...` line counts the heartbeats it names,
    each ACKed)."""
    received = {">>>": 0, "<<<": 0}  # data frames each side has received
    for direction, raw, comment in _session():
        if direction == "...":
            first, last = map(int, re.search(r"table SEQ (\d+)\.\.(\d+)", comment).groups())
            received[">>>"] += last - first + 1
            continue
        other = "<<<" if direction == ">>>" else ">>>"
        if raw[4] == m.ACK:
            assert raw[3] == received[direction], comment
        elif raw[4] >= 0x10:
            received[other] += 1


# ----- §5.2 and §6: a table whose numbers went back
async def test_event_numbers_that_go_back_under_the_same_boot_id_start_the_host_over(
        sim: Any, table: Any, vclock: VirtualClock) -> None:
    """§6: "A heartbeat also carries the number of the last event the table made: if it is *lower* than the
    host's, the table restarted unnoticed (reason `table_reset`)"; §5.2: "A `boot_id` that matches with a last
    event number below the host's is a new boot whose id collided: the host starts again from its first
    event." The table reboots without RESET (a firmware that forgot it) and draws its old boot id."""
    for _ in range(3):  # (as the board sends them: presses at one instant would be one bounced press)
        sim.newer_event(0x93, bytes([0, 1]))  # button seat=E button=start
    await table.wait_for_event("button", timeout=10, after=3)
    assert table.last_event == 4
    old = sim.boot_id
    sim.mech.stop()
    sim._boot(reason=2)  # a watchdog reset: hello is event 1 again, numbered under...
    sim.boot_id = old  # ...the same 32 bits
    sim._ring[0] = (1, 0x90, struct.pack(">IIB", 1, old, 2))
    down = await table.wait_for_event("link_down", timeout=10)
    assert down.fields["reason"] == "table_reset"
    hello = await table.wait_for_event("hello", timeout=20)
    assert (hello.seq, hello.fields["reason"]) == (1, 2) and table.last_event == 1


async def test_a_reason_text_is_cut_under_110_bytes_at_a_character_boundary(bench: Bench) -> None:
    """§12: "**Reason texts** in `result` are for people ...; keep them under 110 bytes of UTF-8 so a frame
    always fits, and cut them at a character boundary." (an unknown fault named in 30 three-byte characters)"""
    await bench.reset()
    await bench.identify()
    text = ("fault " + "卡" * 30).encode()  # a frame of 112 bytes of payload
    (r,) = await bench.send(0x1F, b"\x00\x02" + bytes([len(text)]) + text)
    req, code, n = struct.unpack(">HBB", r[2][:4])
    assert (req, code) == (2, 2) and n <= 110 and len(r[2]) == 4 + n
    r[2][4:].decode("utf-8")  # whole characters only

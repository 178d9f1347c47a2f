"""Frames of the mahjong-link protocol: CRC-16/CCITT, encoding, and a resynchronising decoder."""

from __future__ import annotations

from dataclasses import dataclass, field

SYNC = b"\xa5\x5a"
MAX_PAYLOAD = 120
HEADER_LEN = 5  # sync(2) len seq type
FRAME_OVERHEAD = HEADER_LEN + 2  # + crc
MAX_FRAME = MAX_PAYLOAD + FRAME_OVERHEAD


def _crc_table() -> list[int]:
    table = []
    for byte in range(256):
        crc = byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else (crc << 1)
        table.append(crc & 0xFFFF)
    return table


_CRC_TABLE = _crc_table()


def crc16_ccitt(data: bytes, crc: int = 0xFFFF) -> int:
    """CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF): what small MCUs compute cheaply."""
    for b in data:
        crc = ((crc << 8) & 0xFFFF) ^ _CRC_TABLE[((crc >> 8) ^ b) & 0xFF]
    return crc


class FrameError(ValueError):
    """A frame that cannot be built (payload too long, field out of range)."""


@dataclass(frozen=True, slots=True)
class Frame:
    """One frame: `seq` is the data sequence number, or the ACK number on ACK/NAK."""

    seq: int
    type: int
    payload: bytes = b""

    def encode(self) -> bytes:
        return encode_frame(self.seq, self.type, self.payload)


def encode_frame(seq: int, type_: int, payload: bytes = b"") -> bytes:
    if len(payload) > MAX_PAYLOAD:
        raise FrameError(f"payload of {len(payload)} bytes exceeds the maximum of {MAX_PAYLOAD}")
    if not (0 <= seq <= 255 and 0 <= type_ <= 255):
        raise FrameError(f"seq {seq} / type {type_} out of 0..255")
    body = bytes((len(payload), seq, type_)) + payload
    crc = crc16_ccitt(body)
    return SYNC + body + bytes((crc >> 8, crc & 0xFF))


@dataclass
class DecoderStats:
    """Counters a display can show: what the decoder had to throw away and why."""

    frames: int = 0
    crc_errors: int = 0
    junk_bytes: int = 0
    oversize: int = 0
    torn: int = 0


@dataclass
class FrameDecoder:
    """Turns a byte stream into frames, resynchronising after garbage (protocol.md §4).

    A bad CRC or an impossible length drops only the first byte of the false start, so a
    real frame starting inside the garbage is still found. `feed` never raises and does a
    bounded amount of work per byte, so random input cannot crash or hang it.
    """

    stats: DecoderStats = field(default_factory=DecoderStats)
    _buf: bytearray = field(default_factory=bytearray)
    _partial_since: float | None = None
    torn_after: float = 0.1

    def feed(self, data: bytes, now: float | None = None) -> list[Frame]:
        self._buf += data
        frames: list[Frame] = []
        buf = self._buf
        while True:
            start = buf.find(SYNC)
            if start < 0:
                keep = 1 if buf[-1:] == SYNC[:1] else 0
                self.stats.junk_bytes += len(buf) - keep
                del buf[: len(buf) - keep]
                break
            if start:
                self.stats.junk_bytes += start
                del buf[:start]
            if len(buf) < 3:
                break
            length = buf[2]
            if length > MAX_PAYLOAD:
                self.stats.oversize += 1
                self.stats.junk_bytes += 1
                del buf[:1]
                continue
            total = length + FRAME_OVERHEAD
            if len(buf) < total:
                break
            body = bytes(buf[2 : HEADER_LEN + length])
            crc = (buf[total - 2] << 8) | buf[total - 1]
            if crc16_ccitt(body) != crc:
                self.stats.crc_errors += 1
                self.stats.junk_bytes += 1
                del buf[:1]
                continue
            frames.append(Frame(seq=body[1], type=body[2], payload=body[3:]))
            self.stats.frames += 1
            del buf[:total]
        if now is not None:
            self._partial_since = (self._partial_since if frames == [] and self._partial_since is not None
                                   else now) if buf else None
        return frames

    def has_partial(self) -> bool:
        return bool(self._buf)

    def expire(self, now: float) -> list[Frame]:
        """Drop a frame torn for longer than `torn_after` (its rest will never come) and rescan."""
        if self._buf and self._partial_since is not None and now >= self._partial_since + self.torn_after:
            self.stats.torn += 1
            self.stats.junk_bytes += 1
            del self._buf[:1]
            self._partial_since = now
            return self.feed(b"", now)
        return []

    def reset(self) -> None:
        self._buf.clear()
        self._partial_since = None

"""Frames: the CRC, encoding, and the decoder's resynchronisation after garbage."""

from __future__ import annotations

import pytest

from drivers.framing import MAX_FRAME, MAX_PAYLOAD, Frame, FrameDecoder, FrameError, crc16_ccitt, encode_frame


def test_crc_matches_the_ccitt_false_check_value() -> None:
    assert crc16_ccitt(b"123456789") == 0x29B1
    assert crc16_ccitt(b"") == 0xFFFF


def test_frame_layout_is_sync_len_seq_type_payload_crc() -> None:
    raw = encode_frame(5, 0x91, b"\x01\x02")
    assert raw[:2] == b"\xa5\x5a"
    assert raw[2:5] == bytes((2, 5, 0x91))
    assert raw[5:7] == b"\x01\x02"
    assert int.from_bytes(raw[7:], "big") == crc16_ccitt(raw[2:7])


def test_round_trip_and_split_reads() -> None:
    frames = [Frame(i, 0x80 + i, bytes(range(i * 3))) for i in range(10)]
    stream = b"".join(f.encode() for f in frames)
    dec = FrameDecoder()
    got: list[Frame] = []
    for b in stream:  # one byte at a time
        got += dec.feed(bytes([b]))
    assert got == frames


def test_payload_limit() -> None:
    assert len(encode_frame(0, 0x10, bytes(MAX_PAYLOAD))) == MAX_FRAME
    with pytest.raises(FrameError, match="exceeds"):
        encode_frame(0, 0x10, bytes(MAX_PAYLOAD + 1))


def test_resync_after_garbage_and_a_false_start() -> None:
    good = Frame(3, 0x92, b"\x00\x00\x00\x07\x00\x02\x03\x04")
    garbage = b"\x00\xff\xa5\x5a\x7f\x01\x02" + b"\xa5\x5a\x03\x00"  # a false start with a huge LEN, then a torn one
    dec = FrameDecoder()
    assert dec.feed(garbage + good.encode() + good.encode()) == [good, good]
    assert dec.stats.junk_bytes > 0
    assert dec.stats.oversize == 1


def test_bad_crc_is_counted_and_the_next_frame_still_found() -> None:
    good = Frame(1, 0x91, b"\x00\x00\x00\x01\x02")
    bad = bytearray(good.encode())
    bad[-1] ^= 0x01
    dec = FrameDecoder()
    assert dec.feed(bytes(bad) + good.encode()) == [good]
    assert dec.stats.crc_errors == 1


def test_a_torn_frame_expires() -> None:
    dec = FrameDecoder()
    assert dec.feed(encode_frame(0, 0x91, b"abcdef")[:6], now=1.0) == []
    assert dec.has_partial()
    assert dec.expire(1.05) == []
    dec.expire(1.2)
    assert dec.stats.torn >= 1
    good = Frame(0, 0x91, b"x")
    assert good in dec.feed(good.encode(), now=1.3)

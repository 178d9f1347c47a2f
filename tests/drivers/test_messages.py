"""Messages as data: every declaration encodes and decodes, malformed payloads are named."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from drivers import messages as m

SAMPLES: dict[str, Any] = {
    "u8": 200, "u16": 513, "u32": 70000, "bool": True, "str": "卡牌 chain",
    "u8s": (3, 5), "u16s": (144, 136), "seat": "W", "phase": "walls_raised", "button": "dice",
}


@pytest.mark.parametrize("msg", list(m.BY_TYPE.values()), ids=lambda msg: msg.name)
def test_every_declared_message_round_trips(msg: m.MessageType) -> None:
    values = {name: SAMPLES[ftype] for name, ftype in msg.fields}
    type_, payload = m.encode(msg.name, **values)
    got_msg, got = m.decode(type_, payload)
    assert got_msg is msg and got == values
    assert msg.name in m.describe(type_, payload)


def test_types_are_unique_and_in_their_ranges() -> None:
    assert len({t for t, _, _ in m.DECLARATIONS}) == len(m.DECLARATIONS)
    for msg in m.BY_TYPE.values():
        if msg.kind == "command":
            assert 0x10 <= msg.type < 0x80
        else:
            assert msg.type >= 0x80


def test_seat_none_is_0xff() -> None:
    _, payload = m.encode("seat_lights", req=1, dealer="E", prevalent=None, turn=None)
    assert payload[2:] == bytes((0, 0xFF, 0xFF))


@pytest.mark.parametrize("payload, fragment", [
    (b"\x00", "payload ends inside a u16"),
    (b"\x00\x01\x09", "seat code 9"),
    (b"\x00\x01\x00\x00", "unexpected byte"),
])
def test_malformed_payloads_say_what_is_wrong(payload: bytes, fragment: str) -> None:
    with pytest.raises(m.MessageError, match=fragment):
        m.decode(m.BY_NAME["roll_dice"].type, payload)


def test_unknown_type_and_bad_values() -> None:
    with pytest.raises(m.MessageError, match="unknown message type 0x7E"):
        m.decode(0x7E, b"")
    with pytest.raises(m.MessageError, match="roll_dice.seat"):
        m.encode("roll_dice", req=1, seat="X")
    with pytest.raises(m.MessageError, match="missing field"):
        m.encode("buzzer", req=1)
    with pytest.raises(m.MessageError, match="0..65535"):
        m.encode("buzzer", req=1, ms=70000)
    assert "<0x7E" in m.describe(0x7E, b"\x01")


@given(st.integers(0x00, 0xFF), st.binary(max_size=130))
def test_decode_never_fails_other_than_message_error(type_: int, payload: bytes) -> None:
    try:
        m.decode(type_, payload)
    except m.MessageError:
        pass
    m.describe(type_, payload)


def test_every_phase_button_and_result_code_has_a_chinese_name() -> None:
    from drivers.names import BUTTON_NAMES, LINK_REASONS, PHASE_NAMES, phase_zh, reason_zh

    assert set(PHASE_NAMES) == set(m.PHASES) and set(BUTTON_NAMES) == set(m.BUTTONS)
    assert set(m.RESULT_CODES.values()) - {"ok", "unknown_command", "malformed"} <= set(LINK_REASONS)
    assert phase_zh("walls_raised").startswith("牌墙") and phase_zh(None) == "未知"
    assert reason_zh("silent").startswith("牌桌无响应") and reason_zh("new_code") == "new_code"

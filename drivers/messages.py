"""Every message of the mahjong-link protocol, declared once as data (protocol.md §7).

One line per message, `name field=type ...`, is its whole definition: the same table drives
encoding, decoding, the wire log and the readable text form, like Klipper's msgproto.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import Any

from drivers.framing import MAX_PAYLOAD

SEATS: tuple[str, ...] = ("E", "S", "W", "N")
SEAT_NONE = 0xFF
PHASES: tuple[str, ...] = ("idle", "building", "ready", "raising", "walls_raised", "playing", "lowering")
BUTTONS: tuple[str, ...] = ("dice", "start", "raise", "lower")
HELLO_REASONS: tuple[str, ...] = ("power_on", "brown_out", "watchdog")

# Link control types (protocol.md §3): not numbered, never acknowledged.
ACK, NAK, RESET, RESET_ACK = 0x01, 0x02, 0x03, 0x04
CONTROL_TYPES = frozenset({ACK, NAK, RESET, RESET_ACK})

# `result` codes (protocol.md §7).
RESULT_CODES: dict[int, str] = {
    0: "ok", 1: "bad_phase", 2: "bad_argument", 3: "unsupported",
    4: "fault_active", 5: "unknown_command", 6: "malformed",
}
RESULT_IDS: dict[str, int] = {v: k for k, v in RESULT_CODES.items()}

# identity.features bits
FEATURE_BITS: dict[str, int] = {
    "machine_dealt": 0, "seat_buttons": 1, "seat_lights": 2, "buzzer": 3, "tile_counter": 4,
}


class MessageError(ValueError):
    """A payload that does not match its declaration (the text says which field and why)."""


class MessageRangeError(MessageError):
    """A payload of the right shape with a code its field does not define (a seat 4..0xFE, a phase 7):
    the table answers such a command `bad_argument`, not `malformed` (protocol.md §7)."""


class _Field:
    """How one field type goes on the wire."""

    name = ""

    def encode(self, value: Any) -> bytes:
        raise NotImplementedError

    def decode(self, data: bytes, pos: int) -> tuple[Any, int]:
        raise NotImplementedError


class _Int(_Field):
    def __init__(self, name: str, fmt: str) -> None:
        self.name, self._st = name, struct.Struct(">" + fmt)
        self._max = (1 << (8 * self._st.size)) - 1

    def encode(self, value: Any) -> bytes:
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= self._max:
            raise MessageError(f"{self.name} needs an integer 0..{self._max}, got {value!r}")
        return self._st.pack(value)

    def decode(self, data: bytes, pos: int) -> tuple[Any, int]:
        end = pos + self._st.size
        if end > len(data):
            raise MessageError(f"payload ends inside a {self.name}")
        return self._st.unpack_from(data, pos)[0], end


class _Bool(_Field):
    name = "bool"

    def encode(self, value: Any) -> bytes:
        return b"\x01" if value else b"\x00"

    def decode(self, data: bytes, pos: int) -> tuple[Any, int]:
        if pos >= len(data):
            raise MessageError("payload ends inside a bool")
        if data[pos] > 1:
            raise MessageError(f"bool must be 0 or 1, got {data[pos]}")
        return bool(data[pos]), pos + 1


class _Enum(_Field):
    """A u8 naming one of a list; `none_ok` adds 0xFF for 'none' (seat lights off)."""

    def __init__(self, name: str, names: tuple[str, ...], none_ok: bool = False) -> None:
        self.name, self._names, self._none_ok = name, names, none_ok

    def encode(self, value: Any) -> bytes:
        if value is None and self._none_ok:
            return bytes((SEAT_NONE,))
        try:
            return bytes((self._names.index(value),))
        except ValueError:
            raise MessageError(f"{self.name} must be one of {', '.join(self._names)}, got {value!r}") from None

    def decode(self, data: bytes, pos: int) -> tuple[Any, int]:
        if pos >= len(data):
            raise MessageError(f"payload ends inside a {self.name}")
        b = data[pos]
        if b == SEAT_NONE and self._none_ok:
            return None, pos + 1
        if b >= len(self._names):
            raise MessageRangeError(f"{self.name} code {b} is not one of 0..{len(self._names) - 1}")
        return self._names[b], pos + 1


class _Str(_Field):
    name = "str"

    def encode(self, value: Any) -> bytes:
        raw = str(value).encode("utf-8")
        if len(raw) > 255:
            raise MessageError(f"string of {len(raw)} bytes is longer than 255")
        return bytes((len(raw),)) + raw

    def decode(self, data: bytes, pos: int) -> tuple[Any, int]:
        if pos >= len(data):
            raise MessageError("payload ends inside a str length")
        n = data[pos]
        end = pos + 1 + n
        if end > len(data):
            raise MessageError(f"str of {n} bytes runs past the payload")
        try:
            return data[pos + 1 : end].decode("utf-8"), end
        except UnicodeDecodeError as exc:
            raise MessageError(f"str is not UTF-8: {exc.reason}") from None


class _List(_Field):
    def __init__(self, name: str, item: _Int) -> None:
        self.name, self._item = name, item

    def encode(self, value: Any) -> bytes:
        items = list(value)
        if len(items) > 255:
            raise MessageError(f"{self.name} of {len(items)} items is longer than 255")
        return bytes((len(items),)) + b"".join(self._item.encode(v) for v in items)

    def decode(self, data: bytes, pos: int) -> tuple[Any, int]:
        if pos >= len(data):
            raise MessageError(f"payload ends inside a {self.name} count")
        n, pos = data[pos], pos + 1
        out = []
        for _ in range(n):
            v, pos = self._item.decode(data, pos)
            out.append(v)
        return tuple(out), pos


FIELD_TYPES: dict[str, _Field] = {
    "u8": _Int("u8", "B"), "u16": _Int("u16", "H"), "u32": _Int("u32", "I"),
    "bool": _Bool(), "str": _Str(),
    "u8s": _List("u8s", _Int("u8", "B")), "u16s": _List("u16s", _Int("u16", "H")),
    "seat": _Enum("seat", SEATS, none_ok=True), "phase": _Enum("phase", PHASES),
    "button": _Enum("button", BUTTONS),
}


@dataclass(frozen=True)
class MessageType:
    """One declared message: its TYPE byte, who sends it, and its fields in wire order."""

    type: int
    kind: str  # "command" (host → table), "reply", "event" (numbered), "heartbeat"
    name: str
    fields: tuple[tuple[str, str], ...]

    def encode(self, values: dict[str, Any]) -> bytes:
        missing = [n for n, _ in self.fields if n not in values]
        if missing:
            raise MessageError(f"{self.name}: missing field(s) {', '.join(missing)}")
        out = b""
        for fname, ftype in self.fields:
            try:
                out += FIELD_TYPES[ftype].encode(values[fname])
            except MessageError as exc:
                raise MessageError(f"{self.name}.{fname}: {exc}") from None
        if len(out) > MAX_PAYLOAD:
            raise MessageError(f"{self.name}: payload of {len(out)} bytes exceeds {MAX_PAYLOAD}")
        return out

    def decode(self, payload: bytes, trailing_ok: bool = False) -> dict[str, Any]:
        """Field values; `trailing_ok`: bytes after the known fields (appended by a newer firmware)
        are ignored, as the host does with the table's messages; the table's own check is strict."""
        values: dict[str, Any] = {}
        pos = 0
        for fname, ftype in self.fields:
            try:
                values[fname], pos = FIELD_TYPES[ftype].decode(payload, pos)
            except MessageError as exc:
                raise type(exc)(f"{self.name}.{fname}: {exc}") from None
        if pos != len(payload) and not trailing_ok:
            raise MessageError(f"{self.name}: {len(payload) - pos} unexpected byte(s) after the last field")
        return values

    def format(self, values: dict[str, Any]) -> str:
        """The readable text form used by the wire log: `dice ev=7 seat=E dice=(3, 5)`."""
        return " ".join([self.name] + [f"{n}={values.get(n)!r}" if isinstance(values.get(n), str)
                                        else f"{n}={values.get(n)}" for n, _ in self.fields])


#: The protocol's messages: TYPE, kind, declaration. The single source of truth.
DECLARATIONS: tuple[tuple[int, str, str], ...] = (
    (0x10, "command", "identify req=u16 host_id=u32 boot_id=u32 last_event=u32"),
    (0x11, "command", "status req=u16"),
    (0x12, "command", "set_tile_count req=u16 count=u16"),
    (0x13, "command", "start_shuffle req=u16"),
    (0x14, "command", "raise_walls req=u16"),
    (0x15, "command", "lower_walls req=u16"),
    (0x16, "command", "roll_dice req=u16 seat=seat"),
    (0x17, "command", "seat_lights req=u16 dealer=seat prevalent=seat turn=seat"),
    (0x18, "command", "buzzer req=u16 ms=u16"),
    (0x19, "command", "reset req=u16"),
    (0x1A, "command", "ping req=u16 data=u8s"),
    (0x1F, "command", "debug req=u16 text=str"),
    (0x80, "reply", "result req=u16 code=u8 text=str"),
    (0x81, "reply", "identity req=u16 protocol=u16 firmware=str serial=str boot_id=u32"
                    " tile_counts=u16s wall_lengths=u8s dice=u8 features=u8 last_event=u32"),
    (0x82, "reply", "status_report req=u16 phase=phase tile_count=u16 next_tile_count=u16"
                    " set_ready=bool dealer=seat faults=u8s last_event=u32 uptime_ms=u32"),
    (0x83, "reply", "pong req=u16 data=u8s"),
    (0x90, "event", "hello ev=u32 boot_id=u32 reason=u8"),
    (0x91, "event", "phase ev=u32 phase=phase"),
    (0x92, "event", "dice ev=u32 seat=seat dice=u8s"),
    (0x93, "event", "button ev=u32 seat=seat button=button"),
    (0x94, "event", "tile_count ev=u32 count=u16 expected=u16"),
    (0x95, "event", "fault_raised ev=u32 code=u8 where=str"),
    (0x96, "event", "fault_cleared ev=u32 code=u8"),
    (0x9F, "heartbeat", "heartbeat uptime_ms=u32 phase=phase last_event=u32"),
)


def _parse(type_: int, kind: str, decl: str) -> MessageType:
    name, *parts = decl.split()
    fields = []
    for part in parts:
        fname, _, ftype = part.partition("=")
        if ftype not in FIELD_TYPES:
            raise ValueError(f"{name}: unknown field type {ftype!r}")
        fields.append((fname, ftype))
    return MessageType(type_, kind, name, tuple(fields))


BY_TYPE: dict[int, MessageType] = {t: _parse(t, k, d) for t, k, d in DECLARATIONS}
BY_NAME: dict[str, MessageType] = {m.name: m for m in BY_TYPE.values()}
#: The one version of protocol.md this host speaks; a newer firmware of it may append fields (§7).
PROTOCOL_VERSION = 1


def version_refusal(protocol: int) -> str | None:
    """Why the host cannot speak to a table whose identity gives `protocol`, naming both versions;
    None when it speaks it. Another number is another document: its messages may mean other things."""
    if protocol == PROTOCOL_VERSION:
        return None
    return (f"牌桌协议版本 {protocol}，本机只支持版本 {PROTOCOL_VERSION}：请更新主机软件或牌桌固件 / "
            f"the table speaks protocol version {protocol}, this host speaks version {PROTOCOL_VERSION} "
            "(docs/protocol.md §7 identity): update the host or the table's firmware")
#: Numbered events (protocol.md §7): each payload starts with `ev` (u32); 0x9F, the heartbeat, is not one.
EVENT_TYPES = range(0x90, 0x9F)


def encode(name: str, **values: Any) -> tuple[int, bytes]:
    """(TYPE, payload) of a message given by name and field values."""
    try:
        msg = BY_NAME[name]
    except KeyError:
        raise MessageError(f"no message named {name!r}") from None
    return msg.type, msg.encode(values)


def decode(type_: int, payload: bytes, trailing_ok: bool = False) -> tuple[MessageType, dict[str, Any]]:
    """The message and its field values; MessageError names what is wrong."""
    msg = BY_TYPE.get(type_)
    if msg is None:
        raise MessageError(f"unknown message type 0x{type_:02X}")
    return msg, msg.decode(payload, trailing_ok)


def describe(type_: int, payload: bytes) -> str:
    """Readable text of any frame's content, including undecodable ones (for the wire log)."""
    names = {ACK: "ACK", NAK: "NAK", RESET: "RESET", RESET_ACK: "RESET_ACK"}
    if type_ in names:
        return f"{names[type_]} {payload.hex(' ')}".rstrip()
    try:
        msg, values = decode(type_, payload)
    except MessageError as exc:
        return f"<0x{type_:02X} {payload.hex(' ')}: {exc}>"
    return msg.format(values)

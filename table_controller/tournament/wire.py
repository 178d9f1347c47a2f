"""What travels between a table and the hub: topics, payloads, the broker URL (docs/tournament.md).

Both sides build and read messages here and nowhere else, so the wire format is written once.
No MQTT import: the config validates broker URLs and ids with these functions on a Pi that may
never join a tournament.
"""

from __future__ import annotations

import json
import math
import re
import ssl
from typing import Any, Literal, NamedTuple
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from table_controller.store import MAX_INTEGER

#: The highest round (轮次) a table can key (`rounds.py`) and a seating can name: a standing or record of a
#: round past it was kept, and the next round's seating could not be published (a 500)
MAX_ROUND = 999
#: Payload format version; a hub refuses (and counts) any other.
WIRE_VERSION = 1
DEFAULT_PORT = 1883
#: The port of `mqtts://` (MQTT over TLS) when the URL names none.
DEFAULT_TLS_PORT = 8883
#: Seconds before the n-th reconnect to the broker (table and hub alike), capped at the last.
BACKOFF = (0.5, 1.0, 2.0, 5.0, 10.0)
#: MQTT keepalive: a silent cable is noticed after about 1.5 times this.
KEEPALIVE = 10


def backoff(attempt: int) -> float:
    """Seconds to wait before reconnect attempt `attempt` (0-based)."""
    return BACKOFF[min(attempt, len(BACKOFF) - 1)]
#: Ids become topic levels and hub file names: ASCII letters, digits, "_" and "-" only (`\Z`, not `$`, which
#: let "t01\n" pass: Mosquitto throws off a client whose topic holds a control character, at every message)
ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,63}\Z")
POSITIONS = ("1", "2", "3", "4")


class WireError(ValueError):
    """A broker URL, an id or a received message that cannot be used; the text says why."""


def table_order(ids: Any, venue: list[str]) -> list[str]:
    """Tables in the venue's order (`--tables`), then the others with their numbers read as numbers:
    as text, t10 came before t2, and round 1's second group of players went to t10."""
    def key(table_id: str) -> tuple[int, list[Any]]:
        parts = [int(x) if x.isdigit() else x for x in re.split(r"(\d+)", table_id)]  # str, int, str … alike
        return (venue.index(table_id) if table_id in venue else len(venue), parts)

    return sorted(ids, key=key)


def check_id(value: str, what: str) -> str:
    if not ID_RE.match(value):
        raise WireError(f"{what} {value!r}：须为 1 至 64 个英文字母、数字、_ 或 -（用作 MQTT 主题的一级） / {what} "
                        f"{value!r}: use 1-64 ASCII letters, digits, '_' or '-' (it becomes an MQTT topic level)")
    return value


def check_prefix(value: str) -> str:
    """A topic prefix: one or more id-like levels separated by '/', e.g. "mahjong" or "club/mahjong"."""
    if not value or not all(ID_RE.match(level) for level in value.split("/")):
        raise WireError(f"主题前缀 {value!r}：须为以 / 分隔的英文字母、数字、_ 或 - / topic prefix {value!r}: levels of "
                        "ASCII letters, digits, '_' or '-', separated by '/'")
    return value


class BrokerAddress(NamedTuple):
    host: str
    port: int
    #: `mqtts://`: the connection is TLS and the broker's certificate is checked
    tls: bool


def parse_broker(url: str) -> BrokerAddress:
    """`mqtt://HOST[:PORT]` or `mqtts://HOST[:PORT]` (TLS) → its address; anything else is
    refused with the form expected."""
    parts = urlsplit(url)
    if (parts.scheme not in ("mqtt", "mqtts") or not parts.hostname or parts.path not in ("", "/") or parts.query
            or parts.username):
        raise WireError(f"赛事服务器地址 {url!r} 须为 mqtt://主机:端口，TLS 用 mqtts://（用户名和密码另行给出） / broker "
                        f"{url!r}: expected mqtt://HOST:PORT, or mqtts://HOST:PORT for TLS (credentials go in "
                        "username/password)")
    tls = parts.scheme == "mqtts"
    try:
        port = parts.port or (DEFAULT_TLS_PORT if tls else DEFAULT_PORT)
    except ValueError:
        raise WireError(f"赛事服务器地址 {url!r}：端口须为 1 至 65535 的数 / broker {url!r}: the port must be a number "
                        "1..65535") from None
    return BrokerAddress(parts.hostname, port, tls)


def tls_context(ca_file: str = "") -> ssl.SSLContext:
    """The TLS settings of an `mqtts://` connection: the broker's certificate must chain to
    `ca_file` (PEM; a tournament's own CA) or, without one, to the system's CAs, and must name
    the broker's host. An unreadable or malformed file is a `WireError` naming it."""
    try:
        return ssl.create_default_context(cafile=ca_file or None)
    except (OSError, ssl.SSLError) as exc:
        raise WireError(f"CA 文件 {ca_file!r} 无法作为 PEM 证书读取 / CA file {ca_file!r}: cannot be read as PEM "
                        f"certificates ({exc})") from None


def endpoint(broker: str, ca_file: str = "") -> tuple[str, int, ssl.SSLContext | None]:
    """(host, port, TLS context or None) to connect to `broker`, for the table and the hub alike."""
    host, port, tls = parse_broker(broker)
    return host, port, tls_context(ca_file) if tls else None


def check_ca_file(broker: str, ca_file: str) -> str:
    """A CA file only makes sense for a TLS broker, and must load (checked when the config is
    read, so a table does not start with a link that can never come up)."""
    if ca_file:
        if not broker or not parse_broker(broker).tls:
            raise WireError("CA 文件只用于 mqtts://（TLS）赛事服务器，所给的不是 / ca_file is for an mqtts:// broker (TLS); "
                            "the broker given is not one")
        tls_context(ca_file)
    return ca_file


#: The topics of a table, by their last level.
KINDS = ("events", "state", "replay", "records", "seating", "online")


class Topics:
    """The topics of one table (or, with table_id "+", the hub's subscriptions)."""

    def __init__(self, prefix: str, tournament: str, table_id: str) -> None:
        self.base = f"{prefix}/{tournament}/{table_id}"
        self.events = f"{self.base}/events"
        self.state = f"{self.base}/state"
        self.replay = f"{self.base}/replay"
        self.records = f"{self.base}/records"
        self.seating = f"{self.base}/seating"
        self.online = f"{self.base}/online"

    @staticmethod
    def parse(prefix: str, tournament: str, topic: str) -> tuple[str, str]:
        """(table_id, kind) of a received topic; `WireError` if it is not one of ours."""
        head = f"{prefix}/{tournament}/"
        rest = topic[len(head):].split("/") if topic.startswith(head) else []
        if len(rest) != 2 or rest[1] not in KINDS:
            raise WireError(f"topic {topic!r} is not {head}<table_id>/{'|'.join(KINDS)}")
        return check_id(rest[0], "table id"), rest[1]


class _Msg(BaseModel):
    # Unknown keys are ignored (a newer table may add some); wrong types are refused.
    model_config = ConfigDict(extra="ignore", frozen=True, strict=True)

    v: Literal[1]
    tournament: str
    table_id: str


class EventMsg(_Msg):
    """One event of a table's log, as the public may see it (`projection.public_event`)."""

    # the hub keeps seqs in SQLite, whose integers end at MAX_INTEGER (past it: an "internal error")
    seq: int = Field(ge=1, le=MAX_INTEGER)
    #: The sequence number of the table's previous logged event (0 for the first): the hub knows
    #: from this chain alone whether it holds the whole log so far.
    prev: int = Field(ge=0)
    at: float
    source: str
    type: str
    data: dict[str, Any]

    @model_validator(mode="after")
    def _chain(self) -> "EventMsg":
        if self.prev >= self.seq:
            raise ValueError(f"prev {self.prev} must be below seq {self.seq}")
        return self


class SitterMsg(BaseModel):
    """One player who sat a chair for part of a round (替补, `substitutes.credit`): from which hand to
    which (None: to the end), how many hands, the points of those hands, and why they came in."""

    model_config = ConfigDict(extra="ignore", frozen=True, strict=True)

    # no length limits: a chair's player comes from the table's config (`players` has none either),
    # and a standing the table cannot build would stop its publisher
    name: str
    id: str = ""
    from_hand: int = Field(ge=1)
    to_hand: int | None = Field(None, ge=0)
    hands: int = Field(ge=0)
    points: int | float
    reason: str = ""


class DisqualifiedMsg(BaseModel):
    """A player disqualified at the table this round (取消比赛资格: a penalty that `disqualify`, not undone):
    the chair, who sat it when ruled (name, registration number), the ruling's name and note, its # in the
    table's log and its hand (None: before the round's first hand)."""

    model_config = ConfigDict(extra="ignore", frozen=True, strict=True)

    position: Literal["1", "2", "3", "4"]
    name: str
    id: str = ""
    ruling: str = ""
    code: str = ""
    note: str = ""
    seq: int = Field(ge=1, le=MAX_INTEGER)
    hand_no: int | None = Field(None, ge=1)


class StateMsg(_Msg):
    """A table's public standing (retained): its score sheet's totals and 标准分 after event `seq`."""

    seq: int = Field(ge=0, le=MAX_INTEGER)
    #: the round (轮次) this standing is of: a table sends each closed round's final one too
    round: int = Field(1, ge=1, le=MAX_ROUND)
    at: float
    table_name: str
    ruleset: str
    players: dict[str, str]
    #: chair -> registration number, for the chairs that have one (the hub adds up by it)
    player_ids: dict[str, str] = Field(default_factory=dict)
    totals: dict[str, int | float]
    table_points: dict[str, int | float]
    final: bool
    hand_no: int | None
    hands_played: int = Field(ge=0)
    phase: str
    phase_zh: str
    #: the round was started by mistake and the start undone: the hub drops what it holds of it
    withdrawn: bool = False
    #: players' appeals (申诉) awaiting the arbitration committee's decision at this table
    appeals_waiting: int = Field(0, ge=0)
    #: the session clock (the table's stamps clock, as `at`; the hub moves it onto its own): when it runs
    #: out, the referee's pauses added back; None without a running clock. `clock_paused`: it stands still now
    clock_ends_at: float | None = None
    clock_paused: bool = False
    #: the chairs where a substitute (替补) came in during the round: who sat them, in order (absent
    #: from a table before substitutes, and where none came in: the chair's player sat it all)
    sitters: dict[str, list[SitterMsg]] = Field(default_factory=dict)
    #: the players disqualified this round (取消比赛资格), by chair; an undo at the table drops one from the
    #: next standing. Absent from a table before it: the hub reads none
    disqualified: list[DisqualifiedMsg] = Field(default_factory=list)

    @model_validator(mode="after")
    def _four_chairs(self) -> "StateMsg":
        for name in ("players", "totals", "table_points"):
            if sorted(getattr(self, name)) != list(POSITIONS):
                raise ValueError(f"{name} must have the chairs 1, 2, 3 and 4")
        for chair, sat in self.sitters.items():
            if chair not in POSITIONS or len(sat) < 2:
                raise ValueError("sitters are by chair 1..4, two or more each")
            if abs(sum(s.points for s in sat) - self.totals[chair]) > 1e-6:
                raise ValueError(f"chair {chair}'s sitters' points must add up to its total")
        return self


class OnlineMsg(_Msg):
    """Whether the table is connected to the broker (retained). The table says `online` on each
    connection and leaves its will with the broker: `online` false, `reason` "lost", which the broker
    sends when the connection dies without a goodbye (the Pi off, its Wi-Fi gone, a crash; after
    1.5 keepalives at most). A table stopped in good order says "stopped" itself."""

    online: bool
    reason: Literal["connected", "lost", "stopped"]
    at: float


class RecordMsg(_Msg):
    """One hand's public record (牌谱, `record.hand_record`) as it stood after event `seq`: sent when
    the hand ends and again when a later ruling changes it; the hub keeps the newest."""

    seq: int = Field(ge=0, le=MAX_INTEGER)
    round: int = Field(1, ge=1, le=MAX_ROUND)
    hand_no: int = Field(ge=1, le=MAX_INTEGER)
    record: dict[str, Any]

    @model_validator(mode="after")
    def _public(self) -> "RecordMsg":
        if (self.record.get("view") != "public" or self.record.get("hand_no") != self.hand_no
                or self.record.get("round", 1) != self.round):
            raise ValueError("the record must be the public record of round's hand_no")
        return self


class SeatingMsg(_Msg):
    """The hub posts the table's players for a round (retained), once the organiser has published
    the round's seating (编排): the table's referee sees it and keys the round with it."""

    round: int = Field(ge=1, le=MAX_ROUND)
    at: float
    table_name: str
    players: dict[str, str] = Field(default_factory=dict)
    player_ids: dict[str, str] = Field(default_factory=dict)
    #: the round was published again without this table (taken out of service): its offer is void
    withdrawn: bool = False

    @model_validator(mode="after")
    def _four_players(self) -> "SeatingMsg":
        if self.withdrawn:
            return self
        if sorted(self.players) != list(POSITIONS) or not all(n.strip() for n in self.players.values()):
            raise ValueError("players must name chairs 1, 2, 3 and 4")
        if set(self.player_ids) - set(POSITIONS):
            raise ValueError("player_ids are by chair 1..4")
        return self


class ReplayMsg(_Msg):
    """The hub asks a table to send its events again from after `after` (it found a gap)."""

    after: int = Field(ge=0, le=MAX_INTEGER)


def encode(msg: BaseModel) -> bytes:
    return json.dumps(msg.model_dump(), ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def _no_constant(word: str) -> Any:
    raise WireError(f"not JSON: {word} is no JSON number")


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise WireError(f"not JSON: {text} is past a float's range (read as {value})")
    return value


def decode(kind: type[_Msg], payload: bytes | bytearray, tournament: str, table_id: str) -> Any:
    """Parse a received payload as `kind`; `WireError` names what is wrong (never a crash). NaN, Infinity and a
    number past a float's range (1e400: infinity) are refused: Python's JSON reads them, and one in a table's
    standing made every standings answer unwritable as JSON (a 500 for the whole hall) for good."""
    try:
        raw = json.loads(bytes(payload).decode("utf-8"), parse_constant=_no_constant, parse_float=_finite)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise WireError(f"not UTF-8 JSON: {exc}") from None
    except RecursionError:
        raise WireError("not a valid message: JSON nested too deep") from None
    if not isinstance(raw, dict):
        raise WireError(f"expected a JSON object, got {type(raw).__name__}")
    try:
        msg = kind.model_validate(raw)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(str(p) for p in e['loc']) or '(top)'}: {e['msg']}" for e in exc.errors())
        raise WireError(f"not a valid {kind.__name__}: {problems}") from None
    if (msg.tournament, msg.table_id) != (tournament, table_id):
        raise WireError(f"message for {msg.tournament}/{msg.table_id} arrived on the topic of {tournament}/{table_id}")
    return msg

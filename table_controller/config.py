"""Table configuration: one TOML file, validated at start-up so a wrong key never reaches a match.

Every key is documented in `config/table.example.toml`. A wrong key or value stops start-up with a
`ConfigError` naming the file, the key and what is allowed.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, ValidationInfo, field_validator, model_validator

REPO_ROOT = Path(__file__).resolve().parent.parent
SEATS = ("E", "S", "W", "N")


class ConfigError(ValueError):
    """A configuration file that cannot be used; the message names file, key and what is allowed."""


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class TableSection(_Section):
    name: str = Field("1号桌", description="Shown on the display and in the match record.")
    link: str = Field(
        "sim://",
        description="Where the table's controller board is: a serial device path, "
        "/dev/serial/by-id/..., socket://HOST:PORT, rfc2217://HOST:PORT, loop://, usb://VID:PID[/N], "
        "or sim:// for the built-in simulator.",
    )
    baud: int = Field(115200, ge=1200, le=4_000_000)
    dialect: Literal["mahjong-link", "remote-control"] = "mahjong-link"
    tile_count: Literal[108, 136, 144] | None = Field(
        None, description="Tiles the machine builds with; default: the ruleset's tile count."
    )
    sim_seed: int = Field(1, description="Seed of the built-in simulator's shuffles (sim:// only).")
    sim_speed: float = Field(1.0, gt=0, le=1000, description="Simulator mechanism speed-up (sim:// only; 1 = real table times).")

    @field_validator("link")
    @classmethod
    def _link(cls, value: str) -> str:
        """A link no transport can open (usb://1a86, a socket:// without its port, "") is refused with the form
        expected: it was taken, the service retried it for ever and `tablectl check` blamed the cable and the baud
        rate (the udev rule install-service wrote for usb://1a86:7523/x read its ids off the bad URL)."""
        from drivers.errors import TableError
        from drivers.transport import check_url

        if value != "sim://":
            try:
                check_url(value)
            except TableError as exc:
                raise ValueError(str(exc)) from None
        return value


class CameraSection(_Section):
    source: str = Field("", description='"" for no camera, a device index such as "0", or an MJPEG/RTSP URL.')
    corners: tuple[tuple[float, float], tuple[float, float], tuple[float, float], tuple[float, float]] | None = Field(
        None, description="The table's four corners in the image, picked once; none: calibrate from the ArUco markers.")
    corners_size: tuple[int, int] | None = Field(
        None, description="The frame size [width, height] the corners were picked on; none: the first frame's. The "
                          "same view at another resolution is scaled; another aspect ratio is refused with a message.")
    enrollment: str = Field("", description="File written by `tablectl vision enroll` for this table's tiles.")
    model: str = Field("", description="Tile model (ONNX) other than the packaged one, e.g. from `tablectl vision train`.")
    threshold: float | None = Field(None, gt=0, lt=1, description="Confidence below which a tile goes to the referee.")
    period_s: float = Field(0.5, ge=0.05, le=10, description="Seconds between camera reads.")
    learn: bool = Field(True, description="Learn this table's tile art from the referee's rulings on unsure tiles "
                                          "(kept in `enrollment` when set, else in the data directory).")
    record_play: bool = Field(True, description="The camera keeps the play record: sure discards, flowers and melds it "
                                                "sees become the hand's play events (what is already keyed is not "
                                                "recorded twice).")

    @model_validator(mode="after")
    def _corners_fit(self) -> "CameraSection":
        """Corners that cannot be the felt (not numbers, crossed, counter-clockwise, off `corners_size`) are named at
        start and by `tablectl check`: the camera read nothing, or each seat's tiles at another's side, and the
        display said 摄像头正常 (`vision.calibrate.corners_problem`)."""
        if self.corners is not None:
            from vision.calibrate import corners_problem

            problem = corners_problem(self.corners, self.corners_size)
            if problem:
                raise ValueError(f"corners: {problem}")
        return self


def _known_rulesets() -> set[str]:
    try:
        from table_controller.rules import ruleset_ids
    except ImportError:  # the rules engine is not importable: fall back to the files present
        return {p.stem for p in (REPO_ROOT / "config" / "rulesets").glob("*.toml")}
    return set(ruleset_ids())


class RulesSection(_Section):
    # checked when left out too: an install without its rulesets (a wheel that lost config/) passed the check
    # and then answered the display's first state with a 500
    ruleset: str = Field("mcr", validate_default=True)

    @field_validator("ruleset")
    @classmethod
    def _known(cls, value: str) -> str:
        known = _known_rulesets()
        if known and value not in known:
            raise ValueError(f"unknown ruleset {value!r}; allowed: {', '.join(sorted(known))}")
        try:  # a broken ruleset file (a house ruleset's typo) is named here, not as a crash at start
            from table_controller.rules import RulesetError, load_ruleset
        except ImportError:
            return value
        try:
            load_ruleset(value)
        except RulesetError as exc:
            raise ValueError(str(exc)) from None
        from table_controller.penalties import PenaltyError, catalogue
        from table_controller.scoring import ScoringError, check_tables

        try:
            check_tables(value)
            catalogue(value)  # a [[penalties.items]] the referee's page cannot offer: its every state was a 500
        except (ScoringError, PenaltyError) as exc:
            raise ValueError(str(exc)) from None
        return value


def _whole_hash(value: str) -> str:
    """A credential in its hashed form (`web.hashed`) is a whole one: a line pasted short is named now,
    not found when no PIN logs in on the day."""
    from table_controller.web.hashed import HashError, is_hashed, parse

    if is_hashed(value):
        try:
            parse(value)
        except HashError as exc:
            raise ValueError(str(exc)) from None
    return value


class Player(_Section):
    position: int = Field(ge=1, le=4, description="The physical chair 1..4 (定位).")
    name: str = Field(min_length=1, max_length=32)
    id: str = Field("", pattern=r"^$|^[A-Za-z0-9][A-Za-z0-9_-]{0,31}$",
                    description="The player's registration number in the tournament (e.g. A017): the hub adds "
                                "up a player's tables by it; empty = by name.")

    @field_validator("name")
    @classmethod
    def _printable(cls, value: str) -> str:
        """A name pasted with a zero-width space or a line break is another player to the hub ("甲\u200b"
        beside 甲): refused here as the table's page and the hub refuse it (`printable`)."""
        from table_controller.printable import first_unprintable

        found = first_unprintable(value)
        if found:
            raise ValueError(f"选手名字含有不可见字符或控制字符（第 {found[0]} 个字符，{found[1]}） / the name holds an "
                             f"invisible or control character (character {found[0]}, {found[1]})")
        return value


class Referee(_Section):
    """One referee's own credential: every ruling made with it is logged under the name."""

    name: str = Field(min_length=1, max_length=32, description="As shown beside the referee's rulings, e.g. 王立.")
    token: str = Field(min_length=6, max_length=128, description="This referee's token or PIN (at least 6 characters), "
                                                                 "or its hash as `tablectl pin` prints it.")

    _hash_whole = field_validator("token")(classmethod(lambda cls, v: _whole_hash(v)))


class DisplaySection(_Section):
    host: str = "127.0.0.1"
    port: int = Field(8080, ge=0, le=65535, description="0 = any free port (tests).")
    referee_token: str = Field("", description="Referee credential (token or PIN, or its hash as `tablectl pin` prints "
                                               "it); empty = a random one, logged at start.")
    operator_token: str = Field("", description="Operator credential; empty = a random one, logged at start.")
    referees: tuple[Referee, ...] = Field((), description="Named referees, each with a credential of their own "
                                                           "(in addition to referee_token).")
    cors_origins: tuple[str, ...] = ()
    tls_cert: str = Field("", description='"" = plain http; a PEM certificate (chain) for https: the referees\' '
                                         "credentials then cannot be read off the venue's Wi-Fi. Relative to the "
                                         "config file; with tls_key (docs/display.md).")
    tls_key: str = Field("", description="The certificate's private key (PEM), with tls_cert.")

    _hash_whole = field_validator("referee_token", "operator_token")(classmethod(lambda cls, v: _whole_hash(v)))

    @model_validator(mode="after")
    def _tls_pair(self) -> "DisplaySection":
        if bool(self.tls_cert) != bool(self.tls_key):
            raise ValueError("tls_cert and tls_key go together: give both for https, or neither")
        return self

    @model_validator(mode="after")
    def _distinct(self) -> "DisplaySection":
        names = [r.name for r in self.referees]
        if len(set(names)) != len(names):
            raise ValueError("referees: each name once (rulings are logged under it)")
        tokens = [r.token for r in self.referees] + [t for t in (self.referee_token, self.operator_token) if t]
        if len(set(tokens)) != len(tokens):
            raise ValueError("referees: every credential must differ from the others and from "
                             "referee_token / operator_token")
        return self


class StorageSection(_Section):
    data_dir: str = Field("data", description="Directory holding the SQLite event log; relative to the config file.")
    mirror_dir: str = Field("", description='"" = none; a directory on another device (e.g. "/media/usb/mahjong", '
                                            "made once on a USB stick) that keeps a second copy of the event log, "
                                            "event by event: a dead SD card then loses nothing (docs/display.md).")


class ButtonsSection(_Section):
    """When a seat button reporting itself over and over is told as one notice (按键抖动, `chatter.py`)."""

    chatter_presses: int = Field(10, ge=3, le=1000, strict=True,
                                 description="Reports of one button within chatter_window_s that make it chattering.")
    chatter_window_s: float = Field(2.0, gt=0, le=60, description="Seconds the reports are counted over.")
    quiet_s: float = Field(3.0, ge=1, le=600, description="Seconds without a report before the notice clears.")

    @model_validator(mode="after")
    def _faster_than_a_player(self) -> "ButtonsSection":
        """Fewer than one report a second is a player pressing (the dice button once a throw, the start
        button a few times): the notice would hide a table's own presses from the log."""
        if self.chatter_presses < self.chatter_window_s:
            raise ValueError(f"buttons: chatter_presses = {self.chatter_presses} within chatter_window_s = "
                             f"{self.chatter_window_s:g} is under one report a second, as a player presses; "
                             "raise chatter_presses or shorten chatter_window_s")
        return self

    def rules(self) -> Any:
        from table_controller.chatter import ChatterRules

        return ChatterRules(presses=self.chatter_presses, window_s=self.chatter_window_s, quiet_s=self.quiet_s)


class LogSection(_Section):
    level: Literal["debug", "info", "warning", "error"] = "info"


class DemoSection(_Section):
    autoplay: bool = Field(False, description="Start hands on its own (the demo table).")
    hand_seconds: float = Field(20.0, ge=0, le=3600, description="How long a finished demo hand stays on the display.")
    turn_seconds: float = Field(1.0, ge=0, le=60, description="Seconds between the demo players' actions.")
    camera: str = Field("", description='"" = no camera; a tile style (e.g. "xmahjongg-dorothys"): the players lay '
                                        "their plays on a simulated felt, a virtual camera shows it in that art, "
                                        "and the camera, not the players, keeps the play record.")

    @field_validator("camera")
    @classmethod
    def _known_style(cls, v: str) -> str:
        if v:
            from vision.tileart import DEV_STYLES, RESERVED_STYLES, TRAINING_STYLES

            known = TRAINING_STYLES + RESERVED_STYLES + DEV_STYLES
            if v not in known:
                raise ValueError(f"unknown tile style {v!r}; one of: {', '.join(known)}")
        return v


class TournamentSection(_Section):
    broker: str = Field("", description='"" = the table runs alone; "mqtt://HOST:PORT" = publish to a tournament hub; '
                                        '"mqtts://HOST:PORT" = the same over TLS (port 8883 when none is given).')
    name: str = Field("", validate_default=True,
                      description="The tournament's id (a topic level): ASCII letters, digits, '_' and '-'.")
    table_id: str = Field("", validate_default=True,
                          description="This table's id in the tournament (a topic level and the hub's file name).")
    username: str = Field("", description="Broker user name; empty = anonymous.")
    password: str = Field("", description="Broker password.")
    ca_file: str = Field("", description="For an mqtts:// broker: the CA certificate (PEM) its certificate must chain "
                                         "to; empty = the system's CAs.")
    topic_prefix: str = Field("mahjong", description="First topic levels: <prefix>/<name>/<table_id>/events|state.")

    @field_validator("broker")
    @classmethod
    def _broker(cls, value: str) -> str:
        from table_controller.tournament.wire import WireError, parse_broker

        try:
            if value:
                parse_broker(value)
        except WireError as exc:
            raise ValueError(str(exc)) from None
        return value

    @field_validator("ca_file")
    @classmethod
    def _ca_file(cls, value: str, info: ValidationInfo) -> str:
        from table_controller.tournament.wire import WireError, check_ca_file

        try:
            return check_ca_file(info.data.get("broker", ""), value)
        except WireError as exc:
            raise ValueError(str(exc)) from None

    @field_validator("name", "table_id")
    @classmethod
    def _id(cls, value: str, info: ValidationInfo) -> str:
        from table_controller.tournament.wire import WireError, check_id

        if not value:
            if info.data.get("broker"):
                raise ValueError("needed when a broker is set")
            return value
        try:
            return check_id(value, info.field_name or "id")
        except WireError as exc:
            raise ValueError(str(exc)) from None

    @field_validator("topic_prefix")
    @classmethod
    def _prefix(cls, value: str) -> str:
        from table_controller.tournament.wire import WireError, check_prefix

        try:
            return check_prefix(value)
        except WireError as exc:
            raise ValueError(str(exc)) from None


class TableConfig(_Section):
    table: TableSection = TableSection()
    buttons: ButtonsSection = ButtonsSection()
    camera: CameraSection = CameraSection()
    rules: RulesSection = Field(default_factory=RulesSection)  # built per config: its default is checked each time
    # 甲乙丙丁, not 东南西北: the winds move round the chairs every hand, the players do not
    players: tuple[Player, ...] = (
        Player(position=1, name="甲"),
        Player(position=2, name="乙"),
        Player(position=3, name="丙"),
        Player(position=4, name="丁"),
    )
    display: DisplaySection = DisplaySection()
    storage: StorageSection = StorageSection()
    log: LogSection = LogSection()
    demo: DemoSection = DemoSection()
    tournament: TournamentSection = TournamentSection()
    #: The file this came from (not a key in it).
    source: str = Field("<defaults>", exclude=True)

    @model_validator(mode="after")
    def _demo_needs_the_simulator(self) -> "TableConfig":
        if self.demo.autoplay and self.table.link != "sim://":
            raise ValueError("demo.autoplay: the demo players play the simulator's wall; it needs table.link = \"sim://\"")
        if self.demo.camera and not self.demo.autoplay:
            raise ValueError("demo.camera: the demo's camera watches the demo players' felt; it needs demo.autoplay = true")
        if self.demo.camera and self.camera.source:
            raise ValueError("demo.camera: the demo brings its own camera; leave camera.source empty")
        return self

    @model_validator(mode="after")
    def _players_distinct(self) -> "TableConfig":
        positions = [p.position for p in self.players]
        if len(self.players) != 4 or sorted(positions) != [1, 2, 3, 4]:
            raise ValueError("players: exactly four players with positions 1, 2, 3 and 4 are required")
        return self

    def data_path(self) -> Path:
        base = Path(self.source).parent if self.source != "<defaults>" else Path.cwd()
        return (base / self.storage.data_dir).resolve()

    def display_tls(self) -> tuple[str, str] | None:
        """The display's certificate and key files (relative to the config file); None for plain
        http. They were checked to load when the config was read (`_tls_loads`)."""
        if not self.display.tls_cert:
            return None
        base = Path(self.source).parent if self.source != "<defaults>" else Path.cwd()
        cert, key = ((base / f).resolve() for f in (self.display.tls_cert, self.display.tls_key))
        return str(cert), str(key)

    @model_validator(mode="after")
    def _tls_loads(self) -> "TableConfig":
        """A certificate that does not load is named now, not as a server that will not start."""
        files = self.display_tls()
        if files is not None:
            import ssl

            try:
                ssl.create_default_context(ssl.Purpose.CLIENT_AUTH).load_cert_chain(*files)
            except (OSError, ssl.SSLError) as exc:
                raise ValueError(f"[display] tls_cert / tls_key ({files[0]}, {files[1]}) do not load: {exc}") from None
        return self

    def mirror_path(self) -> Path | None:
        """`[storage] mirror_dir`, relative to the config file like the data directory; None when unset."""
        if not self.storage.mirror_dir:
            return None
        base = Path(self.source).parent if self.source != "<defaults>" else Path.cwd()
        return (base / self.storage.mirror_dir).resolve()


#: Keys whose values are credentials: a config error names them but never shows them (it goes to the
#: console and the journal, which more people read than the config file).
SECRET_KEYS = frozenset({"token", "referee_token", "operator_token", "password"})
HIDDEN = "<credential not shown>"


def _shown(value: Any, key: object = None) -> Any:
    """`value` as a config error may show it: every credential in it hidden."""
    if key in SECRET_KEYS:
        return HIDDEN
    if isinstance(value, dict):
        return {k: _shown(v, k) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_shown(v) for v in value]
    return value


def _siblings(loc: tuple[Any, ...]) -> list[str]:
    """The keys the section holding `loc`'s last key allows (a list's items by their model)."""
    import typing

    model: Any = TableConfig
    for part in loc[:-1]:
        if isinstance(part, int):
            continue
        field = getattr(model, "model_fields", {}).get(part)
        if field is None:
            return []
        kinds = [field.annotation, *typing.get_args(field.annotation)]
        model = next((k for k in kinds if isinstance(k, type) and issubclass(k, BaseModel)), None)
        if model is None:
            return []
    return [k for k in getattr(model, "model_fields", {}) if k != "source"]


def _elsewhere(loc: tuple[Any, ...]) -> str:
    """Where a key written in the wrong table belongs (`[display] name`, `[table] port`), or "": it was "not a known
    setting" only, and the technician looked for a typo in a name spelt right."""
    if len(loc) != 2:
        return ""
    homes = [f"[[{name}]]" if name == "players" else f"[{name}]" for name in TableConfig.model_fields
             if name != str(loc[0]) and str(loc[-1]) in _siblings((name, loc[-1]))]
    return f"; 此键属于 {' / '.join(homes)} / it is a key of {' or '.join(homes)}" if homes else ""


def _describe(error: dict[str, Any]) -> str:
    key = ".".join(str(p) for p in error["loc"]) or "(top level)"
    kind = error["type"]
    if kind == "extra_forbidden":
        import difflib

        close = difflib.get_close_matches(str(error["loc"][-1]), _siblings(tuple(error["loc"])), n=1, cutoff=0.6)
        hint = f"; did you mean {close[0]!r}?" if close else _elsewhere(tuple(error["loc"]))
        return f"key {key!r} is not a known setting{hint} (see config/table.example.toml)"
    if kind == "value_error":
        # a check of ours: its message says it all. pydantic's "Value error, " before it and the input after
        # it (for a check of the whole file: every key of it) buried the reason.
        reason = str(error.get("ctx", {}).get("error", error["msg"]))
        return reason if not error["loc"] else f"key {key!r}: {reason}"
    last = error["loc"][-1] if error["loc"] else None
    got = _shown(error.get("input"), last)
    if kind == "string_type" and last in SECRET_KEYS and isinstance(error.get("input"), (int, float)):
        # a PIN written as a number (referee_token = 123456): TOML reads it so; say the one thing to do
        return (f"key {key!r}: 凭证是文字，须加引号（{last} = \"…\"） / a credential is text: put it in quotes "
                f"({last} = \"…\"; as a number it would lose its leading zeros)")
    if kind == "literal_error":
        return f"key {key!r}: {error['msg'].lower()}, got {got!r}"
    return f"key {key!r}: {error['msg']} (got {got!r})"


def parse_config(data: dict[str, Any], source: str = "<defaults>") -> TableConfig:
    """Validate a parsed TOML document; every problem is reported, not only the first."""
    try:
        return TableConfig.model_validate({**data, "source": source})
    except ValidationError as exc:
        lines = [_describe(e) for e in exc.errors()]
        raise ConfigError(f"{source}: " + "; ".join(lines)) from None


def load_config(path: str | Path | None) -> TableConfig:
    """Read and validate the table's TOML file; `None` gives the embedded defaults (the demo)."""
    if path is None:
        return TableConfig()
    p = Path(path)
    try:
        raw = p.read_bytes()
    except OSError as exc:
        raise ConfigError(f"{p}: cannot read the config file: {exc.strerror}") from None
    try:
        data = tomllib.loads(config_text(raw))
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{p}: not valid TOML: {exc}") from None
    except UnicodeDecodeError as exc:
        from table_controller.rules.ruleset import not_utf8

        raise ConfigError(f"{p}: {not_utf8(raw, exc)}") from None
    return parse_config(data, source=str(p))


def config_text(raw: bytes) -> str:
    """A config file's bytes as the TOML text they hold (`rules.ruleset.toml_text`: a BOM skipped)."""
    from table_controller.rules.ruleset import toml_text

    return toml_text(raw)

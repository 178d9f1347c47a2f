"""Rulesets as data: the frozen `Ruleset` and its loader from `config/rulesets/<id>.toml`.

The wall/dice/deal/indicator sections are read strictly (an unknown key is an error naming the
file, the key and what is allowed) because a typo there silently deals the wrong tiles. Other
top-level tables (`[scoring]`, `[timers]`, ...) belong to other parts of the controller and are
kept raw in `Ruleset.sections`.
"""

from __future__ import annotations

import difflib
import os
import re
import tomllib
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from pathlib import Path
from types import MappingProxyType
from typing import Any, Callable, Iterable, Mapping

from .errors import RulesetError
from .geometry import SEATS, Seat, count_seat
from .language import KEYS as LANGUAGE
from .tiles import TileSpec, is_kind, next_kind

ENV_DIR = "TABLECTL_RULESETS_DIR"

#: Top-level tables this module owns and checks key by key.
OWN_SECTIONS: tuple[str, ...] = ("tiles", "wall", "dice", "break", "deal", "indicators", "hand_end")
#: Top-level plain keys this module owns.
OWN_KEYS: tuple[str, ...] = ("id", "name_zh", "name_en", "source", "description", "extends")
#: Keys a house ruleset (`extends`) must state itself: what players read, and which file it is.
NOT_INHERITED: tuple[str, ...] = ("id", "name_zh", "name_en", "source", "description")

BREAK_WALLS = ("total", "larger_die", "smaller_die", "second_thrower")
BREAK_COUNTS = ("total", "smaller_die", "larger_die", "both_totals", "second_total")
BREAK_MODES = ("leave", "start_at")
REPLACEMENT_ORDERS = ("top_first", "bottom_first")
DEALER_BY = ("count", "highest")
INDICATOR_NAMES = ("dora", "baida", "laizi")
INDICATOR_FROM = ("tail", "live")
INDICATOR_YIELDS = ("same", "next")
HAND_END_KINDS = ("horses", "fishing")
HAND_END_FROM = ("winner", "previous_winner")

#: How a Python type is called in TOML, for error messages people can act on.
_TOML_TYPES: dict[type, str] = {dict: "a table", list: "an array", str: "a string", int: "an integer",
                                bool: "true or false"}

_ID_RE = re.compile(r"^[a-z][a-z0-9_]{0,31}$")
_REQUIRED = object()


@dataclass(frozen=True)
class FinishStep:
    """One tile of the deal's finish (跳牌): `seat` takes `layer` of the stack `stack` places
    after the last stack of the grab rounds."""

    seat: Seat
    stack: int
    layer: str  # "t" or "b"


@dataclass(frozen=True)
class DealPattern:
    """How the opening hands are taken from the first dealt stack k, clockwise.

    `rounds` rounds in play order, each seat grabbing `stacks_per_grab` stacks (top then bottom),
    then the `finish` steps. Offsets here are tile offsets from k's top: 2*stack + (0 top, 1 bottom).
    """

    rounds: int
    stacks_per_grab: int
    finish: tuple[FinishStep, ...]

    def grabs(self) -> tuple[tuple[Seat, tuple[int, ...]], ...]:
        """Every grab in the order taken: (seat, tile offsets)."""
        return self._grabs

    @cached_property
    def _grabs(self) -> tuple[tuple[Seat, tuple[int, ...]], ...]:
        out: list[tuple[Seat, tuple[int, ...]]] = []
        stack = 0
        for _ in range(self.rounds):
            for seat in SEATS:
                tiles = []
                for _ in range(self.stacks_per_grab):
                    tiles += [2 * stack, 2 * stack + 1]
                    stack += 1
                out.append((seat, tuple(tiles)))
        for step in self.finish:
            offset = 2 * (stack + step.stack) + (0 if step.layer == "t" else 1)
            if out and out[-1][0] == step.seat and out[-1][1][-1] >= 2 * stack:
                out[-1] = (step.seat, out[-1][1] + (offset,))  # E's two tops of 跳牌 are one grab
            else:
                out.append((step.seat, (offset,)))
        return tuple(out)

    @cached_property
    def dealt_tiles(self) -> int:
        return sum(len(tiles) for _, tiles in self.grabs())

    def hand_sizes(self) -> dict[Seat, int]:
        sizes = {seat: 0 for seat in SEATS}
        for seat, tiles in self.grabs():
            sizes[seat] += len(tiles)
        return sizes


@dataclass(frozen=True)
class IndicatorRule:
    """A tile turned up from the wall that makes a kind special (宝牌, 百搭, 癞子).

    From the tail: `stack` counts stacks from the break into the tail (1 = the stack just
    counter-clockwise of k). From the live wall: `tile` counts live tiles after the deal
    (1 = the first). `set_aside`: the turned tile leaves the draw order. `kan_step`: each
    replacement draw turns up one more indicator this many stacks further from the break
    (riichi's 杠宝牌).
    """

    name: str
    name_zh: str
    source: str
    stack: int
    layer: str
    tile: int
    set_aside: bool
    yields: tuple[str, ...]
    honours_next: Mapping[str, str] = field(hash=False, compare=False)
    kan_step: int = 0

    def kinds(self, indicator_kind: str, ranks: int) -> dict[str, str | None]:
        """What the turned-up kind makes special: {"same": kind, "next": next kind}.

        "next" is None for a kind outside the ruleset's cycle (never for its own tiles).
        """
        out: dict[str, str | None] = {}
        for y in self.yields:
            out[y] = indicator_kind if y == "same" else next_kind(indicator_kind, ranks, self.honours_next)
        return out


@dataclass(frozen=True)
class HandEndRule:
    """Tiles read from the tail when a hand ends (买马 horses, 钓鱼): each counts a seat."""

    kind: str
    name_zh: str
    tiles: int
    counts_from: str
    honour_values: Mapping[str, int] = field(hash=False, compare=False)

    def value(self, kind: str) -> int | None:
        """The count a tile gives: suits by rank, honours by the ruleset's table, else None."""
        from .tiles import suit_rank

        sr = suit_rank(kind)
        if sr:
            return sr[1]
        return self.honour_values.get(kind)

    def seat_for(self, kind: str, start: Seat) -> Seat | None:
        """The seat a tile counts to from `start` (the winner / previous winner), counter-clockwise."""
        value = self.value(kind)
        return None if value is None else count_seat(value, start)


@dataclass(frozen=True)
class Ruleset:
    """One procedure from walls.md, read from its TOML file. Immutable: share it freely."""

    id: str
    name_zh: str
    name_en: str
    source: str
    path: Path
    tile_spec: TileSpec
    wall_lengths: tuple[int, int, int, int]  # seat order E, S, W, N
    reserve: int
    last_zone: int
    replacement_order: str
    max_replacements: int | None
    dice_count: int
    throws: int
    huangfan: bool
    dealer_by: str
    break_wall: str
    break_count: str
    break_mode: str
    deal: DealPattern
    indicators: tuple[IndicatorRule, ...]
    hand_end: HandEndRule | None
    sections: Mapping[str, Any] = field(hash=False, compare=False, repr=False)
    #: The ruleset this one changes (a house ruleset's `extends`), or None.
    extends: str | None = None
    #: The ruleset at the root of the `extends` chain (itself when it extends none): its scoring
    #: and its procedures are the ones this ruleset plays, with the changes of its files.
    family: str = ""

    @property
    def tiles(self) -> int:
        """Tiles in the full set (144, 136, 108)."""
        return self.tile_spec.total

    @property
    def hand_sizes(self) -> dict[Seat, int]:
        return self.deal.hand_sizes()

    def indicator(self, name: str) -> IndicatorRule | None:
        for rule in self.indicators:
            if rule.name == name:
                return rule
        return None

    def indicator_kinds(self, name: str, indicator_kind: str) -> dict[str, str | None]:
        """What a turned-up tile makes special under this ruleset, e.g. wuhan ("laizi", "4z") →
        {"next": "6z"}. RulesetError when the ruleset has no such indicator."""
        rule = self.indicator(name)
        if rule is None:
            known = ", ".join(r.name for r in self.indicators) or "none"
            raise RulesetError(f"{self.id} has no {name!r} indicator (it has: {known})", code="no_indicator")
        return rule.kinds(indicator_kind, self.tile_spec.ranks)


# --- locating files -------------------------------------------------------------------------


#: The rulesets shipped in the repository (what `extends` falls back to).
PACKAGED = Path(__file__).resolve().parents[2] / "config" / "rulesets"


def rulesets_dir(override: str | os.PathLike[str] | None = None) -> Path:
    """Where ruleset files are: the argument, else $TABLECTL_RULESETS_DIR, else the repository's
    `config/rulesets/` found from this file (so it works from any working directory)."""
    if override is not None:
        return Path(override)
    env = os.environ.get(ENV_DIR)
    if env:
        return Path(env)
    return PACKAGED


def ruleset_ids(rulesets_dir_: str | os.PathLike[str] | None = None) -> tuple[str, ...]:
    """Ids of every ruleset file present, sorted."""
    directory = rulesets_dir(rulesets_dir_)
    if not directory.is_dir():
        return ()
    return tuple(sorted(p.stem for p in directory.glob("*.toml") if _ID_RE.match(p.stem)))


def load_ruleset(ruleset_id: str, rulesets_dir_: str | os.PathLike[str] | None = None) -> Ruleset:
    """Read and check `<dir>/<id>.toml`. Unknown id → RulesetError listing the known ids."""
    directory = rulesets_dir(rulesets_dir_)
    known = ruleset_ids(directory)
    if not isinstance(ruleset_id, str) or not _ID_RE.match(ruleset_id) or ruleset_id not in known:
        raise RulesetError(
            f"unknown ruleset {ruleset_id!r}; known rulesets in {directory}: "
            f"{', '.join(known) if known else '(none found)'}",
            code="unknown_ruleset",
        )
    path = directory / f"{ruleset_id}.toml"
    data, family = _resolved(ruleset_id, directory, ())
    return parse_ruleset(data, ruleset_id, path, family=family)


def folder() -> str:
    """The rulesets folder in use, as the per-ruleset caches key on it with the id (`in_use`): a venue's copy of a
    shipped ruleset keeps its id. `rulesets_dir` as text, without building a Path: it is asked on per-event paths."""
    return os.environ.get(ENV_DIR) or _PACKAGED_TEXT


_PACKAGED_TEXT = str(PACKAGED)


def in_use(ruleset_id: str, directory: str | None = None) -> Ruleset:
    """The ruleset as this process read it from `directory` (by default `folder()`), read once: every part of the
    table (the deal, the flow, penalties, timers, scoring, the pages) derives from this one read, so a file edited
    while the service runs takes effect whole at its restart (`config_watch` says so), never part by part as each
    part was first asked for. Raises as `load_ruleset`; a file that does not load is read again when next asked."""
    return _in_use(ruleset_id, folder() if directory is None else directory)


@lru_cache(maxsize=64)
def _in_use(ruleset_id: str, directory: str) -> Ruleset:
    return load_ruleset(ruleset_id, directory)


def ruleset_files(ruleset_id: str, rulesets_dir_: str | os.PathLike[str] | None = None) -> tuple[Path, ...]:
    """The files `ruleset_id` is read from: its own, then its `extends` chain's as `_resolved` finds them (beside
    it, else packaged). What the config watch looks at; a file that is not there or does not read ends the chain."""
    directory = rulesets_dir(rulesets_dir_)
    out: list[Path] = []
    rid: Any = ruleset_id
    while isinstance(rid, str) and _ID_RE.match(rid):
        path = directory / f"{rid}.toml"
        if not path.exists() and out:
            directory = PACKAGED
            path = directory / f"{rid}.toml"
        if path in out or not path.exists():
            break
        out.append(path)
        try:
            rid = _read_file(path).get("extends")
        except RulesetError:
            break
    return tuple(out)


def toml_text(raw: bytes) -> str:
    """A TOML file's bytes (a ruleset, a table's config) as the text they hold. The UTF-8 byte-order mark a
    Windows editor (Notepad) may put first is skipped: TOML refused it as "Invalid statement (at line 1,
    column 1)", which named nothing one could see. Raises UnicodeDecodeError on text that is not UTF-8."""
    return raw.decode("utf-8-sig")


def not_utf8(raw: bytes, exc: UnicodeDecodeError) -> str:
    """What to say of a TOML file saved as GBK ("ANSI" on a Chinese Windows): its line, and to save it as UTF-8."""
    line = raw[:exc.start].count(b"\n") + 1
    return (f"line {line} is not UTF-8 text (saved as GBK/ANSI?): save the file as UTF-8 / "
            f"第 {line} 行不是 UTF-8 编码，请以 UTF-8 编码保存")


def _read_file(path: Path) -> dict[str, Any]:
    """The file's TOML (`toml_text`): a house file saved as GBK raised UnicodeDecodeError, a traceback from
    every `tablectl` command, since each lists the rulesets."""
    try:
        raw = path.read_bytes()
        return tomllib.loads(toml_text(raw))
    except tomllib.TOMLDecodeError as exc:
        raise RulesetError(f"{path}: not valid TOML: {exc}", code="ruleset_toml") from exc
    except UnicodeDecodeError as exc:
        raise RulesetError(f"{path}: {not_utf8(raw, exc)}", code="ruleset_toml") from exc
    except OSError as exc:
        raise RulesetError(f"{path}: cannot read: {exc}", code="ruleset_unreadable") from exc


def _resolved(ruleset_id: str, directory: Path, chain: tuple[str, ...]) -> tuple[dict[str, Any], str]:
    """The file's data with its `extends` chain merged under it, and the chain's root id.

    A house ruleset (`extends = "mcr"`) is the base's data with the file's tables merged over it
    key by key; a value that is not a table (a number, a string, an array, an array of tables)
    replaces the base's. Its base is looked for beside it, then among the packaged rulesets, so a
    venue's folder ($TABLECTL_RULESETS_DIR) may hold its own files only."""
    path = directory / f"{ruleset_id}.toml"
    if not path.exists() and chain:
        packaged = rulesets_dir(PACKAGED)
        path = packaged / f"{ruleset_id}.toml"
        if not path.exists():
            known = sorted(set(ruleset_ids(directory)) | set(ruleset_ids(packaged)))
            raise RulesetError(f"{directory / (chain[-1] + '.toml')}: extends {ruleset_id!r}, which is no ruleset; "
                               f"known: {', '.join(known)}", code="ruleset_extends")
        directory = packaged
    data = _read_file(path)
    base = data.get("extends")
    if base is None:
        _check_changes(path, None, {}, data)  # a new regional file too: its keys those of the rule language
        return data, ruleset_id
    if not isinstance(base, str) or not _ID_RE.match(base):
        raise RulesetError(f"{path}: extends must name a ruleset id (a string), not {base!r}", code="ruleset_extends")
    if base == ruleset_id or base in chain:
        loop = " → ".join((*chain, ruleset_id, base))
        raise RulesetError(f"{path}: extends {base!r}, which comes back to it ({loop})", code="ruleset_extends")
    for key in ("name_zh", "name_en"):
        if key not in data:
            raise RulesetError(f"{path}: {key} is required: a house ruleset needs a name of its own "
                               "(players and referees read it)", code="ruleset_key")
    base_data, family = _resolved(base, directory, (*chain, ruleset_id))
    _check_changes(path, base, base_data, data)
    inherited = {k: v for k, v in base_data.items() if k not in NOT_INHERITED and k != "extends"}
    return _merge(inherited, data), family


def _toml_type(value: Any) -> str:
    return next(name for t, name in (*_TOML_TYPES.items(), (float, "a number"), (object, "a value"))
                if isinstance(value, t) and not (t is int and isinstance(value, bool)))


#: Tables of names (fans, patterns) rather than keys: the scorer checks them against the elements it
#: knows (`scoring.check_tables`), since a house file may value one its base's file leaves out.
NAME_TABLES: frozenset[str] = frozenset({"scoring.fans", "scoring.excludes", "scoring.patterns", "scoring.ways"})


def _check_changes(path: Path, base: str | None, base_data: Mapping[str, Any], data: Mapping[str, Any]) -> None:
    """A house ruleset changes keys of the rule language; it does not invent them. The tables this
    module does not check key by key (`[scoring]`, `[match]`, `[flow]`, ...) are read with defaults
    elsewhere, so a misspelt key there (`min_fans`, `max_fan`), a misspelt table (`[scorring]`,
    `[scoring.kongs]`) or a value of another type (`cap_fan = "3"`) would otherwise leave the base's
    rule in force without a word. A key or table its base lacks but the rule language has (`language.KEYS`) is
    allowed. A new regional file (`base` None: it extends none) is held to the rule language alone: its
    `[match] contine_dealer` or `[timers] turn_secnds` loaded, `tablectl check` said 可以开赛, and the session
    played the default (the display's state answered 500)."""
    for section, table in data.items():
        if section in OWN_SECTIONS or section in OWN_KEYS or not isinstance(table, dict):
            continue
        _check_table(path, base, section, base_data.get(section), table)


def _check_table(path: Path, base: str | None, where: str, known: Any, table: Mapping[str, Any]) -> None:
    """One table of a house file (`where`: its dotted name) against its base's (`known`, None when the
    base lacks it) and the rule language; nested tables in turn."""
    if where in NAME_TABLES:
        return
    language = LANGUAGE.get(where)
    if not isinstance(known, dict):
        if language is None:
            near = difflib.get_close_matches(where, [*LANGUAGE, *OWN_SECTIONS], n=1)
            hint = f"; did you mean [{near[0]}]?" if near else ""
            raise RulesetError(f"{path}: unknown table [{where}]: no ruleset has it{hint}",
                               code="ruleset_unknown_key")
        known = {}  # the base lacks the table: its keys are checked against the rule language
    for key, value in table.items():
        if key not in known:
            if key not in (language or ()):
                near = (difflib.get_close_matches(str(key), list(known), n=1)  # the base's own first
                        or difflib.get_close_matches(str(key), list(language or ()), n=1))
                hint = f"; did you mean {near[0]!r}?" if near else ""
                keys = f"its keys: {', '.join(map(str, known))}" if known else \
                    f"keys rulesets give it: {', '.join(sorted(map(str, language or ())))}"
                who = f"{base} has no such key" if base else "no ruleset has such a key"
                raise RulesetError(f"{path}: [{where}] has unknown key {key!r}: {who} "
                                   f"({keys}){hint}", code="ruleset_unknown_key")
            if isinstance(value, dict):  # the base does not set it; another ruleset (or a default) does
                _check_table(path, base, f"{where}.{key}", None, value)
            continue
        was, now = _toml_type(known[key]), _toml_type(value)
        # a number for a number; a string may become an array (`seat_swap_before_round = []`: none, or several)
        if was != now and {was, now} not in ({"an integer", "a number"}, {"a string", "an array"}):
            raise RulesetError(f"{path}: [{where}] {key} must be {was} as in {base}, not {value!r}",
                               code="ruleset_key")
        if isinstance(value, dict):
            _check_table(path, base, f"{where}.{key}", known[key], value)


def _merge(base: Mapping[str, Any], over: Mapping[str, Any]) -> dict[str, Any]:
    """`over` merged onto `base`: tables key by key, anything else replaced."""
    out = dict(base)
    for key, value in over.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = _merge(out[key], value)
        else:
            out[key] = value
    return out


# --- checking a file ------------------------------------------------------------------------


class _Section:
    """Reads one table of a ruleset file, remembering which keys were asked for, so that any
    other key can be reported with the list of allowed ones."""

    def __init__(self, path: Path, name: str, table: Any) -> None:
        if not isinstance(table, dict):
            raise RulesetError(f"{path}: [{name}] must be a table, not {type(table).__name__}",
                               code="ruleset_key")
        self.path, self.name, self.table = path, name, table
        self.allowed: list[str] = []

    def fail(self, key: str, why: str) -> RulesetError:
        return RulesetError(f"{self.path}: [{self.name}] {key}: {why}", code="ruleset_key")

    def get(self, key: str, kind: type | tuple[type, ...], default: Any = _REQUIRED,
            choices: Iterable[Any] | None = None, check: Callable[[Any], str | None] | None = None) -> Any:
        self.allowed.append(key)
        if key not in self.table:
            if default is _REQUIRED:
                # `lenghts = {...}`: say the key written, not only the one missing
                near = difflib.get_close_matches(key, [str(k) for k in self.table], n=1, cutoff=0.7)
                raise self.fail(key, f"is required (缺少此键){f'; is {near[0]!r} it, misspelt?' if near else ''}")
            return default
        value = self.table[key]
        kinds = kind if isinstance(kind, tuple) else (kind,)
        if isinstance(value, bool) and bool not in kinds or not isinstance(value, kinds):
            names = " or ".join(_TOML_TYPES.get(k, k.__name__) for k in kinds)
            raise self.fail(key, f"must be {names}, not {value!r}")
        if choices is not None and value not in tuple(choices):
            raise self.fail(key, f"must be one of {', '.join(map(repr, choices))}, not {value!r}")
        if check is not None:
            problem = check(value)
            if problem:
                raise self.fail(key, problem)
        return value

    def done(self, extra_allowed: Iterable[str] = ()) -> None:
        allowed = list(self.allowed) + list(extra_allowed)
        for key in self.table:
            if key not in allowed:
                near = difflib.get_close_matches(str(key), allowed, n=1)
                raise RulesetError(
                    f"{self.path}: [{self.name}] has unknown key {key!r}; allowed keys: {', '.join(allowed)}"
                    + (f"; did you mean {near[0]!r}?" if near else ""),
                    code="ruleset_unknown_key",
                )


def _positive(value: int) -> str | None:
    return None if value >= 1 else "must be at least 1"


def _non_negative(value: int) -> str | None:
    return None if value >= 0 else "must not be negative"


def parse_ruleset(data: Mapping[str, Any], ruleset_id: str, path: Path, family: str = "") -> Ruleset:
    """Build a Ruleset from parsed TOML (a house ruleset's with its base merged in: `family` is
    its chain's root), checking every key of this module's sections."""
    def foreign_table(value: Any) -> bool:  # a table or an array of tables ([[penalties]])
        return isinstance(value, dict) or (isinstance(value, list) and bool(value)
                                           and all(isinstance(v, dict) for v in value))

    for name in OWN_SECTIONS:
        if name in data and not isinstance(data[name], dict):
            raise RulesetError(f"{path}: {name} must be a table ([{name}] with keys), not {data[name]!r}",
                               code="ruleset_key")
    top = _Section(path, "top level", {k: v for k, v in data.items()
                                       if k in OWN_KEYS or not foreign_table(v)})
    file_id = top.get("id", str, ruleset_id)
    if file_id != ruleset_id:
        raise top.fail("id", f"is {file_id!r} but the file is named {ruleset_id}.toml")
    name_zh = top.get("name_zh", str)
    name_en = top.get("name_en", str)
    source = top.get("source", str, "")
    top.get("description", str, "")
    extends = top.get("extends", str, None)
    top.done()

    sections: dict[str, Any] = {}
    for key, value in data.items():
        if key not in OWN_SECTIONS and key not in OWN_KEYS and foreign_table(value):
            close = difflib.get_close_matches(key, OWN_SECTIONS, n=1, cutoff=0.8)
            if close:
                raise RulesetError(f"{path}: unknown table [{key}]; did you mean [{close[0]}]?",
                                   code="ruleset_unknown_key")
            sections[key] = value
    for name in OWN_SECTIONS:
        if name not in data and name not in ("indicators", "hand_end"):
            raise RulesetError(f"{path}: table [{name}] is required", code="ruleset_key")

    tile_spec = _parse_tiles(_Section(path, "tiles", data["tiles"]))
    wall = _Section(path, "wall", data["wall"])
    lengths_table = wall.get("lengths", dict)
    lengths = _parse_lengths(wall, lengths_table)
    if 2 * sum(lengths) != tile_spec.total:
        raise wall.fail("lengths", f"hold {2 * sum(lengths)} tiles but [tiles] makes {tile_spec.total}")
    reserve = wall.get("reserve", int, 0, check=_non_negative)
    last_zone = wall.get("last_zone", int, 0, check=_non_negative)
    replacement_order = wall.get("replacement_order", str, "top_first", choices=REPLACEMENT_ORDERS)
    max_replacements = wall.get("max_replacements", int, None, check=_non_negative)
    wall.done()

    dice = _Section(path, "dice", data["dice"])
    dice_count = dice.get("count", int, choices=(1, 2, 3))
    throws = dice.get("throws", int, 1, choices=(1, 2))
    huangfan = dice.get("huangfan", bool, False)
    dealer_by = dice.get("dealer_by", str, "count", choices=DEALER_BY)
    dice.done()

    brk = _Section(path, "break", data["break"])
    break_wall = brk.get("wall", str, choices=BREAK_WALLS)
    break_count = brk.get("count", str, choices=BREAK_COUNTS)
    break_mode = brk.get("mode", str, choices=BREAK_MODES)
    brk.done()
    needs_two = break_wall == "second_thrower" or break_count in ("both_totals", "second_total")
    if needs_two and throws != 2:
        raise dice.fail("throws", f"must be 2: [break] uses the second throw ({break_wall}, {break_count})")
    if throws == 2 and not needs_two:
        raise dice.fail("throws", "is 2 but [break] never uses the second throw")

    deal = _parse_deal(_Section(path, "deal", data["deal"]))
    indicators = _parse_indicators(path, data.get("indicators", {}), tile_spec, replacement_order)
    hand_end = None
    if "hand_end" in data:
        hand_end = _parse_hand_end(_Section(path, "hand_end", data["hand_end"]), tile_spec)

    total = tile_spec.total
    if deal.dealt_tiles + reserve + sum(r.set_aside for r in indicators) >= total:
        raise RulesetError(f"{path}: the deal ({deal.dealt_tiles} tiles) and the reserve ({reserve}) "
                           f"leave nothing to draw from {total} tiles", code="ruleset_key")
    _check_flow(path, sections.get("flow"), total, hand_end)
    _check_scoring(path, sections.get("scoring"))
    _check_chow(path, sections.get("flow"), sections.get("scoring"))
    _check_words(path, sections.get("flow"), sections.get("match"), sections.get("timers"))

    return Ruleset(
        id=ruleset_id, name_zh=name_zh, name_en=name_en, source=source, path=path,
        tile_spec=tile_spec, wall_lengths=lengths, reserve=reserve, last_zone=last_zone,
        replacement_order=replacement_order, max_replacements=max_replacements,
        dice_count=dice_count, throws=throws, huangfan=huangfan, dealer_by=dealer_by,
        break_wall=break_wall, break_count=break_count, break_mode=break_mode,
        deal=deal, indicators=indicators, hand_end=hand_end,
        sections=MappingProxyType(sections), extends=extends, family=family or ruleset_id,
    )


#: `[scoring] self_draw` where it names a rule (四川, 血流): 自摸加底, 自摸加番, or neither.
SELF_DRAW_RULES: tuple[str, ...] = ("add_base", "add_fan", "none")


def _check_scoring(path: Path, scoring: Any) -> None:
    """A 自摸 rule the scorer does not know is refused when the file is read, not at the first 自摸
    of the match (a house file's "add-fan" let the service start and refused every self-draw)."""
    rule = scoring.get("self_draw") if isinstance(scoring, Mapping) else None
    if isinstance(rule, str) and rule not in SELF_DRAW_RULES:
        raise RulesetError(f"{path}: [scoring] self_draw must be one of {', '.join(SELF_DRAW_RULES)}, not {rule!r}",
                           code="ruleset_key")
    # 标准分 by place: a house file's ["4", "2", "1", "0"] loaded, and every score sheet of the table then failed
    ranks = scoring.get("table_points", []) if isinstance(scoring, Mapping) else []
    if not isinstance(ranks, list) or not all(isinstance(r, (int, float)) and not isinstance(r, bool) for r in ranks):
        raise RulesetError(f"{path}: [scoring] table_points must be numbers, 标准分 by place (e.g. [4, 2, 1, 0]), "
                           f"not {ranks!r}", code="ruleset_key")


def _check_flow(path: Path, flow: Any, total: int, hand_end: HandEndRule | None) -> None:
    """`[flow]` repeats two counts of this module's tables for the hand's flow (flowers in play, 买马).
    A house ruleset that changes one (`[tiles] flowers = 0`, `[hand_end] tiles = 2`) and not the other
    would play by both; it is refused, naming the two keys."""
    if not isinstance(flow, Mapping):
        return
    if "tiles" in flow and flow["tiles"] != total:
        raise RulesetError(f"{path}: [flow] tiles = {flow['tiles']!r} contradicts [tiles] total = {total}; "
                           "set both", code="ruleset_key")
    if "horses" in flow and (hand_end is None or hand_end.kind != "horses" or flow["horses"] != hand_end.tiles):
        have = f"[hand_end] tiles = {hand_end.tiles}" if hand_end and hand_end.kind == "horses" else "no 买马"
        raise RulesetError(f"{path}: [flow] horses = {flow['horses']!r} contradicts {have}; set both",
                           code="ruleset_key")



def _check_chow(path: Path, flow: Any, scoring: Any) -> None:
    """吃 is said twice where the scorer reads it too (推倒胡, 鸡平胡): `[flow] no_chow` makes the live record refuse a
    chow, `[scoring] no_chow` the scorer a hand holding one. A house file changing one only (`[flow] no_chow = false`)
    let the table record chows whose every win was then refused (`bad_meld`), or (`[scoring]`) changed nothing at
    the table; it is refused, naming the two keys."""
    if not isinstance(scoring, Mapping) or "no_chow" not in scoring:
        return
    played = bool(flow.get("no_chow", False)) if isinstance(flow, Mapping) else False
    if bool(scoring["no_chow"]) != played:
        raise RulesetError(f"{path}: [scoring] no_chow = {str(bool(scoring['no_chow'])).lower()} contradicts [flow] "
                           f"no_chow = {str(played).lower()}; set both", code="ruleset_key")


def _check_words(path: Path, flow: Any, match: Any, timers: Any = None) -> None:
    """A `[flow]` or `[match]` word the hand or the session does not know (`hand.rules.flow_problem`,
    `hand.match.match_problem`), or a `[timers]` limit no clock runs (`timers.timers_problem`), is refused when
    the file is read, for every tool that reads it: it was
    refused only where a table's config is read, and `tablectl deal`, `score` and `waits` took
    `continue_after_win = "blood_rivers"`."""
    from table_controller.hand.match import match_problem
    from table_controller.hand.rules import flow_problem
    from table_controller.timers import timers_problem

    problem = ((flow_problem(flow) if isinstance(flow, Mapping) else None)
               or (match_problem(match) if isinstance(match, Mapping) else None)
               or (timers_problem(timers) if isinstance(timers, Mapping) else None))
    if problem:
        raise RulesetError(f"{path}: {problem}", code="ruleset_key")


def _parse_tiles(sec: _Section) -> TileSpec:
    def suits_ok(value: list[Any]) -> str | None:
        if not all(s in ("m", "p", "s") for s in value) or len(set(value)) != len(value):
            return "must list distinct suits from 'm', 'p', 's'"
        return None

    suits = sec.get("suits", list, check=suits_ok)
    ranks = sec.get("ranks", int, 9, choices=(9, 10))
    winds = sec.get("winds", bool, True)
    dragons = sec.get("dragons", bool, True)
    flowers = sec.get("flowers", int, 0, check=lambda v: None if 0 <= v <= 8 else "must be 0..8")

    def kinds_ok(value: list[Any]) -> str | None:
        bad = [k for k in value if not isinstance(k, str) or not is_kind(k)]
        return f"are not tile codes: {bad}" if bad else None

    extra = sec.get("extra_flowers", list, [], check=kinds_ok)
    total = sec.get("total", int)
    sec.done()
    spec = TileSpec(suits=tuple(suits), ranks=ranks, winds=winds, dragons=dragons,
                    flowers=flowers, extra_flowers=tuple(extra))
    if spec.total != total:
        raise sec.fail("total", f"is {total} but suits/ranks/winds/dragons/flowers make {spec.total}")
    return spec


def _parse_lengths(sec: _Section, table: Mapping[str, Any]) -> tuple[int, int, int, int]:
    if set(table) != set(SEATS):
        raise sec.fail("lengths", f"must give exactly E, S, W, N, not {sorted(table)}")
    values = tuple(table[s] for s in SEATS)
    if not all(isinstance(v, int) and not isinstance(v, bool) and v >= 1 for v in values):
        raise sec.fail("lengths", f"must be positive whole numbers of stacks, not {dict(table)}")
    return values


def _parse_deal(sec: _Section) -> DealPattern:
    rounds = sec.get("rounds", int, check=_positive)
    per_grab = sec.get("stacks_per_grab", int, check=_positive)
    raw = sec.get("finish", list, [])
    sec.done()
    steps = []
    for i, item in enumerate(raw):
        step = _Section(sec.path, f"deal.finish[{i}]", item)
        seat = step.get("seat", str, choices=SEATS)
        stack = step.get("stack", int, check=_non_negative)
        layer = step.get("layer", str, choices=("top", "bottom"))
        step.done()
        steps.append(FinishStep(seat=seat, stack=stack, layer=layer[0]))
    pattern = DealPattern(rounds=rounds, stacks_per_grab=per_grab, finish=tuple(steps))
    offsets = [o for _, tiles in pattern.grabs() for o in tiles]
    if sorted(offsets) != list(range(len(offsets))):
        raise sec.fail("finish", "the deal must take each tile once and leave no gap before the live "
                       f"wall (tile offsets taken: {sorted(offsets)[-8:]}...)")
    return pattern


def _parse_indicators(path: Path, table: Any, spec: TileSpec,
                      replacement_order: str) -> tuple[IndicatorRule, ...]:
    if not isinstance(table, dict):
        raise RulesetError(f"{path}: [indicators] must be a table", code="ruleset_key")
    rules = []
    for name, body in table.items():
        if name not in INDICATOR_NAMES:
            raise RulesetError(f"{path}: [indicators] has unknown key {name!r}; allowed: "
                               f"{', '.join(INDICATOR_NAMES)} (each a table)", code="ruleset_unknown_key")
        sec = _Section(path, f"indicators.{name}", body)
        name_zh = sec.get("name_zh", str)
        source = sec.get("from", str, choices=INDICATOR_FROM)
        if source == "tail":
            stack = sec.get("stack", int, check=_positive)
            layer = sec.get("layer", str, "top", choices=("top", "bottom"))[0]
            tile = 0
        else:
            tile = sec.get("tile", int, check=_positive)
            stack, layer = 0, "t"
        set_aside = sec.get("set_aside", bool, False)
        yields = sec.get("yields", list, ["next"],
                         check=lambda v: None if v and all(y in INDICATOR_YIELDS for y in v)
                         else f"must list some of {INDICATOR_YIELDS}")
        honours = sec.get("honours_next", dict, {})
        kan_step = sec.get("kan_step", int, 0, check=_non_negative)
        sec.done()
        if set_aside:
            first_tail = "t" if replacement_order == "top_first" else "b"
            if source == "live" and tile != 1:
                raise sec.fail("set_aside", "only the first live tile (tile = 1) can be set aside")
            if source == "tail" and (stack != 1 or layer != first_tail):
                raise sec.fail("set_aside", "only the first replacement tile (stack = 1, its first "
                               "layer in replacement_order) can be set aside")
        for k, v in honours.items():
            if not (is_kind(k) and isinstance(v, str) and is_kind(v)):
                raise sec.fail("honours_next", f"maps tile codes to tile codes; {k!r} = {v!r} is not")
        honour_kinds = [k for k in spec.kinds() if k.endswith("z")]
        missing = [k for k in honour_kinds if k not in honours and "next" in yields]
        if missing:
            raise sec.fail("honours_next", f"gives no next kind for {missing}")
        rules.append(IndicatorRule(name=name, name_zh=name_zh, source=source, stack=stack, layer=layer,
                                   tile=tile, set_aside=set_aside, yields=tuple(yields),
                                   honours_next=MappingProxyType(dict(honours)), kan_step=kan_step))
    return tuple(rules)


def _parse_hand_end(sec: _Section, spec: TileSpec) -> HandEndRule:
    """买马 / 钓鱼. Every honour the tiles hold has a count (the scorer reads them: a horse 中 with none
    had no seat), and only honours: a suit counts by its rank, so a `"1m"` here would be ignored."""
    kind = sec.get("kind", str, choices=HAND_END_KINDS)
    name_zh = sec.get("name_zh", str)
    tiles = sec.get("tiles", int, check=_positive)
    counts_from = sec.get("counts_from", str, choices=HAND_END_FROM)
    values = sec.get("honour_values", dict, {})
    sec.done()
    for k, v in values.items():
        if not is_kind(k) or not isinstance(v, int) or isinstance(v, bool) or v < 1:
            raise sec.fail("honour_values", f"maps tile codes to counts ≥ 1; {k!r} = {v!r} is not")
    honours = [k for k in spec.kinds() if k.endswith("z")]
    others = [k for k in values if k not in honours]
    if others:
        raise sec.fail("honour_values", f"counts the honours played ({', '.join(honours) or 'none'}) only, "
                                        f"suits by their rank; not {', '.join(others)}")
    missing = [k for k in honours if k not in values]
    if missing:
        raise sec.fail("honour_values", f"gives no count for {', '.join(missing)}")
    return HandEndRule(kind=kind, name_zh=name_zh, tiles=tiles, counts_from=counts_from,
                       honour_values=MappingProxyType(dict(values)))

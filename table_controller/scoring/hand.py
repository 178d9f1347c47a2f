"""The hand to score, as a typed option object read from the documented JSON (docs/scoring.md)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from table_controller import tiles as T
from table_controller.scoring.errors import ScoringError

MeldType = Literal["chi", "pung", "kong"]
WinKind = Literal["self_draw", "discard", "rob_kong", "kong_replacement", "flower_replacement"]
WIN_KINDS: tuple[str, ...] = ("self_draw", "discard", "rob_kong", "kong_replacement",
                              "flower_replacement")
#: Wins where the winner drew the tile (自摸 and its kinds).
SELF_DRAWN: frozenset[str] = frozenset({"self_draw", "kong_replacement", "flower_replacement"})


@dataclass(frozen=True)
class Meld:
    """A declared chow, pung or kong; `source` is the seat whose tile was claimed (None: concealed)."""

    type: MeldType
    tiles: tuple[str, ...]
    concealed: bool = False
    source: str | None = None
    claimed: str | None = None

    @property
    def kind(self) -> str:
        """The lowest tile: the meld's kind."""
        return min(self.tiles, key=T.sort_key)


@dataclass(frozen=True)
class HandInput:
    """Everything the table knows about a winning hand; see docs/scoring.md for each field."""

    seat_wind: str
    prevalent_wind: str
    concealed: tuple[str, ...]
    win_tile: str
    win: WinKind = "discard"
    melds: tuple[Meld, ...] = ()
    discarder: str | None = None
    flowers: tuple[str, ...] = ()
    last_tile: bool = False
    #: Tiles seen on the table outside the winner's hand (discards, other seats' melds).
    visible: dict[str, int] = field(default_factory=dict)
    active: tuple[str, ...] = T.SEATS
    options: dict[str, Any] = field(default_factory=dict)
    #: Tiles held before the win (13; 台湾 16): a kong counts 3.
    size: int = 13

    @property
    def winner(self) -> str:
        return self.seat_wind

    @property
    def self_drawn(self) -> bool:
        return self.win in SELF_DRAWN

    def paying_seat(self) -> str:
        """The discarder (or the robbed konger), who pays alone on a discard win."""
        if self.discarder is None:
            raise ScoringError("bad_field", "a win on a discard names its discarder", "discarder")
        return self.discarder

    @property
    def payer(self) -> str | None:
        """The one seat that pays on a discard or a robbed kong (the konger)."""
        return None if self.self_drawn else self.discarder

    def all_tiles(self) -> list[str]:
        """Every tile of the hand but flowers: concealed, melds and the winning tile."""
        out = list(self.concealed) + [self.win_tile]
        for meld in self.melds:
            out.extend(meld.tiles)
        return out

    def with_win(self, tile: str, win: WinKind | None = None) -> HandInput:
        """The same ready hand completed by another tile (for waits); a discard needs a discarder,
        so one is supposed (the next seat) when the hand names none."""
        win = win or self.win
        discarder = self.discarder
        if win in ("discard", "rob_kong") and discarder is None:
            discarder = T.seat_after(self.seat_wind)
        return replace(self, win_tile=tile, win=win, discarder=discarder)

    @classmethod
    def from_json(cls, data: Any, *, ready_only: bool = False, size: int = 13) -> HandInput:
        """Validate the documented JSON; raise `ScoringError` naming the field at fault.

        With `ready_only` the hand is a ready hand of 13 tiles and `win_tile` may be absent;
        `size` is the tiles held before the win where the ruleset deals other than 13 (台湾 16).
        """
        if not isinstance(data, dict):
            raise ScoringError("bad_field", "the hand must be a JSON object", "")
        known = {"seat_wind", "prevalent_wind", "winner", "melds", "concealed", "win_tile", "win",
                 "discarder", "flowers", "last_tile", "visible", "active", "options"}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ScoringError("bad_field", f"unknown field(s) {', '.join(unknown)}", unknown[0])
        seat = _seat(data.get("seat_wind", data.get("winner")), "seat_wind")
        if "winner" in data and _seat(data["winner"], "winner") != seat:
            raise ScoringError("bad_field", "winner must be the winner's seat_wind", "winner")
        prevalent = _seat(data.get("prevalent_wind", "E"), "prevalent_wind")
        concealed = tuple(_tiles(data.get("concealed"), "concealed"))
        melds = tuple(_meld(m, f"melds[{i}]", seat) for i, m in enumerate(_list(data.get("melds", []), "melds")))
        win_tile_raw = data.get("win_tile")
        if win_tile_raw is None and ready_only:
            win_tile = ""
        else:
            win_tile = _tile(win_tile_raw, "win_tile")
            if T.is_flower(win_tile):
                raise ScoringError("bad_tile", "a flower cannot complete a hand", "win_tile")
        win = data.get("win", "discard")
        if win not in WIN_KINDS:
            raise ScoringError("bad_field", f"must be one of {', '.join(WIN_KINDS)}, not {win!r}", "win")
        discarder = data.get("discarder")
        if win in ("discard", "rob_kong") and not ready_only:
            discarder = _seat(discarder, "discarder")
            if discarder == seat:
                raise ScoringError("bad_field", "点炮方不能是和牌方自己 / the winner cannot win on their own discard",
                                   "discarder")
        elif discarder is not None:
            discarder = _seat(discarder, "discarder")
        flowers = tuple(_tiles(data.get("flowers", []), "flowers"))
        for code in flowers:
            if not T.is_flower(code):
                raise ScoringError("bad_tile", f"{code} is not a flower (1f..8f)", "flowers")
        if len(set(flowers)) != len(flowers):
            raise ScoringError("too_many_copies", "each flower exists once", "flowers")
        last_tile = data.get("last_tile", False)
        if not isinstance(last_tile, bool):
            raise ScoringError("bad_field", "must be true or false", "last_tile")
        visible_raw = data.get("visible", {})
        if not isinstance(visible_raw, dict):
            raise ScoringError("bad_field", 'must be an object like {"9p": 3}', "visible")
        visible: dict[str, int] = {}
        for code, n in visible_raw.items():
            _tile(code, f"visible.{code}")
            if not isinstance(n, int) or isinstance(n, bool) or not 0 <= n <= 4:
                raise ScoringError("bad_field", "a count 0..4", f"visible.{code}")
            visible[code] = n
        active = tuple(_seat(s, "active") for s in _list(data.get("active", list(T.SEATS)), "active"))
        if seat not in active:
            raise ScoringError("bad_field", "the winner must be among the active seats", "active")
        if discarder is not None and discarder not in active:  # 血战: a seat that has won plays no more tiles
            raise ScoringError("bad_field", "the discarder must be among the active seats", "discarder")
        options = data.get("options", {})
        if not isinstance(options, dict):
            raise ScoringError("bad_field", "must be an object", "options")
        options = _checked_options(options)
        hand = cls(seat_wind=seat, prevalent_wind=prevalent, concealed=concealed, win_tile=win_tile,
                   win=win, melds=melds, discarder=discarder, flowers=flowers, last_tile=last_tile,
                   visible=visible, active=active, options=options, size=size)
        hand.check_counts(ready_only=ready_only)
        return hand

    def check_counts(self, *, ready_only: bool = False) -> None:
        """`size` tiles before the win (a kong counting 3), no fifth copy, no flower in the hand."""
        for code in self.concealed:
            if T.is_flower(code):
                raise ScoringError("bad_tile", f"flower {code} belongs in flowers", "concealed")
        n = len(self.concealed) + 3 * len(self.melds)
        if n != self.size:
            raise ScoringError("wrong_tile_count",
                               f"{len(self.concealed)} concealed tiles and {len(self.melds)} melds make "
                               f"{n} tiles before the win; a hand needs {self.size}{_count_hint(self, n)}",
                               "concealed")
        tiles = self.all_tiles() if self.win_tile else list(self.concealed) + [t for m in self.melds for t in m.tiles]
        held = Counter(tiles)
        for code, k in held.items():
            if k > 4:
                raise ScoringError("too_many_copies", f"{k} copies of {code}: a set has 4", "concealed")
        if self.win == "rob_kong" and self.win_tile and held[self.win_tile] > 1:
            raise ScoringError("impossible_rob_kong", f"抢杠和 on {self.win_tile}: the konger holds the other "
                               "three, so the winner cannot hold another", "win")
        if self.win == "kong_replacement" and self.win_tile and not any(m.type == "kong" for m in self.melds):
            raise ScoringError("impossible_kong_replacement", "杠上开花须有杠: 副露中没有杠, 和牌张不可能是杠后补牌 / "
                               "杠上开花 (kong_replacement) needs a kong among the melds: none is declared", "win")
        for code, k in self.visible.items():
            if k + held.get(code, 0) > 4:
                raise ScoringError("too_many_copies", f"{k} visible and {held.get(code, 0)} in the hand: "
                                   f"a set has 4 of {code}", f"visible.{code}")


def check_keyed(data: Any) -> None:
    """Refuse, with `ScoringError`, what a hand keyed now contradicts in itself though the scorer reads it
    (`tablectl score`, the Win page): a self-drawn win naming a discarder. The scorer drops the discarder
    unsaid, so a referee who meant 点和 and left `win` at 自摸 got the three seats paying. A read the log
    already holds is still scored as it was taken (folding it refuses nothing)."""
    win = data.get("win") if isinstance(data, dict) else None
    # a `win` that is an object or a list is from_json's to refuse (looked up here, unhashable, it was a 500)
    if isinstance(win, str) and win in SELF_DRAWN and data.get("discarder") is not None:
        raise ScoringError("bad_field", f"自摸没有点炮方 / a self-drawn win ({win}) has no discarder: "
                           "drop discarder, or give win: discard", "discarder")


def _count_hint(hand: HandInput, n: int) -> str:
    """The likely slip behind a wrong count, as the referee keys a hand: the winning tile also among the
    concealed ones, or a kong's four tiles kept there instead of declared as a meld."""
    held = Counter(hand.concealed)
    quads = [t for t, k in held.items() if k == 4]
    if n == hand.size + 1 and hand.win_tile and held[hand.win_tile]:
        return f" (the winning tile {hand.win_tile} goes in win_tile only: take it out of concealed)"
    if quads and n == hand.size + len(quads):
        return (f" (a kong, {' '.join(f'4×{t}' for t in quads)}, is declared in melds as "
                '{"type": "kong", ...}, not kept among the concealed tiles)')
    return ""


def _bool(value: Any, name: str) -> bool:
    if not isinstance(value, bool):
        raise ScoringError("bad_field", f"must be true or false, not {value!r}", name)
    return value


def _suit(value: Any, name: str) -> str:
    if value not in T.SUITS:
        raise ScoringError("bad_field", f"must be a suit m p s, not {value!r}", name)
    return value  # type: ignore[no-any-return]


#: The options every scorer shares, checked where the hand is read: a wrong type is named here
#: (before, a list for `missing_suit` or a number for `horses` crashed inside the scorer). Others
#: (riichi's, the referee's points) are checked by the scorer that reads them.
_OPTION_CHECKS: dict[str, Any] = {
    "double": _bool, "first_turn": _bool, "after_kong": _bool, "missing_suit": lambda v, n: _suit(v, n),
    "riichi": _bool, "double_riichi": _bool, "ippatsu": _bool,  # a string "false" was read as true
    "sealed": lambda v, n: _seat(v, n), "baofu": lambda v, n: _seat(v, n),
    "horse_origin": lambda v, n: _seat(v, n), "kong_feeder": lambda v, n: _seat(v, n),
    "hanging": lambda v, n: _tile(v, n),
    "wildcard": lambda v, n: _tile(v, n), "horses": lambda v, n: _tiles(v, n),
}


def _checked_options(options: dict[str, Any]) -> dict[str, Any]:
    out = dict(options)
    for name, check in _OPTION_CHECKS.items():
        if out.get(name) is not None:
            out[name] = check(out[name], f"options.{name}")
    return out


def _list(value: Any, name: str) -> list[Any]:
    if not isinstance(value, list):
        raise ScoringError("bad_field", "must be a list", name)
    return value


def _seat(value: Any, name: str) -> str:
    if value not in T.SEATS:
        raise ScoringError("bad_field", f"must be a seat E S W N, not {value!r}", name)
    return value  # type: ignore[no-any-return]


def _tile(value: Any, name: str) -> str:
    if not T.is_tile(value):
        raise ScoringError("bad_tile", f"not a tile code: {value!r}", name)
    return value  # type: ignore[no-any-return]


def _tiles(value: Any, name: str) -> list[str]:
    if isinstance(value, str):
        try:
            parsed = T.parse_tiles(value)
        except T.TileError as exc:
            raise ScoringError("bad_tile", str(exc), name) from None
        return [_tile(c, name) for c in parsed]
    return [_tile(v, f"{name}[{i}]") for i, v in enumerate(_list(value, name))]


def _meld(data: Any, name: str, winner: str) -> Meld:
    if not isinstance(data, dict):
        raise ScoringError("bad_field", "a meld is an object", name)
    kind = data.get("type")
    if kind not in ("chi", "pung", "kong"):
        raise ScoringError("bad_field", f"type must be chi, pung or kong, not {kind!r}", f"{name}.type")
    tiles = T.sort_tiles(_tiles(data.get("tiles"), f"{name}.tiles"))
    concealed = data.get("concealed", False)
    if not isinstance(concealed, bool):
        raise ScoringError("bad_field", "must be true or false", f"{name}.concealed")
    if kind == "chi":
        ok = (len(tiles) == 3 and all(T.is_suited(t) for t in tiles) and len({T.suit(t) for t in tiles}) == 1
              and [T.rank(t) for t in tiles] == list(range(T.rank(tiles[0]), T.rank(tiles[0]) + 3)))
        if not ok:
            raise ScoringError("bad_meld", f"a chow is three consecutive tiles of one suit, not {tiles}", f"{name}.tiles")
        if concealed:
            raise ScoringError("bad_meld", "only a kong is declared concealed", f"{name}.concealed")
    else:
        size = 3 if kind == "pung" else 4
        if any(T.is_flower(t) for t in tiles):  # it said "a pung is 3 identical tiles, not [1f, 1f, 1f]"
            raise ScoringError("bad_meld", "花牌不能组成副露 / a flower is never in a meld: it goes in flowers",
                               f"{name}.tiles")
        if len(tiles) != size or len(set(tiles)) != 1:
            raise ScoringError("bad_meld", f"a {kind} is {size} identical tiles, not {tiles}", f"{name}.tiles")
        if concealed and kind == "pung":
            raise ScoringError("bad_meld", "only a kong is declared concealed", f"{name}.concealed")
    source = None
    if not concealed:
        source = _seat(data.get("from"), f"{name}.from")
        if source == winner:
            raise ScoringError("bad_meld", "a claimed meld comes from another seat", f"{name}.from")
        if kind == "chi" and source != T.seat_after(winner, 3):
            raise ScoringError("bad_meld", "吃 only from 上家 (the previous seat)", f"{name}.from")
    claimed = data.get("claimed")
    if claimed is not None:
        claimed = _tile(claimed, f"{name}.claimed")
        if claimed not in tiles:
            raise ScoringError("bad_meld", "the claimed tile must be one of the meld's", f"{name}.claimed")
    return Meld(type=kind, tiles=tuple(tiles), concealed=concealed, source=source, claimed=claimed)

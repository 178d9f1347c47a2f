"""Events that feed the hand: from the table (draws), the camera (discards, melds) and the referee."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, Mapping, Union

from table_controller import tiles as T
from table_controller.hand.errors import IllegalAction


@dataclass(frozen=True)
class Deal:
    """The opening hands: 13 tiles each, 14 for the dealer E (`back` where unseen)."""

    hands: Mapping[str, tuple[str, ...]]


@dataclass(frozen=True)
class ChooseMissing:
    """定缺: a seat names the suit it will not keep (四川)."""

    seat: str
    suit: str


@dataclass(frozen=True)
class Draw:
    """The seat in turn draws the next live tile."""

    seat: str
    tile: str = T.BACK


@dataclass(frozen=True)
class Replace:
    """A replacement draw from the tail after a kong or a flower."""

    seat: str
    tile: str = T.BACK


@dataclass(frozen=True)
class Flower:
    """A seat lays down a flower it holds; a replacement draw follows."""

    seat: str
    tile: str


@dataclass(frozen=True)
class Discard:
    seat: str
    tile: str


@dataclass(frozen=True)
class Claim:
    """During a claim window: 和 (win), 杠, 碰 or 吃 the discard; `tiles` are the chow's tiles."""

    seat: str
    action: Literal["win", "kong", "pung", "chi"]
    tiles: tuple[str, ...] = ()


@dataclass(frozen=True)
class Pass:
    """A seat lets the discard (or the added kong's tile) go."""

    seat: str


@dataclass(frozen=True)
class CloseWindow:
    """The claim window's time ran out: seats that said nothing pass."""


@dataclass(frozen=True)
class Kong:
    """On its turn a seat declares a concealed kong (暗杠) or adds to its pung (补杠)."""

    seat: str
    tile: str
    kind: Literal["concealed", "added"]


@dataclass(frozen=True)
class SelfDrawWin:
    """自摸: the seat in turn declares a win on the tile it drew."""

    seat: str


@dataclass(frozen=True)
class Correct:
    """Referee correction: a tile the camera read wrongly in a seat's hand."""

    seat: str
    old: str
    new: str


Event = Union[Deal, ChooseMissing, Draw, Replace, Flower, Discard, Claim, Pass, CloseWindow, Kong,
              SelfDrawWin, Correct]

_TYPES: dict[str, Any] = {
    "deal": Deal, "choose_missing": ChooseMissing, "draw": Draw, "replace": Replace, "flower": Flower,
    "discard": Discard, "claim": Claim, "pass": Pass, "close_window": CloseWindow, "kong": Kong,
    "self_draw_win": SelfDrawWin, "correct": Correct,
}


def event_from_json(data: Any) -> Event:
    """`{"type": "discard", "seat": "E", "tile": "9p"}` → `Discard`; a bad event names what is wrong."""
    if not isinstance(data, dict) or data.get("type") not in _TYPES:
        raise IllegalAction("bad_event", f"unknown event {data!r}; types: {', '.join(_TYPES)}")
    kind = _TYPES[data["type"]]
    args = {k: v for k, v in data.items() if k != "type"}
    if kind is Deal:
        args["hands"] = {s: tuple(T.parse_tiles(h) if isinstance(h, str) else h) for s, h in args.get("hands", {}).items()}
    if "tiles" in args:
        args["tiles"] = tuple(T.parse_tiles(args["tiles"]) if isinstance(args["tiles"], str) else args["tiles"])
    try:
        return kind(**args)  # type: ignore[no-any-return]
    except TypeError as exc:
        raise IllegalAction("bad_event", f"{data['type']}: {exc}") from None

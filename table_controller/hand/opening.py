"""The opening 补花 in rounds (walls.md): flowers in the opening hands are replaced dealer first,
then S, W, N; a replacement that is again a flower waits until that round of replacements is over.

Pure: `start` from the deal, `lay` for each flower laid, `drew` for each replacement, `pending`
before the dealer's first discard. Unseen tiles (`back`) may be anything, so a flower laid from one
is taken as due; only what is known can be out of order.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Mapping

from table_controller import tiles as T
from table_controller.hand.errors import IllegalAction

Tiles = Mapping[str, tuple[str, ...]]


@dataclass(frozen=True)
class OpeningFlowers:
    """Where the opening 补花 stands: the round, what each seat may still lay in it, what it drew."""

    round: int = 1
    due: Tiles = field(default_factory=dict)    # the tiles each seat held at the round's start, not laid
    drawn: Tiles = field(default_factory=dict)  # the replacements each seat drew this round
    last: int = -1                               # index in T.SEATS of the seat that laid last this round
    extra: tuple[str, ...] = ()                  # kinds laid out like flowers (南京: 中发白, `FlowRules.extra_flowers`)


def start(hands: Tiles, extra: tuple[str, ...] = ()) -> OpeningFlowers:
    """Round 1: every seat's dealt hand is due; `extra`: the kinds the ruleset lays out like flowers."""
    return OpeningFlowers(due={s: tuple(hands.get(s, ())) for s in T.SEATS}, drawn={s: () for s in T.SEATS},
                          extra=tuple(extra))


def _known(tiles: Tiles, extra: tuple[str, ...] = ()) -> list[tuple[str, str]]:
    return [(s, t) for s in T.SEATS for t in tiles.get(s, ()) if t != T.BACK and (T.is_flower(t) or t in extra)]


def pending(o: OpeningFlowers) -> list[tuple[str, str]]:
    """(seat, flower) known still to be laid: this round's first, then the replacements' (next round)."""
    return _known(o.due, o.extra) + _known(o.drawn, o.extra)


def _now(o: OpeningFlowers, seat: str, tile: str) -> bool:
    """`seat` may lay `tile` in this round: its turn in the round has not passed, and it held the
    tile at the round's start (a `back` may be it, unless the tile is known to be this round's draw)."""
    due = o.due.get(seat, ())
    held = tile in due or (T.BACK in due and tile not in o.drawn.get(seat, ()))
    return T.SEATS.index(seat) >= o.last and held


def _refuse(seat: str, tile: str, first: tuple[str, str]) -> IllegalAction:
    who, what = first
    return IllegalAction(
        "flower_order",
        f"起牌补花须按顺序: 先由{T.seat_name(who)}家补{T.tile_name(what)}, 再轮到{T.seat_name(seat)}家补"
        f"{T.tile_name(tile)} (庄家先, 然后南、西、北; 补上来的花牌等这一轮补完再补)")


def lay(o: OpeningFlowers, seat: str, tile: str) -> OpeningFlowers:
    """The opening after `seat` lays `tile`; a flower out of the order walls.md gives is refused."""
    if not _now(o, seat, tile):  # a flower this round cannot hold: it opens the next round
        left = _known(o.due, o.extra)
        if left:
            raise _refuse(seat, tile, left[0])
        o = OpeningFlowers(o.round + 1, due=dict(o.drawn), drawn={s: () for s in T.SEATS}, extra=o.extra)
        if not _now(o, seat, tile):
            raise IllegalAction("flower_order", f"起牌补花: {T.seat_name(seat)}家的{T.tile_name(tile)}不是"
                                                f"起到的牌, 也不是上一轮补上来的牌")
    earlier = [(s, t) for s, t in _known(o.due, o.extra) if T.SEATS.index(s) < T.SEATS.index(seat)]
    if earlier:
        raise _refuse(seat, tile, earlier[0])
    due = list(o.due[seat])
    due.remove(tile if tile in due else T.BACK)
    return OpeningFlowers(o.round, {**o.due, seat: tuple(due)}, o.drawn, T.SEATS.index(seat), o.extra)


def drew(o: OpeningFlowers, seat: str, tile: str) -> OpeningFlowers:
    """The opening after `seat` draws `tile` to replace a flower (laid next round if a flower)."""
    return replace(o, drawn={**o.drawn, seat: (*o.drawn.get(seat, ()), tile)})


def corrected(o: OpeningFlowers, seat: str, old: str, new: str) -> OpeningFlowers:
    """The referee corrected a tile the camera misread: the opening follows the tile as it is."""
    for name in ("due", "drawn"):
        tiles = list(getattr(o, name).get(seat, ()))
        if old in tiles:
            tiles[tiles.index(old)] = new
            return replace(o, **{name: {**getattr(o, name), seat: tuple(tiles)}})
    return o

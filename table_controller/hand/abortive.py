"""途中流局 (abortive draws, riichi): which the ruleset has, and whether the record shows one.

A hand stopped by an abortive draw pays nothing; the dealer deals again (`[match]
continue_on_abortive`), 本场 +1, and the 立直棒 stay on the table for the next winner. The record
shows 四风连打, 四家立直 and 四杠散了 by itself; 九种九牌 is the declaring seat's first turn with no
call made (its tiles, when keyed, are checked too); 三家和 is the referee's word (no ron is keyed).
Pure: over the live fold's hand dict (`state._apply_play`), no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from table_controller import tiles as T

#: kind → (中文, 日本語): the page's button says 九种九牌流局, the sheet's row 流局（九种九牌）.
KINDS: dict[str, tuple[str, str]] = {
    "nine_terminals": ("九种九牌", "九種九牌"),
    "four_winds": ("四风连打", "四風連打"),
    "four_riichi": ("四家立直", "四家立直"),
    "four_kongs": ("四杠散了", "四開槓"),
    "three_rons": ("三家和", "三家和"),
}
WINDS = ("1z", "2z", "3z", "4z")


def kinds_of(table: Mapping[str, Any]) -> tuple[str, ...]:
    """The abortive draws a ruleset's `[flow]` lists (`abortive_draws`), in the order of `KINDS`."""
    raw = table.get("abortive_draws") or ()
    listed = {str(k) for k in raw} if isinstance(raw, (list, tuple)) else set()
    return tuple(k for k in KINDS if k in listed)


def name_zh(kind: str) -> str:
    return KINDS[kind][0] if kind in KINDS else kind


def terminal_kinds(tiles: Sequence[str]) -> int:
    """How many kinds of 幺九 (1, 9 and honours) among `tiles` (九种九牌 needs nine)."""
    return len({t for t in tiles if T.suit(t) == T.HONOUR or T.rank(t) in (1, 9)})


def shown(hand: Mapping[str, Any], kinds: Sequence[str]) -> list[str]:
    """The abortive draws among `kinds` that the record shows now (四风连打, 四家立直, 四杠散了)."""
    return [k for k in kinds if k in ("four_winds", "four_riichi", "four_kongs") and refusal(hand, k, kinds) is None]


def refusal(hand: Mapping[str, Any], kind: str, kinds: Sequence[str], seat: Any = None,
            tiles: Sequence[str] | None = None) -> str | None:
    """Why the hand cannot end in the abortive draw `kind` (Chinese first), or None when it can."""
    if kind not in KINDS:
        return f"未知的流局 {kind!r} / unknown abortive draw"
    zh = name_zh(kind)
    if kind not in kinds:
        return f"本规则无{zh}流局 / this ruleset has no {kind} abortive draw"
    discards: Mapping[str, list[dict[str, Any]]] = hand.get("discards") or {}
    melds: Mapping[str, list[dict[str, Any]]] = hand.get("melds") or {}
    called = any(melds.get(w) for w in T.SEATS)
    if kind == "nine_terminals":
        return _nine_terminals(discards, called, seat, tiles)
    if kind == "four_winds":
        first = [d[0].get("tile") for w in T.SEATS if (d := discards.get(w))]
        if called or len(first) < 4 or any(len(discards.get(w) or ()) != 1 for w in T.SEATS):
            return "四风连打：须是四家的第一张出牌，其间无人鸣牌 / four winds: the first discard of each seat, no call"
        if first[0] not in WINDS or len(set(first)) != 1:
            return "四风连打：四家第一张须打出同一风牌 / four winds: all four first discards the same wind"
        return None
    if kind == "four_riichi":
        declared = hand.get("riichi") or {}
        if len([w for w in T.SEATS if w in declared]) < 4:
            return f"四家立直：现只有{len(declared)}家立直 / four riichi: {len(declared)} declared"
        return None
    if kind == "four_kongs":
        by = [w for w in T.SEATS for m in melds.get(w) or () if m.get("type") == "kong"]
        if len(by) < 4:
            return f"四杠散了：现只有{len(by)}个杠 / four kongs: {len(by)} made"
        if len(set(by)) < 2:
            return "四杠散了：四杠同属一家，可继续（四杠子） / four kongs by one seat: play on (suukantsu)"
        return None
    return None  # three_rons: three seats call ron on one discard, which the record does not key


def _nine_terminals(discards: Mapping[str, list[dict[str, Any]]], called: bool, seat: Any,
                    tiles: Sequence[str] | None) -> str | None:
    """九种九牌: on the seat's first draw, no call made yet, nine kinds of 幺九 in its 14 tiles."""
    if seat not in T.SEATS:
        return "九种九牌：请选宣告的座位 / nine terminals: pick the seat that declares it"
    zh = T.SEAT_NAMES[seat]
    before = T.SEATS[:T.SEATS.index(seat)]
    first_turn = not discards.get(seat) and all(len(discards.get(w) or ()) == 1 for w in before) \
        and not any(discards.get(w) for w in T.SEATS[T.SEATS.index(seat) + 1:])
    if called or not first_turn:
        return (f"九种九牌只能在{zh}家第一次摸牌时、无人鸣牌前宣告 / "
                f"nine terminals: only on {seat}'s first draw, before any call")
    if tiles:
        if len(tiles) != 14:
            return f"九种九牌：须亮出摸牌后的14张，不是{len(tiles)}张 / show the 14 tiles after the draw"
        n = terminal_kinds(tiles)
        if n < 9:
            return f"九种九牌：幺九牌只有{n}种，须九种 / nine terminals: {n} kinds of terminals and honours"
    return None

"""Points shared by the rulesets: 标准分 by rank with ties sharing, and payment helpers."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TypeVar

from table_controller import tiles as T

#: 标准分 by place, 4/2/1/0 (中国麻将竞赛规则): a ruleset may give its own (`[scoring] table_points`).
TABLE_POINTS: tuple[float, ...] = (4, 2, 1, 0)

Who = TypeVar("Who")


def table_points(scores: Mapping[Who, int], ranks: Sequence[float] = TABLE_POINTS,
                 seat_order: Sequence[Who] | None = None) -> dict[Who, float]:
    """标准分: the best score gets ranks[0] ...; tied seats share the points of the places they hold, or, given
    `seat_order` (riichi's 上家取り: the players from the first dealer on, in play order), the one nearer the first
    dealer takes the higher place.

    Keyed as `scores` is: seats, chairs ("1".."4") or players; the one computation for the score sheet, the
    hand machine's sessions and whatever else ranks a session."""
    if seat_order is not None:
        placed = sorted(scores, key=lambda s: (-scores[s], list(seat_order).index(s)))
        return {s: ranks[i] for i, s in enumerate(placed)}
    order = sorted(scores, key=lambda s: -scores[s])
    out: dict[str, float] = {}
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and scores[order[j + 1]] == scores[order[i]]:
            j += 1
        share = sum(ranks[i:j + 1]) / (j - i + 1)
        for seat in order[i:j + 1]:
            out[seat] = int(share) if float(share).is_integer() else share
        i = j + 1
    return out


def table_point_ranks(ruleset: str) -> tuple[float, ...]:
    """The 标准分 of each place under `ruleset`: its `[scoring] table_points`, else `TABLE_POINTS`."""
    try:
        from table_controller.scoring.config import scoring

        return tuple(scoring(ruleset).get("table_points", TABLE_POINTS))
    except Exception:  # a ruleset without [scoring]: the 4/2/1/0 of 中国麻将竞赛规则
        return TABLE_POINTS


def uma_points(scores: Mapping[Who, int], start: int, back: int, uma: Sequence[float],
               seat_order: Sequence[Who] | None = None) -> dict[Who, float]:
    """Riichi's end-of-session points (顺位点, pt) from the points won or lost (`scores`, counted from 0):
    the points held (`start` + score) less the return points (返し, `back`) in thousands, plus the place's
    uma (ウマ) and, to the first place, the oka (オカ: what the four put in over the return, 4 × (back - start)).
    Tied seats share the uma and oka of the places they hold, as `table_points` shares its places (WRC 5.9.2),
    or, given `seat_order`, the one nearer the first dealer takes the higher place (上家取り)."""
    bonus = [float(u) for u in uma]
    bonus[0] += 4 * (back - start) / 1000
    shared = table_points(scores, bonus, seat_order)
    out: dict[Who, float] = {}
    for seat, score in scores.items():
        pt = round((start + score - back) / 1000 + shared[seat], 2)
        out[seat] = int(pt) if pt.is_integer() else pt
    return out


#: How a ruleset's `[scoring] ties` places players level on points: "share" (the places' points shared: WRC 5.9.2,
#: 中国麻将竞赛规则) or "seat_order" (上家取り: the one nearer the first dealer placed higher: 天凤, M-League)
TIES = ("share", "seat_order")


def ties_by_seat(ruleset: str) -> bool:
    """Whether `ruleset` breaks ties by seat order (`[scoring] ties = "seat_order"`, 上家取り)."""
    try:
        from table_controller.scoring.config import scoring

        return scoring(ruleset).get("ties", "share") == "seat_order"
    except Exception:  # a ruleset without [scoring]: ties share
        return False


def session_points(ruleset: str, scores: Mapping[Who, int],
                   seat_order: Sequence[Who] | None = None) -> dict[Who, float]:
    """The session's standing by place under `ruleset`: with `[scoring] uma` (riichi leagues) the uma/oka
    points (`uma_points`, `start_points` and `return_points`, 返し, defaulting to the start: no oka), else
    标准分 by place (`table_points`, `[scoring] table_points`). `seat_order`: the players from the session's
    first dealer on, in play order, for a ruleset whose ties go by it (`ties_by_seat`); ties share without it."""
    try:
        from table_controller.scoring.config import scoring

        table = scoring(ruleset)
    except Exception:  # a ruleset without [scoring]: the 4/2/1/0 of 中国麻将竞赛规则
        table = {}
    order = seat_order if seat_order is not None and table.get("ties", "share") == "seat_order" else None
    uma = table.get("uma")
    if not uma:
        return table_points(scores, table_point_ranks(ruleset), order)
    start = int(table.get("start_points", 0))
    return uma_points(scores, start, int(table.get("return_points", start)), uma, order)


def zero() -> dict[str, int]:
    return {seat: 0 for seat in T.SEATS}


def collect(winner: str, amounts: Mapping[str, int]) -> dict[str, int]:
    """The winner receives each payer's amount: a zero-sum payment table."""
    out = zero()
    for seat, amount in amounts.items():
        out[seat] -= amount
        out[winner] += amount
    return out


def add(*tables: Mapping[str, int]) -> dict[str, int]:
    out = zero()
    for table in tables:
        for seat, amount in table.items():
            out[seat] += amount
    return out

"""Points shared by the rulesets: 标准分 by rank with ties sharing, and payment helpers."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TypeVar

from table_controller import tiles as T

#: 标准分 by place, 4/2/1/0 (中国麻将竞赛规则): a ruleset may give its own (`[scoring] table_points`).
TABLE_POINTS: tuple[float, ...] = (4, 2, 1, 0)

Who = TypeVar("Who")


def table_points(scores: Mapping[Who, int], ranks: Sequence[float] = TABLE_POINTS) -> dict[Who, float]:
    """标准分: the best score gets ranks[0] ...; tied seats share the points of the places they hold.

    Keyed as `scores` is: seats, chairs ("1".."4") or players; the one computation for the score sheet, the
    hand machine's sessions and whatever else ranks a session."""
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


def uma_points(scores: Mapping[Who, int], start: int, back: int, uma: Sequence[float]) -> dict[Who, float]:
    """Riichi's end-of-session points (顺位点, pt) from the points won or lost (`scores`, counted from 0):
    the points held (`start` + score) less the return points (返し, `back`) in thousands, plus the place's
    uma (ウマ) and, to the first place, the oka (オカ: what the four put in over the return, 4 × (back - start)).
    Tied seats share the uma and oka of the places they hold, as `table_points` shares its places."""
    bonus = [float(u) for u in uma]
    bonus[0] += 4 * (back - start) / 1000
    shared = table_points(scores, bonus)
    out: dict[Who, float] = {}
    for seat, score in scores.items():
        pt = round((start + score - back) / 1000 + shared[seat], 2)
        out[seat] = int(pt) if pt.is_integer() else pt
    return out


def session_points(ruleset: str, scores: Mapping[Who, int]) -> dict[Who, float]:
    """The session's standing by place under `ruleset`: with `[scoring] uma` (riichi leagues) the uma/oka
    points (`uma_points`, `start_points` and `return_points`, 返し, defaulting to the start: no oka), else
    标准分 by place (`table_points`, `[scoring] table_points`)."""
    try:
        from table_controller.scoring.config import scoring

        table = scoring(ruleset)
    except Exception:  # a ruleset without [scoring]: the 4/2/1/0 of 中国麻将竞赛规则
        table = {}
    uma = table.get("uma")
    if not uma:
        return table_points(scores, table_point_ranks(ruleset))
    start = int(table.get("start_points", 0))
    return uma_points(scores, start, int(table.get("return_points", start)), uma)


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

"""Dice: checking throws, who throws next, where the break is, and 骰子荒番 (shanghai)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from .errors import DealError
from .geometry import Seat, count_seat
from .ruleset import Ruleset

Throw = tuple[int, ...]


def check_throw(rs: Ruleset, throw: Sequence[int] | None, label: str = "dice") -> Throw:
    """A throw as a tuple, or DealError saying what is wrong (count of dice, a face not 1..6)."""
    if throw is None:
        raise DealError(f"{rs.id} needs {label}: {rs.dice_count} dice", code="dice_missing")
    values = tuple(throw)
    if len(values) != rs.dice_count:
        raise DealError(f"{rs.id} throws {rs.dice_count} dice at a time; {label} has {len(values)}: "
                        f"{','.join(map(str, values)) or '(none)'}", code="dice_count")
    for v in values:
        if isinstance(v, bool) or not isinstance(v, int) or not 1 <= v <= 6:
            raise DealError(f"{label}: a die shows 1..6, not {v!r}", code="dice_face")
    return values


def check_throws(rs: Ruleset, dice: Sequence[int] | None, dice2: Sequence[int] | None) -> tuple[Throw, Throw | None]:
    """Both throws checked against the ruleset: a second throw exactly when it has one."""
    first = check_throw(rs, dice, "dice")
    if rs.throws == 2:
        if dice2 is None:
            thrower = count_seat(sum(first))
            raise DealError(f"{rs.id} needs a second throw (dice2) by {thrower}, the seat the dealer's "
                            f"{sum(first)} counts to", code="dice2_missing")
        return first, check_throw(rs, dice2, "dice2")
    if dice2 is not None:
        raise DealError(f"{rs.id} has one throw only; drop dice2", code="dice2_unexpected")
    return first, None


def throwers(rs: Ruleset, first: Throw) -> tuple[Seat, ...]:
    """Who threw each throw: the dealer, then (two-throw rulesets) the seat the first counts to."""
    if rs.throws == 2:
        return ("E", count_seat(sum(first)))
    return ("E",)


def next_thrower(rs: Ruleset, dice_so_far: Sequence[Sequence[int]]) -> Seat | None:
    """The seat that throws next, or None when the throws for the break are complete.

    mcr/nanjing (seed 000 范文六 二.2, 003 掷骰): after the dealer's s1 the seat s1 counts to
    throws again. The controller calls this to know whose throw the table should report.
    """
    throws = [check_throw(rs, t, f"throw {i + 1}") for i, t in enumerate(dice_so_far)]
    if len(throws) > rs.throws:
        raise DealError(f"{rs.id} has {rs.throws} throw(s), got {len(throws)}", code="dice_too_many")
    if len(throws) == rs.throws:
        return None
    if not throws:
        return "E"
    return count_seat(sum(throws[0]))


@dataclass(frozen=True)
class BreakPoint:
    """Where the count lands: which wall, how many stacks, and how they are counted."""

    wall: Seat
    count: int
    mode: str


def break_point(rs: Ruleset, first: Throw, second: Throw | None) -> BreakPoint:
    """walls.md table "The procedures": the wall chosen and the stacks counted."""
    s1 = sum(first)
    if rs.break_wall == "total":
        wall = count_seat(s1)
    elif rs.break_wall == "larger_die":
        wall = count_seat(max(first))
    elif rs.break_wall == "smaller_die":
        wall = count_seat(min(first))
    else:  # second_thrower: the seat the first total counts to
        wall = count_seat(s1)
    if rs.break_count == "total":
        count = s1
    elif rs.break_count == "smaller_die":
        count = min(first)
    elif rs.break_count == "larger_die":
        count = max(first)
    elif rs.break_count == "both_totals":
        assert second is not None
        count = s1 + sum(second)
    else:  # second_total
        assert second is not None
        count = sum(second)
    return BreakPoint(wall=wall, count=count, mode=rs.break_mode)


def dice_huangfan(dice: Sequence[int]) -> int:
    """骰子荒番 added by the dealer's two dice (shanghai, seed 000 范文七).

    (1,1) or (4,4) → 2; a 1 or a 4 with any other face, or a double 2/3/5/6 → 1; otherwise 0.
    """
    values = tuple(dice)
    if len(values) != 2 or not all(isinstance(v, int) and not isinstance(v, bool) and 1 <= v <= 6 for v in values):
        raise DealError(f"骰子荒番 reads two dice 1..6, not {values!r}", code="dice_face")
    a, b = sorted(values)
    if (a, b) in ((1, 1), (4, 4)):
        return 2
    if a in (1, 4) or b in (1, 4) or a == b:
        return 1
    return 0

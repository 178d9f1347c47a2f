"""定位 and 定庄 by dice: which chair deals first and which wind each chair plays."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Sequence

from .errors import DealError
from .geometry import SEATS, Seat

#: Chairs (定位/抽签号) 1..4, numbered counter-clockwise round the table (seed 000 十万麻将 三.3(1)).
POSITIONS: tuple[int, ...] = (1, 2, 3, 4)


def _check_total(total: int, dice: int = 2) -> None:
    if isinstance(total, bool) or not isinstance(total, int) or not dice <= total <= 6 * dice:
        raise DealError(f"a total of {dice} dice is {dice}..{6 * dice}, not {total!r}", code="dice_face")


def first_dealer_position(total: int, thrower: int = 1, dice: int = 2) -> int:
    """定庄: 1号位 throws; the total counts chairs counter-clockwise from the thrower as 1.

    walls.md "Choosing seats": 5, 9 → 1号位; 2, 6, 10 → 2号位; 3, 7, 11 → 3号位; 4, 8, 12 → 4号位.
    """
    _check_total(total, dice)
    if thrower not in POSITIONS:
        raise DealError(f"chairs are numbered 1..4, not {thrower!r}", code="position")
    return (thrower - 1 + total - 1) % 4 + 1


def seats_for_dealer(dealer_position: int) -> dict[int, Seat]:
    """定位: the wind each chair plays when `dealer_position` deals (dealer E, then S, W, N
    counter-clockwise)."""
    if dealer_position not in POSITIONS:
        raise DealError(f"chairs are numbered 1..4, not {dealer_position!r}", code="position")
    return {(dealer_position - 1 + i) % 4 + 1: SEATS[i] for i in range(4)}


@dataclass(frozen=True)
class HighestThrow:
    """Result of sichuan's 大为庄: the dealer, or the chairs tied on the highest total who throw again."""

    dealer: int | None
    tied: tuple[int, ...]


def highest_thrower(totals: Mapping[int, Sequence[int]]) -> HighestThrow:
    """sichuan (seed 000 范文三): each player throws once; the highest total deals ("大为庄")."""
    if set(totals) - set(POSITIONS) or not totals:
        raise DealError(f"throws are keyed by chair 1..4, got {sorted(totals)}", code="position")
    sums: dict[int, int] = {}
    for chair, dice in totals.items():
        values = tuple(dice)
        if len(values) != 2 or not all(isinstance(v, int) and not isinstance(v, bool) and 1 <= v <= 6
                                       for v in values):
            raise DealError(f"chair {chair}: a throw is two dice 1..6, not {values!r}", code="dice_face")
        sums[chair] = sum(values)
    best = max(sums.values())
    tied = tuple(sorted(c for c, v in sums.items() if v == best))
    return HighestThrow(dealer=tied[0] if len(tied) == 1 else None, tied=tied if len(tied) > 1 else ())

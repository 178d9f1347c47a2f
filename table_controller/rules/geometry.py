"""Table geometry: seats, counting seats with a dice total, the ring of stacks and position names."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal, Mapping

Seat = Literal["E", "S", "W", "N"]
Layer = Literal["t", "b"]

#: Seats in play order (counter-clockwise round the table): E → S → W → N.
SEATS: tuple[Seat, ...] = ("E", "S", "W", "N")
#: Walls in the order the stacks run clockwise seen from above: E1..EL, N1..NL, W1..WL, S1..SL.
RING_ORDER: tuple[Seat, ...] = ("E", "N", "W", "S")
LAYER_NAMES_ZH: Mapping[str, str] = {"t": "上层", "b": "下层"}

_POSITION_RE = re.compile(r"^([ESWN])(\d{2,3})([tb])$")


def seat_after(seat: Seat, steps: int) -> Seat:
    """The seat `steps` places on in play order (1 = 下家, 2 = 对家, 3 = 上家)."""
    return SEATS[(SEATS.index(seat) + steps) % 4]


def count_seat(total: int, start: Seat = "E") -> Seat:
    """The seat a dice total counts to, `start` counting as 1, counter-clockwise.

    walls.md "Which wall": 1,5,9,13,17 → start; 2,6,10,14,18 → 下家; 3,7,11,15 → 对家;
    4,8,12,16 → 上家.
    """
    if total < 1:
        raise ValueError(f"a count must be at least 1, got {total}")
    return seat_after(start, (total - 1) % 4)


def position_name(wall: Seat, stack: int, layer: Layer) -> str:
    """`W07t`: the top tile of stack 7 of W's wall (walls.md notation)."""
    return f"{wall}{stack:02d}{layer}"


def stack_name(wall: Seat, stack: int) -> str:
    """`W07`: stack 7 of W's wall, both layers."""
    return f"{wall}{stack:02d}"


def parse_position(text: str) -> tuple[Seat, int, Layer]:
    """Split `W07t` into ("W", 7, "t"); ValueError names what is wrong."""
    match = _POSITION_RE.match(text)
    if not match:
        raise ValueError(f"{text!r} is not a tile position; write it like 'W07t' "
                         "(wall E/S/W/N, two-digit stack, t=top or b=bottom)")
    wall, stack, layer = match.groups()
    return wall, int(stack), layer  # type: ignore[return-value]


@dataclass(frozen=True)
class Ring:
    """The stacks of the four walls in clockwise order from E1, as indices 0..total-1.

    Walls may differ in length (108 tiles: E 14, S 13, W 14, N 13), so the ring is built from
    the lengths the table reports, never from a constant.
    """

    lengths: tuple[int, int, int, int]  # in seat order E, S, W, N

    @property
    def total(self) -> int:
        return sum(self.lengths)

    def length(self, wall: Seat) -> int:
        return self.lengths[SEATS.index(wall)]

    def wall_start(self, wall: Seat) -> int:
        """Ring index of stack 1 of `wall`."""
        start = 0
        for other in RING_ORDER:
            if other == wall:
                return start
            start += self.length(other)
        raise ValueError(f"unknown wall {wall!r}")

    def stack_at(self, index: int) -> tuple[Seat, int]:
        """(wall, stack number) of a ring index, wrapping round the table."""
        index %= self.total
        for wall in RING_ORDER:
            length = self.length(wall)
            if index < length:
                return wall, index + 1
            index -= length
        raise AssertionError("unreachable: index reduced modulo the ring total")

    def index_of(self, wall: Seat, stack: int) -> int:
        if not 1 <= stack <= self.length(wall):
            raise ValueError(f"wall {wall} has stacks 1..{self.length(wall)}, not {stack}")
        return self.wall_start(wall) + stack - 1

    def names(self) -> tuple[str, ...]:
        """Stack names (`E01`...) in ring order."""
        return tuple(stack_name(*self.stack_at(i)) for i in range(self.total))

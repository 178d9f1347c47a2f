"""The registry of scoring elements: each a small function whose docstring is its rule.

A ruleset's module registers the elements it knows under their Chinese names; the values
(番 or 分), the cap and the exclusions (不计) are data in the ruleset's `[scoring]` table, so a
table that reads a rule differently changes a number, not the code.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import cached_property

from table_controller import tiles as T
from table_controller.scoring.hand import HandInput
from table_controller.scoring.result import Fan
from table_controller.scoring.shapes import Group, Shape


@dataclass(frozen=True)
class View:
    """One reading of a winning hand with the table's situation: what every element looks at."""

    hand: HandInput
    shape: Shape
    wildcard: str | None = None
    extra: Mapping[str, object] = field(default_factory=dict)

    @cached_property
    def tiles(self) -> list[str]:
        """All tiles of the hand as they stand (jokers as themselves), flowers excluded."""
        return self.hand.all_tiles()

    @cached_property
    def faces(self) -> list[str]:
        """The tiles the reading makes of them: jokers replaced by what they stand for."""
        out: list[str] = []
        for g in self.shape.groups:
            out.extend(g.tiles())
        return out

    @cached_property
    def suits(self) -> set[str]:
        return {T.suit(t) for t in self.faces if T.is_suited(t)}

    @cached_property
    def has_honours(self) -> bool:
        return any(T.is_honour(t) for t in self.faces)

    @cached_property
    def counts(self) -> Counter[str]:
        return Counter(self.faces)

    @property
    def groups(self) -> tuple[Group, ...]:
        return self.shape.groups

    @property
    def win(self) -> str:
        return self.hand.win

    @property
    def self_drawn(self) -> bool:
        return self.hand.self_drawn


Check = Callable[[View], int]


@dataclass(frozen=True)
class Element:
    """A scoring element: its Chinese name, its rule (the check's docstring), and the check."""

    name: str
    check: Check

    @property
    def rule(self) -> str:
        return (self.check.__doc__ or "").strip()


class Registry:
    """The elements a ruleset knows, evaluated in a loop over a reading."""

    def __init__(self, ruleset: str) -> None:
        self.ruleset = ruleset
        self.elements: dict[str, Element] = {}

    def element(self, name: str) -> Callable[[Check], Check]:
        """Register `check` under `name` (a decorator); the check returns how often the hand holds it."""

        def register(check: Check) -> Check:
            if name in self.elements:
                raise ValueError(f"{self.ruleset}: element {name} registered twice")
            self.elements[name] = Element(name, check)
            return check

        return register

    def add(self, name: str, check: Check) -> None:
        self.element(name)(check)

    def evaluate(self, view: View, values: Mapping[str, int],
                 excludes: Mapping[str, Iterable[str]] | None = None) -> list[Fan]:
        """The elements the reading holds, valued from `values`, less those excluded (不计).

        An element without a value in the table is not scored: the data decides what counts.
        """
        held: dict[str, int] = {}
        for name, el in self.elements.items():
            if name not in values:
                continue
            n = el.check(view)
            if n:
                held[name] = n
        for name in list(held):
            if name in held:
                for dropped in (excludes or {}).get(name, ()):
                    held.pop(dropped, None)
        return [Fan(name=name, value=int(values[name]), count=n) for name, n in held.items()]


def best(candidates: Iterable[tuple[list[Fan], View]]) -> tuple[list[Fan], View] | None:
    """The reading that scores most (ties: the first, which keeps results stable)."""
    top: tuple[list[Fan], View] | None = None
    top_total = -1
    for fans, view in candidates:
        total = sum(f.points for f in fans)
        if total > top_total:
            top, top_total = (fans, view), total
    return top

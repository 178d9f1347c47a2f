"""The wall of a hand in play: live draws from the front, replacement draws from the tail.

The undrawn tiles always form one run of stacks clockwise from the front stack `a` to the tail
stack `b` (offsets from the first dealt stack k). Both ends take a stack's tiles one at a time,
so the state is four numbers: the two stack offsets and which layers each end has taken. When
the ends meet in one stack they share its mask, which is what keeps the live order and the tail
from ever handing out the same tile twice. The state is immutable: every draw returns a new one,
so the controller can keep the previous state to undo a referee's correction.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Iterator

from .errors import WallError

if TYPE_CHECKING:
    from .deal import DealPlan

_BITS = (1, 2)  # layer index 0 = top, 1 = bottom
_POPCOUNT = (0, 1, 1, 2)


@dataclass(frozen=True)
class WallState:
    """Where the front and the tail stand. Create with `plan.initial_state()`."""

    plan: DealPlan = field(repr=False)
    a: int  # front stack offset from k
    a_mask: int  # layers of stack a taken (1 top, 2 bottom)
    b: int  # tail stack offset from k
    b_mask: int
    live_drawn: int = 0
    tail_drawn: int = 0

    # --- counts -----------------------------------------------------------------------------

    @property
    def remaining(self) -> int:
        """Tiles still standing in the wall (the reserve / dead wall included)."""
        if self.a > self.b:
            return 0
        if self.a == self.b:
            return 2 - _POPCOUNT[self.a_mask]
        return 4 - _POPCOUNT[self.a_mask] - _POPCOUNT[self.b_mask] + 2 * (self.b - self.a - 1)

    @property
    def live_left(self) -> int:
        """Live draws still possible before 荒牌 (the ruleset's reserve respected)."""
        return max(0, self.remaining - self.plan.ruleset.reserve)

    @property
    def exhausted(self) -> bool:
        """荒牌: no live tile left to draw (海南 stops with 15 tiles standing, riichi with 14)."""
        return self.live_left == 0

    @property
    def is_last(self) -> bool:
        """The next live draw is the 海底 (the last drawable tile)."""
        return self.live_left == 1

    @property
    def in_last_zone(self) -> bool:
        """Inside the ruleset's last-tiles zone (sichuan 后4张必胡: the last 4 live tiles), from when
        that many stand until the hand ends: the discard after the 海底 is still in it."""
        zone = self.plan.ruleset.last_zone
        return zone > 0 and self.live_left <= zone

    @property
    def replacements_left(self) -> int | None:
        """Replacement draws still allowed (riichi's 4 岭上牌), None when unlimited."""
        limit = self.plan.ruleset.max_replacements
        return None if limit is None else max(0, limit - self.tail_drawn)

    # --- looking without drawing ------------------------------------------------------------

    def _pos(self, stack: int, layer: int) -> str:
        return self.plan.order[2 * stack + layer]

    def _front_iter(self) -> Iterator[str]:
        """Undrawn positions in live draw order."""
        for stack in range(self.a, self.b + 1):
            mask = self.a_mask if stack == self.a else (self.b_mask if stack == self.b else 0)
            for layer in (0, 1):
                if not mask & _BITS[layer]:
                    yield self._pos(stack, layer)

    def _tail_iter(self) -> Iterator[str]:
        """Undrawn positions in replacement order (the stack just counter-clockwise of k first)."""
        layers = self.plan.tail_layers
        for stack in range(self.b, self.a - 1, -1):
            mask = self.b_mask if stack == self.b else (self.a_mask if stack == self.a else 0)
            for layer in layers:
                if not mask & _BITS[layer]:
                    yield self._pos(stack, layer)

    def live_order(self) -> tuple[str, ...]:
        """Every live tile still to be drawn, in draw order, if no replacement came first."""
        it = self._front_iter()
        return tuple(next(it) for _ in range(self.live_left))

    def dead(self) -> tuple[str, ...]:
        """The tiles kept back from live draws (reserve, riichi's dead wall) in wall order."""
        return tuple(self._front_iter())[self.live_left:]

    def tail_order(self) -> tuple[str, ...]:
        """Replacement tiles in the order they would be taken (limited by max_replacements)."""
        order = tuple(self._tail_iter())
        left = self.replacements_left
        return order if left is None else order[:left]

    @property
    def next_draw(self) -> str | None:
        return None if self.exhausted else self._front_nth(0)

    @property
    def next_replacement(self) -> str | None:
        if self.remaining == 0 or self.replacements_left == 0:
            return None
        return next(self._tail_iter())

    @property
    def last_live(self) -> str | None:
        """Where the 海底 is now: it moves as replacement tiles are taken from the tail."""
        if self.exhausted:
            return None
        return self._front_nth(self.live_left - 1)

    def _front_nth(self, index: int) -> str:
        """The `index`-th standing tile in live draw order, in constant time."""
        a, b = self.a, self.b
        first = [layer for layer in (0, 1) if not self.a_mask & _BITS[layer]]
        if index < len(first):
            return self._pos(a, first[index])
        index -= len(first)
        middle = 2 * max(0, b - a - 1)
        if index < middle:
            return self._pos(a + 1 + index // 2, index % 2)
        index -= middle
        last = [layer for layer in (0, 1) if not self.b_mask & _BITS[layer]] if b > a else []
        if index < len(last):
            return self._pos(b, last[index])
        raise IndexError("fewer tiles standing than asked for")

    def hand_end_tiles(self, count: int | None = None) -> tuple[str, ...]:
        """Tiles read when the hand ends (买马 horses, 钓鱼), taken from the tail.

        `count` defaults to the ruleset's; fewer come back when fewer stand.
        """
        rule = self.plan.ruleset.hand_end
        if count is None:
            if rule is None:
                raise WallError(f"{self.plan.ruleset.id} reads no tiles at the end of a hand",
                                code="no_hand_end")
            count = rule.tiles
        out: list[str] = []
        for pos in self._tail_iter():
            if len(out) == count:
                break
            out.append(pos)
        return tuple(out)

    def indicator_positions(self) -> dict[str, tuple[str, ...]]:
        """Turned-up indicator positions by name; riichi adds one 杠宝牌 per replacement draw."""
        out: dict[str, tuple[str, ...]] = {}
        for rule in self.plan.ruleset.indicators:
            base = self.plan.indicators[rule.name]
            extra: tuple[str, ...] = ()
            if rule.kan_step and rule.source == "tail":
                extra = tuple(self.plan.tail_position(rule.stack + i * rule.kan_step, rule.layer)
                              for i in range(1, self.tail_drawn + 1))
            out[rule.name] = (base,) + extra
        return out

    # --- drawing ----------------------------------------------------------------------------

    def draw(self) -> tuple[str, WallState]:
        """The next live tile and the wall after it. WallError(code wall_exhausted) at 荒牌."""
        if self.exhausted:
            raise WallError(f"荒牌: no live tile left ({self.remaining} standing, reserve "
                            f"{self.plan.ruleset.reserve})", code="wall_exhausted")
        return self._take_front(count=True)

    def _take_front(self, count: bool) -> tuple[str, WallState]:
        a, am, b, bm = self.a, self.a_mask, self.b, self.b_mask
        layer = 0 if not am & 1 else 1
        pos = self._pos(a, layer)
        am |= _BITS[layer]
        if a == b:
            bm = am
        if am == 3:
            a += 1
            am = bm if a == b else 0
        return pos, WallState(self.plan, a, am, b, bm, self.live_drawn + (1 if count else 0), self.tail_drawn)

    def replace(self) -> tuple[str, WallState]:
        """The next replacement tile (补花, 杠后补) from the tail and the wall after it."""
        if self.remaining == 0:
            raise WallError("no tile left for a replacement draw", code="tail_exhausted")
        if self.replacements_left == 0:
            raise WallError(f"{self.plan.ruleset.id} allows {self.plan.ruleset.max_replacements} "
                            "replacement draws per hand, all taken", code="replacements_spent")
        return self._take_tail(count=True)

    def _take_tail(self, count: bool) -> tuple[str, WallState]:
        a, am, b, bm = self.a, self.a_mask, self.b, self.b_mask
        first, second = self.plan.tail_layers
        layer = first if not bm & _BITS[first] else second
        pos = self._pos(b, layer)
        bm |= _BITS[layer]
        if a == b:
            am = bm
        if bm == 3:
            b -= 1
            bm = am if a == b else 0
        return pos, WallState(self.plan, a, am, b, bm, self.live_drawn, self.tail_drawn + (1 if count else 0))

    def render_text(self) -> str:
        """The text picture of the walls as they stand now (referees' logs, `tablectl`)."""
        from .render import render_plan

        return render_plan(self.plan, self)

    def to_json(self) -> dict[str, Any]:
        """What the referee display needs during play, on top of `plan.to_json()`."""
        return {
            "live_drawn": self.live_drawn,
            "tail_drawn": self.tail_drawn,
            "remaining": self.remaining,
            "live_left": self.live_left,
            "next_draw": self.next_draw,
            "next_replacement": self.next_replacement,
            "last_live": self.last_live,
            "is_last": self.is_last,
            "exhausted": self.exhausted,
            "in_last_zone": self.in_last_zone,
            "replacements_left": self.replacements_left,
            "indicators": {k: list(v) for k, v in self.indicator_positions().items()},
        }

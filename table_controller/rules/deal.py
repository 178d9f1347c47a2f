"""开门 and 抓牌: from a ruleset and the dice to every seat's opening positions (`deal_plan`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from typing import Any, Mapping, Sequence

from .dice import BreakPoint, Throw, break_point, check_throws, throwers
from .errors import DealError, WallError
from .geometry import SEATS, Ring, Seat, position_name, stack_name
from .ruleset import Ruleset
from .wall_state import WallState

WallLengths = Mapping[str, int] | Sequence[int]


def check_wall_lengths(rs: Ruleset, wall_lengths: WallLengths | None) -> tuple[int, int, int, int]:
    """Lengths in seat order E,S,W,N, as the table reported them; DealError if they cannot hold
    the ruleset's tiles (walls.md: "the engine takes them from the table, not from a constant")."""
    if wall_lengths is None:
        return rs.wall_lengths
    if isinstance(wall_lengths, Mapping):
        if set(wall_lengths) != set(SEATS):
            raise DealError(f"wall lengths must name E, S, W, N, not {sorted(wall_lengths)}",
                            code="wall_lengths")
        values = tuple(wall_lengths[s] for s in SEATS)
    else:
        values = tuple(wall_lengths)
        if len(values) != 4:
            raise DealError(f"wall lengths are four numbers (E,S,W,N), got {len(values)}: {values}",
                            code="wall_lengths")
    for v in values:
        if isinstance(v, bool) or not isinstance(v, int) or v < 1:
            raise DealError(f"a wall is a whole number of stacks, at least 1; got {v!r} in {values}",
                            code="wall_lengths")
    if 2 * sum(values) != rs.tiles:
        raise DealError(f"wall lengths {','.join(map(str, values))} hold {2 * sum(values)} tiles, "
                        f"but {rs.id} plays {rs.tiles} ({rs.tiles // 2} stacks in all)", code="wall_lengths")
    return values  # type: ignore[return-value]


@dataclass(frozen=True, repr=False)
class DealPlan:
    """Everything the dice decide before the first discard, as positions (`W07t`).

    `order` lists every position clockwise from the first dealt stack k (top, bottom, next
    stack...); all other fields are views of it.
    """

    ruleset: Ruleset
    dice: Throw
    dice2: Throw | None
    throwers: tuple[Seat, ...]
    ring: Ring
    brk: BreakPoint
    break_stack: int  # ring index of the stack the count ended on
    first_stack: int  # ring index of k
    order: tuple[str, ...] = field(repr=False)
    grabs: tuple[tuple[Seat, tuple[str, ...]], ...] = field(repr=False)
    indicators: Mapping[str, str] = field(hash=False, compare=False)
    set_aside: tuple[str, ...] = ()

    def __repr__(self) -> str:
        second = f", dice2={self.dice2}" if self.dice2 is not None else ""
        return f"DealPlan({self.ruleset.id}, dice={self.dice}{second}, first_dealt={self.first_dealt})"

    @property
    def wall_lengths(self) -> dict[Seat, int]:
        return dict(zip(SEATS, self.ring.lengths))

    @property
    def first_dealt(self) -> str:
        return self.order[0]

    @property
    def tail_layers(self) -> tuple[int, int]:
        return (0, 1) if self.ruleset.replacement_order == "top_first" else (1, 0)

    @cached_property
    def hands(self) -> dict[Seat, tuple[str, ...]]:
        """Each seat's opening positions in the order taken."""
        out: dict[Seat, list[str]] = {seat: [] for seat in SEATS}
        for seat, positions in self.grabs:
            out[seat].extend(positions)
        return {seat: tuple(v) for seat, v in out.items()}

    def tail_position(self, stack: int, layer: str) -> str:
        """Position of `layer` of the `stack`-th stack counted from the break into the tail."""
        total = self.ring.total
        offset = (total - stack) % total
        return self.order[2 * offset + (0 if layer == "t" else 1)]

    def initial_state(self) -> WallState:
        """The wall after the deal (and set-aside indicators), before any draw."""
        return _initial_state(self)

    def state_after(self, live_drawn: int = 0, tail_drawn: int = 0) -> WallState:
        """The wall after that many live and replacement draws, in any order.

        Each end only ever takes from its own side, so the counts alone fix the wall: the
        controller can store two numbers and rebuild the state after a restart.
        WallError when the counts are more than the wall can give.
        """
        state = self._initial
        limit = self.ruleset.max_replacements
        if live_drawn < 0 or tail_drawn < 0 or live_drawn > state.live_left or \
                live_drawn + tail_drawn > state.remaining or (limit is not None and tail_drawn > limit):
            raise WallError(f"{live_drawn} live and {tail_drawn} replacement draws are more than this wall "
                            f"gives ({state.live_left} live, {state.remaining} standing, replacements "
                            f"{'unlimited' if limit is None else limit})", code="wall_exhausted")
        # The reserve check depends on the order of draws, the tiles taken do not: take them unchecked.
        # A hand asks after each play for one draw more than before: start from that state when known.
        known = self._after.get((live_drawn - 1, tail_drawn)) if live_drawn else None
        if known is not None:
            _, state = known._take_front(count=True)
        else:
            for _ in range(tail_drawn):
                _, state = state._take_tail(count=True)
            for _ in range(live_drawn):
                _, state = state._take_front(count=True)
        if len(self._after) < 1024:
            self._after[(live_drawn, tail_drawn)] = state
        return state

    @cached_property
    def _initial(self) -> WallState:
        return _initial_state(self)

    @cached_property
    def _after(self) -> dict[tuple[int, int], WallState]:
        """States already worked out by `state_after` (immutable, so shared)."""
        return {}

    @property
    def live(self) -> tuple[str, ...]:
        return self._initial.live_order()

    @property
    def tail(self) -> tuple[str, ...]:
        return self._initial.tail_order()

    @property
    def last_live(self) -> str | None:
        return self._initial.last_live

    @property
    def dead(self) -> tuple[str, ...]:
        return self._initial.dead()

    def to_json(self) -> dict[str, Any]:
        """The object `tablectl deal --json` prints and the referee display draws."""
        rs = self.ruleset
        wall, number = self.ring.stack_at(self.break_stack)
        state = self._initial
        throws: list[dict[str, Any]] = [{"seat": self.throwers[0], "dice": list(self.dice), "total": sum(self.dice)}]
        if self.dice2 is not None:
            throws.append({"seat": self.throwers[1], "dice": list(self.dice2), "total": sum(self.dice2)})
        hand_end = None
        if rs.hand_end is not None:
            hand_end = {"kind": rs.hand_end.kind, "name_zh": rs.hand_end.name_zh,
                        "tiles": rs.hand_end.tiles, "counts_from": rs.hand_end.counts_from,
                        "positions": list(state.hand_end_tiles())}
        return {
            "ruleset": rs.id,
            "name_zh": rs.name_zh,
            "name_en": rs.name_en,
            "tiles": rs.tiles,
            "wall_lengths": self.wall_lengths,
            "dice": list(self.dice),
            "dice2": list(self.dice2) if self.dice2 is not None else None,
            "throws": throws,
            "break": {
                "wall": self.brk.wall,
                "count": self.brk.count,
                "mode": self.brk.mode,
                "stack": stack_name(wall, number),
            },
            "ring": list(self.ring.names()),
            "first_dealt": self.first_dealt,
            "hands": {seat: list(v) for seat, v in self.hands.items()},
            "hand_sizes": {seat: len(v) for seat, v in self.hands.items()},
            "deal_order": [{"seat": seat, "positions": list(p)} for seat, p in self.grabs],
            "first_live": state.next_draw,
            "live": list(self.live),
            "tail": list(self.tail),
            "last_live": self.last_live,
            "dead": list(self.dead),
            "reserve": rs.reserve,
            "last_zone": [] if not rs.last_zone else list(self.live[-rs.last_zone:]),
            "max_replacements": rs.max_replacements,
            "indicators": dict(self.indicators),
            "indicator_names_zh": {r.name: r.name_zh for r in rs.indicators},
            "set_aside": list(self.set_aside),
            "hand_end": hand_end,
        }

    def render_text(self) -> str:
        """The four walls as a text picture (break, dealt stacks, next draw, tail)."""
        from .render import render_plan

        return render_plan(self)


def deal_plan(rs: Ruleset, dice: Sequence[int] | None, dice2: Sequence[int] | None = None,
              wall_lengths: WallLengths | None = None) -> DealPlan:
    """The deal the dice make for `rs` (walls.md). DealError names any wrong input."""
    first, second = check_throws(rs, dice, dice2)
    lengths = check_wall_lengths(rs, wall_lengths)
    ring = Ring(lengths)
    brk = break_point(rs, first, second)
    start = ring.wall_start(brk.wall)
    total = ring.total
    break_stack = (start + brk.count - 1) % total
    # leave: the n counted stacks stay as the tail, k = n+1; start_at: k = n itself.
    first_stack = (break_stack + (1 if brk.mode == "leave" else 0)) % total
    ring_positions = _ring_positions(lengths)
    order = ring_positions[2 * first_stack:] + ring_positions[:2 * first_stack]
    grabs = tuple((seat, tuple(order[o] for o in offsets)) for seat, offsets in rs.deal.grabs())
    plan = DealPlan(ruleset=rs, dice=first, dice2=second, throwers=throwers(rs, first), ring=ring,
                    brk=brk, break_stack=break_stack, first_stack=first_stack, order=order,
                    grabs=grabs, indicators={})
    indicators: dict[str, str] = {}
    set_aside: list[str] = []
    dealt = rs.deal.dealt_tiles
    for rule in rs.indicators:
        if rule.source == "tail":
            pos = plan.tail_position(rule.stack, rule.layer)
        else:
            pos = order[dealt + rule.tile - 1]
        indicators[rule.name] = pos
        if rule.set_aside:
            set_aside.append(pos)
    object.__setattr__(plan, "indicators", indicators)
    object.__setattr__(plan, "set_aside", tuple(set_aside))
    return plan


@lru_cache(maxsize=64)
def _ring_positions(lengths: tuple[int, int, int, int]) -> tuple[str, ...]:
    """Every position in ring order from E01t (cached: tables report few distinct lengths)."""
    ring = Ring(lengths)
    out: list[str] = []
    for i in range(ring.total):
        wall, number = ring.stack_at(i)
        out += [position_name(wall, number, "t"), position_name(wall, number, "b")]
    return tuple(out)


def _initial_state(plan: DealPlan) -> WallState:
    dealt = plan.ruleset.deal.dealt_tiles
    state = WallState(plan=plan, a=dealt // 2, a_mask=1 if dealt % 2 else 0,
                      b=plan.ring.total - 1, b_mask=0)
    # Set-aside indicators are checked by the loader to be the very next front or tail tile.
    for rule in plan.ruleset.indicators:
        if rule.set_aside:
            pos, state = state._take_front(False) if rule.source == "live" else state._take_tail(False)
            assert pos == plan.indicators[rule.name], (pos, plan.indicators)
    return state

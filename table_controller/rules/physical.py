"""Ground truth for the simulator: a physical wall (kind at each position) and what it deals."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Iterator, Mapping

from .deal import DealPlan, WallLengths, check_wall_lengths
from .errors import DealError, WallError
from .geometry import RING_ORDER, SEATS, Ring, Seat, position_name
from .ruleset import Ruleset
from .wall_state import WallState

PhysicalWall = Mapping[str, str]


def tile_set(rs: Ruleset) -> list[str]:
    """Every tile of the ruleset's set with multiplicity (144 with flowers, 136, 108, shiwan's
    136 of 1–10 in each suit and 16 winds)."""
    return rs.tile_spec.tiles()


def all_positions(wall_lengths: tuple[int, int, int, int]) -> list[str]:
    """Every position of the four walls, clockwise from E01t."""
    ring = Ring(wall_lengths)
    out = []
    for wall in RING_ORDER:
        for number in range(1, ring.length(wall) + 1):
            out += [position_name(wall, number, "t"), position_name(wall, number, "b")]
    return out


def physical_wall(rs: Ruleset, wall_lengths: WallLengths | None = None,
                  rng: random.Random | int | None = None) -> dict[str, str]:
    """A shuffled wall built the way the table builds it: position → kind.

    `rng` is a `random.Random` or a seed, so the simulator replays the same wall.
    """
    lengths = check_wall_lengths(rs, wall_lengths)
    generator = rng if isinstance(rng, random.Random) else random.Random(rng)
    tiles = tile_set(rs)
    generator.shuffle(tiles)
    return dict(zip(all_positions(lengths), tiles))


def check_wall(plan: DealPlan, wall: PhysicalWall) -> None:
    """DealError unless `wall` has a known kind at exactly the plan's positions."""
    expected = set(plan.order)
    missing = expected - set(wall)
    extra = set(wall) - expected
    if missing or extra:
        raise DealError(f"the physical wall does not match the walls of the plan: missing "
                        f"{sorted(missing)[:5]}, extra {sorted(extra)[:5]}", code="wall_mismatch")
    counts: dict[str, int] = {}
    for kind in wall.values():
        counts[kind] = counts.get(kind, 0) + 1
    reference: dict[str, int] = {}
    for kind in tile_set(plan.ruleset):
        reference[kind] = reference.get(kind, 0) + 1
    if counts != reference:
        diff = sorted(k for k in set(counts) | set(reference) if counts.get(k) != reference.get(k))
        raise DealError(f"the physical wall is not a {plan.ruleset.id} tile set; kinds off: {diff[:8]}",
                        code="wall_mismatch")


@dataclass(frozen=True)
class Opening:
    """The opening hands as the simulator must produce them.

    `dealt`: kinds in the order taken (same order as `plan.hands`). `hands`: after 补花, flowers
    removed and replacements added. `replacements`: (seat, position, kind) in the order taken.
    `laid`: (seat, flower) in the order the flowers are laid out, round by round (walls.md), for
    whoever replays the opening one flower at a time (the simulated players, the hand machine).
    `state`: the wall after the deal and 补花, ready for the first discard.
    """

    dealt: dict[Seat, tuple[str, ...]]
    hands: dict[Seat, tuple[str, ...]]
    flowers: dict[Seat, tuple[str, ...]]
    replacements: tuple[tuple[Seat, str, str], ...]
    state: WallState
    indicator_kinds: dict[str, str]
    laid: tuple[tuple[Seat, str], ...] = ()


def open_hands(plan: DealPlan, wall: PhysicalWall) -> Opening:
    """Deal `wall` by `plan` and replace flowers: dealer first, then S, W, N; a replacement that
    is again a flower waits until that round of replacements is over (walls.md, seed 003)."""
    check_wall(plan, wall)
    spec = plan.ruleset.tile_spec
    dealt = {seat: tuple(wall[p] for p in plan.hands[seat]) for seat in SEATS}
    hands = {seat: list(kinds) for seat, kinds in dealt.items()}
    flowers: dict[Seat, list[str]] = {seat: [] for seat in SEATS}
    replacements: list[tuple[Seat, str, str]] = []
    laid: list[tuple[Seat, str]] = []
    state = plan.initial_state()
    while True:
        to_replace = {seat: [k for k in hands[seat] if spec.is_bonus(k)] for seat in SEATS}
        if not any(to_replace.values()):
            break
        for seat in SEATS:
            for kind in to_replace[seat]:
                hands[seat].remove(kind)
                flowers[seat].append(kind)
                laid.append((seat, kind))
            for _ in to_replace[seat]:
                try:
                    pos, state = state.replace()
                except WallError as exc:
                    raise WallError(f"补花 for {seat} found no replacement tile: {exc}", code=exc.code) from exc
                replacements.append((seat, pos, wall[pos]))
                hands[seat].append(wall[pos])
    return Opening(
        dealt=dealt,
        hands={seat: tuple(v) for seat, v in hands.items()},
        flowers={seat: tuple(v) for seat, v in flowers.items()},
        replacements=tuple(replacements),
        state=state,
        indicator_kinds={name: wall[pos] for name, pos in plan.indicators.items()},
        laid=tuple(laid),
    )


def live_draws(state: WallState, wall: PhysicalWall) -> Iterator[tuple[str, str]]:
    """Every later live draw (position, kind) in order, until 荒牌, if no replacement intervenes."""
    while not state.exhausted:
        pos, state = state.draw()
        yield pos, wall[pos]


def replacement_draws(state: WallState, wall: PhysicalWall) -> Iterator[tuple[str, str]]:
    """Every later replacement draw (position, kind) in order, if no live draw intervenes."""
    while state.next_replacement is not None:
        pos, state = state.replace()
        yield pos, wall[pos]

"""Ground truth for the simulator: tile sets, seeded physical walls, opening hands with 补花."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from table_controller.rules import (
    SEATS,
    DealError,
    all_positions,
    deal_plan,
    live_draws,
    load_ruleset,
    open_hands,
    physical_wall,
    replacement_draws,
    ruleset_ids,
    tile_set,
)


@pytest.mark.parametrize("rid, total, kinds", [
    ("mcr", 144, 42),       # seed 000 范文五: 6类42种图案，144张
    ("tuidaohu", 136, 34),  # seed 001: 136 张
    ("sichuan", 108, 27),   # seed 000 范文三: 只剩筒，条，万，三色牌一共108张
    ("shiwan", 136, 34),    # seed 000 范文四: 4类34种图案，136张 (1–10 ×3 suits + 4 winds)
])
def test_tile_sets(rid: str, total: int, kinds: int) -> None:
    tiles = tile_set(load_ruleset(rid))
    counts = Counter(tiles)
    assert len(tiles) == total and len(counts) == kinds
    assert all(n == (1 if k.endswith("f") else 4) for k, n in counts.items())


def test_shiwan_has_tens_and_no_dragons() -> None:
    counts = Counter(tile_set(load_ruleset("shiwan")))
    assert counts["10m"] == counts["10p"] == counts["10s"] == 4
    assert not {"5z", "6z", "7z"} & set(counts) and counts["4z"] == 4


def test_physical_wall_is_seeded_and_complete() -> None:
    rs = load_ruleset("sichuan")
    a = physical_wall(rs, None, 7)
    b = physical_wall(rs, None, random.Random(7))
    c = physical_wall(rs, None, 8)
    assert a == b and a != c
    assert sorted(a) == sorted(all_positions(rs.wall_lengths))
    assert Counter(a.values()) == Counter(tile_set(rs))
    assert physical_wall(rs, (13, 14, 13, 14), 1).keys() == set(all_positions((13, 14, 13, 14)))
    with pytest.raises(DealError):
        physical_wall(rs, (13, 13, 13, 13), 1)


def _wall_with(rs_id: str, placed: dict[str, str], lengths=None) -> dict[str, str]:
    """A full wall: `placed` kinds where given, the rest of the set (no flowers first) elsewhere."""
    rs = load_ruleset(rs_id)
    pool = Counter(tile_set(rs))
    pool.subtract(Counter(placed.values()))
    rest = sorted(pool.elements(), key=lambda k: (k.endswith("f"), k))
    positions = all_positions(lengths or rs.wall_lengths)
    free = [p for p in positions if p not in placed]
    # flowers left over go to the positions dealt last-of-all (the far end of the live wall)
    wall = dict(placed)
    plan = deal_plan(rs, (3, 4), (2, 5)) if rs.throws == 2 else deal_plan(rs, (3, 4))
    late = [p for p in plan.live[::-1] if p not in placed]
    flowers = [k for k in rest if k.endswith("f")]
    others = [k for k in rest if not k.endswith("f")]
    for pos, kind in zip(late, flowers):
        wall[pos] = kind
    for pos, kind in zip([p for p in free if p not in wall], others):
        wall[pos] = kind
    return wall


def test_opening_flower_replacement_order() -> None:
    # walls.md: "Flowers in the opening hands are replaced dealer first, then S, W, N; a replacement
    # that is again a flower waits until that round of replacements is over" (seed 003 补花).
    # mcr 3+4 / 2+5: k = W15; E's first tile W15t, S's first tile W17t; tail W14t, W14b, W13t.
    wall = _wall_with("mcr", {"W15t": "1f", "W17t": "2f", "W14t": "3f", "W14b": "1m", "W13t": "5m"})
    plan = deal_plan(load_ruleset("mcr"), (3, 4), (2, 5))
    opening = open_hands(plan, wall)
    assert opening.dealt["E"][0] == "1f" and opening.dealt["S"][0] == "2f"
    assert opening.replacements == (("E", "W14t", "3f"), ("S", "W14b", "1m"), ("E", "W13t", "5m"))
    assert opening.flowers == {"E": ("1f", "3f"), "S": ("2f",), "W": (), "N": ()}
    assert opening.laid == (("E", "1f"), ("S", "2f"), ("E", "3f"))  # E's replacement waits for S's round
    assert {s: len(h) for s, h in opening.hands.items()} == {"E": 14, "S": 13, "W": 13, "N": 13}
    assert not any(k.endswith("f") for h in opening.hands.values() for k in h)
    assert opening.state.tail_drawn == 3 and opening.state.next_replacement == "W13b"
    # later draws: the live wall from the bottom of k+26 (E05b), exactly the plan's live order
    draws = list(live_draws(opening.state, wall))
    assert draws[0] == ("E05b", wall["E05b"])
    assert [p for p, _ in draws] == [p for p in plan.live if p not in ("W14t", "W14b", "W13t")]
    reps = list(replacement_draws(opening.state, wall))
    assert reps[0] == ("W13b", wall["W13b"])


def test_nanjing_dragons_are_replaced_like_flowers() -> None:
    # seed 003 喃京麻将: "南京麻将包括20张花牌，即把箭牌也算入花牌中" — a dragon in the hand is set aside.
    rs = load_ruleset("nanjing")
    plan = deal_plan(rs, (1, 5), (5, 6))  # k = S12
    first_e = plan.hands["E"][0]
    wall = physical_wall(rs, None, 3)
    # swap a red dragon into E's first tile
    red = next(p for p, k in wall.items() if k == "7z")
    wall[red], wall[first_e] = wall[first_e], wall[red]
    opening = open_hands(plan, wall)
    assert "7z" in opening.flowers["E"]
    assert all(not rs.tile_spec.is_bonus(k) for h in opening.hands.values() for k in h)


@pytest.mark.parametrize("rid", ruleset_ids())
def test_ground_truth_any_seed(rid: str) -> None:
    """For every ruleset: opening hands keep their sizes and every tile is accounted for once."""
    rs = load_ruleset(rid)
    rng = random.Random(rid)
    for _ in range(5):
        dice = tuple(rng.randint(1, 6) for _ in range(rs.dice_count))
        dice2 = (rng.randint(1, 6), rng.randint(1, 6)) if rs.throws == 2 else None
        plan = deal_plan(rs, dice, dice2)
        wall = physical_wall(rs, None, rng)
        opening = open_hands(plan, wall)
        for seat in SEATS:
            assert len(opening.hands[seat]) == len(plan.hands[seat])
        assert opening.indicator_kinds == {n: wall[p] for n, p in plan.indicators.items()}
        used = ([k for h in opening.hands.values() for k in h] + [k for f in opening.flowers.values() for k in f]
                + [k for _, k in live_draws(opening.state, wall)]
                + [wall[p] for p in opening.state.dead()] + [wall[p] for p in plan.set_aside])
        assert Counter(used) == Counter(tile_set(rs))


def test_wall_that_does_not_match_is_refused() -> None:
    rs = load_ruleset("jingji")
    plan = deal_plan(rs, (3, 4))
    wall = physical_wall(rs, None, 1)
    wall.pop("E01t")
    with pytest.raises(DealError, match="missing"):
        open_hands(plan, wall)
    wall = physical_wall(rs, None, 1)
    wall["E01t"] = "10m"
    with pytest.raises(DealError, match="not a jingji tile set"):
        open_hands(plan, wall)

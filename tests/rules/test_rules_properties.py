"""Properties over every ruleset and every possible throw (issue 2 "Shown by").

The dice space is small, so the structural properties run over *every* throw exhaustively;
hypothesis explores what is too large to enumerate: wall lengths a table might report and
every interleaving of live and replacement draws.
"""

from __future__ import annotations

import itertools
from functools import lru_cache

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from table_controller.rules import (
    SEATS,
    DealPlan,
    Ruleset,
    WallError,
    all_positions,
    count_seat,
    deal_plan,
    load_ruleset,
    ruleset_ids,
)

IDS = ruleset_ids()
GLOSSARY_IDS = ("mcr", "jingji", "shiwan", "nanjing", "hefei", "guangdong", "tuidaohu", "hainan", "sichuan",
                "xueliu", "riichi", "taiwan", "fujian", "wuhan", "shanghai", "nanning")


@lru_cache(maxsize=None)
def rs_of(rid: str) -> Ruleset:
    return load_ruleset(rid)


def all_throws(rs: Ruleset) -> list[tuple[tuple[int, ...], tuple[int, ...] | None]]:
    faces = list(itertools.product(range(1, 7), repeat=rs.dice_count))
    if rs.throws == 2:
        return [(a, b) for a in faces for b in faces]
    return [(a, None) for a in faces]


def check_plan(plan: DealPlan) -> None:
    """Invariants every deal must satisfy (walls.md "Dealing from the break")."""
    rs = plan.ruleset
    hands = [p for seat in SEATS for p in plan.hands[seat]]
    everything = hands + list(plan.live) + list(plan.dead) + list(plan.set_aside)
    # Each position used once, and hands + live + dead wall (+ turned-up indicator) = the tile count.
    assert len(everything) == len(set(everything)) == rs.tiles
    assert set(everything) == set(all_positions(plan.ring.lengths))
    sizes = {seat: len(plan.hands[seat]) for seat in SEATS}
    big = 16 if rs.id == "taiwan" else 13
    assert sizes == {"E": big + 1, "S": big, "W": big, "N": big}
    assert plan.first_dealt == plan.hands["E"][0]
    assert plan.last_live == (plan.live[-1] if plan.live else None)
    assert len(plan.dead) == rs.reserve
    # The tail and the live order never cross: i live draws and j replacements are disjoint while
    # i + j < the tiles standing (they can only meet in the very last tile).
    standing = len(plan.live) + len(plan.dead)
    live, tail = plan.live, plan.tail
    for j in range(0, len(tail) + 1, 7):
        i = min(len(live), standing - j - 1)
        if i >= 0:
            assert not set(live[:i]) & set(tail[:j])
    # The break lands where walls.md says: leave n → first dealt is stack n+1 of the chosen wall;
    # start_at n → stack n (when the count stays inside that wall).
    length = plan.ring.length(plan.brk.wall)
    n = plan.brk.count
    if plan.brk.mode == "leave" and n < length:
        assert plan.first_dealt == f"{plan.brk.wall}{n + 1:02d}t"
    if plan.brk.mode == "start_at" and n <= length:
        assert plan.first_dealt == f"{plan.brk.wall}{n:02d}t"
    # The first tail tile is the stack just counter-clockwise of k (unless set aside as an indicator).
    if not plan.set_aside or rs.indicators[0].source == "live":
        assert tail[0] == (plan.order[-2] if rs.replacement_order == "top_first" else plan.order[-1])


def test_every_glossary_ruleset_has_a_file() -> None:
    assert set(GLOSSARY_IDS) <= set(IDS)
    assert "jipinghu" in IDS


@pytest.mark.parametrize("rid", IDS)
def test_every_throw_of_every_ruleset(rid: str) -> None:
    rs = rs_of(rid)
    throws = all_throws(rs)
    assert len(throws) in (36, 216, 1296)
    for dice, dice2 in throws:
        plan = deal_plan(rs, dice, dice2)
        check_plan(plan)
        if rs.throws == 2:
            # the second throw is by the seat the first total counts to (seed 000 范文六 二.2)
            assert plan.throwers == ("E", count_seat(sum(dice)))
            assert plan.brk.wall == plan.throwers[1]


@st.composite
def plans(draw: st.DrawFn) -> DealPlan:
    """A ruleset, a legal throw and wall lengths a table could report (any split of the stacks)."""
    rs = rs_of(draw(st.sampled_from(IDS)))
    dice = tuple(draw(st.lists(st.integers(1, 6), min_size=rs.dice_count, max_size=rs.dice_count)))
    dice2 = tuple(draw(st.lists(st.integers(1, 6), min_size=2, max_size=2))) if rs.throws == 2 else None
    stacks = rs.tiles // 2
    if draw(st.booleans()):
        lengths = None
    else:
        cuts = sorted(draw(st.lists(st.integers(1, stacks - 1), min_size=3, max_size=3, unique=True)))
        lengths = (cuts[0], cuts[1] - cuts[0], cuts[2] - cuts[1], stacks - cuts[2])
    return deal_plan(rs, dice, dice2, lengths)


FAST = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@FAST
@given(plans())
def test_any_wall_lengths_keep_the_invariants(plan: DealPlan) -> None:
    check_plan(plan)


@FAST
@given(plans(), st.lists(st.booleans(), max_size=200))
def test_draws_and_replacements_never_give_a_tile_twice(plan: DealPlan, ops: list[bool]) -> None:
    """Any interleaving of live draws (True) and replacement draws (False)."""
    rs = plan.ruleset
    state = plan.initial_state()
    seen: set[str] = set(p for h in plan.hands.values() for p in h) | set(plan.set_aside)
    for op in ops:
        before = state
        try:
            pos, state = state.draw() if op else state.replace()
        except WallError as exc:
            if op:
                assert exc.code == "wall_exhausted" and before.exhausted
            else:
                assert exc.code in ("tail_exhausted", "replacements_spent")
            continue
        expected = before.next_draw if op else before.next_replacement
        assert pos == expected
        assert pos not in seen
        seen.add(pos)
        assert state.remaining == before.remaining - 1
        if op and before.is_last:
            assert state.exhausted and pos == before.last_live
    # the counts alone rebuild the wall, whatever the interleaving (docs/rules.md state_after)
    rebuilt = plan.state_after(state.live_drawn, state.tail_drawn)
    assert (rebuilt.a, rebuilt.a_mask, rebuilt.b, rebuilt.b_mask) == (state.a, state.a_mask, state.b, state.b_mask)
    assert rebuilt.to_json() == state.to_json()
    # the reserve is never drawn live
    assert state.remaining >= 0
    if state.exhausted:
        assert state.remaining <= rs.reserve


@FAST
@given(plans())
def test_drawing_everything_uses_each_tile_once(plan: DealPlan) -> None:
    """Live draws to 荒牌, then replacements to the end: every standing tile exactly once."""
    state = plan.initial_state()
    got = []
    while not state.exhausted:
        was_last = state.is_last
        pos, state = state.draw()
        got.append(pos)
    assert got == list(plan.live)
    assert was_last or not got
    while state.next_replacement is not None:
        pos, state = state.replace()
        got.append(pos)
    limit = plan.ruleset.max_replacements
    if limit is None:
        assert sorted(got) == sorted(plan.live + plan.dead)
        assert state.remaining == 0
    with pytest.raises(WallError):
        state.draw()


def _variant(rid: str, **wall: object) -> Ruleset:
    """A ruleset file read with some [wall] keys changed (an option a table might choose)."""
    import tomllib

    from table_controller.rules import parse_ruleset

    rs = rs_of(rid)
    data = tomllib.loads(rs.path.read_text(encoding="utf-8"))
    data["wall"].update(wall)
    return parse_ruleset(data, rid, rs.path)


@FAST
@given(st.sampled_from(["tuidaohu", "sichuan", "riichi", "hainan"]), st.integers(1, 6), st.integers(1, 6),
       st.lists(st.booleans(), max_size=150))
def test_bottom_first_replacement_order(rid: str, d1: int, d2: int, ops: list[bool]) -> None:
    # `replacement_order = "bottom_first"` (docs/rules.md [wall]): the tail takes k-1 bottom, then
    # k-1 top, k-2 bottom, ...; live draws and replacements still never give a tile twice.
    plan = deal_plan(_variant(rid, replacement_order="bottom_first"), (d1, d2))
    assert plan.tail[:2] == (plan.order[-1], plan.order[-2])
    state = plan.initial_state()
    seen = set(p for h in plan.hands.values() for p in h)
    for op in ops + [False] * 200:
        try:
            pos, state = state.draw() if op else state.replace()
        except WallError:
            continue
        assert pos not in seen
        seen.add(pos)
    if plan.ruleset.max_replacements is None:
        assert state.remaining == 0 and len(seen) == plan.ruleset.tiles


def test_set_aside_indicator_must_be_the_first_replacement() -> None:
    # fujian's 百搭 is k-1 top set aside; with bottom-first replacements it would sit mid-tail.
    from table_controller.rules import RulesetError

    with pytest.raises(RulesetError, match=r"\[indicators.baida\] set_aside"):
        _variant("fujian", replacement_order="bottom_first")

"""What must hold of any hand the pure hand machine plays, whatever the rule reading: shared by
`test_invariants.py` (fixed seeds, seconds) and `bench/invariants.py` (many hands, figures).

`Audited` is `test_random_hands.Table` with the plan kept and every event checked:
- every tile somewhere exactly once (wall standing, hands, melds, pool, flowers, tiles won on), the
  positions drawn each drawn once and never dealt, and the kinds 4 each, 1 per flower;
- hand sizes: 13 (16 in a 16-tile deal) + 1 for the seat holding a drawn tile, a kong counting 3;
- the wall: draws in the plan's live order, replacements in its tail order, `last_tile` (海底)
  exactly on the draw that leaves only the reserve standing, 荒牌 exactly then;
- a win the machine takes completes the shape for the scorer (never `not_a_win`), and a win it calls
  诈和 is `not_a_win` there: both ways, the players now and then declaring a hand that does not win;
- every payment sums to zero: the win, the kong, the 荒牌 settlement, the 诈和 (竞技's 罚分 as dead
  points aside, docs/scoring.md).
A violation raises `AssertionError` naming the ruleset, the seed and the event.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

from table_controller import tiles as T
from table_controller.hand import (
    Claim, Deal, Event, FlowRules, HandState, SelfDrawWin, apply, new_hand, ready_json,
)
from table_controller.hand.state import _completes, _eligible, furiten
from table_controller.rules import load_ruleset, physical_wall
from table_controller.scoring import (
    ScoringError, exhaustive_settlement, false_win, kong_payment, score_json, scored_rulesets,
)

from .test_random_hands import Table, _plan

#: The rulesets the hand machine plays: every scored one (`FlowRules.for_ruleset` needs a scored ruleset's
#: `[flow]`), read from the ruleset files: a new ruleset is played without editing a list here.
MACHINE = scored_rulesets()
#: A win the shape allows that the ruleset still refuses to score: a minimum, or a rule of the ruleset.
REFUSED_SHAPES = {"below_minimum", "no_fan", "no_yaku", "chicken_on_discard", "three_suits", "missing_suit_held"}


def full_set(ruleset: str) -> Counter[str]:
    """The ruleset's tiles from its `[tiles]` table: 4 of each kind, 1 of each flower."""
    spec = load_ruleset(ruleset).tile_spec
    kinds = [f"{r}{s}" for s in spec.suits for r in range(1, spec.ranks + 1)]
    kinds += [f"{r}z" for r in range(1, 5)] if spec.winds else []
    kinds += [f"{r}z" for r in range(5, 8)] if spec.dragons else []
    out = Counter({k: spec.copies for k in kinds})
    out.update(f"{r}f" for r in range(1, spec.flowers + 1))
    return out


class Audited(Table):
    """One hand of random players (`Table`), checked after every event."""

    def __init__(self, ruleset: str, seed: int, false_claims: float = 0.05) -> None:  # noqa: D107 - Table's, kept
        self.rng = random.Random(seed)
        self.ruleset, self.seed, self.false_claims = ruleset, seed, false_claims
        rs = load_ruleset(ruleset)
        self.total, self.reserve, self.size = rs.tiles, rs.reserve, rs.hand_sizes["S"]
        throw = [tuple(self.rng.randint(1, 6) for _ in range(rs.dice_count)) for _ in range(2)]
        self.plan = _plan(rs, throw)
        self.wall = physical_wall(rs, rng=seed)
        self.tiles = full_set(ruleset)
        assert Counter(self.wall.values()) == self.tiles, f"{ruleset}: the shuffled wall is not the tile set"
        self.flow = FlowRules.for_ruleset(ruleset)
        self.state: HandState = new_hand(self.flow, self.plan.initial_state())
        self.aside: list[str] = []            # tiles won on that left play (a discard, a robbed kong, 血战/血流)
        self.drawn: list[str] = []             # positions drawn after the deal, live and replacement
        self.live = list(self.plan.live)
        self.tail = list(self.plan.tail)
        self.scores: list[dict[str, Any]] = []
        self.counts: Counter[str] = Counter()  # what was played: the figures of the bench
        self.do(Deal({x: tuple(self.wall[p] for p in self.plan.hands[x]) for x in T.SEATS}))

    # -- playing ---------------------------------------------------------------------------------
    def play_turn(self) -> None:
        """Now and then the seat in turn declares 自摸 on a hand that does not win (诈和)."""
        s = self.state
        st = s.seats[s.turn]
        how = {"kong": "kong_replacement", "flower": "flower_replacement"}.get(s.after, "self_draw")
        if (s.opening is None and self.rng.random() < self.false_claims and s.sealed_for(s.turn) is None
                and not any(T.is_flower(t) for t in st.concealed)
                and not _completes(s, s.turn, st.concealed[-1], how, None)):
            return self.do(SelfDrawWin(s.turn))
        return super().play_turn()

    def answer(self) -> None:
        """Now and then a seat claims a win on a discard its hand does not take (诈和)."""
        s = self.state
        owner, tile = s.pending_kong if s.phase == "rob_kong" else s.last_discard  # type: ignore[misc]
        x = _eligible(s)[0]
        how = "rob_kong" if s.phase == "rob_kong" else "discard"
        if (self.rng.random() < self.false_claims and tile not in s.seats[x].locked and s.sealed_for(x) is None
                and furiten(s, x, owner) is None and not _completes(s, x, tile, how, owner)):
            return self.do(Claim(x, "win"))
        return super().answer()

    # -- checking --------------------------------------------------------------------------------
    def do(self, event: Event) -> None:
        before = self.state
        self.state, notes = apply(before, event)
        where = f"{self.ruleset} seed {self.seed} after {event}"
        self.counts[type(event).__name__] += 1
        self._wall(before, event, notes, where)
        self._wins(before, event, notes, where)
        self._payments(notes, where)
        self._tiles(where)
        self._sizes(where)

    def _wall(self, before: HandState, event: Event, notes: list[dict[str, Any]], where: str) -> None:
        s = self.state
        for n in notes:
            if n["type"] == "draw":
                assert self.live, where
                want = self.live.pop(0)
                assert n["position"] == want, f"{where}: drew {n['position']}, the plan's next live tile is {want}"
                if want in self.tail:
                    self.tail.remove(want)
                assert event.tile == self.wall[want], where  # type: ignore[union-attr]
                self.drawn.append(want)
                standing = self.total - sum(len(p) for p in self.plan.hands.values()) - len(self.drawn) \
                    - len(self.plan.set_aside)
                assert standing == s.wall.remaining, (where, standing, s.wall.remaining)
                assert n["last_tile"] == (standing == self.reserve), f"{where}: 海底 flag {n['last_tile']}, " \
                    f"{standing} tiles standing, reserve {self.reserve}"
                self.counts["海底"] += n["last_tile"]
            elif n["type"] == "replace":
                want = self.tail.pop(0)
                assert n["position"] == want, f"{where}: replaced from {n['position']}, the tail's next is {want}"
                if want in self.live:
                    self.live.remove(want)
                assert event.tile == self.wall[want], where  # type: ignore[union-attr]
                self.drawn.append(want)
            elif n["type"] == "exhaustive_draw":
                self.counts["荒牌"] += 1
        assert len(set(self.drawn)) == len(self.drawn), f"{where}: a position drawn twice"
        assert not set(self.drawn) & {p for x in T.SEATS for p in self.plan.hands[x]}, f"{where}: a dealt tile drawn"
        if s.result == "exhaustive":
            assert s.wall.live_left == 0 or not s.wall.next_replacement, f"{where}: 荒牌 with tiles to draw"

    def _wins(self, before: HandState, event: Event, notes: list[dict[str, Any]], where: str) -> None:
        for n in notes:
            if n["type"] == "win":
                result = score_json(n["hand"], self.ruleset)  # a ScoringError here: the machine's hand is malformed
                assert result["valid"] or result.get("reason") in REFUSED_SHAPES, (where, result)
                self.scores.append(result)
                assert not result["valid"] or sum(result["payments"].values()) == 0, (where, result["payments"])
                self.counts[f"win {n['win']}"] += 1
                self.counts["valid"] += bool(result["valid"])
            elif n["type"] == "false_win":
                self.counts["诈和"] += 1
                seat, tile = n["seat"], n.get("tile")
                if tile is None:  # 自摸 declared: the tile in hand
                    st = before.seats[seat]
                    how = {"kong": "kong_replacement", "flower": "flower_replacement"}.get(before.after, "self_draw")
                    hand = before.hand_json(seat, st.concealed[-1], how)
                else:
                    window = before.pending_kong if before.phase == "rob_kong" else before.last_discard
                    owner = window[0] if window else None
                    how = "rob_kong" if before.phase == "rob_kong" else "discard"
                    hand = before.hand_json(seat, tile, how, owner)
                try:
                    result = score_json(hand, self.ruleset)
                except ScoringError as exc:  # not a hand the scorer can read at all: no win either
                    result = {"valid": False, "reason": exc.code}
                assert not result["valid"], (where, hand, result)  # 四川: a 花猪 is refused as such first
        wins = [n for n in notes if n["type"] == "win"]
        if wins and (wins[0]["win"] in ("discard", "rob_kong") or self.flow.continue_after_win != "end"):
            self.aside.append(wins[0]["tile"])

    def _payments(self, notes: list[dict[str, Any]], where: str) -> None:
        s = self.state
        for n in notes:
            if n["type"] == "kong":  # a kong's payment note (its claim, if claimed, is a `claim` note)
                pay = kong_payment(self.ruleset, n, tuple(s.active()))
                self.counts[f"kong {n['kind']}"] += 1
                assert pay is None or sum(pay.values()) == 0, (where, n, pay)
            elif n["type"] == "false_win":
                try:
                    pay = false_win(self.ruleset, n["seat"], amount=20, fan=1, active=s.active(),
                                    double=bool(n.get("double")))
                except ScoringError as exc:  # the seed states no 诈和 payment: the referee's penalty applies
                    assert exc.code == "no_false_win_rule", (where, exc)
                    continue
                dead = self.ruleset == "jingji"  # 竞技 罚分 may be dead points (seed 004 三十八 6)
                assert dead or sum(pay.values()) == 0, (where, pay)
            elif n["type"] == "exhaustive_draw":
                hands = {x: ready_json(s, x) for x in s.active()}
                settled = exhaustive_settlement(self.ruleset, hands)
                if settled is not None:
                    moved = settled.get("payments", settled)
                    assert sum(int(v) for v in moved.values()) == 0, (where, settled)

    def _tiles(self, where: str) -> None:
        s = self.state
        standing = set(self.plan.order) - {p for x in T.SEATS for p in self.plan.hands[x]} - set(self.drawn)
        assert len(standing) == s.wall.remaining + len(self.plan.set_aside), (where, len(standing), s.wall.remaining)
        everywhere: Counter[str] = Counter(self.wall[p] for p in standing)
        for st in s.seats.values():
            everywhere.update(st.concealed)
            everywhere.update(st.discards)
            everywhere.update(st.flowers)
            for m in st.melds:
                everywhere.update(m["tiles"])
        everywhere.update(self.aside)
        assert everywhere == self.tiles, f"{where}: tiles {dict(everywhere - self.tiles)} too many, " \
            f"{dict(self.tiles - everywhere)} missing"

    def _sizes(self, where: str) -> None:
        s = self.state
        for x in T.SEATS:
            st = s.seats[x]
            if s.phase == "ended" or (st.won and self.flow.continue_after_win == "blood_battle"):
                continue
            want = self.size + (x == s.turn and s.phase in ("choose_missing", "discard", "rob_kong", "replace"))
            want -= s.phase == "replace" and x == (s.replacing or s.turn)  # a flower or a kong awaits its tile
            have = len(st.concealed) + 3 * len(st.melds)
            assert have == want, f"{where}: {x} holds {have} (melds {st.melds}), {want} expected"


def play(ruleset: str, seed: int, steps: int = 3000) -> Audited:
    """One hand played to its end under every check."""
    table = Audited(ruleset, seed)
    for _ in range(steps):
        if table.state.phase == "ended":
            return table
        table.step()
    raise AssertionError(f"{ruleset} seed {seed}: stuck in {table.state.phase}")

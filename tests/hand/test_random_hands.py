"""Whole hands played by greedy random players on a shuffled physical wall, under every scored
ruleset: claims of every kind, kongs of every kind, 抢杠, 补花, several winners, 血战/血流. After every
event the tiles are all accounted for; every win scores; no hand gets stuck or refuses a move the
players were entitled to (this is how the 海底 flower and the kong without a replacement tile were
found)."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest
from mahjong.shanten import Shanten

from table_controller import tiles as T
from table_controller.hand import (
    ChooseMissing, Claim, CloseWindow, Deal, Discard, Draw, Event, Flower, FlowRules, HandState, IllegalAction,
    Kong, Pass, Replace, SelfDrawWin, apply, new_hand,
)
from table_controller.hand.opening import pending
from table_controller.hand.state import _completes, _eligible, furiten, just_chowed
from table_controller.rules import deal_plan, load_ruleset, physical_wall
from table_controller.scoring import score_json, scored_rulesets

SCORED = list(scored_rulesets())  # from the ruleset files: a new scored ruleset is dealt here too
_SHANTEN = Shanten()
_BASE = {"m": 0, "p": 9, "s": 18, "z": 27}


def shanten(tiles: list[str]) -> int:
    counts = [0] * 34
    for t in tiles:
        if t != T.BACK and not T.is_flower(t):
            counts[_BASE[T.suit(t)] + T.rank(t) - 1] += 1
    return int(_SHANTEN.calculate_shanten(counts))


class Table:
    """One hand: the wall's kinds, the state, and the tiles set aside by wins."""

    def __init__(self, ruleset: str, seed: int) -> None:
        self.rng = random.Random(seed)
        self.ruleset = ruleset
        rs = load_ruleset(ruleset)
        self.total = rs.tiles
        throw = [tuple(self.rng.randint(1, 6) for _ in range(rs.dice_count)) for _ in range(2)]
        plan = _plan(rs, throw)
        self.wall = physical_wall(rs, rng=seed)
        self.flow = FlowRules.for_ruleset(ruleset)
        self.state: HandState = new_hand(self.flow, plan.initial_state())
        self.aside = 0  # tiles won on (a discard won by several seats is one tile)
        self.scores: list[dict[str, Any]] = []
        self.do(Deal({x: tuple(self.wall[p] for p in plan.hands[x]) for x in T.SEATS}))

    def do(self, event: Event) -> None:
        self.state, notes = apply(self.state, event)
        wins = [n for n in notes if n["type"] == "win"]
        if wins and (wins[0]["win"] in ("discard", "rob_kong") or self.flow.continue_after_win != "end"):
            self.aside += 1
        for win in wins:
            self.scores.append(score_json(win["hand"], self.ruleset))
        on_table = sum(len(st.concealed) + len(st.discards) + len(st.flowers)
                       + sum(len(m["tiles"]) for m in st.melds) for st in self.state.seats.values())
        assert on_table + self.state.wall.remaining + self.aside == self.total, event

    def step(self) -> None:
        s = self.state
        if s.phase == "choose_missing":
            x = next(x for x in T.SEATS if not s.seats[x].missing_suit)
            held = Counter(T.suit(t) for t in s.seats[x].concealed if T.is_suited(t))
            self.do(ChooseMissing(x, min("mps", key=lambda k: held[k])))
        elif s.phase == "draw":
            self.do(Draw(s.turn, self.wall[s.wall.next_draw]))
        elif s.phase == "replace":
            assert s.wall.next_replacement is not None, "a replacement is owed that the wall cannot give"
            self.do(Replace(s.replacing or s.turn, self.wall[s.wall.next_replacement]))
        elif s.phase == "discard":
            self.play_turn()
        else:
            self.answer()

    def play_turn(self) -> None:
        s, rng = self.state, self.rng
        x = s.turn
        if s.opening is not None and pending(s.opening):  # 补花 round by round, dealer first (walls.md)
            return self.do(Flower(*pending(s.opening)[0]))
        flowers = [t for t in s.seats[x].concealed if T.is_flower(t)] if self.flow.flowers else []
        if flowers:
            return self.do(Flower(x, flowers[0]))
        st = s.seats[x]
        how = {"kong": "kong_replacement", "flower": "flower_replacement"}.get(s.after, "self_draw")
        if s.sealed_for(x) is None and _completes(s, x, st.concealed[-1], how, None):
            return self.do(SelfDrawWin(x))
        held = Counter(st.concealed)
        kongs = [Kong(x, t, "concealed") for t, n in held.items() if n == 4]
        kongs += [Kong(x, m["tiles"][0], "added") for m in st.melds if m["type"] == "pung" and held[m["tiles"][0]]]
        kongs = [k for k in kongs if not _gave_up(st.missing_suit, k.tile)]
        if just_chowed(s, x):  # 国标: no kong between a chow and the seat's next draw
            kongs = []
        if kongs and rng.random() < 0.7:
            try:
                return self.do(rng.choice(kongs))
            except IllegalAction as exc:
                assert exc.code == "no_replacement" and s.wall.next_replacement is None
        gone = [t for t in st.concealed if st.missing_suit and T.is_suited(t) and T.suit(t) == st.missing_suit]
        choices = gone or st.concealed
        if rng.random() < 0.85:  # mostly the discard that keeps the hand nearest to ready
            best = min(shanten(_without(st.concealed, t)) for t in choices)
            choices = [t for t in choices if shanten(_without(st.concealed, t)) == best]
        self.do(Discard(x, rng.choice(choices)))

    def answer(self) -> None:
        s, rng = self.state, self.rng
        owner, tile = s.pending_kong if s.phase == "rob_kong" else s.last_discard  # type: ignore[misc]
        x = _eligible(s)[0]
        st = s.seats[x]
        how = "rob_kong" if s.phase == "rob_kong" else "discard"
        if (tile not in st.locked and s.sealed_for(x) is None and furiten(s, x, owner) is None
                and _completes(s, x, tile, how, owner)):
            return self.do(Claim(x, "win"))
        options: list[Claim] = []
        if s.phase == "claims" and not _gave_up(st.missing_suit, tile):
            if st.holds(tile) >= 3 and s.wall.next_replacement is not None:
                options.append(Claim(x, "kong"))
            if st.holds(tile) >= 2:
                options.append(Claim(x, "pung"))
            if self.flow.chow and x == T.seat_after(owner) and T.is_suited(tile):
                for low in range(max(1, T.rank(tile) - 2), min(7, T.rank(tile)) + 1):
                    run = [f"{r}{T.suit(tile)}" for r in range(low, low + 3)]
                    if all(st.holds(t) for t in run if t != tile):
                        options.append(Claim(x, "chi", tuple(run)))
        if options and rng.random() < 0.5:
            self.do(rng.choice(options))
        elif rng.random() < 0.1:
            self.do(CloseWindow())
        else:
            self.do(Pass(x))


def _gave_up(missing: str | None, tile: str) -> bool:
    """定缺: the seat named this tile's suit, so it neither claims nor kongs it."""
    return bool(missing) and T.is_suited(tile) and T.suit(tile) == missing


def _without(tiles: list[str], tile: str) -> list[str]:
    rest = list(tiles)
    rest.remove(tile)
    return rest


def _plan(rs: Any, throw: list[tuple[int, ...]]) -> Any:
    try:
        return deal_plan(rs, dice=throw[0], dice2=throw[1])
    except Exception:
        return deal_plan(rs, dice=throw[0])


@pytest.mark.parametrize("ruleset", SCORED)
def test_random_hands_keep_every_tile_and_score_every_win(ruleset: str) -> None:
    results: Counter[str] = Counter()
    for seed in range(6):
        table = Table(ruleset, seed)
        for _ in range(1500):
            if table.state.phase == "ended":
                break
            table.step()
        assert table.state.phase == "ended", f"seed {seed}: stuck in {table.state.phase}"
        results[table.state.result or ""] += 1
        assert all(isinstance(score, dict) and "error" not in score for score in table.scores)
    assert sum(results.values()) == 6


_ODD_VALUES: list[Any] = [None, -1, 0, 3, 10**9, 1.5, "", "x", "1m", "E", [], {}, ["1m"], True, "中"]
_ODD_TILES: list[Any] = ["1m", "9p", "1z", "7z", "8f", "10m", "back", "", "x", 5, None]


def _mutated(hand: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """A winning hand with one to three things wrong, as a referee's keying or a misread might."""
    import copy

    from table_controller.scoring import win_options

    h = copy.deepcopy(hand)
    for _ in range(rng.randint(1, 3)):
        op = rng.randrange(8)
        if op == 0 and h:
            h.pop(rng.choice(list(h)))
        elif op == 1:
            opts = h["options"] if isinstance(h.get("options"), dict) else {}
            names = win_options(rng.choice(SCORED)) + ["after_kong", "missing_suit", "horses", "wildcard", "first_turn",
                                                      "double", "sealed", "baofu", "hanging", "dora", "honba"]
            opts[rng.choice(names)] = rng.choice(_ODD_VALUES + _ODD_TILES)
            h["options"] = opts
        elif op == 2 and h:
            h[rng.choice(list(h))] = rng.choice(_ODD_VALUES)
        elif op == 3:
            h["win"] = rng.choice(["self_draw", "discard", "rob_kong", "kong_replacement", "flower_replacement", "x"])
        elif op == 4:
            h["win_tile"] = rng.choice(_ODD_TILES)
        elif op == 5 and isinstance(h.get("concealed"), list) and h["concealed"]:
            h["concealed"][rng.randrange(len(h["concealed"]))] = rng.choice(_ODD_TILES)
        elif op == 6 and isinstance(h.get("melds"), list) and h["melds"] and isinstance(h["melds"][0], dict):
            h["melds"][0][rng.choice(["type", "tiles", "from", "concealed"])] = rng.choice(_ODD_VALUES + _ODD_TILES)
        else:
            h["flowers"] = rng.choice([["1f", "1f"], ["1m"], None, "1f2f", [f"{i}f" for i in range(1, 9)]])
    return h


@pytest.mark.parametrize("ruleset", SCORED)
def test_a_winning_hand_with_things_wrong_is_scored_or_named_never_a_crash(ruleset: str) -> None:
    """Only `ScoringError` (naming the field) may come out of the scorer: before, a ten under 国标,
    a self-drawn first-turn win under 南宁 and options of the wrong type were Python errors."""
    from table_controller.scoring import ScoringError

    rng = random.Random(ruleset)
    wins = []
    for seed in range(3):
        table = Table(ruleset, seed)
        while table.state.phase != "ended":
            table.step()
        wins += [w["hand"] for w in table.state.winners]
    assert wins
    for hand in wins:
        for _ in range(40):
            try:
                score_json(_mutated(hand, rng), ruleset)
            except ScoringError:
                pass

"""Whole sessions played on the live table under any ruleset file, checked as they go: shared by
`test_invariants.py` and `bench/invariants.py`.

The simulator's players (`tablesim.players.play_hand`, the demo's) play each hand from a shuffled
physical wall; every play is keyed into a real `Controller` on a real SQLite log as an operator keys
it, every win read and confirmed as the referee does (`demo.declare_win`, the referee's points where
the ruleset is 裁判计分), 荒牌 ended and 查叫 ruled where the ruleset checks the hands. Checked:
- after each play: every tile somewhere exactly once, the face-up ones as the record has them
  (melds, pool, flowers), the hidden ones as the players hold them, the standing wall as the
  players' wall stands, which is where the record's counts (`wall_now`) say it is;
- each win the players' judge takes (the scorer, on the same tiles) the record takes too, and the
  record's stored result is the scorer's on the hand read (record vs a direct call);
- each referee ruling (a win confirmed, a 查叫) undone and done again leaves the identical state;
- at each hand's end the fold of the whole log equals the live state, and the score sheet's
  totals are the sum of its rows (each row zero-sum but for what the docs say: riichi sticks);
A violation raises `AssertionError` naming the ruleset, the seed and the hand.
"""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path
from typing import Any

from table_controller import scoresheet
from table_controller.config import parse_config
from table_controller.controller import ActionError, Controller, _riichi_points_problem
from table_controller.demo import ready_waits, turned_up, win_judge, with_referee_options
from table_controller.record import hand_record
from table_controller.referee import flow_of
from table_controller.rules import deal_plan, load_ruleset, next_thrower, physical_wall
from table_controller.scoring import score_json
from table_controller.seating import for_state
from table_controller.state import fold
from table_controller.store import EventStore
from table_controller.tiles import SEATS
from tablesim.players import play_hand

from .invariants import full_set

#: Parts of the state that are not the log's: the link to a table, and what is derived for display.
_NOT_LOGGED = ("link", "identity", "phase", "phase_zh")


class _Stacks(Exception):
    """竞技: a win the scorer takes that the stacks forbid: the session stops there."""


async def _no_table(url: str) -> Any:
    raise ConnectionRefusedError(f"nothing at {url}")


class LiveGame:
    """A session at a live controller on `path`, its hands played by the simulator's players."""

    def __init__(self, ruleset: str, seed: int, path: Path, undo_every: int = 1, late_undo: float = 0.2) -> None:
        self.ruleset, self.seed = ruleset, seed
        self.rng = random.Random(seed)
        self.rs = load_ruleset(ruleset)
        self.tiles = full_set(ruleset)
        self.undo_every, self.late_undo = undo_every, late_undo
        cfg = parse_config({"table": {"link": "socket://127.0.0.1:9"}, "rules": {"ruleset": ruleset}}, "fuzz")
        self.store = EventStore(path)
        self.live = Controller(cfg, self.store, _no_table)
        self.counts: Counter[str] = Counter()
        self.where = ruleset

    # -- playing ---------------------------------------------------------------------------------
    def play_hand(self) -> bool:
        """One hand to its end and every check; False once the session's hands are played."""
        places = for_state(self.live.state)
        if places.over:
            return False
        st = self.live.state
        hand_no = st.hands_played + 1
        self.where = f"{self.ruleset} seed {self.seed} hand {hand_no}"
        self.live.accept("operator", "operator.hand_start", {
            "hand_no": hand_no, "by": "fuzz", "ruleset": self.ruleset, "dealer_position": places.dealer_position,
            "prevalent_wind": places.prevalent, "seats": places.seats(),
            **({"seating": {str(c): p for c, p in enumerate(places.seating, start=1)}}
               if places.seating != (1, 2, 3, 4) else {}),
            **({"double": True} if places.double else {}),
            **({"honba": places.honba} if places.honba else {})})  # riichi's 本场, as start_hand records it
        throws: list[tuple[int, ...]] = []
        while True:
            thrower = self.live.state.hand["next_thrower"]  # type: ignore[index]
            dice = tuple(self.rng.randint(1, 6) for _ in range(self.rs.dice_count))
            throws.append(dice)
            self.live.record_dice(thrower, list(dice), by="operator")
            if next_thrower(self.rs, throws) is None:
                break
        plan = deal_plan(self.rs, dice=throws[0], dice2=throws[1] if len(throws) > 1 else None)
        wall = physical_wall(self.rs, rng=self.seed * 1000 + hand_no)
        flow = flow_of(self.ruleset)
        prevalent = places.prevalent
        stream = play_hand(plan, wall, self.rng, win_judge(self.ruleset, prevalent), flow.continue_after_win,
                           missing=flow.missing_suit, seal=flow.seal_pungs, chows=flow.chow, riichi=flow.riichi,
                           kong_after_chow=flow.kong_after_chow,
                           furiten=ready_waits(self.ruleset) if flow.furiten else None)
        self.plan, self.wall, self.stream = plan, wall, stream
        self.aside: list[str] = []
        self.won_on: tuple[Any, int] | None = None  # the discard last won on: several winners set it aside once
        wins, shown = 0, None
        for action in stream:
            if action.type == "reveal":
                shown = action.hand
                break
            if action.type == "win":
                try:
                    self._win(action)
                except _Stacks:
                    self.live.accept("operator", "operator.hand_end", {"hand_no": hand_no, "by": "fuzz",
                                                                       "result": "abandoned"})
                    self.counts["refused by the stacks"] += 1
                    self._hand_end()
                    return False
                wins += 1
                continue
            type_, data = action.event()
            if type_ == "play.riichi" and _riichi_points_problem(self.live.state, data["seat"]):
                self.counts["riichi short of 1000"] += 1  # the player may not declare: it plays on without
                continue
            try:
                self.live.record_play(type_, data, by="operator")
            except ActionError as exc:
                raise AssertionError(f"{self.where}: the record refused {type_} {data}: {exc}") from None
            self.counts[type_] += 1
            if type_ == "play.discard" and self.rng.random() < self.late_undo:
                self._late_undo(hand_no)
            claim = type_ == "play.claim"
            self._tiles(f"{self.where} after {type_} {data}", claimer=data["seat"] if claim else None,
                        counted=type_ == "play.discard" or (claim and data["kind"] != "kong"))
        over = {"end": wins >= 1, "blood_battle": wins >= 3}.get(flow.continue_after_win, False)
        self.live.accept("operator", "operator.hand_end", {"hand_no": hand_no, "by": "fuzz",
                                                           "result": "win" if over else "draw"})
        self.counts["hands"] += 1
        self.counts["wins"] += wins
        self.counts["荒牌"] += not over
        if shown is not None and not over and _settles(self.ruleset):
            self._ruling("referee.exhaustive", {"hands": {w: {"concealed": h["concealed"]} for w, h in shown.items()}})
            self.counts["查叫"] += 1
        self._hand_end()
        return True

    def _win(self, action: Any) -> None:
        read = with_referee_options(self.ruleset, action.hand)
        shown_up = turned_up(self.live.state.hand, self.plan, self.wall,
                             self_drawn=action.hand.get("win") not in ("discard", "rob_kong"))
        if shown_up:
            read = {**read, "options": {**(read.get("options") or {}), **shown_up}}
        data = {**read, "prevalent_wind": self.live.state.hand["prevalent_wind"]}  # type: ignore[index]
        self.live.referee_action("referee.win_read", {"hand": data}, by="referee")
        stored = self.live.state.actions[-1]
        assert stored["result"].get("valid"), f"{self.where}: the players' scorer takes {data}, the record " \
            f"refuses it: {stored['result']}"
        direct = score_json(stored["hand"], self.ruleset)  # the same win, scored from the hand the record keeps
        assert direct == stored["result"], (self.where, direct, stored["result"])
        try:
            self._ruling("referee.win_confirm", {})
        except ActionError as exc:
            from table_controller.referee import _REFUSALS

            assert str(exc) in _REFUSALS.values(), f"{self.where}: the record would not confirm {data}: {exc}"
            raise _Stacks(str(exc)) from None  # 竞技's stacks forbid it: 盘面无分者点炮, 禁止非胜式和牌局结
        self.counts[f"win {read.get('win', 'discard')}"] += 1
        play_on = flow_of(self.ruleset).continue_after_win != "end"
        pool = (self.live.state.hand or {}).get("discards", {}).get(read.get("discarder"), [])
        won_on = (read.get("discarder"), len(pool)) if read.get("win") == "discard" else None
        if (play_on or read.get("win") == "rob_kong") and (won_on is None or won_on != self.won_on):
            self.aside.append(read["win_tile"])  # the tile won on leaves play (once for 一炮多响; a robbed kong's)
        self.won_on = won_on
        # a self-drawn tile won on in 血战/血流 is set aside once the players play on: counted aside already
        lifted = read["win_tile"] if play_on and read.get("win") not in ("discard", "rob_kong") else None
        self._tiles(f"{self.where} after the win {read.get('win')}", lifted=(read["seat_wind"], lifted))

    def _ruling(self, type_: str, data: dict[str, Any]) -> None:
        """A referee's ruling, then undone and done again: the state must come back identical."""
        self.live.referee_action(type_, data, by="referee")
        if self.counts[type_] % self.undo_every == 0:
            before = _ruled(self.live.state)
            target = self.live.state.actions[-1]["seq"]
            self.live.referee_action("referee.undo", {"reason": "fuzz", "target": target}, by="referee")
            self.live.referee_action(type_, data, by="referee")
            after = _ruled(self.live.state)
            diff = _diff(before, after, skip=_WHEN)
            assert not diff, f"{self.where}: {type_} undone and redone changed {diff[:3]}"
            self.counts["undo+redo"] += 1
        self.counts[type_] += 1

    def _late_undo(self, hand_no: int) -> None:
        """血战/血流: a win confirmed earlier this hand, play gone on since, undone and confirmed again
        (the referee's last action): the hand must stand as it did."""
        from table_controller.referee import last_undoable

        target = last_undoable(self.live.state.actions)
        if target is None or target["type"] != "referee.win_confirm" or target.get("hand_no") != hand_no:
            return
        before = _ruled(self.live.state)
        self.live.referee_action("referee.undo", {"reason": "fuzz", "target": target["seq"]}, by="referee")
        self.live.referee_action("referee.win_confirm", {}, by="referee")
        diff = _diff(before, _ruled(self.live.state), skip=_WHEN)
        assert not diff, f"{self.where}: a win confirmed before the last plays, undone and confirmed again, " \
            f"changed {diff[:3]}"
        self.counts["late undo+redo"] += 1

    # -- checking --------------------------------------------------------------------------------
    def _tiles(self, where: str, counted: bool = False, lifted: tuple[str, str | None] = ("E", None),
               claimer: str | None = None) -> None:
        """Every tile somewhere exactly once: standing (the players' wall), hidden (the players' hands),
        face up (the record's melds, pool, flowers), won on and set aside."""
        frame = self.stream.gi_frame
        truth = frame.f_locals if frame is not None else {}
        if "state" not in truth or "hands" not in truth:  # the opening 补花: the players' hands are not dealt yet
            return
        state, hands = truth["state"], truth["hands"]
        hand = self.live.state.hand or {}
        now = hand.get("wall_now") or {"live_drawn": 0, "tail_drawn": 0}
        # the players draw for the next seat when they play on: after a play both have counted the same
        # (a flower's or a kong's replacement the record counts with the play, the players when they draw it)
        assert not counted or (now["live_drawn"], now["tail_drawn"], now.get("last_live")) == (
            state.live_drawn, state.tail_drawn, state.last_live), \
            f"{where}: the record counts {now}; the players drew {state.live_drawn} live (海底 {state.last_live}), " \
            f"{state.tail_drawn} from the tail"
        everywhere: Counter[str] = Counter(self.wall[p] for p in (*state.live_order(), *state.dead()))
        everywhere.update(self.wall[p] for p in self.plan.set_aside)
        everywhere.update(self.aside)
        for w in SEATS:
            everywhere.update(hands[w])
            if lifted[0] == w and lifted[1] is not None:
                everywhere[lifted[1]] -= 1
            everywhere.update(hand.get("flowers", {}).get(w, []))
            everywhere.update(d["tile"] for d in hand.get("discards", {}).get(w, []) if not d.get("claimed"))
            for m in hand.get("melds", {}).get(w, []):
                everywhere.update(m["tiles"])
        assert everywhere == self.tiles, f"{where}: {dict(everywhere - self.tiles)} too many, " \
            f"{dict(self.tiles - everywhere)} missing"
        if counted:  # after a discard nobody holds a drawn tile; after a pung or a chow its claimer does
            size = self.rs.hand_sizes["S"]
            for w in SEATS:
                have = len(hands[w]) + 3 * len(hand.get("melds", {}).get(w, []))
                want = size + (claimer == w)
                assert have == want, f"{where}: {w} holds {have} tiles (a kong counting 3), not {want}"

    def _hand_end(self) -> None:
        st = self.live.state
        events = self.store.since(0)
        folded = fold(events)
        diff = _diff(_comparable(st), _comparable(folded))
        assert not diff, f"{self.where}: the log folds to another state: {diff[:3]}"
        sheet = scoresheet.compute(st)
        wins = [a for a in st.actions if a["type"] == "referee.win_confirm" and not a.get("undone")
                and a.get("hand_no") == st.hand["hand_no"]]  # type: ignore[index]
        kept = hand_record(events, st.hand["hand_no"], referee=True, state=folded)["wins"]  # type: ignore[index]
        assert [(w["seat"], w["total"], w["payments"]) for w in kept] == [
            (a["seat"], a["total"], {k: v for k, v in a["by_wind"].items() if v}) for a in wins], (self.where, kept)
        for p in scoresheet.POSITIONS:
            # (竞技: a kong paid outside the stacks counts in the hand that ends the 局: docs/scoring.md)
            assert sheet["totals"][p] == sum(r["points"][p] for r in sheet["rows"]), \
                (self.where, p, sheet["totals"], [r["points"] for r in sheet["rows"]])
            assert not sheet["rows"] or sheet["rows"][-1]["running"][p] == sheet["totals"][p], (self.where, p)
        for r in sheet["rows"]:
            assert sum(r["points"].values()) == sum(r["riichi_points"].values()), (self.where, r)
            assert sum(r["kong_points"].values()) == 0 and sum(r["chase_points"].values()) == 0, (self.where, r)
        stick = scoresheet._riichi_stick(self.ruleset)
        assert sum(sheet["totals"].values()) + sheet["riichi_pot"] * stick == 0, (self.where, sheet["totals"])
        self.counts["sheet rows"] = len(sheet["rows"])


def _settles(ruleset: str) -> bool:
    from table_controller.referee import settles_draw

    return settles_draw(ruleset)


def _comparable(state: Any) -> dict[str, Any]:
    """The state as the displays and the sheet read it, less what does not come from the log."""
    data = state.to_json()
    for key in _NOT_LOGGED:
        data.pop(key, None)
    data["sheet"] = scoresheet.compute(state)
    return data


def _ruled(state: Any) -> dict[str, Any]:
    """What a ruling decides: the hand in play, the hands ended, the score sheet (the log and the list
    of actions grow by the undo and the ruling again)."""
    hand = state.hand or {}
    newest = max((int(d["seq"]) for pool in (hand.get("discards") or {}).values() for d in pool), default=0)
    return {"hand": state.hand, "hands": state.hands, "sheet": scoresheet.compute(state),
            # a win's seq is the ruling's, but whether the newest discard is past claiming must not move
            "newest_discard_passed": int(hand.get("won_seq") or 0) > newest}


#: What a ruling done again may change: the seq of the action and the time it was taken.
_WHEN = frozenset({"seq", "won_seq", "read_seq", "at", "since"})


def _diff(a: Any, b: Any, path: str = "", skip: frozenset[str] = frozenset()) -> list[str]:
    """Where two JSON-like values differ, as paths (`hand.turn.since`), keys in `skip` aside."""
    if isinstance(a, dict) and isinstance(b, dict):
        return [d for k in sorted((set(a) | set(b)) - skip, key=str)
                for d in (_diff(a.get(k), b.get(k), f"{path}.{k}", skip) if k in a and k in b else [f"{path}.{k}"])]
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        return [d for i, (x, y) in enumerate(zip(a, b)) for d in _diff(x, y, f"{path}[{i}]", skip)]
    return [] if a == b else [f"{path}: {a!r} != {b!r}"[:300]]


def play_session(ruleset: str, seed: int, path: Path, hands: int) -> LiveGame:
    """Up to `hands` hands of one session, every check made."""
    game = LiveGame(ruleset, seed, path)
    for _ in range(hands):
        if not game.play_hand():
            break
    return game


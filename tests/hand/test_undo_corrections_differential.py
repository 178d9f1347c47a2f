"""Undo (撤销) and corrections (更正牌谱) against logs where nothing was undone or the play was recorded
right from the start, on real hands (`differential.py`: what is compared and what may differ). A fixed
number of seeded examples, seconds; a failing one is kept below as an explicit regression test."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from table_controller.state import TableState, apply, fold
from table_controller.store import Event

from .differential import (CORRECTION, correction_example, differ, ref_filler, session_events, take, undo_example,
                           views)

RULESETS = ("mcr", "sichuan", "xueliu", "tuidaohu", "jingji", "riichi")


@pytest.fixture(scope="module")
def sessions(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[Event]]:
    """Two hands of each ruleset, played by the simulator's players (about 0.3 s each)."""
    base = tmp_path_factory.mktemp("sessions")
    return {rs: session_events(rs, 7, 2, base / f"{rs}.sqlite3") for rs in RULESETS}


def _positions(events: list[Event], rng: random.Random, n: int) -> list[int]:
    first = next(i for i, e in enumerate(events) if e.type == "operator.hand_start") + 1
    return [rng.randint(first, len(events)) for _ in range(n)]


@pytest.mark.parametrize("ruleset", RULESETS)
def test_each_undoable_action_undone_leaves_the_state_it_found(ruleset: str, sessions: dict[str, list[Event]]) -> None:
    """Penalties, win reads and confirmations, the session clock, appeals and rulings, 查叫, substitutes,
    round starts and corrections, each taken at 4 random places (and a few undone after the next hand has
    started), then undone newest first: the views, at once and after the rest of the session, and each
    hand's record are those of the log without them; an undo of an undo is refused."""
    events = sessions[ruleset]
    rng = random.Random(f"undo {ruleset}")
    outcomes = [o for k in _positions(events, rng, 4) for o in undo_example(events, k, rng, across=rng.random() < 0.3)]
    failed = [(o.where, o.diffs[:4]) for o in outcomes if o.diffs]
    assert not failed, failed
    assert sum(o.kind == "compared" for o in outcomes) >= 12, [(o.kind, o.where, o.why) for o in outcomes]


@pytest.mark.parametrize("ruleset", RULESETS)
def test_a_correction_folds_as_the_hand_recorded_right_from_the_start(ruleset: str,
                                                                       sessions: dict[str, list[Event]]) -> None:
    """A discard's tile, a seat, a claim's meld put right, a play voided, one inserted, one of another kind in
    its place, at 50 random places: accepted ones fold (at once, after the rest of the hand, and in the
    hand's public record) as the log recorded so from the start, and undone as the log recorded as it was;
    refused ones change nothing and say why."""
    events = sessions[ruleset]
    rng = random.Random(f"correct {ruleset}")
    outcomes = [o for k in _positions(events, rng, 50) for o in [correction_example(events, k, rng)] if o]
    failed = [(o.where, o.diffs[:4]) for o in outcomes if o.diffs]
    assert not failed, failed
    assert sum(o.kind == "compared" for o in outcomes) >= 2, [(o.where, o.why) for o in outcomes]
    assert all(o.why for o in outcomes if o.kind == "refused")


def test_the_comparisons_bite(sessions: dict[str, list[Event]]) -> None:
    """A correction compared with the log as recorded (not as corrected) differs; an action left standing differs
    from no action."""
    events = sessions["mcr"]
    k = max(i for i, e in enumerate(events) if e.type == "play.discard" and i < 60)
    s = fold(events[:k + 1])
    fix = take(s, CORRECTION, {"target": events[k].seq, "tile": "9s" if events[k].data["tile"] != "9s" else "8s",
                               "reason": "看错"})
    assert differ(views(apply(s, fix)), views(apply(s, ref_filler(fix.seq, fix.at))))
    pen = take(s, "referee.penalty", {"seat": "S", "code": "warning"})
    assert differ(views(apply(s, pen)), views(apply(s, ref_filler(pen.seq, pen.at))))


# -- regressions found by the comparison ----------------------------------------------------------------

def _log(ruleset: str = "mcr") -> list[Event]:
    events: list[Event] = []

    def add(source: str, type_: str, data: dict) -> None:
        events.append(Event(len(events) + 1, 1000.0 + len(events), source, type_, data))

    add("controller", "controller.configured", {"table_name": "T", "ruleset": ruleset,
                                                "players": {"1": "甲", "2": "乙", "3": "丙", "4": "丁"}})
    add("operator", "operator.hand_start", {"hand_no": 1, "ruleset": ruleset, "dealer_position": 1,
                                            "prevalent_wind": "E", "seats": {"E": 1, "S": 2, "W": 3, "N": 4}})
    add("table", "table.dice", {"seat": "E", "wind": "E", "dice": [3, 4]})
    add("table", "table.dice", {"seat": "W", "wind": "W", "dice": [2, 5]})
    add("operator", "play.deal_done", {})
    return events


def _ref(s: TableState, type_: str, **data: object) -> TableState:
    return apply(s, take(s, type_, dict(data)))


def test_a_win_confirmed_before_any_draw_undone_leaves_the_hand_as_it_was() -> None:
    """The undo set the hand's turn keys it had not had (won_seq None, live_drawn 0, pending_draw None) and
    showed the wall's count (tiles_left, wall_now) the record had not counted yet: the page read 55 tiles
    left before the first discard after an undo, none before it."""
    s = fold(_log())
    read = {"seat_wind": "E", "prevalent_wind": "E", "melds": [], "win": "self_draw", "win_tile": "2p",
            "concealed": "1m 2m 3m 4m 5m 6m 7m 8m 9m 1p 1p 1p 2p".split()}
    s = _ref(s, "referee.win_read", hand=read)
    before = s.hand
    s = _ref(s, "referee.win_confirm")
    assert s.hand["turn"] is None and s.hand.get("wall_now")
    s = _ref(s, "referee.undo", reason="误判", target=s.actions[-1]["seq"])
    assert s.hand == {**before, "winners": [], "out": []}, differ(s.hand, before)


def test_a_rounds_start_undone_brings_its_last_hand_back_to_show_rule_and_correct() -> None:
    """Undoing 开始新一轮 brought back the round's hands and rulings but not its last hand: the table showed
    no hand (its pools, its wins), and that hand's plays could no longer be corrected nor 查叫 ruled."""
    events = _log("sichuan")
    events.append(Event(6, 1006.0, "operator", "play.discard", {"seat": "E", "tile": "1m"}))
    events.append(Event(7, 1007.0, "operator", "operator.hand_end", {"hand_no": 1, "result": "draw"}))
    s = fold(events)
    s = _ref(s, "referee.round_start", round=2, players={"1": "戊", "2": "己", "3": "庚", "4": "辛"})
    assert s.hand is None and s.round == 2
    s = _ref(s, "referee.undo", reason="还没打完", target=s.actions[-1]["seq"])
    never = fold(events + [ref_filler(8, 1007.0), ref_filler(9, 1007.0)])  # as if no round had been started
    assert not differ(views(s), views(never)), differ(views(s), views(never))[:4]
    assert s.hand is not None and s.hand["discards"]["E"][0]["tile"] == "1m"
    s = _ref(s, CORRECTION, target=6, tile="2m", reason="看错")  # the last hand is corrected as before
    assert s.hand["discards"]["E"][0]["tile"] == "2m"
    assert [a["type"] for a in s.actions][-3:] == ["referee.round_start", "referee.undo", CORRECTION]


def test_undo_examples_across_a_hands_boundary(tmp_path: Path) -> None:
    """An action in one hand undone in the next (a penalty, a win confirmed, a correction): as if never taken."""
    events = session_events("sichuan", 3, 2, tmp_path / "e.sqlite3")
    rng = random.Random("across")
    outcomes = [o for k in _positions(events, rng, 6) for o in undo_example(events, k, rng, across=True)]
    failed = [(o.where, o.diffs[:4]) for o in outcomes if o.diffs]
    assert not failed, failed

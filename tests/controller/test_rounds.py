"""Rounds (轮次): the referee starts the next round with its four players; the round played is
closed whole (hands, rulings, final score sheet) and stays readable; the new one starts afresh."""

from __future__ import annotations

import pytest

import json
from pathlib import Path
from typing import Any

from table_controller import rounds
from table_controller.cli import main
from table_controller.store import EventStore
from table_controller.record import RecordError, all_records, hand_record, session_records
from table_controller.scoresheet import compute
from table_controller.state import fold

from test_record import _session  # type: ignore[import-not-found]

ROUND_2 = {"1": "戊", "2": "己", "3": "庚", "4": "辛"}


def _two_rounds():
    """Round 1: the record test's two hands (a win in hand 1, hand 2 in play, then ended);
    round 2 with four new players, one hand with a penalty."""
    log = _session()
    log.add("operator", "operator.hand_end", {"hand_no": 2, "result": "draw"})
    log.ref("referee.round_start", round=2, players=ROUND_2, player_ids={"1": "B101"})
    log.start(hand_no=1, dealer=1)
    log.ref("referee.penalty", seat="N", code="late_5")
    return log


def test_a_new_round_closes_the_round_played_and_starts_afresh_with_its_players() -> None:
    log = _session()
    log.add("operator", "operator.hand_end", {"hand_no": 2, "result": "draw"})
    before = compute(log.state())
    log.ref("referee.round_start", round=2, players=ROUND_2, player_ids={"1": "B101"})
    s = log.state()
    assert s.actions[-1].get("error") is None and s.actions[-1]["closes"] == 1
    assert (s.round, s.hands_played, s.hands, s.hand) == (2, 0, [], None)
    assert s.players == {1: "戊", 2: "己", 3: "庚", 4: "辛"} and s.player_ids == {1: "B101"}
    sheet = compute(s)
    assert sheet["rows"] == [] and set(sheet["totals"].values()) == {0}
    # the round closed as it stood: its sheet, final, with round 1's players
    (closed,) = s.rounds
    assert closed["round"] == 1 and closed["sheet"]["totals"] == before["totals"] and closed["sheet"]["final"]
    assert closed["sheet"]["players"] == {"1": "甲", "2": "乙", "3": "丙", "4": "丁"}
    assert rounds.sheet(s, 1)["table_points"] == before["table_points"]
    summary = s.to_json()["rounds"]
    assert [r["round"] for r in summary] == [1, 2] and summary[0]["totals"] == before["totals"]
    assert summary[1]["players"] == ROUND_2 and not summary[1]["final"]
    # once round 2's first hand has started, nothing of round 1 can be undone any more
    log.start(hand_no=1, dealer=1)
    log.ref("referee.undo", reason="想撤销上一轮的和牌")
    assert "第 2 轮已开始打牌" in log.state().actions[-1]["error"] and log.state().round == 2


def test_the_next_hand_is_hand_1_with_e_at_chair_1_and_closed_rounds_keep_their_records() -> None:
    log = _two_rounds()
    s = log.state()
    assert s.hand["hand_no"] == 1 and s.hand["seats"]["E"] == 1
    assert [r["hand_no"] for r in compute(s)["rows"]] == [1]
    assert compute(s)["rows"][0]["points"]["4"] < 0  # the penalty is round 2's
    one = hand_record(log.events, 1, state=s, round_no=1)
    assert one["round"] == 1 and one["wins"] and one["seats"]["E"]["player"] == "甲"
    two = hand_record(log.events, 1, state=s)
    assert two["round"] == 2 and not two["wins"] and two["seats"]["E"]["player"] == "戊"
    assert all(line["seq"] > s.round_start_seq for line in two["lines"][1:])
    assert [r["hand_no"] for r in session_records(log.events, state=s, round_no=1)] == [1, 2]
    assert [(r["round"], r["hand_no"]) for r in all_records(log.events, state=s)] == [(1, 1), (1, 2), (2, 1)]
    with pytest.raises(RecordError, match="第 2 轮没有第 2 盘"):
        hand_record(log.events, 2, state=s)
    with pytest.raises(rounds.RoundError, match="no round 5"):
        hand_record(log.events, 1, state=s, round_no=5)


def test_players_can_be_corrected_before_the_first_hand_and_an_empty_round_is_not_kept() -> None:
    log = _session()
    log.add("operator", "operator.hand_end", {"hand_no": 2, "result": "draw"})
    log.ref("referee.round_start", round=2, players={**ROUND_2, "3": "错名"})
    log.ref("referee.round_start", round=2, players=ROUND_2)  # the same round again: a correction
    s = log.state()
    assert s.actions[-1].get("error") is None and s.actions[-1]["replaces"] == 2
    assert [r["round"] for r in s.rounds] == [1] and s.players[3] == "庚"
    log.ref("referee.round_start", round=3, players=ROUND_2)  # round 2 has nothing on its sheet: replaced
    s = log.state()
    assert [r["round"] for r in s.rounds] == [1] and s.round == 3
    log.start(hand_no=1, dealer=1)
    log.add("operator", "operator.hand_end", {"hand_no": 1, "result": "draw"})
    log.ref("referee.round_start", round=3, players=ROUND_2)
    assert "第 3 轮已开始计分" in log.state().actions[-1]["error"]


@pytest.mark.parametrize("data, why", [
    ({"round": 2, "players": {"1": "a", "2": "b", "3": "c"}}, "缺 4 号位"),
    ({"round": 2, "players": {"1": "a", "2": "b", "3": "c", "5": "d"}}, "没有 5 号位"),
    ({"round": 2, "players": {"1": "a", "2": "b", "3": "c", "4": " "}}, "4 号位须有名字"),
    ({"round": 0, "players": ROUND_2}, "轮次须为"),
    ({"round": "2", "players": ROUND_2}, "轮次须为"),
    ({"round": 2, "players": ["a", "b", "c", "d"]}, "players 须为"),
])
def test_a_malformed_round_start_is_refused_and_changes_nothing(data: dict, why: str) -> None:
    log = _session()
    log.add("operator", "operator.hand_end", {"hand_no": 2, "result": "draw"})
    before = log.state()
    log.ref("referee.round_start", **data)
    s = log.state()
    assert why in s.actions[-1]["error"]
    assert (s.round, s.players, s.hands, s.rounds) == (before.round, before.players, before.hands, [])


def test_a_round_cannot_start_during_a_hand_nor_go_back() -> None:
    log = _session()  # hand 2 in play
    log.ref("referee.round_start", round=2, players=ROUND_2)
    assert "第 2 盘尚未结束" in log.state().actions[-1]["error"]
    log = _two_rounds()
    log.add("operator", "operator.hand_end", {"hand_no": 1, "result": "draw"})
    log.ref("referee.round_start", round=1, players=ROUND_2)
    assert "第 1 轮已结束" in log.state().actions[-1]["error"]


def test_a_restart_does_not_rename_the_round_players_and_the_fold_is_the_same_from_the_log() -> None:
    log = _two_rounds()
    log.add("controller", "controller.configured",  # the service restarts with the first round's config
            {"table_name": "T", "ruleset": "mcr", "players": {"1": "甲", "2": "乙", "3": "丙", "4": "丁"}})
    s = log.state()
    assert s.players[1] == "戊" and s.round == 2
    again = fold(list(log.events))
    assert again.to_json()["rounds"] == s.to_json()["rounds"]


def test_tablectl_record_reads_either_round(tmp_path: Path, capsys: Any) -> None:
    store = EventStore(tmp_path / "events.sqlite3")
    for ev in _two_rounds().events:
        store.append(ev.source, ev.type, ev.data, at=ev.at)
    store.close()
    assert main(["record", "--data-dir", str(tmp_path), "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {"round": 2, "rounds": [1, 2], "hands": [1]}
    assert main(["record", "--data-dir", str(tmp_path), "--round", "1", "--hand", "1"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("T · 第 1 盘") and "和牌：南家" in out  # round 1 is not named: tables of one round
    assert main(["record", "--data-dir", str(tmp_path), "--hand", "1"]) == 0
    assert capsys.readouterr().out.startswith("T · 第 2 轮 第 1 盘")
    assert main(["record", "--data-dir", str(tmp_path), "--all", "--json"]) == 0
    assert [(r["round"], r["hand_no"]) for r in json.loads(capsys.readouterr().out)] == [(1, 1), (1, 2), (2, 1)]
    assert main(["record", "--data-dir", str(tmp_path), "--round", "4", "--hand", "1"]) == 2
    assert "no round 4" in capsys.readouterr().err


def test_the_cameras_record_starts_again_with_round_2s_hand_1() -> None:
    """Hand numbers start again each round: the camera's picture of the felt is that hand's, so
    round 2's hand 1 must not inherit round 1's hand 1 (tiles lying, tracks accounted)."""
    from table_controller.camera_record import CameraRecord

    log = _session()
    log.add("operator", "operator.hand_end", {"hand_no": 2, "result": "draw"})
    log.ref("referee.round_start", round=2, players=ROUND_2)
    log.start(hand_no=1, dealer=1)
    hand_2_1 = log.state().hand
    assert (hand_2_1["round"], hand_2_1["hand_no"]) == (2, 1)
    hand_1_1 = {**hand_2_1, "round": 1}
    rec = CameraRecord()
    rec.see(hand_1_1, [{"event": "appeared", "zone": "discard:E", "kind": "9s", "track": 7, "at": [10, 10]}])
    assert rec.lying and rec.hand_key == (1, 1)
    rec.see(hand_2_1, [])
    assert rec.hand_key == (2, 1) and rec.lying == {} and rec.accounted == set()


def test_a_round_started_by_mistake_is_undone_and_the_closed_round_comes_back_whole() -> None:
    log = _session()
    log.add("operator", "operator.hand_end", {"hand_no": 2, "result": "draw"})
    before = compute(log.state())
    actions_before = len(log.state().actions)
    log.ref("referee.round_start", round=2, players=ROUND_2, player_ids={"1": "B101"})
    assert rounds.withdrawn(log.state()) == {}
    log.ref("referee.undo", reason="第一轮还没打完")
    s = log.state()
    assert s.actions[-1].get("error") is None
    assert (s.round, s.rounds, s.hands_played) == (1, [], 2) and s.players[1] == "甲" and s.player_ids == {}
    assert compute(s)["totals"] == before["totals"] and not compute(s)["final"]
    assert len(s.actions) == actions_before + 2  # the start (marked undone) and the undo, in round 1's record
    start = next(a for a in s.actions if a["type"] == "referee.round_start")
    assert start["undone"] and start["undo"]["reason"] == "第一轮还没打完"
    assert list(rounds.withdrawn(s)) == [2]  # the hub must drop round 2
    log.ref("referee.round_start", round=2, players=ROUND_2)  # started again, for real this time
    s = log.state()
    assert s.round == 2 and [r["round"] for r in s.rounds] == [1] and rounds.withdrawn(s) == {}


def test_a_round_replaced_by_another_number_is_withdrawn_at_the_hub_even_after_later_rounds_close() -> None:
    """Round 2 keyed where round 3 was meant: round 2 had nothing on its sheet and is replaced, and the
    table no longer has it. Before, only an undone start withdrew a round: the hub kept round 2's standing
    (four players tied at 0, 1.75 标准分 each) and added it up. Still withdrawn once round 3 has closed."""
    log = _session()
    log.add("operator", "operator.hand_end", {"hand_no": 2, "result": "draw"})
    log.ref("referee.round_start", round=2, players=ROUND_2)
    log.ref("referee.round_start", round=3, players=ROUND_2)
    assert list(rounds.withdrawn(log.state())) == [2]
    log.start(hand_no=1, dealer=1)
    log.add("operator", "operator.hand_end", {"hand_no": 1, "result": "draw"})
    log.ref("referee.round_start", round=4, players=ROUND_2)
    s = log.state()
    assert rounds.numbers(s) == [1, 3, 4] and list(rounds.withdrawn(s)) == [2]
    log.ref("referee.round_start", round=4, players={**ROUND_2, "4": "癸"})  # a correction: the same number
    assert list(rounds.withdrawn(log.state())) == [2]


def test_undoing_a_correction_puts_the_players_back_and_a_round_under_way_cannot_be_undone() -> None:
    log = _session()
    log.add("operator", "operator.hand_end", {"hand_no": 2, "result": "draw"})
    log.ref("referee.round_start", round=2, players=ROUND_2)
    log.ref("referee.round_start", round=2, players={**ROUND_2, "4": "错名"})  # a correction gone wrong
    log.ref("referee.undo", reason="改错了")
    s = log.state()
    assert s.round == 2 and s.players[4] == "辛" and [r["round"] for r in s.rounds] == [1]
    log.start(hand_no=1, dealer=1)
    log.ref("referee.undo", reason="想撤销开始")
    assert "第 2 轮已开始打牌" in log.state().actions[-1]["error"]
    assert log.state().round == 2

"""The score sheet and the hand record as a referee or organiser takes them away (CSV, 牌谱 text): what
they say is final only once it is, and each figure goes to the player it belongs to. A real controller on
a real SQLite log."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest
from offline import offline_controller  # type: ignore[import-not-found]
from test_referee_fold import WIN_HAND, Log  # type: ignore[import-not-found]

from table_controller.controller import Controller
from table_controller.record import as_text, hand_record
from table_controller.scoresheet import compute, to_csv
from table_controller.seating import for_state

NAMES = {"1": "甲", "2": "乙", "3": "丙", "4": "丁"}
#: N wins on E's 2p: 清龙 16, 门前清 2, 幺九刻 1, 缺一门 1, 无字 1 = 21 (E pays 29, S and W 8 each)
WIN_BY_NORTH = {"seat_wind": "N", "prevalent_wind": "E", "melds": [],
                "concealed": "1m 2m 3m 4m 5m 6m 7m 8m 9m 1p 1p 1p 2p".split(),
                "win_tile": "2p", "win": "discard", "discarder": "E"}


@pytest.fixture
def controller(tmp_path: Path):
    c = offline_controller(tmp_path, "mcr", NAMES)
    yield c
    c.store.close()


def _start(c: Controller) -> int:
    """A hand as `start_hand` records it (the places from `seating.coming`); its number."""
    places = for_state(c.state)
    no = c.state.hands_played + 1
    c.accept("operator", "operator.hand_start", {
        "hand_no": no, "ruleset": "mcr", "dealer_position": places.dealer_position,
        "prevalent_wind": places.prevalent, "seats": places.seats(),
        "seating": {str(ch): p for ch, p in enumerate(places.seating, start=1)}})
    return no


def _north_wins(c: Controller) -> None:
    prevalent = c.state.hand["prevalent_wind"]
    c.referee_action("referee.win_read", {"hand": {**WIN_BY_NORTH, "prevalent_wind": prevalent}}, by="referee")
    c.referee_action("referee.win_confirm", {}, by="referee")


def _csv(sheet: dict) -> list[list[str]]:
    return list(csv.reader(io.StringIO(to_csv(sheet).lstrip("\ufeff"))))


def test_time_called_during_a_hand_leaves_the_sheet_provisional_until_that_hand_ends(controller: Controller) -> None:
    """Seed 000: 以尚在进行的一盘比赛结束为结束时间. The referee's 结束计时 with a hand in play made the
    sheet 最终 at once (the CSV printed then, and the hub's standing, said final) though that hand's win
    was still to come and changed every 标准分."""
    c = controller
    c.referee_action("referee.session_start", {"minutes": 90}, by="referee")
    _start(c)
    c.referee_action("referee.session_end", {}, by="referee")
    sheet = compute(c.state)
    assert not sheet["final"] and sheet["table_points"] == {"1": 1.75, "2": 1.75, "3": 1.75, "4": 1.75}
    assert _csv(sheet)[-1][:9] == ["标准分", "", "", "暂定", "", "1.75", "1.75", "1.75", "1.75"]
    _north_wins(c)
    assert not compute(c.state)["final"]  # the hand is still open: the operator ends it
    c.accept("operator", "operator.hand_end", {"hand_no": 1, "result": "win"})
    sheet = compute(c.state)
    assert sheet["final"] and sheet["totals"] == {"1": -29, "2": -8, "3": -8, "4": 45}
    assert sheet["table_points"] == {"1": 0, "2": 1.5, "3": 1.5, "4": 4}
    rows = _csv(sheet)
    assert rows[-2][:9] == ["合计", "", "", "", "", "-29", "-8", "-8", "45"]
    assert rows[-1][:9] == ["标准分", "", "", "最终", "", "0", "1.5", "1.5", "4"]
    # the confirmation undone after the end: the win waits for the referee again, and so does the sheet
    c.referee_action("referee.undo", {"reason": "番数有误"}, by="referee")
    sheet = compute(c.state)
    assert sheet["rows"][-1]["result_zh"] == "和牌（待确认）" and not sheet["final"]
    assert _csv(sheet)[-1][3] == "暂定"


def test_the_printed_records_points_name_the_players_who_won_and_paid_after_a_change_of_chairs(
        controller: Controller) -> None:
    """The 牌谱's text gave 本盘得分 by 抽签号位 (1号位 -8) under a header of the chairs the players sit in
    (东 乙（1号位）): after the 换位 before the West round 乙, the dealer who dealt in, read as -8 and 甲
    as -29. Now each figure is named by the wind and the player who sat it."""
    c = controller
    for _ in range(8):
        no = _start(c)
        c.accept("operator", "operator.hand_end", {"hand_no": no, "result": "draw"})
    no = _start(c)  # hand 9: 乙 (drew chair 2) deals from chair 1, 丙 sits N
    _north_wins(c)
    c.accept("operator", "operator.hand_end", {"hand_no": no, "result": "win"})
    assert compute(c.state)["rows"][-1]["points"] == {"1": -8, "2": -29, "3": 45, "4": -8}
    text = as_text(hand_record(c.store.since(0), 9, state=c.state))
    lines = text.splitlines()
    assert lines[1] == "东 乙（1号位）  南 甲（2号位）  西 丁（3号位）  北 丙（4号位）"
    assert "本盘得分：东 乙 -29  南 甲 -8  西 丁 -8  北 丙 +45" in lines


def test_a_kong_held_outside_the_table_counts_in_the_hand_that_ends_the_ju_and_the_sheet_adds_up() -> None:
    """竞技 (seed 004 三十二): a kong that would end the 局 with its konger not first is 挂于盘外 and counted
    once the 局 ends. The totals counted it, but no hand's points did: the printed sheet's 累计 jumped
    from 丙 -90 to -112 beside a hand of -10, and its 合计 was not the sum of its column."""
    log = Log("jingji")
    log.start(dealer=1)  # E=1 S=2 W=3 N=4
    for seat, amount in (("E", 50), ("E", 50), ("W", 50), ("W", 40)):
        log.ref("referee.penalty", seat=seat, code="foul_to_victim", amount=amount, victim="S")
    log.add("operator", "operator.hand_end", {"hand_no": 1, "result": "draw"})
    log.start(hand_no=2, dealer=2)  # E=2 S=3 W=4 N=1: chair 1 holds 0, chair 3 10
    for type_, data in (("deal_done", {}), ("discard", {"seat": "E", "tile": "1z"}),
                        ("discard", {"seat": "S", "tile": "5s"}),
                        ("claim", {"seat": "W", "kind": "kong", "from": "S", "tiles": ["5s"] * 4})):
        log.add("operator", f"play.{type_}", {**data, "by": "operator"})
    sheet = compute(log.state())  # 点杠 12 from chair 3, which holds 10: two seats empty, chair 4 not first
    assert sheet["rows"][-1]["points"] == {"1": 0, "2": 0, "3": 0, "4": 0} and not sheet["final"]
    assert sheet["totals"] == {"1": -100, "2": 190, "3": -90, "4": 0}
    self_draw = {k: v for k, v in WIN_HAND.items() if k != "discarder"}
    log.ref("referee.win_read", hand={**self_draw, "seat_wind": "E", "win": "self_draw"})  # chair 2: 18 from each
    log.ref("referee.win_confirm")
    sheet = compute(log.state())
    last = sheet["rows"][-1]
    assert sheet["final"] and last["stacks"] == {"1": 0, "2": 318, "3": 0, "4": 82}
    assert last["held_points"] == {"1": 0, "2": 0, "3": -12, "4": 12}
    assert last["points"] == {"1": 0, "2": 28, "3": -22, "4": -6}
    assert last["running"] == sheet["totals"] == {"1": -100, "2": 218, "3": -112, "4": -6}
    for p in "1234":
        assert sum(r["points"][p] for r in sheet["rows"]) == sheet["totals"][p]
    rows = _csv(sheet)
    assert rows[2][5:] == ["0", "28", "-22", "-6", "-100", "218", "-112", "-6"]
    assert rows[3][5:9] == ["-100", "218", "-112", "-6"]

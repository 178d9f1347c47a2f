"""A riichi referee's rulings (the catalogue of riichi.toml: 错和 / チョンボ, 和了放弃, 罚点) and the standings' ties,
keyed on a live controller with a real SQLite log as an operator and a referee key them: each ruling's points on the
score sheet, the points held adding up (4 × start points with the sticks on the table), the hand dealt again after a
错和, an undo giving the points back; WRC's deduction off the standing and 上家取り as a venue's options."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Callable, Iterator

import pytest

from offline import offline_controller  # type: ignore[import-not-found]

from table_controller.controller import ActionError, Controller
from table_controller.penalties import catalogue
from table_controller.rules.ruleset import ENV_DIR, PACKAGED
from table_controller.scoresheet import compute, to_csv
from table_controller.tiles import parse_tiles

READY = parse_tiles("123456789m1123p")  # 听 1p/4p
NOTEN = parse_tiles("2468s2468p1357m9m")


@pytest.fixture
def table(tmp_path: Path) -> Iterator[Controller]:
    c = offline_controller(tmp_path, "riichi", {"1": "甲", "2": "乙", "3": "丙", "4": "丁"})
    yield c
    c.store.close()


@pytest.fixture
def venue(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[..., Controller]]:
    """A venue's copy of riichi.toml, each (pattern, replacement) applied, in use for a controller it returns."""
    made: list[Controller] = []

    def make(*edits: tuple[str, str]) -> Controller:
        text = (PACKAGED / "riichi.toml").read_text(encoding="utf-8")
        for pattern, replacement in edits:
            text, n = re.subn(pattern, replacement, text, count=1, flags=re.M)
            assert n == 1, pattern
        folder = tmp_path / f"rulesets-{len(made)}"  # a folder of its own, as a process started on it reads it
        folder.mkdir()
        (folder / "riichi.toml").write_text(text, encoding="utf-8")
        monkeypatch.setenv(ENV_DIR, str(folder))
        made.append(offline_controller(tmp_path, "riichi", {"1": "甲", "2": "乙", "3": "丙", "4": "丁"}))
        return made[-1]

    yield make
    for c in made:
        c.store.close()


UMA = (r"^\[scoring\]$", '[scoring]\numa = [15, 5, -5, -15]')


def _start(c: Controller) -> None:
    places = c._coming()
    c.accept("operator", "operator.hand_start", {
        "hand_no": c.state.hands_played + 1, "by": "op", "ruleset": "riichi",
        "dealer_position": places.dealer_position, "prevalent_wind": places.prevalent, "seats": places.seats(),
        **({"honba": places.honba} if places.honba else {})})
    while c.state.hand["deal"] is None and c.state.hand["next_thrower"]:
        seat = c.state.hand["next_thrower"]
        c.accept("table", "table.dice", {"seat": seat, "wind": seat, "dice": [3, 4]})
    c.record_play("play.deal_done", {}, by="op")


def _riichi_by_south(c: Controller) -> None:
    _start(c)
    c.record_play("play.discard", {"seat": "E", "tile": "9p"}, by="op")
    c.record_play("play.discard", {"seat": "S", "tile": "1z"}, by="op")
    c.record_play("play.riichi", {"seat": "S"}, by="op")


def _held(c: Controller) -> dict[str, int]:
    sheet = compute(c.state)
    return {p: sheet["start_points"] + v for p, v in sheet["totals"].items()}


def _on_table(c: Controller) -> int:
    return compute(c.state)["riichi_pot"] * 1000


def test_a_chombo_pays_a_mangan_and_the_hand_is_dealt_again(table: Controller) -> None:
    """错和 by 北 (a non-dealer) after 南's 立直: 4000 to the dealer, 2000 to the others; the hand ended 中止 is dealt
    again by the same dealer with the same 本场, and 南's stick goes back. The four hold 4 × 25000 throughout."""
    c = table
    names = {p.code: p.name_zh for p in catalogue("riichi").items}
    assert names["false_win"] == "错和（诈和，チョンボ）" and names["dead_hand"] == "和了放弃（アガリ放棄）"
    _riichi_by_south(c)
    assert sum(_held(c).values()) + _on_table(c) == 100000
    c.referee_action("referee.penalty", {"seat": "N", "code": "false_win"}, by="ref")
    ruled = c.state.actions[-1]
    assert not ruled.get("error") and ruled["deltas"] == {"1": 4000, "2": 2000, "3": 2000, "4": -8000}
    c.accept("operator", "operator.hand_end", {"hand_no": 1, "result": "abandoned"})
    assert _held(c) == {"1": 29000, "2": 27000, "3": 27000, "4": 17000}  # 南's stick back
    assert _on_table(c) == 0 and compute(c.state)["rows"][-1]["riichi_points"] == {p: 0 for p in "1234"}
    places = c._coming()
    assert (places.prevalent, places.dealer_position, places.honba) == ("E", 1, 0)
    # the dealer's 错和 in the hand dealt again: 4000 to each
    _start(c)
    c.referee_action("referee.penalty", {"seat": "E", "code": "false_win"}, by="ref")
    assert c.state.actions[-1]["deltas"] == {"1": -12000, "2": 4000, "3": 4000, "4": 4000}
    assert sum(_held(c).values()) == 100000
    # the referee undoes it: the points come back
    c.referee_action("referee.undo", {"reason": "裁错"}, by="ref")
    assert _held(c) == {"1": 29000, "2": 27000, "3": 27000, "4": 17000}


def test_a_chombo_bars_the_seats_win_and_takes_no_amount(table: Controller) -> None:
    c = table
    _start(c)
    with pytest.raises(Exception, match="罚分由规则确定"):
        c.referee_action("referee.penalty", {"seat": "S", "code": "false_win", "amount": 1000}, by="ref")
    c.referee_action("referee.penalty", {"seat": "S", "code": "false_win"}, by="ref")
    c.record_play("play.discard", {"seat": "E", "tile": "4s"}, by="op")
    c.referee_action("referee.win_read", {"hand": {"seat_wind": "S", "concealed": parse_tiles("22444m333567p44s"),
                                                   "win_tile": "4s", "win": "discard", "discarder": "E"}}, by="ref")
    read = c.state.actions[-1]
    assert read.get("error") or not read["result"]["valid"]


def test_a_dead_hand_pays_nothing_and_is_not_ready_at_the_draw(table: Controller) -> None:
    """和了放弃 (dead hand) on 南: no points move when ruled; at 流局 its ready hand counts 不听 (WRC 7.1): 南 pays the
    dealer's 不听罚符 with the others, 3000 to the dealer alone."""
    c = table
    _start(c)
    c.referee_action("referee.penalty", {"seat": "S", "code": "dead_hand"}, by="ref")
    assert c.state.actions[-1]["deltas"] == {} and not c.state.actions[-1].get("error")
    c.record_play("play.discard", {"seat": "E", "tile": "9p"}, by="op")
    c.record_play("play.discard", {"seat": "S", "tile": "1z"}, by="op")
    seq = c.state.seq
    with pytest.raises(ActionError, match=r"南家已被判和了放弃（アガリ放棄）（#\d+），本盘不得立直"):
        c.record_play("play.riichi", {"seat": "S"}, by="op")
    assert c.state.seq == seq and not c.state.hand["riichi"]
    c.accept("operator", "operator.hand_end", {"hand_no": 1, "result": "draw"})
    c.referee_action("referee.exhaustive", {"hands": {
        "E": {"concealed": READY}, "S": {"concealed": READY}, "W": {"concealed": NOTEN},
        "N": {"concealed": parse_tiles("1357s1357p2468m5z")}}}, by="ref")
    assert c.state.actions[-1]["deltas"] == {"1": 3000, "2": -1000, "3": -1000, "4": -1000}
    assert sum(_held(c).values()) == 100000


def test_a_point_penalty_is_in_thousands(table: Controller) -> None:
    """罚点 (the referee's ruling) in riichi's points: 1000..20000 in thousands; the generic 0..100 was a tenth of a
    本场."""
    c = table
    _start(c)
    with pytest.raises(Exception, match="1000–20000"):
        c.referee_action("referee.penalty", {"seat": "W", "code": "other", "amount": 100}, by="ref")
    c.referee_action("referee.penalty", {"seat": "W", "code": "other", "amount": 2000}, by="ref")
    assert c.state.actions[-1]["deltas"] == {"3": -2000}


def test_wrcs_chombo_comes_off_the_standing_not_the_table(venue: Callable[..., Controller]) -> None:
    """WRC 2015 7.1 as a venue's file: 错和 is 20 off the overall score; the table's points do not move (the four hold
    4 × 25000), the places are those of the points held, the sheet and its CSV say what was taken; undone, it is
    back."""
    c = venue(UMA, (r'^pays = "tsumo" .*\namount = 8000$', 'pays = "standing"\namount = 20000'))
    _start(c)
    c.referee_action("referee.penalty", {"seat": "S", "code": "false_win"}, by="ref")
    assert not c.state.actions[-1].get("error") and c.state.actions[-1]["deltas"] == {}
    c.accept("operator", "operator.hand_end", {"hand_no": 1, "result": "abandoned"})
    sheet = compute(c.state)
    assert _held(c) == {p: 25000 for p in "1234"}
    assert sheet["standing_penalties"] == {"2": -20000}
    assert sheet["table_points"] == {"1": 0, "2": -20, "3": 0, "4": 0}  # four level: the uma shared, then −20
    assert "罚点（从终局分扣除）,,,,,,-20000" in to_csv(sheet)
    c.referee_action("referee.undo", {"reason": "裁错"}, by="ref")
    assert compute(c.state)["table_points"] == {p: 0 for p in "1234"}


def test_a_standing_penalty_needs_uma(venue: Callable[..., Controller], tmp_path: Path) -> None:
    with pytest.raises(Exception, match=r"须设 \[scoring\] uma"):
        venue((r'^pays = "tsumo" .*\namount = 8000$', 'pays = "standing"\namount = 20000'))


def _draw_two_ready(c: Controller) -> None:
    """东1局: 西 declares 立直, 流局 with 东 and 南 ready: each +1500, 西 and 北 −1500, 西's stick on the table; the
    referee then ends the session: 东 and 南 level first."""
    _start(c)
    c.record_play("play.discard", {"seat": "E", "tile": "9p"}, by="op")
    c.record_play("play.discard", {"seat": "S", "tile": "1z"}, by="op")
    c.record_play("play.discard", {"seat": "W", "tile": "2z"}, by="op")
    c.record_play("play.riichi", {"seat": "W"}, by="op")
    c.accept("operator", "operator.hand_end", {"hand_no": 1, "result": "draw"})
    c.referee_action("referee.exhaustive", {"hands": {
        "E": {"concealed": READY}, "S": {"concealed": READY}, "W": {"concealed": NOTEN},
        "N": {"concealed": parse_tiles("1357s1357p2468m5z")}}}, by="ref")
    c.referee_action("referee.session_start", {"minutes": 90}, by="ref")
    c.referee_action("referee.session_end", {}, by="ref")


def test_ties_share_the_uma_and_the_sticks_by_default(venue: Callable[..., Controller]) -> None:
    """WRC 5.9.2: 甲 and 乙 level first share the first and second uma (15 + 5) and the stick left on the table."""
    c = venue(UMA)
    _draw_two_ready(c)
    sheet = compute(c.state)
    assert sheet["final"] and sheet["rows"][-1]["riichi_leftover"] == 1000
    assert _held(c) == {"1": 27000, "2": 27000, "3": 22500, "4": 23500}
    assert sum(_held(c).values()) == 100000
    assert sheet["table_points"] == {"1": 12, "2": 12, "3": -17.5, "4": -6.5}


def test_ties_go_to_the_player_nearer_the_first_dealer_where_the_venue_says(venue: Callable[..., Controller]) -> None:
    """上家取り (`[scoring] ties = "seat_order"`, 天凤, M-League): 甲 dealt first, so 甲 is first and takes the stick."""
    c = venue((r"^\[scoring\]$", '[scoring]\numa = [15, 5, -5, -15]\nties = "seat_order"'))
    _draw_two_ready(c)
    sheet = compute(c.state)
    assert _held(c) == {"1": 27500, "2": 26500, "3": 22500, "4": 23500}
    assert sum(_held(c).values()) == 100000
    assert sheet["table_points"] == {"1": 17.5, "2": 6.5, "3": -17.5, "4": -6.5}


def test_ties_by_seat_order_under_table_points(venue: Callable[..., Controller]) -> None:
    """Without uma, 上家取り orders the 标准分 too: 4 to 甲, 2 to 乙, not 3 each."""
    c = venue((r"^\[scoring\]$", '[scoring]\nties = "seat_order"'))
    _draw_two_ready(c)
    assert compute(c.state)["table_points"] == {"1": 4, "2": 2, "3": 0, "4": 1}


def test_a_misspelt_ties_word_is_refused(venue: Callable[..., Controller]) -> None:
    """A venue's `ties = "seatorder"` shared the places without a word: the table's config is refused naming it."""
    with pytest.raises(Exception, match="seat_order"):
        venue((r"^\[scoring\]$", '[scoring]\nties = "seatorder"'))


def test_a_chombo_found_at_the_draw_pays_no_noten_payments(table: Controller) -> None:
    """南's 立直 not ready at 流局 (WRC 7.1: a チョンボ found at an exhaustive draw): the 查叫 had 东 paid 不听罚符; the
    referee rules 错和 and the hand is ended again 中止: it is dealt again, so its 不听罚符 and 南's stick are not paid,
    only the mangan."""
    c = table
    _riichi_by_south(c)
    c.accept("operator", "operator.hand_end", {"hand_no": 1, "result": "draw"})
    c.referee_action("referee.exhaustive", {"hands": {
        "E": {"concealed": READY}, "S": {"concealed": NOTEN}, "W": {"concealed": NOTEN},
        "N": {"concealed": parse_tiles("1357s1357p2468m5z")}}}, by="ref")
    assert c.state.actions[-1]["deltas"] == {"1": 3000, "2": -1000, "3": -1000, "4": -1000}
    with pytest.raises(ActionError, match="没有进行中的牌局"):  # a 荒牌 is not ended again without a 错和
        asyncio.run(c.end_hand(by="op", result="abandoned"))
    c.referee_action("referee.penalty", {"seat": "S", "code": "false_win"}, by="ref")
    with pytest.raises(ActionError, match=r"已判错和（诈和，チョンボ）（#\d+）：只能改记为中止"):
        asyncio.run(c.end_hand(by="op", result="draw"))
    asyncio.run(c.end_hand(by="op", result="abandoned"))  # as POST /api/hand/end (结束本盘) does
    assert c.state.hands[-1]["result"] == "abandoned" and len(c.state.hands) == 1
    assert _held(c) == {"1": 29000, "2": 17000, "3": 27000, "4": 27000}
    assert (c._coming().dealer_position, c._coming().honba) == (1, 0)


def test_a_chombo_that_had_the_hand_dealt_again_is_not_undone_once_the_next_hand_has_started(
        table: Controller) -> None:
    """北's 错和 (redeal) ended hand 1 中止 and the same dealer deals hand 2. Undone in hand 2, before: taken, the
    8000 went back while hand 1 stayed 中止 for a ruling no longer standing and its redeal was played on. Refused as
    the undo of that hand's win is (`referee.settled_undo`); a penalty that only moves points is undone as before."""
    c = table
    _riichi_by_south(c)
    c.referee_action("referee.penalty", {"seat": "N", "code": "false_win"}, by="ref")
    chombo = c.state.actions[-1]["seq"]
    c.accept("operator", "operator.hand_end", {"hand_no": 1, "result": "abandoned"})
    _start(c)
    held = _held(c)
    with pytest.raises(ActionError) as err:
        c.referee_action("referee.undo", {"reason": "裁错", "target": chombo}, by="ref")
    assert str(err.value).startswith(f"上一手已结束（第 2 盘已开始），不能再撤销：#{chombo} 是第 1 盘的罚分（北家错和（诈和，"
                                     "チョンボ），本盘作废重打），那一盘的结果已定"), err.value
    assert _held(c) == held and not [a for a in c.state.actions if a.get("undone")]
    c.referee_action("referee.penalty", {"seat": "W", "code": "other", "amount": 1000}, by="ref")
    c.accept("operator", "operator.hand_end", {"hand_no": 2, "result": "abandoned"})
    _start(c)
    c.referee_action("referee.undo", {"reason": "裁错"}, by="ref")  # a point penalty of hand 2, in hand 3: taken
    assert _held(c) == held

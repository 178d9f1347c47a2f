"""The regional rulesets' flow and session on the live table, read from their seeds clause by clause:
which claims are played (十万, 合肥: no chow), how many seats win on one discard (上海, 台湾: 一炮多响), who
deals next (十万 不连庄, 四圈, 中途换位; 台湾 连庄; 河北 连庄 and 荒庄). Before, the files of 十万, 合肥, 上海 and
台湾 had no `[flow]` or `[match]`: the live record took chows, refused a second winner (截和) and passed the
deal as if the seeds said nothing."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from table_controller.controller import Controller, _play_problem
from table_controller.referee import RefereeError, validate, winners
from table_controller.rules import load_ruleset
from table_controller.seating import coming

from offline import offline_controller  # type: ignore[import-not-found]
from test_referee_fold import Log  # type: ignore[import-not-found]

CHOW_3M = ("play.claim", {"seat": "S", "kind": "chow", "from": "E", "tiles": ["2m", "3m", "4m"]})
PUNG_3M = ("play.claim", {"seat": "W", "kind": "pung", "from": "E", "tiles": ["3m", "3m", "3m"]})


def _after_discard(ruleset: str) -> dict[str, Any]:
    """A hand of `ruleset` dealt, the dealer E having discarded 3m."""
    log = Log(ruleset)
    log.start()
    count = load_ruleset(ruleset).dice_count  # 台湾 throws three dice
    for dice in ([3, 4, 5][:count], [2, 5, 1][:count]):  # 国标's second throw, by the seat 7 counts to
        if log.state().hand["deal"] is None:
            seat = log.state().hand["next_thrower"]
            log.add("table", "table.dice", {"seat": seat, "wind": seat, "dice": dice})
    assert log.state().hand["deal"] is not None
    log.add("demo", "play.deal_done", {})
    log.add("demo", "play.discard", {"seat": "E", "tile": "3m"})
    return log.state().hand


@pytest.mark.parametrize("ruleset", ["shiwan", "hefei"])
def test_a_chow_is_refused_where_the_seed_has_none(ruleset: str) -> None:
    """十万 (seed 000 范文四 四.5): "行牌：…此过程包括抓牌、出牌、碰牌、开杠(明杠、暗杠)、和牌或荒牌"; 五.1 "行牌过程
    只能使用“碰牌”、"杠牌”、"和牌”等词语". 合肥 (seed 004): "不许吃牌，不许碰牌，必须有八枝"; seed 003 "胡牌：不许吃牌，
    只能碰一对必须有八枝". A pung of the same discard is played (the seeds disagree on 合肥's pungs: left to the
    referee)."""
    hand = _after_discard(ruleset)
    assert _play_problem(hand, *CHOW_3M) == f"本规则不可以吃 / {ruleset} has no chow"
    assert _play_problem(hand, *PUNG_3M) is None


@pytest.mark.parametrize("ruleset", ["mcr", "hebei", "taiwan"])
def test_a_chow_is_played_where_the_seed_has_one(ruleset: str) -> None:
    """国标, 河北 (seed 004 "可以吃、碰数次"), 台湾 (seed 003 上牌: "与江南麻将相同")."""
    assert _play_problem(_after_discard(ruleset), *CHOW_3M) is None


def _win(seat: str, concealed: str, tile: str) -> dict[str, Any]:
    return {"seat_wind": seat, "prevalent_wind": "E", "melds": [], "concealed": concealed.split(), "win_tile": tile,
            "win": "discard", "discarder": "E", "options": {"points": 8}}


@pytest.mark.parametrize("ruleset,s_hand,w_hand", [
    # 上海 (seed 000 范文七 名词定义): "一炮多响：当打出的牌其他两家或者三家都能胡牌，这种胡牌方式称为一炮多响"
    ("shanghai", "1m 2m 3m 4m 5m 6m 7m 8m 9m 1p 1p 2s 3s", "4p 5p 6p 7p 8p 9p 1s 2s 3s 5m 5m 5s 6s"),
    # 台湾 (seed 004, 003): "一炮三响：一家“出重”而三家齐吃和" (16 tiles held)
    ("taiwan", "1m 2m 3m 4m 5m 6m 7m 8m 9m 2p 3p 4p 1p 1p 2s 3s", "4p 5p 6p 7p 8p 9p 1s 2s 3s 7m 8m 9m 5m 5m 5s 6s"),
])
def test_two_seats_win_on_one_discard_where_the_seed_has_yipaoduoxiang(ruleset: str, s_hand: str,
                                                                       w_hand: str) -> None:
    log = Log(ruleset)
    log.start()
    log.ref("referee.win_read", hand=_win("S", s_hand, "4s"))
    log.ref("referee.win_confirm")
    log.ref("referee.win_read", hand=_win("W", w_hand, "4s"))
    validate(log.state(), "referee.win_confirm", {})  # 截和 refused it before
    log.ref("referee.win_confirm")
    assert winners(log.state().actions, 1) == ["S", "W"]


def test_mcr_still_has_one_winner_a_discard() -> None:
    log = Log("mcr")
    log.start()
    hand = "1m 2m 3m 4m 5m 6m 7m 8m 9m 1p 1p 1p 2p"
    log.ref("referee.win_read", hand={**_win("S", hand, "2p"), "options": {}})
    log.ref("referee.win_confirm")
    log.ref("referee.win_read", hand={**_win("N", hand, "2p"), "options": {}})
    with pytest.raises(RefereeError, match="截和"):
        validate(log.state(), "referee.win_confirm", {})


# -- who deals next -------------------------------------------------------------------------------------------



def _next(c: Controller) -> Any:
    return coming(c.state.ruleset, c.state.hands, c.state.actions)


def _play(c: Controller, hand_no: int, winner: str | None, hand: dict[str, Any] | None = None) -> None:
    """A hand dealt by the coming dealer; `winner` (a wind) wins on 东's discard (or 东 on 南's), None: 荒庄."""
    places = _next(c)  # what `Controller.start_hand` records
    c.accept("operator", "operator.hand_start", {
        "hand_no": hand_no, "ruleset": c.state.ruleset, "dealer_position": places.dealer_position,
        "prevalent_wind": places.prevalent, "seats": places.seats(),
        "seating": {str(chair): p for chair, p in enumerate(places.seating, start=1)}})
    if winner is not None:
        read = {**(hand or {}), "seat_wind": winner, "discarder": "S" if winner == "E" else "E"}
        c.referee_action("referee.win_read", {"hand": read}, by="referee")
        c.referee_action("referee.win_confirm", {}, by="referee")
    c.accept("operator", "operator.hand_end", {"hand_no": hand_no, "result": "win" if winner else "draw"})


WIN13 = {"prevalent_wind": "E", "melds": [], "concealed": "1m 2m 3m 4m 5m 6m 7m 8m 9m 1p 1p 1p 2p".split(),
         "win_tile": "2p", "win": "discard", "options": {"points": 5}}


def test_shiwan_the_deal_passes_every_hand_four_rounds_make_the_session_with_a_swap_midway(tmp_path: Path) -> None:
    """十万 (seed 000 范文四): 三.6 "无论是否和牌，庄家不连庄"; 三.4 "局：每打完四圈或达到规定时间为一局"; 四.6
    "原则上比赛中途换位一次…第一次换位是东南（1号2号位）互换，西北（3号4号位）互换"."""
    c = offline_controller(tmp_path, "shiwan")
    assert (_next(c).dealer_position, _next(c).prevalent) == (1, "E")
    _play(c, 1, "E", WIN13)  # the dealer wins: no 连庄
    assert _next(c).dealer_position == 2
    _play(c, 2, None)  # 荒牌: no 连庄 either
    assert _next(c).dealer_position == 3
    for n in range(3, 9):
        _play(c, n, None)
    places = _next(c)  # eight hands: the South round played, the West round next
    assert (places.dealer_position, places.prevalent, tuple(places.seating)) == (1, "W", (2, 1, 4, 3))
    for n in range(9, 17):
        assert not _next(c).over
        _play(c, n, None)
    assert _next(c).over  # 四圈: the 局 is over


def test_taiwan_the_dealer_who_wins_deals_again(tmp_path: Path) -> None:
    """台湾 (seeds 003, 004): "连庄，即是连续做一次庄。每连庄一次便加上一番"; 荒庄 is not said (the deal passes)."""
    c = offline_controller(tmp_path, "taiwan")
    hand16 = {**WIN13, "concealed": "1m 2m 3m 4m 5m 6m 7m 8m 9m 2p 3p 4p 1p 1p 2s 3s".split(), "win_tile": "4s"}
    _play(c, 1, "E", hand16)
    assert _next(c).dealer_position == 1
    _play(c, 2, "S", hand16)
    assert _next(c).dealer_position == 2
    _play(c, 3, None)
    assert _next(c).dealer_position == 3


def test_hebei_the_dealer_keeps_the_deal_on_a_win_and_on_huangzhuang(tmp_path: Path) -> None:
    """河北 (seed 001): "庄家胡牌，则庄家继续做庄，闲家胡牌，则庄家的下一家坐庄。荒庄，则庄家继续坐庄"."""
    c = offline_controller(tmp_path, "hebei")
    hand = {**WIN13, "options": {}}
    _play(c, 1, "E", hand)
    assert _next(c).dealer_position == 1
    _play(c, 2, None)
    assert _next(c).dealer_position == 1
    _play(c, 3, "W", hand)
    assert _next(c).dealer_position == 2  # 庄家的下一家


def test_taiwan_keeps_no_tiles_back_unless_a_house_file_keeps_sixteen(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """台湾's seeds (003, 004) say nothing of 荒牌: the wall is drawn to its last tile (walls.md). Seed 000 范文八 counts a
    144-tile, 16-tile game with "海底牌16张" kept back without naming a region: `reserve = 16` in a house file (the
    option taiwan.toml names) leaves 16 of the 79 standing tiles undrawn."""
    from table_controller.rules import deal_plan

    standing = 144 - (17 + 16 * 3)
    plan = deal_plan(load_ruleset("taiwan"), (4, 5, 1))
    assert (len(plan.live), len(plan.dead)) == (standing, 0)
    (tmp_path / "taiwan16.toml").write_text('id = "taiwan16"\nname_zh = "台湾麻将（留十六张）"\nname_en = "Taiwan, 16 kept"\n'
                                            'extends = "taiwan"\n[wall]\nreserve = 16\n', encoding="utf-8")
    monkeypatch.setenv("TABLECTL_RULESETS_DIR", str(tmp_path))
    kept = deal_plan(load_ruleset("taiwan16"), (4, 5, 1))
    assert (len(kept.live), len(kept.dead)) == (standing - 16, 16)
    assert kept.state_after(live_drawn=standing - 16).exhausted

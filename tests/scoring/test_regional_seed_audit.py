"""The regional rulesets the referee scores (合肥, 武汉, 十万), read against their seeds clause by clause: the 门槛
a win must meet and the 十万 penalty catalogue. Each expected value is worked from the quoted wording. Before, 合肥's
八枝 and 武汉's 开口 and 红中 were not checked (a closed 武汉 hand, or one holding 红中, was paid), and 十万's
有意诈和 had no entry (the referee had only 偷牌、藏牌 to disqualify with)."""

from __future__ import annotations

from typing import Any

import pytest

from table_controller.penalties import catalogue
from table_controller.scoring import ScoringError, score_json
from table_controller.scoring.catalog import fan_table
from table_controller.tiles import parse_tiles


def read(ruleset: str, concealed: str, win_tile: str, melds: list[dict[str, Any]] | None = None,
         points: int = 3) -> dict[str, Any]:
    """南 wins on 东's discard; the referee gives `points` (裁判计分)."""
    return score_json({"seat_wind": "S", "prevalent_wind": "E", "concealed": parse_tiles(concealed),
                       "win_tile": win_tile, "win": "discard", "discarder": "E", "melds": melds or [],
                       "options": {"points": points}}, ruleset)


def kong(tiles: str) -> dict[str, Any]:
    return {"type": "kong", "tiles": tiles, "concealed": True}


# -- 合肥 (seed 004 "八枝：和牌时需要一门有八张以上"; seed 003 "八枝：胡牌时需要一门有八张以上") ----------------------

def test_hefei_eight_of_one_suit_wins_and_is_paid_the_referees_points() -> None:
    won = read("hefei", "123m456m234p567p7m", "7m")  # 万 8 张: 123 456 77
    assert won["valid"] and won["payments"] == {"E": -3, "S": 3, "W": 0, "N": 0}
    two_kongs = read("hefei", "234p567p5s", "5s", melds=[kong("1111m"), kong("9999m")])
    assert two_kongs["valid"], two_kongs  # a kong is four tiles of its suit: 万 8 张


@pytest.mark.parametrize("concealed,tile,melds", [
    ("123m456m234p567p7s", "7s", []),               # 万 6, 筒 6, 条 2
    ("234m567p789p5s", "5s", [kong("1111m")]),      # 万 7 (a kong's four and 234), 筒 6
])
def test_hefei_no_suit_of_eight_is_refused_saying_baizhi(concealed: str, tile: str,
                                                         melds: list[dict[str, Any]]) -> None:
    refused = read("hefei", concealed, tile, melds)
    assert (refused["valid"], refused["reason"]) == (False, "no_eight_of_a_suit")
    assert refused["message"] == "不够和牌条件（八枝）：须有八枝（一门八张以上）/ needs eight or more tiles of one suit"


def test_hefei_fan_table_names_baizhi() -> None:
    assert [row["name"] for row in fan_table("hefei")] == ["裁判计分", "门槛：八枝"]


# -- 武汉 (seed 004 "武汉的讲究开口（即碰，吃，杠），不开口不能胡，两个胡不能胡，红中留在手上不能胡") ----------------------

CHI = {"type": "chi", "tiles": "123m", "from": "E"}  # 南's 上家 is 东


def test_wuhan_an_opened_hand_without_hongzhong_wins() -> None:
    won = read("wuhan", "456m789m666z5s", "5s", melds=[CHI], points=4)
    assert won["valid"] and won["payments"] == {"E": -4, "S": 4, "W": 0, "N": 0}
    pung = read("wuhan", "456m789m234p5s", "5s", melds=[{"type": "pung", "tiles": "111p", "from": "W"}])
    assert pung["valid"], pung
    # "开口（即碰，吃，杠）": the seed says 杠, not 明杠: a concealed kong opens the hand too
    assert read("wuhan", "123m456m789m5s", "5s", melds=[kong("1111p")])["valid"]


@pytest.mark.parametrize("concealed,tile,melds,reason,says", [
    ("123m456m789m234p5s", "5s", [], "not_opened", "不够和牌条件（开口）：须开口（碰、吃或杠）"),
    ("1122m3344p5566s9s", "9s", [], "not_opened", "不够和牌条件（开口）"),  # 七对: nothing laid down
    ("456m789m777z5s", "5s", [CHI], "red_dragon_held", "不够和牌条件（红中不在手）：红中留在手上不能胡"),
    ("456m789m77z55s", "7z", [CHI], "red_dragon_held", "不够和牌条件（红中不在手）"),  # won on 红中
])
def test_wuhan_a_closed_hand_or_one_holding_hongzhong_is_refused(concealed: str, tile: str,
                                                                 melds: list[dict[str, Any]], reason: str,
                                                                 says: str) -> None:
    refused = read("wuhan", concealed, tile, melds)
    assert (refused["valid"], refused["reason"]) == (False, reason) and refused["message"].startswith(says), refused


def test_wuhan_waits_leave_out_a_hand_holding_hongzhong(capsys: pytest.CaptureFixture[str]) -> None:
    """`tablectl waits` lists only what a win would take: a ready hand holding 红中 waits on nothing."""
    import json

    from table_controller.cli import main

    assert main(["waits", "456m789m666z5s", "--ruleset", "wuhan", "--meld", "chi:123m:E", "--seat", "S",
                 "--json"]) == 0
    assert [w["tile"] for w in json.loads(capsys.readouterr().out)["waits"]] == ["5s"]
    assert main(["waits", "456m789m777z5s", "--ruleset", "wuhan", "--meld", "chi:123m:E", "--seat", "S",
                 "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["waits"] == []


# -- 武汉 癞子 (seed 004 "3、持有或打出的[癞子]不能当普通牌来叫牌，即自己不能用来吃碰杠，打出去别人也不能用来吃碰杠胡";
# "如果翻出"北"，跳过"红中"，"发财"是"癞子""; walls.md: 红中 is never 癞子) ----------------------------------------

def _laizi(concealed: str, tile: str, laizi: str, melds: list[dict[str, Any]] | None = None,
           win: str = "discard") -> dict[str, Any]:
    return score_json({"seat_wind": "S", "prevalent_wind": "E", "concealed": parse_tiles(concealed), "win_tile": tile,
                       "win": win, "discarder": "E" if win == "discard" else None, "melds": melds or [CHI],
                       "options": {"points": 4, "wildcard": laizi}}, "wuhan")


def test_wuhan_laizi_stands_for_a_tile_held_or_drawn() -> None:
    assert _laizi("456m789m666z3p", "5s", "3p")["valid"]  # 3p, the 癞子, pairs the 5s: 软胡
    assert _laizi("456m789m666z5s", "3p", "3p", win="self_draw")["valid"]  # a 癞子 drawn pairs the 5s


@pytest.mark.parametrize("concealed,tile,melds,win", [
    ("456m789m666z5s", "3p", [CHI], "discard"),      # 打出去别人也不能用来…胡: won on a discarded 癞子 (3p)
    ("456m789m666z5s", "3p", [CHI], "rob_kong"),     # nor robbed from a kong
    ("456m789m666z5s", "5s", [{"type": "pung", "tiles": "333p", "from": "W"}], "discard"),  # 自己不能用来…碰
    ("456m789m666z5s", "5s", [{"type": "chi", "tiles": "234p", "from": "E"}], "discard"),   # …吃
    ("456m789m666z5s", "5s", [kong("3333p")], "discard"),                                    # …杠
])
def test_wuhan_laizi_is_never_claimed_or_melded_as_a_plain_tile(concealed: str, tile: str,
                                                                melds: list[dict[str, Any]], win: str) -> None:
    """Before, each of these was paid: the 癞子 played as the plain tile the seed says it cannot be."""
    hand = {"seat_wind": "S", "prevalent_wind": "E", "concealed": parse_tiles(concealed), "win_tile": tile,
            "win": win, "discarder": "E", "melds": melds, "options": {"points": 4, "wildcard": "3p"}}
    refused = score_json(hand, "wuhan")
    assert (refused["valid"], refused["reason"]) == (False, "laizi_as_plain"), refused
    assert refused["message"].startswith("不够和牌条件（癞子不作吃碰杠）：癞子不能用来吃、碰、杠，打出的癞子不能和"), refused


def test_wuhan_hongzhong_is_never_laizi_and_a_ruleset_without_one_takes_no_wildcard() -> None:
    """Before, the referee's 癞子 could be 红中 (no turned-up tile makes it), and 台湾, 合肥 or 内蒙, which turn no
    百搭 or 癞子 up, took any wildcard named: 台湾's 123456789m 234p 11p 6s 中 won on 8s, 中 standing for 7s."""
    from table_controller.scoring import win_options

    with pytest.raises(ScoringError) as err:
        _laizi("456m789m666z5s", "5s", "7z")
    assert err.value.field == "options.wildcard" and err.value.message.startswith("中不会是癞子"), err.value.message
    taiwan = {"seat_wind": "S", "prevalent_wind": "E", "concealed": parse_tiles("123456789m234p11p6s7z"),
              "win_tile": "8s", "win": "discard", "discarder": "E", "options": {"points": 4, "wildcard": "7z"}}
    for ruleset in ("taiwan", "hefei", "neimeng"):
        with pytest.raises(ScoringError) as err:
            score_json({**taiwan, "concealed": parse_tiles("123456789m11p6s7z")} if ruleset != "taiwan" else taiwan,
                       ruleset)
        assert err.value.field == "options.wildcard" and err.value.message.startswith("本规则没有百搭或癞子"), ruleset
        assert "wildcard" not in win_options(ruleset), ruleset  # the Win page asks for none
    assert "wildcard" in win_options("wuhan") and "wildcard" in win_options("fujian")


def test_a_tile_outside_the_rulesets_set_is_named_in_chinese() -> None:
    """合肥 plays 108 tiles: 东 read in a hand was "读牌中有不是牌的代码" (not a tile code), which 东 is."""
    from table_controller.scoring.errors import chinese_first

    with pytest.raises(ScoringError) as err:
        read("hefei", "123456789m11p1z1z", "1z")
    assert chinese_first(err.value, "hand.").startswith("东（1z）不是合肥麻将的牌"), err.value


@pytest.mark.parametrize("ruleset", ["neimeng", "fujian", "wuhan", "hefei", "taiwan"])
def test_the_referee_scored_fan_tables_say_their_rule_in_chinese_first(ruleset: str) -> None:
    """The Win page's fan table of a 裁判计分 ruleset: its first row read "裁判计分: the rule text gives no scoring; the
    referee gives the points ...", English after the name; the 门槛 rows below it were Chinese first."""
    for row in fan_table(ruleset):
        before = row["rule"].split(" / ")[0].split(" (seed")[0]
        assert not any("a" <= ch.lower() <= "z" for ch in before.replace("options.points", "").replace(
            "options.pays", "")), (ruleset, row)


# -- 十万 (seed 000 范文四) ---------------------------------------------------------------------------------------

def test_shiwan_tiles_run_to_ten_and_have_no_dragons() -> None:
    """二 "从1万至10万，各4张 … 字牌合计16张 东、南、西、北": 8-9-10 is a run; 中 is no tile of it."""
    assert read("shiwan", "8m9m10m 111p 234p 555s 10s", "10s")["valid"]
    with pytest.raises(ScoringError, match="not among this ruleset's tiles"):
        read("shiwan", "8m9m10m 111p 234p 777z 10s", "10s")


@pytest.mark.parametrize("code,pays,amount,amounts,stops_win,clause", [
    ("late_5", "dead", 10, (), False, "迟到…5分钟之内，警告一次，罚扣10分"),
    ("late_10", "dead", 20, (), False, "迟到10分钟之内，罚扣20分"),
    ("leave_5", "dead", 10, (), False, "中途离场…经裁判批准的，5分钟之内，罚扣10分"),
    ("leave_10", "dead", 20, (), False, "10分钟之内，罚扣20分"),
    ("wrong_claim", "dead", 0, (), True, "凡错碰、错杠者，在该盘中不得和牌"),
    ("empty_claim", "dead", None, (0, 5, 10, 20), False, "第一次警告，第二次罚5分，第三次罚10分，第四次罚20分"),
    ("early_draw", "dead", None, (0, 5, 10, 20), False, "上家未打出牌，即动手摸牌 … 第一次警告，第二次扣罚5分…"),
    ("wrong_draw_seen", "dead", 10, (), False, "已看见牌面，但未插入手牌中，判将牌归回原位，扣罚 10 分"),
    ("wrong_draw_kept", "dead", 0, (), True, "错拿的牌已插入手牌中，判停和、陪打"),
    ("slow_claim", "dead", None, (0, 5, 10, 20), False, "超过3秒钟碰牌 … 第1次警告，第2次扣罚5分…"),
    ("false_win", "each", 20, (), True, "诈和 … 本盘停和并罚给各家20分"),
    ("intentional_false_win", "dead", 0, (), True, "有意诈和 … 应予取消比赛资格"),
    ("wrong_count", "dead", 0, (), True, "相公，没有和牌的权利，只作陪打"),
    ("cheating", "dead", 0, (), True, "偷牌、藏牌 … 处以停赛"),
])
def test_shiwan_penalty_catalogue_is_the_seeds_section_eight(code: str, pays: str, amount: int | None,
                                                            amounts: tuple[int, ...], stops_win: bool,
                                                            clause: str) -> None:
    p = catalogue("shiwan").get(code)
    assert (p.pays, p.amount, p.amounts, p.stops_win) == (pays, amount, amounts, stops_win), clause


def test_shiwan_penalties_pay_as_the_seed_says() -> None:
    cat = catalogue("shiwan")
    false_win = cat.get("false_win")  # 八 2.(8)② "本盘停和并罚给各家20分"
    assert false_win.deltas("W", false_win.amount_for(0)) == {"E": 20, "S": 20, "W": -60, "N": 20}
    # 2.(5) 空碰: "第一次警告，第二次罚5分，第三次罚10分，第四次罚20分，以此类推"
    assert [cat.get("empty_claim").amount_for(n) for n in range(5)] == [0, 5, 10, 20, 40]
    # 2.(8)③ "差两张以上的牌才能听牌，却宣布和牌，即为有意诈和，应予取消比赛资格"
    assert cat.get("intentional_false_win").disqualify and cat.get("cheating").disqualify
    assert not cat.get("false_win").disqualify
    # 2.(9)③ "视情节轻重判罚责任者5-50分给被干扰者"
    exposed = cat.get("exposed_other")
    assert (exposed.pays, exposed.min, exposed.max) == ("victim", 5, 50)
    assert exposed.deltas("N", 30, victim="E") == {"E": 30, "S": 0, "W": 0, "N": -30}

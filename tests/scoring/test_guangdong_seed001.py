"""广东推倒胡 / 鸡平胡 fan by fan against seed 001 (广东麻将规则说明; 广东麻将规则详解 鸡平胡).

Expected values are worked by hand from the seed's words: 计算公式 = (番型1+番型2+...) × 翻倍 × 底分, 【自摸】2倍;
点和 the discarder pays one share, 自摸 each of the three pays it (底分 1, no 鬼牌 played, so no 硬胡).
"""

from __future__ import annotations

from typing import Any

import pytest

from scoring.scoring_helpers import hand
from table_controller.scoring import score_json


def names(out: dict[str, Any]) -> dict[str, int]:
    return {f["name"]: f["value"] * f["count"] for f in out["fans"]}


PUNG_999M = {"type": "pung", "tiles": ["9m"] * 3, "from": "N"}

# (seed words, hand, fans, the winner's gain): S wins (天胡: E); a discard comes from N.
CASES = [
    ("【碰碰胡】8倍，由四个刻子和将牌组成", hand("111m222p999s1144z", "4z", "discard", seat="S"), {"碰碰胡": 8}, 8),
    ("碰碰胡: the winner's own exposed pung is one of the four",
     hand("222p999s1144z", "4z", "discard", seat="S", melds=[PUNG_999M]), {"碰碰胡": 8}, 8),
    ("【混一色】8倍，万筒条中某一门花色和字牌; 自摸 2倍 from each", hand("123m456m789m1122z", "2z", seat="S"),
     {"混一色": 8}, 3 * 16),
    ("【清一色】16倍", hand("1112345678999m", "5m", "discard", seat="S"), {"清一色": 16}, 16),
    ("【七对】16倍", hand("1122m3344p5566s7z", "7z", seat="S"), {"七对": 16}, 3 * 32),
    ("【豪华七对】32倍，一组四张点数一样 (不计七对)", hand("1111m3344p5566s7z", "7z", seat="S"), {"豪华七对": 32}, 3 * 64),
    ("七对 and 清一色 add up", hand("1122334455667m", "7m", "discard", seat="S"), {"七对": 16, "清一色": 16}, 32),
    ("【混幺九】32倍 1、9序数牌+字牌，不计碰碰胡", hand("111m999p111s1122z", "2z", "discard", seat="S"), {"混幺九": 32}, 32),
    ("【小三元】48倍 2 dragon pungs, the third a pair", hand("123m456p5556667z", "7z", "discard", seat="S"),
     {"小三元": 48}, 48),
    ("【小四喜】48倍 (and 混一色)", hand("123m111z222z3334z", "4z", "discard", seat="S"), {"小四喜": 48, "混一色": 8}, 56),
    ("【字一色】64倍 不计碰碰胡; 自摸", hand("111z222z333z5556z", "6z", seat="S"), {"字一色": 64}, 3 * 128),
    ("字一色 of pairs (刻子、对子): 七对 adds", hand("1122334455667z", "7z", "discard", seat="S"),
     {"字一色": 64, "七对": 16}, 80),
    ("【清幺九】64倍 不计碰碰胡、混幺九", hand("111m999m111p9991s", "1s", "discard", seat="S"), {"清幺九": 64}, 64),
    ("【大三元】88倍 (碰碰胡 not excluded by the seed; 混一色 adds)", hand("111m55m555z666z77z", "7z", "discard", seat="S"),
     {"大三元": 88, "碰碰胡": 8, "混一色": 8}, 104),
    ("【大四喜】88倍 不计碰碰胡", hand("111z222z333z444z5m", "5m", "discard", seat="S"), {"大四喜": 88, "混一色": 8}, 96),
    ("【十三幺】88倍; 自摸", hand("19m19p19s1234567z", "1m", seat="S"), {"十三幺": 88}, 3 * 176),
    ("【天胡】64倍 庄家发完手牌立即胡牌 (鸡胡 shape)", hand("123m456p789s1122z", "2z", seat="E", options={"first_turn": True}),
     {"天胡": 64}, 3 * 128),
    ("【地胡】64倍 非庄家第一轮摸牌就胡牌", hand("123m456p789s1122z", "2z", seat="S", options={"first_turn": True}),
     {"地胡": 64}, 3 * 128),
    ("地胡 is 摸牌: a first-turn discard win is no 地胡", hand("123m456m789m1122z", "2z", "discard", seat="S",
                                                         options={"first_turn": True}), {"混一色": 8}, 8),
    ("海底捞月时鸡胡为8倍 (自摸)", hand("123m456p789s1122z", "2z", seat="S", last_tile=True), {"海底捞月": 8}, 3 * 16),
    ("抢杠胡时鸡胡为8倍, the konger pays three shares", hand("123m456p78s111z22z", "9s", "rob_kong", seat="S"),
     {"抢杠胡": 8}, 24),
    ("【杠上炮】8倍 on a hand with a 番型", hand("123m456m789m1122z", "2z", "discard", seat="S", options={"after_kong": True}),
     {"混一色": 8, "杠上炮": 8}, 16),
    ("a near miss of 清幺九: a chow of 1m makes a 鸡胡 (自摸)", hand("123m999m111p9991s", "1s", seat="S"),
     {"鸡胡": 2}, 3 * 4),
]


@pytest.mark.parametrize(("words", "data", "fans", "gain"), CASES, ids=[c[0][:24] for c in CASES])
def test_tuidaohu_fans_seed001(words: str, data: dict[str, Any], fans: dict[str, int], gain: int) -> None:
    out = score_json(data, "tuidaohu")
    assert out["valid"], words
    assert names(out) == fans, words
    assert out["payments"][data["seat_wind"]] == gain and sum(out["payments"].values()) == 0, words


@pytest.mark.parametrize("data", [
    hand("123m456p789s1122z", "2z", "discard", seat="S", options={"after_kong": True}),
    hand("123m456p789s1122z", "2z", "discard", seat="S", last_tile=True),
    hand("123m456p789s1122z", "2z", "discard", seat="S", options={"first_turn": True}),
])
def test_tuidaohu_chicken_never_wins_on_a_discard_seed001(data: dict[str, Any]) -> None:
    """Seed 001: "鸡胡只能自摸或者抢杠胡", "鸡只能自摸、抢杠胡、不能点炮胡"; 【杠上炮】"杠牌后，打出的牌造成其他玩家点炮胡牌"
    is a 点炮, and "当杠上开花、抢杠胡、海底捞月时，鸡胡为8倍" does not name it. A 鸡胡 shape on 杠上炮 won 8倍."""
    out = score_json(data, "tuidaohu")
    assert not out["valid"] and out["reason"] == "chicken_on_discard"


def test_jipinghu_chicken_wins_on_a_discard_at_no_fan() -> None:
    """鸡平胡 (seed 001 广东麻将鸡平胡) names no 鸡胡只能自摸: that is 推倒胡's rule; min_fan 0 lets a 0-番 鸡胡 take a
    discard, worth base × 2^0 = 1 from the discarder (the TOML's reading)."""
    out = score_json(hand("123m456p23p11s", "4p", "discard", seat="S", melds=[PUNG_999M]), "jipinghu")
    assert out["valid"] and names(out) == {} and out["payments"] == {"S": 1, "N": -1, "E": 0, "W": 0}


WILD = {"wildcard": "5z"}


@pytest.mark.parametrize(("data", "fans", "gain"), [
    # 万 pairs and a 东 paired by the 鬼牌: the 鬼牌 stands as 东, so 混一色 8 + 七对 16 = 24 (not 清一色 16 + 七对 16)
    (hand("112233445566m1z", "5z", "discard", seat="S", options=WILD), {"混一色": 8, "七对": 16}, 24),
    # the 鬼牌 is the fourth 1m: 豪华七对 32 (不计七对), 自摸 ×2 from each: 3 × 64
    (hand("111m5z3344p5566s7z", "7z", seat="S", options=WILD), {"豪华七对": 32}, 3 * 64),
    # two 鬼牌 as a second pair of a 万 kind held: 豪华七对 32 + 清一色 16 = 48
    (hand("112233445566m5z", "5z", "discard", seat="S", options=WILD), {"豪华七对": 32, "清一色": 16}, 48),
])
def test_tuidaohu_wildcard_in_seven_pairs_seed001(data: dict[str, Any], fans: dict[str, int], gain: int) -> None:
    """Seed 001: "赖子牌即为万能牌，可以做其他任意点数的牌"; 【豪华七对】"由七个对子组成的胡牌，且其中有一组四张牌点数一样的牌";
    【混一色】"由万筒条中某一门花色和字牌组成". The pairs a 鬼牌 completes are part of the hand: before, the reading left
    them out, so a 东 paired with a 鬼牌 vanished (清一色) and a 鬼牌 could not be the fourth of a kind."""
    out = score_json(data, "tuidaohu")
    assert out["valid"] and names(out) == fans
    assert out["payments"]["S"] == gain and sum(out["payments"].values()) == 0


@pytest.mark.parametrize(("data", "fans", "each"), [
    # four 万 pungs and a pair of two 鬼牌 (白): the pair may be 万, 碰碰胡 8 + 清一色 16 = 24, 自摸 ×2 = 48 from each
    (hand("111222333444m5z", "5z", seat="S", options=WILD), {"碰碰胡": 8, "清一色": 16}, 48),
    # 鬼牌 1m: three of them are the 中 pung beside 白 and 发 pungs: 大三元 88 + 混一色 8 = 96, 自摸 ×2 = 192 from each
    (hand("555z666z123p99p1m1m", "1m", seat="S", options={"wildcard": "1m"}), {"大三元": 88, "混一色": 8}, 192),
])
def test_tuidaohu_set_of_wildcards_alone_is_any_kind_seed001(data: dict[str, Any], fans: dict[str, int],
                                                              each: int) -> None:
    """Seed 001: "赖子牌即为万能牌，可以做其他任意点数的牌": a pair or set of 鬼牌 alone is any kind, not only the 鬼牌's
    own (before, three 一万 鬼牌 could not be the 中 of 大三元; the 万 case was found through other groupings)."""
    out = score_json(data, "tuidaohu")
    assert out["valid"] and names(out) == fans
    assert out["payments"] == {"S": 3 * each, "E": -each, "W": -each, "N": -each}


def test_tuidaohu_thirteen_orphans_through_wildcards_is_no_half_flush_seed001() -> None:
    """Seed 001 【十三幺】88倍 "有万筒条中的1、9序数牌及东南西北中发白七张字牌，加其中任意一张重复牌": four 鬼牌 (5m) standing
    for 一万 九万 一筒 九筒 still make a hand of three suits: 十三幺 88 alone, 自摸 ×2 = 176 from each (before, the
    鬼牌's orphans were left out of the reading and 混一色 8 was added)."""
    out = score_json(hand("19s12345677z5m5m5m", "5m", seat="S", options={"wildcard": "5m"}), "tuidaohu")
    assert out["valid"] and names(out) == {"十三幺": 88}
    assert out["payments"] == {"S": 528, "E": -176, "W": -176, "N": -176}

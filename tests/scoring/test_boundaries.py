"""Hands on the boundary of a rule, each a defect once: the rule the code follows is named."""

from __future__ import annotations

import pytest

from scoring.scoring_helpers import hand
from table_controller.scoring import ScoringError, score_json


@pytest.mark.parametrize("ruleset", ["sichuan", "xueliu"])
def test_sichuan_refuses_a_chow_seed003(ruleset: str) -> None:
    # seed 003 成都麻将主要规则 "不能吃牌" ([flow] no_chow): a hand with a 吃 cannot exist, so it is
    # bad_meld, never scored (before: 清一色 + 根 ×2 = 4 番, paid 16).
    data = hand("2223334445m", "5m", "discard", melds=[{"type": "chi", "tiles": "123m", "from": "N"}])
    with pytest.raises(ScoringError) as err:
        score_json(data, ruleset)
    assert err.value.code == "bad_meld" and err.value.field == "melds"


def test_tuidaohu_last_tile_is_drawn_seed001() -> None:
    # seed 001 推倒胡 "【海底捞月】8倍，摸到牌墙中的最后一张牌胡牌": drawn, not claimed. A chicken hand on the
    # last discard is still 鸡胡 on a discard (refused), not 海底捞月 8 (before: scored 8, paid by the discarder).
    chicken = hand("123m456p789s1122z", "2z", "discard", seat="S", discarder="E", last_tile=True)
    assert score_json(chicken, "tuidaohu")["reason"] == "chicken_on_discard"
    drawn = score_json(dict(chicken, win="self_draw"), "tuidaohu")
    assert {f["name"] for f in drawn["fans"]} == {"海底捞月"} and drawn["points"] == 8 * 2
    jp = score_json(hand("123m456p789s23p11s", "4p", "discard", last_tile=True), "jipinghu")
    assert "海底捞月" not in {f["name"] for f in jp["fans"]}


def test_earthly_win_is_a_first_draw_seed001() -> None:
    # seed 001 推倒胡 "【地胡】64倍，非庄家在第一轮摸牌就胡牌": self-drawn; on the dealer's discard it is
    # the hand it is (before: 地胡 64 on a discard). 南宁's 地胡 stays on a discard (test_malformed).
    first = {"first_turn": True}
    on_discard = score_json(hand("111m222p333s4455z", "5z", "discard", seat="S", discarder="E", options=first),
                            "tuidaohu")
    assert [f["name"] for f in on_discard["fans"]] == ["碰碰胡"] and on_discard["points"] == 8
    drawn = score_json(hand("111m222p333s4455z", "5z", seat="S", options=first), "tuidaohu")
    assert [f["name"] for f in drawn["fans"]] == ["碰碰胡", "地胡"] and drawn["points"] == (8 + 64) * 2
    jp = score_json(hand("123m456p789s23p11s", "4p", "discard", seat="S", discarder="E", options=first), "jipinghu")
    assert "地胡" not in {f["name"] for f in jp["fans"]} and jp["points"] == 4


def test_jipinghu_plain_hand_needs_a_suited_pair() -> None:
    # elements.plain (docs/scoring.md: an element's docstring is its rule): "平胡: four chows and a pair
    # of a suit". With a pair of 东 the hand is no 平胡 (before: 平胡 1 番 counted).
    honour_pair = score_json(hand("123m456p789s23p11z", "4p", "discard"), "jipinghu")
    assert "平胡" not in {f["name"] for f in honour_pair["fans"]} and honour_pair["total"] == 1  # 门清
    suited = score_json(hand("123m456p789s23p11s", "4p", "discard"), "jipinghu")
    assert {f["name"] for f in suited["fans"]} == {"平胡", "门清"}


@pytest.mark.parametrize("ruleset", ["sichuan", "xueliu", "tuidaohu", "jipinghu", "nanning"])
def test_no_flower_replacement_win_without_flowers(ruleset: str) -> None:
    # docs/scoring.md "Malformed input": a tile the ruleset does not play with is refused; with no
    # flowers in the set ([tiles] flowers = 0) a 补花和 cannot happen (before: scored as a 自摸).
    data = hand("123m456m789m11p23p", "4p", "flower_replacement")
    with pytest.raises(ScoringError) as err:
        score_json(data, ruleset)
    assert err.value.code == "bad_field" and err.value.field == "win"
    assert score_json(dict(data, win="self_draw"), ruleset)["valid"]


@pytest.mark.parametrize("ruleset", ["mcr", "jingji"])
def test_a_flower_replacement_win_needs_a_flower_laid_out(ruleset: str) -> None:
    # a 补花和 wins on the tile drawn for a flower, so that flower lies face up: a read without any
    # flower cannot be one (before: 竞技 scored its 补花和 6 all the same)
    data = hand("123m456m789m11p23p", "4p", "flower_replacement")
    with pytest.raises(ScoringError) as err:
        score_json(data, ruleset)
    assert err.value.code == "bad_field" and err.value.field == "win"
    fans = {f["name"] for f in score_json(dict(data, flowers=["1f"]), ruleset)["fans"]}
    assert "花牌" in fans and ("补花和牌" in fans) == (ruleset == "jingji")  # MCR's 补花 is a self-draw (不求人)


def test_blood_battle_discarder_must_still_play() -> None:
    # docs/scoring.md input table: `active` are the seats still in the hand (血战: those who have not
    # won); a seat that has left discards nothing, so a win on its discard cannot exist (before: that
    # seat paid for it).
    data = hand("123m456m789m1122p", "2p", "discard", discarder="S", active=["E", "W", "N"])
    with pytest.raises(ScoringError) as err:
        score_json(data, "sichuan")
    assert err.value.code == "bad_field" and err.value.field == "discarder"
    assert score_json(dict(data, discarder="W"), "sichuan")["payments"] == {"E": 1, "S": 0, "W": -1, "N": 0}

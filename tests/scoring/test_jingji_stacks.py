"""竞技麻将 (seed 004): 倍打 on every payment, 禁止非胜式和牌局结 for kongs and penalties, 诈和 罚分."""

from __future__ import annotations

from types import MappingProxyType
from typing import Any

import pytest

from table_controller.scoring import ScoringError, kong_payment, score_json
from table_controller.scoring import jingji
from table_controller.scoring.config import scoring


def self_draw(**over: Any) -> dict[str, Any]:
    data: dict[str, Any] = {"seat_wind": "E", "concealed": "123456789m78p99s", "win_tile": "9p",
                            "win": "self_draw"}
    data.update(over)
    return data


def test_double_multiplies_wins_kongs_and_chase_seed004() -> None:
    # 三十八 7 "倍打分：整体全面按照双倍计算所有得失分"; 三十 "连续坐庄继续倍打，但不再加倍计分"
    plain, doubled = score_json(self_draw(), "jingji"), score_json(self_draw(options={"double": True}), "jingji")
    assert doubled["double"] is True and plain["double"] is False
    assert doubled["payments"] == {s: 2 * v for s, v in plain["payments"].items()}
    assert jingji.kong_payment("S", "concealed", double=True) == {"E": -12, "S": 36, "W": -12, "N": -12}
    assert jingji.kong_payment("S", "exposed", discarder="E", double=True) == {"E": -24, "S": 24, "W": 0, "N": 0}
    assert jingji.chase_payment("W", double=True) == {"E": 8, "S": 8, "W": -24, "N": 8}
    note = {"type": "kong", "seat": "S", "kind": "flower", "double": True}   # the hand machine's note
    assert kong_payment("jingji", note) == {"E": -16, "S": 48, "W": -16, "N": -16}
    # 包付 doubles too: three shares, twice
    bao = score_json(self_draw(options={"double": True, "baofu": "W"}), "jingji")
    assert bao["payments"]["W"] == -6 * bao["total"]


def test_double_flag_must_be_a_boolean() -> None:
    with pytest.raises(ScoringError) as err:
        score_json(self_draw(options={"double": 2}), "jingji")
    assert (err.value.code, err.value.field) == ("bad_field", "options.double")


def test_kong_that_would_end_the_session_without_the_konger_first_is_held_outside_seed004() -> None:
    # 三十二 "杠牌和处罚的得失分只能挂于盘外，局结后累积得分": N's 暗杠 would empty S (W is already
    # empty) and leave E first
    pay = jingji.kong_payment("N", "concealed")
    g = jingji.guard_end({"E": 110, "S": 4, "W": 0, "N": 90}, pay, "N")
    assert g.balances == {"E": 110, "S": 4, "W": 0, "N": 90} and g.held == pay
    assert not g.voided and not g.over


def test_kong_that_makes_the_konger_first_ends_the_session_seed004() -> None:
    # 十五 "除非杠牌方自己成为局结第一名": N ends with 100 against E's 94
    g = jingji.guard_end({"E": 100, "S": 4, "W": 0, "N": 90}, jingji.kong_payment("N", "concealed"), "N")
    assert g.over and g.balances == {"E": 94, "S": 0, "W": 0, "N": 100} and g.held == {}


def test_kong_that_does_not_end_the_session_is_paid_on_the_spot_seed004() -> None:
    g = jingji.guard_end({"E": 100, "S": 50, "W": 0, "N": 90}, jingji.kong_payment("N", "concealed"), "N")
    assert g.balances == {"E": 94, "S": 44, "W": 0, "N": 102} and not g.over and g.held == {}


def test_void_reading_scores_nothing_seed004() -> None:
    # 十五 "遇到杠牌导致非胜式局结，则本次杠牌不得分" ([scoring.non_winning_end] kong = "void")
    table = MappingProxyType(dict(scoring("jingji"), non_winning_end={"kong": "void"}))
    g = jingji.guard_end({"E": 110, "S": 4, "W": 0, "N": 90}, jingji.kong_payment("N", "concealed"), "N", table)
    assert g.voided and g.held == {} and g.balances["N"] == 90


def test_dead_penalty_never_ends_the_session_seed004() -> None:
    # "任何杠牌或处罚而导致分数变化产生非胜式局结，均为禁止": dead points make nobody first
    g = jingji.guard_end({"E": 100, "S": 10, "W": 0, "N": 90}, jingji.false_win("S", 10), None)
    assert g.held == {"E": 0, "S": -10, "W": 0, "N": 0} and g.balances["S"] == 10


def test_false_win_penalty_in_units_of_ten_up_to_fifty_seed004() -> None:
    # 二十七 诈和 "应'罚分'处理为相公"; 三十八 6 "罚分可以判给明显亏损方 ... 或处理成盘外的死分 ...
    # 罚分限定为10分一个单位，限于50分以内"
    assert jingji.false_win("S", 20) == {"E": 0, "S": -20, "W": 0, "N": 0}
    assert jingji.false_win("S", 30, victim="W") == {"E": 0, "S": -30, "W": 30, "N": 0}
    assert jingji.false_win("S", 50, double=True) == {"E": 0, "S": -100, "W": 0, "N": 0}
    for bad in (0, 15, 60, True):
        with pytest.raises(ScoringError) as err:
            jingji.false_win("S", bad)
        assert err.value.field == "amount"
    with pytest.raises(ScoringError):
        jingji.false_win("S", 10, victim="S")

"""诈和 payments per ruleset (seeds 000, 003, 004; none stated in 001) and 四川 退税 at 荒牌."""

from __future__ import annotations

from types import MappingProxyType

import pytest

from table_controller.scoring import ScoringError, exhaustive_settlement, false_win
from table_controller.scoring import sichuan
from table_controller.scoring.config import scoring
from table_controller.scoring.hand import HandInput


def ready(concealed: str, seat: str, melds: list[dict[str, object]] | None = None) -> HandInput:
    return HandInput.from_json({"seat_wind": seat, "concealed": concealed, "melds": melds or []}, ready_only=True)


def drawn_hands() -> dict[str, HandInput]:
    return {
        "E": ready("1234567899m1p2s3s", "E"),   # 花猪
        "S": ready("1112345678999m", "S"),      # ready
        "W": ready("12345678m13579p", "W"),     # not ready
        "N": ready("1357m2468p99p", "N", [{"type": "kong", "tiles": "5555p", "concealed": True}]),  # not ready
    }


def test_tax_refund_a_seat_not_ready_gives_back_its_kong_money() -> None:
    # The kong payments follow seed 003 "下雨立刻收取其他未胡者2倍点數", "直杠立刻收取引杠者1倍点数";
    # 退税 itself is not in the seeds (a common 成都 reading, `tax_refund` in the TOML).
    rain = sichuan.kong_payment("N", "concealed")          # N not ready: refunded
    wind = sichuan.kong_payment("S", "exposed", "W")       # S ready: kept
    pig = sichuan.kong_payment("E", "exposed", "W")        # E a 花猪, not ready either: refunded
    with_refund = sichuan.settle_exhaustive(drawn_hands(), kongs=[rain, wind, pig])
    table = MappingProxyType(dict(scoring("sichuan"), tax_refund=False))
    without = sichuan.settle_exhaustive(drawn_hands(), table, kongs=[rain, wind, pig])
    assert with_refund["refunds"] == {"N": 6, "E": 1} and without["refunds"] == {}
    diff = {s: with_refund["payments"][s] - without["payments"][s] for s in "ESWN"}
    assert diff == {"E": -1 + 2, "S": 2, "W": 2 + 1, "N": -6}
    assert sum(with_refund["payments"].values()) == 0


def test_tax_refund_through_the_dispatcher_and_bad_kong_payments() -> None:
    docs = {"W": {"seat_wind": "W", "concealed": "12345678m13579p", "melds": []},
            "S": {"seat_wind": "S", "concealed": "1112345678999m", "melds": []}}
    out = exhaustive_settlement("xueliu", docs, kongs=[sichuan.kong_payment("W", "added", active=("S", "W"))])
    assert out is not None and out["refunds"] == {"W": 1}
    with pytest.raises(ScoringError) as err:
        sichuan.settle_exhaustive(drawn_hands(), kongs=[{"E": 1}])
    assert err.value.field == "kongs[0]"
    with pytest.raises(ScoringError):
        sichuan.settle_exhaustive(drawn_hands(), kongs=[{"E": 1, "S": 1, "W": -2}])


def test_sichuan_false_win_pays_each_what_the_declared_hand_would_win_seed003() -> None:
    # seed 003: "对诈和者均按输牌对待 ... 按诈和者欲和出的番数罚筹码，亦即和多少罚多少 ... 本盘停和并罚给各家"
    assert sichuan.false_win("S", 2) == {"E": 4, "S": -12, "W": 4, "N": 4}
    assert sichuan.false_win("S", 2, active=("S", "W", "N")) == {"E": 0, "S": -8, "W": 4, "N": 4}  # 血战: E won
    assert sichuan.false_win("S", 9)["E"] == 16   # 封顶 4番
    doubled = MappingProxyType(dict(scoring("sichuan"), false_win_factor=2))   # "也有的加倍罚"
    assert sichuan.false_win("S", 2, table=doubled)["E"] == 8
    with pytest.raises(ScoringError) as err:
        sichuan.false_win("S", -1)
    assert err.value.field == "fan"


def test_false_win_dispatch_per_ruleset() -> None:
    assert false_win("mcr", "S") == {"E": 10, "S": -30, "W": 10, "N": 10}
    # seed 004 三十八 6 "罚分可以判给明显亏损方 ... 或处理成盘外的死分"
    assert false_win("jingji", "S", amount=20, victim="E") == {"E": 20, "S": -20, "W": 0, "N": 0}
    assert false_win("jingji", "S", amount=20, double=True)["S"] == -40
    assert false_win("xueliu", "N", fan=1, active=["S", "N"]) == {"E": 0, "S": 2, "W": 0, "N": -2}
    for ruleset, kwargs, code in (("jingji", {}, "bad_field"), ("sichuan", {}, "bad_field"),
                                  ("tuidaohu", {}, "no_false_win_rule"), ("jipinghu", {"amount": 10}, "no_false_win_rule"),
                                  ("mcr", {}, "bad_field")):
        with pytest.raises(ScoringError) as err:
            false_win(ruleset, "X" if ruleset == "mcr" else "S", **kwargs)  # type: ignore[arg-type]
        assert err.value.code == code


def test_jingji_false_win_limits_agree_with_the_referee_catalogue() -> None:
    # one rule, two readers: [scoring.false_win] (payments) and [penalties] (the referee's list)
    from table_controller.rules import load_ruleset

    item = next(i for i in load_ruleset("jingji").sections["penalties"]["items"] if i["code"] == "false_win")
    rule = scoring("jingji")["false_win"]
    assert (item["min"], item["step"], item["max"]) == (rule["unit"], rule["unit"], rule["max"])

"""How a win's total becomes what each seat pays (`steps`, `shares`): applied to the total, the steps the scorer
names give every payer's amount, under every scored ruleset but riichi (its 本场/供托 page is its own).

Before, the result said none of it: a 推倒胡 鸡胡 自摸 without 鬼牌 read 鸡胡 2 / 硬胡 2, 合计 2, and each seat
paid 8 with 自摸 ×2 named nowhere and 硬胡 (a factor) in the fan table as if it were a 番型."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from scoring.scoring_helpers import hand
from scoring.test_properties import RULESETS, winning_hands
from table_controller import tiles as T
from table_controller.scoring import ScoringError, score_json


def amount(total: int, steps: list[dict[str, Any]]) -> int:
    """One share, read from the steps as the Win page reads them (this test's own reading, not the scorer's)."""
    x = total
    for step in steps:
        op, v = step["op"], step["value"]
        x = x * v if op == "×" else x + v if op == "+" else min(x, v) if op == "封顶" else v if op == "=" \
            else 2 ** x if op == "2^" else pytest.fail(f"unknown op {op!r}")
    return x


def check_steps(out: dict[str, Any], winner: str) -> None:
    """Every seat that pays pays one share, or what its `shares` entry says; every such seat pays; the rest pay
    nothing; the steps are data (a Chinese name, an English one, an op, a value), never a fan."""
    assert out["valid"], out
    each = amount(out["total"], out["steps"])
    shares = {s["seat"]: s for s in out["shares"]}
    for step in out["steps"] + out["shares"]:
        assert step["name"] and step["name_en"] and isinstance(step["value"], int), step
    assert not {s["name"] for s in out["steps"]} & {f["name"] for f in out["fans"]}, out
    payers = {w: -v for w, v in out["payments"].items() if v < 0}
    assert payers and set(shares) <= set(payers), out
    for seat, paid in payers.items():
        share = shares.get(seat)
        want = each if share is None else each * share["value"] if share["op"] == "×" else share["value"]
        assert paid == want, (seat, paid, want, out)
    assert out["payments"][winner] == sum(payers.values())


#: The rulesets whose tiles hold no honour (四川's 108), and those with no chow (不可吃): their hands are drawn so.
NO_HONOURS = ("sichuan", "xueliu")
NO_CHOWS = ("sichuan", "xueliu", "tuidaohu", "nanning")


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(ruleset=st.sampled_from(RULESETS), extra=st.data())
def test_the_steps_take_every_valid_win_from_its_total_to_each_payment(ruleset: str, extra: st.DataObject) -> None:
    """Generated winning hands, every scored ruleset: a 鬼牌 named (推倒胡 硬胡), 倍打 (竞技) and 封胡 (南宁) drawn."""
    data = extra.draw(winning_hands(honours=ruleset not in NO_HONOURS, chows=ruleset not in NO_CHOWS))
    options: dict[str, Any] = {}
    if ruleset == "tuidaohu" and extra.draw(st.booleans()):
        options["wildcard"] = extra.draw(st.sampled_from(["5z", "1m", "9s"]))
    if ruleset == "jingji":
        options["double"] = extra.draw(st.booleans())
    if ruleset == "nanning" and extra.draw(st.booleans()):
        options["sealed"] = extra.draw(st.sampled_from([w for w in T.SEATS if w != data["seat_wind"]]))
    try:
        out = score_json(dict(data, options=options), ruleset)
    except ScoringError:
        return  # the ruleset's own refusals (chows in 推倒胡, honours in 四川): test_properties holds them
    if out["valid"]:
        check_steps(out, data["seat_wind"])


def _steps(out: dict[str, Any]) -> list[tuple[str, str, int]]:
    return [(s["name"], s["op"], s["value"]) for s in out["steps"]]


KONG_FROM_N = {"type": "kong", "tiles": ["7p"] * 4, "from": "N"}

#: (ruleset, hand, the steps, the shares as (seat, name, op, value)): a case for each step and share a scorer names.
CASES: list[tuple[str, dict[str, Any], list[tuple[str, str, int]], list[tuple[str, str, str, int]]]] = [
    # the case found: 鸡胡 2 自摸 without 鬼牌, each pays 8
    ("tuidaohu", hand("123m456p789s1122z", "2z", seat="S", options={"wildcard": "5z"}),
     [("自摸", "×", 2), ("硬胡", "×", 2), ("底分", "×", 1)], []),
    ("tuidaohu", hand("111m456p78s11222z", "9s", "rob_kong", seat="S", discarder="W"),
     [("底分", "×", 1)], [("W", "抢杠胡包三家", "×", 3)]),
    ("tuidaohu", hand("111m456p78s22z", "9s", "kong_replacement", seat="S", melds=[KONG_FROM_N],
                      options={"kong_feeder": "N"}),
     [("自摸", "×", 2), ("底分", "×", 1)], [("N", "杠爆全包", "×", 3)]),
    ("jipinghu", hand("123m456m789m1155m", "5m", seat="S"),
     [("爆胡", "封顶", 3), ("番", "2^", 0), ("底分", "×", 1)], []),
    ("jipinghu", hand("19m19p19s1234567z", "1m", seat="S"),
     [("特殊牌型", "=", 5), ("番", "2^", 0), ("底分", "×", 1)], []),
    ("sichuan", hand("1111223344556m", "6m", seat="S"),
     [("封顶", "封顶", 4), ("番", "2^", 0), ("底分", "×", 1), ("自摸加底", "+", 1)], []),
    ("sichuan", hand("123m456m789m22p34p", "5p", "discard", seat="S"), [("番", "2^", 0), ("底分", "×", 1)], []),
    ("mcr", hand("123m456m789m22p34p", "5p", "discard", seat="S", discarder="W"),
     [("底分", "+", 8)], [("E", "底分", "=", 8), ("N", "底分", "=", 8)]),
    ("jingji", hand("123456789m78p99s", "9p", options={"double": True}), [("倍打", "×", 2)], []),
    ("jingji", hand("123456789m78p99s", "9p", "discard", seat="S"), [("点和", "×", 2)], []),
    ("jingji", hand("123456789m78p99s", "9p", "rob_kong", seat="S", discarder="W"), [("抢杠和", "×", 3)], []),
    ("jingji", hand("123456789m78p99s", "9p", "discard", seat="S", discarder="W", options={"baofu": "E"}),
     [], [("E", "吃碰包付", "×", 3)]),
    ("nanning", hand("123m456m789m22p34p", "5p", seat="S", options={"sealed": "W"}),
     [("底分", "×", 1)], [("W", "封胡", "×", 3)]),
    ("nanning", hand("123m456m789m22p34p", "5p", "discard", seat="S", discarder="W", options={"sealed": "W"}),
     [("底分", "×", 1)], [("W", "封胡", "×", 2)]),
    ("nanning", hand("123m456m789m22p34p", "5p", "discard", seat="S", discarder="E", options={"sealed": "W"}),
     [("底分", "×", 1)], [("W", "封胡", "×", 1)]),
    ("hebei", hand("123m456m789m22p34p", "5p", seat="S"), [], []),
]


@pytest.mark.parametrize(("ruleset", "data", "steps", "shares"), CASES,
                         ids=[f"{c[0]}-{'-'.join(n for n, _, _ in c[2]) or c[3][0][1] if c[2] or c[3] else 'none'}"
                              for c in CASES])
def test_each_step_and_share_a_scorer_names(ruleset: str, data: dict[str, Any], steps: list[tuple[str, str, int]],
                                            shares: list[tuple[str, str, str, int]]) -> None:
    """Each kind of step (×, +, 封顶, =, 2^) and of share (包三家, 杠爆全包, 包付, 封胡, 国标's 底分) once, by name."""
    out = score_json(data, ruleset)
    check_steps(out, data["seat_wind"])
    assert _steps(out) == steps
    assert [(s["seat"], s["name"], s["op"], s["value"]) for s in out["shares"]] == shares


def test_a_factor_is_no_fan_in_the_total() -> None:
    """推倒胡's 硬胡 multiplies, as 自摸 does: 合计 is the fans' sum, the fan table holds 番型 only."""
    out = score_json(CASES[0][1], "tuidaohu")
    assert [f["name"] for f in out["fans"]] == ["鸡胡"] and out["total"] == 2
    assert out["payments"] == {"E": -8, "S": 24, "W": -8, "N": -8}

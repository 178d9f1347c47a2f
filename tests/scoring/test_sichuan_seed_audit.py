"""四川血战 / 血流 audited against the seeds' own words (000 范文三, 003 成都麻将主要规则).

Every expected figure is worked by hand from the wording (base 1, 封顶 4 番, 自摸加底 as shipped):
003 "数番：1、杠或四归一、对对和、杠上开花为一番；2、七对、清一色为两番；3、无番也可和为P和；
4、必须是清缺才可和"; 000 "抢杠 ... 记1番", "海底捞 ... 则记一番"; 003 刮风下雨
"直杠立刻收取引杠者1倍点数 ... 面下杠立刻收取其他未胡者1倍点数 ... 下雨立刻收取其他未胡者2倍点數";
番 double the base (docs/scoring.md: `base × 2^min(番, cap_fan)`).
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Any

import pytest

from scoring.scoring_helpers import hand
from table_controller.scoring import ScoringError, kong_payment, score_json, sichuan
from table_controller.scoring.config import scoring
from table_controller.scoring.hand import HandInput


def names(out: dict[str, Any]) -> dict[str, int]:
    return {f["name"]: f["value"] * f["count"] for f in out["fans"]}


@pytest.mark.parametrize("ruleset", ["sichuan", "xueliu"])
def test_four_of_a_kind_counts_the_winners_own_exposed_pung_seed003(ruleset: str) -> None:
    """003 "杠或四归一 ... 为一番": 碰 5m and a 5m in the concealed 345m are four 5m, 一根.
    1 番 → 2, paid by the discarder N."""
    out = score_json(hand("345m678m11p22p", "2p", "discard",
                          melds=[{"type": "pung", "tiles": "555m", "from": "W"}]), ruleset)
    assert names(out) == {"根": 1} and out["total"] == 1 and out["points"] == 2
    assert out["payments"] == {"E": 2, "S": 0, "W": 0, "N": -2}


def test_all_pungs_with_a_claimed_kong_seed003() -> None:
    """003 "杠 ... 对对和 ... 为一番": 对对和 1 + the 直杠's 根 1 = 2 番 → 4."""
    out = score_json(hand("111m22p33p", "3p", "discard", melds=[
        {"type": "kong", "tiles": "5555m", "from": "W"}, {"type": "pung", "tiles": "777m", "from": "S"}]), "sichuan")
    assert names(out) == {"对对和": 1, "根": 1} and out["points"] == 4
    assert out["payments"]["N"] == -4


def test_full_flush_all_pungs_is_three_fan_seed003() -> None:
    """清一色 2 + 对对和 1 (清对) = 3 番 → 8; no 根."""
    out = score_json(hand("111m222m444m55m99m", "5m", "discard"), "sichuan")
    assert names(out) == {"对对和": 1, "清一色": 2} and out["total"] == 3 and out["points"] == 8


def test_seven_pairs_with_two_roots_reaches_the_cap_but_is_not_over_it_seed003() -> None:
    """七对 2 + 两根 (1111m, 2222m, each counted once) = 4 番 = 封顶 4: 16, not marked capped."""
    out = score_json(hand("1111m2222m3344p5p", "5p", "discard"), "sichuan")
    assert names(out) == {"七对": 2, "根": 2} and out["total"] == 4
    assert out["points"] == 16 and out["capped"] is False and out["payments"]["N"] == -16


def test_no_fan_win_pays_the_base_seed003() -> None:
    """003 "无番也可和为P和": 0 番 → 2^0 × 底 1 = 1."""
    out = score_json(hand("123m456m789m1122p", "2p", "discard"), "sichuan")
    assert out["valid"] is True and names(out) == {} and out["points"] == 1
    assert out["payments"] == {"E": 1, "S": 0, "W": 0, "N": -1}


def test_kong_replacement_win_and_only_the_seats_still_playing_pay_seed003() -> None:
    """003 "杠上开花为一番" + the 暗杠's 根 1 = 2 番 → 4; 自摸: each 未胡 seat pays 4 + 底 1."""
    data = hand("123m456m11p22p", "2p", "kong_replacement",
                melds=[{"type": "kong", "tiles": "9999m", "concealed": True}])
    out = score_json(data, "sichuan")
    assert names(out) == {"根": 1, "杠上开花": 1} and out["payments"] == {"E": 15, "S": -5, "W": -5, "N": -5}
    battle = score_json(dict(data, active=["E", "S", "W"]), "sichuan")   # 血战: N has won
    assert battle["payments"] == {"E": 10, "S": -5, "W": -5, "N": 0}


def test_rob_kong_and_last_tile_are_one_fan_each_seed000() -> None:
    """000 "抢杠 ... 记1番" (the konger pays) and "海底捞 ... 则记一番": 1 番 → 2 each."""
    robbed = score_json(hand("123m456m789m1113p", "2p", "rob_kong"), "sichuan")
    assert names(robbed) == {"抢杠": 1} and robbed["payments"] == {"E": 2, "S": 0, "W": 0, "N": -2}
    last = score_json(hand("123m456m789m1122p", "2p", "discard", last_tile=True), "sichuan")
    assert names(last) == {"海底": 1} and last["points"] == 2


def test_self_draw_adds_a_fan_within_the_cap() -> None:
    """`self_draw = "add_fan"` (自摸加番): P和 自摸 = 1 番 → 2 from each; 七对两根 + 自摸 = 5 番, capped at 16."""
    table = MappingProxyType(dict(scoring("sichuan"), self_draw="add_fan"))
    plain = sichuan.score(HandInput.from_json(hand("123m456m789m1122p", "2p")), table)
    assert plain.total == 1 and plain.payments == {"E": 6, "S": -2, "W": -2, "N": -2}
    big = sichuan.score(HandInput.from_json(hand("1111m2222m3344p5p", "5p")), table)
    assert big.total == 5 and big.points == 16 and big.payments["S"] == -16


def test_draw_check_pays_the_best_ready_hand_at_the_cap_and_a_missing_suit_pig_seed003() -> None:
    """荒牌 among the seats still playing (N has won): 查花猪 ("流局查卫生（查花猪）") and 查大叫.

    S 1111m22m33m44m55m6m waits 6m: 七对 2 + 清一色 2 + 根 1 = 5 番, capped 16 (3m or the 6m
    standard reading: 清一色 + 根 = 3 番, 8). W (two suits, not ready) pays S 16. E holds two suits
    but the 条 it gave up (定缺 s): a 花猪, it pays the cap 16 to S and to W.
    """
    def ready(concealed: str, seat: str, **options: str) -> HandInput:
        return HandInput.from_json({"seat_wind": seat, "concealed": concealed, "melds": [], "options": options},
                                   ready_only=True)

    out = sichuan.settle_exhaustive({"E": ready("123456789m1234s", "E", missing_suit="s"),
                                     "S": ready("1111m22m33m44m55m6m", "S"),
                                     "W": ready("12345678m13579p", "W")})
    assert out["flower_pigs"] == ["E"] and out["ready"] == {"S": 16} and out["not_ready"] == ["W"]
    assert out["payments"] == {"E": -32, "S": 32, "W": 0, "N": 0}


def test_rain_is_paid_by_the_seats_still_playing_only_seed003() -> None:
    """003 "下雨立刻收取其他未胡者2倍点數": 血战 with N out, S and W pay 2 each."""
    assert sichuan.kong_payment("E", "concealed", active=("E", "S", "W")) == {"E": 4, "S": -2, "W": -2, "N": 0}
    assert kong_payment("xueliu", {"seat": "E", "kind": "concealed"}) == {"E": 6, "S": -2, "W": -2, "N": -2}


def test_only_the_three_kongs_of_sichuan_are_paid_seed003() -> None:
    """003 names 刮风 (直杠, 面下杠) and 下雨 (暗杠) only. A 花杠 (竞技; 四川 has no flowers) was paid
    as a 下雨, 2 from each seat; a 直杠 from the konger itself paid nothing silently."""
    for kind in ("flower", "concealled"):
        with pytest.raises(ScoringError) as err:
            sichuan.kong_payment("E", kind)
        assert err.value.field == "kind"
    with pytest.raises(ScoringError) as err:
        kong_payment("sichuan", {"seat": "E", "kind": "flower"})
    assert err.value.field == "kind"
    with pytest.raises(ScoringError) as err:
        sichuan.kong_payment("E", "exposed", discarder="E")
    assert err.value.field == "discarder"

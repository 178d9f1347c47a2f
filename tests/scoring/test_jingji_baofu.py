"""竞技麻将 包付 (seed 004 三十四): 险牌的包付 (1) 清一色 and (2) 全求独钓, beside 吃碰包付."""

from __future__ import annotations

from types import MappingProxyType
from typing import Any

import pytest

from table_controller.scoring import ScoringError, score_json
from table_controller.scoring import jingji
from table_controller.scoring.baofu import related
from table_controller.scoring.config import scoring
from table_controller.scoring.hand import HandInput


def chi(tiles: str, src: str) -> dict[str, Any]:
    return {"type": "chi", "tiles": tiles, "from": src}


def pung(tiles: str, src: str) -> dict[str, Any]:
    return {"type": "pung", "tiles": tiles, "from": src}


def hand(concealed: str, win_tile: str, melds: list[dict[str, Any]], win: str = "discard",
         discarder: str | None = "W", **over: Any) -> dict[str, Any]:
    data: dict[str, Any] = {"seat_wind": "S", "concealed": concealed, "melds": melds,
                            "win_tile": win_tile, "win": win}
    if win in ("discard", "rob_kong"):
        data["discarder"] = discarder
    data.update(over)
    return data


# S's 上家 is E: S may 吃 only from E.
FLUSH3 = [chi("123p", "E"), pung("555p", "W"), pung("777p", "N")]


def test_flush_shown_by_three_claims_the_discarder_of_a_real_flush_pays_three_shares_seed004() -> None:
    # 三十四 2(1): "当一家盘面吃碰三次为清一色盘面形式时，任何一家点炮实际为清一色 ... 喂牌方一家支付三家分"
    out = score_json(hand("2399p", "4p", FLUSH3), "jingji")
    assert "清一色" in {f["name"] for f in out["fans"]}
    assert out["baofu"] == {"seat": "W", "rule": "清一色包付"}
    assert out["payments"] == {"E": 0, "S": 3 * out["total"], "W": -3 * out["total"], "N": 0}


def test_flush_display_but_a_half_flush_hand_is_an_ordinary_discard_seed004() -> None:
    # "点炮实际为清一色": a hand that turns out 混一色 (an honour pair) is only 点炮, ×2
    out = score_json(hand("23p11z", "4p", FLUSH3), "jingji")
    assert "baofu" not in out and "混一色" in {f["name"] for f in out["fans"]}
    assert out["payments"]["W"] == -2 * out["total"]


def test_fourth_flush_claim_binds_its_feeder_even_on_self_draw_seed004() -> None:
    # "或吃碰牌继续为清一色盘面（余下手牌不需亮牌），喂牌方一家支付三家分": N fed the fourth pung
    melds = FLUSH3 + [pung("888p", "N")]
    out = score_json(hand("9p", "9p", melds, win="self_draw", discarder=None), "jingji")
    assert out["baofu"] == {"seat": "N", "rule": "清一色包付"}
    assert out["payments"] == {"E": 0, "S": 3 * out["total"], "W": 0, "N": -3 * out["total"]}
    # ... and on a discard from another seat, the feeder still pays, not the discarder
    out = score_json(hand("9p", "9p", melds, discarder="E"), "jingji")
    assert out["payments"]["N"] == -3 * out["total"] and out["payments"]["E"] == 0


def test_flush_rule_reads_the_first_three_claims_in_order_seed004() -> None:
    # "吃碰三次为清一色盘面": a bamboo chow among the first three claims shows no flush
    melds = [chi("123s", "E"), pung("555p", "W"), pung("777p", "N")]
    out = score_json(hand("2399s", "4s", melds), "jingji")
    assert "baofu" not in out
    # a fourth claim of another suit ends the flush display: no feeder
    melds = FLUSH3 + [pung("111z", "N")]
    out = score_json(hand("9p", "9p", melds, win="self_draw", discarder=None), "jingji")
    assert "baofu" not in out


MELDED = [chi("123m", "E"), pung("999p", "W"), pung("333s", "N"), chi("789m", "E")]


def test_melded_single_wait_the_discarder_of_the_hung_tile_pays_three_shares_seed004() -> None:
    # 三十四 2(2): "当一家形成全求独钓，挂牌于牌墙上，该张牌的前后总计五张相关牌的点炮，均为包牌，一家支付三家分"
    out = score_json(hand("5p", "5p", MELDED), "jingji")
    assert "全求独钓" in {f["name"] for f in out["fans"]}
    assert out["baofu"] == {"seat": "W", "rule": "全求独钓包付"}
    assert out["payments"]["W"] == -3 * out["total"]
    # 自摸 of the hung tile (all pungs: 对对和): no discarder, each pays once
    pungs = [pung("111m", "E"), pung("999p", "W"), pung("333s", "N"), pung("777m", "E")]
    out = score_json(hand("5p", "5p", pungs, win="self_draw", discarder=None), "jingji")
    assert "baofu" not in out and out["payments"]["W"] == -out["total"]


def test_after_a_swap_the_discarder_pays_as_a_plain_discard_seed004() -> None:
    # "挂牌方换牌后，点炮方不再包牌，仅处理为点炮" (default reading: hanging_swap = "ends")
    out = score_json(hand("5p", "5p", MELDED, options={"hanging": "6p"}), "jingji")
    assert "baofu" not in out and out["payments"]["W"] == -2 * out["total"]


def with_baofu(**rules: Any) -> Any:
    table = dict(scoring("jingji"))
    table["baofu"] = MappingProxyType(dict(table["baofu"], **rules))
    return MappingProxyType(table)


def test_range_reading_keeps_the_five_related_tiles_after_a_swap_seed004() -> None:
    # the other reading (hanging_swap = "range"): "该张牌的前后总计五张相关牌的点炮，均为包牌" still
    # covers a swapped tile within two of the first hung one; winds cover winds, dragons dragons
    table = with_baofu(hanging_swap="range")
    near = jingji.score(HandInput.from_json(hand("5p", "5p", MELDED, options={"hanging": "7p"})), table)
    assert near.details["baofu"] == {"seat": "W", "rule": "全求独钓包付"}
    far = jingji.score(HandInput.from_json(hand("5p", "5p", MELDED, options={"hanging": "8p"})), table)
    assert "baofu" not in far.details and far.payments["W"] == -2 * far.total
    wind = jingji.score(HandInput.from_json(hand("3z", "3z", MELDED, options={"hanging": "1z"})), table)
    assert wind.details["baofu"]["seat"] == "W"
    dragon = jingji.score(HandInput.from_json(hand("5z", "5z", MELDED, options={"hanging": "1z"})), table)
    assert "baofu" not in dragon.details


def test_related_tiles_are_the_hung_tile_and_two_each_side() -> None:
    assert related("5p", 2) == {"3p", "4p", "5p", "6p", "7p"}
    assert related("1s", 2) == {"1s", "2s", "3s"}
    assert related("6z", 2) == {"5z", "6z", "7z"}


def test_claims_baofu_from_the_flow_comes_first_and_bad_options_are_named() -> None:
    out = score_json(hand("5p", "5p", MELDED, options={"baofu": "E"}), "jingji")
    assert out["baofu"] == {"seat": "E", "rule": "吃碰包付"}
    with pytest.raises(ScoringError) as err:
        score_json(hand("5p", "5p", MELDED, options={"hanging": "xx"}), "jingji")
    assert err.value.field == "options.hanging"
    with pytest.raises(ScoringError) as err:
        jingji.score(HandInput.from_json(hand("5p", "5p", MELDED, options={"hanging": "6p"})),
                     with_baofu(hanging_swap="sometimes"))
    assert err.value.code == "bad_ruleset_table"

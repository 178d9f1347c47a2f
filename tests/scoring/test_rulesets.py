"""竞技 (seed 004), 四川/血流 (seeds 000, 003) and 广东推倒胡/鸡平胡 (seed 001): worked examples and properties."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring.scoring_helpers import hand
from table_controller.scoring import (
    ScoringError,
    guangdong,
    jingji,
    score_json,
    sichuan,
)
from table_controller.scoring.hand import HandInput


def names(out: dict[str, Any]) -> dict[str, int]:
    return {f["name"]: f["value"] * f["count"] for f in out["fans"]}


# ---- 竞技麻将, seed 004 -----------------------------------------------------------------------

def test_jingji_seven_pairs_with_half_flush_adds_both_seed004() -> None:
    # seed 004 第九条 六(一): "七对"得分，同时为混一色的情况，加上"混一色"20分; 门清 8 is 附加分;
    # 七对 takes no 单张和牌 points (第七条). 点和: ×2 paid by the discarder.
    out = score_json(hand("1122334455m667z", "7z", "discard", seat="S", discarder="E"), "jingji")
    assert names(out) == {"七对": 30, "混一色": 20, "门清": 8}
    assert out["total"] == 58 and out["payments"] == {"S": 116, "E": -116, "W": 0, "N": 0}


def test_jingji_self_draw_each_pays_once_and_double_while_dealer_continues_seed004() -> None:
    # 清龙 10 + 门清 8 + 单张和牌? no: 1234567899m + 78p waits 6p/9p; 自摸 ×1 from each (第九条 四(二))
    data = hand("123456789m78p99s", "9p")
    out = score_json(data, "jingji")
    assert names(out) == {"清龙": 10, "门清": 8}
    assert out["payments"] == {"E": 54, "S": -18, "W": -18, "N": -18}
    doubled = score_json(dict(data, options={"double": True}), "jingji")  # 倍打
    assert doubled["payments"] == {"E": 108, "S": -36, "W": -36, "N": -36}


def test_jingji_single_wait_flowers_and_last_tile_seed004() -> None:
    # 嵌张 8p only: 单张和牌 4; two flowers 2 each; 妙手回春 8; 门清 8; 清龙 10
    out = score_json(hand("123456789m79p99s", "8p", flowers=["1f", "5f"], last_tile=True), "jingji")
    assert names(out) == {"清龙": 10, "花牌": 4, "单张和牌": 4, "妙手回春": 8, "门清": 8}


def test_jingji_rob_kong_konger_pays_three_shares_seed004() -> None:
    # 抢杠和牌由杠牌者一家支付三家分 (第九条 四(二))
    out = score_json(hand("123456789m78p99s", "9p", "rob_kong", discarder="W"), "jingji")
    assert out["payments"]["W"] == -3 * out["total"] and out["payments"]["E"] == 3 * out["total"]


def test_jingji_no_fan_no_win_seed004() -> None:
    # 无番禁和牌: 附加分 alone do not make a win
    out = score_json(hand("123m456p678s1199m", "9m", "discard", discarder="N"), "jingji")
    assert out == {"valid": False, "ruleset": "jingji", "reason": "no_fan", "message": "无番禁和牌: 须有技术型番种"}


def test_jingji_knitted_and_knitted_straight_seed004() -> None:
    assert "大乱" in names(score_json(hand("147m258p36s12345z", "9s"), "jingji"))
    assert "组合龙" in names(score_json(hand("147m258p369s1113z", "3z"), "jingji"))


def test_jingji_kong_chase_and_stacks_seed004() -> None:
    assert jingji.kong_payment("S", "exposed", discarder="E") == {"E": -12, "S": 12, "W": 0, "N": 0}
    assert jingji.kong_payment("S", "concealed") == {"E": -6, "S": 18, "W": -6, "N": -6}
    assert jingji.kong_payment("S", "flower") == {"E": -8, "S": 24, "W": -8, "N": -8}
    assert jingji.chase_payment("W") == {"E": 4, "S": 4, "W": -12, "N": 4}
    # 盘面100分付完为止: a seat pays at most what it holds; two empty seats end the 局
    new, over = jingji.settle({"E": 100, "S": 10, "W": 0, "N": 90}, {"E": 60, "S": -30, "W": -30, "N": 0})
    assert new == {"E": 110, "S": 0, "W": 0, "N": 90} and over


# ---- 四川, seeds 000 and 003 --------------------------------------------------------------------

def test_sichuan_dragon_seven_pairs_and_cap_seed003() -> None:
    # 003: 七对、清一色为两番; 杠或四归一 (根) 一番: 清一色龙七对 = 2+2+1 = 5 番, capped at 4
    out = score_json(hand("1111223344556m", "6m"), "sichuan")
    assert names(out) == {"七对": 2, "清一色": 2, "根": 1} and out["total"] == 5
    assert out["points"] == 16 and out["capped"] is True
    assert out["payments"] == {"E": 51, "S": -17, "W": -17, "N": -17}  # 自摸加底


def test_sichuan_needs_missing_suit_seed003() -> None:
    out = score_json(hand("123m456p789s1122s", "2s"), "sichuan")
    assert out["valid"] is False and out["reason"] == "three_suits"
    with pytest.raises(ScoringError):
        score_json(hand("123m456m789m11z22m", "2m"), "sichuan")  # no honours among 108 tiles


def test_blood_battle_self_draw_only_active_seats_pay_seed000() -> None:
    # 血战: a seat that has already won no longer pays
    out = score_json(hand("123m456m789m1122p", "2p", active=["E", "S", "N"]), "xueliu")
    assert out["payments"] == {"E": 4, "S": -2, "W": 0, "N": -2}


def test_sichuan_kong_rain_and_wind_seed003() -> None:
    # 直杠立刻收取引杠者1倍; 面下杠收取其他未胡者1倍; 下雨收取其他未胡者2倍
    assert sichuan.kong_payment("E", "exposed", discarder="W") == {"E": 1, "S": 0, "W": -1, "N": 0}
    assert sichuan.kong_payment("E", "added", active=("E", "S", "W")) == {"E": 2, "S": -1, "W": -1, "N": 0}
    assert sichuan.kong_payment("E", "concealed") == {"E": 6, "S": -2, "W": -2, "N": -2}


def test_sichuan_exhaustive_flower_pig_and_not_ready_seed000() -> None:
    def ready(concealed: str, seat: str) -> HandInput:
        return HandInput.from_json({"seat_wind": seat, "concealed": concealed, "melds": []}, ready_only=True)

    result = sichuan.settle_exhaustive({
        "E": ready("1234567899m1p2s3s", "E"),   # three suits: 花猪
        "S": ready("1112345678999m", "S"),      # ready (九莲 shape, 清一色)
        "W": ready("12345678m13579p", "W"),     # two suits, not ready
    })
    assert result["flower_pigs"] == ["E"] and result["not_ready"] == ["W"] and "S" in result["ready"]
    pay = result["payments"]
    # the pig pays the cap (16) to S and to W; W, not ready, pays S what S's best wait scores
    s_best = result["ready"]["S"]
    assert s_best == 8  # 清一色 2 + 根 1 (1m or 9m: 四归一) = 3 番
    assert pay == {"E": -32, "S": 16 + s_best, "W": 16 - s_best, "N": 0}


# ---- 广东推倒胡 / 鸡平胡, seed 001 -------------------------------------------------------------------

def test_tuidaohu_chicken_hand_rules_seed001() -> None:
    # 鸡胡 2倍 只能自摸或者抢杠胡; 杠上开花时鸡胡为8倍; 自摸 2倍
    chicken = hand("123m456p789s1122z", "2z", "discard", seat="S", discarder="E")
    assert score_json(chicken, "tuidaohu")["reason"] == "chicken_on_discard"
    drawn = score_json(dict(chicken, win="self_draw"), "tuidaohu")
    assert names(drawn) == {"鸡胡": 2} and drawn["points"] == 4
    konged = dict(chicken, concealed="1m 2m 3m 4p 5p 6p 7s 8s 9s 2z".split(),  # 杠上开花 needs the kong
                  melds=[{"type": "kong", "tiles": ["1z"] * 4, "concealed": True}])
    assert names(score_json(dict(konged, win="self_draw"), "tuidaohu")) == {"鸡胡": 2}
    kong = score_json(dict(konged, win="kong_replacement"), "tuidaohu")
    assert names(kong) == {"杠上开花": 8} and kong["points"] == 16


def test_tuidaohu_wildcard_and_hard_win_seed001() -> None:
    # 鬼牌 is any tile; 硬胡 (no 鬼牌 in the hand) doubles
    wild = hand("123m456p789s1125z", "1z", seat="S", options={"wildcard": "5z"})
    out = score_json(wild, "tuidaohu")
    assert out["valid"] and "硬胡" not in names(out)
    assert [s["name"] for s in out["steps"]] == ["自摸", "底分"]
    hard = score_json(hand("123m456p789s1122z", "2z", seat="S", options={"wildcard": "5z"}), "tuidaohu")
    # 硬胡 is a factor, not a 番型: not in the fan table (whose 合计 it never entered), a step of the payment
    assert names(hard) == {"鸡胡": 2} and hard["total"] == 2 and hard["points"] == 2 * 2 * 2
    assert [(s["name"], s["op"], s["value"]) for s in hard["steps"]] == [("自摸", "×", 2), ("硬胡", "×", 2), ("底分", "×", 1)]


def test_tuidaohu_horses_seed001_walls_md() -> None:
    # 买马: 1,5,9,东,中 → the winner; 2,6,南,发 → 下家; 3,7,西,白 → 对家; 4,8,北 → 上家
    assert [guangdong.horse_seat(t, "S") for t in ("1m", "7z", "2z", "6z", "3s", "5z", "4p", "4z")] == [
        "S", "S", "W", "W", "N", "N", "E", "E"]
    out = score_json(hand("111m222p333s4455z", "5z", seat="S", options={"horses": ["9m", "8p"]}), "tuidaohu")
    base = out["points"]
    # one horse on the winner (every loser pays again), one on 上家 E (E pays again)
    assert out["payments"] == {"S": 7 * base, "E": -3 * base, "W": -2 * base, "N": -2 * base}


def test_tuidaohu_no_chow_and_kongs_seed001() -> None:
    with pytest.raises(ScoringError) as err:
        score_json(hand("456p789s1122z", "2z", melds=[{"type": "chi", "tiles": "123m", "from": "N"}]), "tuidaohu")
    assert err.value.field == "melds"
    assert guangdong.kong_payment("E", "exposed", "S") == {"E": 3, "S": -3, "W": 0, "N": 0}
    assert guangdong.kong_payment("E", "concealed") == {"E": 6, "S": -2, "W": -2, "N": -2}


def test_jipinghu_cap_and_limit_hands_seed001() -> None:
    # 番 = 2倍; 爆胡 3番; 十三幺 breaks the cap and stands alone
    flush = score_json(hand("1112223334445m", "5m", seat="S"), "jipinghu")
    assert flush["capped"] is True and flush["points"] == 8
    orphans = score_json(hand("19m19p19s1234567z", "1m", seat="S"), "jipinghu")
    assert names(orphans) == {"十三幺": 13} and orphans["points"] == 32


# ---- properties, every ruleset ------------------------------------------------------------------

WINNERS = {
    "jingji": [hand("123456789m78p99s", "9p"), hand("1122334455m667z", "7z", "discard", seat="S", discarder="E")],
    "sichuan": [hand("1111223344556m", "6m"), hand("123m456m789m1122p", "2p", "discard", seat="W", discarder="S")],
    "xueliu": [hand("1112345678999m", "5m", "discard", seat="N", discarder="E")],
    "tuidaohu": [hand("111m222p333s4455z", "5z", seat="S", options={"horses": ["9m", "8p", "3z"]})],
    "jipinghu": [hand("123m456p789s1122z", "2z", "discard", seat="S", discarder="E")],
}
CASES = [(r, h) for r, hs in WINNERS.items() for h in hs]


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(CASES), st.randoms(use_true_random=False))
def test_any_order_same_score_and_zero_sum(case: tuple[str, dict[str, Any]], rnd: Any) -> None:
    ruleset, data = case
    tiles = HandInput.from_json(data).concealed
    shuffled = dict(data, concealed=rnd.sample(list(tiles), len(tiles)))
    a, b = score_json(data, ruleset), score_json(shuffled, ruleset)
    assert a == b and a["valid"]
    assert sum(a["payments"].values()) == 0


KINDS_136 = [f"{r}{s}" for s in "mps" for r in range(1, 10)] + [f"{r}z" for r in range(1, 8)]


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(list(WINNERS)), st.lists(st.sampled_from(KINDS_136), min_size=14, max_size=14),
       st.sampled_from(["self_draw", "discard"]))
def test_no_crash_on_any_hand(ruleset: str, tiles: list[str], win: str) -> None:
    data = hand("", tiles[13], win)
    data["concealed"] = tiles[:13]
    try:
        out = score_json(data, ruleset)
    except ScoringError as exc:  # a fifth copy, or an honour in 四川: named, never a crash
        assert exc.code in ("too_many_copies", "bad_tile")
        return
    assert out["valid"] in (True, False)
    if out["valid"]:
        assert sum(out["payments"].values()) == 0


def test_jingji_baofu_the_feeder_pays_three_shares_seed004() -> None:
    data = hand("123456789m78p99s", "9p", options={"baofu": "W"})
    out = score_json(data, "jingji")
    assert out["payments"] == {"E": 3 * out["total"], "S": 0, "W": -3 * out["total"], "N": 0}
    with pytest.raises(ScoringError):
        score_json(hand("123456789m78p99s", "9p", options={"baofu": "E"}), "jingji")


def test_jingji_stacks_forbid_some_wins_seed004() -> None:
    from table_controller.scoring import score as score_hand

    win = score_hand(HandInput.from_json(hand("1122334455m667z", "7z", "discard", seat="S", discarder="E")), "jingji")
    # 盘面无分者点炮，禁止和牌
    assert jingji.win_refusal({"E": 0, "S": 100, "W": 100, "N": 100}, win, "E") == "no_points_payer"
    # the win would empty E and, with W already empty, end the 局 with N first: 禁止非胜式和牌局结
    assert jingji.win_refusal({"E": 50, "S": 100, "W": 0, "N": 250}, win, "E") == "non_winning_end"
    # ... unless it leaves the winner first
    assert jingji.win_refusal({"E": 50, "S": 200, "W": 0, "N": 150}, win, "E") is None


def test_jingji_20_point_fans_seed004() -> None:
    # 全求独钓: four sets claimed, the pair won on a discard; all by pungs adds 对对和
    melds = [{"type": "pung", "tiles": t, "from": "S"} for t in ("111m", "999p", "333s")]
    melds.append({"type": "chi", "tiles": "789m", "from": "N"})
    out = score_json(hand("5p", "5p", "discard", discarder="W", melds=melds), "jingji")
    assert names(out) == {"全求独钓": 20, "单张和牌": 4}
    pungs = melds[:3] + [{"type": "pung", "tiles": "777m", "from": "W"}]
    assert names(score_json(hand("5p", "5p", "discard", discarder="W", melds=pungs), "jingji")) == {
        "全求独钓": 20, "对对和": 20, "单张和牌": 4}
    # 夹绝张: a 嵌张 win on the last 8s, three already seen (a pung on the table)
    out = score_json(hand("123m456p79s11z", "8s", "discard", discarder="N", visible={"8s": 3},
                          melds=[{"type": "chi", "tiles": "789p", "from": "N"}]), "jingji")
    assert "夹绝张" in names(out)
    # 全大: three 789 chows
    out = score_json(hand("789m789p789s234s5p", "5p", "discard", discarder="N"), "jingji")
    assert names(out)["全大"] == 20
    # 三箭刻 (30) over the three dragon pungs
    out = score_json(hand("555z666z777z123m9p", "9p"), "jingji")
    assert names(out)["三箭刻"] == 30


def test_kong_payment_dispatch_from_the_hand_notes() -> None:
    from table_controller.scoring import kong_payment

    note = {"type": "kong", "seat": "S", "kind": "exposed", "tile": "5p", "discarder": "E"}
    assert kong_payment("mcr", note) is None  # MCR pays kongs only as fans
    assert kong_payment("jingji", note) == {"E": -12, "S": 12, "W": 0, "N": 0}
    assert kong_payment("sichuan", note) == {"E": -1, "S": 1, "W": 0, "N": 0}
    assert kong_payment("tuidaohu", note) == {"E": -3, "S": 3, "W": 0, "N": 0}
    rain = {"seat": "S", "kind": "concealed"}
    assert kong_payment("xueliu", rain, active=("S", "W", "N")) == {"E": 0, "S": 4, "W": -2, "N": -2}
    with pytest.raises(ScoringError):
        kong_payment("jingji", {"seat": "S", "kind": "exposed"})


def test_a_typo_in_the_fan_table_is_an_error(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    from pathlib import Path

    source = Path(__file__).resolve().parents[2] / "config" / "rulesets" / "sichuan.toml"
    text = source.read_text(encoding="utf-8")
    (tmp_path / "sichuan.toml").write_text(text.replace('"清一色" = 2', '"清一sè" = 2'), encoding="utf-8")
    monkeypatch.setenv("TABLECTL_RULESETS_DIR", str(tmp_path))
    with pytest.raises(ScoringError) as err:
        score_json(hand("1111223344556m", "6m"), "sichuan")
    assert err.value.code == "bad_ruleset_table" and "清一sè" in str(err.value)


def test_scoring_reads_a_ruleset_file_once_not_at_each_hand(monkeypatch: pytest.MonkeyPatch) -> None:
    """The tile check (session 11) loaded the ruleset from its TOML at every score: 782 MCR hands
    a second instead of 25,000 (bench/scoring.py), and two demo tables spent most of their CPU on it."""
    from table_controller.rules import ruleset as ruleset_module
    from table_controller.scoring import HandInput, score

    hand = HandInput.from_json({"seat_wind": "E", "prevalent_wind": "E", "concealed": "1223434567899m",
                                "win_tile": "9m", "win": "self_draw"})
    score(hand, "mcr")  # whatever the first needs
    reads: list[object] = []
    real = ruleset_module._read_file
    monkeypatch.setattr(ruleset_module, "_read_file", lambda path: reads.append(path) or real(path))
    for _ in range(20):
        assert score(hand, "mcr").total > 0
    assert reads == []

"""南宁麻将 against seed 004's own words (胡牌牌型, 胡牌计算, 特殊规则), each value worked by hand:
what tests/scoring/test_nanning.py does not pin. Payments in 张, the winner N (a non-dealer)."""

from __future__ import annotations

from typing import Any

import pytest

from table_controller.scoring import ScoringError, kong_payment, score_json

RUN = "1m 2m 3m 4m 5m 6m 7m 8m 9m".split()


def pays(hand: dict[str, Any], seat: str = "N") -> tuple[list[tuple[str, int]], dict[str, int]]:
    r = score_json({"seat_wind": seat, "prevalent_wind": "E", **hand}, "nanning")
    assert r["valid"], r
    return [(f["name"], f["value"]) for f in r["fans"]], {w: v for w, v in r["payments"].items() if v}


def pung(tile: str, src: str) -> dict[str, Any]:
    return {"type": "pung", "tiles": [tile] * 3, "from": src}


def test_kong_discard_and_robbed_kong_add_the_concealed_hands_one() -> None:
    # 杠上炮 / 抢杠: "累计门清，清一色,碰碰胡等牌型" — a 门清 推倒胡 is 9 + 1 ("门清情况下，各加1 张")
    closed = {"concealed": RUN + "1p 1p 1p 2p".split(), "win_tile": "2p"}
    assert pays({**closed, "win": "discard", "discarder": "E", "options": {"after_kong": True}}) == (
        [("杠上炮", 9), ("门清", 1)], {"E": -10, "N": 10})
    robbed = {"concealed": "1m 2m 3m 4m 5m 6m 7m 8m 1p 1p 1p 2p 2p".split(), "win_tile": "9m"}
    assert pays({**robbed, "win": "rob_kong", "discarder": "E"}) == ([("抢杠", 9), ("门清", 1)], {"E": -10, "N": 10})
    # near miss: one pung claimed, not 门清: 9 alone
    open_ = {"concealed": RUN + ["2p"], "win_tile": "2p", "melds": [pung("1p", "W")]}
    assert pays({**open_, "win": "discard", "discarder": "E", "options": {"after_kong": True}})[1] == {"E": -9, "N": 9}
    # a pattern carries 门清 in its own value: 清一色 门清 放冲 12 + 杠上炮 9, no extra one
    flush = {"concealed": "1m 1m 1m 2m 3m 4m 5m 6m 7m 8m 9m 9m 9m".split(), "win_tile": "5m"}
    assert pays({**flush, "win": "discard", "discarder": "E", "options": {"after_kong": True}}) == (
        [("清一色", 12), ("杠上炮", 9)], {"E": -21, "N": 21})
    # 海底 names no 门清 ("累计清一色,碰碰胡等牌型"): 6 from each, nothing more
    assert pays({**closed, "win": "self_draw", "last_tile": True})[1]["E"] == -6


def test_a_flower_kong_is_refused_not_paid_as_an_exposed_kong() -> None:
    # "南宁麻将，共一百三十六张 … 没有梅、兰、竹、菊、春、夏、秋、冬": there is no 花杠 to pay
    with pytest.raises(ScoringError, match="flower"):
        kong_payment("nanning", {"seat": "S", "kind": "flower"})


def test_patterns_read_the_winners_own_melds() -> None:
    # 清一色 counts the exposed pung: a 1p pung breaks it (推倒胡 2), a 5m pung keeps it (9)
    hand = {"concealed": RUN + ["2m"], "win_tile": "2m", "win": "discard", "discarder": "E"}
    assert pays({**hand, "melds": [pung("1p", "W")]})[0] == [("推倒胡", 2)]
    assert pays({**hand, "melds": [pung("5m", "W")]})[0] == [("清一色", 9)]
    # 对对胡 with a 明杠, a pung and a 暗杠 among the sets: 9 on a discard (not 门清)
    kongs = [{"type": "kong", "tiles": ["1m"] * 4, "from": "W"}, pung("3s", "E"),
             {"type": "kong", "tiles": ["7s"] * 4, "concealed": True}]
    assert pays({"concealed": "9p 9p 9p 2z".split(), "win_tile": "2z", "melds": kongs,
                 "win": "discard", "discarder": "E"})[0] == [("对对胡", 9)]


def test_a_concealed_kong_still_counts_as_concealed() -> None:
    # "有暗杠也算门清": 门清自摸 每家付4分
    hand = {"concealed": RUN + ["2p"], "win_tile": "2p", "melds": [{"type": "kong", "tiles": ["5s"] * 4, "concealed": True}]}
    assert pays({**hand, "win": "self_draw"})[1] == {"E": -4, "S": -4, "W": -4, "N": 12}


def test_seven_pairs_tiers_and_flush_add_up() -> None:
    # 大七对 "只要手上有4张一样的就算 … 可以累计门清，清一色": 七大对 16 + 清一色 门清 8 from each
    assert pays({"concealed": "1m 1m 1m 1m 3m 3m 5m 5m 7m 7m 9m 9m 2m".split(), "win_tile": "2m",
                 "win": "self_draw"}) == ([("清一色", 8), ("七大对", 16)], {"E": -24, "S": -24, "W": -24, "N": 72})
    # three kinds four times: 超超豪华七对 96 on a discard, alone
    assert pays({"concealed": "1m 1m 1m 1m 3p 3p 3p 3p 5s 5s 5s 5s 2z".split(), "win_tile": "2z",
                 "win": "discard", "discarder": "E"}) == ([("超超豪华七对", 96)], {"E": -96, "N": 96})


def test_last_tile_and_heavenly() -> None:
    # 海底 "累计清一色,碰碰胡等牌型 … 6+6=12分"
    melds = [pung("1m", "W"), pung("3s", "E"), pung("7s", "S")]
    assert pays({"concealed": "9p 9p 9p 2z".split(), "win_tile": "2z", "melds": melds, "win": "self_draw",
                 "last_tile": True}) == ([("对对胡", 6), ("海底", 6)], {"E": -12, "S": -12, "W": -12, "N": 36})
    # 天胡 100 张 (the dealer, 自摸: from each)
    assert pays({"concealed": RUN + "1p 1p 1p 2p".split(), "win_tile": "2p", "win": "self_draw",
                 "options": {"first_turn": True}}, seat="E")[1] == {"E": 300, "S": -100, "W": -100, "N": -100}

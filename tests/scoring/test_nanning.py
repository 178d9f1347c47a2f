"""南宁麻将 (seed 004): 张 per pattern, 自摸 from each and 放冲 from the discarder, patterns adding up,
ways of winning, kongs paid on the spot; and the live table running a 南宁 hand with it."""

from __future__ import annotations

from typing import Any

import pytest

from table_controller.scoring import ScoringError, kong_payment, score_json


def pays(hand: dict[str, Any]) -> tuple[list[tuple[str, int]], dict[str, int]]:
    r = score_json({"seat_wind": "N", "prevalent_wind": "E", **hand}, "nanning")
    assert r["valid"], r
    return [(f["name"], f["value"]) for f in r["fans"]], {w: v for w, v in r["payments"].items() if v}


PLAIN = "1m 2m 3m 4m 5m 6m 7m 8m 9m 1p 1p 1p 2p".split()


def test_a_plain_hand_pays_two_on_a_discard_three_from_each_self_drawn_and_one_more_concealed() -> None:
    # "推倒胡，基本胡牌类型自摸3 张，放冲2 张。门清情况下，各加1 张。"
    open_hand = {"concealed": "1m 2m 3m 4m 5m 6m 7m 8m 9m 2p".split(), "win_tile": "2p",
                 "melds": [{"type": "pung", "tiles": ["1p"] * 3, "from": "W"}]}
    assert pays({**open_hand, "win": "discard", "discarder": "E"}) == ([("推倒胡", 2)], {"E": -2, "N": 2})
    assert pays({**open_hand, "win": "self_draw"})[1] == {"E": -3, "S": -3, "W": -3, "N": 9}
    assert pays({"concealed": PLAIN, "win_tile": "2p", "win": "discard", "discarder": "E"}) == (
        [("推倒胡", 2), ("门清", 1)], {"E": -3, "N": 3})
    assert pays({"concealed": PLAIN, "win_tile": "2p", "win": "self_draw"})[1]["E"] == -4  # 门清自摸 每家付4分


def test_patterns_replace_the_plain_hand_and_add_up() -> None:
    # 对对胡 + 清一色, 门清, on a discard: 12 + 12 ("可以累计"); open: 9 + 9
    pungs = "1m 1m 1m 3m 3m 3m 5m 5m 5m 7m 7m 7m 9m".split()
    assert pays({"concealed": pungs, "win_tile": "9m", "win": "discard", "discarder": "E"}) == (
        [("对对胡", 12), ("清一色", 12)], {"E": -24, "N": 24})
    open_pungs = {"concealed": "3m 3m 3m 5m 5m 5m 7m 7m 7m 9m".split(), "win_tile": "9m",
                  "melds": [{"type": "pung", "tiles": ["1m"] * 3, "from": "S"}]}
    assert pays({**open_pungs, "win": "discard", "discarder": "E"})[1] == {"E": -18, "N": 18}
    assert pays({**open_pungs, "win": "self_draw"})[1]["W"] == -12  # 自摸 6 + 6 from each
    # seven pairs: 七小对 8 / 12, one kind four times: 七大对 16 / 24, two: 超豪华 32 / 48
    assert pays({"concealed": "1m 1m 3m 3m 5m 5m 7m 7m 9m 9m 2p 2p 2z".split(), "win_tile": "2z",
                 "win": "discard", "discarder": "S"})[0] == [("七小对", 12)]
    assert pays({"concealed": "1m 1m 1m 1m 3m 3m 5m 5m 7m 7m 9m 9m 2z".split(), "win_tile": "2z",
                 "win": "self_draw"})[1]["E"] == -16
    assert pays({"concealed": "1m 1m 1m 1m 3m 3m 3m 3m 7m 7m 9m 9m 2z".split(), "win_tile": "2z",
                 "win": "discard", "discarder": "S"})[0] == [("超豪华七对", 48)]


def test_all_melded_counts_only_on_a_discard() -> None:
    # "全求人：剩最后一张牌,胡牌 … 18分 (自摸算对对胡,只有放炮才算全求人)"
    melds = [{"type": "pung", "tiles": [t] * 3, "from": f} for t, f in (("2p", "E"), ("4p", "S"), ("6s", "W"), ("1z", "E"))]
    got = pays({"concealed": ["8s"], "win_tile": "8s", "melds": melds, "win": "discard", "discarder": "W"})
    assert got == ([("对对胡", 9), ("全求人", 18)], {"W": -27, "N": 27})
    assert pays({"concealed": ["8s"], "win_tile": "8s", "melds": melds, "win": "self_draw"})[0] == [("对对胡", 6)]


def test_ways_of_winning_replace_the_plain_value_and_say_who_pays() -> None:
    pungs = [{"type": "pung", "tiles": ["5p"] * 3, "from": "E"}, {"type": "pung", "tiles": ["6p"] * 3, "from": "S"}]
    hand = {"concealed": "1m 2m 3m 4m 5m 6m 7m".split(), "win_tile": "7m", "melds": pungs}
    kong = {"concealed": "1m 2m 3m 4m".split(), "win_tile": "4m"}
    exposed = {**kong, "melds": pungs + [{"type": "kong", "tiles": ["7s"] * 4, "from": "W"}]}
    concealed = {**kong, "melds": pungs + [{"type": "kong", "tiles": ["7s"] * 4, "concealed": True}]}
    # 明杠杠上花: 被杠者一人付18 (算放炮); 暗杠杠上花: 每家付9 (算自摸)
    assert pays({**exposed, "win": "kong_replacement"}) == ([("杠上开花", 18)], {"W": -18, "N": 18})
    assert pays({**concealed, "win": "kong_replacement"})[1] == {"E": -9, "S": -9, "W": -9, "N": 27}
    # 杠上炮 9 from the discarder; 抢杠 9 from the konger; 海底 6 from each; 海底炮 9
    assert pays({**hand, "win": "discard", "discarder": "E", "options": {"after_kong": True}})[1] == {"E": -9, "N": 9}
    closed = {**hand, "concealed": "1m 2m 3m 4m 6m 9m 9m".split(), "win_tile": "5m"}  # 嵌张: no 5m held
    assert pays({**closed, "win": "rob_kong", "discarder": "S"})[1] == {"S": -9, "N": 9}
    assert pays({**hand, "win": "self_draw", "last_tile": True})[1]["E"] == -6
    assert pays({**hand, "win": "discard", "discarder": "E", "last_tile": True})[1] == {"E": -9, "N": 9}


def test_no_chows_no_flowers_and_kongs_paid_on_the_spot() -> None:
    with pytest.raises(ScoringError, match="不可吃"):
        score_json({"seat_wind": "N", "concealed": "1m 2m 3m 4m 5m 6m 7m 8m 9m 2p".split(), "win_tile": "2p",
                    "melds": [{"type": "chi", "tiles": ["1p", "2p", "3p"], "from": "W"}],
                    "win": "discard", "discarder": "W"}, "nanning")
    def kong(note: dict[str, Any]) -> dict[str, int]:
        return {w: v for w, v in (kong_payment("nanning", note) or {}).items() if v}

    assert kong({"seat": "S", "kind": "exposed", "discarder": "E"}) == {"S": 1, "E": -1}
    assert kong({"seat": "S", "kind": "added", "discarder": "W"}) == {"S": 1, "W": -1}  # 碰后再杠: the feeder
    assert kong({"seat": "S", "kind": "concealed"}) == {"E": -1, "S": 3, "W": -1, "N": -1}


def test_the_live_table_pays_a_nanning_added_kong_from_the_seat_that_fed_the_pung() -> None:
    from table_controller.scoresheet import compute
    from table_controller.state import fold
    from table_controller.store import Event

    evs = [("controller.configured", {"ruleset": "nanning", "players": {}}),
           ("operator.hand_start", {"hand_no": 1, "ruleset": "nanning", "dealer_position": 1, "prevalent_wind": "E",
                                    "seats": {"E": 1, "S": 2, "W": 3, "N": 4}}),
           ("play.deal_done", {}), ("play.discard", {"seat": "E", "tile": "5p"}),
           ("play.claim", {"seat": "W", "kind": "pung", "from": "E", "tiles": ["5p"] * 3}),
           ("play.discard", {"seat": "W", "tile": "9m"}), ("play.discard", {"seat": "N", "tile": "9s"}),
           ("play.discard", {"seat": "E", "tile": "2z"}), ("play.discard", {"seat": "S", "tile": "3z"}),
           ("play.kong", {"seat": "W", "tiles": ["5p"] * 4, "added": True})]
    state = fold(Event(i + 1, 1000.0 + i, "camera", t, d) for i, (t, d) in enumerate(evs))
    assert [k["by_wind"] for k in state.hand["kong_payments"]] == [{"W": 1, "E": -1}]
    assert compute(state)["rows"][-1]["kong_points"] == {"1": -1, "2": 0, "3": 1, "4": 0}


def test_the_seat_sealed_by_three_pungs_pays_for_the_winner_seed004_fenghu() -> None:
    """封胡 (南宁麻将封胡, 特殊规则 4): A fed B three pungs. B 自摸: A pays the three shares alone;
    A 放炮: two shares; C 放炮: C its share and A one more (旅游); a 明杠 杠开 counts as the
    feeder's discard. The seat named must be another than the winner."""
    fed = [{"type": "pung", "tiles": [t] * 3, "from": "E"} for t in ("1z", "5z", "9p")]
    hand = {"concealed": "2m 3m 4m 8s".split(), "win_tile": "8s", "melds": fed, "options": {"sealed": "E"}}
    # 对对胡 fails (a chow): the plain hand, 3 from each self-drawn, 2 on a discard
    assert pays({**hand, "win": "self_draw"})[1] == {"E": -9, "N": 9}
    assert pays({**hand, "win": "discard", "discarder": "E"})[1] == {"E": -4, "N": 4}
    assert pays({**hand, "win": "discard", "discarder": "W"})[1] == {"W": -2, "E": -2, "N": 4}
    kong = {**hand, "concealed": ["8s"], "melds": fed + [{"type": "kong", "tiles": ["6m"] * 4, "from": "S"}]}
    names, paid = pays({**kong, "win": "kong_replacement"})
    t = sum(v for _, v in names)  # 杠上开花 18 and 对对胡
    assert ("杠上开花", 18) in names and paid == {"S": -t, "E": -t, "N": 2 * t}
    assert pays({**hand, "win": "self_draw", "options": {}})[1] == {"E": -3, "S": -3, "W": -3, "N": 9}
    for bad in ("N", "X"):
        with pytest.raises(ScoringError, match="sealed"):
            score_json({"seat_wind": "N", "prevalent_wind": "E", **hand, "win": "self_draw",
                        "options": {"sealed": bad}}, "nanning")

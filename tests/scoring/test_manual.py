"""裁判计分: rulesets with walls but no scoring here (上海, 台湾, 十万, 南京, 福建 ...). The hand is
checked against the ruleset's tiles, hand size and a winning shape; the referee gives the points."""

from __future__ import annotations

from typing import Any

import pytest

from table_controller.scoring import ScoringError, referee_scored, score_json, scored_rulesets
from table_controller.tiles import parse_tiles


def read(ruleset: str, concealed: str, win_tile: str, **more: Any) -> dict[str, Any]:
    hand = {"seat_wind": "S", "prevalent_wind": "E", "concealed": parse_tiles(concealed), "win_tile": win_tile,
            "win": "discard", "discarder": "E", **more}
    return score_json(hand, ruleset)


def test_which_rulesets_the_referee_scores() -> None:
    assert all(not referee_scored(r) for r in scored_rulesets())
    assert all(referee_scored(r) for r in ("shanghai", "taiwan", "fujian", "wuhan", "hefei", "hainan", "nanjing",
                                           "shiwan", "guangdong"))
    assert not referee_scored("klondike")
    with pytest.raises(ScoringError) as err:
        read("klondike", "123m456m789m11p23s", "4s", options={"points": 8})
    assert err.value.code == "unknown_ruleset"


def test_the_points_come_from_the_referee_the_shape_from_the_tiles() -> None:
    hand = "123m456m789m11p23s"
    r = read("shanghai", hand, "4s")
    assert not r["valid"] and r["reason"] == "needs_points" and "裁判计分" in r["message"]
    r = read("shanghai", hand, "4s", options={"points": 8})
    assert r["valid"] and r["payments"] == {"E": -8, "S": 8, "W": 0, "N": 0}
    assert r["fans"] == [{"name": "裁判计分", "value": 8, "count": 1}] and r["referee_scored"]
    r = read("shanghai", hand, "4s", win="self_draw", discarder=None, options={"points": 8})
    assert r["payments"] == {"E": -8, "S": 24, "W": -8, "N": -8} and r["total"] == 24
    r = read("shanghai", hand, "4s", options={"pays": {"E": 10, "N": 2}})
    assert r["payments"] == {"E": -10, "S": 12, "W": 0, "N": -2}
    assert read("shanghai", hand, "9s", options={"points": 8})["reason"] == "not_a_win"
    # a special hand the ruleset allows whatever its shape (上海 乱风向): named, not checked
    r = read("shanghai", "1z1z2z3z3z4z5z5z6z6z7z7z7z", "2z", options={"points": 40, "special": "乱风向"})
    assert r["valid"] and r["special"] == "乱风向" and r["fans"][0]["name"] == "裁判计分（乱风向）"


def test_hand_size_ranks_tiles_and_wildcards_follow_the_ruleset() -> None:
    # 台湾: 16 tiles before the win, five sets and a pair
    assert read("taiwan", "123m456m789m234p11p67s", "8s", options={"points": 5})["valid"]
    with pytest.raises(ScoringError, match="needs 16"):
        read("taiwan", "123m456m789m11p23s", "4s", options={"points": 5})
    # 十万: ranks to 10, so 8-9-10 is a chow
    assert read("shiwan", "8m9m10m 111p 234p 555s 10s", "10s", options={"points": 3})["valid"]
    # 合肥: 108 tiles, no honours; 南京: 中发白 are flowers, never in the hand
    with pytest.raises(ScoringError, match="not among this ruleset's tiles"):
        read("hefei", "1133m5577p99s11z2z", "2z", options={"points": 3})
    with pytest.raises(ScoringError, match="not among this ruleset's tiles"):
        read("nanjing", "123m456m789m11p5z5z", "5z", options={"points": 3})
    assert read("nanjing", "123m456m789m11p23s", "4s", flowers=["5z", "1f"], options={"points": 3})["valid"]
    with pytest.raises(ScoringError, match="flowers"):
        read("hefei", "123m456m789m11p23s", "4s", flowers=["1f"], options={"points": 3})
    # seven pairs and 十三幺 for 13-tile hands
    assert read("shanghai", "1133m5577p99s11z2z", "2z", options={"points": 3})["valid"]
    assert read("shanghai", "19m19p19s1234567z", "1z", options={"points": 3})["valid"]
    # 福建 百搭 / 武汉 癞子: the referee names the wildcard turned up on the wall
    wild = "123m456m789m11p2s5z"
    assert read("fujian", wild, "4s", options={"points": 4})["reason"] == "not_a_win"
    assert read("fujian", wild, "4s", options={"points": 4, "wildcard": "5z"})["valid"]
    opened = [{"type": "chi", "tiles": "123m", "from": "E"}]  # 武汉: 不开口不能胡 (seed 004)
    assert read("wuhan", "456m789m6z6z6z2s", "2s", melds=opened, options={"points": 4, "wildcard": "6z"})["valid"]


@pytest.mark.parametrize("options,field", [
    ({"points": 8, "pays": {"E": 1}}, "options.pays"), ({"points": 0}, "options.points"),
    ({"points": True}, "options.points"), ({"points": 10**9}, "options.points"), ({"pays": {"S": 4}}, "options.pays.S"),
    ({"pays": {"E": -4}}, "options.pays.E"), ({"pays": {"E": 0}}, "options.pays"), ({"pays": []}, "options.pays"),
    ({"points": 8, "wildcard": "1f"}, "options.wildcard"), ({"points": 8, "special": ""}, "options.special"),
])
def test_bad_referee_options_name_the_field(options: dict[str, Any], field: str) -> None:
    with pytest.raises(ScoringError) as err:
        read("shanghai", "123m456m789m11p23s", "4s", options=options)
    assert err.value.field == field


def test_what_only_the_referee_can_give_a_win_read_per_ruleset() -> None:
    from table_controller.scoring import win_options

    assert win_options("mcr") == [] and win_options("sichuan") == []
    assert win_options("jipinghu") == ["first_turn"] and win_options("nanning") == ["first_turn"]  # 天胡, 地胡
    assert win_options("tuidaohu") == ["wildcard", "horses", "horse_origin", "first_turn"]  # 鬼牌, 买马 (一炮多响)
    assert win_options("riichi") == ["riichi", "ippatsu", "dora", "ura_dora", "honba", "first_turn"]
    assert win_options("shanghai") == ["points", "special"]  # 裁判计分; no 百搭 turned up (seed 000 范文七)
    assert win_options("fujian") == win_options("wuhan") == ["points", "special", "wildcard"]  # 百搭, 癞子
    assert win_options("klondike") == []


def test_tablectl_waits_where_the_referee_scores(capsys: Any) -> None:
    """The shape's waits of a ready hand of the ruleset's size (16 in 台湾), the points the referee's."""
    import json

    from table_controller.cli import main

    assert main(["waits", "123456789m11p23s", "--ruleset", "shanghai", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["referee_scored"] and [w["tile"] for w in out["waits"]] == ["1s", "4s"]
    assert main(["waits", "123456789m1123p456s", "--ruleset", "taiwan"]) == 0
    assert "一筒" in capsys.readouterr().out  # 1123p: 1p or 4p
    assert main(["waits", "123456789m11p23s", "--ruleset", "taiwan"]) == 2  # 13 tiles: 台湾 holds 16
    assert "needs 16" in capsys.readouterr().err

"""竞技麻将 fans against seed 004 第九条 三 (番种): the wording's boundary cases not pinned elsewhere.

Expected points are hand-computed from the seed: 大乱 20, 夹绝张 20, 花龙 10; 附加分 门清 8, 单张和牌 4;
自摸 总分 ×1 from each of three, 点和 总分 ×2 from the discarder (第九条 四).
"""

from __future__ import annotations

from typing import Any

import pytest

from scoring.scoring_helpers import hand
from table_controller.scoring import score_json
from table_controller.scoring.hand import HandInput
from table_controller.scoring.waits import waits


def names(out: dict[str, Any]) -> dict[str, int]:
    return {f["name"]: f["value"] * f["count"] for f in out["fans"]}


@pytest.mark.parametrize("concealed, win_tile", [
    ("159m258p14s12345z", "7s"),   # 1-5-9: four apart, neither 连 nor 夹, though not one 147/258/369 family
    ("147m147p14s12345z", "7s"),   # the same 147 in all three suits
    ("147m258p36s12345z", "9s"),   # the 国标 全不靠 spread, still 大乱
])
def test_daluan_is_every_hand_whose_suited_tiles_are_neither_adjacent_nor_one_apart_seed004(
        concealed: str, win_tile: str) -> None:
    """Seed 004 第九条 三 6: "大乱（十四不靠）：所有序数牌张不连不夹，并含单张字牌的和牌。" The text asks only that
    no two tiles of a suit be 连 (adjacent) or 夹 (one apart); before, only 国标 全不靠's 147/258/369 families,
    a different one in each suit, were read as 大乱 and the first two hands were no win at all.
    大乱 20 + 门清 8 = 28, 自摸: each of the three pays 28."""
    out = score_json(hand(concealed, win_tile), "jingji")
    assert out["valid"] and names(out) == {"大乱": 20, "门清": 8}
    assert out["total"] == 28 and out["payments"] == {"E": 84, "S": -28, "W": -28, "N": -28}


@pytest.mark.parametrize("concealed, win_tile", [
    ("127m258p36s12345z", "9s"),   # 1m 2m: 连
    ("137m258p36s12345z", "9s"),   # 1m 3m: 夹
    ("147m258p36s11234z", "9s"),   # a pair of 东: 字牌 must be 单张
])
def test_daluan_near_misses_are_no_win_seed004(concealed: str, win_tile: str) -> None:
    """Seed 004 第九条 三 6 "所有序数牌张不连不夹，并含单张字牌": one 连, one 夹, or a paired honour is no 大乱."""
    assert score_json(hand(concealed, win_tile), "jingji")["reason"] == "not_a_win"


def test_daluan_waits_follow_the_seed_wording_seed004() -> None:
    """Seed 004 "所有序数牌张不连不夹": 159m 258p 14s + 东南西北白 is ready on every tile at least three from 1s and
    4s (7s 8s 9s) and on the two honours it lacks (发 中); nothing in 万 or 筒 fits beside 159 / 258."""
    ready = HandInput.from_json({"seat_wind": "E", "prevalent_wind": "E", "concealed": "159m258p14s12345z",
                                 "melds": [], "win": "discard"}, ready_only=True)
    assert sorted(w.tile for w in waits(ready, "jingji")) == ["6z", "7s", "7z", "8s", "9s"]


def test_jiajuezhang_counts_the_winners_own_pung_on_the_table_seed004() -> None:
    """Seed 004 第九条 三 8: "夹绝张：牌池内已经出现碰牌的刻子，剩余的唯一牌张被夹牌而和牌。" The winner's own
    碰 of 8s is a pung on the table: 79s waiting on the fourth 8s is 夹绝张 (before, only other seats' tiles,
    `visible`, were counted, and it scored as a plain 嵌张). Hand: 123m 456p 789s (花龙 10) 11z, 碰 888s from S,
    点和 from N: 花龙 10 + 夹绝张 20 + 单张和牌 4 = 34, the discarder pays ×2 = 68."""
    data = hand("79s456p123m11z", "8s", "discard", melds=[{"type": "pung", "tiles": "888s", "from": "S"}])
    out = score_json(data, "jingji")
    assert names(out) == {"花龙": 10, "夹绝张": 20, "单张和牌": 4}
    assert out["total"] == 34 and out["payments"] == {"E": 68, "S": 0, "W": 0, "N": -68}
    # 边张听绝张: the winner's 碰 777s, 89s waiting on the last 7s ("夹绝张，包括边张听绝张"): the same 34
    edge = hand("89s456p123m11z", "7s", "discard", melds=[{"type": "pung", "tiles": "777s", "from": "S"}])
    assert names(score_json(edge, "jingji")) == {"花龙": 10, "夹绝张": 20, "单张和牌": 4}
    # near miss: two 8s seen and none of the winner's own: two are left, 8s is not the last of its kind
    two = hand("79s456p123m11z", "8s", "discard", melds=[{"type": "chi", "tiles": "789p", "from": "N"}],
               visible={"8s": 2})
    assert names(score_json(two, "jingji")) == {"花龙": 10, "单张和牌": 4}


def test_single_wait_points_only_when_the_hand_waits_on_one_tile_seed004() -> None:
    """Seed 004 第九条 六(二) 就低不就高: "可以排列成多张和牌，也可以排列成单张和牌时，只能按照多张和牌计算得低分，
    不计单张得分。" 1234m 456p 789s 东东东 waits on 1m and 4m; won on 4m it reads 123m + 44m (a 单吊 shape), but
    scores no 单张和牌: 花龙 10 + 门清 8 = 18, each pays 18."""
    out = score_json(hand("1234m456p789s111z", "4m"), "jingji")
    assert names(out) == {"花龙": 10, "门清": 8}
    assert out["payments"] == {"E": 54, "S": -18, "W": -18, "N": -18}


def test_three_dragons_may_hold_a_dragon_kong_seed004() -> None:
    """Seed 004 第九条 三 12: "三箭刻：含中发白三个刻子（可以包含箭牌杠牌）的和牌。" 白 明杠 from S, 发 and 中 pungs,
    123m, 单吊 9p self-drawn: 三箭刻 30 + 单张和牌 4 = 34 (no 门清: the kong was claimed), each pays 34."""
    out = score_json(hand("666777z123m9p", "9p", melds=[{"type": "kong", "tiles": "5555z", "from": "S"}]), "jingji")
    assert names(out) == {"三箭刻": 30, "单张和牌": 4}
    assert out["payments"] == {"E": 102, "S": -34, "W": -34, "N": -34}

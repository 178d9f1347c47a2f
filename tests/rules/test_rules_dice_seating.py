"""Dice checks, who throws next, 定庄/定位 by dice and 骰子荒番."""

from __future__ import annotations

import itertools

import pytest

from table_controller.rules import (
    DealError,
    count_seat,
    deal_plan,
    dice_huangfan,
    first_dealer_position,
    highest_thrower,
    load_ruleset,
    next_thrower,
    seats_for_dealer,
)


def test_count_seat_walls_md() -> None:
    # walls.md "Which wall": 1,5,9,13,17 → dealer; 2,6,10,14,18 → 下家; 3,7,11,15 → 对家; 4,8,12,16 → 上家.
    assert [count_seat(t) for t in (1, 5, 9, 13, 17)] == ["E"] * 5
    assert [count_seat(t) for t in (2, 6, 10, 14, 18)] == ["S"] * 5
    assert [count_seat(t) for t in (3, 7, 11, 15)] == ["W"] * 4
    assert [count_seat(t) for t in (4, 8, 12, 16)] == ["N"] * 4
    assert count_seat(2, "N") == "E"


def test_next_thrower_two_throw_rulesets() -> None:
    # seed 000 范文六 二.2: "根据庄家掷骰的点数，再由点数者第二次掷骰".
    mcr = load_ruleset("mcr")
    assert next_thrower(mcr, []) == "E"
    assert next_thrower(mcr, [(3, 4)]) == "W"
    assert next_thrower(mcr, [(1, 1)]) == "S"
    assert next_thrower(mcr, [(2, 2)]) == "N"
    assert next_thrower(mcr, [(2, 3)]) == "E"  # 5 counts back to the dealer, who throws again
    assert next_thrower(mcr, [(3, 4), (2, 5)]) is None
    with pytest.raises(DealError):
        next_thrower(mcr, [(3, 4), (2, 5), (1, 1)])
    jingji = load_ruleset("jingji")
    assert next_thrower(jingji, []) == "E" and next_thrower(jingji, [(6, 6)]) is None
    with pytest.raises(DealError):
        next_thrower(jingji, [(0, 6)])


@pytest.mark.parametrize("rid, dice, dice2, code, words", [
    ("jingji", (0, 4), None, "dice_face", "1..6"),
    ("jingji", (7, 4), None, "dice_face", "not 7"),
    ("jingji", (3, 4, 5), None, "dice_count", "2 dice"),
    ("guangdong", (3, 4), None, "dice_count", "3 dice"),
    ("mcr", (3, 4), None, "dice2_missing", "second throw"),
    ("jingji", (3, 4), (1, 1), "dice2_unexpected", "one throw"),
    ("nanjing", (3, 4), (1,), "dice_count", "dice2"),
    ("jingji", (True, 4), None, "dice_face", "1..6"),
])
def test_wrong_dice_are_refused(rid: str, dice, dice2, code: str, words: str) -> None:
    with pytest.raises(DealError) as err:
        deal_plan(load_ruleset(rid), dice, dice2)
    assert err.value.code == code and words in str(err.value)
    assert isinstance(err.value, ValueError)


@pytest.mark.parametrize("lengths, words", [
    ((18, 18, 18, 17), "142 tiles"),
    ((18, 18, 18), "four numbers"),
    ((36, 36, 0, 0), "at least 1"),
    ({"E": 18, "S": 18, "W": 18, "X": 18}, "E, S, W, N"),
])
def test_wrong_wall_lengths_are_refused(lengths, words: str) -> None:
    with pytest.raises(DealError, match=words):
        deal_plan(load_ruleset("jingji"), (3, 4), None, lengths)


def test_reported_lengths_are_used() -> None:
    # walls.md: "A machine may report other lengths; the engine takes them from the table".
    plan = deal_plan(load_ruleset("jingji"), (3, 4), None, {"E": 19, "S": 17, "W": 18, "N": 18})
    assert plan.wall_lengths == {"E": 19, "S": 17, "W": 18, "N": 18}
    assert "E19t" in plan.order and "S18t" not in plan.order


def test_first_dealer_by_dice() -> None:
    # seed 000 范文四 三.3(1): "以1号位为东计（占数5、9点）；2号位为南（占2、6、10点）；3号位为西
    # （占3、7、11点）；4号位为北（占4、8、12点）".
    assert [first_dealer_position(t) for t in (5, 9)] == [1, 1]
    assert [first_dealer_position(t) for t in (2, 6, 10)] == [2, 2, 2]
    assert [first_dealer_position(t) for t in (3, 7, 11)] == [3, 3, 3]
    assert [first_dealer_position(t) for t in (4, 8, 12)] == [4, 4, 4]
    assert first_dealer_position(2, thrower=4) == 1
    with pytest.raises(DealError):
        first_dealer_position(13)
    with pytest.raises(DealError):
        first_dealer_position(1)


def test_seats_for_dealer() -> None:
    # The dealer is E, then S, W, N counter-clockwise (GLOSSARY: winds move over the chairs).
    assert seats_for_dealer(1) == {1: "E", 2: "S", 3: "W", 4: "N"}
    assert seats_for_dealer(3) == {3: "E", 4: "S", 1: "W", 2: "N"}
    with pytest.raises(DealError):
        seats_for_dealer(5)


def test_sichuan_highest_thrower_deals() -> None:
    # walls.md "sichuan: each player throws once; the highest total deals (大为庄)".
    assert load_ruleset("sichuan").dealer_by == "highest"
    assert highest_thrower({1: (3, 4), 2: (6, 5), 3: (1, 1), 4: (5, 5)}).dealer == 2
    tie = highest_thrower({1: (6, 6), 2: (6, 5), 3: (6, 6), 4: (5, 5)})
    assert tie.dealer is None and tie.tied == (1, 3)
    with pytest.raises(DealError):
        highest_thrower({1: (7, 1)})


def test_dice_huangfan_every_pair() -> None:
    # seed 000 范文七: "如果掷得的2个骰子数为“1”“1”或“4”“4”，加2次荒番数。骰子数为：1、n（n=2~6）；
    # 4、n（n=1~3,5,6）；2、2；3、3；5、5；6、6的情况，加1次荒番数" — order of the dice does not matter.
    two = {(1, 1), (4, 4)}
    one = ({(1, n) for n in range(2, 7)} | {(4, n) for n in (1, 2, 3, 5, 6)}
           | {(2, 2), (3, 3), (5, 5), (6, 6)})
    one |= {(b, a) for a, b in one}
    for a, b in itertools.product(range(1, 7), repeat=2):
        expected = 2 if (a, b) in two else 1 if (a, b) in one else 0
        assert dice_huangfan((a, b)) == expected, (a, b)
    assert load_ruleset("shanghai").huangfan and not load_ruleset("mcr").huangfan
    with pytest.raises(DealError):
        dice_huangfan((0, 3))
    with pytest.raises(DealError):  # a JSON true is no die showing 1 (check_throw refuses it too)
        dice_huangfan((True, 3))

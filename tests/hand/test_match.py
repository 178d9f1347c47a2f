"""Session structure per ruleset: MCR's 16 hands without 连庄 and the seat swap, 竞技 连庄 and 倍打,
广东 keeping the deal on 流局, 四川 the first winner dealing next."""

from __future__ import annotations

import pytest

from table_controller.hand import IllegalAction
from table_controller.hand.match import MatchRules, next_hand, start


def test_mcr_sixteen_hands_no_continuing_dealer_and_seat_swap() -> None:
    m = start(MatchRules.for_ruleset("mcr"), first_dealer=3)
    assert m.seat_of(3) == "E" and m.seat_of(4) == "S" and m.seat_of(2) == "N"
    notes_all = []
    for k in range(16):
        assert not m.over
        m, notes = next_hand(m, ["E"] if k % 2 == 0 else [])  # the dealer's win does not keep the deal
        notes_all += notes
    assert m.over and m.hands_played == 16
    assert [n["prevalent"] for n in notes_all if n["type"] == "new_round"] == ["S", "W", "N"]
    swap = [i for i, n in enumerate(notes_all) if n["type"] == "seat_swap"]
    assert len(swap) == 1 and notes_all[swap[0] - 1] == {"type": "new_round", "prevalent": "W"}
    # seed 000 四.6: 第一次换位是东南（1号2号位）互换，西北（3号4号位）互换
    assert notes_all[swap[0]]["pairs"] == [[1, 2], [3, 4]] and m.seating == (2, 1, 4, 3) and m.swaps == 1
    assert notes_all[-1] == {"type": "session_over", "hands": 16}
    with pytest.raises(IllegalAction):
        next_hand(m, [])


def test_jingji_dealer_continues_and_doubles_seed004() -> None:
    m = start(MatchRules.for_ruleset("jingji"))
    m, notes = next_hand(m, ["E"])
    assert m.dealer_position == 1 and m.double and notes[0]["double"] is True
    m, _ = next_hand(m, ["E"])
    assert m.double and m.dealer_streak == 2   # 连续坐庄继续倍打, not doubled again
    m, _ = next_hand(m, ["W"])
    assert m.dealer_position == 2 and not m.double and m.prevalent == "E"


def test_guangdong_dealer_keeps_the_deal_on_a_draw_seed001() -> None:
    m = start(MatchRules.for_ruleset("tuidaohu"))
    m, notes = next_hand(m, [])
    assert m.dealer_position == 1 and notes[0]["type"] == "dealer_continues"
    m, _ = next_hand(m, ["S", "E"])   # 一炮多响 including the dealer: the dealer stays
    assert m.dealer_position == 1
    m, _ = next_hand(m, ["N"])
    assert m.dealer_position == 2


def test_sichuan_first_winner_deals_next() -> None:
    m = start(MatchRules.for_ruleset("sichuan"), first_dealer=2)
    m, _ = next_hand(m, ["W", "S"])   # W won first: W's chair (2 + 2 = 4) deals next
    assert m.dealer_position == 4 and m.seat_of(4) == "E"
    m, _ = next_hand(m, [])           # 荒庄: the dealer deals again
    assert m.dealer_position == 4


def test_scores_follow_the_chairs_and_rank_into_table_points() -> None:
    from table_controller.scoring.points import table_points

    m = start(MatchRules.for_ruleset("mcr"), first_dealer=1)
    m, _ = next_hand(m, ["S"], {"E": -8, "S": 40, "W": -24, "N": -8})   # chair 2 is S
    m, _ = next_hand(m, ["S"], {"E": -8, "S": 56, "W": -24, "N": -24})  # now chair 3 is S
    assert m.scores == (-32, 32, 32, -32)
    assert m.player_scores == {1: -32, 2: 32, 3: 32, 4: -32}
    assert table_points(m.player_scores) == {2: 3, 3: 3, 1: 0.5, 4: 0.5}


def test_after_the_swap_a_seats_payments_go_to_the_player_now_in_its_chair() -> None:
    """Scores are the players' (抽签号位), not the chairs': after the West round's 换位 the player
    who drew chair 2 sits in chair 1, and E's winnings there are theirs."""
    m = start(MatchRules.for_ruleset("mcr"))
    for _ in range(8):
        m, _ = next_hand(m, [])
    assert m.prevalent == "W" and m.dealer_position == 1 and m.seating == (2, 1, 4, 3)
    assert m.player_of("E") == 2 and m.player_of("S") == 1
    m, _ = next_hand(m, ["E"], payments={"E": 24, "S": -8, "W": -8, "N": -8})
    assert m.scores == (-8, 24, -8, -8)


def test_a_second_swap_where_a_ruleset_asks_for_two() -> None:
    """如有需要最多进行2次换位: the second is 1号3号位、2号4号位 (seed 000 四.6)."""
    rules = MatchRules.from_table("mcr", {"hands_per_session": 16, "seat_swap_before_round": ["S", "W"]})
    m = start(rules)
    for _ in range(4):
        m, _ = next_hand(m, [])
    assert m.seating == (2, 1, 4, 3)
    for _ in range(4):
        m, _ = next_hand(m, [])
    assert m.seating == (4, 3, 2, 1) and m.swaps == 2

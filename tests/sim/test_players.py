"""The demo table's simulated players: they play legally, in turn, from the physical wall, to 荒牌."""

import random
from collections import Counter

import pytest

from table_controller.rules import deal_plan, load_ruleset, open_hands, physical_wall
from tablesim.players import choose_discard, play_hand, usefulness

SEATS = "ESWN"


@pytest.mark.parametrize("ruleset,dice,dice2", [("mcr", (3, 4), (2, 5)), ("jingji", (6, 6), None),
                                                ("sichuan", (1, 2), None), ("riichi", (5, 5), None)])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_hand_is_played_in_turn_from_the_wall_to_the_last_tile(ruleset: str, dice, dice2, seed: int) -> None:
    rs = load_ruleset(ruleset)
    plan = deal_plan(rs, dice, dice2)
    wall = physical_wall(rs, None, random.Random(seed))
    actions = list(play_hand(plan, wall, random.Random(seed)))
    kinds = [a.type for a in actions]
    assert kinds.count("deal_done") == 1
    deal_done = kinds.index("deal_done")
    assert all(a.type == "flower" for a in actions[:deal_done])
    discards = [a for a in actions if a.type == "discard"]
    # turn order: E first, then counter-clockwise, never twice in a row
    assert [a.seat for a in discards] == [SEATS[i % 4] for i in range(len(discards))]
    # every face-up tile came out of the wall: no tile invented, none shown twice
    shown = Counter(a.tile for a in actions if a.tile)
    assert all(n <= Counter(wall.values())[k] for k, n in shown.items())
    assert all(rs.tile_spec.is_bonus(a.tile) for a in actions if a.type == "flower")
    # the wall ran out: the dealer's first discard, then one per live draw
    opening = open_hands(plan, wall)
    state = opening.state
    draws = 0
    while not state.exhausted:
        _, state = state.draw()
        draws += 1
    flowers_in_play = sum(1 for a in actions[deal_done:] if a.type == "flower")
    # each flower drawn in play is replaced from the tail, which leaves the live wall one tile shorter
    assert len(discards) == 1 + draws - flowers_in_play


def test_the_least_useful_tile_goes_first() -> None:
    hand = ["1m", "2m", "3m", "5p", "5p", "7z", "9s", "9s", "9s", "4s", "5s", "6s", "1z", "2z"]
    assert usefulness("7z", hand) == 0 and usefulness("5p", hand) == 3
    assert choose_discard(hand, random.Random(0)) in {"7z", "1z", "2z"}

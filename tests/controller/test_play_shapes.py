"""The live record refuses a play whose tiles cannot be what it says, naming why: a camera's
misread or a mis-key. Before the twelfth session every one of these went into the record (and a
bad tile code crashed the check meant to refuse a fifth copy)."""

from __future__ import annotations

from typing import Any

import pytest

from table_controller.controller import _play_problem
from table_controller.state import fold
from table_controller.store import Event

DISCARD_3M = [("play.discard", {"seat": "E", "tile": "3m"})]


def _hand(ruleset: str, before: list[tuple[str, dict[str, Any]]]) -> dict[str, Any]:
    events = [Event(1, 0.0, "operator", "operator.hand_start", {"hand_no": 1, "ruleset": ruleset, "dealer_position": 1}),
              Event(2, 1.0, "table", "table.dice", {"seat": "E", "wind": "E", "dice": [3, 4]}),
              # 7 counts to W, who throws again where the ruleset has two throws (mcr, nanjing): the wall is broken
              Event(3, 1.5, "table", "table.dice", {"seat": "W", "wind": "W", "dice": [2, 5]}),
              Event(4, 2.0, "demo", "play.deal_done", {})]
    assert fold(events).hand["deal"] is not None
    for type_, data in before:
        assert _play_problem(fold(events).hand, type_, data) is None
        events.append(Event(len(events) + 1, float(len(events)), "demo", type_, data))
    return fold(events).hand


@pytest.mark.parametrize("ruleset,type_,data,before,why", [
    ("sichuan", "play.flower", {"seat": "E", "tile": "3f"}, [], "not a tile of sichuan"),
    ("sichuan", "play.discard", {"seat": "E", "tile": "1z"}, [], "not a tile of sichuan"),
    ("mcr", "play.discard", {"seat": "E", "tile": "10m"}, [], "not a tile of mcr"),
    ("mcr", "play.discard", {"seat": "E", "tile": "xx"}, [], "not a tile code"),
    ("mcr", "play.discard", {"seat": "E", "tile": "3f"}, [], "is a flower"),
    ("nanjing", "play.discard", {"seat": "E", "tile": "7z"}, [], "is a flower"),  # 南京: 中发白 are flowers
    ("mcr", "play.flower", {"seat": "E", "tile": "5m"}, [], "not a flower"),
    # 南京: 中发白 are laid out as flowers, so four of them are never a kong (the record took one, and paid it)
    ("nanjing", "play.kong", {"seat": "E", "tiles": ["7z"] * 4, "concealed": True}, [], "never in a meld"),
    ("nanjing", "play.kong", {"seat": "E", "tiles": ["back", "6z", "6z", "back"], "concealed": True}, [],
     "is a flower"),
    ("mcr", "play.claim", {"seat": "S", "kind": "chow", "from": "E", "tiles": ["3m", "9p", "1z"]}, DISCARD_3M,
     "a chow is a run"),
    ("mcr", "play.claim", {"seat": "S", "kind": "chow", "from": "E", "tiles": ["1m", "3m", "5m"]}, DISCARD_3M,
     "a chow is a run"),
    ("mcr", "play.claim", {"seat": "S", "kind": "pung", "from": "E", "tiles": ["3m", "3m", "4m"]}, DISCARD_3M,
     "of one tile"),
    ("mcr", "play.claim", {"seat": "S", "kind": "kong", "from": "E", "tiles": ["3m"] * 3}, DISCARD_3M, "4 tiles"),
    ("mcr", "play.kong", {"seat": "E", "tiles": ["5m", "5m", "6m", "5m"], "concealed": True}, [], "four of one tile"),
    ("mcr", "play.kong", {"seat": "E", "tiles": ["5m"] * 4, "added": True}, [], "needs E's pung of 5m"),
])
def test_a_play_that_cannot_be_is_refused_naming_why(ruleset: str, type_: str, data: dict, before: list,
                                                     why: str) -> None:
    assert why in (_play_problem(_hand(ruleset, before), type_, data) or "")


@pytest.mark.parametrize("ruleset,type_,data,before", [
    ("mcr", "play.claim", {"seat": "S", "kind": "chow", "from": "E", "tiles": ["2m", "3m", "4m"]}, DISCARD_3M),
    ("mcr", "play.claim", {"seat": "S", "kind": "kong", "from": "E", "tiles": ["3m"] * 4}, DISCARD_3M),
    ("mcr", "play.kong", {"seat": "E", "tiles": ["back", "5m", "5m", "back"], "concealed": True}, []),
    ("mcr", "play.flower", {"seat": "E", "tile": "3f"}, []),
    ("nanjing", "play.flower", {"seat": "E", "tile": "7z"}, []),
    ("shiwan", "play.discard", {"seat": "E", "tile": "10m"}, []),  # 十万: ranks to ten
    ("sichuan", "play.discard", {"seat": "E", "tile": "9s"}, []),
])
def test_the_plays_a_table_shows_pass(ruleset: str, type_: str, data: dict, before: list) -> None:
    assert _play_problem(_hand(ruleset, before), type_, data) is None


def test_a_kong_with_no_tile_left_to_replace_it_is_refused() -> None:
    """杠后无牌可补: the hand machine refused such a kong, the live record took it. The seat about to
    draw the last live tile may not kong (its replacement would have to come from a wall that has
    none); one turn earlier it may."""
    from table_controller.controller import SEATS

    kinds = [f"{n}{s}" for s in "mps" for n in range(1, 10) if f"{n}{s}" != "9s"] * 4
    events = [Event(1, 0.0, "operator", "operator.hand_start", {"hand_no": 1, "ruleset": "mcr", "dealer_position": 1}),
              Event(2, 1.0, "table", "table.dice", {"seat": "E", "wind": "E", "dice": [3, 4]}),
              Event(3, 1.5, "table", "table.dice", {"seat": "W", "wind": "W", "dice": [2, 5]}),  # 7: W throws again
              Event(4, 2.0, "demo", "play.deal_done", {})]
    assert fold(events).hand["deal"] is not None
    kong = {"tiles": ["9s"] * 4, "concealed": True}
    seen_left = []
    for i, tile in enumerate(kinds):
        hand = fold(events).hand
        seat = hand["turn"]["seat"]
        left = (hand.get("tiles_left") or 99) - (1 if hand.get("pending_draw") else 0)  # after this seat's draw
        seen_left.append(left)
        problem = _play_problem(hand, "play.kong", {"seat": seat, **kong})
        if left == 0:
            assert problem is not None and "无牌可补" in problem
            break
        assert problem is None, (left, problem)
        events.append(Event(len(events) + 1, float(len(events)), "demo", "play.discard", {"seat": seat, "tile": tile}))
        assert seat in SEATS and i < len(kinds) - 1
    assert seen_left[-2:] == [1, 0]

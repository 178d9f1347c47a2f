"""The hand's flow as a pure state machine fed events: claims, 抢杠, 一炮多响, 漏和, 血战/血流, 荒牌.

    state = new_hand(FlowRules.for_ruleset("mcr"), plan.initial_state())
    state, notes = apply(state, Deal(hands={...}))
    state, notes = apply(state, Discard("E", "9p"))   # IllegalAction names the rule broken

The running table uses `match` (who deals next) and `rules` (`FlowRules`) from here, not the machine
(`state`): see that module's docstring and docs/architecture.md "One concept in two places".
"""

from __future__ import annotations

from table_controller.hand.errors import IllegalAction
from table_controller.hand.events import (
    ChooseMissing, Claim, CloseWindow, Correct, Deal, Discard, Draw, Event, Flower, Kong, Pass,
    Replace, SelfDrawWin, event_from_json,
)
from table_controller.hand.rules import FlowRules
from table_controller.hand.state import HandState, SeatState, apply, new_hand, ready_json
from table_controller.hand.wall import Wall

__all__ = ["ChooseMissing", "Claim", "CloseWindow", "Correct", "Deal", "Discard", "Draw", "Event",
           "Flower", "FlowRules", "HandState", "IllegalAction", "Kong", "Pass", "Replace", "SeatState",
           "SelfDrawWin", "Wall", "apply", "event_from_json", "new_hand", "ready_json"]

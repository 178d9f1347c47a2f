"""Rules engine I: walls, dice, 开门, 抓牌 and indicators for every ruleset (pure functions).

The API the rest of the controller codes against:

    rs = load_ruleset("mcr")
    plan = deal_plan(rs, dice=(3, 4), dice2=(2, 5))
    plan.to_json(); plan.render_text()
    state = plan.initial_state(); pos, state = state.draw()
"""

from __future__ import annotations

from .deal import DealPlan, check_wall_lengths, deal_plan
from .dice import BreakPoint, break_point, check_throw, dice_huangfan, next_thrower
from .errors import DealError, RulesError, RulesetError, WallError
from .geometry import RING_ORDER, SEATS, Ring, Seat, count_seat, parse_position, position_name, seat_after
from .physical import Opening, all_positions, live_draws, open_hands, physical_wall, replacement_draws, tile_set
from .ruleset import (
    DealPattern,
    HandEndRule,
    IndicatorRule,
    Ruleset,
    load_ruleset,
    parse_ruleset,
    ruleset_ids,
    rulesets_dir,
)
from .seating import HighestThrow, first_dealer_position, highest_thrower, seats_for_dealer
from .tiles import TileSpec, is_kind, next_kind
from .wall_state import WallState

__all__ = [
    "BreakPoint", "DealError", "DealPattern", "DealPlan", "HandEndRule", "HighestThrow", "IndicatorRule",
    "Opening", "RING_ORDER", "Ring", "RulesError", "Ruleset", "RulesetError", "SEATS", "Seat", "TileSpec",
    "WallError", "WallState", "all_positions", "break_point", "check_throw", "check_wall_lengths",
    "count_seat", "deal_plan", "dice_huangfan", "first_dealer_position", "highest_thrower", "is_kind",
    "live_draws", "load_ruleset", "next_kind", "next_thrower", "open_hands", "parse_position",
    "parse_ruleset", "physical_wall", "position_name", "replacement_draws", "ruleset_ids", "rulesets_dir",
    "seat_after", "seats_for_dealer", "tile_set",
]

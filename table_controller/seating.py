"""Who sits where in the coming hand: the dealer's chair, 圈风, 倍打, the players' chairs after any
换位 (seat swap), and whether the session's hands are all played.

Worked out from the round's hands and the referee's rulings by the ruleset's `[match]` rules
(`hand.match`), never stored: an undone win moves the deal back by itself. Players are known by
the chair they drew (抽签号位, the score sheet's columns 1..4); MCR moves them once, before the
West round (seed 000 四.6: 1号2号位互换，3号4号位互换), and a hand's `seats` then name the player
holding each wind, while `dealer_position` stays the physical chair (the wall, the dice, the camera).
Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

SEATS = ("E", "S", "W", "N")
IDENTITY = (1, 2, 3, 4)


@dataclass(frozen=True)
class Coming:
    """The coming hand's places."""

    dealer_position: int
    prevalent: str
    double: bool
    #: the player (抽签号位) in chairs 1..4
    seating: tuple[int, int, int, int]
    #: the session's hands are all played (MCR's 16, or every round's): the round is over
    over: bool
    hands_per_session: int

    def seats(self) -> dict[str, int]:
        """Wind → the player holding it (the score sheet's column)."""
        return {SEATS[(p - self.dealer_position) % 4]: self.seating[p - 1] for p in (1, 2, 3, 4)}


def coming(ruleset: str, hands: Sequence[dict[str, Any]], actions: Sequence[dict[str, Any]]) -> Coming:
    """The places of the hand after `hands` (the round's ended hands, in order).

    The session ends (`over`) only where the ruleset says how long it is (`[match]`
    `hands_per_session`, or its `rounds`: MCR's 16 hands, four rounds). Elsewhere the deal goes on
    passing round the table for as long as the table plays."""
    from table_controller.hand.errors import IllegalAction
    from table_controller.hand.match import MatchRules, next_hand, start
    from table_controller.referee import exhaustive, winners
    from table_controller.scoring import ScoringError
    from table_controller.scoring.config import match

    try:
        table = match(ruleset)
        rules = MatchRules.from_table(ruleset, table)
    except (ScoringError, ValueError, KeyError, TypeError):
        table, rules = {}, None
    n = len(hands)
    if rules is not None:
        limited = rules.hands_per_session > 0 or "rounds" in table
        m, past = start(rules), False
        try:
            for h in hands:
                ready = sorted((exhaustive(list(actions), h["hand_no"]) or {}).get("ready", {}))
                m, _ = next_hand(m, winners(list(actions), h["hand_no"]), ready=ready)
        except IllegalAction:  # hands played past the session's end
            past = True
        if not (m.over or past):
            return Coming(m.dealer_position, m.prevalent, m.double, m.seating, False, rules.hands_per_session)
        if limited:
            return Coming(m.dealer_position, m.prevalent, m.double, m.seating, True, rules.hands_per_session)
    # no session rules, or past the rounds a ruleset does not limit: the deal passes every hand
    return Coming(n % 4 + 1, SEATS[(n // 4) % 4], False, IDENTITY, False, 0)

"""Simulated players for the demo table: four people who play a hand from the physical wall.

They are not good players (they pung a discard when they hold a pair of it, but never chow, kong
or declare a win: the referee's part stays with a person), yet they play legally and in turn, so
a visitor sees discards pile up, melds laid out, flowers replaced from the tail, the wall shrink
to 海底, and the hand end in 荒牌 as a real table would show it.
The wall comes from the simulator (`SimTable.wall`), the order of draws from the rules engine.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from table_controller.rules import DealPlan, open_hands
from table_controller.tiles import is_suited, rank, suit

SEATS = ("E", "S", "W", "N")


#: How often a player holding a pair of the discard pungs it (people do not take every pung).
PUNG_WILLINGNESS = 0.7


@dataclass(frozen=True)
class PlayerAction:
    """What the players did that the table shows face up: a flower laid out, a discard, a pung."""

    type: str  # "flower", "deal_done", "discard", "claim"
    seat: str | None = None
    tile: str | None = None
    #: a claim: the seat whose discard it takes
    frm: str | None = None

    def event(self) -> tuple[str, dict[str, object]]:
        """As the controller's `play.*` event."""
        if self.type == "claim":
            return "play.claim", {"seat": self.seat, "kind": "pung", "from": self.frm, "tiles": [self.tile] * 3}
        data: dict[str, object] = {}
        if self.seat is not None:
            data["seat"] = self.seat
        if self.tile is not None:
            data["tile"] = self.tile
        return f"play.{self.type}", data


def usefulness(tile: str, hand: list[str]) -> int:
    """How much `tile` helps the hand: pairs and neighbours in its suit (a loose honour scores 0)."""
    score = 3 * (hand.count(tile) - 1)
    if is_suited(tile):
        for other in hand:
            if other != tile and is_suited(other) and suit(other) == suit(tile):
                gap = abs(rank(other) - rank(tile))
                score += 2 if gap == 1 else 1 if gap == 2 else 0
    return score


def choose_discard(hand: list[str], rng: random.Random) -> str:
    """The least useful tile; ties broken by the player's whim (the seeded `rng`)."""
    scores = {t: usefulness(t, hand) for t in set(hand)}
    low = min(scores.values())
    return rng.choice(sorted(t for t, s in scores.items() if s == low))


def play_hand(plan: DealPlan, wall: Mapping[str, str], rng: random.Random) -> Iterator[PlayerAction]:
    """The hand's face-up actions in order, until the live wall is exhausted (荒牌).

    `wall` is keyed by positions of this hand's winds (as `plan` is).
    """
    spec = plan.ruleset.tile_spec
    opening = open_hands(plan, wall)
    for seat in SEATS:  # 补花 was done dealer first (walls.md); the flowers are laid out in that order
        for flower in opening.flowers[seat]:
            yield PlayerAction("flower", seat, flower)
    yield PlayerAction("deal_done")
    hands = {seat: list(opening.hands[seat]) for seat in SEATS}
    state = opening.state
    seat = "E"
    draw = False  # the dealer holds 14, a claimer the tile it took: neither draws first
    while True:
        if draw:
            if state.exhausted:
                return
            pos, state = state.draw()
            kind = wall[pos]
            while spec.is_bonus(kind):
                yield PlayerAction("flower", seat, kind)
                if state.replacements_left == 0 or state.exhausted:
                    return
                pos, state = state.replace()
                kind = wall[pos]
            hands[seat].append(kind)
        tile = choose_discard(hands[seat], rng)
        hands[seat].remove(tile)
        yield PlayerAction("discard", seat, tile)
        claimer = _pung(hands, seat, tile, rng) if not state.exhausted else None  # the 海底 discard is not claimed
        if claimer is None:
            seat, draw = SEATS[(SEATS.index(seat) + 1) % 4], True
        else:
            hands[claimer].remove(tile)
            hands[claimer].remove(tile)
            yield PlayerAction("claim", claimer, tile, frm=seat)
            seat, draw = claimer, False


def _pung(hands: dict[str, list[str]], discarder: str, tile: str, rng: random.Random) -> str | None:
    """The first seat after the discarder holding a pair of `tile` that wants it, if any."""
    start = SEATS.index(discarder)
    for k in (1, 2, 3):
        seat = SEATS[(start + k) % 4]
        if hands[seat].count(tile) >= 2 and rng.random() < PUNG_WILLINGNESS:
            return seat
    return None

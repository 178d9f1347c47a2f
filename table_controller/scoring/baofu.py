"""竞技麻将 包付 (seed 004 三十四): which one seat pays a win alone, and under which of its rules.

Three rules make one seat pay "三家分" (three shares) for a win:

- 吃牌与吃牌的包付 (三十四 1): three claims in a row from one feeder. The hand machine sees
  the claims and names the seat in `options.baofu`; the scorer trusts it.
- 险牌的包付 (1) 清一色 (三十四 2(1)), read from the winner's melds in the order declared.
- 险牌的包付 (2) 全求独钓 (三十四 2(2)), read from the winner's melds, its one concealed tile
  and `options.hanging` (the tile it hung when its 全求独钓 formed).

Where several apply, the first in that order names the payer: the claims rule is the one the
table saw happen, and the seed lists the 险牌 rules after it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from table_controller import tiles as T
from table_controller.scoring.errors import ScoringError
from table_controller.scoring.hand import HandInput, Meld

#: The Chinese names shown to the referee, one per rule.
CLAIMS = "吃碰包付"
FLUSH = "清一色包付"
HANGING = "全求独钓包付"

_WINDS = frozenset({"1z", "2z", "3z", "4z"})
_DRAGONS = frozenset({"5z", "6z", "7z"})


@dataclass(frozen=True)
class Liability:
    """The seat that pays the whole win (`seat`) and the rule that makes it pay (`rule`)."""

    seat: str
    rule: str

    def to_json(self) -> dict[str, str]:
        return {"seat": self.seat, "rule": self.rule}


def one_suit(melds: Sequence[Meld]) -> str | None:
    """The suit all these melds share (序数牌 only), or None when they mix suits or hold honours."""
    suits = {T.suit(t) for m in melds for t in m.tiles}
    if len(suits) != 1:
        return None
    (suit,) = suits
    return suit if suit in T.SUITS else None


def flush_feeder(hand: HandInput) -> str | None:
    """险牌的包付 (1), the seat that pays for a 清一色 shown on the table, or None.

    Seed 004 三十四 2(1): "当一家盘面吃碰三次为清一色盘面形式时，任何一家点炮实际为清一色，
    或吃碰牌继续为清一色盘面（余下手牌不需亮牌），喂牌方一家支付三家分。"

    Read: once the winner's first three claims (吃, 碰, 明杠 from a discard) show one suit,
    - whoever fed a fourth claim of that suit ("吃碰牌继续为清一色盘面") pays, however the hand
      is then won: "余下手牌不需亮牌" says the display alone binds the feeder, and 三十四 1 (the
      rule this one follows) has the feeder pay "包括自摸和牌";
    - otherwise the discarder of a winning tile pays when the hand is really 清一色
      ("任何一家点炮实际为清一色"); a 点炮 into a hand that turns out 混一色 is an ordinary 点炮.
    Melds must be given in the order they were declared (the hand machine keeps that order).
    """
    claimed = [i for i, m in enumerate(hand.melds) if m.source is not None]
    if len(claimed) < 3:
        return None
    suit = one_suit(hand.melds[: claimed[2] + 1])
    if suit is None:
        return None
    if len(claimed) >= 4 and one_suit(hand.melds[: claimed[3] + 1]) == suit:
        return hand.melds[claimed[3]].source
    if hand.win in ("discard", "rob_kong") and {T.suit(t) for t in hand.all_tiles()} == {suit}:
        return hand.paying_seat()
    return None


def related(tile: str, span: int) -> frozenset[str]:
    """The tiles a hung tile makes 包牌: "该张牌的前后总计五张相关牌" (itself and `span` on each
    side in its suit, five with span 2), all winds for a wind, all dragons for a dragon."""
    if tile in _WINDS:
        return _WINDS
    if tile in _DRAGONS:
        return _DRAGONS
    s, r = T.suit(tile), T.rank(tile)
    return frozenset(f"{x}{s}" for x in range(r - span, r + span + 1) if 1 <= x <= 9)


def is_melded_single(hand: HandInput) -> bool:
    """全求独钓: four sets all claimed from others (no 暗杠), one tile left in the hand."""
    return (len(hand.melds) == 4 and len(hand.concealed) == 1
            and all(m.source is not None for m in hand.melds))


def hanging_discarder(hand: HandInput, rules: Mapping[str, Any]) -> str | None:
    """险牌的包付 (2), the discarder who pays for a 全求独钓, or None.

    Seed 004 三十四 2(2): "当一家形成全求独钓，挂牌于牌墙上，该张牌的前后总计五张相关牌的点炮，
    均为包牌，一家支付三家分。如果挂牌为风牌，则包牌范围为所有风牌；如果挂牌为箭牌，则包牌范围为
    所有箭牌。挂牌方换牌后，点炮方不再包牌，仅处理为点炮。"

    The text contradicts itself once the hung tile is swapped: its last sentence ends the 包牌 at
    any swap, while the five-tile range only matters if a swapped tile can still be 包牌 (a
    全求独钓 wins on its own tile, so before a swap the winning tile is always the hung one).
    `rules["hanging_swap"]` picks the reading:
    - `"ends"` (default): a swap ends the 包牌 ("挂牌方换牌后，点炮方不再包牌");
    - `"range"`: the discarder pays while the winning tile is among the tiles related to the
      tile first hung, swapped or not.
    `options.hanging` is the tile hung when the 全求独钓 formed; absent, the held tile (no swap).
    """
    if hand.win != "discard" or not is_melded_single(hand):
        return None
    held = hand.concealed[0]
    hanging = hand.options.get("hanging", held)
    if not T.is_tile(hanging) or T.is_flower(hanging):
        raise ScoringError("bad_tile", f"the hung tile must be a tile code, not {hanging!r}", "options.hanging")
    mode = rules.get("hanging_swap", "ends")
    if mode not in ("ends", "range"):
        raise ScoringError("bad_ruleset_table", f"[scoring.baofu] hanging_swap is ends or range, not {mode!r}",
                           "ruleset")
    if mode == "ends" and hanging != held:
        return None
    return hand.paying_seat() if hand.win_tile in related(hanging, int(rules.get("hanging_span", 2))) else None


def liability(hand: HandInput, rules: Mapping[str, Any]) -> Liability | None:
    """The seat that pays the win alone under 包付, and its rule; None when each pays as usual."""
    claims = hand.options.get("baofu")
    if claims is not None:
        if claims not in T.SEATS or claims == hand.winner:
            raise ScoringError("bad_field", "包付 names another seat, E S W N", "options.baofu")
        return Liability(claims, CLAIMS)
    feeder = flush_feeder(hand)
    if feeder is not None:
        return Liability(feeder, FLUSH)
    discarder = hanging_discarder(hand, rules)
    if discarder is not None:
        return Liability(discarder, HANGING)
    return None

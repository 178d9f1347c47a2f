"""Waits (听牌/叫): the tiles that complete a ready hand, with what each would score.

Used for 诈和 checks (is the declared tile a wait at all?) and 查大叫 (what a ready hand is worth).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from table_controller import tiles as T
from table_controller.scoring.common import candidates
from table_controller.scoring.config import scoring
from table_controller.scoring.hand import HandInput
from table_controller.scoring.result import ScoreResult
from table_controller.scoring.rulesets import engine_hook


@dataclass(frozen=True)
class WaitResult:
    """A tile that completes the hand's shape, and its verdict under the ruleset."""

    tile: str
    result: ScoreResult

    def to_json(self) -> dict[str, Any]:
        return {"tile": self.tile, "name": T.tile_name(self.tile), **self.result.to_json()}


def _kinds(ruleset: str) -> list[str]:
    """The kinds a wait may be: those the ruleset's file plays with (四川: no honours), in tile order."""
    from table_controller.scoring import ruleset_tiles

    rs, kinds = ruleset_tiles(ruleset)
    return [k for k in T.all_kinds() if k in kinds] if rs is not None else T.all_kinds()


def _completes(hand: HandInput, ruleset: str, table: Any) -> bool:
    """The shape wins, whatever it scores: the engine module's `completes(hand, table)` where it reads shapes
    of its own (MCR's library, 竞技's 组合龙 and 大乱), else sets and a pair, seven pairs or 十三幺."""
    own = engine_hook(ruleset, "completes")
    if own is not None:
        return bool(own(hand, table))
    from table_controller.scoring.shapes import readings

    wildcard = hand.options.get("wildcard") if table.get("wildcard") else None
    return bool(readings(hand, wildcard))


def completes(hand: HandInput, ruleset: str) -> bool:
    """The winning tile completes the hand's shape under the ruleset (whatever it scores)."""
    return _completes(hand, ruleset, scoring(ruleset))


def shape_waits(hand: HandInput, ruleset: str) -> list[str]:
    """The kinds that complete the shape of the hand's 13 tiles (its `win_tile` aside), whatever
    they would score: 振听 and 形式听牌 go by these."""
    return [k for k in T.all_kinds() if completes(hand.with_win(k, "self_draw"), ruleset)]


def waits(hand: HandInput, ruleset: str) -> list[WaitResult]:
    """Every kind that completes the 13-tile `hand`, scored as `hand.win` (default 点和).

    A kind the hand already holds four of is no wait. A wait whose hand misses the ruleset's
    minimum is listed with its verdict (`valid: false`): it is still the shape's wait.
    """
    from table_controller.scoring import score

    table = scoring(ruleset)
    held = list(hand.concealed) + [t for m in hand.melds for t in m.tiles]
    out: list[WaitResult] = []
    wildcard = hand.options.get("wildcard") if table.get("wildcard") else None
    for kind in candidates(hand, _kinds(ruleset), wildcard=wildcard):
        if held.count(kind) >= 4:
            continue
        candidate = hand.with_win(kind)
        if candidate.win == "rob_kong" and held.count(kind):
            candidate = candidate.with_win(kind, "discard")
        if not _completes(candidate, ruleset, table):
            continue
        out.append(WaitResult(kind, score(candidate, ruleset)))
    return out

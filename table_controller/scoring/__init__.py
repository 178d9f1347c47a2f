"""Scoring engine: fans, totals and payments per ruleset (mcr, jingji, sichuan/xueliu, tuidaohu/jipinghu)."""

from __future__ import annotations

from typing import Any

from table_controller.scoring.config import SCORED_RULESETS, scoring
from table_controller.scoring.errors import ScoringError
from table_controller.scoring.hand import HandInput, Meld
from table_controller.scoring.result import Fan, ScoreResult

__all__ = ["SCORED_RULESETS", "Fan", "HandInput", "Meld", "ScoreResult", "ScoringError",
           "score", "score_json"]


def score(hand: HandInput, ruleset: str) -> ScoreResult:
    """Score a winning hand under a ruleset; raises `ScoringError` for an unknown ruleset."""
    from table_controller.scoring.rulesets import module_for

    return module_for(ruleset).score(hand, scoring(ruleset))


def score_json(data: Any, ruleset: str) -> dict[str, Any]:
    """JSON in, JSON out (docs/scoring.md); raises `ScoringError` for malformed input."""
    scoring(ruleset)  # an unknown ruleset is named before the hand is read
    return score(HandInput.from_json(data), ruleset).to_json()

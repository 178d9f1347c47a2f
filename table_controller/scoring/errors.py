"""Scoring errors: one exception with a stable code a display can show, and the field at fault."""

from __future__ import annotations


class ScoringError(ValueError):
    """Malformed input to the scoring engine (not a verdict on a hand: that is `ScoreResult`).

    `code` is stable (`"bad_field"`, `"bad_tile"`, `"too_many_copies"`, `"unknown_ruleset"`, ...);
    `field` names the input field at fault (`"melds[1].tiles"`), or `""` when none is.
    """

    def __init__(self, code: str, message: str, field: str = "") -> None:
        super().__init__(f"{field}: {message}" if field else message)
        self.code = code
        self.field = field
        self.message = message  # without the field, for a caller that names it its own way

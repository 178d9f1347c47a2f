"""Errors of the rules engine: one base class, each error with a stable code a display can show."""

from __future__ import annotations


class RulesError(Exception):
    """Base of every rules-engine error.

    `code` is stable (tests and the referee display match on it, never on the text);
    the message says in words what is wrong and what would be right.
    """

    code: str = "rules_error"

    def __init__(self, message: str, code: str | None = None) -> None:
        super().__init__(message)
        if code is not None:
            self.code = code

    @property
    def message(self) -> str:
        return str(self.args[0]) if self.args else ""


class RulesetError(RulesError, ValueError):
    """A ruleset file is missing, unknown or malformed (names the file and the key)."""

    code = "ruleset_invalid"


class DealError(RulesError, ValueError):
    """Dice or wall lengths that cannot produce a deal for the chosen ruleset."""

    code = "deal_invalid"


class WallError(RulesError):
    """A draw the wall cannot give: live wall exhausted (荒牌) or no replacement tile left."""

    code = "wall_error"

"""The one error of the hand state machine: an illegal action, refused with the rule it breaks."""

from __future__ import annotations


class IllegalAction(ValueError):
    """An event the rules do not allow now. `code` is stable; `rule` is the rule, in Chinese."""

    def __init__(self, code: str, rule: str) -> None:
        super().__init__(f"{code}: {rule}")
        self.code = code
        self.rule = rule

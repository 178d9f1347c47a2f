"""Which module scores which ruleset id."""

from __future__ import annotations

import importlib
from types import ModuleType

from table_controller.scoring.config import SCORED_RULESETS, family
from table_controller.scoring.errors import ScoringError

_MODULES = {"mcr": "mcr", "jingji": "jingji", "sichuan": "sichuan", "xueliu": "sichuan",
            "tuidaohu": "guangdong", "jipinghu": "guangdong", "nanning": "nanning", "riichi": "riichi"}


def module_for(ruleset: str) -> ModuleType:
    """The scoring module of a ruleset (of its family, for a house ruleset): it exposes
    `score(hand, table) -> ScoreResult`."""
    root = family(ruleset)
    if root not in SCORED_RULESETS:
        raise ScoringError("unknown_ruleset", f"no scoring for ruleset {ruleset!r}", "ruleset")
    return importlib.import_module(f"table_controller.scoring.{_MODULES[root]}")

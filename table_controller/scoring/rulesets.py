"""Which module scores which ruleset id: `[scoring] engine` of its file (docs/scoring.md)."""

from __future__ import annotations

import importlib
from types import ModuleType

from table_controller.scoring.config import engine


def module_for(ruleset: str) -> ModuleType:
    """The scoring module of a ruleset (of its family, for a house ruleset): it exposes
    `score(hand, table) -> ScoreResult`."""
    return importlib.import_module(f"table_controller.scoring.{engine(ruleset)}")

"""Reads a ruleset's `[scoring]` (and `[match]`, `[flow]`) tables: the scoring rules are data.

The tables live at the end of `config/rulesets/<id>.toml`, beside the wall and dice sections of
the rules loader. Until a ruleset's file carries them, the package's own copy in
`scoring/tables/<id>.toml` is read, so the engine works from an installed package too.
"""

from __future__ import annotations

import tomllib
from functools import lru_cache
from pathlib import Path
from types import MappingProxyType
from typing import Any, Mapping

from table_controller.scoring.errors import ScoringError

#: Rulesets this engine scores (glossary ids).
SCORED_RULESETS: tuple[str, ...] = ("mcr", "jingji", "sichuan", "xueliu", "tuidaohu", "jipinghu")

_REPO_RULESETS = Path(__file__).resolve().parents[2] / "config" / "rulesets"
_PACKAGE_TABLES = Path(__file__).resolve().parent / "tables"


def _freeze(value: Any) -> Any:
    if isinstance(value, dict):
        return MappingProxyType({k: _freeze(v) for k, v in value.items()})
    if isinstance(value, list):
        return tuple(_freeze(v) for v in value)
    return value


@lru_cache(maxsize=None)
def ruleset_tables(ruleset: str) -> Mapping[str, Any]:
    """The ruleset's scoring tables, read-only (`["scoring"]`, `["match"]`, `["flow"]`).

    Raises `ScoringError("unknown_ruleset")` for an id this engine does not score.
    """
    if ruleset not in SCORED_RULESETS:
        raise ScoringError("unknown_ruleset",
                           f"no scoring for ruleset {ruleset!r}; scored: {', '.join(SCORED_RULESETS)}",
                           "ruleset")
    for path in (_REPO_RULESETS / f"{ruleset}.toml", _PACKAGE_TABLES / f"{ruleset}.toml"):
        if path.is_file():
            with path.open("rb") as fh:
                data = tomllib.load(fh)
            if "scoring" in data:
                data["scoring"]["id"] = ruleset
                return _freeze({k: data[k] for k in ("scoring", "match", "flow") if k in data})
    raise ScoringError("unknown_ruleset", f"ruleset {ruleset!r} has no [scoring] table", "ruleset")


def scoring(ruleset: str) -> Mapping[str, Any]:
    """The `[scoring]` table of a ruleset."""
    return ruleset_tables(ruleset)["scoring"]  # type: ignore[no-any-return]

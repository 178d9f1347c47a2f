"""Reads a ruleset's `[scoring]` (and `[match]`, `[flow]`) tables: the scoring rules are data.

The tables live at the end of `config/rulesets/<id>.toml`, beside the wall and dice sections,
and come through the rules loader (`load_ruleset(id).sections`), so one file holds a ruleset.
"""

from __future__ import annotations

import importlib.util
import pkgutil
from functools import lru_cache
from pathlib import Path
from types import MappingProxyType
from typing import Any, Mapping

from table_controller.scoring.errors import ScoringError


def scored(ruleset: str) -> bool:
    """Whether this engine scores `ruleset`: its file (or its base's, for a house ruleset) has a
    `[scoring]` table. A ruleset file without one is scored by the referee (`manual`). This was a
    list of ids in the code, which every new regional ruleset had to edit."""
    from table_controller.rules.ruleset import folder

    return _engine(ruleset, folder()) is not None


def engine(ruleset: str) -> str:
    """The module of `table_controller.scoring` that scores `ruleset`: `[scoring] engine`, by default
    the id of its family (xueliu plays sichuan's, tuidaohu and jipinghu guangdong's)."""
    from table_controller.rules.ruleset import folder

    name = _engine(ruleset, folder())
    if name is None:
        raise ScoringError("unknown_ruleset", f"no scoring for ruleset {ruleset!r}", "ruleset")
    return name


def scored_rulesets() -> tuple[str, ...]:
    """The ids of the rulesets folder that this engine scores (the others: 裁判计分)."""
    from table_controller.rules import ruleset_ids

    return tuple(r for r in ruleset_ids() if scored(r))


#: A unit's English on the pages; one without (南宁's 张 has none) reads "fan" there
UNIT_EN = {"番": "fan", "倍": "multiples", "点": "points", "分": "points"}


def unit(ruleset: str) -> str:
    """The unit a win's total counts in (`[scoring] unit`: 倍 推倒胡, 张 南宁, 分 竞技 ...), which the pages show where
    they said 番 for every ruleset; 番 where the file names none (国标), 分 for a ruleset the referee scores (his
    points) or an unknown one."""
    try:
        return str(scoring(ruleset).get("unit") or "番") if scored(ruleset) else "分"
    except ScoringError:  # a broken file is named where it is scored
        return "分"


def engines() -> tuple[str, ...]:
    """The scoring modules there are (what `[scoring] engine` may name): those with a `score`. Every module of the
    package was listed and taken (`config`, `points`, `waits` ...), so the refusal of a new file's engine offered
    names that score nothing."""
    here = importlib.util.find_spec("table_controller.scoring")
    paths = list(here.submodule_search_locations or []) if here else []
    found = []
    for m in pkgutil.iter_modules(paths):
        if m.ispkg:
            continue
        try:
            text = (Path(m.module_finder.path) / f"{m.name}.py").read_text(encoding="utf-8")  # type: ignore[union-attr]
        except (AttributeError, OSError):
            continue
        if "\ndef score(" in text:
            found.append(m.name)
    return tuple(sorted(found))


def _engine(ruleset: str, directory: str) -> str | None:
    from table_controller.rules import RulesError

    try:
        return _engine_read(ruleset, directory)
    except RulesError:  # an unknown id or a broken file is named where it is used; not kept (`_engine_read`)
        return None


@lru_cache(maxsize=None)
def _engine_read(ruleset: str, directory: str) -> str | None:
    """`_engine` of a file that reads. A file that does not raises, and is not kept: kept as "not scored", a house
    file saved with a typo stayed unscored in the process (裁判计分, its checks skipped) after it was put right."""
    from table_controller.rules.ruleset import in_use

    rs = in_use(ruleset, directory)
    table = rs.sections.get("scoring")
    if not isinstance(table, Mapping):
        return None
    name = table.get("engine", rs.family)
    if not isinstance(name, str) or name not in engines():
        # a new regional file copied from nanning.toml (as docs/rules.md says) with its id changed: no module has its id
        unset = "" if "engine" in table else f" ([scoring] names no engine, and there is no scoring/{name}.py)"
        raise ScoringError("unknown_ruleset", f"{rs.path}: 没有计分模块 {name!r}，请将 [scoring] engine 设为 "
                           f"{', '.join(engines())} 之一 / [scoring] engine of {ruleset!r} names no scoring module: "
                           f"{name!r}{unset}; set it to one of: {', '.join(engines())} (or write "
                           f"table_controller/scoring/{rs.id}.py: docs/rules.md \"Adding a regional ruleset\")", "ruleset")
    return name


def _freeze(value: Any) -> Any:
    if isinstance(value, Mapping):
        return MappingProxyType({k: _freeze(v) for k, v in value.items()})
    if isinstance(value, (list, tuple)):
        return tuple(_freeze(v) for v in value)
    return value


def ruleset_tables(ruleset: str) -> Mapping[str, Any]:
    """The ruleset's scoring tables, read-only (`["scoring"]`, `["match"]`, `["flow"]`).

    `["scoring"]["id"]` is the ruleset id. Raises `ScoringError("unknown_ruleset")` for an id
    this engine does not score, or a ruleset file without a `[scoring]` table. Files are read
    once per rulesets folder (`$TABLECTL_RULESETS_DIR` or the repository's `config/rulesets/`): `rules.ruleset.in_use`,
    the read every part of the table takes.
    """
    if not scored(ruleset):
        _broken_file(ruleset)
        raise ScoringError("unknown_ruleset",
                           f"no scoring for ruleset {ruleset!r}{_known_or_close(ruleset)}; scored: "
                           f"{', '.join(scored_rulesets()) or 'none here'} and the house rulesets that extend them",
                           "ruleset")
    from table_controller.rules.ruleset import folder

    return _tables(ruleset, folder())


def _known_or_close(ruleset: str) -> str:
    """What to say of an id that is not scored here: a ruleset the referee scores (裁判计分: `tablectl score` has
    no points for it), or the nearest id to a misspelt one (`shangai` listed only the scored ids)."""
    import difflib

    from table_controller.rules import ruleset_ids

    ids = ruleset_ids()
    if ruleset in ids:
        return " (裁判计分: the referee scores it; its table runs)"
    close = difflib.get_close_matches(ruleset, ids, n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""


def _broken_file(ruleset: str) -> None:
    """A ruleset file that is there but cannot be read (a house file's bad TOML, an unknown key) is
    named with its own error: it was reported as "no scoring for ruleset", which sends a venue looking
    for a scorer rather than at its typo."""
    from table_controller.rules import RulesError, load_ruleset

    try:
        load_ruleset(ruleset)
    except RulesError as exc:
        if getattr(exc, "code", "") != "unknown_ruleset":
            raise ScoringError("unknown_ruleset", str(exc), "ruleset") from exc


def family(ruleset: str) -> str:
    """The ruleset whose scoring and procedures `ruleset` plays: itself, or for a house ruleset
    (`extends = "mcr"`, docs/rules.md) the root of its chain: the default `[scoring] engine`. Shared code
    branches on no family: what differs is the engine module's (`scoring.rulesets.HOOKS`)."""
    from table_controller.rules.ruleset import folder

    return _family(ruleset, folder())


def _family(ruleset: str, directory: str) -> str:
    from table_controller.rules import RulesError

    try:
        return _family_read(ruleset, directory)
    except RulesError:  # an unknown id or a broken file is named where it is used; not kept (`_family_read`)
        return ruleset


@lru_cache(maxsize=None)
def _family_read(ruleset: str, directory: str) -> str:
    """`_family` of a file that reads. A file that does not raises, and is not kept: kept, a house file saved with a
    typo was its own family (no engine's hooks) in the process after it was put right."""
    from table_controller.rules.ruleset import in_use

    return in_use(ruleset, directory).family


@lru_cache(maxsize=None)
def _tables(ruleset: str, directory: str) -> Mapping[str, Any]:
    tables = _read(ruleset, directory)
    if "scoring" not in tables:
        raise ScoringError("unknown_ruleset", f"ruleset {ruleset!r} has no [scoring] table", "ruleset")
    tables["scoring"]["id"] = ruleset
    tables["scoring"]["family"] = _family(ruleset, directory)
    return _freeze(tables)  # type: ignore[no-any-return]


def _read(ruleset: str, directory: str) -> dict[str, Any]:
    """Copies of the ruleset file's `[scoring]`, `[match]` and `[flow]` tables, those it has. `[scoring]`
    gains `hand_end`, the file's 买马 / 钓鱼 as loaded (`kind`, `counts_from`, `tiles`, `honour_values`), where it has one:
    the scorer counts a horse's seat from it, not from a table of its own."""
    from table_controller.rules import RulesError
    from table_controller.rules.ruleset import in_use

    try:
        rs = in_use(ruleset, directory)
    except RulesError as exc:
        raise ScoringError("unknown_ruleset", str(exc), "ruleset") from exc
    sections = rs.sections
    tables = {k: dict(sections[k]) for k in ("scoring", "match", "flow") if k in sections}
    if "scoring" in tables and rs.hand_end is not None:
        end = rs.hand_end
        tables["scoring"]["hand_end"] = {"kind": end.kind, "counts_from": end.counts_from, "tiles": end.tiles,
                                         "honour_values": dict(end.honour_values)}
    return tables


def scoring(ruleset: str) -> Mapping[str, Any]:
    """The `[scoring]` table of a ruleset."""
    return ruleset_tables(ruleset)["scoring"]  # type: ignore[no-any-return]


def flow(ruleset: str) -> Mapping[str, Any]:
    """The `[flow]` table of a ruleset (empty when it has none)."""
    return _play_tables(ruleset).get("flow", MappingProxyType({}))  # type: ignore[no-any-return]


def match(ruleset: str) -> Mapping[str, Any]:
    """The `[match]` table of a ruleset (empty when it has none)."""
    return _play_tables(ruleset).get("match", MappingProxyType({}))  # type: ignore[no-any-return]


def _play_tables(ruleset: str) -> Mapping[str, Any]:
    """`[flow]` and `[match]`, which a ruleset the referee scores (裁判计分) may have too."""
    if scored(ruleset):
        return ruleset_tables(ruleset)
    from table_controller.rules.ruleset import folder

    return _unscored_tables(ruleset, folder())


@lru_cache(maxsize=None)
def _unscored_tables(ruleset: str, directory: str) -> Mapping[str, Any]:
    tables = _read(ruleset, directory)
    tables.pop("scoring", None)
    return _freeze(tables)  # type: ignore[no-any-return]

"""Reading a hand with a ruleset's registry: pick the best reading, apply the table's values."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from table_controller import tiles as T
from table_controller.scoring.errors import ScoringError
from table_controller.scoring.hand import HandInput
from table_controller.scoring.registry import Registry, View, best
from table_controller.scoring.result import Fan
from table_controller.scoring.shapes import readings


def best_reading(hand: HandInput, registry: Registry, table: Mapping[str, Any], *,
                 wildcard: str | None = None, knitted: bool = False,
                 extra: Mapping[str, object] | None = None) -> tuple[list[Fan], View] | None:
    """The reading whose elements score most under the table's `fans` and `excludes`; None: no win."""
    values = table["fans"]
    excludes = table.get("excludes", {})
    check_names(table, registry)
    candidates = []
    for shape in readings(hand, wildcard, knitted=knitted):
        view = View(hand, shape, wildcard, extra or {})
        candidates.append((registry.evaluate(view, values, excludes), view))
    return best(candidates)


#: The tables of a `[scoring]` that name the scorer's elements (fans, patterns, ways of winning).
NAME_TABLES: tuple[str, ...] = ("fans", "excludes", "patterns", "ways")


def check_names(table: Mapping[str, Any], registry: Registry) -> None:
    """Every element the tables name is one the scorer knows: a typo in a (house) ruleset's TOML
    must not silently drop a fan. Checked when a table's config is read and again when scoring."""
    check_values(table)
    named: set[str] = set()
    for key in NAME_TABLES:
        names = table.get(key) or {}
        named |= set(names)
        if key == "excludes":
            named |= {n for listed in names.values() for n in listed}
    unknown = sorted(named - set(registry.elements))
    if unknown:
        where = "/".join(f"[scoring.{k}]" for k in NAME_TABLES if table.get(k))
        raise ScoringError("bad_ruleset_table",
                           f"{where} of {table.get('id')} names fans this engine does not know: "
                           f"{', '.join(unknown)}; known: {', '.join(registry.elements)}", "ruleset")


def _fan_count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def check_values(table: Mapping[str, Any]) -> None:
    """Every value the name tables give is of their kind: a fan's a whole number of 0 or more, an
    exclusion's a list of names, a pattern's or way's a table of whole numbers. A house file's
    `"清一色" = "lots"` loaded and raised ValueError (a traceback) at the match's first win; `2.5` was
    cut to 2 and `true` read as 1 without a word."""
    where = f"in {table.get('id')}.toml"
    for name, value in (table.get("fans") or {}).items():
        if not _fan_count(value):
            raise ScoringError("bad_ruleset_table", f"[scoring.fans] {name} {where} must be a whole number of fans "
                               f"(0 or more), not {value!r}", "ruleset")
    for name, value in (table.get("excludes") or {}).items():
        if not isinstance(value, (list, tuple)) or not all(isinstance(n, str) for n in value):
            raise ScoringError("bad_ruleset_table", f"[scoring.excludes] {name} {where} must be a list of fan "
                               f'names (["碰碰胡", ...]), not {value!r}', "ruleset")
    for key in ("patterns", "ways"):
        for name, value in (table.get(key) or {}).items():
            if not isinstance(value, Mapping) or not all(_fan_count(v) for v in value.values()):
                raise ScoringError("bad_ruleset_table", f"[scoring.{key}] {name} {where} must be a table of whole "
                                   f"numbers (0 or more), such as {{ self_draw = 6, discard = 9 }}, not {value!r}",
                                   "ruleset")


def candidates(hand: HandInput, kinds: list[str], *, wildcard: str | None = None) -> list[str]:
    """Kinds that could complete the hand: those within two of a concealed suited tile, or held
    honours; all kinds when a joker is held or the hand is spread enough for 十三幺/不靠 forms."""
    concealed = [t for t in hand.concealed if t]
    if (wildcard and wildcard in concealed) or len(set(concealed)) >= 10:
        return list(kinds)
    near: set[str] = set()
    for t in concealed:
        if T.is_suited(t):
            s, r = T.suit(t), T.rank(t)
            near.update(f"{x}{s}" for x in range(r - 2, r + 3) if 1 <= x <= 9)
        else:
            near.add(t)
    return [k for k in kinds if k in near]


def waits_of(hand: HandInput, kinds: list[str], *, wildcard: str | None = None,
             knitted: bool = False) -> list[str]:
    """The kinds that complete a ready hand of 13 (a fifth copy is never a wait)."""
    held = hand.all_tiles() if hand.win_tile else list(hand.concealed) + [t for m in hand.melds for t in m.tiles]
    out = []
    for kind in candidates(hand, kinds, wildcard=wildcard):
        if held.count(kind) >= 4:
            continue
        if readings(hand.with_win(kind), wildcard, knitted=knitted):
            out.append(kind)
    return out

"""Reading a hand with a ruleset's registry: pick the best reading, apply the table's values."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from table_controller import tiles as T
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
    candidates = []
    for shape in readings(hand, wildcard, knitted=knitted):
        view = View(hand, shape, wildcard, extra or {})
        candidates.append((registry.evaluate(view, values, excludes), view))
    return best(candidates)


def waits_of(hand: HandInput, kinds: list[str], *, wildcard: str | None = None,
             knitted: bool = False) -> list[str]:
    """The kinds that complete a ready hand of 13 (a fifth copy is never a wait)."""
    held = hand.all_tiles() if hand.win_tile else list(hand.concealed) + [t for m in hand.melds for t in m.tiles]
    out = []
    for kind in kinds:
        if held.count(kind) >= 4:
            continue
        if readings(hand.with_win(kind), wildcard, knitted=knitted):
            out.append(kind)
    return out


def seat_kinds(honours: bool) -> list[str]:
    return T.all_kinds(honours=honours)

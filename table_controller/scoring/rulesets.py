"""Which module scores which ruleset id: `[scoring] engine` of its file (docs/scoring.md)."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from types import ModuleType
from typing import Any

from table_controller.scoring.config import engine


def module_for(ruleset: str) -> ModuleType:
    """The scoring module of a ruleset (of its family, for a house ruleset): it exposes
    `score(hand, table) -> ScoreResult`."""
    return importlib.import_module(f"table_controller.scoring.{engine(ruleset)}")


#: What a scoring module may define beside `score`, each asked by shared code with the ruleset's `[scoring]`
#: table, so a ruleset it scores under any id (a venue's copy, a new family) needs no branch there:
#: `check_table(table)` (refuse a bad value when the table is configured), `fan_rows(table)` (the fan table),
#: `pay_kong(note, active, table)` (a kong paid on the spot; absent: none), `settle_draw(hands, kongs, table)`
#: (荒牌 payments; absent: none), `pay_false_win(seat, table, **given)` (诈和; absent: `no_false_win_rule`),
#: `completes(hand, table)` (the shape wins, for `tablectl waits`; absent: sets and a pair, 七对, 十三幺),
#: `win_options(table)` (what only the referee gives a win read: the Win page's fields; absent: `wildcard`, `horses`,
#: `first_turn` as the table and file have them), `settlement_rows(table)` (payment rules the fan table lists after
#: the 封顶, 自摸 and 诈和 rows read from the table's keys; absent: none), `pay_chase(first, double, table)`
#: (追牌 paid on the spot where `[flow] chase`; absent: none), `pay_follow(dealer, table)` (跟庄 paid on the spot
#: where `[flow] follow_dealer`; absent: none).
HOOKS = ("check_table", "fan_rows", "pay_kong", "settle_draw", "pay_false_win", "completes", "win_options",
         "settlement_rows", "pay_chase", "pay_follow")


def engine_hook(ruleset: str, name: str) -> Callable[..., Any] | None:
    """The scoring module's function `name` (one of `HOOKS`) for `ruleset`, or None where it has none."""
    if name not in HOOKS:
        raise ValueError(f"no scoring hook {name!r}; hooks: {', '.join(HOOKS)}")
    hook: Callable[..., Any] | None = getattr(module_for(ruleset), name, None)
    return hook

"""The fan table a referee reads: each element's Chinese name, value and rule, from code and data."""

from __future__ import annotations

from typing import Any

from table_controller.scoring.config import scoring
from table_controller.scoring.rulesets import module_for


def fan_table(ruleset: str) -> list[dict[str, Any]]:
    """`[{"name", "value", "rule"}]` for every element the ruleset's table values, in table order.

    MCR's 81 fans live in the pymahjonggb library; its table lists the competition rules around them.
    """
    table = scoring(ruleset)
    if ruleset == "mcr":
        return [
            {"name": "起和", "value": int(table["min_fan"]), "rule": "和牌须够8番, 花牌不计 (fans: pymahjonggb)"},
            {"name": "底分", "value": int(table["base"]),
             "rule": "自摸: 三家各付 底分+番; 点和: 点炮者付 底分+番, 另两家各付底分"},
            {"name": "错和", "value": int(table["false_win_each"]), "rule": "错和者付其他三家各10分"},
        ]
    registry = module_for(ruleset).REGISTRY
    out = []
    for name, value in table["fans"].items():
        element = registry.elements.get(name)
        out.append({"name": name, "value": int(value), "rule": element.rule if element else ""})
    for name, value in table.get("additional", {}).items():
        out.append({"name": name, "value": int(value), "rule": "附加分"})
    return out

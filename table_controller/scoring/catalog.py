"""The fan table a referee reads: each element's Chinese name, value and rule, from code and data."""

from __future__ import annotations

from typing import Any

from table_controller.scoring.config import family, scoring
from table_controller.scoring.rulesets import module_for


def fan_table(ruleset: str) -> list[dict[str, Any]]:
    """`[{"name", "value", "rule"}]` for every element the ruleset's table values, in table order.

    MCR's 81 fans live in the pymahjonggb library; its table lists the competition rules around them.
    """
    table = scoring(ruleset)
    if family(ruleset) == "mcr":
        return [
            {"name": "起和", "value": int(table["min_fan"]), "rule": f"和牌须够{int(table['min_fan'])}番, 花牌不计 (fans: pymahjonggb)"},
            {"name": "底分", "value": int(table["base"]),
             "rule": "自摸: 三家各付 底分+番; 点和: 点炮者付 底分+番, 另两家各付底分"},
            {"name": "错和", "value": int(table["false_win_each"]), "rule": "错和者付其他三家各10分"},
        ]
    if family(ruleset) == "riichi":
        from table_controller.scoring.riichi import yaku_table

        return yaku_table()
    registry = module_for(ruleset).REGISTRY
    out = []
    for name, value in table["fans"].items():
        element = registry.elements.get(name)
        out.append({"name": name, "value": int(value), "rule": element.rule if element else ""})
    for name, value in table.get("additional", {}).items():
        out.append({"name": name, "value": int(value), "rule": "附加分"})
    return out + settlement_rows(ruleset, table)


def settlement_rows(ruleset: str, table: Any) -> list[dict[str, Any]]:
    """The payment rules a referee applies beside the fans (包付, 倍打, 诈和), where the table has them."""
    rows: list[dict[str, Any]] = []
    if family(ruleset) == "jingji":
        rows.append({"name": "包付", "value": int(table["multipliers"]["baofu"]),
                     "rule": "吃碰三次 / 清一色盘面 / 全求独钓挂牌点炮: 一家支付三家分"})
        rows.append({"name": "倍打", "value": int(table["double"]),
                     "rule": "庄家和牌连庄: 所有得失分双倍, 连续坐庄不再加倍"})
        rows.append({"name": "诈和", "value": int(table["false_win"]["max"]),
                     "rule": f"罚分{table['false_win']['unit']}分一个单位, 限于{table['false_win']['max']}分以内, "
                             "判给亏损方或盘外死分; 处理为相公"})
    elif "false_win_factor" in table:
        rows.append({"name": "诈和", "value": int(table["false_win_factor"]),
                     "rule": "按输牌对待: 和多少罚多少 (×此倍数), 罚给各家; 本盘停和"})
    return rows

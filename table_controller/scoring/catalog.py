"""The fan table a referee reads: each element's Chinese name, value and rule, from code and data."""

from __future__ import annotations

from typing import Any

from table_controller.scoring.config import scoring
from table_controller.scoring.rulesets import engine_hook, module_for


def fan_table(ruleset: str) -> list[dict[str, Any]]:
    """`[{"name", "value", "rule"}]` for every element the ruleset's table values, in table order.

    A scoring module whose table has no one value per element gives its own rows (`fan_rows(table)`);
    the ruleset's 门槛 (`[win_conditions]`) follow, value 0.
    """
    from table_controller.scoring import referee_scored
    from table_controller.scoring.conditions import for_ruleset, rows

    if referee_scored(ruleset):  # no table of values to show: `scoring(ruleset)` would call it unknown
        return [{"name": "裁判计分", "value": 0,
                 "rule": "规则原文没有计分：裁判给分（点炮者付或自摸各家付 options.points，或逐家 options.pays），"
                         "本表只核对牌型与门槛 / the rule text gives no scoring: the referee gives the points "
                         "(options.points, options.pays), the shape is checked"}] + rows(for_ruleset(ruleset))
    return _fan_rows(ruleset) + rows(for_ruleset(ruleset))


def _fan_rows(ruleset: str) -> list[dict[str, Any]]:
    table = scoring(ruleset)
    module = module_for(ruleset)
    own = getattr(module, "fan_rows", None)
    if own is not None:  # a table without one value per element (MCR's library, riichi's yaku, 南宁, 河北)
        given: list[dict[str, Any]] = own(table)
        return given
    registry = module.REGISTRY
    out = []
    for name, value in table["fans"].items():
        element = registry.elements.get(name)
        out.append({"name": name, "value": int(value), "rule": element.rule if element else ""})
    for name, value in table.get("additional", {}).items():
        out.append({"name": name, "value": int(value), "rule": "附加分"})
    return out + settlement_rows(ruleset, table)


def settlement_rows(ruleset: str, table: Any) -> list[dict[str, Any]]:
    """The payment rules a referee applies beside the fans, where the table has them: 封顶 (`cap_fan`), 自摸
    (a `self_draw` rule), 诈和 (`false_win_factor`), then the engine module's own (`settlement_rows(table)`:
    竞技's 包付, 倍打, 罚分), so a venue's copy under its own id shows them as the original."""
    rows: list[dict[str, Any]] = []
    if "cap_fan" in table:  # 四川/血流, 鸡平胡 爆胡: base × 2^番 up to the cap (鸡平胡's limit hands beyond it)
        cap, base = int(table["cap_fan"]), int(table["base"])
        rule = f"番数封顶 {cap} 番: 每家付 底分×2^番, 至多 {base}×2^{cap} = {base * 2 ** cap}"
        if "limit_fan" in table:
            limit = int(table["limit_fan"])
            rule += f"; 特殊牌型 ({'、'.join(table.get('limit_hands', ()))}) 单算 {base}×2^{limit} = {base * 2 ** limit}"
        rows.append({"name": "封顶", "value": cap, "rule": rule})
    if isinstance(table.get("self_draw"), str):  # 四川/血流's 自摸 rule (a number elsewhere: a payment)
        said = {"add_base": "自摸加底: 每家多付一个底分", "add_fan": "自摸加番: 多算 1 番 (在封顶之内)",
                "none": "自摸不另加"}
        rows.append({"name": "自摸", "value": int(table["self_draw"] != "none"),
                     "rule": said.get(str(table["self_draw"]), str(table["self_draw"]))})
    if "false_win_factor" in table:  # 四川/血流: 和多少罚多少
        rows.append({"name": "诈和", "value": int(table["false_win_factor"]),
                     "rule": "按输牌对待: 和多少罚多少 (×此倍数), 罚给各家; 本盘停和"})
    own = engine_hook(ruleset, "settlement_rows")
    if own is not None:
        given: list[dict[str, Any]] = own(table)
        rows += given
    return rows

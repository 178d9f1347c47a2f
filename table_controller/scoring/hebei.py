"""河北麻将 (seed 004 河北麻将简单规则; seed 001 河北麻将): a win pays the table's 基点.

Seed 004 gives the whole of its scoring in one note: "此规则对应的是两摞牌，十四张起胡，可以吃、碰数次的
最一般玩法，无补花，基点为1、2、3". It names no fan, so this module reads:

- 十四张起胡: a win is four sets and a pair (the 最一般玩法; no 七对 or 十三幺 is named);
- 基点为1、2、3: the base a table plays for is 1, 2 or 3 (`[scoring] base`, one of `bases`);
- the base is paid by the discarder alone (点炮, 抢杠: the robbed seat), or by each other seat on 自摸
  (杠上开花 included).
Kongs pay nothing on the spot and 荒庄 pays nothing: the seeds say neither.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from table_controller.scoring import elements as E
from table_controller.scoring.common import best_reading
from table_controller.scoring.config import scoring
from table_controller.scoring.errors import ScoringError
from table_controller.scoring.hand import HandInput
from table_controller.scoring.points import collect
from table_controller.scoring.registry import Registry
from table_controller.scoring.result import Fan, ScoreResult, refuse, settlement

RULESET = "hebei"
#: The one element: 和牌, the 最一般玩法's four sets and a pair.
WIN = "和牌"
REGISTRY = Registry(RULESET)
#: no name table is read: the one element 和牌 is worth the 基点 (`scoring.check_tables` refuses them)
TABLES_READ: tuple[str, ...] = ()
REGISTRY.add(WIN, E.standard)


def check_table(table: Mapping[str, Any]) -> None:
    """Refuse a 基点 the seed does not give when a table's config is read (`scoring.check_tables`)."""
    base(table)


def base(table: Mapping[str, Any]) -> int:
    """The table's 基点, one of the seed's 1, 2, 3 (`bases`); anything else is a broken ruleset file."""
    value, allowed = table["base"], tuple(table["bases"])
    if not isinstance(value, int) or isinstance(value, bool) or value not in allowed:
        raise ScoringError("bad_ruleset_table", f"河北麻将的基点为{'、'.join(map(str, allowed))}，不是 {value!r} / "
                           f"[scoring] base of {table.get('id', RULESET)} must be one of {list(allowed)}", "ruleset")
    return int(value)


def score(hand: HandInput, table: Mapping[str, Any] | None = None) -> ScoreResult:
    """The 基点 from the discarder, or from each other seat on 自摸; not four sets and a pair: no win."""
    table = table or scoring(RULESET)
    ruleset = str(table.get("id", RULESET))  # a house ruleset's verdict names it
    pts = base(table)
    if hand.flowers:
        raise ScoringError("bad_tile", "河北麻将无补花，没有花牌 / no flowers", "flowers")
    found = best_reading(hand, REGISTRY, {"fans": {WIN: pts}})  # seven pairs reads, but holds no 和牌
    if found is None or not found[0]:
        return refuse(ruleset, "not_a_win", "不是和牌：须四副牌加一对将（十四张起胡）/ not four sets and a pair")
    payers = ({s: pts for s in hand.active if s != hand.winner} if hand.self_drawn
              else {hand.paying_seat(): pts})
    return ScoreResult(True, ruleset, (Fan(WIN, pts),), pts, pts, collect(hand.winner, payers),
                       details=settlement([]))  # each payer pays the total: no step


def completes(hand: HandInput, table: Mapping[str, Any]) -> bool:
    """The waits' shape hook (`scoring.waits`): four sets and a pair only, as `score` reads 十四张起胡. Without it
    the shared shapes took 七对 and 十三幺: the hand machine paid a 七对 自摸 the scorer calls 不是和牌, and
    `tablectl waits` listed its waits."""
    from table_controller.scoring.shapes import readings

    return any(shape.form == "standard" for shape in readings(hand))


def fan_rows(table: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The Win page's fan table: the one element and how it is paid."""
    pts = base(table)
    bases = "、".join(str(b) for b in table["bases"])
    return [{"name": WIN, "value": pts,
             "rule": f"四副牌加一对将 (十四张起胡); 基点 {pts} (基点为{bases}): 点炮者付, 自摸三家各付"}]

"""竞技麻将 (seed 004): 10/20/30-point fans, additional points, 点和 ×2, 自摸 ×1 each, 倍打, kong payments.

Rule text: seed 004 第九条 (番种 and 附加分), 第三十八条 (比赛分), 杠牌 (现场汇), 包付.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from table_controller import tiles as T
from table_controller.scoring import elements as E
from table_controller.scoring.common import best_reading, waits_of
from table_controller.scoring.config import scoring
from table_controller.scoring.errors import ScoringError
from table_controller.scoring.hand import HandInput
from table_controller.scoring.points import collect
from table_controller.scoring.registry import Registry
from table_controller.scoring.result import Fan, ScoreResult, refuse

RULESET = "jingji"
REGISTRY = Registry(RULESET)
for _name, _check in (
    ("花龙", E.mixed_straight), ("清龙", E.pure_straight), ("组合龙", E.knitted_straight),
    ("混一色", E.half_flush), ("对对和", E.all_pungs), ("大乱", E.knitted),
    ("全求独钓", E.melded_single_wait), ("夹绝张", E.last_of_kind_closed),
    ("全大", E.all_upper), ("全中", E.all_middle), ("全小", E.all_lower),
    ("清一色", E.full_flush), ("七对", E.seven_pairs), ("三箭刻", E.big_three_dragons),
):
    REGISTRY.add(_name, _check)


def is_single_wait(hand: HandInput) -> bool:
    """单张和牌 (夹, 边, 单吊): the ready hand waited on the winning kind alone (seed 004 第七条)."""
    ready = hand.with_win("")
    return waits_of(ready, T.all_kinds(), knitted=True) == [hand.win_tile]


def additional(hand: HandInput, form: str, table: Mapping[str, Any]) -> list[Fan]:
    """附加分: flowers, single wait, flower-replacement win, 杠上开花/海底捞月/妙手回春, 门清."""
    extra = table["additional"]
    out: list[Fan] = []
    if hand.flowers:
        out.append(Fan("花牌", int(extra["花牌"]), len(hand.flowers)))
    if form != "seven_pairs" and is_single_wait(hand):
        out.append(Fan("单张和牌", int(extra["单张和牌"])))
    if hand.win == "flower_replacement":
        out.append(Fan("补花和牌", int(extra["补花和牌"])))
    if hand.win == "kong_replacement":
        out.append(Fan("杠上开花", int(extra["杠上开花"])))
    if hand.last_tile:
        name = "妙手回春" if hand.self_drawn else "海底捞月"
        out.append(Fan(name, int(extra[name])))
    if all(m.concealed for m in hand.melds):
        out.append(Fan("门清", int(extra["门清"])))
    return out


def payments(hand: HandInput, total: int, table: Mapping[str, Any]) -> dict[str, int]:
    """点和: ×2 from the discarder; 自摸: ×1 from each; 抢杠和: ×3 from the konger; 倍打 doubles all.

    包付 (`options.baofu`: the seat that pays alone): three shares from that seat, however won.
    """
    factor = 2 if hand.options.get("double") else 1
    mult = table["multipliers"]
    bao = hand.options.get("baofu")
    if bao is not None:
        if bao not in T.SEATS or bao == hand.winner:
            raise ScoringError("bad_field", "包付 names another seat, E S W N", "options.baofu")
        return collect(hand.winner, {bao: total * int(mult["baofu"]) * factor})
    if hand.win == "discard":
        return collect(hand.winner, {hand.paying_seat(): total * int(mult["discard"]) * factor})
    if hand.win == "rob_kong":
        return collect(hand.winner, {hand.paying_seat(): total * int(mult["rob_kong"]) * factor})
    return collect(hand.winner, {s: total * int(mult["self_draw"]) * factor
                                 for s in T.SEATS if s != hand.winner})


def score(hand: HandInput, table: Mapping[str, Any] | None = None) -> ScoreResult:
    """Fans (无番禁和牌: at least one), additional points, and the payments."""
    table = table or scoring(RULESET)
    found = best_reading(hand, REGISTRY, table, knitted=True)
    if found is None:
        return refuse(RULESET, "not_a_win", "不是和牌")
    fans, view = found
    if not fans:
        return refuse(RULESET, "no_fan", "无番禁和牌: 须有技术型番种")
    extra = additional(hand, view.shape.form, table)
    total = sum(f.points for f in fans + extra)
    return ScoreResult(True, RULESET, tuple(fans + extra), total, total, payments(hand, total, table),
                       details={"fan_points": sum(f.points for f in fans),
                                "double": bool(hand.options.get("double"))})


def kong_payment(seat: str, kind: str, discarder: str | None = None,
                 table: Mapping[str, Any] | None = None) -> dict[str, int]:
    """杠牌现场汇: 明杠 4 from each (点杠: 12 from the discarder), 暗杠 6 from each, 花杠 8 from each."""
    table = table or scoring(RULESET)
    k = table["kong"]
    if kind == "exposed" and discarder:
        return collect(seat, {discarder: int(k["点杠"])})
    each = int(k[{"exposed": "明杠", "added": "明杠", "concealed": "暗杠", "flower": "花杠"}[kind]])
    return collect(seat, {s: each for s in T.SEATS if s != seat})


def chase_payment(first: str, table: Mapping[str, Any] | None = None) -> dict[str, int]:
    """追牌现场汇: four seats discard the same tile in a row; the first pays 4 to each other."""
    table = table or scoring(RULESET)
    each = int(table["chase_each"])
    return {s: (-3 * each if s == first else each) for s in T.SEATS}


def settle(balances: Mapping[str, int], payments_: Mapping[str, int]) -> tuple[dict[str, int], bool]:
    """Pay out of the 100-point stacks: a payer pays at most what they hold (盘面付完为止).

    Returns the new balances and whether the session ends (two seats with nothing left).
    """
    owed = {s: -a for s, a in payments_.items() if a < 0}
    paid = {s: min(owed[s], max(balances[s], 0)) for s in owed}
    receivers = {s: a for s, a in payments_.items() if a > 0}
    short = sum(owed.values()) - sum(paid.values())
    new = dict(balances)
    for s, a in paid.items():
        new[s] -= a
    total_in = sum(receivers.values())
    remaining = sum(paid.values())
    for i, (s, a) in enumerate(sorted(receivers.items())):
        share = a - (short * a // total_in if total_in else 0)
        if i == len(receivers) - 1:
            share = remaining
        new[s] += share
        remaining -= share
    return new, sum(1 for v in new.values() if v <= 0) >= 2


def win_refusal(balances: Mapping[str, int], result: ScoreResult, payer: str | None) -> str | None:
    """Why the stacks forbid this win, or None (seed 004 第三十二条, 三十八条(一)5, 三十六条).

    `no_points_payer`: 盘面无分者点炮，禁止和牌 (a discarder with no points left);
    `non_winning_end`: a win may not end the 局 (two seats empty) unless it leaves the winner first
    (禁止非胜式和牌局结).
    """
    if not result.valid:
        return None
    if payer is not None and balances.get(payer, 0) <= 0:
        return "no_points_payer"
    new, over = settle(balances, result.payments)
    winner = max(result.payments, key=lambda s: result.payments[s])
    if over and any(new[s] >= new[winner] for s in new if s != winner):
        return "non_winning_end"
    return None

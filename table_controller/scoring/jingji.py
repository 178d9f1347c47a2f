"""竞技麻将 (seed 004): 10/20/30-point fans, additional points, 点和 ×2, 自摸 ×1 each, 倍打, kong payments.

Rule text: seed 004 第九条 (番种 and 附加分), 第三十八条 (比赛分), 杠牌 (现场汇), 包付 (`baofu`),
三十二 禁止非胜式和牌局结 (`win_refusal`, `guard_end`), 二十七 诈和 (`false_win`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from table_controller import tiles as T
from table_controller.scoring import elements as E
from table_controller.scoring.baofu import Liability, liability
from table_controller.scoring.common import best_reading, waits_of
from table_controller.scoring.config import scoring
from table_controller.scoring.errors import ScoringError
from table_controller.scoring.hand import HandInput
from table_controller.scoring.points import collect
from table_controller.scoring.registry import Registry
from table_controller.scoring.result import Fan, ScoreResult, Share, Step, refuse, settlement

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


def double_factor(hand: HandInput, table: Mapping[str, Any]) -> int:
    """倍打: `options.double` (the hand machine's flag while the dealer keeps the deal) multiplies
    every payment by `[scoring] double` (2). Seed 004 三十: "庄家和牌继续坐庄时，即进入全面翻倍
    计分比赛，称'倍打'；连续坐庄继续倍打，但不再加倍计分" (a flag, never ×4)."""
    flag = hand.options.get("double", False)
    if not isinstance(flag, bool):
        raise ScoringError("bad_field", "倍打 is true or false", "options.double")
    return int(table["double"]) if flag else 1


def payments(hand: HandInput, total: int, table: Mapping[str, Any]) -> tuple[dict[str, int], Liability | None]:
    """点和: ×2 from the discarder; 自摸: ×1 from each; 抢杠和: ×3 from the konger; 倍打 doubles all.

    包付 (`baofu.liability`: 吃碰三次, 清一色, 全求独钓): three shares ("一家支付三家分") from that
    seat alone, however won. Returns the payments and the 包付 that decided them, if any.
    """
    payers, bao, _, _ = who_pays(hand, total, table)
    return collect(hand.winner, payers), bao


#: The names of `[scoring.multipliers]`' ways of winning, as a step from the total to one share.
_MULTIPLIER_NAMES = {"discard": ("点和", "win on a discard"), "rob_kong": ("抢杠和", "robbed kong"),
                     "self_draw": ("自摸", "self-draw")}


def who_pays(hand: HandInput, total: int,
             table: Mapping[str, Any]) -> tuple[dict[str, int], Liability | None, list[Step], list[Share]]:
    """Who pays the winner how much (as `payments` says), the steps from the total to one share and the seat that
    pays otherwise (包付)."""
    factor = double_factor(hand, table)
    mult = table["multipliers"]
    bao = liability(hand, table["baofu"])
    key = "baofu" if bao is not None else hand.win if hand.win in ("discard", "rob_kong") else "self_draw"
    times = int(mult[key])
    steps = [Step(*_MULTIPLIER_NAMES[key], "×", times)] if key != "baofu" and times != 1 else []  # 自摸 ×1: no step
    if factor > 1:
        steps.append(Step("倍打", "doubled", "×", factor))
    if bao is not None:
        return ({bao.seat: total * times * factor}, bao, steps,
                [Share(bao.seat, bao.rule, "pays for all three (包付)", "×", times)])
    if key in ("discard", "rob_kong"):
        return {hand.paying_seat(): total * times * factor}, None, steps, []
    return {s: total * times * factor for s in T.SEATS if s != hand.winner}, None, steps, []


def score(hand: HandInput, table: Mapping[str, Any] | None = None) -> ScoreResult:
    """Fans (无番禁和牌: at least one), additional points, and the payments."""
    table = table or scoring(RULESET)
    ruleset = str(table.get("id", RULESET))  # a house ruleset's verdict names it
    found = best_reading(hand, REGISTRY, table, knitted=True)
    if found is None:
        return refuse(ruleset, "not_a_win", "不是和牌")
    fans, view = found
    if not fans:
        return refuse(ruleset, "no_fan", "无番禁和牌: 须有技术型番种")
    extra = additional(hand, view.shape.form, table)
    total = sum(f.points for f in fans + extra)
    payers, bao, steps, shares = who_pays(hand, total, table)
    pay = collect(hand.winner, payers)
    details: dict[str, Any] = {"fan_points": sum(f.points for f in fans),
                               "double": double_factor(hand, table) > 1, **settlement(steps, shares)}
    if bao is not None:
        details["baofu"] = bao.to_json()
    return ScoreResult(True, ruleset, tuple(fans + extra), total, total, pay, details=details)


def kong_payment(seat: str, kind: str, discarder: str | None = None,
                 table: Mapping[str, Any] | None = None, double: bool = False) -> dict[str, int]:
    """杠牌现场汇: 明杠 4 from each (点杠: 12 from the discarder), 暗杠 6 from each, 花杠 8 from each.

    `double` (倍打) doubles it: seed 004 三十八 7 "倍打分：整体全面按照双倍计算所有得失分".
    """
    table = table or scoring(RULESET)
    k = table["kong"]
    factor = int(table["double"]) if double else 1
    if kind == "exposed" and discarder:
        return collect(seat, {discarder: int(k["点杠"]) * factor})
    each = int(k[{"exposed": "明杠", "added": "明杠", "concealed": "暗杠", "flower": "花杠"}[kind]]) * factor
    return collect(seat, {s: each for s in T.SEATS if s != seat})


def check_table(table: Mapping[str, Any]) -> None:
    """Refuse, when a table's config is read (`scoring.check_tables`), a reading the two texts' choices do not name:
    `[scoring.baofu] hanging_swap` ends or range, `[scoring.non_winning_end] kong` hold or void. Before, a misspelt one
    stopped the match at its first 全求独钓 win on a discard, or at the kong that would end the 局."""
    swap = (table.get("baofu") or {}).get("hanging_swap", "ends")
    if swap not in ("ends", "range"):
        raise ScoringError("bad_ruleset_table", f"[scoring.baofu] hanging_swap of {table.get('id')} is ends or range, "
                           f"not {swap!r}", "ruleset")
    kong = (table.get("non_winning_end") or {}).get("kong", "hold")
    if kong not in ("hold", "void"):
        raise ScoringError("bad_ruleset_table", f"[scoring.non_winning_end] kong of {table.get('id')} is hold or void, "
                           f"not {kong!r}", "ruleset")


def pay_kong(note: Mapping[str, Any], active: tuple[str, ...], table: Mapping[str, Any]) -> dict[str, int]:
    """The engine's kong hook (`scoring.kong_payment`): 杠牌现场汇 from every seat, 倍打 as the note says."""
    return kong_payment(note["seat"], note["kind"], note.get("discarder"), table, double=bool(note.get("double")))


def chase_payment(first: str, table: Mapping[str, Any] | None = None, double: bool = False) -> dict[str, int]:
    """追牌现场汇: four seats discard the same tile in a row; the first pays 4 to each other
    (seed 004 三十七 "四人连续出同一张牌，第一家向其他三家各支付四分"); 倍打 doubles it."""
    table = table or scoring(RULESET)
    each = int(table["chase_each"]) * (int(table["double"]) if double else 1)
    return {s: (-3 * each if s == first else each) for s in T.SEATS}


def pay_chase(first: str, double: bool, table: Mapping[str, Any]) -> dict[str, int]:
    """The engine's 追牌 hook (`scoring.chase_payment`): `chase_each` and 倍打 from the ruleset's own table."""
    return chase_payment(first, table, double)


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


@dataclass(frozen=True)
class Guarded:
    """An on-the-spot payment (a kong, a penalty) checked against 禁止非胜式和牌局结.

    `balances`: the stacks after what goes on the table; `held`: points hung outside the table,
    added once the 局 is over (`points.add(final, held)`); `voided`: the payment scores nothing;
    `over`: the 局 ends (two seats empty).
    """

    balances: dict[str, int]
    held: dict[str, int]
    voided: bool
    over: bool


def guard_end(balances: Mapping[str, int], payments_: Mapping[str, int], beneficiary: str | None,
              table: Mapping[str, Any] | None = None) -> Guarded:
    """Pay a kong or a penalty out of the stacks unless it ends the 局 without a winner.

    Seed 004 十五: "由于杠牌可能会改变四家得分局面，遇到杠牌导致非胜式局结，则本次杠牌不得分，除非
    杠牌方自己成为局结第一名。" 三十二: "并禁止杠牌局结 ... 在局结情况下，除非是盘面第一名，其他各家
    任何杠牌或处罚而导致分数变化产生非胜式局结，均为禁止，即杠牌和处罚的得失分只能挂于盘外，局结后
    累积得分。"

    The payment stands when it does not end the 局 (two seats empty), or when it leaves
    `beneficiary` (the konger; the seat a penalty is paid to; None for dead points, which make
    nobody first) alone in first place. Otherwise the two articles disagree on what becomes of
    it; `[scoring.non_winning_end] kong` picks: `"hold"` (default, 三十二: 挂于盘外, added after the
    局 ends) or `"void"` (十五: 本次杠牌不得分).
    """
    table = table or scoring(RULESET)
    new, over = settle(balances, payments_)
    if not over or (beneficiary is not None
                    and all(new[beneficiary] > v for s, v in new.items() if s != beneficiary)):
        return Guarded(new, {}, False, over)
    mode = table["non_winning_end"]["kong"]
    if mode == "void":
        return Guarded(dict(balances), {}, True, False)
    if mode != "hold":
        raise ScoringError("bad_ruleset_table", f"[scoring.non_winning_end] kong is hold or void, not {mode!r}",
                           "ruleset")
    return Guarded(dict(balances), dict(payments_), False, False)


def false_win(seat: str, amount: int, victim: str | None = None, table: Mapping[str, Any] | None = None,
              double: bool = False) -> dict[str, int]:
    """诈和: the 罚分 the referee chooses, as dead points or to the seat it harmed; 倍打 doubles it.

    Seed 004 二十七: "诈和：不符合规定条件而宣布和牌。此种情况应'罚分'处理为相公并机械出牌。"
    三十八 6: "罚分可以判给明显亏损方 ... 或处理成盘外的死分，不再计算为盘内分。罚分限定为10分一个
    单位，限于50分以内". So `amount` is a multiple of 10 up to 50 (`[scoring.false_win]`); with
    `victim` it goes to that seat, without it the points leave the table (the seats do not sum to
    zero). The seat then plays on as 相公 (it may not win this hand).
    """
    table = table or scoring(RULESET)
    rule = table["false_win"]
    unit, most = int(rule["unit"]), int(rule["max"])
    if isinstance(amount, bool) or not isinstance(amount, int) or amount <= 0 or amount % unit or amount > most:
        raise ScoringError("bad_field", f"罚分 is {unit} to {most} in units of {unit}, not {amount!r}", "amount")
    for name, value in (("seat", seat), ("victim", victim)):
        if value is not None and value not in T.SEATS:
            raise ScoringError("bad_field", f"must be a seat E S W N, not {value!r}", name)
    if victim == seat:
        raise ScoringError("bad_field", "the penalty goes to another seat", "victim")
    paid = amount * (int(table["double"]) if double else 1)
    out = {s: 0 for s in T.SEATS}
    out[seat] -= paid
    if victim is not None:
        out[victim] += paid
    return out


def pay_false_win(seat: str, table: Mapping[str, Any], *, amount: int | None = None, victim: str | None = None,
                  double: bool = False, **_: Any) -> dict[str, int]:
    """The engine's 诈和 hook (`scoring.false_win`): the referee's 罚分 is needed, the rest as above."""
    if amount is None:
        raise ScoringError("bad_field", "竞技 诈和 is a 罚分 the referee chooses (10..50)", "amount")
    return false_win(seat, amount, victim, table, double)


def settlement_rows(table: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The fan table's hook (`catalog.settlement_rows`): the payment rules beside the fans (三十四 包付,
    三十 倍打, 二十七 诈和), from the table's values."""
    fine = table["false_win"]
    return [{"name": "包付", "value": int(table["multipliers"]["baofu"]),
             "rule": "吃碰三次 / 清一色盘面 / 全求独钓挂牌点炮: 一家支付三家分"},
            {"name": "倍打", "value": int(table["double"]), "rule": "庄家和牌连庄: 所有得失分双倍, 连续坐庄不再加倍"},
            {"name": "诈和", "value": int(fine["max"]),
             "rule": f"罚分{fine['unit']}分一个单位, 限于{fine['max']}分以内, 判给亏损方或盘外死分; 处理为相公"}]


def completes(hand: HandInput, table: Mapping[str, Any]) -> bool:
    """The waits' shape hook (`scoring.waits`): 组合龙 and 大乱 (knitted) are winning shapes here."""
    from table_controller.scoring.shapes import readings

    wildcard = hand.options.get("wildcard") if table.get("wildcard") else None
    return bool(readings(hand, wildcard, knitted=True))

"""四川血战到底 / 血流成河 (seeds 000 范文三, 003): 成都 fan counting, 缺一门, 刮风下雨, 查花猪/查大叫.

Points are `base × 2^fan` with the fan count capped by the table's `cap_fan` (封顶).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from table_controller import tiles as T
from table_controller.rules.ruleset import (
    SELF_DRAW_RULES,  # 自摸加底, 自摸加番, or neither
)
from table_controller.scoring import elements as E
from table_controller.scoring.common import best_reading, waits_of
from table_controller.scoring.config import scoring
from table_controller.scoring.errors import ScoringError
from table_controller.scoring.hand import HandInput
from table_controller.scoring.points import add, collect
from table_controller.scoring.registry import Registry
from table_controller.scoring.result import Fan, ScoreResult, Step, refuse, settlement

RULESET = "sichuan"
REGISTRY = Registry(RULESET)
#: seed 003 成都麻将主要规则: 不能吃牌. The scorer refuses every hand holding a chow, so `check_tables` keeps
#: `[flow] no_chow` true (a house file's `no_chow = false` had the table record chows no win could hold)
CHOWS = False
for _name, _check in (
    ("根", E.roots), ("对对和", E.all_pungs), ("七对", E.seven_pairs), ("清一色", E.full_flush),
    ("杠上开花", E.kong_replacement_win), ("杠上炮", E.kong_discard_win), ("抢杠", E.rob_kong),
    ("海底", E.last_tile),
):
    REGISTRY.add(_name, _check)

KINDS = T.all_kinds(honours=False)
#: seed 003 刮风 (直杠 `exposed`, 面下杠 `added`) and 下雨 (`concealed`): the only kongs of 四川
KONG_KINDS: tuple[str, ...] = ("exposed", "added", "concealed")


def suits_of(tiles: list[str]) -> set[str]:
    return {T.suit(t) for t in tiles}


def check_tiles(hand: HandInput) -> None:
    """108 tiles: no honours, no flowers in a 四川 hand."""
    for t in hand.all_tiles() if hand.win_tile else hand.concealed:
        if not T.is_suited(t) or T.rank(t) == 10:
            raise ScoringError("bad_tile", f"{t} is not among 四川's 108 tiles", "concealed")
    if hand.flowers:
        raise ScoringError("bad_tile", "四川 plays without flowers", "flowers")


def self_draw_rule(table: Mapping[str, Any]) -> str:
    """The table's 自摸 rule; any other value is refused, since a house ruleset's typo (or a rule this
    scorer lacks) would otherwise score every 自摸 without its bonus."""
    rule = table.get("self_draw", "add_base")
    if rule not in SELF_DRAW_RULES:
        raise ScoringError("bad_ruleset_table", f"{table.get('id', RULESET)}: [scoring] self_draw is one of "
                           f"{', '.join(SELF_DRAW_RULES)}, not {rule!r}", "self_draw")
    return str(rule)


def points_for(fan: int, table: Mapping[str, Any]) -> int:
    """base × 2^min(fan, cap)."""
    return int(table["base"]) * int(2 ** min(fan, int(table["cap_fan"])))


def score(hand: HandInput, table: Mapping[str, Any] | None = None, ruleset: str = RULESET) -> ScoreResult:
    """Fans by 成都 counting, 缺一门 required, payments from the discarder or each active seat."""
    table = table or scoring(RULESET)
    check_tiles(hand)
    ruleset = str(table.get("id", ruleset))
    if any(m.type == "chi" for m in hand.melds):  # CHOWS: seed 003 成都麻将主要规则: 不能吃牌
        raise ScoringError("bad_meld", f"{ruleset}: 不能吃牌 (no chows)", "melds")
    if len(suits_of(hand.all_tiles())) > 2:
        return refuse(ruleset, "three_suits", "未缺一门 (花猪) 不能和牌")
    missing = hand.options.get("missing_suit")
    if missing and missing in suits_of(hand.all_tiles()):
        return refuse(ruleset, "missing_suit_held", f"定缺{missing}, 手中仍有该门")
    found = best_reading(hand, REGISTRY, table)
    if found is None:
        return refuse(ruleset, "not_a_win", "不是和牌")
    fans, _ = found
    rule = self_draw_rule(table)
    if hand.self_drawn and rule == "add_fan":
        fans = [*fans, Fan("自摸", 1)]
    fan = sum(f.points for f in fans)
    pts = points_for(fan, table)
    capped = fan > int(table["cap_fan"])
    base = int(table["base"])
    steps = [*([Step("封顶", "cap", "封顶", int(table["cap_fan"]))] if capped else []),
             Step("番", "fan", "2^"), Step("底分", "base", "×", base)]
    bonus = base if hand.self_drawn and rule == "add_base" else 0
    if bonus:
        steps.append(Step("自摸加底", "self-draw adds the base", "+", bonus))
    if hand.self_drawn:
        payers = {s: pts + bonus for s in hand.active if s != hand.winner}
    else:
        payers = {hand.paying_seat(): pts}
    return ScoreResult(True, ruleset, tuple(fans), fan, pts, collect(hand.winner, payers),
                       details={"capped": capped, **settlement(steps)})


def kong_payment(seat: str, kind: str, discarder: str | None = None, active: tuple[str, ...] = T.SEATS,
                 table: Mapping[str, Any] | None = None) -> dict[str, int]:
    """刮风下雨 on the spot: 直杠 from the discarder, 面下杠 and 暗杠 (下雨) from each seat still playing.

    Seed 003 names three kongs only: "直杠立刻收取引杠者1倍点数", "面下杠立刻收取其他未胡者1倍点数",
    "下雨立刻收取其他未胡者2倍点數". Any other `kind` (a 竞技 花杠: 四川 has no flowers among its 108
    tiles, or a misspelt kind) is refused, not paid as a 下雨; so is a 直杠 "from" the konger itself.
    """
    table = table or scoring(RULESET)
    base, k = int(table["base"]), table["kong"]
    if kind not in KONG_KINDS:
        raise ScoringError("bad_field", f"a 四川 kong is {', '.join(KONG_KINDS)} (直杠, 面下杠, 下雨), not {kind!r}",
                           "kind")
    if kind == "exposed":
        if _discarder(discarder) == seat:
            raise ScoringError("bad_field", "a 直杠's discarder (引杠者) is another seat than the konger", "discarder")
        return collect(seat, {_discarder(discarder): int(k["直杠"]) * base})
    each = int(k["面下杠" if kind == "added" else "暗杠"]) * base
    return collect(seat, {s: each for s in active if s != seat})


def pay_kong(note: Mapping[str, Any], active: tuple[str, ...], table: Mapping[str, Any]) -> dict[str, int]:
    """The engine's kong hook (`scoring.kong_payment`): 刮风下雨 among the seats still playing."""
    return kong_payment(note["seat"], note["kind"], note.get("discarder"), active, table)


def _discarder(seat: str | None) -> str:
    if seat is None:
        raise ScoringError("bad_field", "an exposed kong names its discarder", "discarder")
    return seat


def refunds(kongs: Sequence[Mapping[str, int]], not_ready: Sequence[str]) -> list[dict[str, int]]:
    """退税: each 刮风下雨 payment received by a seat not ready at 荒牌, turned back to its payers.

    Not in the seeds' text: 000 范文三 and 003 give 刮风下雨 and 查花猪/查大叫 ("流局查卫生") but
    no word on kong money at 荒牌. This is the common 成都 reading, not a quotation: a seat not
    ready gives back what it took for 刮风下雨 (a 花猪 included, since it cannot be ready); the
    ruleset's `tax_refund` option turns it on (sichuan, xueliu) or off.
    `kongs` are the kong payments of the hand as `kong_payment` gave them (one receiver each).
    """
    out = []
    for i, pay in enumerate(kongs):
        if not isinstance(pay, Mapping) or set(pay) - set(T.SEATS) or sum(pay.values()) != 0:
            raise ScoringError("bad_field", "a kong payment is {seat: signed amount}, summing to zero", f"kongs[{i}]")
        receivers = [seat for seat, amount in pay.items() if amount > 0]
        if not receivers:  # nobody left to pay (血战: the konger alone still playing)
            continue
        if len(receivers) > 1:
            raise ScoringError("bad_field", "a kong payment has one receiver, the konger", f"kongs[{i}]")
        if receivers[0] in not_ready:
            out.append({seat: -amount for seat, amount in pay.items()})
    return out


def settle_exhaustive(hands: Mapping[str, HandInput], table: Mapping[str, Any] | None = None,
                      kongs: Sequence[Mapping[str, int]] = ()) -> dict[str, Any]:
    """荒牌 among the seats still playing: 查花猪, 查大叫, then 退税.

    A 花猪 (three suits, or, with 定缺, a tile of the suit it named) pays each other non-花猪 seat the capped amount; a seat not ready pays
    each ready seat the most its waits could score (as a discard win). `hands` are 13-tile hands.
    With `tax_refund` (退税, see `refunds`), a seat not ready (花猪 included) gives back the
    刮风下雨 payments it received this hand (`kongs`, as `kong_payment` gave them).
    """
    table = table or scoring(RULESET)
    pigs = [s for s, h in hands.items() if _flower_pig(h)]
    ready: dict[str, int] = {}
    for seat, h in hands.items():
        if seat in pigs:
            continue
        best_pts = 0
        for kind in waits_of(h, KINDS):
            res = score(h.with_win(kind, "discard"), table)
            if res.valid:
                best_pts = max(best_pts, res.points)
        if best_pts:
            ready[seat] = best_pts
    cap = points_for(int(table["cap_fan"]), table)
    tables: list[dict[str, int]] = []
    for pig in pigs:
        for other in hands:
            if other not in pigs:
                tables.append(collect(other, {pig: cap}))
    not_ready = [s for s in hands if s not in pigs and s not in ready]
    for seat in not_ready:
        for winner, pts in ready.items():
            tables.append(collect(winner, {seat: pts}))
    back = refunds(kongs, pigs + not_ready) if table.get("tax_refund", False) else []
    returned: dict[str, int] = {}
    for pay in back:  # each refund has one giver: the konger, now negative
        giver = next(seat for seat, amount in pay.items() if amount < 0)
        returned[giver] = returned.get(giver, 0) - pay[giver]
    return {"flower_pigs": pigs, "ready": ready, "not_ready": not_ready, "refunds": returned,
            "payments": add(*tables, *back)}


def settle_draw(hands: Mapping[str, Any], kongs: Sequence[Mapping[str, int]],
                table: Mapping[str, Any]) -> dict[str, Any]:
    """The engine's 荒牌 hook (`scoring.exhaustive_settlement`): the seats' 13-tile JSON, settled as above."""
    ready = {seat: HandInput.from_json(doc, ready_only=True) for seat, doc in hands.items()}
    return settle_exhaustive(ready, table, kongs)


def _flower_pig(hand: HandInput) -> bool:
    """花猪 at 荒牌: three suits held, or a tile of the 定缺 suit (`options.missing_suit`)."""
    held = suits_of(list(hand.concealed) + [t for m in hand.melds for t in m.tiles])
    return len(held) > 2 or hand.options.get("missing_suit") in held


def false_win(seat: str, fan: int, active: Sequence[str] = T.SEATS,
              table: Mapping[str, Any] | None = None) -> dict[str, int]:
    """诈和: the seat pays each other seat still playing what the hand it declared would have won.

    Seed 003: "无论哪一种，对诈和者均按输牌对待 ... 一般是按诈和者欲和出的番数罚筹码，亦即和多少罚
    多少也有的加倍罚。本盘停和并罚给各家，该盘继续比赛诈和者继续陪打". `fan` is the 番 the seat
    declared; each payee gets `base × 2^min(fan, cap)` times `false_win_factor` (1: "和多少罚多少";
    2: "也有的加倍罚", the other reading, a ruleset option). The seat plays on without winning (停和).
    """
    table = table or scoring(RULESET)
    if isinstance(fan, bool) or not isinstance(fan, int) or fan < 0:
        raise ScoringError("bad_field", f"the declared 番 is a count 0 or more, not {fan!r}", "fan")
    for i, s in enumerate([seat, *active]):
        if s not in T.SEATS:
            raise ScoringError("bad_field", f"must be a seat E S W N, not {s!r}", "seat" if i == 0 else "active")
    each = points_for(fan, table) * int(table["false_win_factor"])
    payees = {s for s in active if s != seat}
    out = {s: (each if s in payees else 0) for s in T.SEATS}
    out[seat] = -each * len(payees)
    return out


def pay_false_win(seat: str, table: Mapping[str, Any], *, fan: int | None = None,
                  active: Sequence[str] | None = None, **_: Any) -> dict[str, int]:
    """The engine's 诈和 hook (`scoring.false_win`): the 番 the seat declared is needed, the rest as above."""
    if fan is None:
        raise ScoringError("bad_field", "四川 诈和 pays the 番 the seat declared", "fan")
    return false_win(seat, fan, tuple(active or T.SEATS), table)

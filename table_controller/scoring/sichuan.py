"""四川血战到底 / 血流成河 (seeds 000 范文三, 003): 成都 fan counting, 缺一门, 刮风下雨, 查花猪/查大叫.

Points are `base × 2^fan` with the fan count capped by the table's `cap_fan` (封顶).
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
from table_controller.scoring.points import add, collect
from table_controller.scoring.registry import Registry
from table_controller.scoring.result import ScoreResult, refuse

RULESET = "sichuan"
REGISTRY = Registry(RULESET)
for _name, _check in (
    ("根", E.roots), ("对对和", E.all_pungs), ("七对", E.seven_pairs), ("清一色", E.full_flush),
    ("杠上开花", E.kong_replacement_win), ("杠上炮", E.kong_discard_win), ("抢杠", E.rob_kong),
    ("海底", E.last_tile),
):
    REGISTRY.add(_name, _check)

KINDS = T.all_kinds(honours=False)


def suits_of(tiles: list[str]) -> set[str]:
    return {T.suit(t) for t in tiles}


def check_tiles(hand: HandInput) -> None:
    """108 tiles: no honours, no flowers in a 四川 hand."""
    for t in hand.all_tiles() if hand.win_tile else hand.concealed:
        if not T.is_suited(t) or T.rank(t) == 10:
            raise ScoringError("bad_tile", f"{t} is not among 四川's 108 tiles", "concealed")
    if hand.flowers:
        raise ScoringError("bad_tile", "四川 plays without flowers", "flowers")


def points_for(fan: int, table: Mapping[str, Any]) -> int:
    """base × 2^min(fan, cap)."""
    return int(table["base"]) * int(2 ** min(fan, int(table["cap_fan"])))


def score(hand: HandInput, table: Mapping[str, Any] | None = None, ruleset: str = RULESET) -> ScoreResult:
    """Fans by 成都 counting, 缺一门 required, payments from the discarder or each active seat."""
    table = table or scoring(RULESET)
    check_tiles(hand)
    ruleset = str(table.get("id", ruleset))
    if len(suits_of(hand.all_tiles())) > 2:
        return refuse(ruleset, "three_suits", "未缺一门 (花猪) 不能和牌")
    missing = hand.options.get("missing_suit")
    if missing and missing in suits_of(hand.all_tiles()):
        return refuse(ruleset, "missing_suit_held", f"定缺{missing}, 手中仍有该门")
    found = best_reading(hand, REGISTRY, table)
    if found is None:
        return refuse(ruleset, "not_a_win", "不是和牌")
    fans, _ = found
    fan = sum(f.points for f in fans)
    pts = points_for(fan, table)
    if hand.self_drawn:
        bonus = int(table["base"]) if table.get("self_draw") == "add_base" else 0
        payers = {s: pts + bonus for s in hand.active if s != hand.winner}
    else:
        payers = {hand.paying_seat(): pts}
    capped = fan > int(table["cap_fan"])
    return ScoreResult(True, ruleset, tuple(fans), fan, pts, collect(hand.winner, payers),
                       details={"capped": capped})


def kong_payment(seat: str, kind: str, discarder: str | None = None, active: tuple[str, ...] = T.SEATS,
                 table: Mapping[str, Any] | None = None) -> dict[str, int]:
    """刮风下雨 on the spot: 直杠 from the discarder, 面下杠 and 暗杠 (下雨) from each seat still playing."""
    table = table or scoring(RULESET)
    base, k = int(table["base"]), table["kong"]
    if kind == "exposed":
        return collect(seat, {_discarder(discarder): int(k["直杠"]) * base})
    each = int(k["面下杠" if kind == "added" else "暗杠"]) * base
    return collect(seat, {s: each for s in active if s != seat})


def _discarder(seat: str | None) -> str:
    if seat is None:
        raise ScoringError("bad_field", "an exposed kong names its discarder", "discarder")
    return seat


def settle_exhaustive(hands: Mapping[str, HandInput], table: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """荒牌 among the seats still playing: 查花猪 then 查大叫.

    A 花猪 (three suits) pays each other non-花猪 seat the capped amount; a seat not ready pays
    each ready seat the most its waits could score (as a discard win). `hands` are 13-tile hands.
    """
    table = table or scoring(RULESET)
    pigs = [s for s, h in hands.items() if len(suits_of(list(h.concealed) + [t for m in h.melds for t in m.tiles])) > 2]
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
    return {"flower_pigs": pigs, "ready": ready, "not_ready": not_ready, "payments": add(*tables)}

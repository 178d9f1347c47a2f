"""国标 MCR scoring: fans from the `pymahjonggb` library, flags from the table, 8-fan minimum, payments.

The fan calculator is the library's (MahjongGB, the reference most MCR tools agree with); this
module only translates the table's state into its arguments and applies the competition rules
around it: the minimum without flowers, who pays what, the false-win penalty.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from table_controller import tiles as T
from table_controller.scoring.config import scoring
from table_controller.scoring.hand import HandInput
from table_controller.scoring.result import Fan, ScoreResult, Share, Step, refuse, settlement

RULESET = "mcr"
FLOWER_FAN = "花牌"

_SUIT_TO_GB = {"m": "W", "s": "T", "p": "B"}
# Dragons: the library's J1 is 中, J2 发, J3 白 (checked with 绿一色 in tests).
_HONOUR_TO_GB = {1: "F1", 2: "F2", 3: "F3", 4: "F4", 5: "J3", 6: "J2", 7: "J1"}


#: The library prints the wait fans as 独听・单钓 etc.; the 1998 rules and referees say 单钓将 ...
_OFFICIAL_NAMES = {"独听・单钓": "单钓将", "独听・嵌张": "嵌张", "独听・边张": "边张"}


def to_gb(code: str) -> str:
    """Glossary code → the library's tile code (`1m` → `W1`, `5z` 白 → `J3`)."""
    s, r = T.suit(code), T.rank(code)
    if s in _SUIT_TO_GB:
        if r == 10:
            raise ValueError("国标 has no tens")
        return f"{_SUIT_TO_GB[s]}{r}"
    if s == T.HONOUR:
        return _HONOUR_TO_GB[r]
    return f"H{r}"


def _packs(hand: HandInput) -> tuple[tuple[str, str, int], ...]:
    packs = []
    for meld in hand.melds:
        if meld.type == "chi":
            ordered = T.sort_tiles(meld.tiles)
            offer = ordered.index(meld.claimed) + 1 if meld.claimed else 1
            packs.append(("CHI", to_gb(ordered[1]), offer))
        else:
            if meld.concealed or meld.source is None:
                offer = 0
            else:
                steps = (T.SEATS.index(meld.source) - T.SEATS.index(hand.winner)) % 4
                offer = 4 - steps  # 上家 1, 对家 2, 下家 3
            packs.append(("PENG" if meld.type == "pung" else "GANG", to_gb(meld.tiles[0]), offer))
    return tuple(packs)


def is_fourth_tile(hand: HandInput) -> bool:
    """和绝张: the three other copies of the winning tile are already visible on the table.

    Seen copies are those `visible` outside the hand plus those in the winner's exposed melds.
    """
    own = sum(m.tiles.count(hand.win_tile) for m in hand.melds if not m.concealed)
    return hand.visible.get(hand.win_tile, 0) + own >= 3


def library_fans(hand: HandInput) -> tuple[Fan, ...] | str:
    """The library's fans for the hand, or its error code (`ERROR_NOT_WIN`, ...)."""
    from MahjongGB import MahjongFanCalculator  # C extension: import where used

    try:
        raw = MahjongFanCalculator(
            _packs(hand), tuple(to_gb(t) for t in hand.concealed), to_gb(hand.win_tile),
            len(hand.flowers), hand.self_drawn, is_fourth_tile(hand),
            hand.win in ("rob_kong", "kong_replacement"), hand.last_tile,
            T.SEATS.index(hand.seat_wind), T.SEATS.index(hand.prevalent_wind), True)
    except TypeError as exc:
        return str(exc)
    return tuple(Fan(name=_OFFICIAL_NAMES.get(name, name), value=value, count=count, name_en=name_en)
                 for value, count, name, name_en in raw)


def payments(winner: str, total: int, payer: str | None, base: int) -> dict[str, int]:
    """自摸: each other seat pays base+F; 点和: the discarder pays base+F and the others base."""
    out = {seat: 0 for seat in T.SEATS}
    for seat in T.SEATS:
        if seat == winner:
            continue
        pay = base + total if payer is None or seat == payer else base
        out[seat] -= pay
        out[winner] += pay
    return out


def score(hand: HandInput, table: Mapping[str, Any] | None = None) -> ScoreResult:
    """Score an MCR hand: fans, the minimum without flowers, and the payments."""
    table = table or scoring(RULESET)
    ruleset = str(table.get("id", RULESET))  # a house ruleset's verdict names it, not MCR
    fans = library_fans(hand)
    if isinstance(fans, str):
        reason = "not_a_win" if fans == "ERROR_NOT_WIN" else fans.lower().removeprefix("error_")
        return refuse(ruleset, reason, "不是和牌" if reason == "not_a_win" else f"牌数不对 ({fans})")
    total = sum(f.points for f in fans)
    without_flowers = total - sum(f.points for f in fans if f.name == FLOWER_FAN)
    minimum = int(table["min_fan"])
    if without_flowers < minimum:
        return refuse(ruleset, "below_minimum", f"不够{minimum}番起和 (花牌不计): {without_flowers}番",
                      fans, total)
    base = int(table["base"])
    pay = payments(hand.winner, total, hand.payer, base)
    others = [Share(s, "底分", "base", "=", base) for s in T.SEATS
              if hand.payer is not None and s not in (hand.winner, hand.payer)]  # 点和: the two others pay 底分
    return ScoreResult(valid=True, ruleset=ruleset, fans=fans, total=total, points=total, payments=pay,
                       details={"fan_without_flowers": without_flowers,
                                **settlement([Step("底分", "base", "+", base)], others)})


def false_win(seat: str, table: Mapping[str, Any] | None = None) -> dict[str, int]:
    """错和: the seat pays the penalty to each of the three others; play goes on."""
    table = table or scoring(RULESET)
    each = int(table["false_win_each"])
    return {s: (-3 * each if s == seat else each) for s in T.SEATS}


def pay_false_win(seat: str, table: Mapping[str, Any], **_: Any) -> dict[str, int]:
    """The engine's 诈和 hook (`scoring.false_win`): 错和's fixed penalty, whatever else is given."""
    return false_win(seat, table)


def fan_rows(table: Mapping[str, Any]) -> list[dict[str, Any]]:
    """MCR's 81 fans live in the pymahjonggb library; its table lists the competition rules around them."""
    return [
        {"name": "起和", "value": int(table["min_fan"]),
         "rule": f"和牌须够{int(table['min_fan'])}番, 花牌不计 (fans: pymahjonggb)"},
        {"name": "底分", "value": int(table["base"]),
         "rule": "自摸: 三家各付 底分+番; 点和: 点炮者付 底分+番, 另两家各付底分"},
        {"name": "错和", "value": int(table["false_win_each"]), "rule": "错和者付其他三家各10分"},
    ]


def completes(hand: HandInput, table: Mapping[str, Any]) -> bool:
    """The waits' shape hook (`scoring.waits`): whatever the library reads as a win (全不靠, 七星不靠 ...)."""
    return not isinstance(library_fans(hand), str)

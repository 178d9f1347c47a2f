"""南宁麻将 (seed 004 南宁麻将): payments counted in 张, a pair of values per hand pattern.

The seed gives the same scheme twice, in 胡牌牌型 and 胡牌计算, and a third one in 番 (胡牌方式,
"不满5番…按照5番满计算") from a game app; this module reads the first two, where they agree:

- 推倒胡 (a plain hand): 自摸 3 from each, 放冲 2 from the discarder; 门清 adds 1 to each
  ("门清情况下，各加1 张"; "自摸 每家付3分", "门清自摸 每家付4分"; 有暗杠也算门清).
- Patterns replace the plain hand and add up ("可以累计": 清一色 + 对对胡 on a discard is 9 + 9):
  对对胡 and 清一色 6 / 9, 门清 8 / 12; 七小对 8 / 12; 七大对 16 / 24; 超豪华七对 32 / 48;
  超超豪华七对 64 / 96; 全求人 18 on a discard (胡牌计算: "自摸算对对胡,只有放炮才算全求人").
- Ways of winning replace the plain hand's value and add the patterns: 杠上炮, 抢杠, 海底炮 9 from
  the discarder (抢杠: the konger, "算放炮", the kong not paid); 海底 (自摸) 6 from each; 杠上开花
  after a 暗杠 9 from each ("算自摸"), after a 明杠 18 from the seat that fed the kong alone
  ("被杠者付一人付18分 … 算放炮").
- 天胡 / 地胡: 100 (自摸 from each / from the discarder), alone.
- Kongs pay on the spot (杠钱是及时给的): 明杠 1 from the discarder, 补杠 1 from the seat whose
  discard made the pung ("碰了之后再杠也算明杠"), 暗杠 1 from each.

- 封胡 (`options.sealed`: the seat that fed the winner three pungs, 南宁麻将封胡 and 特殊规则 4):
  that seat may not win this hand (the live record refuses its win), and pays for the winner
  ("A放玩家B碰三比"): B 自摸, A pays the three shares alone ("A，付三家张数"); A 放炮, two shares
  ("需要付二份费用"); C or D 放炮, they pay their share and A one more ("旅游").
  Kong money is paid on the spot all the same ("不管能不能胡,杠钱照样结算").

Not scored here: 钓鱼 (who pays whom for a fish caught or missed is contradictory in the seed)
and 买马 (named, never described); the referee's penalty catalogue covers disputes.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from table_controller import tiles as T
from table_controller.scoring import elements as E
from table_controller.scoring.common import best_reading
from table_controller.scoring.config import scoring
from table_controller.scoring.errors import ScoringError
from table_controller.scoring.hand import HandInput
from table_controller.scoring.points import collect
from table_controller.scoring.registry import Registry
from table_controller.scoring.result import Fan, ScoreResult, Share, Step, refuse, settlement

RULESET = "nanning"
REGISTRY = Registry(RULESET)
#: the name tables this scorer reads (`scoring.check_tables` refuses the others): values by pattern and by way
TABLES_READ = ("patterns", "ways", "excludes")
#: 可碰，可杠，可胡，不可吃: the scorer refuses a hand holding a chow, so `check_tables` keeps `[flow] no_chow` true
CHOWS = False
for _name, _check in (
    ("推倒胡", E.standard), ("对对胡", E.all_pungs), ("清一色", E.full_flush), ("七小对", E.seven_pairs),
    ("七大对", E.luxury_seven_pairs), ("超豪华七对", E.double_luxury_seven_pairs),
    ("超超豪华七对", E.triple_luxury_seven_pairs), ("全求人", E.melded_single_wait),
    ("门清", E.concealed_hand), ("杠上开花", E.kong_replacement_win), ("杠上炮", E.kong_discard_win),
    ("抢杠", E.rob_kong), ("海底", E.last_tile_draw), ("海底炮", E.last_tile_claim),
    ("天胡", E.heavenly), ("地胡", E.earthly),
):
    REGISTRY.add(_name, _check)


def score(hand: HandInput, table: Mapping[str, Any] | None = None) -> ScoreResult:
    """The hand's value in 张 and who pays it (module docstring)."""
    table = table or scoring(RULESET)
    ruleset = str(table.get("id", RULESET))  # a house ruleset's verdict names it
    if any(m.type == "chi" for m in hand.melds):  # CHOWS
        raise ScoringError("bad_meld", "南宁麻将不可吃 (no chows)", "melds")
    if hand.flowers:
        raise ScoringError("bad_tile", "南宁麻将 136 张，没有花牌", "flowers")
    pats: Mapping[str, Mapping[str, int]] = table["patterns"]
    ways: Mapping[str, Mapping[str, int]] = table["ways"]
    found = best_reading(hand, REGISTRY, {"fans": {n: max(v.values()) for n, v in {**pats, **ways}.items()}
                                          | {"推倒胡": 1, "门清": 1}, "excludes": table.get("excludes", {})})
    if found is None:
        return refuse(ruleset, "not_a_win", "不是和牌")
    named = {f.name for f in found[0]}
    col = "self_draw" if hand.self_drawn else "discard"
    concealed = "门清" in named
    feeder = _exposed_kong_feeder(hand) if hand.win == "kong_replacement" else None
    limit = [n for n in ("天胡", "地胡") if n in named and col in ways[n]]  # 地胡 is on a discard only
    if limit:
        fans = [Fan(limit[0], int(ways[limit[0]][col]))]
        return _result(hand, fans, table, feeder)
    fans = []
    for name in (n for n in pats if n in named):
        value = pats[name].get(f"concealed_{col}" if concealed else col, pats[name].get(col))
        if value:  # 全求人 has no self-drawn value: it is then 对对胡 (read above)
            fans.append(Fan(name, int(value)))
    way = next((n for n in ways if n in named and n not in ("天胡", "地胡") and ways[n].get(col)), None)
    if way == "杠上开花" and feeder:
        fans.append(Fan("杠上开花", int(ways[way]["exposed_kong"])))
    elif way is not None:
        fans = fans + [Fan(way, int(ways[way][col]))] + _way_concealed(ways[way], concealed, pattern_found=bool(fans))
    if not fans:  # the plain hand, 门清 adding one
        plain = table["plain"]
        fans = [Fan("推倒胡", int(plain[col]))] + ([Fan("门清", int(plain["concealed_bonus"]))] if concealed else [])
    return _result(hand, fans, table, feeder)


def _way_concealed(values: Mapping[str, int], concealed: bool, pattern_found: bool) -> list[Fan]:
    """门清 carried into a way of winning whose words add it: 杠上炮 and 抢杠 "累计门清，清一色,碰碰胡等牌型"
    (seed 004 胡牌计算 11, 12). A plain 门清 hand adds `concealed_bonus` ("门清情况下，各加1 张"); a pattern
    already carries 门清 in its own value (对对胡, 清一色 门清 8 / 12), so nothing more is added to it."""
    bonus = int(values.get("concealed_bonus", 0))
    return [Fan("门清", bonus)] if concealed and bonus and not pattern_found else []


def _result(hand: HandInput, fans: list[Fan], table: Mapping[str, Any], feeder: str | None) -> ScoreResult:
    total = sum(f.value * f.count for f in fans)
    pts = total * int(table["base"])
    if feeder:
        payers = {feeder: pts}  # 明杠杠开: 算放炮, the seat that fed the kong pays alone
    elif hand.self_drawn:
        payers = {s: pts for s in T.SEATS if s != hand.winner}
    else:
        payers = {hand.paying_seat(): pts}
    sealed = _sealed(hand)
    details: dict[str, Any] = {}
    shares: list[Share] = []
    if sealed:
        payers = seal_payers(sealed, feeder or (None if hand.self_drawn else hand.paying_seat()), pts, table["seal"])
        details["sealed"] = sealed
        # the shares `seal_payers` gave it (self_draw 3, own_discard 2, travel 1 more), pts never 0 on a win
        shares = [Share(sealed, "封胡", "sealed: pays for the winner", "×", payers[sealed] // pts)]
    details.update(settlement([Step("底分", "base", "×", int(table["base"]))], shares))
    ruleset = str(table.get("id", RULESET))  # a house ruleset's verdict names it
    return ScoreResult(True, ruleset, tuple(fans), total, pts, collect(hand.winner, payers), details=details)


def _sealed(hand: HandInput) -> str | None:
    sealed = hand.options.get("sealed")
    if sealed is None:
        return None
    if sealed not in T.SEATS or sealed == hand.winner:
        raise ScoringError("bad_field", f"封胡 names a seat other than the winner, not {sealed!r}", "options.sealed")
    return str(sealed)


def seal_payers(sealed: str, payer: str | None, pts: int, seal: Mapping[str, int]) -> dict[str, int]:
    """Who pays a win over the 封胡 seat `sealed`: the win self-drawn (`payer` None), it pays
    `self_draw` shares alone; on its own discard `own_discard` shares; on another's discard that
    seat pays its share and `sealed` `travel` more (旅游)."""
    if payer is None:
        return {sealed: pts * int(seal["self_draw"])}
    if payer == sealed:
        return {sealed: pts * int(seal["own_discard"])}
    return {payer: pts, sealed: pts * int(seal["travel"])}


def _exposed_kong_feeder(hand: HandInput) -> str | None:
    """The seat that fed the hand's last kong when it was a 明杠; None after a 暗杠 (or a kong the
    read does not show), whose 杠上开花 counts as self-drawn."""
    kongs = [m for m in hand.melds if m.type == "kong"]
    if not kongs or kongs[-1].concealed:
        return None
    return kongs[-1].source or None


def kong_payment(seat: str, kind: str, discarder: str | None = None,
                 table: Mapping[str, Any] | None = None) -> dict[str, int]:
    """杠钱 on the spot: 明杠 from the discarder, 补杠 from the seat that fed the pung (or each other
    seat when the record does not say), 暗杠 from each other seat; any other kind (花杠: 南宁 has no
    flowers) is refused, not paid as a 明杠."""
    table = table or scoring(RULESET)
    k, base = table["kong"], int(table["base"])
    if kind not in ("exposed", "added", "concealed"):
        # "南宁麻将…没有梅、兰、竹、菊、春、夏、秋、冬": no 花杠, nor any other kind, is paid as a 明杠
        raise ScoringError("bad_field", f"南宁麻将 的杠是明杠、补杠或暗杠 (exposed, added, concealed), not {kind!r}",
                           "kind")
    if kind in ("exposed", "added") and discarder is not None:
        return collect(seat, {discarder: int(k["明杠"]) * base})
    if kind == "exposed":
        raise ScoringError("bad_field", "an exposed kong names its discarder", "discarder")
    each = int(k["暗杠" if kind == "concealed" else "明杠"]) * base
    return collect(seat, {s: each for s in T.SEATS if s != seat})


def pay_kong(note: Mapping[str, Any], active: tuple[str, ...], table: Mapping[str, Any]) -> dict[str, int]:
    """The engine's kong hook (`scoring.kong_payment`): the hand ends at its first win, so every seat pays."""
    return kong_payment(note["seat"], note["kind"], note.get("discarder"), table)


#: What each value of a 南宁 pattern or way of winning is paid on (张).
NANNING_ON = {"self_draw": "自摸", "discard": "放冲", "concealed_self_draw": "门清自摸", "concealed_discard": "门清放冲",
              "exposed_kong": "明杠杠开 被杠者付", "concealed_bonus": "门清加"}


def fan_rows(table: Mapping[str, Any]) -> list[dict[str, Any]]:
    """南宁's table has no one value an element: each pattern and way of winning is paid by how the
    hand is won (`[scoring.plain]`, `.patterns`, `.ways`), so the rule lists them and `value` is the most
    (`table["fans"]`, which the other tables have, is not there: --fans raised KeyError)."""
    plain = table["plain"]
    out = [{"name": "推倒胡", "value": int(plain["self_draw"]),
            "rule": f"自摸 {plain['self_draw']}, 放冲 {plain['discard']}; 门清各加 {plain['concealed_bonus']} (张)"}]
    for section, how in (("patterns", "可以累计"), ("ways", "代替推倒胡, 加牌型")):
        for name, values in table[section].items():
            paid = ", ".join(f"{NANNING_ON.get(k, k)} {v}" for k, v in values.items() if v)
            element = REGISTRY.elements.get(name)
            rule = f"{paid} (张; {how})" + (f"; {element.rule}" if element and element.rule else "")
            out.append({"name": name, "value": int(max(values.values())), "rule": rule})
    return out

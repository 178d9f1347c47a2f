"""广东推倒胡 and 鸡平胡 (seed 001): fan tables, 鬼牌, 买马, 爆胡, kong payments.

推倒胡 adds its fans' multiples (鸡胡 2 ... 十三幺 88) and doubles for 自摸 and 硬胡; 鸡平胡 counts
番 that each double the base, capped at 爆胡 except the limit hands.
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
from table_controller.scoring.points import add, collect
from table_controller.scoring.registry import Registry
from table_controller.scoring.result import Fan, ScoreResult, Share, Step, apply_steps, refuse, settlement

REGISTRY = Registry("guangdong")
for _name, _check in (
    ("鸡胡", E.chicken), ("平胡", E.plain), ("碰碰胡", E.all_pungs), ("混一色", E.half_flush),
    ("抢杠胡", E.rob_kong), ("杠上开花", E.kong_replacement_win), ("杠上炮", E.kong_discard_win),
    ("海底捞月", E.last_tile_draw), ("清一色", E.full_flush), ("七对", E.seven_pairs),
    ("豪华七对", E.luxury_seven_pairs), ("混幺九", E.terminals_and_honours),
    ("小三元", E.small_three_dragons), ("小四喜", E.small_four_winds), ("字一色", E.all_honours),
    ("清幺九", E.all_terminals), ("天胡", E.heavenly), ("地胡", E.earthly_draw),
    ("十三幺", E.thirteen_orphans), ("大三元", E.big_three_dragons), ("大四喜", E.big_four_winds),
    ("九莲宝灯", E.nine_gates), ("自摸", E.self_drawn), ("箭刻", E.dragon_pungs),
    ("门风刻", E.seat_wind_pung), ("圈风刻", E.prevalent_wind_pung), ("门清", E.concealed_hand),
):
    REGISTRY.add(_name, _check)

def horse_seat(tile: str, origin: str, table: Mapping[str, Any] | None = None) -> str:
    """The seat a horse tile names, counted counter-clockwise from `origin` as 1: a suit by its rank, an honour by
    the ruleset file's `[hand_end] honour_values` (tuidaohu.toml, walls.md: 1,5,9,东,中 → origin; 2,6,南,发 → 下家;
    3,7,西,白 → 对家; 4,8,北 → 上家), so a club's other mapping is its file's, not this module's."""
    values = _horse_values(table or scoring("tuidaohu"))
    count = T.rank(tile) if T.is_suited(tile) else values[tile]
    return T.seat_after(origin, (int(count) - 1) % 4)


def _horse_values(table: Mapping[str, Any]) -> Mapping[str, int]:
    """The honours' counts of the table's 买马 (`hand_end`, which `scoring.config` adds from the file)."""
    end = table.get("hand_end")
    if not isinstance(end, Mapping) or end.get("kind") != "horses":
        raise ScoringError("bad_field", f"{table.get('id')} 不买马，没有马牌 / {table.get('id')} has no 买马 "
                           "([hand_end] kind = \"horses\")", "options.horses")
    values: Mapping[str, int] = end["honour_values"]
    return values


def _wildcard(hand: HandInput, table: Mapping[str, Any]) -> str | None:
    wild = hand.options.get("wildcard")
    if wild is None:
        return None
    if not table.get("wildcard", False):
        raise ScoringError("bad_field", f"{table['id']} plays without 鬼牌", "options.wildcard")
    if not T.is_tile(wild) or T.is_flower(wild):
        raise ScoringError("bad_tile", f"not a tile code: {wild!r}", "options.wildcard")
    return str(wild)


def score(hand: HandInput, table: Mapping[str, Any] | None = None) -> ScoreResult:
    """推倒胡: (Σ fans) × 自摸 × 硬胡 × base; 鸡平胡: base × 2^min(番, 爆胡) unless a limit hand."""
    table = table or scoring("tuidaohu")
    ruleset = str(table["id"])
    if any(m.type == "chi" for m in hand.melds) and table.get("no_chow"):
        raise ScoringError("bad_meld", f"{ruleset}: 不可以吃 (no chows)", "melds")
    if hand.flowers:
        raise ScoringError("bad_tile", f"{ruleset} plays 136 tiles, without flowers", "flowers")
    wildcard = _wildcard(hand, table)
    found = best_reading(hand, REGISTRY, table, wildcard=wildcard)
    if found is None:
        return refuse(ruleset, "not_a_win", "不是和牌")
    fans, view = found
    if table.get("style") == "multiply" and _chicken_on_discard(hand, fans):
        chicken = tuple(f for f in fans if f.name == "鸡胡")
        return refuse(ruleset, "chicken_on_discard", "鸡胡只能自摸或抢杠胡", chicken, sum(f.points for f in chicken))
    if table.get("style") == "multiply" and any(f.name != "鸡胡" for f in fans):
        fans = [f for f in fans if f.name != "鸡胡"]  # 鸡胡 is a hand with no other 番型
    limit = [f for f in fans if f.name in table.get("limit_hands", ())]
    if limit:  # 特殊牌型 stand alone, beyond the cap
        fans = limit
    if table.get("style") == "multiply":
        total, steps = _multiply(hand, fans, table, wildcard is not None and bool(E.no_wildcard(view)))
        capped = False
    else:
        total = sum(f.points for f in fans)
        if total < int(table.get("min_fan", 0)):
            return refuse(ruleset, "below_minimum", f"不够{table['min_fan']}番起胡", tuple(fans), total)
        cap = int(table["cap_fan"])
        capped = not limit and total > cap
        steps = _doubling(table, bool(limit), capped)
    pts = apply_steps(total, steps)
    payers, shares = _payers(hand, pts, table)
    pay = collect(hand.winner, payers)
    horses = hand.options.get("horses", [])
    if not isinstance(horses, list):
        raise ScoringError("bad_field", "options.horses: a list of tiles, e.g. [\"5m\", \"1z\"]", "options.horses")
    per_horse = pay if table.get("horse_pays", "win") == "win" else collect(
        hand.winner, _payers(hand, int(table["base"]), table)[0])  # 马跟底分: a horse is worth 底分, not the win
    horse_pay, horse_seats = horse_payments(hand, per_horse, horses, table)
    return ScoreResult(True, ruleset, tuple(fans), total, pts, add(pay, horse_pay),
                       details={"capped": capped, "horses": horse_seats, **settlement(steps, shares)})


#: What a 鸡胡 shape may hold and still be a 鸡胡 on a discard: 杠上炮 ("杠牌后，打出的牌造成其他玩家点炮胡牌") is a
#: 点炮, not among the wins that make 鸡胡 8倍 (杠上开花、抢杠胡、海底捞月).
_CHICKEN_DISCARD = frozenset({"鸡胡", "杠上炮"})


def _chicken_on_discard(hand: HandInput, fans: list[Fan]) -> bool:
    """推倒胡 (seed 001): "鸡胡只能自摸或者抢杠胡" and "鸡只能自摸、抢杠胡、不能点炮胡": a 鸡胡 shape on a discard,
    杠上炮 included, is no win (before, 杠上炮 replaced the 鸡胡 and the hand won 8倍 on the discard)."""
    return hand.win == "discard" and any(f.name == "鸡胡" for f in fans) and {f.name for f in fans} <= _CHICKEN_DISCARD


def _multiply(hand: HandInput, fans: list[Fan], table: Mapping[str, Any], hard: bool) -> tuple[int, list[Step]]:
    """推倒胡: (Σ 番型) × 自摸 2 × 硬胡 2 × 底分; 硬胡 only counts where a 鬼牌 is played. 自摸 and 硬胡 are factors,
    not 番型: they multiply the total and are not added into it (before, 硬胡 sat in the fan table as a 番型)."""
    as_drawn = hand.self_drawn or (hand.win == "rob_kong" and bool(table.get("rob_kong_as_self_draw")))
    steps: list[Step] = []
    if as_drawn:  # 抢杠胡 valued as a 自摸 where the table says so
        steps.append(Step("自摸", "self-draw", "×", int(table["self_draw_factor"])))
    if hard:
        steps.append(Step("硬胡", "no wildcard", "×", int(table["no_wildcard_factor"])))
    steps.append(Step("底分", "base", "×", int(table["base"])))
    return sum(f.points for f in fans), steps


def _doubling(table: Mapping[str, Any], limit: bool, capped: bool) -> list[Step]:
    """鸡平胡: base × 2^min(番, 爆胡); a limit hand (特殊牌型) counts `limit_fan` 番, beyond 爆胡."""
    first = ([Step("特殊牌型", "limit hand", "=", int(table["limit_fan"]))] if limit
             else [Step("爆胡", "cap", "封顶", int(table["cap_fan"]))] if capped else [])
    return [*first, Step("番", "fan", "2^"), Step("底分", "base", "×", int(table["base"]))]


def _payers(hand: HandInput, pts: int, table: Mapping[str, Any]) -> tuple[dict[str, int], list[Share]]:
    """Who pays `pts` (one share) and who pays otherwise: the 点杠's discarder three shares (杠爆全包), the robbed
    konger three (抢杠胡包三家)."""
    feeder = hand.options.get("kong_feeder")
    if feeder is not None and feeder == hand.winner:
        raise ScoringError("bad_field", "点杠者不能是和牌方 / the kong's feeder is not the winner", "options.kong_feeder")
    if hand.win == "kong_replacement" and feeder is not None and table.get("kong_bloom_pays_all"):
        # 杠爆全包: the seat whose discard made the 明杠 (or the 补杠's pung) pays three shares
        return {feeder: 3 * pts}, [Share(feeder, "杠爆全包", "kong bloom: the feeder pays all three", "×", 3)]
    if hand.self_drawn:
        return {s: pts for s in T.SEATS if s != hand.winner}, []
    if hand.win == "rob_kong" and table.get("rob_kong_pays_all"):
        konger = hand.paying_seat()  # 被抢杠者包三家
        return {konger: 3 * pts}, [Share(konger, "抢杠胡包三家", "robbed kong: the konger pays all three", "×", 3)]
    return {hand.paying_seat(): pts}, []


def horse_payments(hand: HandInput, pay: Mapping[str, int], horses: list[str],
                   table: Mapping[str, Any] | None = None) -> tuple[dict[str, int], list[str]]:
    """买马: a horse on the winner wins `pay` once more from every loser; on a loser, that loser pays its share once
    more (`pay`: the win's payments, 马跟胡; or 底分 from the same payers, 马跟底分); seats counted by `table`'s
    `[hand_end]`."""
    seats = []
    tables = []
    origin = str(hand.options.get("horse_origin", hand.winner))
    end = (table or scoring("tuidaohu")).get("hand_end")
    most = end.get("tiles") if isinstance(end, Mapping) else None
    if horses and isinstance(most, int) and len(horses) > most:  # fewer: the wall ran short of them
        raise ScoringError("bad_field", f"买马 {most} 张，不是 {len(horses)} 张 / this table turns up {most} horses, "
                           f"not {len(horses)}", "options.horses")
    for i, tile in enumerate(horses):
        if not T.is_tile(tile) or T.is_flower(tile):
            raise ScoringError("bad_tile", f"not a horse tile: {tile!r}", f"options.horses[{i}]")
        seat = horse_seat(tile, origin, table)
        seats.append(seat)
        if seat == hand.winner:
            tables.append(dict(pay))
        elif pay.get(seat, 0) < 0:
            tables.append(collect(hand.winner, {seat: -pay[seat]}))
    return add(*tables), seats


def kong_payment(seat: str, kind: str, discarder: str | None = None,
                 table: Mapping[str, Any] | None = None) -> dict[str, int]:
    """杠牌直接输赢: 点杠 3× base from the discarder; 补杠 1× and 暗杠 2× from each other seat."""
    table = table or scoring("tuidaohu")
    base, k = int(table["base"]), table["kong"]
    if kind == "exposed":
        if discarder is None:
            raise ScoringError("bad_field", "an exposed kong names its discarder", "discarder")
        return collect(seat, {discarder: int(k["点杠"]) * base})
    each = int(k["补杠" if kind == "added" else "暗杠"]) * base
    return collect(seat, {s: each for s in T.SEATS if s != seat})


def check_table(table: Mapping[str, Any]) -> None:
    """Refuse a 荒庄 kong rule other than "keep" or "return", a horse's worth other than "win" or "base", a 抢杠 or
    杠爆 switch that is not true or false (a house file's "yes" read as on), 抢杠胡算自摸 without 推倒胡's 自摸 factor,
    补杠's 杠爆全包 without the 点杠's,
    a `[hand_end]` other than 买马 counted from the winner, when a table's config is read (`scoring.check_tables`)."""
    rule = table.get("kongs_on_draw", "keep")
    if rule not in ("keep", "return"):
        raise ScoringError("bad_ruleset_table", f"荒庄杠分须为 keep（照付）或 return（荒庄荒杠），不是 {rule!r} / "
                           f"[scoring] kongs_on_draw of {table.get('id')} must be \"keep\" or \"return\"", "ruleset")
    horse = table.get("horse_pays", "win")
    if horse not in ("win", "base"):
        raise ScoringError("bad_ruleset_table", f"马的分须为 win（马跟胡）或 base（马跟底分），不是 {horse!r} / "
                           f"[scoring] horse_pays of {table.get('id')} must be \"win\" or \"base\"", "ruleset")
    for key in ("rob_kong_pays_all", "rob_kong_as_self_draw", "kong_bloom_pays_all", "added_kong_bloom_pays_all"):
        if not isinstance(table.get(key, False), bool):
            raise ScoringError("bad_ruleset_table", f"[scoring] {key} 须为 true 或 false，不是 {table[key]!r} / "
                               f"[scoring] {key} of {table.get('id')} must be true or false", "ruleset")
    if table.get("added_kong_bloom_pays_all") and not table.get("kong_bloom_pays_all"):
        raise ScoringError("bad_ruleset_table", "补杠杠爆由碰牌来源包（added_kong_bloom_pays_all）须同时点杠杠爆全包"
                           f"（kong_bloom_pays_all = true）/ [scoring] added_kong_bloom_pays_all of {table.get('id')} "
                           "needs kong_bloom_pays_all", "ruleset")
    if table.get("rob_kong_as_self_draw") and table.get("style") != "multiply":
        raise ScoringError("bad_ruleset_table", "抢杠胡算自摸（rob_kong_as_self_draw）只用于推倒胡的倍数计分"
                           f"（style = \"multiply\"）/ [scoring] rob_kong_as_self_draw of {table.get('id')}: "
                           "推倒胡's 自摸 factor only", "ruleset")
    end = table.get("hand_end")
    if isinstance(end, Mapping) and (end.get("kind"), end.get("counts_from")) != ("horses", "winner"):
        raise ScoringError("bad_ruleset_table", f"推倒胡的马从和牌方数起（kind = \"horses\", counts_from = \"winner\"），"
                           f"不是 {end.get('kind')!r}、{end.get('counts_from')!r} / [hand_end] of {table.get('id')}: "
                           "this engine reads 买马 counted from the winner", "ruleset")


def pay_follow(dealer: str, table: Mapping[str, Any]) -> dict[str, int]:
    """跟庄: the dealer pays each other seat `follow_dealer_each` × 底分 (1 where the table names none)."""
    each = int(table.get("follow_dealer_each", 1)) * int(table["base"])
    return {s: -3 * each if s == dealer else each for s in T.SEATS}


def pay_kong(note: Mapping[str, Any], active: tuple[str, ...], table: Mapping[str, Any]) -> dict[str, int]:
    """The engine's kong hook (`scoring.kong_payment`): the hand ends at its first win, so every seat pays."""
    return kong_payment(note["seat"], note["kind"], note.get("discarder"), table)

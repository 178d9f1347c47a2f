"""Conformance of the rules engine to ../shared/rules/walls.md, statement by statement.

Fills the gaps the other tests in this folder leave (see each docstring for the walls.md line it
checks). Every expected position and kind was counted by hand from walls.md's words; none comes
from calling the code under test. Ring reminder (walls.md "Geometry"): clockwise from above
E1..EL, N1..NL, W1..WL, S1..SL, E1.
"""

from __future__ import annotations

import random
from collections import Counter
from types import SimpleNamespace

import pytest

from table_controller.rules import (
    Ring,
    all_positions,
    deal_plan,
    load_ruleset,
    open_hands,
    parse_position,
    position_name,
    tile_set,
)


def _plan(rid: str, dice: tuple[int, ...], dice2: tuple[int, ...] | None = None, lengths=None):
    return deal_plan(load_ruleset(rid), dice, dice2, lengths)


def _tb(*stacks: str) -> list[str]:
    """`W07` → `W07t`, `W07b` for each stack, in order."""
    return [f"{s}{layer}" for s in stacks for layer in "tb"]


# --- Geometry --------------------------------------------------------------------------------


def test_position_notation() -> None:
    """walls.md l.19: "A tile position is written `<wall><stack:02d><t|b>`: `W07t` is the top tile of
    stack 7 of W's wall"."""
    assert position_name("W", 7, "t") == "W07t"
    assert position_name("E", 14, "b") == "E14b"
    assert parse_position("W07t") == ("W", 7, "t")
    assert parse_position("S13b") == ("S", 13, "b")


@pytest.mark.parametrize("lengths, at", [
    # 136 → 17 each: E01..E17 are 0..16, N01 17, W01 34, S01 51, S17 67
    ((17, 17, 17, 17), {0: "E01", 16: "E17", 17: "N01", 34: "W01", 51: "S01", 67: "S17", 68: "E01"}),
    # 108 → E 14, S 13, W 14, N 13 (seat order E,S,W,N): E01..E14 0..13, N01 14 (N has 13), W01 27, S01 41, S13 53
    ((14, 13, 14, 13), {13: "E14", 14: "N01", 26: "N13", 27: "W01", 40: "W14", 41: "S01", 53: "S13", 54: "E01"}),
])
def test_ring_runs_clockwise_e_n_w_s(lengths: tuple[int, int, int, int], at: dict[int, str]) -> None:
    """walls.md l.15-16: "E1..EL, N1..NL, W1..WL, S1..SL, E1... runs clockwise round the table: the
    stack after EL is N1 (the wall of E's 上家), after SL comes E1"; l.17 default lengths."""
    ring = Ring(lengths)
    for index, name in at.items():
        wall, number = ring.stack_at(index)
        assert f"{wall}{number:02d}" == name, index


def test_default_wall_lengths_by_tile_count() -> None:
    """walls.md l.17: "136 tiles → 17 stacks each; 144 → 18 each; 108 → E 14, S 13, W 14, N 13"."""
    for rid in ("mcr", "jingji", "nanjing", "guangdong", "hainan", "taiwan", "shanghai"):
        assert load_ruleset(rid).wall_lengths == (18, 18, 18, 18), rid
    for rid in ("shiwan", "tuidaohu", "riichi", "fujian", "wuhan", "nanning"):
        assert load_ruleset(rid).wall_lengths == (17, 17, 17, 17), rid
    for rid in ("hefei", "sichuan", "xueliu"):
        assert load_ruleset(rid).wall_lengths == (14, 13, 14, 13), rid


# --- Which wall, counting stacks --------------------------------------------------------------


def test_every_total_counts_seats_counter_clockwise_from_the_dealer() -> None:
    """walls.md l.23-25: "A total t counts seats counter-clockwise starting with the dealer as 1 ...
    1,5,9 → dealer; 2,6,10 → 下家; 3,7,11 → 对家; 4,8,12 → 上家"; l.32 leave n → first tile the top of
    stack n+1. tuidaohu (17-stack walls, leave the sum): a clockwise count would send 2 to N."""
    expect = {2: "S03t", 3: "W04t", 4: "N05t", 5: "E06t", 6: "S07t", 7: "W08t", 8: "N09t", 9: "E10t",
              10: "S11t", 11: "W12t", 12: "N13t"}
    for total, first in expect.items():
        dice = (1, total - 1) if total <= 7 else (6, total - 6)
        assert _plan("tuidaohu", dice).first_dealt == first, total


def test_mcr_breaks_the_second_throwers_wall_not_the_wall_s2_counts_to() -> None:
    """walls.md mcr row: "the seat s1 counts to throws again (s2) | the second thrower's | s1 + s2 |
    leave". s1 = 1+1 = 2 → 下家 S throws s2 = 1+2 = 3 (which would count to W); the sum 5 would count to
    E. S's wall, leave 5 → k = S06."""
    plan = _plan("mcr", (1, 1), (1, 2))
    assert plan.throwers == ("E", "S")
    assert (plan.brk.wall, plan.brk.count, plan.brk.mode) == ("S", 5, "leave")
    assert plan.first_dealt == "S06t"


def test_mcr_dealer_throws_again_when_s1_counts_to_the_dealer() -> None:
    """walls.md mcr row: "the seat s1 counts to throws again": s1 = 2+3 = 5 counts back to the dealer
    E, who throws s2 = 1+1 = 2; E's wall, leave 7 → k = E08."""
    plan = _plan("mcr", (2, 3), (1, 1))
    assert plan.throwers == ("E", "E")
    assert plan.first_dealt == "E08t"


def test_start_at_count_runs_on_into_the_next_wall() -> None:
    """walls.md l.30-31: "Past stack L the count runs on into the next wall clockwise (the chosen wall
    owner's 上家), from its stack 1"; l.34 start_at: "the first tile dealt is the top of stack n itself".
    jingji, a table reporting N = 10 stacks (W 26): t = 12 → 上家 N; N01..N10 are 1..10, W01 11, W02 12."""
    plan = _plan("jingji", (6, 6), None, {"E": 18, "S": 18, "W": 26, "N": 10})
    assert plan.brk.wall == "N" and plan.first_dealt == "W02t"
    assert plan.to_json()["break"]["stack"] == "W02"


def test_leave_count_runs_on_into_the_next_wall() -> None:
    """walls.md l.30-33: the count runs on into the next wall clockwise; leave: "the n counted stacks
    stay as the wall's tail; the first tile dealt is the top of stack n+1". tuidaohu, N = 10 stacks
    (W 24): 12 → N; N01..N10, W01, W02 counted → k = W03; the tail starts at W02, then W01, then N10."""
    plan = _plan("tuidaohu", (6, 6), None, {"E": 17, "S": 17, "W": 24, "N": 10})
    assert plan.first_dealt == "W03t"
    assert plan.tail[:6] == ("W02t", "W02b", "W01t", "W01b", "N10t", "N10b")


# --- Dealing from the break ------------------------------------------------------------------


def test_standard_deal_grab_by_grab() -> None:
    """walls.md l.38-43: "three rounds in play order E, S, W, N, each grab two stacks (4 tiles): E gets
    k, k+1; S k+2, k+3; ... Then 跳牌: E takes the tops of k+24 and k+26 (skipping one stack); S takes
    the bottom of k+24; W the top of k+25; N the bottom of k+25 ... The first live draw after the deal
    is the bottom of k+26, then k+27 top, k+27 bottom"; l.46-47 replacements "k-1 top, k-1 bottom,
    k-2 top, k-2 bottom". jingji t = 3+4 = 7 → W, start at W07: k..k+11 = W07..W18, k+12 = S01,
    k+24 = S13, k+25 = S14, k+26 = S15, k+27 = S16."""
    plan = _plan("jingji", (3, 4))
    order = [(g["seat"], g["positions"]) for g in plan.to_json()["deal_order"]]
    assert order == [
        ("E", _tb("W07", "W08")), ("S", _tb("W09", "W10")), ("W", _tb("W11", "W12")), ("N", _tb("W13", "W14")),
        ("E", _tb("W15", "W16")), ("S", _tb("W17", "W18")), ("W", _tb("S01", "S02")), ("N", _tb("S03", "S04")),
        ("E", _tb("S05", "S06")), ("S", _tb("S07", "S08")), ("W", _tb("S09", "S10")), ("N", _tb("S11", "S12")),
        ("E", ["S13t", "S15t"]), ("S", ["S13b"]), ("W", ["S14t"]), ("N", ["S14b"]),
    ]
    assert {s: len(h) for s, h in plan.hands.items()} == {"E": 14, "S": 13, "W": 13, "N": 13}
    assert plan.live[:5] == ("S15b", "S16t", "S16b", "S17t", "S17b")
    assert plan.tail[:4] == ("W06t", "W06b", "W05t", "W05b")


def test_sixteen_tile_deal_grab_by_grab() -> None:
    """walls.md l.44-45: "16-tile deal (台湾): four rounds of two stacks each (32 stacks), then E takes
    the top of k+32; the first live draw is the bottom of k+32". taiwan 6+6+6 = 18 → S, leave all 18
    → k = E01; k..k+17 = E01..E18, k+18 = N01, k+32 = N15."""
    plan = _plan("taiwan", (6, 6, 6))
    order = [(g["seat"], g["positions"]) for g in plan.to_json()["deal_order"]]
    stacks = [f"E{n:02d}" for n in range(1, 19)] + [f"N{n:02d}" for n in range(1, 15)]
    seats = "ESWN" * 4
    assert order == [(seats[i], _tb(stacks[2 * i], stacks[2 * i + 1])) for i in range(16)] + [("E", ["N15t"])]
    assert plan.live[:3] == ("N15b", "N16t", "N16b")
    assert plan.tail[:2] == ("S18t", "S18b")


def _full_wall(rid: str, placed: dict[str, str], fillers: dict[str, str]) -> dict[str, str]:
    """A complete wall: `placed` and `fillers` where given, the rest of the set (flowers all placed)
    in the remaining positions in sorted order."""
    rs = load_ruleset(rid)
    wall = {**placed, **fillers}
    pool = Counter(tile_set(rs))
    pool.subtract(Counter(wall.values()))
    rest = sorted(pool.elements())
    assert not any(k.endswith("f") for k in rest)
    free = [p for p in all_positions(rs.wall_lengths) if p not in wall]
    wall.update(zip(free, rest, strict=True))
    return wall


def test_opening_flowers_two_in_one_hand_and_a_flower_replacement_waits() -> None:
    """walls.md l.48-49: "Flowers in the opening hands are replaced dealer first, then S, W, N; a
    replacement that is again a flower waits until that round of replacements is over".
    mcr 3+4 / 2+5: k = W15 (E: W15, W16 ...; S: W17 ...), tail W14t, W14b, W13t, W13b. E holds 1f, 2f;
    S holds 3f; E's first replacement W14t is 4f: E takes W14b for its 2f, S takes W13t, and only then
    E replaces 4f with W13b. (Replacing at once would give E W14b for 4f and W13t for 2f.)"""
    placed = {"W15t": "1f", "W15b": "2f", "W17t": "3f", "W14t": "4f", "W14b": "1m", "W13t": "2m", "W13b": "3m"}
    # the other four flowers far in the live wall (the deal ends at k+26 = E05; E10, E11 are live)
    fillers = {"E10t": "5f", "E10b": "6f", "E11t": "7f", "E11b": "8f"}
    wall = _full_wall("mcr", placed, fillers)
    opening = open_hands(_plan("mcr", (3, 4), (2, 5)), wall)
    assert opening.replacements == (("E", "W14t", "4f"), ("E", "W14b", "1m"), ("S", "W13t", "2m"),
                                     ("E", "W13b", "3m"))
    assert opening.laid == (("E", "1f"), ("E", "2f"), ("S", "3f"), ("E", "4f"))
    assert opening.flowers == {"E": ("1f", "2f", "4f"), "S": ("3f",), "W": (), "N": ()}
    assert opening.state.next_replacement == "W12t"


# --- The procedures table --------------------------------------------------------------------


@pytest.mark.parametrize("rid, tiles, dice, throws, wall, count, mode", [
    ("mcr", 144, 2, 2, "second_thrower", "both_totals", "leave"),
    ("jingji", 144, 2, 1, "total", "total", "start_at"),
    ("shiwan", 136, 2, 1, "larger_die", "total", "leave"),
    ("nanjing", 144, 2, 2, "second_thrower", "second_total", "leave"),
    ("hefei", 108, 2, 1, "total", "smaller_die", "start_at"),
    ("guangdong", 144, 3, 1, "total", "total", "leave"),
    ("tuidaohu", 136, 2, 1, "total", "total", "leave"),
    ("hainan", 144, 2, 1, "total", "total", "leave"),
    ("sichuan", 108, 2, 1, "total", "total", "leave"),
    ("riichi", 136, 2, 1, "total", "total", "leave"),
    ("taiwan", 144, 3, 1, "total", "total", "leave"),
    ("fujian", None, 2, 1, "total", "total", "leave"),
    ("wuhan", None, 2, 1, "total", "total", "leave"),
    ("shanghai", None, 2, 1, "total", "total", "leave"),
    ("nanning", None, 2, 1, "total", "total", "leave"),
])
def test_procedures_table_row(rid: str, tiles: int | None, dice: int, throws: int, wall: str, count: str,
                              mode: str) -> None:
    """walls.md "The procedures": each row's tiles, dice, which wall, count n and mode (fujian, wuhan,
    shanghai, nanning: "2 dice, one throw | counted by the sum | sum | leave"; their tiles "see below")."""
    rs = load_ruleset(rid)
    if tiles is not None:
        assert rs.tiles == tiles
    assert (rs.dice_count, rs.throws) == (dice, throws)
    assert (rs.break_wall, rs.break_count, rs.break_mode) == (wall, count, mode)


@pytest.mark.parametrize("rid, reserve, last_zone, max_replacements, sizes", [
    ("hainan", 15, 0, None, (14, 13)),   # 荒牌 when 15 tiles (七墩半) remain
    ("sichuan", 0, 4, None, (14, 13)),   # 后4张必胡 on the last 4 live tiles
    ("riichi", 14, 0, 4, (14, 13)),      # dead wall = the 7 tail stacks (14 tiles; 4 岭上 tiles, stacks 1-2)
    ("taiwan", 0, 0, None, (17, 16)),    # 16-tile deal
    ("mcr", 0, 0, None, (14, 13)),       # no extras: exhausted when no tile is left to draw
])
def test_procedures_table_extras(rid: str, reserve: int, last_zone: int, max_replacements: int | None,
                                 sizes: tuple[int, int]) -> None:
    """walls.md "The procedures", last column's extras: hainan "荒牌 when 15 tiles (七墩半) remain";
    sichuan "后4张必胡 on the last 4 live tiles"; riichi "dead wall = the 7 tail stacks"; taiwan
    "16-tile deal"."""
    rs = load_ruleset(rid)
    assert (rs.reserve, rs.last_zone, rs.max_replacements) == (reserve, last_zone, max_replacements)
    assert rs.hand_sizes == {"E": sizes[0], "S": sizes[1], "W": sizes[1], "N": sizes[1]}


def test_guangdong_three_dice_sum_counts_past_twelve() -> None:
    """walls.md guangdong row: "dealer throws 3 dice | counted by the sum | sum | leave". 5+6+6 = 17
    → dealer E (1,5,9,13,17); leave 17 of E's 18 stacks → k = E18."""
    plan = _plan("guangdong", (5, 6, 6))
    assert (plan.brk.wall, plan.brk.count) == ("E", 17)
    assert plan.first_dealt == "E18t"


# --- Indicators ------------------------------------------------------------------------------


SUIT_NEXT = {"1m": "2m", "8m": "9m", "9m": "1m", "1p": "2p", "9p": "1p", "5s": "6s", "9s": "1s"}


def test_riichi_dora_every_honour() -> None:
    """walls.md l.79-80: "Dora = the next kind: 1–9 wrap, winds E→S→W→N→E, dragons 白→发→中→白"."""
    rs = load_ruleset("riichi")
    honours = {"1z": "2z", "2z": "3z", "3z": "4z", "4z": "1z", "5z": "6z", "6z": "7z", "7z": "5z"}
    for shown, dora in {**SUIT_NEXT, **honours}.items():
        assert rs.indicator_kinds("dora", shown) == {"next": dora}, shown


def test_fujian_baida_every_honour() -> None:
    """walls.md l.81-82: "活动百搭 = that kind, 带弟百搭 = the next kind, suits 9→1, honours
    E→S→W→N→中→发→白→E"."""
    rs = load_ruleset("fujian")
    honours = {"1z": "2z", "2z": "3z", "3z": "4z", "4z": "7z", "7z": "6z", "6z": "5z", "5z": "1z"}
    for shown, nxt in {**SUIT_NEXT, **honours}.items():
        assert rs.indicator_kinds("baida", shown) == {"same": shown, "next": nxt}, shown


def test_wuhan_laizi_every_honour_and_never_red() -> None:
    """walls.md l.83-84: "癞子 = the next kind, suits 9→1, honours E→S→W→N→发 (skipping 中), 中→发,
    发→白, 白→E. 红中 is never 癞子"."""
    rs = load_ruleset("wuhan")
    honours = {"1z": "2z", "2z": "3z", "3z": "4z", "4z": "6z", "7z": "6z", "6z": "5z", "5z": "1z"}
    for shown, laizi in {**SUIT_NEXT, **honours}.items():
        assert rs.indicator_kinds("laizi", shown) == {"next": laizi}, shown
    assert all(rs.indicator_kinds("laizi", k)["next"] != "7z" for k in rs.tile_spec.kinds())


def test_wuhan_laizi_indicator_leaves_the_live_order() -> None:
    """walls.md l.83: "the first live tile after the deal is turned up": jingji-like count, wuhan
    5+6 = 11 → 对家 W, leave 11 → k = W12; W12..W17 (6) + S01..S17 (17) + E01 → k+24 = E02,
    k+26 = E04: the indicator is E04b and the first draw E05t."""
    plan = _plan("wuhan", (5, 6))
    assert plan.indicators == {"laizi": "E04b"}
    assert plan.live[:3] == ("E05t", "E05b", "E06t")
    assert plan.tail[0] == "W11t"


def test_nanning_fishing_every_honour() -> None:
    """walls.md l.88-90: 钓鱼 tiles "each count seats counter-clockwise from the previous winner: suits
    by rank, honours in the order 东南西北中发白 (1..7)". From W: 1 W, 2 N, 3 E, 4 S, 5 W, 6 N, 7 E."""
    rule = load_ruleset("nanning").hand_end
    assert rule is not None and rule.kind == "fishing" and rule.counts_from == "previous_winner"
    values = {"1z": 1, "2z": 2, "3z": 3, "4z": 4, "7z": 5, "6z": 6, "5z": 7, "9m": 9, "1p": 1}
    seats = {"1z": "W", "2z": "N", "3z": "E", "4z": "S", "7z": "W", "6z": "N", "5z": "E", "9m": "W", "1p": "W"}
    for kind in values:
        assert rule.value(kind) == values[kind], kind
        assert rule.seat_for(kind, "W") == seats[kind], kind


def test_tuidaohu_horses_count_from_the_winner() -> None:
    """walls.md l.85-87: 买马 "a horse's value counts seats from the winner counter-clockwise"
    (the winner here N: 下家 E, 对家 S, 上家 W)."""
    rule = load_ruleset("tuidaohu").hand_end
    assert rule is not None and rule.kind == "horses" and rule.counts_from == "winner"
    expect = {"1m": "N", "5z": "S", "7z": "N", "6z": "E", "2z": "E", "4z": "W", "8p": "W", "3s": "S"}
    for kind, seat in expect.items():
        assert rule.seat_for(kind, "N") == seat, kind


# --- Controller and simulator agree on which physical tile is where ---------------------------


def test_simulator_wall_dealt_by_the_controllers_reading_with_the_dealer_moved() -> None:
    """walls.md l.1-6 (the controller, the simulator and the tests agree) and l.17-18 ("the engine
    takes [lengths] from the table"). The simulator builds 108 tiles by physical side E 14, S 13,
    W 14, N 13 (chairs 1..4 counter-clockwise); with chair 2 (side S) dealing, wind E sits at side S,
    S at side W, W at side N, N at side E, so the wind walls are E 13, S 14, W 13, N 14. sichuan 3+3 =
    6 → wind S (side W), leave 6 → k = S07 (side W07); S07..S14 (8) + E01..E13 (13) + N01..N03 →
    k+24 = N04 (side E04), k+26 = N06 (side E06)."""
    from table_controller.controller import _wall_lengths
    from table_controller.demo import wall_by_wind
    from tablesim.physics import arrange

    rs = load_ruleset("sichuan")
    physical = arrange(108, random.Random(11), rs)
    table = SimpleNamespace(info=SimpleNamespace(capabilities=SimpleNamespace(wall_lengths={108: (14, 13, 14, 13)})))
    lengths = _wall_lengths(table, 108, 2)
    assert lengths == {"E": 13, "S": 14, "W": 13, "N": 14}
    wall = wall_by_wind(physical, 2)
    assert wall["E01t"] == physical["S01t"] and wall["N14b"] == physical["E14b"]
    opening = open_hands(deal_plan(rs, (3, 3), None, lengths), wall)
    assert opening.dealt["E"][:2] == (physical["W07t"], physical["W07b"])
    assert opening.dealt["E"][-2:] == (physical["E04t"], physical["E06t"])
    assert opening.dealt["S"][-1] == physical["E04b"]
    assert opening.dealt["N"][-1] == physical["E05b"]

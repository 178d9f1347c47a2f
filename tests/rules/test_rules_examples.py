"""Worked examples: the seeds' own three (walls.md "Checks") and one or more per ruleset, by hand.

Every expected position below was counted by hand from walls.md, not produced by the engine.
Ring reminder (walls.md "Geometry"): clockwise from above E1..EL, N1..NL, W1..WL, S1..SL, E1.
"""

from __future__ import annotations

import pytest

from table_controller.rules import deal_plan, load_ruleset


def _plan(rid: str, dice: tuple[int, ...], dice2: tuple[int, ...] | None = None):
    return deal_plan(load_ruleset(rid), dice, dice2)


# --- the seeds' three examples (walls.md "Checks against the seeds' own examples") ----------


def test_nanjing_seed_example_second_thrower_counts_s2_only() -> None:
    # walls.md: "dealer throws 6 → 下家 (S) throws 11 → 从下家第12墩开始抓牌: first dealt S12t" (seed 003 掷骰)
    plan = _plan("nanjing", (1, 5), (5, 6))
    assert plan.throwers == ("E", "S")
    assert plan.brk.wall == "S" and plan.brk.count == 11 and plan.brk.mode == "leave"
    assert plan.first_dealt == "S12t"
    assert plan.to_json()["break"]["stack"] == "S11"


def test_jingji_seed_example_start_at_stack_t() -> None:
    # walls.md: "jingji: t = 7 → 从对家的第七墩抓牌: first dealt tile W07t" (seed 004)
    plan = _plan("jingji", (3, 4))
    assert plan.first_dealt == "W07t"
    assert plan.brk.mode == "start_at"


def test_hefei_seed_example_smaller_die_counts() -> None:
    # walls.md: "hefei: dice 4 and 5 → 9 = 自手 (E's own wall), 从第4墩开始: first dealt tile E04t" (seed 003)
    plan = _plan("hefei", (4, 5))
    assert plan.brk.wall == "E" and plan.brk.count == 4
    assert plan.first_dealt == "E04t"


# --- one full worked example: mcr -----------------------------------------------------------


def test_mcr_full_deal_by_hand() -> None:
    # walls.md mcr row: dealer s1 = 3+4 = 7 counts to 对家 W, who throws s2 = 2+5 = 7; W's wall,
    # leave s1+s2 = 14 stacks → k = W15. Standard deal: E W15 W16, S W17 W18, W S01 S02, N S03 S04,
    # ... round 3 N E01 E02; 跳牌 on k+24 = E03, k+25 = E04, k+26 = E05.
    plan = _plan("mcr", (3, 4), (2, 5))
    assert plan.throwers == ("E", "W")
    assert plan.first_dealt == "W15t"

    def stacks(*names: str) -> list[str]:
        return [f"{n}{layer}" for n in names for layer in "tb"]

    assert list(plan.hands["E"]) == stacks("W15", "W16", "S05", "S06", "S13", "S14") + ["E03t", "E05t"]
    assert list(plan.hands["S"]) == stacks("W17", "W18", "S07", "S08", "S15", "S16") + ["E03b"]
    assert list(plan.hands["W"]) == stacks("S01", "S02", "S09", "S10", "S17", "S18") + ["E04t"]
    assert list(plan.hands["N"]) == stacks("S03", "S04", "S11", "S12", "E01", "E02") + ["E04b"]
    # The first live draw is the bottom of k+26; the tail starts just counter-clockwise of k.
    assert plan.live[0] == "E05b" and plan.live[1] == "E06t"
    assert plan.tail[:4] == ("W14t", "W14b", "W13t", "W13b")
    # No reserve: the 海底 is the last tile of the front order, the bottom of k-1.
    assert plan.last_live == "W14b"
    assert len(plan.live) == 144 - 53


# --- one example per remaining ruleset -------------------------------------------------------


@pytest.mark.parametrize(
    "rid, dice, wall, count, first, first_live, tail0",
    [
        # jingji (seed 004): 6+6 = 12 → 上家 N, start at stack 12; k+24 = N12..N18 (7) + W01..W17 → W18.
        ("jingji", (6, 6), "N", 12, "N12t", "S02b", "N11t"),
        # shiwan (seed 000 范文四 三.3(2)): larger die 5 → E; sum 7 → leave 7, k = E08 (17-stack
        # walls); k+24 = N15, first live N17b.
        ("shiwan", (2, 5), "E", 7, "E08t", "N17b", "E07t"),
        # hefei: 2+6 = 8 → 上家 N; smaller die 2 → start at N02; 108 walls E14 N13 W14 S13:
        # k+24 = N02..N13 (12) + W01..W12 → W13; k+26 = S01.
        ("hefei", (2, 6), "N", 2, "N02t", "S01b", "N01t"),
        # guangdong (seed 003 三颗骰): 1+2+3 = 6 → 下家 S, leave 6 → S07; k+26 = E15.
        ("guangdong", (1, 2, 3), "S", 6, "S07t", "E15b", "S06t"),
        # tuidaohu (seed 001): 6+6 = 12 → N, leave 12 → N13; N13..N17 (5) + W01..W17 (17) + S01,
        # S02 → k+24 = S03, k+26 = S05.
        ("tuidaohu", (6, 6), "N", 12, "N13t", "S05b", "N12t"),
        # jipinghu (walls like tuidaohu): 1+1 = 2 → S, leave 2 → S03; k+24 = S03..S17 (15) + E01..E09 → E10.
        ("jipinghu", (1, 1), "S", 2, "S03t", "E12b", "S02t"),
        # hainan (seed 004 (3)): 1+1 = 2 → S, leave 2 → S03 (18-stack walls); k+26 = E11.
        ("hainan", (1, 1), "S", 2, "S03t", "E11b", "S02t"),
        # sichuan (seed 000 范文三): 3+3 = 6 → S, leave 6 → S07; 108 walls: S07..S13 (7) +
        # E01..E14 (14) + N01..N03 → k+24 = N04, k+26 = N06.
        ("sichuan", (3, 3), "S", 6, "S07t", "N06b", "S06t"),
        # xueliu: 6+5 = 11 → 对家 W, leave 11 → W12; W12..W14 (3) + S01..S13 (13) + E01..E08 → k+24 = E09.
        ("xueliu", (6, 5), "W", 11, "W12t", "E11b", "W11t"),
        # riichi (seed 003): 3+4 = 7 → W, leave 7 → W08; W08..W17 (10) + S01..S14 → k+24 = S15.
        ("riichi", (3, 4), "W", 7, "W08t", "S17b", "W07t"),
        # taiwan (seed 003 十六张): 6+6+6 = 18 → 下家 S, leave all 18 stacks of S → k = E01 (the
        # count runs on into the next wall clockwise); 32 stacks E01..E18 + N01..N14 → k+32 = N15.
        ("taiwan", (6, 6, 6), "S", 18, "E01t", "N15b", "S18t"),
        # shanghai (seed 000 范文七): 1+4 = 5 → dealer E, leave 5 → E06; E06..E18 (13) + N01..N11 → k+24 = N12.
        ("shanghai", (1, 4), "E", 5, "E06t", "N14b", "E05t"),
        # nanning (seed 004): 5+6 = 11 → W, leave 11 → W12; W12..W17 (6) + S01..S17 (17) + E01 → k+24 = E02.
        ("nanning", (5, 6), "W", 11, "W12t", "E04b", "W11t"),
    ],
)
def test_worked_example(rid: str, dice: tuple[int, ...], wall: str, count: int, first: str,
                        first_live: str, tail0: str) -> None:
    plan = _plan(rid, dice)
    assert (plan.brk.wall, plan.brk.count) == (wall, count)
    assert plan.first_dealt == first
    assert plan.live[0] == first_live
    assert plan.tail[0] == tail0


def test_taiwan_sixteen_tile_deal() -> None:
    # walls.md "16-tile deal": four rounds of two stacks, then E takes the top of k+32; the first
    # live draw is the bottom of k+32. k = E01 (example above), so k+32 = N15.
    plan = _plan("taiwan", (6, 6, 6))
    assert {s: len(h) for s, h in plan.hands.items()} == {"E": 17, "S": 16, "W": 16, "N": 16}
    assert plan.hands["E"][-1] == "N15t"
    assert plan.hands["N"][-2:] == ("N14t", "N14b")


def test_fujian_baida_is_first_tail_tile_set_aside() -> None:
    # walls.md fujian: "the first tail tile (k-1 top) is turned face up". 2+3 = 5 → E, leave 5 →
    # k = E06, so the indicator is E05t; the next replacement is then E05b.
    plan = _plan("fujian", (2, 3))
    assert plan.first_dealt == "E06t"
    assert plan.indicators == {"baida": "E05t"}
    assert plan.set_aside == ("E05t",)
    assert plan.tail[0] == "E05b"
    assert "E05t" not in plan.live


def test_wuhan_laizi_is_first_live_tile_after_deal() -> None:
    # walls.md wuhan: "the first live tile after the deal is turned up". 4+4 = 8 → 上家 N, leave 8
    # → k = N09; N09..N17 (9) + W01..W15 (15) → k+24 = W16, k+26 = S01: the indicator is S01b and
    # the first live draw S02t (seed 004: 庄家抓完第14张牌后翻取的第一张牌).
    plan = _plan("wuhan", (4, 4))
    assert plan.first_dealt == "N09t"
    assert plan.indicators == {"laizi": "S01b"}
    assert plan.live[0] == "S02t"


def test_riichi_dead_wall_and_dora_indicator() -> None:
    # walls.md riichi: dead wall = the 7 tail stacks; stacks 1–2 from the break are replacement
    # tiles, the indicator is the top of the 3rd ("杠尾倒数第三墩上层", seed 003). k = W08 (3+4).
    plan = _plan("riichi", (3, 4))
    assert plan.indicators == {"dora": "W05t"}
    assert set(plan.dead) == {f"W0{n}{layer}" for n in range(1, 8) for layer in "tb"}
    assert plan.tail == ("W07t", "W07b", "W06t", "W06b")  # 4 岭上牌
    assert plan.last_live == "N17b"  # the stack clockwise-before W01
    assert len(plan.live) == 136 - 53 - 14


def test_hainan_reserve_fifteen_tiles() -> None:
    # walls.md hainan: "荒牌 when 15 tiles (七墩半) remain". k = S03 (1+1): the front order ends
    # ... W13t W13b ... W18b S01t S01b S02t S02b; the last 15 are W13b..S02b, so 海底 = W13t.
    plan = _plan("hainan", (1, 1))
    assert len(plan.dead) == 15
    assert plan.dead[0] == "W13b" and plan.dead[-1] == "S02b"
    assert plan.last_live == "W13t"
    assert len(plan.live) == 144 - 53 - 15


def test_sichuan_last_four_zone() -> None:
    # walls.md sichuan: "后4张必胡 on the last 4 live tiles". k = S07 (3+3): the front order ends at
    # k-1 = S06, so the zone is S05t S05b S06t S06b.
    assert _plan("sichuan", (3, 3)).to_json()["last_zone"] == ["S05t", "S05b", "S06t", "S06b"]


def test_tuidaohu_horses_and_nanning_fishing_positions() -> None:
    # walls.md: 买马 = "the next N tiles of the tail"; 钓鱼 = "the last three tiles of the remaining
    # wall, taken from the tail".
    assert _plan("tuidaohu", (6, 6)).to_json()["hand_end"]["positions"] == ["N12t", "N12b", "N11t", "N11b"]
    assert _plan("nanning", (5, 6)).to_json()["hand_end"]["positions"] == ["W11t", "W11b", "W10t"]


def test_mcr_count_runs_on_into_next_wall() -> None:
    # walls.md "Past stack L the count runs on into the next wall clockwise (the chosen wall owner's
    # 上家), from its stack 1": s1 = 6+6 = 12 → 上家 N throws 6+6 = 12; count 24 in N's 18-stack
    # wall leaves N01..N18 and W01..W06, so k = W07.
    plan = _plan("mcr", (6, 6), (6, 6))
    assert plan.throwers == ("E", "N")
    assert plan.first_dealt == "W07t"
    assert plan.to_json()["break"]["stack"] == "W06"

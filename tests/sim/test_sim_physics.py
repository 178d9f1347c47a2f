"""The simulator's physical model: tile sets, wall positions, seeded arrangements, fault plans, scenarios."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from tablesim import FaultPlan, SimError, SimTable, arrange, tile_set
from tablesim.faults import LinkDamage
from table_controller.rules import all_positions
from tablesim.physics import WALL_LENGTHS
from tablesim.sim import parse_scenario


@pytest.mark.parametrize("count", [144, 136, 108])
def test_each_setting_fills_its_walls_with_four_of_each_kind(count: int) -> None:
    wall = arrange(count, random.Random(1))
    assert len(wall) == count and set(wall) == set(all_positions(WALL_LENGTHS[count]))
    kinds = Counter(wall.values())
    assert all(n == 4 for k, n in kinds.items() if not k.endswith("f"))
    assert sum(1 for k in kinds if k.endswith("f")) == (8 if count == 144 else 0)
    assert Counter(tile_set(count)) == kinds


def test_positions_run_clockwise_from_e01_top() -> None:
    pos = all_positions((14, 13, 14, 13))
    assert pos[:3] == ["E01t", "E01b", "E02t"]
    assert pos[28] == "N01t" and pos[28 + 26] == "W01t" and pos[-1] == "S13b"


def test_the_seed_decides_the_wall() -> None:
    assert arrange(144, random.Random(5)) == arrange(144, random.Random(5))
    assert arrange(144, random.Random(5)) != arrange(144, random.Random(6))


def test_a_ruleset_tile_set_comes_from_the_rules_engine() -> None:
    from table_controller.rules import load_ruleset

    rs = load_ruleset("shiwan")
    wall = arrange(rs.tiles, random.Random(1), rs)
    assert len(wall) == 136 and "10m" in wall.values()


def test_fault_plan_parses_and_names_bad_parts() -> None:
    plan = FaultPlan.parse("ber=1e-4,drop=0.01,delay=0.02:0.3,unplug_every=10:0.5,brownout_on=raise_walls")
    assert (plan.ber, plan.drop, plan.delay, plan.delay_s) == (1e-4, 0.01, 0.02, 0.3)
    assert (plan.unplug_every, plan.unplug_for, plan.brownout_on) == (10.0, 0.5, "raise_walls")
    with pytest.raises(ValueError, match="'bogus=1'"):
        FaultPlan.parse("bogus=1")
    with pytest.raises(ValueError, match="not a number"):
        FaultPlan.parse("ber=lots")
    with pytest.raises(ValueError, match="negative"):
        FaultPlan.parse("drop=-1")


def test_bit_errors_come_at_the_requested_rate() -> None:
    dmg = LinkDamage(FaultPlan(ber=1e-3), random.Random(3))
    data = bytes(100_000)
    flipped = dmg.corrupt(data)
    bits = sum(bin(b).count("1") for b in flipped)
    assert bits == dmg.counts["bits_flipped"]
    assert 600 < bits < 1000  # 800 expected


def test_scenarios_are_checked_before_they_run() -> None:
    steps = parse_scenario("# comment\n30 fault jam chain\n10 press E dice\n50 clear jam\n")
    assert steps == [(10.0, "press E dice"), (30.0, "fault jam chain"), (50.0, "clear jam")]
    with pytest.raises(SimError, match="line 1"):
        parse_scenario("soon fault jam")
    with pytest.raises(SimError, match="unknown fault"):
        parse_scenario("5 fault gremlins")
    with pytest.raises(SimError, match="seat 'X'"):
        parse_scenario("5 press X")


def test_bad_simulator_settings_are_refused() -> None:
    with pytest.raises(SimError, match="dialect"):
        SimTable(dialect="morse")
    with pytest.raises(SimError, match="tile count 100"):
        SimTable(tile_count=100)

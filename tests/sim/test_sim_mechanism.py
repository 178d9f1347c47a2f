"""The table's mechanism on the virtual clock, driven directly (no link): phases, timings, faults, scenarios."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from drivers.clock import VirtualClock
from tablesim import SimError, SimTable


@pytest.fixture
async def clock() -> AsyncIterator[VirtualClock]:
    c = VirtualClock()
    yield c
    await c.close()


@pytest.fixture
async def sim(clock: VirtualClock) -> AsyncIterator[SimTable]:
    s = SimTable(seed=4, clock=clock)
    yield s
    await s.close()


def events(sim: SimTable) -> list[tuple[str, dict]]:  # type: ignore[type-arg]
    from drivers import messages as m

    out = []
    for _, type_, payload in sim._ring:
        msg, values = m.decode(type_, payload)
        values.pop("ev")
        out.append((msg.name, values))
    return out


async def test_build_takes_its_time_and_the_setting_applies_to_the_next_build(sim: SimTable, clock: VirtualClock) -> None:
    sim.mech.start_shuffle()
    await clock.advance(59.0)
    assert sim.phase == "building" and sim.wall is None
    await clock.advance(1.5)
    assert sim.phase == "ready" and len(sim.wall or {}) == 144
    sim.mech.set_tile_count(108)
    assert sim.tile_count == 144 and sim.next_tile_count == 108
    sim.mech.raise_walls()
    await clock.advance(6.5)
    assert sim.phase == "walls_raised" and len(sim.wall or {}) == 144
    assert sim.next_wall is None
    await clock.advance(46)  # the next set (108, the new setting) is built during play
    assert sim.next_wall is not None and len(sim.next_wall) == 108
    sim.mech.lower_walls()
    await clock.advance(8.5)
    assert sim.phase == "ready" and len(sim.wall or {}) == 108


async def test_lowering_before_the_next_set_is_built_goes_to_building(sim: SimTable, clock: VirtualClock) -> None:
    sim.mech.start_shuffle()
    await clock.advance(61)
    sim.mech.raise_walls()
    await clock.advance(7)
    sim.mech.lower_walls()
    await clock.advance(9)
    assert sim.phase == "building"
    await clock.advance(60)
    assert sim.phase == "ready"
    phases = [v["phase"] for name, v in events(sim) if name == "phase"]
    assert phases == ["building", "ready", "raising", "walls_raised", "lowering", "building", "ready"]


async def test_dice_follow_the_button_and_start_play(sim: SimTable, clock: VirtualClock) -> None:
    sim.mech.start_shuffle()
    await clock.advance(61)
    sim.mech.raise_walls()
    await clock.advance(7)
    sim.press_button("E")
    await clock.advance(2)
    names = [n for n, _ in events(sim)]
    assert names[-3:] == ["button", "dice", "phase"] and sim.phase == "playing"
    dice = [v for n, v in events(sim) if n == "dice"][0]
    assert dice["seat"] == "E" and len(dice["dice"]) == 2


async def test_three_dice_for_guangdong_tables(clock: VirtualClock) -> None:
    sim = SimTable(seed=1, clock=clock, dice=3)
    try:
        sim.press_button("S")
        await clock.advance(2)
        assert len([v for n, v in events(sim) if n == "dice"][0]["dice"]) == 3
    finally:
        await sim.close()


async def test_a_dice_fault_stops_the_dice(sim: SimTable, clock: VirtualClock) -> None:
    sim.raise_fault("dice", "dice")
    sim.press_button("E")
    await clock.advance(3)
    assert not [n for n, _ in events(sim) if n == "dice"]


async def test_brown_out_forgets_everything_but_says_hello(sim: SimTable, clock: VirtualClock) -> None:
    sim.mech.start_shuffle()
    await clock.advance(61)
    old = sim.boot_id
    sim.brown_out()
    assert sim.boot_id != old and sim.phase == "idle" and sim.wall is None
    assert events(sim) == [("hello", {"boot_id": sim.boot_id, "reason": 1})]


async def test_a_scenario_plays_on_the_clock(sim: SimTable, clock: VirtualClock) -> None:
    import asyncio

    task = asyncio.ensure_future(sim.run_scenario("5 fault jam chain\n10 clear jam\n12 press W dice\n"))
    await clock.advance(6)
    assert sim.faults == {1: "chain"}
    await clock.advance(10)
    await task
    names = [n for n, _ in events(sim)]
    assert names[1:] == ["fault_raised", "fault_cleared", "button", "dice"]


async def test_bench_commands_reject_nonsense(sim: SimTable) -> None:
    with pytest.raises(SimError, match="unknown bench command"):
        sim.do("dance")
    with pytest.raises(SimError, match="seat 'Q'"):
        sim.do("press Q")
    assert "fault ID" in sim.do("help")


async def test_a_lost_tile_shows_at_the_counter_and_keeps_the_walls_down(sim: SimTable, clock: VirtualClock) -> None:
    sim.do("lose 1")
    sim.mech.start_shuffle()
    await clock.advance(61)
    counts = [v for n, v in events(sim) if n == "tile_count"]
    assert counts == [{"count": 143, "expected": 144}]
    assert sim.faults == {2: "counter"}
    from tablesim.mechanism import Refused

    with pytest.raises(Refused, match="缺牌"):
        sim.mech.raise_walls()
    sim.clear_fault("missing_tile")  # the attendant found the tile
    sim.mech.raise_walls()
    await clock.advance(7)
    assert sim.phase == "walls_raised"
    sim.do("add 2")
    await clock.advance(61)  # the next set, built during play, has two foreign tiles
    assert [v for n, v in events(sim) if n == "tile_count"][-1] == {"count": 146, "expected": 144}
    assert 3 in sim.faults


@pytest.mark.parametrize("line,said", [("5 press E dance", "button 'dance'"), ("5 lose x", "lose 'x'"),
                                       ("5 add 1.5", "add '1.5'"), ("5 unplug nan", "unplug 'nan'"),
                                       ("5 stall -1", "stall '-1'")])
def test_a_scenario_line_that_would_fail_mid_run_is_refused_before_it(line: str, said: str) -> None:
    """`tablectl sim --scenario` checks its file first so a typo fails at once; a wrong button or number
    passed the check and stopped the run (a traceback) when its time came, a minute in."""
    from tablesim.sim import parse_scenario

    with pytest.raises(SimError, match=f"scenario line 2: .*{said}"):
        parse_scenario(f"1 press E raise\n{line}\n")


async def test_a_bench_command_with_a_bad_number_is_refused_and_changes_nothing(sim: SimTable) -> None:
    with pytest.raises(SimError, match="unplug 'nan'"):
        sim.do("unplug nan")
    with pytest.raises(SimError, match="button 'dance'"):
        sim.do("press E dance")
    assert [n for n, _ in events(sim)] == ["hello"]


async def test_the_attendants_reset_clears_a_jam_drops_the_set_and_idles(sim: SimTable, clock: VirtualClock) -> None:
    """The jam's remedy ends 再按复位 (press reset): the bench's `reset` is that key, as the host's `reset`
    command (protocol.md §7): jam and dice clear, a missing tile stays, the set is dropped, phase idle."""
    sim.mech.start_shuffle()
    await clock.advance(30)
    sim.do("fault jam chain")
    sim.do("fault missing_tile counter")
    sim.do("reset")
    assert sim.phase == "idle" and sim.wall is None and sim.faults == {2: "counter"}
    assert [n for n, _ in events(sim)][-3:] == ["fault_raised", "fault_cleared", "phase"]
    await clock.advance(60)
    assert sim.phase == "idle"  # the build stopped with the motors
    assert "reset" in sim.do("help")

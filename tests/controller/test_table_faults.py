"""The table's faults end to end: the simulator's board over a real pty, the real driver and controller,
a real SQLite log. A fault at each step of the machine's cycle, what the log (the Table page's lines)
says, the operator's recovery, and the hand going on."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from simtable import linked_table, until  # type: ignore[import-not-found]

from table_controller.service import TableService
from table_controller.state import describe


@pytest.fixture
async def table(tmp_path: Path) -> AsyncIterator[TableService]:
    """A table service on the simulator, linked."""
    async with linked_table(tmp_path) as service:
        yield service


def lines(service: TableService, after: int = 0) -> list[str]:
    """The log's lines (as the Table page shows them) after event `after`."""
    assert service.store is not None
    return [describe(e) for e in service.store.since(after)]


def types(service: TableService, type_: str) -> list[dict[str, Any]]:
    assert service.store is not None
    return [e.data for e in service.store.since(0) if e.type == type_]


async def test_a_missing_tile_put_back_raises_the_walls_of_the_waiting_hand(table: TableService) -> None:
    """The counter finds a tile short after the build (缺牌): the lift stays down. Once the attendant puts it
    back the walls go up for the hand that waits for them; before, the hand waited for good (the raise the
    fault refused was never asked again) and the log read "牌数设定：143 张" and "故障解除：2"."""
    c, sim = table.controller, table.sim
    assert c is not None and sim is not None
    sim.do("lose 1")
    await c.start_hand("op")
    await until(lambda: types(table, "controller.rejected"))
    assert sim.phase == "ready" and c.state.phase == "ready"
    said = lines(table)
    assert "点牌：143 张，应为 144 张" in said and "故障：缺牌（计数器）" in said
    refusal = types(table, "controller.rejected")[0]["reason"]
    assert refusal.startswith("牌桌故障（缺牌），未能升牌：故障排除后自动升牌"), refusal
    sim.clear_fault("missing_tile")  # the attendant found the tile
    await until(lambda: c.state.phase == "walls_raised")
    assert "故障解除：缺牌" in lines(table)
    assert len(types(table, "controller.rejected")) == 1
    sim.press_button("E")  # the hand goes on: the dealer's dice
    await until(lambda: c.state.hand and c.state.hand.get("throws"))


async def test_a_second_fault_keeps_the_walls_down_until_it_clears_too(table: TableService) -> None:
    """A jam while the missing tile is being put back: clearing the 缺牌 alone asks nothing of the table
    (the jam stops the lift too); clearing the jam raises the walls, once."""
    c, sim = table.controller, table.sim
    assert c is not None and sim is not None
    sim.do("lose 1")
    await c.start_hand("op")
    await until(lambda: types(table, "controller.rejected"))
    sim.raise_fault("jam", "lift N")
    await until(lambda: "1" in c.state.faults)
    assert "故障：卡牌（4号位升降台）" in lines(table)
    sim.clear_fault("missing_tile")
    await until(lambda: "2" not in c.state.faults)
    await asyncio.sleep(0.2)
    assert sim.phase == "ready" and len(types(table, "controller.rejected")) == 1
    sim.clear_fault("jam")
    await until(lambda: c.state.phase == "walls_raised")
    assert len(types(table, "controller.rejected")) == 1
    assert [d["phase"] for d in types(table, "table.phase")].count("raising") == 1


async def test_a_jam_in_the_build_cleared_by_the_boards_reset_builds_the_hand_again(table: TableService) -> None:
    """A jam mid-build: the attendant takes out the tile and presses reset (复位, as the remedy says). The board
    drops the set and goes idle; the hand waiting for its walls has them shuffled and built again (it waited
    for good before: nothing asked the idle table for a build)."""
    c, sim = table.controller, table.sim
    assert c is not None and sim is not None
    await c.start_hand("op")
    assert sim.phase == "building"  # the shuffle's reply is in: the build has just begun
    sim.raise_fault("jam", "chain")
    await until(lambda: "1" in c.state.faults)
    assert any(line.startswith("故障：卡牌（链条）") for line in lines(table))
    assert c.state.faults["1"]["remedy_zh"].endswith("再按复位")
    sim.do("reset")
    await until(lambda: c.state.phase == "walls_raised")
    phases = [d["phase"] for d in types(table, "table.phase")]
    assert phases == ["building", "idle", "building", "ready", "raising", "walls_raised"], phases
    assert "故障解除：卡牌" in lines(table) and not c.state.faults
    assert not types(table, "controller.rejected")
    assert len(types(table, "operator.hand_start")) == 1 and not types(table, "operator.hand_end")


async def test_a_shuffle_refused_by_the_open_lid_starts_when_the_lid_is_closed(table: TableService) -> None:
    """The first hand started with the centre lid open: the board refuses the shuffle. Closing the lid
    builds and raises the walls for that hand (before: the hand waited for good)."""
    c, sim = table.controller, table.sim
    assert c is not None and sim is not None
    sim.raise_fault("centre_open", "centre")
    await until(lambda: "6" in c.state.faults)
    await c.start_hand("op")
    await until(lambda: types(table, "controller.rejected"))
    assert sim.phase == "idle"
    refusal = types(table, "controller.rejected")[0]["reason"]
    assert refusal.startswith("牌桌故障（中心盖未关），未能洗牌砌牌：故障排除后自动洗牌砌牌"), refusal
    sim.clear_fault("centre_open")
    await until(lambda: c.state.phase == "walls_raised")
    assert "故障解除：中心盖未关" in lines(table)


async def test_a_hand_end_the_open_lid_kept_from_lowering_is_lowered_by_the_next_hand_start(table: TableService) -> None:
    """Mid-hand the centre lid is opened; the hand ends and the board refuses to lower the walls. The line
    says what to do; once the lid is closed, the next hand's start lowers the old walls and raises the next
    set (before: the start sent nothing, the table kept the old walls up and the new hand never got any)."""
    c, sim = table.controller, table.sim
    assert c is not None and sim is not None
    await c.start_hand("op")
    await until(lambda: c.state.phase == "walls_raised")
    sim.press_button("E")
    await until(lambda: c.state.phase == "playing")
    sim.raise_fault("centre_open", "centre")
    await until(lambda: "6" in c.state.faults)
    await c.end_hand("op")
    await until(lambda: types(table, "controller.rejected"))
    refusal = types(table, "controller.rejected")[0]["reason"]
    assert refusal.startswith("牌桌故障（中心盖未关），未能降牌收牌：故障排除后按“开始新一盘”"), refusal
    assert sim.phase == "playing"
    sim.clear_fault("centre_open")
    await until(lambda: not c.state.faults)
    await asyncio.sleep(0.1)
    assert sim.phase == "playing"  # the walls wait for the operator
    seen = c.state.seq
    await c.start_hand("op")
    await until(lambda: c.state.phase == "walls_raised" and c.state.hand["hand_no"] == 2)
    phases = [e.data["phase"] for e in table.store.since(seen) if e.type == "table.phase"]  # type: ignore[union-attr]
    assert phases[0] == "lowering" and phases[-2:] == ["raising", "walls_raised"], phases
    assert len(types(table, "controller.rejected")) == 1


async def test_a_fault_while_the_walls_rise_pauses_them_and_they_finish_once_cleared(table: TableService) -> None:
    """Power low while the lifts rise: they stop; once the supply is back they finish, with no command
    asked again and no event lost or doubled."""
    c, sim = table.controller, table.sim
    assert c is not None and sim is not None
    raise_walls = sim.mech.raise_walls

    def rise_and_dip() -> None:  # the supply dips as the lifts start (a raise lasts 12 ms at this speed)
        raise_walls()
        sim.raise_fault("power", "supply")

    sim.mech.raise_walls = rise_and_dip  # type: ignore[method-assign]
    await c.start_hand("op")
    await until(lambda: "8" in c.state.faults)
    await asyncio.sleep(0.1)
    assert sim.phase == "raising"
    sim.clear_fault("power")
    await until(lambda: c.state.phase == "walls_raised")
    phases = [d["phase"] for d in types(table, "table.phase")]
    assert phases == ["building", "ready", "raising", "walls_raised"], phases
    assert [d["id"] for d in types(table, "table.fault_raised")] == ["power"]
    assert len(types(table, "table.fault_cleared")) == 1 and not types(table, "controller.rejected")
    assert "故障：电压不足（电源）" in lines(table) and "故障解除：电压不足" in lines(table)

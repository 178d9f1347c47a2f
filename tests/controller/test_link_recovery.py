"""A hand that waits for its walls when the link comes back gets them, and no command runs twice.

The table's side (a real simulator on a pseudo-terminal, on a virtual clock), the driver and a
`Controller` on a real SQLite log. Before, the controller asked for the walls only when it was told of
a phase as it changed: a `raise_walls` lost with the cable (pulled as it was sent, back after the
command's timeout) left the set standing ready under the table, and a board that restarted while it
was building the set came back idle; either way the hand waited for walls nobody asked for, until the
operator stopped it (中止) and started it again.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from drivers.clock import VirtualClock
from tablesim import SimTable
from tablesim.physics import Timings

from table_controller.config import parse_config
from table_controller.controller import Controller
from table_controller.store import EventStore

COMMAND_TIMEOUT = 1.0  # virtual seconds: the unplugs below outlast it


@pytest.fixture
async def clock() -> AsyncIterator[VirtualClock]:
    c = VirtualClock(auto=True)
    yield c
    await c.close()


async def linked(tmp_path: Path, clock: VirtualClock, faults: str,
                 command_timeout: float = COMMAND_TIMEOUT) -> tuple[SimTable, Controller, EventStore]:
    # the machine at ten times its pace (a build of 6 s, a raise of 0.6 s); the link's own timing as it is
    sim = SimTable(seed=5, clock=clock, faults=faults, timings=Timings.default().scaled(10.0))
    pty = await sim.serve_pty()
    cfg = parse_config({"table": {"link": pty}}, "test")

    async def opener(url: str) -> Any:
        from drivers.table import open_table

        return await open_table(url, clock=clock, command_timeout=command_timeout)

    store = EventStore(tmp_path / "events.sqlite3")
    c = Controller(cfg, store, opener)
    await c.start()
    await c.wait_linked(10)
    sim.press_button("E", "dice")  # 定庄: chair 1 throws for the first dealer
    for _ in range(100):
        if c.state.first_dealer and c.state.first_dealer.get("position"):
            break
        await clock.sleep(0.1)
    return sim, c, store


async def until_walls_raised(sim: SimTable, c: Controller, clock: VirtualClock) -> None:
    for _ in range(300):  # the build and the raise, and a reconnect or two
        if sim.phase == "walls_raised" and c.state.phase == "walls_raised":
            return
        await clock.sleep(0.1)
    raise AssertionError(f"the walls never went up: table {sim.phase}, record {c.state.phase}; {sim.commands_executed}")


async def close(sim: SimTable, c: Controller, store: EventStore) -> None:
    await c.stop()
    await sim.close()
    store.close()


async def test_a_raise_lost_with_the_cable_is_asked_again_once_the_link_is_back(
        tmp_path: Path, clock: VirtualClock) -> None:
    sim, c, store = await linked(tmp_path, clock, "unplug_before=raise_walls")
    sim.plan.unplug_for = 3 * COMMAND_TIMEOUT
    try:
        await c.start_hand(by="operator")
        await until_walls_raised(sim, c, clock)
        assert sim.commands_executed.count("raise_walls") == 1
        assert sim.commands_executed.count("start_shuffle") == 1
        types = [e.type for e in store.since(0)]
        assert "link.restored" in types and types.index("controller.rejected") < types.index("link.restored")
    finally:
        await close(sim, c, store)


async def test_a_raise_still_pending_when_the_link_is_back_is_not_sent_twice(
        tmp_path: Path, clock: VirtualClock) -> None:
    """The cable back before the command's timeout: the driver resends the pending raise (the table runs it
    once); the controller does not add one of its own, which the table would refuse (已在升牌)."""
    sim, c, store = await linked(tmp_path, clock, "unplug_before=raise_walls", command_timeout=15.0)
    sim.plan.unplug_for = 0.3
    try:
        await c.start_hand(by="operator")
        await until_walls_raised(sim, c, clock)
        assert sim.commands_executed.count("raise_walls") == 1
        assert [e.data for e in store.since(0) if e.type == "controller.rejected"] == []
    finally:
        await close(sim, c, store)


async def test_a_board_that_restarted_before_it_ran_the_shuffle_builds_the_set_once_back(
        tmp_path: Path, clock: VirtualClock) -> None:
    sim, c, store = await linked(tmp_path, clock, "brownout_on=start_shuffle")
    try:
        await c.start_hand(by="operator")
        await until_walls_raised(sim, c, clock)
        assert sim.commands_executed.count("start_shuffle") == 1  # the first never ran: the board restarted on it
        assert sim.commands_executed.count("raise_walls") == 1
        hand = c.state.hand
        assert hand is not None and hand["hand_no"] == 1 and not hand.get("ended")
    finally:
        await close(sim, c, store)


async def test_a_board_that_restarted_mid_build_builds_a_new_set_for_the_same_hand(
        tmp_path: Path, clock: VirtualClock) -> None:
    sim, c, store = await linked(tmp_path, clock, "")
    try:
        await c.start_hand(by="operator")
        for _ in range(200):
            if sim.phase == "building":
                break
            await clock.sleep(0.1)
        await clock.sleep(3)
        sim.brown_out()  # the half-built set is lost with the board's memory
        await until_walls_raised(sim, c, clock)
        assert sim.commands_executed.count("start_shuffle") == 2  # one per boot: the first set was lost
        assert sim.commands_executed.count("raise_walls") == 1
        assert [e.data["hand_no"] for e in store.since(0) if e.type == "operator.hand_start"] == [1]
    finally:
        await close(sim, c, store)


async def test_a_command_the_link_lost_or_the_board_refused_is_said_in_chinese(
        tmp_path: Path, clock: VirtualClock) -> None:
    """The log said "拒绝：start_shuffle: the table restarted (power or brown-out) while the command was
    pending; it was not repeated" and "拒绝：raise_walls: raise_walls: no reply from the table within 15 s":
    the command's name and the reason in English only, on the display the operator reads."""
    from table_controller.state import describe

    sim, c, store = await linked(tmp_path, clock, "brownout_on=start_shuffle")
    try:
        await c.start_hand(by="operator")
        await until_walls_raised(sim, c, clock)
        sim.raise_fault("jam", "chain")
        for _ in range(50):
            if c.state.faults:
                break
            await clock.sleep(0.1)
        await c.end_hand(by="operator")  # the jam blocks the lifts: the board refuses to lower the walls
        said = {e.data["action"]: (e.data["reason"], describe(e)) for e in store.since(0)
                if e.type == "controller.rejected"}
        reason, line = said["start_shuffle"]
        assert reason.startswith("洗牌砌牌：牌桌重新启动，命令未执行 / start_shuffle: the table restarted"), reason
        assert line == f"拒绝：{reason}"
        reason, _ = said["lower_walls"]
        assert reason.startswith("牌桌故障（卡牌），未能降牌收牌：") and "/ lower_walls refused by the table: " in reason, reason
    finally:
        await close(sim, c, store)


async def test_walls_left_up_by_a_lower_lost_with_the_cable_come_down_for_the_next_hand(
        tmp_path: Path, clock: VirtualClock) -> None:
    """A hand's end sends `lower_walls`; lost with the cable (back after its timeout), the table kept the last
    hand's walls up. The next hand's start lowered walls only for a hand it abandoned, so it sent nothing
    (no shuffle in `walls_raised`) and the new hand waited for walls for good: no page has a button to lower them."""
    sim, c, store = await linked(tmp_path, clock, "unplug_before=lower_walls")
    sim.plan.unplug_for = 3 * COMMAND_TIMEOUT
    try:
        await c.start_hand(by="operator")
        await until_walls_raised(sim, c, clock)
        await c.end_hand(by="operator")  # 荒牌; its lower_walls is lost with the cable
        for _ in range(100):
            if c.state.link.get("up") and any(e.type == "link.restored" for e in store.since(0)):
                break
            await clock.sleep(0.1)
        assert sim.phase == "walls_raised" and "lower_walls" not in sim.commands_executed
        await c.start_hand(by="operator")
        for _ in range(300):
            if "lower_walls" in sim.commands_executed and sim.phase == "walls_raised" \
                    and c.state.phase == "walls_raised":
                break
            await clock.sleep(0.1)
        assert sim.commands_executed.count("lower_walls") == 1 and sim.commands_executed.count("raise_walls") == 2
        assert c.state.phase == "walls_raised" and c.state.hand is not None and c.state.hand["hand_no"] == 2
    finally:
        await close(sim, c, store)

"""The remote-control dialect behind the same API: what it lacks is reported missing, never faked."""

from __future__ import annotations

import pytest

from drivers.clock import VirtualClock
from drivers.errors import TableError
from drivers.remote import frame
from drivers.table import open_table
from tablesim import SimTable


def test_frame_is_ff_cmd_p1_p2_sum() -> None:
    assert frame(0x02, 1) == bytes((0xFF, 0x02, 0x01, 0x00, 0x03))


async def test_shuffle_raise_lower_over_a_pty_and_missing_capabilities(no_leaks: None) -> None:
    clock = VirtualClock(auto=True)
    sim = SimTable(seed=1, clock=clock, dialect="remote-control")
    table = await open_table(await sim.serve_pty(), clock=clock, dialect="remote-control")
    try:
        caps = table.info.capabilities
        assert table.info.dialect == "remote-control" and table.info.protocol_version == 0
        assert caps.tile_counts == () and caps.wall_lengths == {} and caps.dice == 0
        assert not (caps.seat_buttons or caps.seat_lights or caps.machine_dealt)
        await table.start_shuffle()
        await clock.sleep(61)
        assert sim.phase == "ready"
        await table.raise_walls()
        await clock.sleep(7)
        assert sim.phase == "walls_raised"
        await table.lower_walls()
        await clock.sleep(9)
        assert sim.phase in ("building", "ready")
        assert sim.commands_executed == ["start_shuffle", "raise_walls", "lower_walls"]
        for call in (table.roll_dice("E"), table.set_tile_count(136), table.status(), table.set_seat_lights("E")):
            with pytest.raises(TableError) as missing:
                await call
            assert missing.value.code == "unsupported"
    finally:
        await table.close()
        await sim.close()
        await clock.close()


async def test_a_silent_table_fails_to_connect_clearly(no_leaks: None) -> None:
    clock = VirtualClock(auto=True)
    sim = SimTable(seed=1, clock=clock)  # speaks mahjong-link, so it never echoes
    path = await sim.serve_pty()
    try:
        with pytest.raises(TableError, match="did not echo") as err:
            await open_table(path, clock=clock, dialect="remote-control")
        assert err.value.code == "no_answer"
    finally:
        await sim.close()
        await clock.close()


async def test_remote_link_goes_down_and_comes_back(no_leaks: None) -> None:
    clock = VirtualClock(auto=True)
    sim = SimTable(seed=1, clock=clock, dialect="remote-control")
    table = await open_table(await sim.serve_pty(), clock=clock, dialect="remote-control")
    try:
        sim.unplug(10.0)
        down = await table.wait_for_event("link_down", timeout=30)
        assert down.fields["reason"] == "no_answer"
        await table.wait_for_event("link_up", timeout=60)
        await table.start_shuffle()
        assert sim.commands_executed == ["start_shuffle"]
    finally:
        await table.close()
        await sim.close()
        await clock.close()

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


async def test_a_late_echo_is_not_taken_as_the_answer_to_a_later_command(no_leaks: None) -> None:
    """A remote-control table slow to echo (past the 200 ms) echoes the frame and its resend: the first echo
    answers the command, the second stayed queued and answered the next identical command at once, though
    the table never got it (here: silent, as with the cable out). The walls were taken as raised."""
    import asyncio
    import os
    import pty

    from drivers.clock import SystemClock
    from drivers.remote import LIFT, PING

    leader, follower = pty.openpty()
    os.set_blocking(leader, False)
    loop = asyncio.get_running_loop()
    lifts: list[bytes] = []
    buf = bytearray()

    def table_reads() -> None:  # the table's side: echo PING at once, the first raise late, later ones never
        try:
            buf.extend(os.read(leader, 4096))
        except OSError:
            return
        while len(buf) >= 5:
            raw, rest = bytes(buf[:5]), buf[5:]
            buf[:] = rest
            if raw[1] == PING:
                os.write(leader, raw)
            elif raw[1] == LIFT:
                lifts.append(raw)
                if len(lifts) <= 2:  # the first raise and its resend, echoed 0.25 s late each
                    loop.call_later(0.25, os.write, leader, raw)

    loop.add_reader(leader, table_reads)
    table = await open_table(os.ttyname(follower), clock=SystemClock(), dialect="remote-control")
    try:
        await table.raise_walls()  # answered by the late echo of its first send
        await asyncio.sleep(0.3)  # the resend's echo arrives meanwhile
        with pytest.raises(TableError) as unanswered:
            await table.raise_walls()
        assert unanswered.value.code == "no_answer"
        assert len(lifts) == 2 + 3  # the second raise was sent three times and never echoed
    finally:
        await table.close()
        loop.remove_reader(leader)
        os.close(leader)
        os.close(follower)

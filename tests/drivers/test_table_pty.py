"""The table API against the simulator over a real pty: every command, event and fault code."""

from __future__ import annotations

import asyncio

import pytest

from drivers import messages as msgs
from drivers.clock import VirtualClock
from drivers.errors import TableError
from drivers.faults import FAULTS
from drivers.table import Table, TableEvent
from tablesim import SimTable


def drain(table: Table) -> list[TableEvent]:
    out = []
    while not table._events.empty():
        ev = table._events.get_nowait()
        if ev.type != "heartbeat":
            out.append(ev)
    return out


async def test_handshake_reports_identity_and_capabilities(table: Table, sim: SimTable) -> None:
    info = table.info
    assert info.protocol_version == 1 and info.dialect == "mahjong-link"
    assert info.serial == sim.serial and info.firmware.startswith("tablesim")
    caps = info.capabilities
    assert caps.tile_counts == (144, 136, 108)
    assert caps.wall_lengths[108] == (14, 13, 14, 13) and caps.wall_lengths[144] == (18,) * 4
    assert caps.dice == 2 and caps.machine_dealt and caps.seat_buttons and caps.seat_lights
    assert table.health.up
    for _ in range(20):  # Karn's rule: only a ping sent once gives an RTT sample
        assert await table.ping(b"abc") >= 0
        if table.health.rtt is not None:
            break
    assert table.health.rtt is not None and 0.025 <= table.health.rto <= 1.0
    evs = drain(table)
    assert [e.type for e in evs][:2] == ["link_up", "hello"]  # replayed events follow link_up
    assert evs[1].seq == 1 and evs[1].fields["boot_id"] == info.boot_id


async def test_a_whole_hand_cycle_on_the_clock(table: Table, sim: SimTable, vclock: VirtualClock) -> None:
    await table.set_tile_count(108)
    t0 = vclock.now()
    await table.start_shuffle()
    await table.wait_phase("ready", timeout=120)
    assert 45.0 <= vclock.now() - t0 < 47.0  # the 108-tile build takes 45 s of table time
    assert sim.wall is not None and len(sim.wall) == 108 and "N13b" in sim.wall and "N14t" not in sim.wall
    await table.raise_walls()
    await table.wait_phase("walls_raised", timeout=30)
    await table.roll_dice("E")
    dice = await table.wait_for_event("dice", timeout=10)
    assert dice.fields["seat"] == "E" and len(dice.fields["dice"]) == 2
    assert all(1 <= d <= 6 for d in dice.fields["dice"])
    await table.wait_phase("playing", timeout=5)
    await table.roll_dice("S")  # mcr's second throw, by the seat the first one counted to
    second = await table.wait_for_event("dice", timeout=10, seat="S")
    assert second.seq > dice.seq
    status = await table.status()
    assert status.phase == "playing" and status.tile_count == 108
    await table.wait_for_event("tile_count", timeout=120)  # the next set is built during play
    assert (await table.status()).set_ready
    await table.lower_walls()
    await table.wait_phase("ready", timeout=30)  # the next set was already built
    types = [e.type for e in drain(table)]
    phases = [e for e in types if e == "phase"]
    assert len(phases) >= 7 and "tile_count" in types


async def test_seat_lights_buzzer_and_reset(table: Table, sim: SimTable) -> None:
    await table.set_seat_lights(dealer="S", prevalent="E", turn="W")
    assert (sim.dealer, sim.prevalent, sim.turn) == ("S", "E", "W")
    assert (await table.status()).dealer == "S"
    await table.buzzer(300)
    assert sim.buzzes == [300]
    await table.start_shuffle()
    await table.wait_phase("building", timeout=5)
    await table.reset()
    await table.wait_phase("idle", timeout=5)
    assert sim.wall is None


async def test_refusals_carry_the_tables_reason(table: Table) -> None:
    with pytest.raises(TableError, match="needs phase ready, the table is idle") as bad_phase:
        await table.raise_walls()
    assert bad_phase.value.code == "bad_phase"
    with pytest.raises(TableError) as bad_count:
        await table.set_tile_count(100)
    assert bad_count.value.code == "bad_argument" and "100" in str(bad_count.value)
    with pytest.raises(TableError) as loud:
        await table.buzzer(9000)
    assert loud.value.code == "bad_argument"
    with pytest.raises(TableError) as not_a_seat:
        await table.roll_dice("X")
    assert not_a_seat.value.code == "bad_argument"
    # the link is fine after refusals
    assert (await table.status()).phase == "idle"


async def test_a_players_button_is_reported_and_rolls_the_dice(table: Table, sim: SimTable) -> None:
    sim.press_button("N", "dice")
    press = await table.wait_for_event("button", timeout=5)
    assert press.fields == {"seat": "N", "button": "dice"}
    dice = await table.wait_for_event("dice", timeout=5)
    assert dice.fields["seat"] == "N" and dice.seq == press.seq + 1


@pytest.mark.parametrize("kind", FAULTS, ids=lambda k: k.id)
async def test_every_fault_code_reaches_the_display_in_chinese(table: Table, sim: SimTable, kind) -> None:  # type: ignore[no-untyped-def]
    sim.raise_fault(kind.id, "pusher E")
    ev = await table.wait_for_event("fault_raised", timeout=5)
    assert ev.fields["code"] == kind.code
    assert ev.fields["name_zh"] == kind.name_zh and ev.fields["remedy_zh"] == kind.remedy_zh
    assert ev.fields["name_en"] == kind.name_en and ev.fields["where"] == "pusher E"
    assert ev.fields["where_zh"] == "1号位推牌器"  # the place as the referee calls it (was "pusher E")
    assert kind.code in table.faults
    assert (await table.status()).faults == (kind.code,)
    sim.clear_fault(kind.id)
    cleared = await table.wait_for_event("fault_cleared", timeout=5)
    assert cleared.fields == {"code": kind.code} and kind.code not in table.faults


async def test_a_jam_pauses_the_build_and_blocks_the_lift(table: Table, sim: SimTable, vclock: VirtualClock) -> None:
    await table.start_shuffle()
    t0 = vclock.now()
    await vclock.sleep(20)
    sim.raise_fault("jam", "chain")
    await vclock.sleep(30)
    assert sim.phase == "building"
    with pytest.raises(TableError) as refused:
        await table.start_shuffle()
    assert refused.value.code == "bad_phase"
    sim.clear_fault("jam")
    await table.wait_phase("ready", timeout=120)
    assert vclock.now() - t0 >= 60 + 30 - 1  # 30 s of jam did not count as building
    sim.raise_fault("centre_open", "centre")
    await table.wait_for_event("fault_raised", timeout=5)
    with pytest.raises(TableError, match="中心盖未关") as blocked:
        await table.raise_walls()
    assert blocked.value.code == "fault_active"


async def test_autopilot_throws_for_the_dealer_then_for_whom_it_is_told(no_leaks: None) -> None:
    clock = VirtualClock(auto=True)
    sim = SimTable(seed=3, clock=clock, autopilot=True)
    from drivers.table import open_table

    table = await open_table(await sim.serve_pty(), clock=clock)
    try:
        await table.set_seat_lights(dealer="W")
        await table.start_shuffle()
        await table.wait_phase("ready", timeout=100)
        await table.raise_walls()
        first = await table.wait_for_event("dice", timeout=30)
        assert first.fields["seat"] == "W"
        sim.autopilot_next_thrower("N")
        second = await table.wait_for_event("dice", timeout=30)
        assert second.fields["seat"] == "N"
    finally:
        await table.close()
        await sim.close()
        await clock.close()


async def test_the_same_seed_builds_the_same_walls(no_leaks: None) -> None:
    walls = []
    for _ in range(2):
        clock = VirtualClock(auto=True)
        sim = SimTable(seed=11, clock=clock)
        from drivers.table import open_table

        table = await open_table(await sim.serve_pty(), clock=clock)
        await table.start_shuffle()
        await table.wait_phase("ready", timeout=100)
        walls.append(dict(sim.wall or {}))
        await table.close()
        await sim.close()
        await clock.close()
    assert walls[0] == walls[1] and len(walls[0]) == 144


async def test_debug_commands_inject_faults_in_band(table: Table) -> None:
    assert "fault ID" in await table.debug("help")
    before = table.last_event
    await table.debug("fault overheat disc motor")
    ev = await table.wait_for_event("fault_raised", timeout=5, after=before)
    assert ev.fields["name_zh"] == "过热" and ev.fields["where"] == "disc motor" and ev.fields["where_zh"] == "转盘电机"
    with pytest.raises(TableError, match="unknown fault"):
        await table.debug("fault gremlins")


async def test_events_end_when_the_table_is_closed(sim: SimTable, pty_path: str, vclock: VirtualClock) -> None:
    import asyncio

    from drivers.table import open_table

    t = await open_table(pty_path, clock=vclock)
    got: list[str] = []

    async def consume() -> None:
        async for ev in t.events():
            got.append(ev.type)

    task = asyncio.ensure_future(consume())
    await vclock.sleep(2.5)
    await t.close()
    await asyncio.wait_for(task, 5)
    assert got[:2] == ["link_up", "hello"] and "heartbeat" in got
    with pytest.raises(TableError) as closed:
        await t.status()
    assert closed.value.code == "closed"


async def test_a_host_resuming_from_its_record_gets_only_the_events_after_it(sim: SimTable, pty_path: str,
                                                                             vclock: VirtualClock) -> None:
    """A restarted host passes `resume` = what its record holds: the table replays what came after
    (same boot), and a table that booted again meanwhile replays all it has."""
    from drivers.table import open_table

    first = await open_table(pty_path, clock=vclock)
    sim.raise_fault("jam", where="E")
    await first.wait_for_event("fault_raised", timeout=5)
    boot, held = first.info.boot_id, first.last_event
    await first.close()
    sim.clear_fault("jam")  # while no host listens

    again = await open_table(pty_path, clock=vclock, resume=(boot, held))
    try:
        cleared = await again.wait_for_event("fault_cleared", timeout=5, after=held)
        assert cleared.seq == held + 1
        assert [e.type for e in drain(again)] == ["link_up", "fault_cleared"]  # no hello, no jam again
    finally:
        await again.close()

    # the same boot id but a number ahead of the table's: a boot whose id collided; all again
    late = await open_table(pty_path, clock=vclock, resume=(boot, held + 50))
    try:
        hello = await late.wait_for_event("hello", timeout=10, after=0)
        assert hello.seq == 1
    finally:
        await late.close()


async def test_an_event_of_a_newer_firmware_is_counted_recorded_and_the_link_goes_on(table: Table, sim: SimTable,
                                                                                     vclock: VirtualClock) -> None:
    """A firmware update adds an event type (or a field to one) this host cannot read. Before, the host
    dropped it without counting its number: the heartbeats then announced an event the host never
    got, and it re-handshook every three seconds for good, replaying the same unreadable event."""
    drain(table)
    sim.newer_event(0x97, b"\x01\x02")
    sim.raise_fault("jam", where="E")
    unreadable = await table.wait_for_event("unreadable", timeout=5, after=0)
    assert unreadable.fields["type"] == "0x97" and unreadable.fields["payload"] == "0102"
    jam = await table.wait_for_event("fault_raised", timeout=5, after=unreadable.seq)
    assert jam.seq == unreadable.seq + 1 and table.last_event == sim.last_event
    reconnects = table.reconnects
    await vclock.sleep(10)  # ten heartbeats: nothing is missing, so no resync
    assert table.reconnects == reconnects and table.missed_events == 0


async def test_fields_a_newer_firmware_appends_are_ignored(table: Table, sim: SimTable) -> None:
    """A newer firmware adds a field to `button` (say, how long it was held): this host reads the
    fields it knows. Before, the whole event was unreadable (and, uncounted, stalled the numbering)."""
    sim.newer_event(0x93, bytes([1, 0]) + b"\x00\x2a")  # seat S, the dice button, then two new bytes
    press = await table.wait_for_event("button", timeout=5, after=0)
    assert press.fields == {"seat": "S", "button": "dice"} and press.seq == sim.last_event


async def test_events_a_firmware_sends_out_of_order_all_arrive_in_order(table: Table, sim: SimTable,
                                                                        vclock: VirtualClock) -> None:
    """A firmware numbers two events in order (its ring holds them so) but its transmit queue sends the
    second first. Before, the host took event n+1, then dropped event n as a duplicate: lost for good,
    and no heartbeat noticed (their last_event matched). Now the gap makes it resynchronise, and the
    replay brings both from the ring, in order."""
    drain(table)
    first = sim.last_event + 1
    press = msgs.encode("button", ev=first, seat="S", button="dice")
    dice = msgs.encode("dice", ev=first + 1, seat="S", dice=[2, 6])
    sim.last_event += 2
    sim._ring.extend([(first, *press), (first + 1, *dice)])
    for conn in sim._conns:
        conn.link.send(*dice, vclock.now())
        conn.link.send(*press, vclock.now())
        sim._kick(conn)
    got = await table.wait_for_event("dice", timeout=10, after=first)
    events = [ev for ev in drain(table) if ev.seq]
    assert [(ev.type, ev.seq) for ev in events] == [("button", first), ("dice", first + 1)], events
    assert got.fields["dice"] == [2, 6] and table.last_event == sim.last_event and table.missed_events == 0


async def test_bytes_toward_a_closed_or_flushed_pty_do_not_hold_the_virtual_clock(sim: SimTable, pty_path: str,
                                                                                vclock: VirtualClock) -> None:
    """The ledger counted the simulator's bytes toward the host's pty as in flight even when no one would read
    them: its boot RESETs (flushed by the host's open) and its heartbeats after the host closed. Each virtual
    jump then waited `HOLD_LIMIT` real seconds (0.25) for them: 0.25 s in every test on a pty."""
    import time

    from drivers.clock import HOLD_LIMIT, LEDGER
    from drivers.table import open_table

    await vclock.sleep(1.2)  # the table's boot RESETs (every 500 ms, §5.1) go into the pty before the host opens
    table = await open_table(pty_path, clock=vclock)
    await table.close()
    began = time.monotonic()
    for _ in range(8):  # the table goes on with its heartbeats (1 s) into the closed port: a jump each
        await vclock.sleep(1.0)
    took = time.monotonic() - began
    assert LEDGER.in_flight == 0
    assert took < 4 * HOLD_LIMIT, f"8 virtual seconds took {took:.2f} s real (a hold of {HOLD_LIMIT} s each)"


async def test_a_wait_after_n_takes_no_event_numbered_n_or_below_that_arrives_later(table: Table, sim: SimTable) -> None:
    """`wait_for_event(after=N)` looked for an event above N only among those already received: one called
    before the table's events came took the first that came, N or below (three presses sent, the wait for the
    third returned the first; test_protocol_md's reboot test failed so when its host read the presses late,
    under a busy machine)."""
    first = sim.last_event + 1
    waiting = asyncio.ensure_future(table.wait_for_event("button", timeout=10, after=first + 1))
    await asyncio.sleep(0)  # waiting before any press has come
    for _ in range(3):
        sim.newer_event(0x93, bytes([0, 1]))  # seat E, start
    got = await waiting
    assert got.seq == first + 2 == sim.last_event

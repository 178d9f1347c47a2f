"""Unplug, stall and brown-out: commands run once or fail clearly; no event is lost or duplicated."""

from __future__ import annotations

import pytest

from drivers.clock import Clock, VirtualClock
from drivers.errors import TableError
from drivers.table import Table, open_table
from tablesim import SimTable


async def start(transport: str, clock: Clock, board: type[SimTable] = SimTable, seed: int = 5,
                **sim_args: object) -> tuple[SimTable, Table]:
    """`board` (a `SimTable` or a kind of one) served over `transport`, and the host's table linked to it."""
    sim = board(seed=seed, clock=clock, **sim_args)  # type: ignore[arg-type]
    options = {}
    if transport == "pty":
        url = await sim.serve_pty()
    elif transport == "usb":  # the virtual pyusb backend (tablesim.usb): the device leaves the bus when unplugged
        url, options = "usb://1a86:7523", {"usb_backend": await sim.serve_usb(0x1A86, 0x7523)}
    else:
        url = f"socket://127.0.0.1:{await sim.serve_tcp(0)}"
    table = await open_table(url, clock=clock, **options)
    assert isinstance(table, Table)
    return sim, table


def numbered(table: Table) -> list[int]:
    return [ev.seq for ev in table.history]


@pytest.mark.parametrize("transport", ["pty", "tcp", "usb"])
async def test_unplug_after_the_table_ran_a_command_it_completes_once(no_leaks: None, transport: str) -> None:
    clock = VirtualClock(auto=True)
    sim, table = await start(transport, clock, faults="unplug_on=start_shuffle,unplug_every=0")
    try:
        sim.plan.unplug_for = 5.0
        await table.start_shuffle()  # its reply was lost with the cable; resent after replug, answered from the cache
        assert sim.commands_executed.count("start_shuffle") == 1
        assert table.reconnects >= 1
        types = [e.type for e in list(table._events._queue)]  # type: ignore[attr-defined]
        assert "link_down" in types and types.count("link_up") == 2
        await table.wait_phase("ready", timeout=100)
        assert numbered(table) == list(range(1, table.last_event + 1))
        assert table.duplicate_events + table.missed_events == table.duplicate_events  # nothing missed
        assert table.missed_events == 0
    finally:
        await table.close()
        await sim.close()
        await clock.close()


@pytest.mark.parametrize("transport", ["pty", "tcp", "usb"])
async def test_events_raised_while_unplugged_arrive_once_in_order(no_leaks: None, transport: str) -> None:
    clock = VirtualClock(auto=True)
    sim, table = await start(transport, clock)
    try:
        sim.unplug(6.0)
        await clock.sleep(0.1)
        for seat in "ESWN":
            sim.press_button(seat, "start")
        sim.raise_fault("jam", "lift W")
        await table.wait_for_event("fault_raised", timeout=60)
        assert table.health.up
        presses = [e for e in table.history if e.type == "button"]
        assert [e.fields["seat"] for e in presses] == ["E", "S", "W", "N"]
        assert numbered(table) == list(range(1, table.last_event + 1))
        assert table.missed_events == 0
        status = await table.status()
        assert status.last_event == table.last_event and status.faults == (1,)
    finally:
        await table.close()
        await sim.close()
        await clock.close()


@pytest.mark.parametrize("transport", ["tcp", "usb"])
async def test_a_command_sent_while_unplugged_waits_for_the_link_and_runs_once(no_leaks: None, transport: str) -> None:
    clock = VirtualClock(auto=True)
    sim, table = await start(transport, clock)
    try:
        sim.unplug(4.0)
        await table.wait_for_event("link_down", timeout=10)
        await table.set_tile_count(136)
        assert sim.next_tile_count == 136 and sim.commands_executed.count("set_tile_count") == 1
    finally:
        await table.close()
        await sim.close()
        await clock.close()


async def test_brown_out_mid_command_fails_it_clearly_and_resynchronises(no_leaks: None) -> None:
    clock = VirtualClock(auto=True)
    sim, table = await start("pty", clock, faults="brownout_on=start_shuffle")
    try:
        old_boot = table.info.boot_id
        with pytest.raises(TableError) as failed:
            await table.start_shuffle()
        assert failed.value.code == "table_restarted"
        assert "not repeated" in str(failed.value)
        assert "start_shuffle" not in sim.commands_executed
        for _ in range(100):  # the replay of the new boot's events follows the identity
            hellos = [e for e in table.history if e.type == "hello"]
            if len(hellos) == 2:
                break
            await clock.sleep(0.1)
        assert [h.fields["reason"] for h in hellos] == [0, 1]  # power on, then the brown-out
        hello = hellos[-1]
        assert hello.seq == 1 and hello.fields["boot_id"] == table.info.boot_id and table.info.boot_id != old_boot
        assert table.info.boot_id != old_boot
        assert (await table.status()).phase == "idle"
        await table.start_shuffle()  # the link works after the restart
        assert sim.commands_executed.count("start_shuffle") == 1
    finally:
        await table.close()
        await sim.close()
        await clock.close()


async def test_a_stall_is_survived_by_retransmission(no_leaks: None) -> None:
    clock = VirtualClock(auto=True)
    sim, table = await start("pty", clock)
    try:
        sim.stall(1.5)
        await table.buzzer(100)
        assert sim.buzzes == [100]
        assert table.health.retransmits >= 1
    finally:
        await table.close()
        await sim.close()
        await clock.close()


async def test_a_long_silence_takes_the_link_down_and_it_comes_back(no_leaks: None) -> None:
    clock = VirtualClock(auto=True)
    sim, table = await start("pty", clock)
    try:
        sim.stall(10.0)
        down = await table.wait_for_event("link_down", timeout=20)
        assert down.fields["reason"] in ("silent", "no_ack")
        await table.wait_for_event("link_up", timeout=30)
        assert (await table.status()).phase == "idle"
    finally:
        await table.close()
        await sim.close()
        await clock.close()


async def test_unreachable_table_fails_with_a_clear_error(no_leaks: None) -> None:
    from drivers.clock import SystemClock

    with pytest.raises(TableError) as nobody:
        await open_table("/dev/does-not-exist", clock=SystemClock(), reconnect=False)
    assert "cannot open /dev/does-not-exist" in str(nobody.value) and nobody.value.code == "cannot_open"


async def test_duplicated_delayed_and_garbled_frames_still_give_exactly_once(no_leaks: None) -> None:
    clock = VirtualClock(auto=True)
    sim, table = await start("pty", clock, faults="dup=0.2,delay=0.1:0.3,garbage=0.1,ber=1e-3,drop=0.05")
    try:
        for ms in range(1, 41):
            await table.buzzer(ms)
            if ms % 5 == 0:
                sim.press_button("ESWN"[ms % 4], "start")
        assert sim.buzzes == list(range(1, 41))
        for _ in range(200):
            if table.last_event >= sim.last_event:
                break
            await clock.sleep(0.1)
        assert numbered(table) == list(range(1, sim.last_event + 1))
        assert sim.damage.counts["duplicated"] > 0 and sim.damage.counts["delayed"] > 0
    finally:
        await table.close()
        await sim.close()
        await clock.close()


async def test_events_the_table_numbered_but_never_sent_are_recovered_from_heartbeats(no_leaks: None) -> None:
    clock = VirtualClock(auto=True)
    sim, table = await start("pty", clock)
    try:
        conn = sim._conns[0]
        conn.identified = False  # a firmware slip: the event goes to the ring but not on the wire
        sim.press_button("W", "start")
        conn.identified = True
        press = await table.wait_for_event("button", timeout=30)
        assert press.fields == {"seat": "W", "button": "start"}
        assert numbered(table) == list(range(1, sim.last_event + 1))
        down = [e for e in list(table._events._queue) if e and e.type == "link_down"]  # type: ignore[attr-defined]
        assert down and down[0].fields["reason"] == "events_behind"
    finally:
        await table.close()
        await sim.close()
        await clock.close()


async def test_a_tables_reset_is_answered_by_one_reset_ack_on_a_pty(
        no_leaks: None, caplog: pytest.LogCaptureFixture) -> None:
    """The simulator browns out and announces its boot with RESET (protocol.md §5.1). The host sent
    RESET_ACK twice for it (the same nonce, back to back), then its own RESET; it now answers once.
    Read from the host's own wire log of the bytes it wrote to the pty."""
    import logging
    import struct
    import time

    from drivers.framing import FrameDecoder
    from drivers.messages import RESET, RESET_ACK

    clock = VirtualClock(auto=True)
    sim, table = await start("pty", clock)
    try:
        await clock.sleep(0.5)
        caplog.set_level(logging.DEBUG - 5, logger="drivers.wire")
        caplog.clear()
        announced: list[int] = []  # the nonces of the RESETs the table sent: it repeats one every 0.5 s (its
        for conn in sim._conns:    # clock's) until answered, and a loaded machine answered after a repeat
            send_reset = conn.link.send_reset
            conn.link.send_reset = lambda nonce, send=send_reset: (announced.append(nonce), send(nonce))[1]
        sim.brown_out()
        await table.wait_for_event("hello", timeout=30)  # the new boot's hello: the link is back
        written = b"".join(bytes.fromhex(r.getMessage()[4:]) for r in caplog.records
                           if r.levelno == logging.DEBUG - 5 and r.getMessage().startswith(">>> "))
        frames = FrameDecoder().feed(written, time.monotonic())
        acks = [struct.unpack(">I", f.payload)[0] for f in frames if f.type == RESET_ACK]
        # each RESET the table sent answered once: never more often than it was sent (a repeat still on its way
        # when the hello came may be answered after it)
        assert acks and all(1 <= acks.count(n) <= announced.count(n) for n in set(acks)), (acks, announced)
        assert [f.type for f in frames if f.type in (RESET, RESET_ACK)][:2] == [RESET_ACK, RESET]
        assert table.health.up
    finally:
        await table.close()
        await sim.close()
        await clock.close()


async def test_closing_a_link_over_tcp_does_not_stop_the_event_loop(no_leaks: None) -> None:
    """pyserial's socket:// close sleeps 0.3 s in `time.sleep`: every reconnect over TCP (a table on a network
    bridge, the simulator) froze the service's one event loop, the other tables and the display with it."""
    import asyncio
    import time

    from drivers.transport import open_transport

    clock = VirtualClock(auto=True)
    sim = SimTable(seed=5, clock=clock)
    try:
        transport = await open_transport(f"socket://127.0.0.1:{await sim.serve_tcp(0)}")
        ticks: list[float] = []

        async def tick() -> None:
            while True:
                ticks.append(time.monotonic())
                await asyncio.sleep(0.01)

        ticker = asyncio.create_task(tick())
        await asyncio.sleep(0.05)
        began = time.monotonic()
        await transport.close()
        took = time.monotonic() - began
        await asyncio.sleep(0.05)
        ticker.cancel()
        await asyncio.gather(ticker, return_exceptions=True)
        stall = max(b - a for a, b in zip(ticks, ticks[1:]))
        assert took < 0.2 and stall < 0.25, (took, stall)  # pyserial's close alone: 0.3 s, the loop stopped
        with pytest.raises(TableError):
            transport.write(b"x")  # closed: a write says so
    finally:
        await sim.close()
        await clock.close()


async def test_bytes_into_a_tcp_connection_the_table_dropped_do_not_hold_the_virtual_clock(no_leaks: None) -> None:
    """The ledger counted what the host wrote into a TCP connection the simulator had dropped or refused (its
    ACKs, then a RESET at each try) as in flight: each virtual jump of the reconnect waited `HOLD_LIMIT` real
    seconds (0.25) for bytes nobody would read."""
    import time

    from drivers.clock import HOLD_LIMIT

    clock = VirtualClock(auto=True)
    sim, table = await start("tcp", clock)
    try:
        began = time.monotonic()
        sim.unplug(4.0)
        await table.wait_for_event("link_down", timeout=10)
        await table.wait_for_event("link_up", timeout=30)
        took = time.monotonic() - began
        assert table.reconnects >= 1 and (await table.status()).phase == "idle"
        assert took < 2 * HOLD_LIMIT, f"an unplug of 4 virtual seconds took {took:.2f} s real"
    finally:
        await table.close()
        await sim.close()
        await clock.close()


def test_the_ledger_forgets_the_oldest_closed_ends_not_the_newest() -> None:
    """A table over TCP closes a new name (its connection's port) at each reconnect, for as long as it runs: the
    ledger keeps the newest `CLOSED_KEPT` (what a simulator writes toward an end it just lost is still not
    counted), not every name since the start."""
    from drivers.clock import CLOSED_KEPT, IOLedger, tcp_end, toward_table

    ledger = IOLedger()
    for k in range(CLOSED_KEPT * 4):
        ledger.closed(toward_table(tcp_end(10000 + k)))
    ledger.wrote(5, toward_table(tcp_end(10000 + CLOSED_KEPT * 4 - 1)))  # toward the end closed last: nobody reads it
    assert ledger.in_flight == 0
    assert len(ledger._closed) == CLOSED_KEPT
    ledger.wrote(5, toward_table(tcp_end(10000)))  # the first, long gone and forgotten: counted as any open end's bytes
    assert ledger.in_flight == 5

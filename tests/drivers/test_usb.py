"""A `usb://VID:PID` table as a venue meets it: no libusb, no device, no udev rule, a kernel driver
holding the board, a halted endpoint. The board is the simulator behind the virtual pyusb backend
(tablesim.usb, the one stand-in: no USB device here); "no device plugged in" asks the real libusb."""

from __future__ import annotations

import pytest

from drivers.clock import VirtualClock
from drivers.errors import TableError, TransportError
from drivers.table import open_table
from drivers.transport import open_transport
from tablesim import SimTable

URL = "usb://1a86:7523"


@pytest.fixture
async def board(no_leaks: None) -> tuple[SimTable, object, VirtualClock]:  # type: ignore[misc]
    clock = VirtualClock(auto=True, quantum=0.005)  # threads move USB bytes: more real time per step
    sim = SimTable(seed=4, clock=clock)
    backend = await sim.serve_usb(0x1A86, 0x7523)
    yield sim, backend, clock  # type: ignore[misc]
    await sim.close()
    await clock.close()


async def test_without_libusb_the_debian_package_is_named(no_leaks: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """pyusb's backends find no library (a Pi set up without `make pi`): it said "no libusb backend installed"."""
    import usb.backend.libusb0
    import usb.backend.libusb1
    import usb.backend.openusb

    for m in (usb.backend.libusb1, usb.backend.libusb0, usb.backend.openusb):
        monkeypatch.setattr(m, "get_backend", lambda *a, **k: None)
    with pytest.raises(TransportError) as err:
        await open_transport(URL)
    assert err.value.code == "cannot_open"
    text = str(err.value)
    assert text.startswith("找不到 libusb") and "libusb-1.0-0" in text and URL in text


@pytest.fixture
def libusb() -> None:
    """The real libusb, its context (a few descriptors pyusb keeps for the process) opened before the leak check."""
    import usb.backend.libusb1

    if usb.backend.libusb1.get_backend() is None:
        pytest.skip("libusb-1.0-0 is not installed here")


async def test_a_device_not_plugged_in_is_named_and_retried(libusb: None, no_leaks: None) -> None:
    """The real libusb, with no such device on this machine's bus: the service's connect keeps trying
    for its whole timeout and then says which device is missing, in the technician's words first."""
    from drivers.clock import SystemClock

    with pytest.raises(TableError) as err:
        await open_table("usb://1a86:0001", clock=SystemClock(), connect_timeout=0.5)
    assert err.value.code == "cannot_open"
    text = str(err.value)
    assert text.startswith("找不到 USB 设备 1a86:0001") and "no USB device 1a86:0001 plugged in" in text


async def test_no_permission_names_the_udev_rule_and_plugdev(board: tuple[SimTable, object, VirtualClock]) -> None:
    sim, backend, clock = board
    backend.access_denied = True  # type: ignore[attr-defined]
    with pytest.raises(TableError) as err:
        await open_table(URL, clock=clock, usb_backend=backend, reconnect=False)
    text = str(err.value)
    assert err.value.code == "cannot_open"
    assert text.startswith("USB 设备无权限") and "tablectl install-service" in text and "plugdev" in text


async def test_a_kernel_driver_on_the_board_is_detached(board: tuple[SimTable, object, VirtualClock],
                                                        caplog: pytest.LogCaptureFixture) -> None:
    """cdc_acm or ch341 bound to interface 0: Linux refuses the configuration with EBUSY. It was
    never detached: every open failed, the service retried forever. Detaching is said once, with the way
    out for a board that is a serial port after all (its bytes go through that driver, not vendor bulk)."""
    sim, backend, clock = board
    backend.kernel_driver = True  # type: ignore[attr-defined]
    table = await open_table(URL, clock=clock, usb_backend=backend, reconnect=False)
    try:
        assert table.info.serial == sim.serial
        assert backend.claimed and not backend.kernel_driver  # type: ignore[attr-defined]
        await table.buzzer(40)
        assert sim.buzzes == [40]
        said = [r.getMessage() for r in caplog.records if r.name == "drivers.usb_transport"]
        assert len(said) == 1 and "detached the kernel driver" in said[0] and "/dev/serial/by-id/" in said[0]
    finally:
        await table.close()


async def test_a_board_held_by_another_program_says_so(board: tuple[SimTable, object, VirtualClock]) -> None:
    """Claimed at open, not at the first transfer: the refusal is said at once, in words, instead of a
    link that opened and went down at its first byte ("read failed ([Errno 16] Resource busy)")."""
    sim, backend, clock = board
    backend.other_program = True  # type: ignore[attr-defined]
    with pytest.raises(TableError) as err:
        await open_table(URL, clock=clock, usb_backend=backend, reconnect=False)
    text = str(err.value)
    assert err.value.code == "port_busy"
    assert text.startswith("USB 设备被内核驱动或其他程序占用") and "/dev/serial/by-id/" in text


async def test_a_halted_endpoint_is_cleared_without_dropping_the_link(
        board: tuple[SimTable, object, VirtualClock]) -> None:
    """The board stalls its IN endpoint (a firmware's overrun): the host clears the halt and reads on, the
    link resends what the stall lost. It took the link down and up (the display's 牌桌断开) each time."""
    from tablesim.usb import EP_IN, EP_OUT

    sim, backend, clock = board
    table = await open_table(URL, clock=clock, usb_backend=backend)
    try:
        backend.stalled.update({EP_IN, EP_OUT})  # type: ignore[attr-defined]
        await table.buzzer(30)
        await table.buzzer(31)
        assert sim.buzzes == [30, 31]
        assert not backend.stalled  # type: ignore[attr-defined]
        assert table.reconnects == 0 and table.health.up
    finally:
        await table.close()


@pytest.mark.parametrize("url", ["usb://1a86", "usb://1a86:75", "usb://1g86:7523", "usb://1a86:7523/x",
                                 "usb://1a86:7523/1/2", "usb://1a86-7523", "usb://"])
async def test_a_malformed_usb_url_shows_the_form(url: str, no_leaks: None) -> None:
    with pytest.raises(TransportError) as err:
        await open_transport(url)
    assert err.value.code == "bad_url"
    text = str(err.value)
    assert text.startswith("USB 地址有误") and "usb://VID:PID" in text and "usb://1a86:7523" in text


async def test_a_board_left_unplugged_is_logged_once_not_at_each_try(
        libusb: None, no_leaks: None, caplog: pytest.LogCaptureFixture) -> None:
    """The service connects again and again (each connect retrying within it): every try logged the same
    line at info, the journal filled with it all day. Said once; said again when the reason changes."""
    import logging

    from drivers.clock import SystemClock

    caplog.set_level(logging.INFO, logger="drivers.table")
    for _ in range(2):  # as the service's link loop: a fresh connect after the last gave up
        with pytest.raises(TableError):
            await open_table("usb://1a86:0002", clock=SystemClock(), connect_timeout=0.5)
    said = [r for r in caplog.records if r.levelno >= logging.INFO and "1a86:0002" in r.getMessage()]
    assert len(said) == 1 and "no USB device 1a86:0002 plugged in" in said[0].getMessage()


async def test_bytes_the_board_took_inside_the_write_are_not_left_in_flight(no_leaks: None) -> None:
    """A board takes a bulk OUT transfer before libusb's write returns (the virtual backend hands it to the
    simulator inside `bulk_write`). The transport counted the bytes in flight only after the write returned,
    after the board had counted them taken: they stayed in flight, and each jump of an auto-advancing clock
    waited `HOLD_LIMIT` real seconds for them (test_reconnect's usb case: 16-18 s; 0.5 s counted first)."""
    import asyncio

    from drivers.clock import LEDGER

    LEDGER.forget()  # what earlier tests left unread: a balance above 0 hid the miscount (taken, then added back)
    clock = VirtualClock()  # moved by nobody: the board says its boot RESET once and then only listens
    sim = SimTable(seed=4, clock=clock)
    backend = await sim.serve_usb(0x1A86, 0x7523)
    transport = await open_transport(URL, usb_backend=backend)
    link = sim._conns[0].link  # type: ignore[attr-defined]  # the board's end: it counts the junk it took
    junk = b"not a frame"  # no SYNC: the board takes it and answers nothing
    try:
        assert await asyncio.wait_for(transport.read(), 5.0)  # the boot RESET, counted read before it is posted
        before = LEDGER.in_flight  # 0: nothing on its way either way
        transport.write(junk)
        async with asyncio.timeout(5.0):
            while link.health.junk_bytes < len(junk):  # the board has them (real threads: real time)
                await asyncio.sleep(0.001)
    finally:
        await transport.close()  # its writer ends the write it is in before it stops
        await sim.close()
    assert LEDGER.in_flight == before

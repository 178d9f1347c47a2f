"""One seam for every byte channel: pyserial URLs (path, socket://, loop://) and USB bulk via pyusb."""

from __future__ import annotations

import asyncio

import pytest

from drivers.clock import VirtualClock
from drivers.errors import TableError, TransportError
from drivers.table import open_table
from drivers.transport import open_transport
from drivers.usb_transport import parse_usb_url
from tablesim import SimTable


async def read_exactly(t, n: int) -> bytes:  # type: ignore[no-untyped-def]
    out = b""
    while len(out) < n:
        out += await asyncio.wait_for(t.read(), 5)
    return out


async def test_loop_url_echoes_through_the_threaded_transport(no_leaks: None) -> None:
    t = await open_transport("loop://")
    try:
        t.write(b"\xa5\x5a hello")
        assert await read_exactly(t, 8) == b"\xa5\x5a hello"
    finally:
        await t.close()


async def test_socket_url_moves_bytes_and_reports_the_far_end_closing(no_leaks: None) -> None:
    got: asyncio.Queue[bytes] = asyncio.Queue()
    writers = []

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writers.append(writer)
        await got.put(await reader.read(100))
        writer.write(b"pong")
        await writer.drain()

    server = await asyncio.start_server(serve, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    t = await open_transport(f"socket://127.0.0.1:{port}")
    try:
        t.write(b"ping")
        assert await asyncio.wait_for(got.get(), 5) == b"ping"
        assert await read_exactly(t, 4) == b"pong"
        writers[0].close()
        with pytest.raises(TransportError) as closed:
            for _ in range(10):
                await asyncio.wait_for(t.read(), 5)
        assert closed.value.code == "unplugged"
    finally:
        await t.close()
        server.close()
        await server.wait_closed()


async def test_a_missing_device_is_a_clear_error(no_leaks: None) -> None:
    with pytest.raises(TransportError, match="cannot open /dev/ttyNOPE") as err:
        await open_transport("/dev/ttyNOPE")
    assert err.value.code == "cannot_open"
    with pytest.raises(TransportError, match="bad USB URL"):
        await open_transport("usb://12:34")
    assert parse_usb_url("usb://1A86:7523/1") == (0x1A86, 0x7523, 1)


@pytest.mark.parametrize("url", ["socket://127.0.0.1:99999", "socket://127.0.0.1", "socket://127.0.0.1:abc",
                                 "socket://:7777", "rfc2217://table", "socket://127.0.0.1:0"])
async def test_a_socket_url_without_a_host_and_a_port_is_named(url: str, no_leaks: None) -> None:
    """pyserial said "'debug|info|warning|error'" (`probe socket://h:99999`) or "'<=' not supported
    between instances of 'int' and 'NoneType'" (no port)."""
    with pytest.raises(TransportError, match="HOST:PORT with PORT 1..65535") as err:
        await open_transport(url)
    assert err.value.code == "bad_url"


async def test_the_table_over_tcp(no_leaks: None) -> None:
    clock = VirtualClock(auto=True)
    sim = SimTable(seed=2, clock=clock)
    port = await sim.serve_tcp(0)
    table = await open_table(f"socket://127.0.0.1:{port}", clock=clock)
    try:
        assert table.info.serial == sim.serial
        await table.start_shuffle()
        await table.wait_phase("ready", timeout=100)
    finally:
        await table.close()
        await sim.close()
        await clock.close()


async def test_over_tcp_the_hosts_acks_go_at_once_and_the_table_resends_nothing(no_leaks: None) -> None:
    """TCP_NODELAY on a socket:// table: with Nagle's algorithm the host's second small write (an
    ACK right after another: identify's reply and the hello replayed behind it) waited for the first
    one's TCP acknowledgement, past the table's 25 ms retransmission floor, and the table resent a
    frame already acknowledged. Real time, a real socket; the host's side at the byte level."""
    from drivers.clock import SystemClock
    from drivers.conformance import RawHost

    sim = SimTable(seed=4, clock=SystemClock())
    port = await sim.serve_tcp(0)
    transport = await open_transport(f"socket://127.0.0.1:{port}")
    host = RawHost(transport)
    try:
        for _ in range(3):
            await host.reset()
            await host.identify()  # identity and the replayed hello, back to back: two ACKs at once
            await asyncio.sleep(0.15)  # a resend would be due after 25 ms
        assert [c.link.health.retransmits for c in sim._conns] == [0]
    finally:
        await host.close()
        await transport.close()
        await sim.close()


async def test_the_table_over_usb_with_a_virtual_pyusb_backend(no_leaks: None) -> None:
    # threads move USB bytes, so give the virtual clock more real time per step
    clock = VirtualClock(auto=True, quantum=0.005)
    sim = SimTable(seed=4, clock=clock)
    backend = await sim.serve_usb(0x1A86, 0x7523)
    with pytest.raises(TableError, match="no USB device 1a86:0001"):
        await open_table("usb://1a86:0001", clock=clock, usb_backend=backend, reconnect=False)
    table = await open_table("usb://1a86:7523", clock=clock, usb_backend=backend)
    try:
        assert table.info.serial == sim.serial
        await table.buzzer(50)
        sim.unplug(2.0)  # the device vanishes from the bus and comes back
        await table.wait_for_event("link_down", timeout=30)
        await table.wait_for_event("link_up", timeout=60)
        await table.buzzer(60)
        assert sim.buzzes == [50, 60]
    finally:
        await table.close()
        await sim.close()
        await clock.close()


@pytest.mark.filterwarnings("ignore:set(Daemon|Name):DeprecationWarning")  # pyserial 3.5's own thread setup
async def test_rfc2217_url_through_a_real_telnet_com_port_server(no_leaks: None) -> None:
    """pyserial's own RFC 2217 server side (PortManager) over a real socket, its port a loop://."""
    import socket
    import threading

    import serial
    import serial.rfc2217

    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    stop = threading.Event()

    def serve() -> None:
        conn, _ = listener.accept()
        conn.settimeout(0.05)
        ser = serial.serial_for_url("loop://", timeout=0.05)

        class Sock:
            def write(self, data: bytes) -> None:
                conn.sendall(data)

        manager = serial.rfc2217.PortManager(ser, Sock())
        try:
            while not stop.is_set():
                try:
                    data = conn.recv(1024)
                    if not data:
                        break
                    ser.write(b"".join(manager.filter(data)))
                except TimeoutError:
                    pass
                echoed = ser.read(ser.in_waiting or 0)
                if echoed:
                    conn.sendall(b"".join(manager.escape(echoed)))
        except OSError:
            pass
        finally:
            ser.close()
            conn.close()

    server = threading.Thread(target=serve, daemon=True)
    server.start()
    t = await open_transport(f"rfc2217://127.0.0.1:{port}")
    try:
        t.write(b"\xa5\x5a\xff telnet IAC is escaped")
        assert await read_exactly(t, 25) == b"\xa5\x5a\xff telnet IAC is escaped"
    finally:
        await t.close()
        stop.set()
        await asyncio.to_thread(server.join, 5)
        listener.close()

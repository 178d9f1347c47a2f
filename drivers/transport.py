"""One seam for every byte channel to a table: `open_transport(url)` (serial, TCP, RFC 2217, loop, USB).

Transports only move bytes; the protocol lives in `drivers.link`. Serial ports and sockets
are read with `loop.add_reader` on their file descriptor (no thread, so a simulator on a pty
and the driver share one event loop); the URL handlers without a usable descriptor
(`loop://`, `rfc2217://`) and USB run a reader thread confined inside the transport.
"""

from __future__ import annotations

import asyncio
import errno
import logging
import os
import queue
import threading
from typing import Any, Protocol

from drivers.clock import LEDGER, tcp_end, toward_table
from drivers.errors import TransportError

log = logging.getLogger(__name__)
DEFAULT_BAUD = 115200


class Transport(Protocol):
    """A byte channel: `read()` waits for bytes, `write()` never blocks, errors are TransportError."""

    url: str

    async def read(self) -> bytes: ...

    def write(self, data: bytes) -> None: ...

    async def close(self) -> None: ...


class _QueueReader:
    """Shared read side: bytes and the closing error arrive in an asyncio queue."""

    def __init__(self) -> None:
        self._q: asyncio.Queue[bytes | BaseException] = asyncio.Queue()
        self._error: BaseException | None = None

    async def read(self) -> bytes:
        if self._error is not None and self._q.empty():
            raise self._error
        item = await self._q.get()
        if isinstance(item, BaseException):
            self._error = item
            raise item
        return item


class FdTransport(_QueueReader):
    """A pyserial port whose file descriptor the event loop watches (tty, pty, `socket://`)."""

    def __init__(self, url: str, ser: Any) -> None:
        super().__init__()
        self.url = url
        self._ser = ser
        self._fd: int = ser.fileno()
        os.set_blocking(self._fd, False)
        # the ledger counts this connection under its name (a pty's path, a TCP connection's port here): what was
        # written toward it before this open was flushed by it (pyserial), and nothing counts once it is closed
        self._port: str | None = None
        self._to_table: str | None = None
        if "://" not in url:
            self._port = os.path.realpath(url)
        elif url.startswith("socket://") and getattr(ser, "_socket", None) is not None:
            self._port = tcp_end(ser._socket.getsockname()[1])  # as a simulator in this process names it
        if self._port is not None:
            self._to_table = toward_table(self._port)
            LEDGER.opened(self._port)
        self._discard_stale_input()
        self._loop = asyncio.get_running_loop()
        self._wbuf = bytearray()
        self._closed = False
        self._loop.add_reader(self._fd, self._on_readable)

    def _discard_stale_input(self) -> None:
        """Bytes that arrived before we opened belong to no conversation of ours: drop them."""
        while True:
            try:
                data = os.read(self._fd, 4096)
            except OSError:  # EAGAIN: nothing more; anything else shows up on the first real read
                return
            if not data:
                return
            LEDGER.read(len(data), self._port)

    def _fail(self, why: str) -> None:
        if self._closed:
            return
        self._detach()
        self._q.put_nowait(TransportError(f"{self.url}: {why}", "unplugged"))

    def _detach(self) -> None:
        self._closed = True
        if self._port is not None:
            LEDGER.closed(self._port)
        self._loop.remove_reader(self._fd)
        self._loop.remove_writer(self._fd)

    def _on_readable(self) -> None:
        try:
            data = os.read(self._fd, 4096)
        except BlockingIOError:
            return
        except OSError as exc:  # EIO: the pty's other side is gone; ECONNRESET: socket reset
            self._fail(f"read failed ({errno.errorcode.get(exc.errno or 0, exc.errno)})")
            return
        if not data:
            self._fail("closed by the other side")
            return
        LEDGER.read(len(data), self._port)
        self._q.put_nowait(data)

    def write(self, data: bytes) -> None:
        if self._closed:
            raise TransportError(f"{self.url}: write on a closed link", "closed")
        if self._wbuf:
            self._wbuf += data
            return
        try:
            n = os.write(self._fd, data)
        except BlockingIOError:
            n = 0
        except OSError as exc:
            self._fail(f"write failed ({errno.errorcode.get(exc.errno or 0, exc.errno)})")
            return
        LEDGER.wrote(n, self._to_table)
        if n < len(data):
            self._wbuf += data[n:]
            self._loop.add_writer(self._fd, self._on_writable)

    def _on_writable(self) -> None:
        try:
            n = os.write(self._fd, self._wbuf)
        except BlockingIOError:
            return
        except OSError as exc:
            self._fail(f"write failed ({errno.errorcode.get(exc.errno or 0, exc.errno)})")
            return
        LEDGER.wrote(n, self._to_table)
        del self._wbuf[:n]
        if not self._wbuf:
            self._loop.remove_writer(self._fd)

    async def close(self) -> None:
        if not self._closed:
            self._detach()
        try:
            _close_serial(self._ser)
        except OSError:
            pass


def _close_serial(ser: Any) -> None:
    """Close a pyserial port. pyserial's `socket://` close sleeps 0.3 s (`time.sleep`, "give the server some
    time" for a quick reconnect): that stopped the whole event loop, every table and the display, at each
    reconnect over TCP. The socket is closed here instead; the link's own back-off paces a reconnect."""
    sock = getattr(ser, "_socket", None)
    if sock is not None and getattr(ser, "is_open", False):
        import socket

        try:
            sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass  # the other side is gone already
        sock.close()
        ser._socket = None
        ser.is_open = False
        return
    ser.close()


class ThreadTransport(_QueueReader):
    """A byte device read and written by two threads that live and die inside this object."""

    def __init__(self, url: str, read: Any, write: Any, close: Any, *, name: str) -> None:
        super().__init__()
        self.url = url
        self._read, self._write, self._close = read, write, close
        self._loop = asyncio.get_running_loop()
        self._stop = threading.Event()
        self._wq: queue.Queue[bytes | None] = queue.Queue()
        self._threads = [threading.Thread(target=self._reader, name=f"{name}-rx", daemon=True),
                         threading.Thread(target=self._writer, name=f"{name}-tx", daemon=True)]
        for t in self._threads:
            t.start()

    def _post(self, item: bytes | BaseException) -> None:
        try:
            self._loop.call_soon_threadsafe(self._q.put_nowait, item)
        except RuntimeError:  # the loop is closed: nobody is listening any more
            self._stop.set()

    def _reader(self) -> None:
        while not self._stop.is_set():
            try:
                data = self._read()
            except Exception as exc:  # noqa: BLE001 - any driver error ends the link the same way
                if not self._stop.is_set():
                    self._post(TransportError(f"{self.url}: read failed ({exc})", "unplugged"))
                return
            if data:
                LEDGER.read(len(data))
                self._post(bytes(data))

    def _writer(self) -> None:
        while True:
            data = self._wq.get()
            if data is None or self._stop.is_set():
                return
            # counted before the write: a board (the simulator's USB backend) takes the bytes, and counts them
            # read, inside it; counted after, they stayed in flight and an auto clock waited HOLD_LIMIT at each jump
            LEDGER.wrote(len(data))
            try:
                self._write(data)
            except Exception as exc:  # noqa: BLE001
                LEDGER.read(len(data))  # not taken: nobody will read them
                self._post(TransportError(f"{self.url}: write failed ({exc})", "unplugged"))
                return

    def write(self, data: bytes) -> None:
        if self._stop.is_set():
            raise TransportError(f"{self.url}: write on a closed link", "closed")
        self._wq.put(bytes(data))

    async def close(self) -> None:
        if self._stop.is_set() and not any(t.is_alive() for t in self._threads):
            return
        self._stop.set()
        self._wq.put(None)
        await asyncio.to_thread(self._join)

    def _join(self) -> None:
        for t in self._threads:
            t.join(timeout=2.0)
        try:
            self._close()
        except Exception:  # noqa: BLE001 - closing a dead device may fail; it is closed either way
            pass


def _serial_for_url(url: str, baudrate: int) -> Any:
    import serial

    options: dict[str, Any] = {"baudrate": baudrate, "timeout": 0.05}
    if not url.startswith(("rfc2217://", "loop://")):
        options["write_timeout"] = 1.0  # rfc2217 refuses a write timeout; loop:// never blocks
    if "://" not in url:
        # one program per port: a second one (a second controller, `tablectl probe` while the
        # service runs, a serial terminal) would read half of the table's bytes and write into its
        # frames; the second open is refused instead (pyserial's flock on the device)
        options["exclusive"] = True
    try:
        return serial.serial_for_url(url, **options)
    except (serial.SerialException, ValueError, OSError, NotImplementedError) as exc:
        if "exclusively lock" in str(exc):
            raise TransportError(f"cannot open {url}: another program has the port open (a second controller, "
                                 "tablectl probe/conform, a serial terminal?); stop it first / 串口被其他程序占用",
                                 "port_busy") from None
        raise TransportError(f"{_open_hint(exc)}cannot open {url}: {exc}", "cannot_open") from None


def _open_hint(exc: BaseException) -> str:
    """The words a venue technician acts on, before the system's: a port that is not there, or not theirs."""
    import errno

    if getattr(exc, "errno", None) == errno.EACCES:
        return ("串口无权限，请把服务的用户加入 dialout 组 / no permission on the port: add the service's user to group "
                "dialout (sudo usermod -aG dialout USER; the unit of install-service has it): ")
    if getattr(exc, "errno", None) == errno.ENOENT:
        return "找不到串口，请检查连接线 / the port is not there (the cable? ls /dev/serial/by-id/): "
    return ""


def _wrap_serial(url: str, ser: Any) -> Transport:
    """Fd-watched if the port has a real descriptor; else threads inside the transport."""
    scheme = url.split("://", 1)[0] if "://" in url else ""
    if scheme in ("socket", "rfc2217"):
        _no_delay(ser)
    if scheme in ("", "socket"):
        return FdTransport(url, ser)

    def read() -> bytes:
        return bytes(ser.read(max(1, ser.in_waiting)))

    return ThreadTransport(url, read, ser.write, ser.close, name=f"serial-{scheme}")


def _no_delay(ser: Any) -> None:
    """Send each small frame at once over TCP (TCP_NODELAY). With Nagle's algorithm an ACK written
    right after another waits for the first one's TCP acknowledgement, which the peer delays: the
    table saw our ACK some 25 ms late, past its 25 ms retransmission floor, and resent frames we had
    already acknowledged (a table on a network bridge, or the simulator on TCP)."""
    sock = getattr(ser, "_socket", None)
    if sock is not None:
        import socket

        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


def check_url(url: str) -> str:
    """The transport kind a URL selects, `usb` or `serial`; TransportError if it is malformed."""
    if url.startswith("usb://"):
        from drivers.usb_transport import parse_usb_url

        parse_usb_url(url)
        return "usb"
    if not url:
        raise TransportError("empty table URL: give a device path, socket://HOST:PORT, rfc2217://, "
                             "loop:// or usb://VID:PID", "bad_url")
    if url.startswith(("socket://", "rfc2217://")):
        _check_host_port(url)
    return "serial"


def _check_host_port(url: str) -> None:
    """socket:// and rfc2217:// name a host and a port 1..65535. pyserial's own words for one that
    does not were "'debug|info|warning|error'" (a port past 65535 or not a number) and "'<=' not
    supported between instances of 'int' and 'NoneType'" (no port)."""
    from urllib.parse import urlsplit

    scheme = url.split("://", 1)[0]
    parts = urlsplit(url)
    try:
        port = parts.port
    except ValueError:
        port = None
    if not parts.hostname or port is None or not 1 <= port <= 65535:
        raise TransportError(f"地址有误 / bad table URL {url!r}: expected {scheme}://HOST:PORT with PORT 1..65535, "
                             f"e.g. {scheme}://192.168.1.50:7777", "bad_url")


async def open_transport(url: str, *, baudrate: int = DEFAULT_BAUD, usb_backend: Any = None) -> Transport:
    """Open the byte channel a URL names.

    - a device path (`/dev/ttyUSB0`, `/dev/serial/by-id/...`, a pty slave `/dev/pts/N`),
      `socket://HOST:PORT`, `rfc2217://HOST:PORT`, `loop://`: pyserial's `serial_for_url`;
    - `usb://VID:PID[/N]` (hex ids, N the N-th such device): a vendor bulk interface through pyusb; `usb_backend`
      picks a pyusb backend (tests give a virtual one).
    """
    if check_url(url) == "usb":
        from drivers.usb_transport import open_usb

        return await open_usb(url, backend=usb_backend)
    if _opens_at_once(url):
        ser = _serial_for_url(url, baudrate)
    else:  # a network round trip (rfc2217 negotiation, a remote host): keep the loop free meanwhile
        ser = await asyncio.to_thread(_serial_for_url, url, baudrate)
    return _wrap_serial(url, ser)


def _opens_at_once(url: str) -> bool:
    """Device paths (opened non-blocking), loop:// and local sockets open without waiting on anything."""
    if "://" not in url or url.startswith("loop://"):
        return True
    if url.startswith("socket://"):
        host = url[len("socket://"):].rsplit(":", 1)[0].strip("[]")
        return host in ("127.0.0.1", "localhost", "::1")
    return False

"""The simulator's cable ends: a real pseudo-terminal and a TCP server, both moving bytes only."""

from __future__ import annotations

import asyncio
import os
import tty
from collections.abc import Callable

from drivers.clock import LEDGER, tcp_end, toward_table

#: A pty's kernel buffer is small; beyond this much unread output a real UART would overrun.
MAX_BACKLOG = 64 * 1024


class PtyPort:
    """A real pty from `os.openpty()`: the driver opens `path` (the slave) with pyserial.

    The simulator keeps the slave open too, so the master never sees EIO when the driver
    closes and reopens the port (what a USB-serial adapter left plugged in looks like).
    """

    def __init__(self, on_data: Callable[[bytes], None]) -> None:
        self._loop = asyncio.get_running_loop()
        self.master, self._slave = os.openpty()
        tty.setraw(self._slave)
        os.set_blocking(self.master, False)
        self.path = os.ttyname(self._slave)
        self._key = os.path.realpath(self.path)  # the ledger counts our output only while the host has it open
        self._from_host = toward_table(self._key)  # and the host's output only while this end is open
        LEDGER.closed(self._key)  # no host has it open yet
        LEDGER.opened(self._from_host)
        self._on_data = on_data
        self._wbuf = bytearray()
        self.overruns = 0
        self._closed = False
        self._loop.add_reader(self.master, self._readable)

    def _readable(self) -> None:
        try:
            data = os.read(self.master, 4096)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            return
        if data:
            LEDGER.read(len(data), self._from_host)
            self._on_data(data)

    def write(self, data: bytes) -> None:
        if self._closed:
            return
        if self._wbuf:
            if len(self._wbuf) + len(data) > MAX_BACKLOG:
                self.overruns += 1
                return
            self._wbuf += data
            return
        try:
            n = os.write(self.master, data)
        except BlockingIOError:
            n = 0
        except OSError:
            return
        LEDGER.wrote(n, self._key)
        if n < len(data):
            self._wbuf += data[n:]
            self._loop.add_writer(self.master, self._writable)

    def _writable(self) -> None:
        try:
            n = os.write(self.master, self._wbuf)
        except BlockingIOError:
            return
        except OSError:
            self._wbuf.clear()
            n = 0
        LEDGER.wrote(n, self._key)
        del self._wbuf[:n]
        if not self._wbuf:
            self._loop.remove_writer(self.master)

    def discard_input(self) -> None:
        """Throw away what the host wrote while the cable was 'unplugged'."""
        while True:
            try:
                data = os.read(self.master, 4096)
            except OSError:
                return
            if not data:
                return
            LEDGER.read(len(data), self._from_host)

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        LEDGER.closed(self._from_host)
        self._loop.remove_reader(self.master)
        self._loop.remove_writer(self.master)
        os.close(self.master)
        os.close(self._slave)


class TcpPort:
    """A TCP server taking one client at a time (a newer client replaces the older one)."""

    def __init__(self, on_data: Callable[[bytes], None], on_connect: Callable[[], None]) -> None:
        self._on_data = on_data
        self._on_connect = on_connect
        self._server: asyncio.base_events.Server | None = None
        self._writer: asyncio.StreamWriter | None = None
        self._to_host: str | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self.refuse = False
        self.port = 0

    async def start(self, port: int, host: str) -> int:
        self._server = await asyncio.start_server(self._client, host, port)
        self.port = self._server.sockets[0].getsockname()[1]
        return self.port

    async def _client(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        # the ledger's names for this connection: by the host's port, as the host's transport names it
        to_host = tcp_end(writer.get_extra_info('peername')[1])
        from_host = toward_table(to_host)
        if self.refuse:
            LEDGER.closed(from_host)  # what the host wrote, or writes before it sees the close, is lost
            writer.close()
            return
        self.drop_client()
        LEDGER.opened(from_host, flushed=False)
        self._writer, self._to_host = writer, to_host
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)
        self._on_connect()
        try:
            while True:
                data = await reader.read(4096)
                if not data:
                    break
                LEDGER.read(len(data), from_host)
                self._on_data(data)
        except (ConnectionError, asyncio.CancelledError):
            pass
        finally:
            LEDGER.closed(from_host)
            self._tasks.discard(task)
            if self._writer is writer:
                self._writer = None
            writer.close()

    def write(self, data: bytes) -> None:
        if self._writer is not None and not self._writer.is_closing():
            self._writer.write(data)
            LEDGER.wrote(len(data), self._to_host)

    def drop_client(self) -> None:
        """Pull the cable: the current client's connection is closed."""
        if self._writer is not None:
            w, self._writer = self._writer, None
            w.close()
            for t in list(self._tasks):
                t.cancel()

    async def close(self) -> None:
        self.drop_client()
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()
            self._server = None
        for t in list(self._tasks):
            t.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

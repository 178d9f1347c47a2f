"""A venue's Wi-Fi between Chromium and the service, for the browser tests: a TCP proxy on loopback.

Real sockets, real bytes; only the air is simulated. `freeze()` is a Wi-Fi that drops without any TCP
close: the proxy keeps every connection open (and accepts new ones, as a loopback listener must) but
forwards nothing, so neither side sees a close or an error; `thaw()` delivers what was held, as TCP's
retransmissions do when the Wi-Fi comes back. `delay` holds every chunk that long each way (a slow,
crowded 2.4 GHz link), keeping the order. `cut()` resets every connection (a link that died while down).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import deque


class Wifi:
    """A proxy from `port` (loopback) to the service's port; started with `start()`, ended with `close()`."""

    def __init__(self, target_port: int, delay: float = 0.0) -> None:
        self.target_port = target_port
        self.delay = delay
        self.port = 0
        self._up = asyncio.Event()
        self._up.set()
        self._server: asyncio.base_events.Server | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._writers: set[asyncio.StreamWriter] = set()

    async def start(self) -> "Wifi":
        self._server = await asyncio.start_server(self._accept, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    def freeze(self) -> None:
        """The Wi-Fi drops: nothing passes either way, and nobody is told."""
        self._up.clear()

    def thaw(self) -> None:
        self._up.set()

    def cut(self) -> None:
        """Every connection through the proxy reset (RST), as a dead link's sockets end when it is back."""
        for w in list(self._writers):
            with contextlib.suppress(Exception):
                w.transport.abort()

    async def close(self) -> None:
        self.thaw()
        self.cut()
        if self._server is not None:
            self._server.close()
        for task in list(self._tasks):
            task.cancel()
        for task in list(self._tasks):
            with contextlib.suppress(BaseException):
                await task

    async def _accept(self, client_r: asyncio.StreamReader, client_w: asyncio.StreamWriter) -> None:
        self._writers.add(client_w)
        try:
            await self._up.wait()  # a connection opened while down is held, not refused
            service_r, service_w = await asyncio.open_connection("127.0.0.1", self.target_port)
        except (OSError, asyncio.CancelledError):
            client_w.transport.abort()
            self._writers.discard(client_w)
            return
        self._writers.add(service_w)
        for reader, writer in ((client_r, service_w), (service_r, client_w)):
            task = asyncio.ensure_future(self._pump(reader, writer))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _pump(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        held: deque[tuple[float, bytes]] = deque()
        more = asyncio.Event()

        async def carry() -> None:
            while True:
                while not held:
                    more.clear()
                    await more.wait()
                at, data = held[0]
                if data == b"":
                    break
                wait = at + self.delay - time.monotonic()
                if wait > 0:
                    await asyncio.sleep(wait)
                await self._up.wait()
                held.popleft()
                writer.write(data)
                await writer.drain()
            await self._up.wait()
            with contextlib.suppress(OSError):
                writer.write_eof()

        carrier = asyncio.ensure_future(carry())
        try:
            while True:
                data = await reader.read(65536)
                held.append((time.monotonic(), data))
                more.set()
                if not data:
                    break
            await carrier
        except (OSError, asyncio.CancelledError):
            pass
        finally:
            carrier.cancel()
            with contextlib.suppress(BaseException):
                await carrier
            self._writers.discard(writer)
            writer.transport.abort()

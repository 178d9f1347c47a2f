"""The `remote-control` dialect (protocol.md §10): five-byte frames `0xFF cmd p1 p2 sum`, echoed.

Such a table says nothing of itself: no identity, no events, no dice. This driver offers the
same API as `Table` and reports every missing capability as missing; commands it cannot send
raise `TableError(code="unsupported")` instead of pretending.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from drivers.clock import Clock
from drivers.errors import TableError, TransportError
from drivers.link import LinkHealth
from drivers.table import BACKOFF_FIRST, STEADY_LINK, BaseTable, Capabilities, TableInfo, TableStatus
from drivers.transport import Transport, open_transport

log = logging.getLogger(__name__)

START = 0xFF
SHUFFLE, LIFT, PING = 0x01, 0x02, 0x03
ECHO_TIMEOUT = 0.2
TRIES = 3
KEEPALIVE = 2.0
BACKOFF_MAX = 5.0


def checksum(cmd: int, p1: int, p2: int) -> int:
    return (cmd + p1 + p2) & 0xFF


def frame(cmd: int, p1: int = 0, p2: int = 0) -> bytes:
    return bytes((START, cmd, p1, p2, checksum(cmd, p1, p2)))


class RemoteTable(BaseTable):
    """A table driven like its remote control: shuffle, raise, lower; nothing else is known."""

    def __init__(self, url: str, clock: Clock, *, transport_options: dict[str, Any] | None = None) -> None:
        super().__init__(clock)
        self.url = url
        self._options = transport_options or {}
        self.health = LinkHealth()
        self.info = TableInfo(0, "", "", Capabilities(), "remote-control", url)
        self._transport: Transport | None = None
        self._reader: asyncio.Task[None] | None = None
        self._keeper: asyncio.Task[None] | None = None
        self._buf = bytearray()
        self._echo: asyncio.Queue[bytes] = asyncio.Queue()
        self._lock = asyncio.Lock()
        self._closing = False
        self._closing_done = False

    async def _start(self) -> None:
        await self._connect()
        self._keeper = asyncio.get_running_loop().create_task(self._keepalive(), name=f"remote {self.url}")

    @property
    def link_task(self) -> asyncio.Task[None] | None:
        return self._keeper

    async def _connect(self) -> None:
        self._transport = await open_transport(self.url, **self._options)
        self._buf.clear()
        self._echo = asyncio.Queue()
        self._reader = asyncio.get_running_loop().create_task(self._read_loop(self._transport))
        try:
            await self._exchange(frame(PING))
        except TableError:
            await self._drop_transport()
            raise
        self.health.up = True
        self._emit("link_up", {"url": self.url, "dialect": "remote-control"})

    async def _read_loop(self, transport: Transport) -> None:
        try:
            while True:
                self._scan(await transport.read())
        except TransportError:
            return

    def _scan(self, data: bytes) -> None:
        """Pick valid five-byte frames out of the stream; a bad sum skips one byte (resync)."""
        self.health.last_heard = self.clock.now()
        buf = self._buf
        buf += data
        while True:
            start = buf.find(START)
            if start < 0:
                self.health.junk_bytes += len(buf)
                buf.clear()
                return
            self.health.junk_bytes += start
            del buf[:start]
            if len(buf) < 5:
                return
            if checksum(buf[1], buf[2], buf[3]) != buf[4]:
                self.health.crc_errors += 1
                del buf[:1]
                continue
            self.health.frames_received += 1
            self._echo.put_nowait(bytes(buf[:5]))
            del buf[:5]

    async def _exchange(self, raw: bytes) -> None:
        """Send a frame until the table echoes it (3 tries, 200 ms each).

        An echo that came after its exchange ended (a slow table echoing a frame and its resend) is
        dropped first: it answered nothing sent now, and it made the next identical command look done."""
        async with self._lock:
            while not self._echo.empty():
                self._echo.get_nowait()
            for attempt in range(TRIES):
                if self._transport is None:
                    raise TableError("the table is not connected", "link_down")
                if attempt:
                    self.health.retransmits += 1
                t0 = self.clock.now()
                try:
                    self._transport.write(raw)
                except TransportError as exc:
                    raise TableError(str(exc), "link_down") from None
                self.health.frames_sent += 1
                try:
                    while True:
                        got = await self.clock.wait_for(self._echo.get(), ECHO_TIMEOUT)
                        if got == raw:
                            self.health.rtt = self.clock.now() - t0
                            return
                except TimeoutError:
                    continue
            raise TableError(f"the table did not echo {raw.hex(' ')} after {TRIES} tries", "no_answer")

    async def _keepalive(self) -> None:
        """Ping now and then; on silence report link_down and reconnect with backoff. The backoff doubles
        over failed tries and over links that fell within `STEADY_LINK` of coming up (a board that echoes
        and drops: it was linked again every couple of seconds, the wait started over at each link up);
        a link that held is tried again after the first wait."""
        backoff = BACKOFF_FIRST
        up_at = self.clock.now()
        while not self._closing:
            await self.clock.sleep(KEEPALIVE if self.health.up else backoff)
            try:
                if self.health.up:
                    await self._exchange(frame(PING))
                else:
                    # counted as the mahjong-link driver counts its tries: the health panel's reconnects, and
                    # the life of a link waiting for a table that is not there (`Controller.link_stuck`)
                    self.health.reconnects += 1
                    await self._drop_transport()
                    await self._connect()
                    up_at = self.clock.now()
            except TableError as exc:
                if self.health.up:
                    self.health.up = False
                    self._emit("link_down", {"reason": exc.code})
                    held = self.clock.now() - up_at
                    if held >= STEADY_LINK:
                        backoff = BACKOFF_FIRST
                        continue
                    log.info("table %s: the link fell %.1f s after it came up; next try in %g s",
                             self.url, held, backoff * 2)
                backoff = min(backoff * 2, BACKOFF_MAX)

    async def _command(self, name: str, **fields: Any) -> dict[str, Any]:
        raw = {"start_shuffle": frame(SHUFFLE), "raise_walls": frame(LIFT, 1),
               "lower_walls": frame(LIFT, 0)}.get(name)
        if raw is None:
            raise TableError(f"{name}: a remote-control table has no such command", "unsupported")
        await self._exchange(raw)
        return {}

    async def status(self) -> TableStatus:
        raise TableError("status: a remote-control table cannot report its state", "unsupported")

    async def close(self) -> None:
        self._closing = True
        if self._keeper is not None:
            self._keeper.cancel()
            await asyncio.gather(self._keeper, return_exceptions=True)
            self._keeper = None
        await self._drop_transport()
        if not self._closing_done:
            self._closing_done = True
            self._end_events()

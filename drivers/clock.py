"""Clocks injected into every timed part: the real monotonic clock, and a virtual one for tests."""

from __future__ import annotations

import asyncio
import heapq
import itertools
import threading
import time
from collections.abc import Awaitable, Callable
from typing import TypeVar

T = TypeVar("T")


def tcp_end(host_port: int) -> str:
    """The ledger's name of a TCP connection's host end, by the host's port (both sides know it)."""
    return f"tcp:{host_port}"


def toward_table(end: str) -> str:
    """The ledger's name of a connection's other direction: what the host writes toward the table."""
    return f"{end}>table"


#: The closed ends an `IOLedger` remembers: a simulator writes toward an end it just lost, never one long gone.
CLOSED_KEPT = 256


class IOLedger:
    """Bytes written into a channel whose other end this same process reads, not yet read.

    Transports and the simulator's ports count what they write and read. While bytes are in
    flight inside the kernel (a pty's buffer work, a loopback socket, a reader thread), a
    `VirtualClock` in auto mode does not jump: otherwise, on a loaded machine, virtual time
    could run past a timeout before a reply that was already sent arrives.

    Bytes on a connection are counted under its name (`port`): a pty's path, a TCP connection's host-side
    port, with `>table` for the host's direction. Bytes toward an end that is closed (`closed`) are not
    counted and those on their way are dropped: a pty's input is flushed by the host's open (pyserial),
    nobody reads it while the host has it closed, and a TCP connection the table refused or dropped
    takes what the host wrote with it. Counted as in flight, such bytes held each virtual-clock jump
    for `HOLD_LIMIT` real seconds (a simulator's boot RESET before the host opened: 0.25 s in each
    test on a pty; a host's RESET into a refused connection: 0.25 s a reconnect over TCP).
    """

    def __init__(self) -> None:
        self._balance = 0
        self._lock = threading.Lock()
        self._ports: dict[str, int] = {}  # each named connection's bytes in flight, in `_balance` too
        # the ends that are closed, oldest first: nothing written toward them counts. At most `CLOSED_KEPT`: a
        # table over TCP closes a new name (its connection's port) at each reconnect, for as long as it runs
        self._closed: dict[str, None] = {}

    def wrote(self, n: int, port: str | None = None) -> None:
        with self._lock:
            if port is not None:
                if port in self._closed:
                    return  # nobody in this process will read them
                self._ports[port] = self._ports.get(port, 0) + n
            self._balance += n

    def read(self, n: int, port: str | None = None) -> None:
        with self._lock:
            if port is not None:
                n = min(n, self._ports.get(port, 0))
                if n:
                    self._ports[port] -= n
            self._balance = max(0, self._balance - n)

    def opened(self, port: str, *, flushed: bool = True) -> None:
        """The reading end of `port` is open; `flushed`: what was written toward it before is gone."""
        with self._lock:
            self._closed.pop(port, None)
            if flushed:
                self._balance = max(0, self._balance - self._ports.get(port, 0))
                self._ports[port] = 0

    def closed(self, port: str) -> None:
        """The reading end of `port` closed: what was on its way to it will never be read here."""
        with self._lock:
            self._balance = max(0, self._balance - self._ports.pop(port, 0))
            self._closed[port] = None
            while len(self._closed) > CLOSED_KEPT:
                del self._closed[next(iter(self._closed))]

    @property
    def in_flight(self) -> int:
        return self._balance

    def forget(self) -> None:
        """Bytes that will never be read (flushed, or written to a far end outside this process)."""
        with self._lock:
            self._balance = 0
            self._ports = dict.fromkeys(self._ports, 0)


#: The process's ledger; in-process transports and simulator ports report to it.
LEDGER = IOLedger()


class Clock:
    """What timed code needs from time: `now()` in monotonic seconds and `await sleep(s)`.

    Code never calls `time.monotonic()` or `asyncio.sleep()` for its timing: it takes a
    Clock, so a 60-second table build is tested in milliseconds with a `VirtualClock`.
    """

    def now(self) -> float:
        raise NotImplementedError

    async def sleep(self, seconds: float) -> None:
        raise NotImplementedError

    async def wait_for(self, aw: Awaitable[T], timeout: float | None) -> T:
        """Like `asyncio.wait_for`, but the timeout runs on this clock."""
        if timeout is None:
            return await aw
        task = asyncio.ensure_future(aw)
        timer = asyncio.ensure_future(self.sleep(timeout))
        try:
            done, _ = await asyncio.wait({task, timer}, return_when=asyncio.FIRST_COMPLETED)
        except asyncio.CancelledError:
            task.cancel()
            timer.cancel()
            await asyncio.gather(task, timer, return_exceptions=True)
            raise
        if task in done:
            timer.cancel()
            await asyncio.gather(timer, return_exceptions=True)
            return task.result()
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        raise TimeoutError(f"no answer within {timeout:g} s")


class SystemClock(Clock):
    """The real clock: `time.monotonic()` and `asyncio.sleep()`."""

    def now(self) -> float:
        return time.monotonic()

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(max(0.0, seconds))


class SteadyWallClock:
    """Wall-clock seconds (for stamping events) that advance with the monotonic clock.

    A Raspberry Pi has no real-time clock: it boots with the time it last saved, and the
    system clock jumps when NTP first reaches a server, maybe in the middle of a session.
    Stamps from this clock do not jump with it, so what is measured between stamps (the turn
    timers, the session clock, a delayed broadcast) stays right for the whole run; `drift()`
    says how far the system clock has moved away from the stamps, for the record.
    """

    def __init__(self, wall: Callable[[], float] = time.time, mono: Callable[[], float] = time.monotonic,
                 anchor: float | None = None) -> None:
        self._wall, self._mono = wall, mono
        # `anchor` (stamp minus monotonic reading) continues an earlier process's stamps in this boot
        self._wall0, self._mono0 = (wall(), mono()) if anchor is None else (anchor, 0.0)

    def __call__(self) -> float:
        return self._wall0 + (self._mono() - self._mono0)

    @property
    def anchor(self) -> float:
        """Stamp minus the monotonic clock: the same for every stamp of this clock."""
        return self._wall0 - self._mono0

    def drift(self) -> float:
        """System clock minus this clock, in seconds: 0 unless the system clock was stepped."""
        return self._wall() - self()

    def not_before(self, t: float) -> float:
        """Go on from `t` where this clock reads earlier (a Pi booted with an old saved time, behind
        the record it continues): the stamps never run backwards. Returns how far it moved."""
        behind = t - self()
        if behind > 0:
            self._wall0 += behind
        return max(0.0, behind)


#: Real seconds an auto-advancing clock waits for in-flight bytes before it assumes they are lost.
HOLD_LIMIT = 0.25


class VirtualClock(Clock):
    """A clock that only moves when told to, or (with `auto=True`) jumps to the next timer.

    Like MPF's TimeTravelLoop: with `auto=True`, whenever tasks sleep on this clock a helper
    lets the event loop run `spins` iterations and `quantum` real seconds of real I/O (a
    pty round trip through both sides is a handful of iterations), and then jumps virtual
    time to the earliest sleeper's deadline. Real pty and socket I/O still flows, so a test of a
    60-second build over a real pty takes some milliseconds and stays deterministic in
    virtual time. Without `auto`, tests call `await clock.advance(dt)`.
    """

    def __init__(self, start: float = 1000.0, *, auto: bool = False, quantum: float = 0.003,
                 spins: int = 30) -> None:
        self._now = float(start)
        self._auto = auto
        self._quantum = quantum
        self._spins = spins
        self._heap: list[tuple[float, int, asyncio.Future[None]]] = []
        self._counter = itertools.count()
        self._driver: asyncio.Task[None] | None = None

    def now(self) -> float:
        return self._now

    async def sleep(self, seconds: float) -> None:
        loop = asyncio.get_running_loop()
        fut: asyncio.Future[None] = loop.create_future()
        heapq.heappush(self._heap, (self._now + max(0.0, seconds), next(self._counter), fut))
        if self._auto and (self._driver is None or self._driver.done()):
            self._driver = loop.create_task(self._drive(), name="virtual-clock")
        await fut

    def pending(self) -> int:
        """Sleepers still waiting (cancelled ones excluded)."""
        return sum(1 for _, _, f in self._heap if not f.done())

    def next_deadline(self) -> float | None:
        self._drop_cancelled()
        return self._heap[0][0] if self._heap else None

    def _drop_cancelled(self) -> None:
        while self._heap and self._heap[0][2].done():
            heapq.heappop(self._heap)

    def _fire_due(self) -> int:
        fired = 0
        while self._heap and self._heap[0][0] <= self._now:
            _, _, fut = heapq.heappop(self._heap)
            if not fut.done():
                fut.set_result(None)
                fired += 1
        return fired

    async def advance(self, seconds: float) -> None:
        """Move time forward by `seconds`, waking sleepers in deadline order on the way.

        Before each step the loop runs a few iterations, so tasks just created get to
        schedule their first sleep before time passes them by.
        """
        target = self._now + seconds
        while True:
            for _ in range(10):
                await asyncio.sleep(0)
            nxt = self.next_deadline()
            if nxt is None or nxt > target:
                break
            self._now = max(self._now, nxt)
            self._fire_due()
        self._now = target
        for _ in range(10):
            await asyncio.sleep(0)

    async def close(self) -> None:
        """Stop the auto-advance helper (tests call this so no task outlives them)."""
        if self._driver is not None:
            self._driver.cancel()
            await asyncio.gather(self._driver, return_exceptions=True)
            self._driver = None

    async def _drive(self) -> None:
        held = 0.0
        while True:
            for _ in range(self._spins):  # loop iterations: ready I/O is handled in each
                await asyncio.sleep(0)
            await asyncio.sleep(self._quantum)  # and a little real time for threads and sockets
            if LEDGER.in_flight and held < HOLD_LIMIT:
                held += self._quantum  # bytes are on their way inside this process: time waits
                continue
            if held >= HOLD_LIMIT:
                LEDGER.forget()  # nobody reads them (a flushed buffer, a closed port): stop waiting
            held = 0.0
            nxt = self.next_deadline()
            if nxt is None:
                return
            self._now = max(self._now, nxt)
            self._fire_due()

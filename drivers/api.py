"""What the controller sees of any table, whatever its dialect: identity, events, commands."""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

from drivers.clock import Clock
from drivers.link import LinkHealth
from drivers.transport import Transport


@dataclass(frozen=True)
class Capabilities:
    """What the machine can do, as it says in `identity`; a dialect that cannot say reports none."""

    tile_counts: tuple[int, ...] = ()
    wall_lengths: dict[int, tuple[int, int, int, int]] = field(default_factory=dict)
    dice: int = 0
    machine_dealt: bool = False
    seat_buttons: bool = False
    seat_lights: bool = False
    buzzer: bool = False
    tile_counter: bool = False

    def as_dict(self) -> dict[str, Any]:
        return {"tile_counts": list(self.tile_counts),
                "wall_lengths": {str(k): list(v) for k, v in self.wall_lengths.items()},
                "dice": self.dice, "machine_dealt": self.machine_dealt, "seat_buttons": self.seat_buttons,
                "seat_lights": self.seat_lights, "buzzer": self.buzzer, "tile_counter": self.tile_counter}


@dataclass(frozen=True)
class TableInfo:
    """The table's identity after the handshake."""

    protocol_version: int
    firmware: str
    serial: str
    capabilities: Capabilities
    dialect: str
    url: str
    boot_id: int = 0

    def as_dict(self) -> dict[str, Any]:
        return {"protocol_version": self.protocol_version, "firmware": self.firmware, "serial": self.serial,
                "dialect": self.dialect, "url": self.url, "boot_id": self.boot_id,
                "capabilities": self.capabilities.as_dict()}


@dataclass(frozen=True)
class TableEvent:
    """One thing the table reported. `seq` is the table's event number (0: heartbeat, link health)."""

    type: str
    fields: dict[str, Any]
    seq: int
    at: float


@dataclass(frozen=True)
class TableStatus:
    """The table's state as `status` reports it."""

    phase: str
    tile_count: int
    next_tile_count: int
    set_ready: bool
    dealer: str | None
    faults: tuple[int, ...]
    last_event: int
    uptime_ms: int


class BaseTable:
    """The surface every dialect offers; the controller only sees this."""

    info: TableInfo
    health: LinkHealth
    clock: Clock

    def __init__(self, clock: Clock) -> None:
        self.clock = clock
        self._transport: Transport | None = None
        self._reader: asyncio.Task[None] | None = None  # the dialect's loop reading `_transport`
        self._events: asyncio.Queue[TableEvent | None] = asyncio.Queue()  # None: closed
        self._subscribers: list[asyncio.Queue[TableEvent]] = []
        self.phase: str | None = None
        self.faults: dict[int, dict[str, Any]] = {}
        self.history: deque[TableEvent] = deque(maxlen=1024)  # recent numbered events, for late waiters

    def _emit(self, type_: str, fields: dict[str, Any], seq: int = 0) -> None:
        ev = TableEvent(type_, fields, seq, self.clock.now())
        if seq:
            self.history.append(ev)
        if type_ == "phase":
            self.phase = fields["phase"]
        elif type_ == "fault_raised":
            self.faults[fields["code"]] = fields
        elif type_ == "fault_cleared":
            self.faults.pop(fields["code"], None)
        self._events.put_nowait(ev)
        for q in self._subscribers:
            q.put_nowait(ev)

    async def _drop_transport(self) -> None:
        """Stop reading and close the transport (an unplug, a close, a failed handshake)."""
        if self._reader is not None:
            self._reader.cancel()
            await asyncio.gather(self._reader, return_exceptions=True)
            self._reader = None
        if self._transport is not None:
            t, self._transport = self._transport, None
            await t.close()

    async def events(self) -> AsyncIterator[TableEvent]:
        """Every event, in order, from the moment the table was opened, until `close()`.

        One consumer (the controller); a display beside it uses `subscribe()`.
        """
        while True:
            ev = await self._events.get()
            if ev is None:
                self._events.put_nowait(None)  # a second iteration after close ends at once too
                return
            yield ev

    def next_waiting(self) -> TableEvent | None:
        """The next event already queued for `events()`, taken without waiting, or None (none, or closed): the
        controller writes the events waiting behind one together (a group commit)."""
        try:
            ev = self._events.get_nowait()
        except asyncio.QueueEmpty:
            return None
        if ev is None:
            self._events.put_nowait(None)  # the close stays for `events()` to end on
        return ev

    @property
    def link_task(self) -> asyncio.Task[None] | None:
        """The dialect's task that keeps the link (reads, reconnects), for naming where it is held when stuck."""
        return None

    def events_waiting(self) -> int:
        """Events queued for `events()` and not yet taken (a reconnect's replay still coming)."""
        return self._events.qsize()

    def _end_events(self) -> None:
        self._events.put_nowait(None)

    def subscribe(self) -> asyncio.Queue[TableEvent]:
        """An extra queue that receives every event from now on (for a display beside the controller)."""
        q: asyncio.Queue[TableEvent] = asyncio.Queue()
        self._subscribers.append(q)
        return q

    async def wait_for_event(self, type_: str, timeout: float | None = None, *, after: int | None = None,
                             **match: Any) -> TableEvent:
        """The next event of a type (and field values); with `after=N`, the first numbered above N, already
        received or to come (so a caller that sent a command first cannot miss its event, nor take an older one
        that arrives after the call)."""
        def matches(ev: TableEvent) -> bool:
            return (ev.type == type_ and (after is None or ev.seq > after)
                    and all(ev.fields.get(k) == v for k, v in match.items()))

        if after is not None:
            for ev in self.history:
                if matches(ev):
                    return ev
        q = self.subscribe()
        try:
            async def _next() -> TableEvent:
                while True:
                    ev = await q.get()
                    if matches(ev):
                        return ev
            return await self.clock.wait_for(_next(), timeout)
        finally:
            self._subscribers.remove(q)

    async def wait_phase(self, phase: str, timeout: float | None = None) -> None:
        """Until the table reports `phase` (returns at once if it is already there)."""
        if self.phase == phase:
            return
        await self.wait_for_event("phase", timeout, phase=phase)

    # The commands; each dialect implements `_command`.
    async def _command(self, name: str, **fields: Any) -> dict[str, Any]:
        raise NotImplementedError

    async def set_tile_count(self, count: int) -> None:
        await self._command("set_tile_count", count=count)

    async def start_shuffle(self) -> None:
        await self._command("start_shuffle")

    async def raise_walls(self) -> None:
        await self._command("raise_walls")

    async def lower_walls(self) -> None:
        await self._command("lower_walls")

    async def roll_dice(self, seat: str = "E") -> None:
        """Throw the dice for a side, as if its button was pressed; the values come as a `dice` event."""
        await self._command("roll_dice", seat=seat)

    async def set_seat_lights(self, dealer: str | None = None, prevalent: str | None = None,
                              turn: str | None = None) -> None:
        await self._command("seat_lights", dealer=dealer, prevalent=prevalent, turn=turn)

    async def buzzer(self, ms: int) -> None:
        await self._command("buzzer", ms=ms)

    async def reset(self) -> None:
        await self._command("reset")

    async def status(self) -> TableStatus:
        raise NotImplementedError

    async def close(self) -> None:
        raise NotImplementedError

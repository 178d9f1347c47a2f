"""The machine under the table: phases, the two tile sets, motors, dice and faults, on the clock.

It knows nothing of the wire: the firmware (`tablesim.sim`) calls its commands by the
protocol's message names (`raise_walls()`, `roll_dice(seat=...)`) and receives what happens
through `emit(event, **fields)`. A brown-out throws the whole object away and builds a new one.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable, Coroutine
from typing import Any

from drivers.faults import BY_CODE, BY_ID, FaultKind
from drivers.messages import BUTTONS
from tablesim.physics import SIDES, WALL_LENGTHS, Timings, arrange

Emit = Callable[..., None]
Spawn = Callable[[Coroutine[Any, Any, Any], str], "asyncio.Task[Any]"]

#: Faults a `reset` clears: latched ones whose cause the attendant removed before pressing it.
CLEARED_BY_RESET = (BY_ID["jam"].code, BY_ID["dice"].code)


class SimError(ValueError):
    """A simulator call that makes no sense (unknown seat, fault, dialect); the text says why."""


class Refused(Exception):
    """A command the table refuses: the `result` code name and the reason shown to people."""

    def __init__(self, code: str, text: str) -> None:
        super().__init__(text)
        self.code, self.text = code, text


def fault_kind(fault: str | int) -> FaultKind:
    """A fault by id (`jam`) or code (`1`); SimError lists the known ids."""
    if isinstance(fault, int) or fault.isdigit():
        kind = BY_CODE.get(int(fault))
    else:
        kind = BY_ID.get(fault)
    if kind is None:
        raise SimError(f"unknown fault {fault!r}; known: {', '.join(BY_ID)}")
    return kind


def check_seat(seat: str) -> str:
    if seat not in SIDES:
        raise SimError(f"seat {seat!r} is not one of {', '.join(SIDES)}")
    return seat


class Mechanism:
    """Disc, ring, chain, pushers and lifts as one state machine; motors run on the clock.

    Phases: idle → building → ready → raising → walls_raised → playing → lowering →
    ready (or building, until the next set is done). The next set is built during play.
    A fault pauses the motors of the part it blocks; their remaining time resumes after it.
    """

    def __init__(self, clock: Any, timings: Timings, *, emit: Emit, spawn: Spawn, tile_count: int,
                 dice: int, rng_wall: random.Random, rng_dice: random.Random, ruleset: Any = None,
                 autopilot: bool = False, buzzes: list[int] | None = None) -> None:
        self.clock = clock
        self.timings = timings
        self._emit = emit
        self._spawn = spawn
        self._rng_wall = rng_wall
        self._rng_dice = rng_dice
        self.ruleset = ruleset
        self.autopilot = autopilot
        self.dice_count = dice
        self.phase = "idle"
        self.tile_count = tile_count        # of the set built last
        self.next_tile_count = tile_count   # the setting for the next build
        self.faults: dict[int, str] = {}    # code -> where
        self.built: dict[str, str] | None = None  # the set waiting under the table
        self.up: dict[str, str] | None = None     # the set on the table surface
        self.dealer = "E"
        self.prevalent: str | None = "E"
        self.turn: str | None = None
        self.buzzes = buzzes if buzzes is not None else []
        self.tiles_off = 0  # tiles lost (< 0) or foreign tiles added (> 0) before the next build
        self._dice: asyncio.Task[None] | None = None  # the throw rolling: one at a time (protocol.md §8)
        self._pressed: dict[tuple[str, str], float] = {}  # (side, button) -> when its last press counted
        self._motion: asyncio.Task[None] | None = None  # raise / lower
        self._build: asyncio.Task[None] | None = None
        self._tasks: set[asyncio.Task[Any]] = set()

    def _start(self, coro: Coroutine[Any, Any, Any], name: str) -> asyncio.Task[Any]:
        task = self._spawn(coro, name)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    def stop(self) -> None:
        """Every motor stops (brown-out, close): no task of this mechanism runs on."""
        for t in list(self._tasks):
            t.cancel()

    # ----- state the firmware reports
    @property
    def wall(self) -> dict[str, str] | None:
        """The arrangement on the table surface if the walls are up, else the set built below."""
        return self.up if self.up is not None else self.built

    @property
    def next_wall(self) -> dict[str, str] | None:
        """The set built under the table while a hand is played (None until built)."""
        return self.built if self.up is not None else None

    def status(self) -> dict[str, Any]:
        return {"phase": self.phase, "tile_count": self.tile_count, "next_tile_count": self.next_tile_count,
                "set_ready": self.built is not None, "dealer": self.dealer, "faults": tuple(sorted(self.faults))}

    # ----- commands, named as the protocol's messages
    def set_tile_count(self, count: int) -> None:
        if count not in WALL_LENGTHS:
            raise Refused("bad_argument", f"tile count {count} not one of {sorted(WALL_LENGTHS)}")
        self.next_tile_count = count

    def start_shuffle(self) -> None:
        if self.phase != "idle":
            raise Refused("bad_phase", f"start_shuffle needs phase idle, the table is {self.phase}")
        self._need("build")
        self._set_phase("building")
        self._build = self._start(self._building(), "build")

    def raise_walls(self) -> None:
        if self.phase != "ready":
            raise Refused("bad_phase", f"raise_walls needs phase ready, the table is {self.phase}")
        self._need("lift")
        self._set_phase("raising")  # before the reply: the host sees the new phase when its command returns
        self._motion = self._start(self._raising(), "raise")

    def lower_walls(self) -> None:
        if self.phase not in ("walls_raised", "playing"):
            raise Refused("bad_phase", f"lower_walls needs the walls up, the table is {self.phase}")
        self._need("lift")
        self._set_phase("lowering")
        self._motion = self._start(self._lowering(), "lower")

    def roll_dice(self, seat: str | None) -> None:
        if seat is None:
            raise Refused("bad_argument", "roll_dice needs a seat")
        self._need("dice")
        if self._rolling():
            raise Refused("bad_phase", "the dice are still rolling: one throw at a time")
        self._throw(seat)

    def seat_lights(self, dealer: str | None, prevalent: str | None, turn: str | None) -> None:
        self.dealer = dealer or self.dealer
        self.prevalent = prevalent
        self.turn = turn

    def buzzer(self, ms: int) -> None:
        if ms > 5000:
            raise Refused("bad_argument", f"buzzer ms {ms} is over 5000")
        self.buzzes.append(ms)

    def reset(self) -> None:
        """Motors stop, both sets are dropped into the hopper, latched faults clear, phase idle."""
        self.stop()
        self._motion = self._build = None
        self.built = self.up = None
        for code in list(self.faults):
            if code in CLEARED_BY_RESET:
                self.clear_fault(code)
        self._set_phase("idle")

    # ----- the people at the table
    def press_button(self, seat: str, button: str = "dice") -> None:
        """A player presses a button on their side; the dice button also rolls the dice."""
        check_seat(seat)
        if button not in BUTTONS:
            raise SimError(f"button {button!r} is not one of {', '.join(BUTTONS)}")
        now, last = self.clock.now(), self._pressed.get((seat, button))
        if last is not None and now - last < self.timings.debounce:
            return  # the contacts bounced: the press is reported once
        self._pressed[(seat, button)] = now
        self._emit("button", seat=seat, button=button)
        if button == "dice" and self._blocking("dice") is None and not self._rolling():
            self._throw(seat)  # pressed again while the dice roll: no second throw

    def autopilot_next_thrower(self, seat: str) -> None:
        """Demo players: the named seat presses its dice button after a short pause."""
        self._start(self._autopress(check_seat(seat)), "autopilot")

    def lose_tiles(self, n: int) -> None:
        """Tiles fall off the table (or, n < 0, foreign tiles get in): the next build counts wrong."""
        self.tiles_off -= n

    def raise_fault(self, fault: str | int, where: str = "table") -> None:
        kind = fault_kind(fault)
        if kind.code not in self.faults:
            self.faults[kind.code] = where
            self._emit("fault_raised", code=kind.code, where=where)

    def clear_fault(self, fault: str | int) -> None:
        kind = fault_kind(fault)
        if self.faults.pop(kind.code, None) is not None:
            self._emit("fault_cleared", code=kind.code)

    # ----- motors
    def _blocking(self, part: str) -> FaultKind | None:
        for code in self.faults:
            if part in BY_CODE[code].blocks:
                return BY_CODE[code]
        return None

    def _need(self, part: str) -> None:
        kind = self._blocking(part)
        if kind is not None:
            raise Refused("fault_active", f"{kind.name_zh} ({kind.name_en}) at {self.faults[kind.code]}")

    def _set_phase(self, phase: str) -> None:
        if phase != self.phase:
            self.phase = phase
            self._emit("phase", phase=phase)

    async def _run_for(self, seconds: float, part: str) -> None:
        """Run a motor for `seconds` of working time; time under a fault blocking `part` does not count."""
        left = seconds
        tick = self.timings.tick
        while left > 1e-9:
            if self._blocking(part) is not None:
                await self.clock.sleep(tick)
                continue
            step = min(tick, left)
            await self.clock.sleep(step)
            left -= step

    async def _building(self) -> None:
        count = self.next_tile_count  # the setting at the start of the build is the one built
        await self._run_for(self.timings.build[count], "build")
        self.tile_count = count
        self.built = arrange(count, self._rng_wall, self.ruleset)
        counted, self.tiles_off = count + self.tiles_off, 0
        self._emit("tile_count", count=counted, expected=count)
        if counted < count:  # the counter saw a gap in the walls: the lift stays down until it is fixed
            self.raise_fault("missing_tile", "counter")
        elif counted > count:
            self.raise_fault("extra_tile", "counter")
        if self.phase == "building":
            self._set_phase("ready")

    async def _raising(self) -> None:
        await self._run_for(self.timings.raise_walls, "lift")
        self.up, self.built = self.built, None
        self._set_phase("walls_raised")
        # the tiles of the last hand are in the hopper: the next set is built during play
        self._build = self._start(self._building(), "next build")
        if self.autopilot:
            self._start(self._autopress(self.dealer), "autopilot")

    async def _lowering(self) -> None:
        await self._run_for(self.timings.lower_walls, "lift")
        self.up = None
        self._set_phase("ready" if self.built is not None else "building")

    def _rolling(self) -> bool:
        """Whether the dice are still rolling (a reset or a brown-out stops them)."""
        return self._dice is not None and not self._dice.done()

    def _throw(self, seat: str) -> None:
        self._dice = self._start(self._roll(seat), "dice")

    async def _roll(self, seat: str) -> None:
        await self.clock.sleep(self.timings.dice_settle)
        values = tuple(self._rng_dice.randint(1, 6) for _ in range(self.dice_count))
        self._emit("dice", seat=seat, dice=values)
        if self.phase == "walls_raised":
            self._set_phase("playing")

    async def _autopress(self, seat: str) -> None:
        await self.clock.sleep(self.timings.autopilot_pause)
        self.press_button(seat, "dice")

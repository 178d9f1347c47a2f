"""Bench commands and timed scenarios: the words a test, `tablectl sim --scenario` and `debug` share."""

from __future__ import annotations

import asyncio
import math
from typing import TYPE_CHECKING

from drivers.messages import BUTTONS
from tablesim.mechanism import SimError, check_seat, fault_kind

if TYPE_CHECKING:
    from tablesim.sim import SimTable

HELP = ("fault ID [WHERE] | clear ID | reset | press SEAT [BUTTON] | lose N | add N | brownout | unplug [S] | "
        "stall [S]")
#: verb -> number of required arguments
VERBS: dict[str, int] = {"fault": 1, "clear": 1, "reset": 0, "press": 1, "lose": 1, "add": 1, "brownout": 0,
                         "unplug": 0, "stall": 0}


def run_command(sim: SimTable, line: str) -> str:
    """Do one bench command to the simulated table; SimError says what is wrong with the line."""
    words = line.split()
    if not words or words[0] == "help":
        return HELP
    verb, args = words[0], words[1:]
    if verb not in VERBS or len(args) < VERBS[verb]:
        raise SimError(f"unknown bench command {line!r}; try 'help'")
    check_args(verb, args)
    try:
        if verb == "fault":
            sim.raise_fault(args[0], " ".join(args[1:]) or "table")
        elif verb == "clear":
            sim.clear_fault(args[0])
        elif verb == "reset":
            sim.press_reset()
        elif verb == "press":
            sim.press_button(args[0], args[1] if len(args) > 1 else "dice")
        elif verb == "lose":
            sim.mech.lose_tiles(int(args[0]))
        elif verb == "add":
            sim.mech.lose_tiles(-int(args[0]))
        elif verb == "brownout":
            asyncio.get_running_loop().call_soon(sim.brown_out)  # after the reply to `debug` is queued
        elif verb == "unplug":
            sim.unplug(float(args[0]) if args else 0.5)
        elif verb == "stall":
            sim.stall(float(args[0]) if args else 0.5)
    except ValueError as exc:
        if isinstance(exc, SimError):
            raise
        raise SimError(f"{line!r}: {exc}") from None
    return "done"


def check_args(verb: str, args: list[str]) -> None:
    """SimError unless a bench command's arguments would run: a fault, a seat and button, a number
    (a scenario checked only the fault and the seat: `press E dance` or `lose x` stopped it mid-run)."""
    if verb in ("fault", "clear"):
        fault_kind(args[0])
    elif verb == "press":
        check_seat(args[0])
        if len(args) > 1 and args[1] not in BUTTONS:
            raise SimError(f"button {args[1]!r} is not one of {', '.join(BUTTONS)}")
    elif verb in ("lose", "add", "unplug", "stall") and args:
        number = args[0]
        try:
            value = int(number) if verb in ("lose", "add") else float(number)
        except ValueError:
            raise SimError(f"{verb} {number!r}: not a {'whole number' if verb in ('lose', 'add') else 'number of seconds'}") from None
        if verb in ("unplug", "stall") and not (math.isfinite(value) and value >= 0):
            raise SimError(f"{verb} {number!r}: seconds must be 0 or more")


def parse_scenario(lines: list[str] | str) -> list[tuple[float, str]]:
    """`[(seconds, command)]` sorted by time, from lines `SECONDS COMMAND`; SimError names the bad line.

    Checked before a run starts, so a typo fails at once, not a minute into the run.
    """
    if isinstance(lines, str):
        lines = lines.splitlines()
    steps: list[tuple[float, str]] = []
    for n, raw in enumerate(lines, 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        when, _, command = line.partition(" ")
        try:
            at = float(when)
        except ValueError:
            raise SimError(f"scenario line {n}: {when!r} is not a time in seconds") from None
        words = command.split()
        if not words or words[0] not in VERBS or len(words) - 1 < VERBS[words[0]]:
            raise SimError(f"scenario line {n}: {command.strip()!r} is not a bench command ({HELP})")
        try:
            check_args(words[0], words[1:])
        except SimError as exc:
            raise SimError(f"scenario line {n}: {exc}") from None
        steps.append((at, command.strip()))
    return sorted(steps, key=lambda s: s[0])


async def play(sim: SimTable, lines: list[str] | str) -> None:
    """Run a scenario on the simulator's clock, times counted from now."""
    steps = parse_scenario(lines)
    start = sim.clock.now()
    for at, command in steps:
        await sim.clock.sleep(max(0.0, start + at - sim.clock.now()))
        run_command(sim, command)

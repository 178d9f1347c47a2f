"""Fault injection for the simulator's cable: link damage (bit errors, drops, duplicates, delays, unplugs,
stalls) and brown-outs.

A fault the table itself reports (a jam 卡牌, a missing tile, a motor) is not here: it is raised on the
machine, `Mechanism.raise_fault`, by `SimTable.raise_fault` or the bench command `fault jam`
(`tablesim.scenario`, `tablectl sim --scenario`).

A plan is plain data, parsed from a spec string such as
`ber=1e-4,drop=0.01,dup=0.005,delay=0.002:0.2,unplug_every=10:0.5,brownout_on=raise_walls`,
so a bench or a CLI flag states exactly what goes wrong, and a seed makes it repeat.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, fields


@dataclass
class FaultPlan:
    """What the simulated link and table do wrong. All rates are probabilities per bit or per frame."""

    ber: float = 0.0            # bit error rate on every byte both ways
    drop: float = 0.0           # fraction of frames (out) and reads (in) lost
    dup: float = 0.0            # fraction of outgoing frames sent twice
    delay: float = 0.0          # fraction of outgoing frames delayed ...
    delay_s: float = 0.2        # ... by this many seconds (so they arrive out of order)
    garbage: float = 0.0        # fraction of outgoing frames preceded by random junk bytes
    unplug_every: float = 0.0   # seconds between simulated unplugs (0: never)
    unplug_for: float = 0.5     # how long each unplug lasts
    stall_every: float = 0.0    # seconds between stalls: the firmware stops answering
    stall_for: float = 0.5
    brownout_on: str = ""       # a command name: the table browns out on receiving it (once)
    unplug_on: str = ""         # a command name: the table runs it, then the cable is pulled before the reply
    unplug_before: str = ""     # a command name: the cable is pulled as it is sent; the table never runs it (once)

    HELP = {
        "ber": "bit error rate, e.g. ber=1e-4",
        "drop": "fraction of frames lost, e.g. drop=0.01",
        "dup": "fraction of frames sent twice",
        "delay": "FRACTION[:SECONDS] of frames delayed, e.g. delay=0.01:0.3",
        "garbage": "fraction of frames preceded by junk bytes",
        "unplug_every": "SECONDS[:DURATION]: unplug the cable periodically, e.g. unplug_every=10:0.5",
        "stall_every": "SECONDS[:DURATION]: the firmware stops answering for a while",
        "brownout_on": "COMMAND: reboot (brown-out) when this command arrives, e.g. brownout_on=raise_walls",
        "unplug_on": "COMMAND: run this command, then pull the cable before the reply leaves (once)",
        "unplug_before": "COMMAND: pull the cable as this command is sent: the table never gets it (once)",
    }

    @classmethod
    def parse(cls, spec: str | None) -> FaultPlan:
        """Parse `key=value,...`; ValueError names the bad part and lists the keys."""
        plan = cls()
        if not spec:
            return plan
        names = {f.name for f in fields(cls)}
        for part in spec.split(","):
            part = part.strip()
            if not part:
                continue
            key, sep, value = part.partition("=")
            key = key.strip()
            if not sep or key not in cls.HELP:
                raise ValueError(f"fault spec part {part!r}: expected one of {', '.join(cls.HELP)} as KEY=VALUE")
            try:
                if key in ("brownout_on", "unplug_on", "unplug_before"):
                    setattr(plan, key, value.strip())
                elif key in ("delay", "unplug_every", "stall_every"):
                    a, _, b = value.partition(":")
                    setattr(plan, key, float(a))
                    if b:
                        second = {"delay": "delay_s", "unplug_every": "unplug_for", "stall_every": "stall_for"}[key]
                        setattr(plan, second, float(b))
                else:
                    setattr(plan, key, float(value))
            except ValueError:
                raise ValueError(f"fault spec part {part!r}: {value!r} is not a number") from None
        for name in names:
            v = getattr(plan, name)
            if isinstance(v, float) and not (v >= 0 and math.isfinite(v)):  # nan passed `v < 0`
                raise ValueError(f"fault spec: {name} must be a number, not negative")
            if name in _RATES and v > 1:  # a probability: ber=2 was taken as "always"
                raise ValueError(f"fault spec: {name} is a fraction 0..1, not {v:g}")
        return plan


#: The plan's probabilities (per bit or per frame), each 0..1.
_RATES = ("ber", "drop", "dup", "delay", "garbage")


class LinkDamage:
    """Applies a plan's link faults to bytes crossing the simulated cable, from a seeded RNG."""

    def __init__(self, plan: FaultPlan, rng: random.Random) -> None:
        self.plan = plan
        self.rng = rng
        self.counts = {"bits_flipped": 0, "dropped": 0, "duplicated": 0, "delayed": 0, "garbage": 0}

    def corrupt(self, data: bytes) -> bytes:
        """Flip each bit with probability `ber` (geometric skipping: cheap at low rates)."""
        ber = self.plan.ber
        if ber <= 0 or not data:
            return data
        out = bytearray(data)
        nbits = len(out) * 8
        import math

        pos = int(math.log(1.0 - self.rng.random()) / math.log(1.0 - ber)) if ber < 1 else 0
        while pos < nbits:
            out[pos // 8] ^= 1 << (pos % 8)
            self.counts["bits_flipped"] += 1
            pos += 1 + (int(math.log(1.0 - self.rng.random()) / math.log(1.0 - ber)) if ber < 1 else 0)
        return bytes(out)

    def inbound(self, data: bytes) -> bytes:
        if self.plan.drop and self.rng.random() < self.plan.drop:
            self.counts["dropped"] += 1
            return b""
        return self.corrupt(data)

    def outbound(self, frame: bytes) -> list[tuple[float, bytes, bool]]:
        """(delay seconds, bytes, is_the_frame) pieces to write for one frame; [] if it is lost."""
        p = self.plan
        if p.drop and self.rng.random() < p.drop:
            self.counts["dropped"] += 1
            return []
        pieces: list[tuple[float, bytes, bool]] = []
        if p.garbage and self.rng.random() < p.garbage:
            self.counts["garbage"] += 1
            pieces.append((0.0, bytes(self.rng.getrandbits(8) for _ in range(self.rng.randint(1, 12))), False))
        delay = 0.0
        if p.delay and self.rng.random() < p.delay:
            self.counts["delayed"] += 1
            delay = p.delay_s
        pieces.append((delay, self.corrupt(frame), True))
        if p.dup and self.rng.random() < p.dup:
            self.counts["duplicated"] += 1
            pieces.append((delay, self.corrupt(frame), True))
        return pieces

"""A machine's two clocks for tests of a wall clock that steps (NTP on a Pi without a real-time clock)."""

from __future__ import annotations


class FakeTime:
    """The wall clock (`wall`, stepped by assigning it) and the steady one (`mono`); `advance` moves both, as
    time passing does. Hand `lambda: t.wall` and `lambda: t.mono` to a `drivers.clock.SteadyWallClock`."""

    def __init__(self, wall: float) -> None:
        self.wall, self.mono = wall, 100.0

    def advance(self, s: float) -> None:
        self.wall += s
        self.mono += s

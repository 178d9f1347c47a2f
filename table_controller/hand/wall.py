"""What the hand needs of a wall: the rules engine's `WallState` satisfies it."""

from __future__ import annotations

from typing import Protocol


class Wall(Protocol):
    """An immutable wall: each draw returns the position taken and the wall after it."""

    @property
    def exhausted(self) -> bool:
        """荒牌: no live tile left."""

    @property
    def is_last(self) -> bool:
        """The next live draw is the 海底."""

    @property
    def in_last_zone(self) -> bool:
        """Inside the ruleset's last-tiles zone (后4张必胡), the 海底's discard included."""

    def draw(self) -> tuple[str, Wall]:
        """The next live tile's position and the wall after it."""

    def replace(self) -> tuple[str, Wall]:
        """The next replacement tile's position (补花, 杠后补) and the wall after it."""

"""The table's physical model: tile sets per setting, wall lengths, a seeded wall arrangement, timings."""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import Any

from table_controller.rules.physical import all_positions, physical_wall
from table_controller.rules.tiles import TileSpec
from table_controller.tiles import SEATS, SUITS

#: The table's sides, named by the seat sitting at each (the glossary's seats).
SIDES: tuple[str, ...] = SEATS

#: Stacks per wall (E, S, W, N) for each tile-count setting (walls.md "Default lengths").
WALL_LENGTHS: dict[int, tuple[int, int, int, int]] = {
    144: (18, 18, 18, 18),
    136: (17, 17, 17, 17),
    108: (14, 13, 14, 13),
}


@dataclass(frozen=True)
class Timings:
    """Typical mechanism times in seconds (protocol.md §8); a scenario may change them."""

    build: dict[int, float]
    raise_walls: float = 6.0
    lower_walls: float = 8.0
    dice_settle: float = 1.5
    debounce: float = 0.03  # a button's contacts bounce: presses of one button closer than this are one press
    heartbeat: float = 1.0
    autopilot_pause: float = 2.0
    tick: float = 0.5

    @staticmethod
    def default() -> Timings:
        return Timings(build={144: 60.0, 136: 57.0, 108: 45.0})

    def scaled(self, speed: float) -> Timings:
        """The mechanisms `speed` times faster (a demo need not wait 60 s for a build).

        Heartbeats keep their period: they pace the link, not the mechanism.
        """
        if not (math.isfinite(speed) and speed > 0):  # nan passed `speed <= 0` and made every timing nan
            raise ValueError(f"speed must be a finite number above 0, got {speed}")
        return Timings(build={k: v / speed for k, v in self.build.items()},
                       raise_walls=self.raise_walls / speed, lower_walls=self.lower_walls / speed,
                       dice_settle=self.dice_settle / speed, debounce=self.debounce / speed, heartbeat=self.heartbeat,
                       autopilot_pause=self.autopilot_pause / speed, tick=min(self.tick, self.tick / speed))


#: The set each tile-count setting builds when no ruleset is named (walls.md): 144 with flowers, 136 without,
#: 108 of the suits alone. The rules engine's `TileSpec` makes the tiles, as it does for a ruleset's set.
STANDARD_SETS: dict[int, TileSpec] = {
    144: TileSpec(suits=SUITS, ranks=9, winds=True, dragons=True, flowers=8),
    136: TileSpec(suits=SUITS, ranks=9, winds=True, dragons=True, flowers=0),
    108: TileSpec(suits=SUITS, ranks=9, winds=False, dragons=False, flowers=0),
}


def tile_set(count: int) -> list[str]:
    """The tiles of one set for a tile-count setting, as glossary codes, four of each kind, flowers once."""
    if count not in STANDARD_SETS:
        raise ValueError(f"no tile set for a setting of {count} tiles; the table supports {sorted(WALL_LENGTHS)}")
    return STANDARD_SETS[count].tiles()


def arrange(count: int, rng: random.Random, ruleset: Any = None) -> dict[str, str]:
    """A shuffled build: position -> tile kind.

    With a ruleset (a `table_controller.rules` Ruleset whose set has `count` tiles, e.g. shiwan's
    136 of 1-10 in each suit) the rules engine's own `physical_wall` builds it, so the simulator
    and the engine agree on the tile set; without one, the standard set for the setting.
    """
    lengths = WALL_LENGTHS[count]
    if ruleset is not None and getattr(ruleset, "tiles", None) == count:
        return dict(physical_wall(ruleset, lengths, rng))
    tiles = tile_set(count)
    rng.shuffle(tiles)
    pos = all_positions(lengths)
    if len(pos) != len(tiles):
        raise ValueError(f"{count} tiles do not fill walls of {lengths} stacks")
    return dict(zip(pos, tiles, strict=True))

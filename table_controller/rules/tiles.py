"""Tile kinds (glossary codes `5m` `1z` `3f`), a ruleset's full tile set and next-kind cycles."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

from table_controller import tiles

WINDS: tuple[str, ...] = ("1z", "2z", "3z", "4z")
DRAGONS: tuple[str, ...] = ("5z", "6z", "7z")
FLOWERS: tuple[str, ...] = tuple(f"{n}f" for n in range(1, 9))

def is_kind(text: str) -> bool:
    """Whether `text` is a tile code of the glossary (`1m`..`10s`, `1z`..`7z`, `1f`..`8f`)."""
    return tiles.is_tile(text)


def suit_rank(kind: str) -> tuple[str, int] | None:
    """("m", 5) for `5m`; None for honours and flowers."""
    if not tiles.is_tile(kind) or not tiles.is_suited(kind):
        return None
    return tiles.suit(kind), tiles.rank(kind)


def is_flower_kind(kind: str) -> bool:
    return tiles.is_tile(kind) and tiles.is_flower(kind)


@dataclass(frozen=True)
class TileSpec:
    """What a ruleset plays with: suits 1..ranks, winds, dragons, flowers (one each).

    `extra_flowers` are kinds that this ruleset sets aside and replaces like flowers
    (南京: the dragons, making 20 flowers, seed 003).
    """

    suits: tuple[str, ...]
    ranks: int
    winds: bool
    dragons: bool
    flowers: int
    copies: int = 4
    extra_flowers: tuple[str, ...] = ()

    def kinds(self) -> tuple[str, ...]:
        """Every distinct kind, in the glossary order."""
        out = [f"{r}{s}" for s in self.suits for r in range(1, self.ranks + 1)]
        if self.winds:
            out += WINDS
        if self.dragons:
            out += DRAGONS
        out += FLOWERS[: self.flowers]
        return tuple(out)

    def tiles(self) -> list[str]:
        """The full set with multiplicity: suits and honours `copies` each, flowers once each."""
        out: list[str] = []
        for kind in self.kinds():
            out += [kind] * (1 if kind.endswith("f") else self.copies)
        return out

    @property
    def total(self) -> int:
        per_kind = len(self.suits) * self.ranks + 4 * self.winds + 3 * self.dragons
        return per_kind * self.copies + self.flowers

    def is_bonus(self, kind: str) -> bool:
        """Whether a drawn tile of this kind is set aside and replaced (补花)."""
        return is_flower_kind(kind) or kind in self.extra_flowers


def next_kind(kind: str, ranks: int, honours_next: Mapping[str, str]) -> str | None:
    """The kind an indicator makes special: suits wrap ranks→1, honours by the ruleset's map.

    None when the ruleset's cycle does not cover the kind (a flower): that indicator makes
    nothing wild, which the caller shows rather than guesses.
    """
    sr = suit_rank(kind)
    if sr:
        suit, rank = sr
        return f"{rank % ranks + 1}{suit}"
    return honours_next.get(kind)

"""The tile kinds the reader knows, in the glossary's codes, with the Chinese names players see."""

from __future__ import annotations

import numpy as np

from table_controller.tiles import tile_name

#: The 34 suit and honour kinds, in the order the classifier's outputs use.
SUITED_AND_HONOURS: tuple[str, ...] = (
    *(f"{n}m" for n in range(1, 10)),
    *(f"{n}p" for n in range(1, 10)),
    *(f"{n}s" for n in range(1, 10)),
    *(f"{n}z" for n in range(1, 8)),
)
#: Seasons 1f..4f (春夏秋冬) then flowers 5f..8f (梅兰菊竹): labelled by what is drawn, never the numeral.
FLOWERS: tuple[str, ...] = tuple(f"{n}f" for n in range(1, 9))
#: The 42 face kinds.
FACE_KINDS: tuple[str, ...] = SUITED_AND_HONOURS + FLOWERS
#: Everything the classifier outputs: the 42 faces and a face-down tile.
KINDS: tuple[str, ...] = FACE_KINDS + ("back",)
KIND_INDEX: dict[str, int] = {k: i for i, k in enumerate(KINDS)}


def chinese_name(kind: str) -> str:
    """The name a player or referee reads for a kind the reader knows (一万, 东, 梅, 牌背): the glossary's,
    from `table_controller.tiles`; a kind outside `KINDS` (a ten of 十万麻将, a typo) is refused."""
    if kind not in KIND_INDEX:
        raise ValueError(f"unknown tile kind {kind!r}")
    return tile_name(kind)


def max_copies(kind: str) -> int:
    """How many of a kind a set holds: four of each suit and honour tile, one of each flower."""
    if kind.endswith("f"):
        return 1
    if kind == "back":
        return 144
    return 4


def is_flower(kind: str) -> bool:
    """Flowers and seasons: the kinds public detectors lack and that the bench scores apart."""
    return kind in FLOWERS


def assign_within_counts(probs: np.ndarray) -> np.ndarray:
    """The kind index for each tile of one frame, most probable first, such that no kind is read
    more often than a set holds it (`max_copies`).

    `probs` is (tiles, classes) over `KINDS` and, after them, the rejection class (no limit).
    Where a frame reads more of a kind than exist, the least sure of them take their next most
    probable kind that still has room (repeatedly, as a move may fill another kind). A set holds
    one 梅: two tiles both read as 梅 cannot both be right, and the second reading of the less
    sure one is the better bet. The reader marks every moved tile for the referee.
    """
    n, classes = probs.shape
    caps = np.array([max_copies(k) for k in KINDS] + [n] * (classes - len(KINDS)))
    choice = probs.argmax(axis=1)
    counts = np.bincount(choice, minlength=classes)
    while (over := np.flatnonzero(counts > caps)).size:
        k = int(over[0])
        members = np.flatnonzero(choice == k)
        for i in members[np.argsort(-probs[members, k], kind="stable")][caps[k]:]:
            room = counts < caps
            room[k] = False
            j = int(np.argmax(np.where(room, probs[i], -1.0)))
            choice[i] = j
            counts[k] -= 1
            counts[j] += 1
    return choice

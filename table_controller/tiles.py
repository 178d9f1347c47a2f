"""Tile codes of the glossary (`1m` `10p` `5z` `3f` `back`), parsing, ordering and Chinese names.

A tile is its code, a plain `str`: that is what JSON, logs, the camera and the table link carry,
so nothing converts between a "tile object" and the wire. This module is the one place that
knows what a valid code is. Pure, no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Literal

#: Suit letters of numbered tiles: characters 万, dots 筒, bamboo 条.
SUITS: tuple[str, ...] = ("m", "p", "s")
HONOUR = "z"
FLOWER = "f"
BACK = "back"

#: Seats by wind of the hand, in play order (E deals).
SEATS: tuple[str, ...] = ("E", "S", "W", "N")
SEAT_NAMES: dict[str, str] = {"E": "东", "S": "南", "W": "西", "N": "北"}
#: The honour code of each seat wind: E → 1z ... N → 4z.
WIND_TILE: dict[str, str] = {"E": "1z", "S": "2z", "W": "3z", "N": "4z"}

_NUMERALS = ("一", "二", "三", "四", "五", "六", "七", "八", "九", "十")
_SUIT_NAMES = {"m": "万", "p": "筒", "s": "条"}
_TEN_NAMES = {"m": "十万", "p": "十饼", "s": "十条"}
_HONOUR_NAMES = ("东", "南", "西", "北", "白", "发", "中")
_FLOWER_NAMES = ("春", "夏", "秋", "冬", "梅", "兰", "菊", "竹")
_SUIT_ORDER = {"m": 0, "p": 1, "s": 2, "z": 3, "f": 4}

_GROUP = re.compile(r"(\d+)([mpszf])")


class TileError(ValueError):
    """A tile code or tile string that the glossary does not allow; `code` is stable."""

    def __init__(self, message: str, code: str = "bad_tile") -> None:
        super().__init__(message)
        self.code = code


def is_tile(code: object) -> bool:
    """True for a face-up code of the glossary (`back` is not a face)."""
    return code in _FACES if isinstance(code, str) else False


def check(code: object) -> str:
    """Return `code` if it is a valid face code, else raise `TileError` naming it."""
    if not isinstance(code, str) or code not in _FACES:
        raise TileError(f"not a tile code: {code!r} (expected e.g. 1m 9p 10s 5z 3f)")
    return code


def suit(code: str) -> str:
    """The suit letter: m p s (numbered), z (honour) or f (flower)."""
    return check(code)[-1]


def rank(code: str) -> int:
    """The number on the tile: 1..10 for suits, 1..7 for honours, 1..8 for flowers."""
    return int(check(code)[:-1])


def is_suited(code: str) -> bool:
    return suit(code) in SUITS


def is_honour(code: str) -> bool:
    return suit(code) == HONOUR


def is_flower(code: str) -> bool:
    """Seasons and flowers (`1f`..`8f`): not part of any meld, replaced when drawn."""
    return suit(code) == FLOWER


def is_wind(code: str) -> bool:
    return is_honour(code) and rank(code) <= 4


def is_dragon(code: str) -> bool:
    return is_honour(code) and rank(code) >= 5


def is_terminal(code: str) -> bool:
    """A 1 or a 9 of a suit (幺九 without honours); the 10s of 十万麻将 are not terminals."""
    return is_suited(code) and rank(code) in (1, 9)


def sort_key(code: str) -> tuple[int, int]:
    """Kind order: 万 筒 条 by rank, then 东南西北白发中, then 春夏秋冬梅兰菊竹, then `back`."""
    if code == BACK:
        return (9, 0)
    return (_SUIT_ORDER[suit(code)], rank(code))


def sort_tiles(tiles: Iterable[str]) -> list[str]:
    return sorted(tiles, key=sort_key)


def parse_tiles(text: str) -> list[str]:
    """Read a tile string: compact `"123m456p11z"`, codes `"1m 2m back"`, or a mix.

    Digits before a suit letter are one tile each; `10` reads as the ten of 十万麻将 (so `"1910m"`
    is 1m 9m 10m). The order of the text is kept. Raises `TileError` naming the bad part.
    """
    tiles: list[str] = []
    for word in re.split(r"[\s,]+", text.strip()):
        if not word:
            continue
        if word == BACK:
            tiles.append(BACK)
            continue
        pos = 0
        for match in _GROUP.finditer(word):
            if match.start() != pos:
                raise TileError(f"cannot read {word[pos:match.start()]!r} in {text!r}")
            digits, letter = match.groups()
            i = 0
            while i < len(digits):
                if digits[i:i + 2] == "10":
                    number, i = "10", i + 2
                else:
                    number, i = digits[i], i + 1
                tiles.append(check(number + letter))
            pos = match.end()
        if pos != len(word):
            raise TileError(f"cannot read {word[pos:]!r} in {text!r}")
    return tiles


def format_tiles(tiles: Iterable[str]) -> str:
    """Write tiles compactly in kind order (`["2m","1m","5z"]` → `"12m5z"`), the inverse of parsing.

    Face-down tiles come last as separate words: `"12m back back"`.
    """
    groups: list[str] = []
    backs = 0
    group_suit = ""
    digits = ""
    for code in sort_tiles(tiles):
        if code == BACK:
            backs += 1
            continue
        s = suit(code)
        if s != group_suit and digits:
            groups.append(digits + group_suit)
            digits = ""
        group_suit = s
        digits += str(rank(code))
    if digits:
        groups.append(digits + group_suit)
    return " ".join(["".join(groups)] * bool(groups) + [BACK] * backs)


def tile_name(code: str) -> str:
    """The Chinese name players see: 一万, 九筒, 十条, 东, 白, 发, 中, 春, 梅, 牌背."""
    if code == BACK:
        return "牌背"
    s, r = suit(code), rank(code)
    if s in SUITS:
        return _TEN_NAMES[s] if r == 10 else _NUMERALS[r - 1] + _SUIT_NAMES[s]
    if s == HONOUR:
        return _HONOUR_NAMES[r - 1]
    return _FLOWER_NAMES[r - 1]


def suit_name(s: str) -> str:
    """万 筒 条 for m p s (a 定缺's name)."""
    try:
        return _SUIT_NAMES[s]
    except KeyError:
        raise TileError(f"not a suit: {s!r} (expected m, p or s)", code="bad_suit") from None


def seat_name(seat: str) -> str:
    """东 南 西 北 for E S W N."""
    try:
        return SEAT_NAMES[seat]
    except KeyError:
        raise TileError(f"not a seat: {seat!r} (expected E S W N)", code="bad_seat") from None


def seat_after(seat: str, steps: int = 1) -> str:
    """The seat `steps` turns later in play order (1 → 下家, 2 → 对家, 3 → 上家)."""
    seat_name(seat)
    return SEATS[(SEATS.index(seat) + steps) % 4]


def all_kinds(*, tens: bool = False, honours: bool = True, flowers: bool = False,
              suits: Iterable[str] = SUITS) -> list[str]:
    """Every kind of a tile set, in kind order: 34 for 136 tiles, 27 for 四川's 108, ..."""
    top = 10 if tens else 9
    kinds = [f"{r}{s}" for s in suits for r in range(1, top + 1)]
    if honours:
        kinds += [f"{r}z" for r in range(1, 8)]
    if flowers:
        kinds += [f"{r}f" for r in range(1, 9)]
    return kinds


#: Every face code (a set: the helpers above are on the scorer's hot path).
_FACES: frozenset[str] = frozenset(all_kinds(tens=True, flowers=True))

NextOrder = Literal["dora", "fujian", "wuhan"]

# Honour successions of walls.md ("Indicators and tiles read off the wall").
_HONOUR_NEXT: dict[str, dict[int, int]] = {
    # riichi dora: winds E→S→W→N→E, dragons 白→发→中→白
    "dora": {1: 2, 2: 3, 3: 4, 4: 1, 5: 6, 6: 7, 7: 5},
    # fujian 带弟百搭: E→S→W→N→中→发→白→E
    "fujian": {1: 2, 2: 3, 3: 4, 4: 7, 7: 6, 6: 5, 5: 1},
    # wuhan 癞子: E→S→W→N→发 (skipping 中), 中→发, 发→白, 白→E
    "wuhan": {1: 2, 2: 3, 3: 4, 4: 6, 7: 6, 6: 5, 5: 1},
}


def next_kind(code: str, order: NextOrder = "dora", *, tens: bool = False) -> str:
    """The kind after `code` (宝牌, 百搭, 癞子 indicators): suits wrap 9→1 (10→1 with tens).

    Flowers have no successor and raise `TileError`.
    """
    s, r = suit(code), rank(code)
    if s in SUITS:
        top = 10 if tens else 9
        return f"{r % top + 1}{s}"
    if s == HONOUR:
        return f"{_HONOUR_NEXT[order][r]}z"
    raise TileError(f"a flower has no next kind: {code!r}", code="no_next_kind")

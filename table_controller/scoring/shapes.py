"""Winning shapes: a hand read as four sets and a pair, seven pairs, 十三幺 or 十四不靠, with 鬼牌.

Every reading is returned, with the group that the winning tile completed, so that each ruleset
can pick the reading that scores best (as its rules say) and tell the wait (单钓, 嵌张, 边张).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations_with_replacement, product
from typing import Literal

from table_controller import tiles as T
from table_controller.scoring.hand import HandInput

GroupType = Literal["chow", "pung", "kong", "pair", "single"]
Form = Literal["standard", "seven_pairs", "thirteen_orphans", "knitted", "knitted_straight"]
Wait = Literal["pair", "edge", "closed", "sides", "pung", "other"]

KINDS: tuple[str, ...] = tuple(T.all_kinds())
_INDEX = {k: i for i, k in enumerate(KINDS)}
ORPHANS: frozenset[str] = frozenset(["1m", "9m", "1p", "9p", "1s", "9s"] + [f"{r}z" for r in range(1, 8)])


@dataclass(frozen=True)
class Group:
    """One set of a reading: `kind` is its lowest tile; `declared` for a meld on the table;
    `concealed` unless its last tile was claimed (a declared meld, or completed by a discard)."""

    type: GroupType
    kind: str
    concealed: bool = True
    declared: bool = False
    wild: int = 0

    def tiles(self) -> list[str]:
        if self.type == "chow":
            s, r = T.suit(self.kind), T.rank(self.kind)
            return [f"{r + i}{s}" for i in range(3)]
        size = {"pung": 3, "kong": 4, "pair": 2, "single": 1}[self.type]
        return [self.kind] * size

    @property
    def is_set(self) -> bool:
        return self.type in ("pung", "kong")


@dataclass(frozen=True)
class Shape:
    """One reading of a winning hand and how the winning tile completed it."""

    form: Form
    groups: tuple[Group, ...]
    wait: Wait

    @property
    def sets(self) -> list[Group]:
        return [g for g in self.groups if g.type in ("pung", "kong")]

    @property
    def chows(self) -> list[Group]:
        return [g for g in self.groups if g.type == "chow"]

    @property
    def pairs(self) -> list[Group]:
        return [g for g in self.groups if g.type == "pair"]


# ---- decomposition of the concealed tiles (counts over the 34 kinds) ---------------------------

Raw = tuple[tuple[str, int, int], ...]  # (type, kind index, wildcards used)


@lru_cache(maxsize=65536)
def _standard(counts: tuple[int, ...], wild: int, sets: int, pair: bool) -> tuple[Raw, ...]:
    """Every way to read `counts` (+ `wild` jokers) as `sets` sets and, if `pair`, one pair."""
    i = next((k for k, c in enumerate(counts) if c), -1)
    if i < 0:  # only jokers left: they form whole sets / the pair on their own
        need = 3 * sets + (2 if pair else 0)
        if wild != need:
            return ()
        filler: Raw = tuple(("pung", -1, 3) for _ in range(sets)) + ((("pair", -1, 2),) if pair else ())
        return (filler,)
    out: list[Raw] = []
    c = list(counts)

    def recurse(group: tuple[str, int, int], new: list[int], used: int, s: int, p: bool) -> None:
        if used > wild or s < 0:
            return
        for rest in _standard(tuple(new), wild - used, s, p):
            out.append((group,) + rest)

    if sets:
        have = min(c[i], 3)
        new = c.copy()
        new[i] -= have
        recurse(("pung", i, 3 - have), new, 3 - have, sets - 1, pair)
        if i < 27:  # chows holding tile i: starting at i, or below it with jokers for the missing low tiles
            for low in range(max(i - 2, i - i % 9), i + 1):
                if low % 9 > 6:
                    continue
                new = c.copy()
                used = 0
                for j in (low, low + 1, low + 2):
                    if j >= i and new[j]:
                        new[j] -= 1
                    else:
                        used += 1
                if low < i and not wild:
                    continue
                recurse(("chow", low, used), new, used, sets - 1, pair)
    if pair:
        have = min(c[i], 2)
        new = c.copy()
        new[i] -= have
        recurse(("pair", i, 2 - have), new, 2 - have, sets, False)
    return tuple(dict.fromkeys(tuple(sorted(r)) for r in out))  # one reading per set of groups


def _counts(tiles: list[str]) -> tuple[int, ...]:
    c = [0] * len(KINDS)
    for t in tiles:
        c[_INDEX[t]] += 1
    return tuple(c)


def _seven_pairs(tiles: list[str], wild: int) -> bool:
    held = Counter(tiles)
    singles = sum(n % 2 for n in held.values())
    return len(tiles) + wild == 14 and singles <= wild


def _seven_pairs_readings(plain: list[str], wild: int, wildcard: str | None) -> list[Shape]:
    """The seven pairs of `plain` and its `wild` jokers (鬼牌 "可以做其他任意点数的牌", seed 001): each single takes a
    joker; jokers left over pair up as any kind the hand holds or as themselves (a second pair of a kind makes its
    four, 豪华七对). Before, joker-made pairs were left out of the reading, so its faces lacked them: a 七对 of 万
    and a 东 paired with a 鬼牌 read as 清一色."""
    held = Counter(plain)
    order = sorted(held, key=T.sort_key)
    base = [Group("pair", k) for k in order for _ in range(held[k] // 2)]
    base += [Group("pair", k, wild=1) for k in order if held[k] % 2]
    spare = (wild - sum(held[k] % 2 for k in order)) // 2
    choices = sorted(set(order) | ({wildcard} if wildcard else set()), key=T.sort_key)
    return [Shape("seven_pairs", tuple(sorted(base + [Group("pair", k, wild=2) for k in picked],
                                              key=lambda g: T.sort_key(g.kind))), "pair")
            for picked in combinations_with_replacement(choices, spare)]


def _thirteen_orphans(tiles: list[str], wild: int) -> bool:
    if len(tiles) + wild != 14 or any(t not in ORPHANS for t in tiles):
        return False
    held = Counter(tiles)
    missing = len(ORPHANS - set(held))
    extra = sum(n - 1 for n in held.values())
    return missing <= wild and extra <= 1


def _knitted(tiles: list[str]) -> bool:
    """十四不靠 (竞技 大乱): 14 distinct tiles, no two of a suit closer than three apart.

    Seed 004 第九条 三 6: "大乱（十四不靠）：所有序数牌张不连不夹，并含单张字牌的和牌" (不连: no
    neighbour, 不夹: no gap of one). So 159m or 147m beside 147p are 大乱 too: it asks neither
    MCR 全不靠's 147/258/369 families nor a different family in each suit.
    """
    if len(tiles) != 14 or len(set(tiles)) != 14:
        return False
    ranks: dict[str, list[int]] = {}
    for t in tiles:
        if T.is_suited(t):
            ranks.setdefault(T.suit(t), []).append(T.rank(t))
    return all(b - a >= 3 for held in ranks.values() for a, b in zip(sorted(held), sorted(held)[1:]))


_KNIT = ((1, 4, 7), (2, 5, 8), (3, 6, 9))


def _knitted_straights(plain: list[str], declared: tuple[Group, ...], hand: HandInput) -> list[Shape]:
    """组合龙: 147, 258, 369 in three different suits, plus a set and a pair."""
    out: list[Shape] = []
    ranks: dict[str, set[int]] = {s: set() for s in T.SUITS}
    for t in plain:  # codes are validated: read them directly, this runs for every candidate wait
        if t[-1] in ranks:
            ranks[t[-1]].add(int(t[:-1]))
    full = {s: {k for k, triple in enumerate(_KNIT) if set(triple) <= ranks[s]} for s in T.SUITS}
    if sum(1 for s in T.SUITS if full[s]) < 3:  # each suit must hold one whole triple
        return out
    for order in (("m", "p", "s"), ("m", "s", "p"), ("p", "m", "s"), ("p", "s", "m"), ("s", "m", "p"), ("s", "p", "m")):
        knit = [f"{r}{s}" for ranks, s in zip(_KNIT, order) for r in ranks]
        rest = Counter(plain)
        if any(rest[t] < 1 for t in knit):
            continue
        rest.subtract(knit)
        left = [t for t, n in rest.items() for _ in range(n)]
        for raw in _standard(_counts(left), 0, 1 - len(declared), True):
            groups = tuple(Group(type=t, kind=KINDS[i]) for t, i, _ in raw)  # type: ignore[arg-type]
            singles = tuple(Group("single", t) for t in knit)
            wait: Wait = "other"
            for g in groups:
                if hand.win_tile in g.tiles():
                    wait = _wait_of(g, hand.win_tile)
            out.append(Shape("knitted_straight", declared + groups + singles, wait))
    return out


def _wait_of(group: Group, win: str) -> Wait:
    if group.type == "pair":
        return "pair"
    if group.type in ("pung", "kong"):
        return "pung"
    r = T.rank(win) - T.rank(group.kind)
    if r == 1:
        return "closed"
    low = T.rank(group.kind)
    if (r == 2 and low == 1) or (r == 0 and low == 7):
        return "edge"
    return "sides"


def _joker_kinds(raw: Raw) -> list[list[Group]]:
    """The groups of `raw`, a set or pair made of jokers alone read as each kind in turn (鬼牌 "可以做其他任意点数的牌",
    seed 001). Before, it read only as the 鬼牌's own kind: three 一万 鬼牌 could not be the 中 pung of a 大三元."""
    options = [[Group(type=t, kind=k, wild=w) for k in (KINDS if i < 0 else (KINDS[i],))]  # type: ignore[arg-type]
               for t, i, w in raw]
    return [list(picked) for picked in product(*options)]


def readings(hand: HandInput, wildcard: str | None = None, *, knitted: bool = False) -> list[Shape]:
    """Every winning reading of the hand; empty when the tiles do not win.

    `wildcard` is the 鬼牌 kind (any tile); `knitted` admits 十四不靠 (竞技麻将).
    """
    concealed = list(hand.concealed) + [hand.win_tile]
    wild = sum(1 for t in concealed if t == wildcard) if wildcard else 0
    plain = [t for t in concealed if t != wildcard] if wildcard else concealed
    declared = tuple(Group(type="chow" if m.type == "chi" else m.type, kind=m.kind,
                           concealed=m.concealed, declared=True) for m in hand.melds)
    win_is_wild = wildcard is not None and hand.win_tile == wildcard
    shapes: list[Shape] = []
    sets_needed = 4 - len(hand.melds)
    for groups in (g for raw in _standard(_counts(plain), wild, sets_needed, True) for g in _joker_kinds(raw)):
        # the winning tile completed one of the groups holding its kind; a discard exposes it
        places = [k for k, g in enumerate(groups) if not win_is_wild and hand.win_tile in g.tiles()]
        for k in places or [-1]:
            made = list(groups)
            wait: Wait = "other"
            if k >= 0:
                wait = _wait_of(made[k], hand.win_tile)
                if not hand.self_drawn and made[k].type == "pung":
                    made[k] = Group("pung", made[k].kind, concealed=False, wild=made[k].wild)
            shapes.append(Shape("standard", declared + tuple(made), wait))
    if not hand.melds:
        if _seven_pairs(plain, wild):
            shapes.extend(_seven_pairs_readings(plain, wild, wildcard))
        if _thirteen_orphans(plain, wild):
            # a 鬼牌 stands for each orphan missing: before, those were left out and 十三幺 with 一九万 and 一九筒 as 鬼牌
            # read as 混一色 too
            jokers = tuple(Group("single", t, wild=1) for t in T.sort_tiles(list(ORPHANS - set(plain))))
            shapes.append(Shape("thirteen_orphans", tuple(Group("single", t) for t in T.sort_tiles(plain)) + jokers,
                                "other"))
        if knitted and not wild and _knitted(plain):
            shapes.append(Shape("knitted", tuple(Group("single", t) for t in T.sort_tiles(plain)), "other"))
    if knitted and not wild and len(hand.melds) <= 1:
        shapes.extend(_knitted_straights(plain, declared, hand))
    return list(dict.fromkeys(shapes))


def is_winning(hand: HandInput, wildcard: str | None = None, *, knitted: bool = False) -> bool:
    return bool(readings(hand, wildcard, knitted=knitted))

"""The next round's seating (编排), proposed from the standings: who plays whom, in which chair.

Swiss order: the players ranked as the standings rank them are seated four to a table from the
top (1–4 at the first table, 5–8 at the next …), so players of like results meet. Players who met
before are then moved apart where a swap between neighbouring tables lowers the number of repeat
meetings, and where a pair would still meet a third time, a swap with the table after next that
parts them. Within a table the chairs are given so that as few players as possible sit again in a
chair they had before (seed 004 六: 换座不得重复座位就坐), then so that no one piles up rounds in
one chair once they have had them all, ties broken by a draw from a seed, so the same standings
give the same seating. Players beyond a multiple of four sit out (轮空) and are
listed: the lowest ranked of those who have sat out least.

Pure: standings in, seating out; the hub serves it (`GET /api/pairings`) and the organiser posts it.
"""

from __future__ import annotations

import itertools
import random
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from table_controller.printable import first_unprintable

CHAIRS = ("1", "2", "3", "4")
#: Passes of the swap search; each pass only ever lowers the repeat count, so it ends well before.
MAX_PASSES = 50


@dataclass(frozen=True)
class Entrant:
    """A player as the standings know them: `key` (registration number, else name), rank, and
    where they sat in the rounds played (`chairs` they had, `met`: the keys of their opponents)."""

    key: str
    name: str
    id: str
    rank: int
    chairs: frozenset[str] = frozenset()
    met: frozenset[str] = frozenset()
    #: rounds the player has a result for: fewer than the others, they sat out (or came late)
    played: int = 0
    #: how many times the player met each of `met` (absent: once)
    times: Mapping[str, int] = field(default_factory=dict)
    #: how many rounds the player sat in each of `chairs` (absent: once)
    chair_times: Mapping[str, int] = field(default_factory=dict)


@dataclass
class Seating:
    round: int
    tables: list[dict[str, Any]] = field(default_factory=list)
    byes: list[dict[str, Any]] = field(default_factory=list)
    repeat_meetings: int = 0
    repeat_chairs: int = 0

    def to_json(self) -> dict[str, Any]:
        return {"round": self.round, "method": "swiss", "tables": self.tables, "byes": self.byes,
                "repeat_meetings": self.repeat_meetings, "repeat_chairs": self.repeat_chairs}


def entrants(standings: dict[str, Any]) -> list[Entrant]:
    """The players of `Hub.standings()`, with the chairs they had and whom they met, by round and table."""
    every = standings.get("players", [])
    key_of = {id(p): (f"id:{p['id']}" if p.get("id") else f"name:{p['name']}") for p in every}
    at: dict[tuple[str, int], list[str]] = {}
    for p in every:  # a stand-in (陪打) met the others too, but is not seated again
        for t in p.get("tables", []):
            at.setdefault((t["table_id"], t["round"]), []).append(key_of[id(p)])
    players = [p for p in every if not p.get("stand_in")]
    out = []
    for p in players:
        key = key_of[id(p)]
        met = Counter(other for t in p.get("tables", []) for other in at[(t["table_id"], t["round"])] if other != key)
        sat = Counter(str(t["position"]) for t in p.get("tables", []))
        out.append(Entrant(key=key, name=p["name"], id=p.get("id", ""), rank=int(p["rank"]),
                           chairs=frozenset(sat), met=frozenset(met),
                           played=len({t["round"] for t in p.get("tables", [])}), times=dict(met),
                           chair_times=dict(sat)))
    return sorted(out, key=lambda e: (e.rank, e.key))


def registered(path: Any) -> list[dict[str, str]]:
    """The tournament's players from a registration list: UTF-8 CSV, one player a line, `id,name`
    (a header line `id,name` is skipped; the id may be empty). `ValueError` names the bad line, in the
    organiser's words first (they were English alone). Two players of one name both need numbers: a
    table that keys the name alone would be taken for either (the numbered one was counted as having
    played and left out of the seating), and a list of no players is a wrong file, not a tournament. A name
    or number with an invisible or control character (`printable`: a zero-width space pasted from a
    spreadsheet) is refused: the tables refuse those, so the player keyed as 甲 was another than the listed
    "甲\u200b", sat out as never played and was seated twice."""
    import csv

    try:
        text = open(path, encoding="utf-8-sig").read()
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"{path}：报名名单无法按 UTF-8 文本读取 / cannot be read as UTF-8 text ({exc})") from None
    out: list[dict[str, str]] = []
    seen: dict[str, int] = {}
    named: dict[str, tuple[int, str]] = {}  # a name → the first line and number it was listed with
    for n, row in enumerate(csv.reader(text.splitlines()), start=1):
        if not row or not any(c.strip() for c in row) or (n == 1 and [c.strip().lower() for c in row[:2]] == ["id", "name"]):
            continue
        if len(row) != 2 or not row[1].strip():
            raise ValueError(f"{path} 第 {n} 行：应为「编号,姓名」两栏（编号可空），姓名不能为空，收到 {row!r} / "
                             f"line {n}: expected id,name (the id may be empty), got {row!r}")
        pid, name = row[0].strip(), row[1].strip()
        for what, en, text in (("编号", "number", pid), ("姓名", "name", name)):
            if (found := first_unprintable(text)) is not None:  # 甲 keyed at a table would be another player
                raise ValueError(f"{path} 第 {n} 行：{what} {text!r} 含有不可见字符或控制字符（第 {found[0]} 个字符，"
                                 f"{found[1]}），与各桌录入的不是同一选手 / line {n}: the {en} {text!r} has an invisible "
                                 f"or control character (character {found[0]}, {found[1]}): not the player a table "
                                 "keys")
        key = f"id:{pid}" if pid else f"name:{name}"
        if key in seen:
            raise ValueError(f"{path} 第 {n} 行：{'编号' if pid else '姓名'} {pid or name} 与第 {seen[key]} 行重复 / "
                             f"line {n}: {pid or name} is listed twice")
        if name in named and not (pid and named[name][1]):
            raise ValueError(f"{path} 第 {n} 行：{name} 与第 {named[name][0]} 行同名，同名选手须各有编号 / "
                             f"line {n}: {name} is listed twice; players of one name each need a number")
        seen[key] = n
        named.setdefault(name, (n, pid))
        out.append({"id": pid, "name": name})
    if not out:
        raise ValueError(f"{path}：报名名单中没有选手 / no players listed (one a line: id,name)")
    return out


def with_registered(players: list[Entrant], listed: Sequence[dict[str, str]], seed: str) -> list[Entrant]:
    """The ranked players and, after them, the registered players with no result yet, in an order
    drawn from `seed` (抽签): round 1 is seated by that draw alone. A registered player has a result
    when a table gave their number, or their name without a number."""
    ids = {e.id for e in players if e.id}
    names = {e.name for e in players if not e.id}  # a table that keys no numbers: the name it gave
    rest = [p for p in listed if not ((p["id"] and p["id"] in ids) or p["name"] in names)]
    random.Random(f"{seed}:draw").shuffle(rest)
    last = max((e.rank for e in players), default=0)
    return players + [Entrant(key=f"id:{p['id']}" if p["id"] else f"name:{p['name']}", name=p["name"], id=p["id"],
                              rank=last + 1 + i) for i, p in enumerate(rest)]


#: A group of players with no table known to seat them at (the venue's tables not listed, not yet on):
#: in words, for the posted seating; it was "T2", which no player finds in the hall.
NO_TABLE = "第{n}组（无桌）"


def propose(players: Sequence[Entrant], tables: Sequence[tuple[str, str]], round_no: int,
            seed: str = "", tables_only: bool = False) -> Seating:
    """The seating of round `round_no` for `players` (ranked) at `tables` ((id, name), in order;
    more groups than tables are T2, T3 … (`NO_TABLE`: 第2组（无桌）), unless `tables_only`: a table out of service
    leaves fewer chairs than players, and those beyond them sit out as the byes do)."""
    ranked = sorted(players, key=lambda e: (e.rank, e.key))
    chairs = len(ranked) - len(ranked) % 4
    if tables_only:
        chairs = min(chairs, 4 * len(tables))
    # the byes: the lowest ranked of those who have sat out least. By rank alone the one who sat out
    # stayed lowest (a round without a result) and sat out every round after
    out = sorted(ranked, key=lambda e: (-e.played, -e.rank, e.key))[: len(ranked) - chairs]
    seated = [e for e in ranked if e not in out]
    byes = [e for e in ranked if e in out]
    groups = [list(seated[i:i + 4]) for i in range(0, len(seated), 4)]
    _spread(groups)
    out = Seating(round=round_no, byes=[_who(e) for e in byes])
    for k, group in enumerate(groups):
        table_id, table_name = tables[k] if k < len(tables) else (f"T{k + 1}", NO_TABLE.format(n=k + 1))
        rng = random.Random(f"{seed}:{round_no}:{table_id}")
        order = _chairs(group, rng)
        repeats = _meetings(group)
        again = sum(1 for chair, e in zip(CHAIRS, order) if chair in e.chairs)
        out.tables.append({"table_id": table_id, "table_name": table_name,
                           "seats": {chair: _who(e) for chair, e in zip(CHAIRS, order)},
                           "repeat_meetings": repeats, "repeat_chairs": again})
        out.repeat_meetings += repeats
        out.repeat_chairs += again
    return out


def keep_published(players: Sequence[Entrant], tables: Sequence[tuple[str, str]], round_no: int,
                   published: Sequence[Mapping[str, Any]], seed: str = "", tables_only: bool = False) -> Seating:
    """A round's seating published before, after a change (a player late, back or withdrawn, a table
    out of service): each table still in service whose four players are all still seated keeps them in
    their chairs (they may be sitting there already); only the others are seated afresh (`propose`)
    at the tables left. Proposing the whole round again moved every player in the hall for one late
    arrival, since the draw and the Swiss order run over the whole list. `published`: the tables'
    seating messages (`table_id`, `players` and `player_ids` by chair)."""
    by_key = {e.key: e for e in players}
    in_service = {t for t, _ in tables}
    kept: dict[str, dict[str, Any]] = {}
    used: set[str] = set()
    for msg in published:
        ids = msg.get("player_ids") or {}
        keys = {c: f"id:{ids[c]}" if ids.get(c) else f"name:{n}" for c, n in (msg.get("players") or {}).items()}
        if msg.get("table_id") not in in_service or sorted(keys) != list(CHAIRS) \
                or not all(k in by_key and k not in used for k in keys.values()):
            continue
        used |= set(keys.values())
        group = [by_key[keys[c]] for c in CHAIRS]
        kept[msg["table_id"]] = {"table_id": msg["table_id"], "table_name": dict(tables)[msg["table_id"]],
                                 "seats": {c: _who(e) for c, e in zip(CHAIRS, group)},
                                 "repeat_meetings": _meetings(group),
                                 "repeat_chairs": sum(1 for c, e in zip(CHAIRS, group) if c in e.chairs)}
    rest = propose([e for e in players if e.key not in used], [t for t in tables if t[0] not in kept], round_no,
                   seed=seed, tables_only=tables_only)
    order = {t: i for i, (t, _) in enumerate(tables)}
    out = Seating(round=round_no, byes=rest.byes,
                  tables=sorted([*kept.values(), *rest.tables], key=lambda t: order.get(t["table_id"], len(order))))
    out.repeat_meetings = sum(t["repeat_meetings"] for t in out.tables)
    out.repeat_chairs = sum(t["repeat_chairs"] for t in out.tables)
    return out


def _who(e: Entrant) -> dict[str, Any]:
    return {"name": e.name, "id": e.id, "rank": e.rank}


def _meetings(group: Sequence[Entrant]) -> int:
    return sum(1 for a, b in itertools.combinations(group, 2) if b.key in a.met)


def _cost(group: Sequence[Entrant]) -> int:
    """Repeat meetings weighed by how often the pair met: a third meeting costs four times a second,
    so the swaps spread them (by count alone a pair met in rounds 1, 2 and 3)."""
    return sum(a.times.get(b.key, 1) ** 2 for a, b in itertools.combinations(group, 2) if b.key in a.met)


def _thirds(group: Sequence[Entrant]) -> int:
    """The pairs of `group` who met twice or more already (they would meet a third time), weighed as `_cost`."""
    return sum(a.times.get(b.key, 1) ** 2 for a, b in itertools.combinations(group, 2)
               if b.key in a.met and a.times.get(b.key, 1) >= 2)


def _spread(groups: list[list[Entrant]]) -> None:
    """Swap players between neighbouring tables while that lowers the repeat meetings (in place); then,
    where a pair would still meet a third time, between a table and the one after next while that
    lowers the third meetings. Neighbours alone left a pair that met twice together again whenever
    the tables either side had met them too: 16 players' 7 rounds had a third meeting in 28 of 30
    tournaments, 36 players' 7 rounds in 10 (`tests/tournament/test_pairing.py`)."""
    _swaps(groups, 1, lambda g: (_cost(g),))
    if any(_thirds(g) for g in groups):
        _swaps(groups, 2, lambda g: (_thirds(g), _cost(g)))


def _swaps(groups: list[list[Entrant]], reach: int, cost: Any, strict: int | None = None) -> None:
    """Swap one player of a table with one of a table up to `reach` after it while that lowers the
    summed `cost` (a tuple, compared in order); `strict`: the place in it a swap must lower."""
    def total(*gs: list[Entrant]) -> tuple[int, ...]:
        return tuple(map(sum, zip(*(cost(g) for g in gs))))

    for _ in range(MAX_PASSES):
        improved = False
        for g in range(len(groups) - 1):
            for h in range(g + 1, min(len(groups), g + 1 + reach)):
                a, b = groups[g], groups[h]
                now = total(a, b)
                best = (now, None)
                for i, j in itertools.product(range(4), range(4)):
                    a2, b2 = a[:i] + [b[j]] + a[i + 1:], b[:j] + [a[i]] + b[j + 1:]
                    new = total(a2, b2)
                    if new < best[0] and (strict is None or new[strict] < now[strict]):
                        best = (new, (i, j))
                if best[1] is not None:
                    i, j = best[1]
                    a[i], b[j] = b[j], a[i]
                    improved = True
        if not improved:
            return


def _sat(e: Entrant, chair: str) -> int:
    """How many rounds `e` sat in `chair`."""
    return e.chair_times.get(chair, 1) if chair in e.chairs else 0


def _chairs(group: Sequence[Entrant], rng: random.Random) -> tuple[Entrant, ...]:
    """The order of `group` in chairs 1..4 with fewest players back in a chair they had, then fewest
    piling rounds in one chair (the rounds each already sat in the chair given, squared); a draw among
    the equally good. By the first alone, once a player had sat in all four chairs (round 5 on) any
    chair was as good: 16 players' 9 rounds put someone in one chair 6 times and another never."""
    orders = list(itertools.permutations(group))
    rng.shuffle(orders)
    return min(orders, key=lambda o: (sum(1 for chair, e in zip(CHAIRS, o) if chair in e.chairs),
                                      sum(_sat(e, chair) ** 2 for chair, e in zip(CHAIRS, o))))

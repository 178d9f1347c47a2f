"""A synthetic tournament day as the hub receives it, for `bench/hubload.py` and the hub's load tests.

Each table plays `hands` hands a round for `rounds` rounds: per hand `events` public events (the `prev`
chain unbroken), a standing after each hand (the last of a round final) and the hand's public record
(one of four real records of the simulator's players, renamed to the table's players). Players are
registered P001.. and seated afresh each round by a seeded shuffle. Messages come table by table in
turn, as a hall's tables play side by side.
"""

from __future__ import annotations

import contextlib
import json
import random
import tempfile
from collections.abc import AsyncIterator, Iterator
from functools import cache
from pathlib import Path
from typing import Any

from table_controller.tournament.wire import POSITIONS

TOURNAMENT = "cup"
PREFIX = "mahjong"


@cache
def template_records() -> tuple[str, ...]:
    """Four hands' public records of a simulated MCR session (JSON text: each use takes a fresh copy)."""
    from table_controller.record import session_records
    from table_controller.state import fold
    from table_controller.store import EventStore
    from tablesim.session import write_session

    with tempfile.TemporaryDirectory(prefix="hubday-") as tmp:
        store = EventStore(Path(tmp) / "one.sqlite3")
        write_session(store, "mcr", 4, seed=6)
        events = store.since(0)
        store.close()
    return tuple(json.dumps(r, ensure_ascii=False) for r in session_records(events, state=fold(events)))


def players(tables: int) -> list[dict[str, str]]:
    """The registration list: four players a table."""
    return [{"id": f"P{k:03d}", "name": f"选手{k:03d}"} for k in range(1, 4 * tables + 1)]


def table_ids(tables: int) -> list[str]:
    return [f"t{k:02d}" for k in range(1, tables + 1)]


def _msg(table_id: str, **body: Any) -> bytes:
    return json.dumps({"v": 1, "tournament": TOURNAMENT, "table_id": table_id, **body}, ensure_ascii=False).encode()


#: Events between two standings a table sends in play (it sends one at most every half second)
STANDING_EVERY = 5


def _standing(table_id: str, seq: int, round_no: int, who: list[dict[str, str]], score: list[int], hand_no: int,
              final: bool) -> bytes:
    ranks = sorted(range(4), key=lambda k: (-score[k], k))
    return _msg(table_id, seq=seq, round=round_no, at=1.8e9 + seq, table_name=table_id, ruleset="mcr",
                players={c: who[k]["name"] for k, c in enumerate(POSITIONS)},
                player_ids={c: who[k]["id"] for k, c in enumerate(POSITIONS)},
                totals={str(k + 1): score[k] for k in range(4)},
                table_points={str(k + 1): (4, 2, 1, 0)[ranks.index(k)] for k in range(4)},
                final=final, hand_no=hand_no, hands_played=hand_no, phase="closed" if final else "playing",
                phase_zh="本轮结束" if final else "对局中")


def day(tables: int, rounds: int, hands: int, events: int = 20, seed: int = 1) -> Iterator[tuple[str, bytes, str]]:
    """(topic, payload, kind) of the day in the order the hub receives them; kind "event", "state" or "record"."""
    rng = random.Random(seed)
    registered = players(tables)
    ids = table_ids(tables)
    seq = dict.fromkeys(ids, 0)
    totals: dict[tuple[str, int], list[int]] = {}
    for round_no in range(1, rounds + 1):
        order = registered[:]
        rng.shuffle(order)
        seated = {t: order[4 * k:4 * k + 4] for k, t in enumerate(ids)}
        for hand_no in range(1, hands + 1):
            for table_id in ids:
                topic = f"{PREFIX}/{TOURNAMENT}/{table_id}"
                score = totals.setdefault((table_id, round_no), [0, 0, 0, 0])
                who = seated[table_id]
                for k in range(1, events + 1):
                    seq[table_id] += 1
                    s = seq[table_id]
                    yield f"{topic}/events", _msg(table_id, seq=s, prev=s - 1, at=1.8e9 + s, source="table",
                                                   type="play.discard", data={"seat": "E", "tile": "5m"}), "event"
                    if k % STANDING_EVERY == 0:  # in play the standing moves (the phase, the turn), not the scores
                        yield f"{topic}/state", _standing(table_id, s, round_no, who, score, hand_no, False), "state"
                won = rng.randrange(4)
                for k in range(4):
                    score[k] += 24 if k == won else -8
                yield f"{topic}/state", _standing(table_id, seq[table_id], round_no, who, score, hand_no,
                                                  hand_no == hands), "state"
                record = json.loads(template_records()[(hand_no - 1) % 4])
                record.update(hand_no=hand_no, round=round_no, table_name=table_id, view="public")
                for seat in record["seats"].values():
                    seat["player"] = who[int(seat["player_no"]) - 1]["name"]
                yield f"{topic}/records", _msg(table_id, seq=seq[table_id], round=round_no, hand_no=hand_no,
                                               record=record), "record"


def expected_standings(tables: int, rounds: int, hands: int, seed: int = 1) -> dict[str, tuple[float, int]]:
    """Each player's (标准分, points) summed from the day's final standings, by registration number."""
    final: dict[tuple[str, int], dict[str, Any]] = {}
    for topic, payload, kind in day(tables, rounds, hands, events=0, seed=seed):
        if kind == "state":
            msg = json.loads(payload)
            final[(msg["table_id"], msg["round"])] = msg
    out: dict[str, tuple[float, int]] = {}
    for msg in final.values():
        for chair in POSITIONS:
            pid = msg["player_ids"][chair]
            tp, pts = out.get(pid, (0.0, 0))
            out[pid] = (tp + msg["table_points"][chair], pts + msg["totals"][chair])
    return out


@contextlib.asynccontextmanager
async def started_hub(path: Path, tables: int) -> AsyncIterator[Any]:
    """A hub on no broker (messages are handed to it), registered for this synthetic day's players and
    tables, its pages on a free port, organiser credential "org"; stopped after."""
    from table_controller.tournament.web import HubService

    service = HubService("mqtt://127.0.0.1:9", TOURNAMENT, path, port=0, registered=players(tables),
                         expected=table_ids(tables), organizer_token="org")
    await service.start()
    try:
        yield service
    finally:
        await service.stop()


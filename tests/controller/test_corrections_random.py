"""Seeded random sequences of plays, corrections (a tile or a seat put right, a play voided, a play
inserted before or after one, beside one inserted) and undos over simulated 国标 hands
(`corrections.py`, `referee.undo`). After each step the folded hand (pools, melds, flowers, the wall's
count, the turn) is the hand folded from its start with the play list as corrected, keyed right; a
refused correction or undo leaves the state and the log as they were. About 5 s."""

from __future__ import annotations

import copy
import random
from typing import Any

import pytest

from table_controller.controller import _play_problem
from table_controller.referee import validate
from table_controller.state import TableState, apply, fold

from test_referee_fold import Log  # type: ignore[import-not-found]

TILES = [f"{r}{s}" for s in "mps" for r in range(1, 10)] + [f"{r}z" for r in range(1, 8)]
FLOWERS = [f"{r}f" for r in range(1, 9)]


def _dealt() -> Log:
    log = Log("mcr")
    log.start(hand_no=1, dealer=1)
    log.add("table", "table.dice", {"seat": "E", "wind": "E", "dice": [3, 4]})
    log.add("table", "table.dice", {"seat": "W", "wind": "W", "dice": [2, 5]})
    log.add("operator", "play.deal_done", {})
    return log


def _seen(hand: dict[str, Any]) -> dict[str, Any]:
    """What the property compares: the pools, melds, flowers, the wall's count and whose turn for what."""
    turn = hand.get("turn") or {}
    return {"discards": {w: [(d["tile"], d.get("claimed")) for d in pool] for w, pool in hand["discards"].items()},
            "melds": {w: [(m.get("type"), m.get("tiles"), m.get("from")) for m in ms] for w, ms in hand["melds"].items()},
            "flowers": hand["flowers"], "tiles_left": hand.get("tiles_left"),
            "turn": (turn.get("seat"), turn.get("kind"))}


def _keyed_right(plays: list[dict[str, Any]]) -> dict[str, Any]:
    """The hand as if the plays in force had been keyed so, in this order, from its start."""
    log = _dealt()
    for p in plays:
        if not p["void"]:
            log.add("operator", p["type"], dict(p["data"]))
    return _seen(log.state().hand)


def _next_play(s: TableState, rng: random.Random) -> tuple[str, dict[str, Any]] | None:
    """A play the table would take now (the controller's checks): a discard, a flower, a pung of the last discard."""
    hand = s.hand
    turn = (hand.get("turn") or {}).get("seat") or "E"
    last = max(((d["seq"], w, d["tile"]) for w, pool in hand["discards"].items() for d in pool), default=None)
    for _ in range(30):
        r = rng.random()
        if r < 0.15:
            type_, data = "play.flower", {"seat": turn, "tile": rng.choice(FLOWERS)}
        elif r < 0.3 and last is not None:
            claimer = rng.choice([w for w in "ESWN" if w != last[1]])
            type_, data = "play.claim", {"seat": claimer, "from": last[1], "kind": "pung", "tiles": [last[2]] * 3}
        else:
            type_, data = "play.discard", {"seat": turn, "tile": rng.choice(TILES)}
        if _play_problem(hand, type_, data) is None:
            return type_, data
    return None


def _correction(plays: list[dict[str, Any]], rng: random.Random) -> tuple[dict[str, Any], Any] | None:
    """A random correction of the play list and what it makes of the list if taken (a function)."""
    if not plays:
        return None
    inserted = [p for p in plays if p["inserted"]]
    pick = rng.choice(inserted if inserted and rng.random() < 0.6 else plays)
    ident = pick["ident"]

    def at(ps: list[dict[str, Any]]) -> int:
        return next(i for i, p in enumerate(ps) if p["ident"] == ident)
    r = rng.random()
    if r < 0.5:  # an insertion beside it: a flower of its seat mostly (fits), any discard else (seldom fits)
        after = rng.random() < 0.5
        seat = pick["data"].get("seat", "E")
        play = ({"type": "flower", "seat": seat, "tile": rng.choice(FLOWERS)} if rng.random() < 0.8
                else {"type": "discard", "seat": rng.choice("ESWN"), "tile": rng.choice(TILES)})
        body = {("insert_after" if after else "insert_before"): pick["ident"], "play": play}

        def put(ps: list[dict[str, Any]], seq: int) -> None:  # a later insertion nearer its anchor
            data = {k: v for k, v in play.items() if k != "type"}
            ps.insert(at(ps) + 1 if after else at(ps), {"ident": seq, "type": f"play.{play['type']}", "data": data,
                                              "orig": data, "void": False, "inserted": True})
        return body, put
    if r < 0.65:
        body = {"target": pick["ident"], "void": True}

        def void(ps: list[dict[str, Any]], seq: int) -> None:
            ps[at(ps)]["void"] = True
        return body, void
    field = "tile" if pick["type"] in ("play.discard", "play.flower") and rng.random() < 0.7 else "seat"
    if field == "tile":
        value: Any = rng.choice(FLOWERS if pick["type"] == "play.flower" else TILES)
    else:
        value = rng.choice("ESWN")
    body = {"target": pick["ident"], field: value}

    def fix(ps: list[dict[str, Any]], seq: int) -> None:  # fields after a void restore the play as recorded
        p = ps[at(ps)]
        base = p["orig"] if p["void"] else p["data"]
        p["data"], p["void"] = {**base, field: value}, False
    return body, fix


def _taken(log: Log, s: TableState, type_: str, body: dict[str, Any]) -> TableState | None:
    """`s` after the referee's action if the service takes it (the log grows by it); None, state and log
    untouched, if refused."""
    data = {**body, "reason": "随机", "by": "referee", "client": None}
    hand, actions, events = copy.deepcopy(s.hand), copy.deepcopy(s.actions), list(log.events)
    try:
        validate(s, type_, data)
    except ValueError as err:
        assert str(err), body
        assert s.hand == hand and s.actions == actions and log.events == events, body  # nothing changed
        return None
    return apply(s, log.ref(type_, **{k: v for k, v in data.items() if k != "by"}))


def _session(seed: int, steps: int) -> tuple[int, int, int]:
    rng = random.Random(seed)
    log = _dealt()
    s = log.state()
    keyed: list[dict[str, Any]] = []  # the plays as keyed
    done: list[tuple[int, Any]] = []  # the corrections in force, oldest first: (seq, what it makes of the list)

    def in_force() -> list[dict[str, Any]]:
        ps = copy.deepcopy(keyed)
        for seq, change in done:
            change(ps, seq)
        return ps

    plays = in_force()
    undos: list[int] = []
    taken = refused = beside = 0
    for _ in range(steps):
        r = rng.random()
        if r < 0.45 or not plays:
            nxt = _next_play(s, rng)
            if nxt is None:
                break
            ev = log.add("operator", nxt[0], nxt[1])
            s = apply(s, ev)
            keyed.append({"ident": ev.seq, "type": nxt[0], "data": nxt[1], "orig": nxt[1], "void": False,
                          "inserted": False})
        elif r < 0.85:
            got = _correction(plays, rng)
            if got is None:
                continue
            body, change = got
            after = _taken(log, s, "referee.play_correct", body)
            if after is None:
                refused += 1
                continue
            taken += 1
            anchor = body.get("insert_before") or body.get("insert_after")
            beside += any(p["ident"] == anchor and p["inserted"] for p in plays)
            done.append((after.seq, change))
            s = after
        elif done and rng.random() < 0.8:
            after = _taken(log, s, "referee.undo", {"target": done[-1][0]})
            if after is None:
                refused += 1
                continue
            undos.append(after.seq)
            done.pop()
            s = after
        elif undos:  # an undo of an undo: refused, saying so
            data = {"target": undos[-1], "reason": "恢复", "by": "referee"}
            with pytest.raises(ValueError, match="这是一次撤销"):
                validate(s, "referee.undo", data)
            refused += 1
        plays = in_force()
        assert _seen(s.hand) == _keyed_right(plays), (seed, log.events[-1])
    assert _seen(fold(log.events).hand) == _keyed_right(plays), seed  # the whole log folds as the steps did
    return taken, refused, beside, len(undos)


def test_random_corrections_fold_as_the_plays_keyed_right() -> None:
    """Eight seeded hands of 100 steps (the seed is in any failure's message). Before `corrections.layout`
    took only plays as places, every insertion beside an inserted play was refused (folded twice, the
    second copy out of turn) or, where it fitted, folded twice: here none would have been taken."""
    counts = {seed: _session(seed, 100) for seed in range(8)}
    assert all(taken >= 3 and refused >= 1 and undone >= 1 for taken, refused, _, undone in counts.values()), counts
    assert sum(beside for _, _, beside, _ in counts.values()) >= 8, counts

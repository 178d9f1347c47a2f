"""Benchmark of the restart: folding a long session's log into the state, and a hand's record.

A table that restarts (a crash, a power cut, a new Pi) replays its whole SQLite log before the
display is back, so the fold's cost per event is the table's downtime. This writes a session of
`--hands` hands played by the simulator's players (dice, every play, the wins read and
confirmed) into a real SQLite log, then times reading it, folding it cold (fresh caches, as a
restart does) and building the last hand's record (牌谱) from the folded state.

Run: `.venv/bin/python bench/replay.py [--hands 40] [--ruleset mcr]`. Prints the figures and a
final JSON line for CI.
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import sys
import tempfile
import time
from pathlib import Path

from tqdm import tqdm

from table_controller.demo import win_judge
from table_controller.rules import deal_plan, load_ruleset, next_thrower, physical_wall
from table_controller.store import EventStore
from tablesim.players import play_hand


def write_session(store: EventStore, ruleset: str, hands: int, seed: int) -> int:
    """Log `hands` hands of the simulator's players; returns the events written."""
    rs = load_ruleset(ruleset)
    judge = win_judge(ruleset, "E")
    rng = random.Random(seed)
    at = 1_800_000_000.0
    n = 0

    def add(source: str, type_: str, data: dict) -> None:
        nonlocal at, n
        at += 1.5
        n += 1
        store.append(source, type_, data, at=at)

    add("controller", "controller.configured", {"table_name": "bench", "ruleset": ruleset,
                                                "players": {str(i): f"p{i}" for i in range(1, 5)}})
    for hand_no in tqdm(range(1, hands + 1), desc="hands logged", unit="hand", file=sys.stderr):
        dice = (rng.randint(1, 6), rng.randint(1, 6))
        dice2 = (rng.randint(1, 6), rng.randint(1, 6)) if rs.throws == 2 else None
        plan = deal_plan(rs, dice, dice2)
        add("operator", "operator.hand_start", {"hand_no": hand_no, "ruleset": ruleset, "dealer_position": 1})
        add("table", "table.dice", {"seat": "E", "wind": "E", "dice": list(dice)})
        if dice2 is not None:  # the seat the first throw counts to throws again (walls.md)
            second = next_thrower(rs, [dice])
            add("table", "table.dice", {"seat": second, "wind": second, "dice": list(dice2)})
        result = "draw"
        for action in play_hand(plan, physical_wall(rs, None, rng), rng, judge):
            if action.type == "win":
                add("referee", "referee.win_read", {"hand": {**action.hand, "prevalent_wind": "E"}, "by": "bench"})
                add("referee", "referee.win_confirm", {"by": "bench"})
                result = "win"
                break
            if action.type == "reveal":
                break
            type_, data = action.event()
            add("camera", type_, {**data, "by": "camera"})
        add("operator", "operator.hand_end", {"hand_no": hand_no, "result": result})
    return n


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=40, help="hands in the session (default 40)")
    parser.add_argument("--ruleset", default="mcr", help="ruleset id (default mcr)")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "events.sqlite3"
        store = EventStore(path)
        written = write_session(store, args.ruleset, args.hands, args.seed)
        store.close()
        # the restart: a fresh process reads and folds the log; here, fresh caches
        from table_controller import state as state_module

        state_module._plan.cache_clear()
        t0 = time.perf_counter()
        store = EventStore(path)
        events = store.since(0)
        t1 = time.perf_counter()
        state = state_module.fold(events)
        t2 = time.perf_counter()
        from table_controller.record import hand_record

        record = hand_record(events, args.hands, state=state)
        t3 = time.perf_counter()
        store.close()
    out = {"bench": "replay", "ruleset": args.ruleset, "hands": args.hands, "events": written,
           "read_ms": round((t1 - t0) * 1000, 1), "fold_ms": round((t2 - t1) * 1000, 1),
           "fold_ms_per_1000_events": round((t2 - t1) * 1000 * 1000 / max(1, written), 1),
           "record_ms": round((t3 - t2) * 1000, 1), "record_lines": len(record["lines"]),
           "hands_won": sum(1 for h in state.hands if h["result"] == "win"),
           "python": platform.python_version(), "machine": platform.machine()}
    print(f"{written} events over {args.hands} hands ({out['hands_won']} won): read {out['read_ms']} ms, "
          f"fold {out['fold_ms']} ms ({out['fold_ms_per_1000_events']} ms per 1000 events), "
          f"last hand's record {out['record_ms']} ms")
    print("JSON", json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())

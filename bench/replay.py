"""Benchmark of the restart: folding a long session's log into the state (whole, and from a snapshot), and a hand's record.

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
import sys
import tempfile
import time
from pathlib import Path

from table_controller.store import EventStore
from tablesim.session import write_session


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
        # the restart as the controller does it: the snapshot (kept every snapshot.EVERY events and at
        # a clean stop; here taken one hand before the end) and the events after it
        from table_controller import snapshot

        last_hand = max(e.seq for e in events if e.type == "operator.hand_start")
        assert snapshot.save(store, state_module.fold(e for e in events if e.seq < last_hand))
        state_module._plan.cache_clear()
        t4 = time.perf_counter()
        restored, folded = snapshot.restore(store)
        t5 = time.perf_counter()
        assert restored == state, "the snapshot and the events after it must fold to the whole log's state"
        store.close()
    out = {"bench": "replay", "ruleset": args.ruleset, "hands": args.hands, "events": written,
           "read_ms": round((t1 - t0) * 1000, 1), "fold_ms": round((t2 - t1) * 1000, 1),
           "fold_ms_per_1000_events": round((t2 - t1) * 1000 * 1000 / max(1, written), 1),
           "record_ms": round((t3 - t2) * 1000, 1), "record_lines": len(record["lines"]),
           "restart_with_snapshot_ms": round((t5 - t4) * 1000, 1), "events_folded_after_snapshot": folded,
           "restart_ratio": round((t2 - t0) / max(1e-9, t5 - t4), 1),
           "hands_won": sum(1 for h in state.hands if h["result"] == "win"),
           "python": platform.python_version(), "machine": platform.machine()}
    print(f"{written} events over {args.hands} hands ({out['hands_won']} won): read {out['read_ms']} ms, "
          f"fold {out['fold_ms']} ms ({out['fold_ms_per_1000_events']} ms per 1000 events), "
          f"last hand's record {out['record_ms']} ms")
    print(f"restart with the snapshot: {out['restart_with_snapshot_ms']} ms ({folded} events folded after it), "
          f"{out['restart_ratio']}x faster than reading and folding the whole log")
    print("JSON", json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())

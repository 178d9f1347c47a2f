"""Benchmark of the log's second copy (`[storage] mirror_dir`): how fast a stick put back catches
up, and what one event costs, against the event log's own append (the reference).

A session of `--hands` hands played by the simulator's players is logged into a real SQLite file
(as `bench/replay.py` does); the mirror then copies it whole into another directory (the stick
back after a whole session out), and afterwards follows the log event by event, as it does
while the table plays. The reference is the main log's own durable append (WAL,
`synchronous=FULL`) of the same events.

Run: `.venv/bin/python bench/mirror.py [--hands 40] [--follow 300]`. Prints the figures and a
final JSON line for CI. On a Pi the stick's write speed, not the CPU, sets the catch-up.
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

from tqdm import tqdm

from replay import write_session
from table_controller.mirror import LogMirror
from table_controller.store import EventStore


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=40, help="hands in the session copied at once (default 40)")
    parser.add_argument("--follow", type=int, default=300, help="events then copied one by one (default 300)")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        store = EventStore(Path(tmp) / "sd" / "events.sqlite3")
        t0 = time.perf_counter()
        written = write_session(store, "mcr", args.hands, args.seed)
        append_s = time.perf_counter() - t0
        stick = Path(tmp) / "usb"
        stick.mkdir()
        mirror = LogMirror(store, stick)
        t0 = time.perf_counter()
        copied = mirror.sync()
        catch_up_s = time.perf_counter() - t0
        appends, copies = [], []
        for i in tqdm(range(args.follow), desc="events followed", unit="event", file=sys.stderr):
            t0 = time.perf_counter()
            store.append("referee", "referee.note", {"text": f"第 {i} 条"}, at=1_900_000_000.0 + i)
            t1 = time.perf_counter()
            assert mirror.sync() == 1
            appends.append(t1 - t0)
            copies.append(time.perf_counter() - t1)
        mirror.close()
        store.close()
        same = EventStore(stick / "events.sqlite3")
        assert same.last_seq() == written + args.follow
        same.close()
    append_ms, copy_ms = statistics.median(appends) * 1000, statistics.median(copies) * 1000
    out = {"bench": "mirror", "hands": args.hands, "events": written, "catch_up_s": round(catch_up_s, 3),
           "catch_up_events_per_s": round(copied / catch_up_s), "logging_events_per_s": round(written / append_s),
           "event_copy_ms_median": round(copy_ms, 2), "event_append_ms_median": round(append_ms, 2),
           "copy_vs_append": round(copy_ms / append_ms, 2),
           "python": platform.python_version(), "machine": platform.machine()}
    print(f"catch-up: {copied} events in {catch_up_s:.2f} s ({out['catch_up_events_per_s']} per s; the log "
          f"itself took them at {out['logging_events_per_s']} per s as played)")
    print(f"following: {copy_ms:.2f} ms per event copied, against {append_ms:.2f} ms for the log's own append "
          f"(ratio {out['copy_vs_append']})")
    print("JSON", json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())

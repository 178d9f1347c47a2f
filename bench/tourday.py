"""Benchmark: a whole tournament day with real processes (tests/tournament/tourday.py): Mosquitto on
`tablectl broker-config`'s files, `tablectl hub` with 16 registered players, four `tablectl run` tables
(`sim://`, the demo players) for three rounds of MCR's 16 hands; a Pi's power cut, a broker restart, a
late player and a stand-in, a table out for a round, a substitute, a penalty undone, an appeal. Then the
organiser's own count from the tables' score sheets against the hub's standings, CSV, archive and page.

Prints: hands, the hub's messages, each round's time, the time from the last hand to the standings,
the hub's CPU and RSS; then a final JSON line.

Run: `nice -n 15 .venv/bin/python bench/tourday.py [--hands 16] [--turn-seconds 0.03]`.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "tournament"))

from tqdm import tqdm  # noqa: E402
from tourday import Day, cross_check, page_check, play_day  # noqa: E402


def usage(pid: int) -> tuple[float, int]:
    """A process's CPU seconds (user + system) and its peak RSS in KiB, from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    cpu = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    hwm = next(int(line.split()[1]) for line in Path(f"/proc/{pid}/status").read_text().splitlines()
               if line.startswith("VmHWM:"))
    return cpu, hwm


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--hands", type=int, default=16, help="hands a round, 2 or more (MCR plays 16)")
    ap.add_argument("--turn-seconds", type=float, default=0.03, help="seconds between the demo players' plays")
    args = ap.parse_args()
    if args.hands < 2:  # the day's substitute takes t02's seat 3 for the round's next hand: a round needs two
        ap.error("--hands must be 2 or more: the substitute joins a round for its next hand")
    expected = args.hands * (4 * 3 - 1)
    with tempfile.TemporaryDirectory(prefix="tourday-") as tmp:
        day = Day(Path(tmp), hands=args.hands, turn_seconds=args.turn_seconds)
        bar = tqdm(total=expected, unit="hand", desc="day")
        stop = threading.Event()

        def follow() -> None:  # the hands the hub holds, as the day goes on
            while not stop.wait(1.0):
                try:
                    held = sum(len(day.hub(f"/api/tables/{t}/records")["records"]) for t in day.ids)
                except Exception:  # the hub not up yet
                    continue
                bar.update(max(0, min(held, expected) - bar.n))

        watcher = threading.Thread(target=follow, daemon=True)
        watcher.start()
        t0 = time.monotonic()
        try:
            log = play_day(day, lambda what: bar.set_postfix_str(what))
            stop.set()
            watcher.join()
            bar.update(expected - bar.n)
            bar.close()
            assert day.hub_proc is not None
            cpu, rss = usage(day.hub_proc.pid)
            checked = cross_check(day, log)
            pages = page_check(day)
            hub = day.hub("/api/standings")["hub"]
        finally:
            stop.set()
            day.stop()
    wall = time.monotonic() - t0
    out = {"hands": checked["hands"], "players": checked["players"], "messages": hub["received"],
           "duplicates": hub["duplicates"], "replays_asked": hub["replays_asked"],
           "rounds_s": {k: round(v, 1) for k, v in log.marks.items() if k.startswith("round")},
           "standings_after_last_hand_s": round(log.marks["standings after the last hand"], 2),
           "hub_cpu_s": round(cpu, 1), "hub_cpu_pct": round(100 * cpu / wall, 1),
           "hub_rss_peak_mib": round(rss / 1024, 1),
           "wall_s": round(wall, 1), "page_rows": pages, "notes": log.notes}
    print(f"hands {out['hands']} (sheets = hub, each once), players {out['players']}, hub messages {out['messages']} "
          f"(duplicates {out['duplicates']}, replays asked {out['replays_asked']})")
    print("rounds: " + ", ".join(f"{k} at {v} s" for k, v in out["rounds_s"].items()))
    print(f"standings after the last hand: {out['standings_after_last_hand_s']} s")
    print(f"hub: {out['hub_cpu_s']} s CPU ({out['hub_cpu_pct']} % of one core over the day), "
          f"peak RSS {out['hub_rss_peak_mib']} MiB; the day took {out['wall_s']} s")
    print(json.dumps(out, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())

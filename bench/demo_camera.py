"""Benchmark: the camera keeping the record of live hands, end to end (`tablectl demo --camera`).

The real service runs with its simulated table; the demo's players lay each play on the felt,
the virtual camera serves it as MJPEG, the service's camera path (a reader thread on the stream,
the tile reader, the tracker, the play record) records it, and the demo stands in for the referee:
it rules on each tile the camera asks about and reads each win from the hand laid down. Where the
camera has not recorded a play after `demo.CAMERA_WAIT_S` the demo keys it (source `demo`), so
"keyed" counts what the camera missed.

Prints, per style: hands played, plays recorded by the camera and keyed by the demo, refusals,
rulings, wins read from the camera, and seconds per play (laying to record, with the players
acting at once); then a JSON line.
Run: `nice -n 15 .venv/bin/python bench/demo_camera.py [--styles xmahjongg-dorothys] [--hands 2]`.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

# Run as `python bench/demo_camera.py`, this file's folder comes first on sys.path and the
# project's `vision` package would be shadowed by bench/vision.py: take the folder off.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]

from tqdm import tqdm  # noqa: E402

from table_controller.config import parse_config  # noqa: E402
from table_controller.service import TableService  # noqa: E402


async def run_style(style: str, hands: int, speed: float, seed: int, timeout_s: float) -> dict[str, Any]:
    config = parse_config({
        "table": {"link": "sim://", "sim_speed": speed, "sim_seed": seed},
        "display": {"port": 0, "operator_token": "bench-op", "referee_token": "bench-ref"},
        "demo": {"autoplay": True, "turn_seconds": 0.0, "hand_seconds": 1.0, "camera": style},
    }, source="bench")
    with tempfile.TemporaryDirectory() as tmp:
        service = TableService(config, Path(tmp))
        await service.start()
        try:
            assert service.controller is not None
            ctl = service.controller
            loop = asyncio.get_running_loop()
            end = loop.time() + timeout_s
            with tqdm(total=hands, desc=f"{style}: hands") as bar:
                while len(ctl.state.hands) < hands and loop.time() < end:
                    await asyncio.sleep(1.0)
                    if len(ctl.state.hands) > bar.n:
                        bar.update(len(ctl.state.hands) - bar.n)
            events = list(ctl.store.since(0))
        finally:
            await service.stop()
    ends = [e.seq for e in events if e.type == "operator.hand_end"][:hands]
    if ends:  # the hands asked for, not the one begun after them
        events = [e for e in events if e.seq <= ends[-1]]
    plays = [e for e in events if e.type.startswith("play.") and e.type != "play.deal_done"]
    by = Counter(e.source for e in plays)
    reads = [e for e in events if e.type == "referee.win_read"]
    gaps = [b.at - a.at for a, b in zip(plays, plays[1:]) if b.at > a.at]
    return {
        "style": style, "hands": len(ends), "plays": len(plays), "by_camera": by.get("camera", 0),
        "keyed_by_demo": by.get("demo", 0),
        "refused": sum(1 for e in events if e.type == "camera.play_refused"),
        "rulings": sum(1 for e in events if e.type == "referee.camera_confirm"),
        "wins": sum(1 for e in events if e.type == "referee.win_confirm"),
        "wins_read_from_camera": sum(1 for e in reads if e.data.get("source") == "camera"),
        "seconds_per_play_median": round(statistics.median(gaps), 2) if gaps else None,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--styles", default="xmahjongg-dorothys", help="comma-separated tile styles")
    ap.add_argument("--hands", type=int, default=2, help="hands to play per style")
    ap.add_argument("--speed", type=float, default=20.0, help="simulated mechanisms' speed factor")
    ap.add_argument("--seed", type=int, default=1, help="simulator seed")
    ap.add_argument("--timeout", type=float, default=1800.0, help="seconds per style at most")
    args = ap.parse_args()
    results = []
    for style in args.styles.split(","):
        r = asyncio.run(run_style(style, args.hands, args.speed, args.seed, args.timeout))
        results.append(r)
        print(f"\n== {style}: {r['hands']} hand(s), {r['plays']} plays")
        print(f"recorded by the camera {r['by_camera']} ({r['by_camera'] / max(1, r['plays']):.3f}), "
              f"keyed by the demo {r['keyed_by_demo']}, refused {r['refused']}, rulings {r['rulings']}")
        print(f"wins {r['wins']}, read from the camera {r['wins_read_from_camera']}; "
              f"median {r['seconds_per_play_median']} s per play")
    print("\nJSON", json.dumps(results))


if __name__ == "__main__":
    main()

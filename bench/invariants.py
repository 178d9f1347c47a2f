"""Invariants of whole hands over every ruleset file, at length: the hand machine's hands (the scored
rulesets it plays) and live sessions on a real SQLite log (all of them), every check of `tests/hand/invariants.py` and
`tests/hand/live_games.py` after every play. Prints per ruleset the hands played, wins, 荒牌, kongs,
诈和 refused, undo+redo pairs, violations and seconds, then a JSON line. Exit 1 on any violation.

Run: PYTHONPATH=.:hardware-sim .venv/bin/python bench/invariants.py [--hands N] [--sessions N] [--session-hands N]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

# Run as `python bench/invariants.py`, this file's folder comes first on sys.path and the sibling
# `vision.py` would shadow the `vision` package: take the folder off first.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tqdm import tqdm  # noqa: E402

from table_controller.rules import ruleset_ids  # noqa: E402
from tests.hand.invariants import MACHINE, play  # noqa: E402
from tests.hand.live_games import LiveGame  # noqa: E402


def machine(ruleset: str, hands: int, bar: Any) -> dict[str, Any]:
    seen: Counter[str] = Counter()
    found: list[str] = []
    for seed in range(hands):
        try:
            seen.update(play(ruleset, seed).counts)
        except AssertionError as exc:
            found.append(str(exc)[:300])
        bar.update(1)
    return {"hands": hands, "wins": sum(v for k, v in seen.items() if k.startswith("win ")),
            "荒牌": seen["荒牌"], "kongs": sum(v for k, v in seen.items() if k.startswith("kong ")),
            "诈和": seen["诈和"], "海底": seen["海底"], "violations": found}


def live(ruleset: str, sessions: int, per_session: int, bar: Any) -> dict[str, Any]:
    seen: Counter[str] = Counter()
    found: list[str] = []
    with tempfile.TemporaryDirectory(prefix="invariants-") as tmp:
        for seed in range(sessions):
            game = LiveGame(ruleset, seed, Path(tmp) / f"{seed}.sqlite3")
            try:
                for _ in range(per_session):
                    bar.update(1)
                    if not game.play_hand():
                        break
            except AssertionError as exc:
                found.append(str(exc)[:300])
            seen.update(game.counts)
    return {"hands": seen["hands"], "wins": seen["wins"], "荒牌": seen["荒牌"], "kongs": seen["play.kong"],
            "查叫": seen["查叫"], "undo+redo": seen["undo+redo"] + seen["late undo+redo"], "violations": found}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hands", type=int, default=100, help="hands of the hand machine per ruleset")
    ap.add_argument("--sessions", type=int, default=6, help="live sessions per ruleset")
    ap.add_argument("--session-hands", type=int, default=16, help="hands per live session at most")
    args = ap.parse_args()
    out: dict[str, Any] = {"machine": {}, "live": {}}
    start = time.perf_counter()
    rulesets = ruleset_ids()
    total = args.hands * len(MACHINE) + args.sessions * args.session_hands * len(rulesets)
    with tqdm(total=total, unit="hand", file=sys.stderr) as bar:
        for rs in MACHINE:
            bar.set_description(f"machine {rs}")
            t0 = time.perf_counter()
            out["machine"][rs] = {**machine(rs, args.hands, bar), "seconds": round(time.perf_counter() - t0, 1)}
        for rs in rulesets:
            bar.set_description(f"live {rs}")
            t0 = time.perf_counter()
            out["live"][rs] = {**live(rs, args.sessions, args.session_hands, bar),
                               "seconds": round(time.perf_counter() - t0, 1)}
    for part in ("machine", "live"):
        print(f"{part:8} {'ruleset':10} {'hands':>6} {'wins':>5} {'荒牌':>4} {'kongs':>5} {'other':>12} "
              f"{'violations':>10} {'s':>6}")
        for rs, r in out[part].items():
            other = f"诈和 {r['诈和']}" if part == "machine" else f"undo {r['undo+redo']}"
            print(f"{'':8} {rs:10} {r['hands']:>6} {r['wins']:>5} {r['荒牌']:>6} {r['kongs']:>5} {other:>12} "
                  f"{len(r['violations']):>10} {r['seconds']:>6}")
            for v in r["violations"][:3]:
                print(f"{'':19} ! {v}")
    out["seconds"] = round(time.perf_counter() - start, 1)
    print(json.dumps(out, ensure_ascii=False))
    return 1 if any(r["violations"] for part in ("machine", "live") for r in out[part].values()) else 0


if __name__ == "__main__":
    sys.exit(main())

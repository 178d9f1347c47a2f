"""Benchmark of the rules engine I: time per deal plan and per WallState operation.

Run: `.venv/bin/python bench/deal.py [--iterations N] [--ruleset ID ...]`. Prints a table
(microseconds per call, mean over many calls after a warm-up) and a final JSON line for CI.
"""

from __future__ import annotations

import argparse
import itertools
import json
import platform
import random
import sys
import time
from typing import Callable

from tqdm import tqdm

from table_controller.rules import deal_plan, load_ruleset, open_hands, physical_wall, ruleset_ids


def per_call_us(fn: Callable[[], object], iterations: int) -> float:
    """Mean microseconds per call of `fn` over `iterations` calls (after 10 warm-up calls)."""
    for _ in range(10):
        fn()
    start = time.perf_counter()
    for _ in range(iterations):
        fn()
    return (time.perf_counter() - start) / iterations * 1e6


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=2000, help="calls per measurement (default 2000)")
    parser.add_argument("--ruleset", action="append", help="only these ruleset ids (repeatable)")
    args = parser.parse_args(argv)
    ids = args.ruleset or list(ruleset_ids())
    n = args.iterations
    rng = random.Random(1)
    rows: dict[str, dict[str, float]] = {}

    for rid in tqdm(ids, desc="rulesets", unit="ruleset", file=sys.stderr):
        rs = load_ruleset(rid)
        throws = list(itertools.product(range(1, 7), repeat=rs.dice_count))
        pairs = [(rng.choice(throws), (rng.randint(1, 6), rng.randint(1, 6)) if rs.throws == 2 else None)
                 for _ in range(64)]
        cycle = itertools.cycle(pairs)

        def plan_one() -> object:
            dice, dice2 = next(cycle)
            return deal_plan(rs, dice, dice2)

        plan = deal_plan(rs, *pairs[0])
        state0 = plan.initial_state()
        mid = state0
        for _ in range(len(plan.live) // 2):
            _, mid = mid.draw()
        wall = physical_wall(rs, None, rng)
        row = {
            "load_ruleset": per_call_us(lambda: load_ruleset(rid), max(50, n // 20)),
            "deal_plan": per_call_us(plan_one, n),
            "to_json": per_call_us(lambda: deal_plan(rs, *pairs[0]).to_json(), max(50, n // 10)),
            "draw": per_call_us(lambda: mid.draw(), n * 5),
            "replace": per_call_us(lambda: mid.replace(), n * 5),
            "last_live": per_call_us(lambda: mid.last_live, n),
            "state_json": per_call_us(lambda: mid.to_json(), max(50, n // 10)),
            "open_hands": per_call_us(lambda: open_hands(plan, wall), max(50, n // 10)),
        }
        rows[rid] = row

    columns = list(next(iter(rows.values())))
    print(f"rules engine I benchmark · python {platform.python_version()} · {platform.machine()} · "
          f"µs per call (mean), {n} iterations")
    print(f"{'ruleset':<10}" + "".join(f"{c:>13}" for c in columns))
    for rid, row in rows.items():
        print(f"{rid:<10}" + "".join(f"{row[c]:>13.1f}" for c in columns))
    means = {c: sum(r[c] for r in rows.values()) / len(rows) for c in columns}
    print(f"{'mean':<10}" + "".join(f"{means[c]:>13.1f}" for c in columns))
    print(json.dumps({"bench": "deal", "unit": "us_per_call", "iterations": n, "mean": means,
                      "rulesets": rows}, separators=(",", ":")))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The hub's seating (编排) over a whole simulated tournament: how often players meet again and sit
again in a chair they had, against plain Swiss order (the reference), and the time to propose.

    .venv/bin/python bench/pairing.py [--players 64] [--rounds 7] [--tournaments 20] [--seed 1]

Each tournament: round 1 seated by registration order; after each round every table's four
players take 4/2/1/0 标准分 and some points in a random order; the next round is seated from the
standings by `pairing.propose` and, for the reference, by rank alone (1–4, 5–8 …, chairs in rank
order). Prints the figures and a final JSON line.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tqdm import tqdm  # noqa: E402

from table_controller.scoring.points import TABLE_POINTS  # noqa: E402
from table_controller.tournament.pairing import CHAIRS, entrants, propose  # noqa: E402


def _standings(results: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """`Hub.standings()`'s shape from each player's results so far."""
    order = sorted(results.values(), key=lambda p: (-p["table_points"], -p["points"], p["name"]))
    players = []
    for i, p in enumerate(order):
        players.append({"name": p["name"], "id": p["id"], "rank": i + 1, "table_points": p["table_points"],
                        "points": p["points"], "tables": list(p["tables"])})
    return {"players": players, "tables": []}


def _plain(standings: dict[str, Any], round_no: int) -> list[dict[str, Any]]:
    """The reference: four to a table by rank alone, chairs in rank order."""
    ranked = standings["players"]
    return [{"table_id": f"t{k + 1}", "seats": {c: {"id": p["id"], "name": p["name"]} for c, p in zip(CHAIRS, ranked[4 * k:4 * k + 4])}}
            for k in range(len(ranked) // 4)]


def _play(tables: list[dict[str, Any]], results: dict[str, dict[str, Any]], round_no: int,
          rng: random.Random) -> tuple[int, int, int]:
    """Record a round's results; returns (pairs meeting again, pairs meeting a third time or more,
    players back in a chair they had)."""
    again = third = chairs = 0
    for t in tables:
        seated = [(c, s["id"]) for c, s in t["seats"].items()]
        ids = [i for _, i in seated]
        for a in range(4):
            for b in range(a + 1, 4):
                times = results[ids[a]]["met"][ids[b]]
                again += times >= 1
                third += times >= 2
        for c, i in seated:
            chairs += c in results[i]["chairs"]
        order = ids[:]
        rng.shuffle(order)
        for place, i in enumerate(order):
            p = results[i]
            p["table_points"] += TABLE_POINTS[place]
            p["points"] += (30, 10, -10, -30)[place] + rng.randint(-8, 8)
            p["met"].update(x for x in ids if x != i)
            p["tables"].append({"table_id": t["table_id"], "round": round_no, "position": int(next(c for c, j in seated if j == i))})
            p["chairs"].add(next(c for c, j in seated if j == i))
    return again, third, chairs


def run(players: int, rounds: int, tournaments: int, seed: int) -> dict[str, Any]:
    totals = {"swiss_spread": [0, 0, 0], "plain_swiss": [0, 0, 0]}
    times: list[float] = []
    for n in tqdm(range(tournaments), desc="tournaments", unit="tournament", file=sys.stderr):
        for method in totals:
            rng = random.Random(f"{seed}:{n}")
            results = {f"A{i:03d}": {"name": f"选手{i}", "id": f"A{i:03d}", "table_points": 0, "points": 0, "tables": [],
                                     "met": Counter(), "chairs": set()} for i in range(1, players + 1)}
            ids = list(results)
            first = [{"table_id": f"t{k + 1}", "seats": {c: results[i] for c, i in zip(CHAIRS, ids[4 * k:4 * k + 4])}}
                     for k in range(players // 4)]
            _play(first, results, 1, rng)
            for r in range(2, rounds + 1):
                standings = _standings(results)
                if method == "swiss_spread":
                    t0 = time.perf_counter()
                    seating = propose(entrants(standings), [(f"t{k + 1}", f"t{k + 1}") for k in range(players // 4)], r,
                                      seed=str(n)).to_json()["tables"]
                    times.append(time.perf_counter() - t0)
                else:
                    seating = _plain(standings, r)
                again, third, chairs = _play(seating, results, r, rng)
                totals[method][0] += again
                totals[method][1] += chairs
                totals[method][2] += third
    seated = tournaments * (rounds - 1)
    out = {"players": players, "rounds": rounds, "tournaments": tournaments,
           "repeat_meetings_per_round": {m: round(v[0] / seated, 2) for m, v in totals.items()},
           "repeat_chairs_per_round": {m: round(v[1] / seated, 2) for m, v in totals.items()},
           "third_meetings_per_round": {m: round(v[2] / seated, 2) for m, v in totals.items()},
           "propose_ms_median": round(sorted(times)[len(times) // 2] * 1000, 2) if times else None}
    plain = totals["plain_swiss"]
    out["repeat_meetings_ratio"] = round(totals["swiss_spread"][0] / plain[0], 3) if plain[0] else None
    out["repeat_chairs_ratio"] = round(totals["swiss_spread"][1] / plain[1], 3) if plain[1] else None
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--players", type=int, default=64)
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--tournaments", type=int, default=20)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    out = run(args.players, args.rounds, args.tournaments, args.seed)
    m, c = out["repeat_meetings_per_round"], out["repeat_chairs_per_round"]
    print(f"{args.players} players, {args.rounds} rounds, {args.tournaments} tournaments")
    print(f"pairs meeting again per round: swiss+spread {m['swiss_spread']}  plain swiss {m['plain_swiss']}  "
          f"(ratio {out['repeat_meetings_ratio']})")
    t = out["third_meetings_per_round"]
    print(f"pairs meeting a third time or more, per round: swiss+spread {t['swiss_spread']}  "
          f"plain swiss {t['plain_swiss']}")
    print(f"players back in a chair they had, per round: {c['swiss_spread']} vs {c['plain_swiss']}  "
          f"(ratio {out['repeat_chairs_ratio']})")
    print(f"propose: median {out['propose_ms_median']} ms")
    print(json.dumps(out, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

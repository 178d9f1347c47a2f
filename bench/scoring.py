"""Scoring speed: hands scored per second per ruleset, and waits per second. Prints a final JSON line.

Run: .venv/bin/python bench/scoring.py [--seconds S]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any

from tqdm import tqdm

from table_controller.scoring import HandInput, score
from table_controller.scoring.waits import waits

HANDS: dict[str, list[dict[str, Any]]] = {
    "mcr": [
        {"seat_wind": "E", "prevalent_wind": "E", "concealed": "1223434567899m", "win_tile": "9m", "win": "self_draw"},
        {"seat_wind": "S", "prevalent_wind": "E", "concealed": "67s66z", "win_tile": "8s", "win": "discard",
         "discarder": "E", "visible": {"8s": 3},
         "melds": [{"type": "chi", "tiles": "234m", "from": "E"}, {"type": "chi", "tiles": "456p", "from": "E"},
                   {"type": "pung", "tiles": "333z", "from": "W"}]},
    ],
    "jingji": [{"seat_wind": "E", "concealed": "123456789m78p99s", "win_tile": "9p", "win": "self_draw"},
               {"seat_wind": "S", "concealed": "1122334455m667z", "win_tile": "7z", "win": "discard", "discarder": "E"}],
    "sichuan": [{"seat_wind": "E", "concealed": "1111223344556m", "win_tile": "6m", "win": "self_draw"}],
    "xueliu": [{"seat_wind": "N", "concealed": "1112345678999m", "win_tile": "5m", "win": "discard", "discarder": "E"}],
    "tuidaohu": [{"seat_wind": "S", "concealed": "111m222p333s4455z", "win_tile": "5z", "win": "self_draw",
                  "options": {"horses": ["9m", "8p", "3z"]}},
                 {"seat_wind": "S", "concealed": "123m456p789s1125z", "win_tile": "1z", "win": "self_draw",
                  "options": {"wildcard": "5z"}}],
    "jipinghu": [{"seat_wind": "S", "concealed": "123m456p789s1122z", "win_tile": "2z", "win": "discard", "discarder": "E"}],
    "nanning": [{"seat_wind": "S", "concealed": "1111333m557799m", "win_tile": "3m", "win": "self_draw"},
                {"seat_wind": "S", "concealed": "111m222p333s4455z", "win_tile": "5z", "win": "discard", "discarder": "E"}],
}
READY = [("mcr", "1112345678999m"), ("sichuan", "1112345678999m"), ("jingji", "147m258p36s12345z"),
         ("tuidaohu", "123m456p789s1155z")]


def rate(fn: Any, seconds: float) -> float:
    """Calls per second of `fn` over about `seconds` (after one warm-up call)."""
    fn()
    n, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        fn()
        n += 1
    return n / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=1.0, help="time per measurement (default 1)")
    args = parser.parse_args()
    results: dict[str, Any] = {"hands_per_second": {}, "waits_per_second": {}}
    bar = tqdm(total=len(HANDS) + len(READY), desc="measurements", unit="ruleset", file=sys.stderr)
    for ruleset, docs in HANDS.items():
        hands = [HandInput.from_json(dict({"prevalent_wind": "E", "melds": []}, **d)) for d in docs]
        for h, d in zip(hands, docs):  # a hand the rules no longer take would time the refusal, not the scoring
            if not (result := score(h, ruleset)).valid:
                sys.exit(f"bench/scoring.py: {ruleset} {d['concealed']} is not a win now ({result.reason}): "
                         "give the bench a hand that is")

        def score_all(hands: list[HandInput] = hands, ruleset: str = ruleset) -> None:
            for h in hands:
                score(h, ruleset)

        hps = rate(score_all, args.seconds) * len(hands)
        results["hands_per_second"][ruleset] = round(hps, 1)
        bar.update()
        tqdm.write(f"score {ruleset:<9} {hps:10.1f} hands/s", file=sys.stdout)
    for ruleset, concealed in READY:
        ready = HandInput.from_json({"seat_wind": "E", "concealed": concealed, "melds": []}, ready_only=True)
        if not waits(ready, ruleset):  # waited on nothing, the bench would time an empty answer
            sys.exit(f"bench/scoring.py: {ruleset} {concealed} is not ready now: give the bench a hand that is")
        wps = rate(lambda r=ready, rs=ruleset: waits(r, rs), args.seconds)
        results["waits_per_second"][f"{ruleset}:{concealed}"] = round(wps, 1)
        bar.update()
        tqdm.write(f"waits {ruleset:<9} {concealed:<18} {wps:8.1f} hands/s", file=sys.stdout)
    bar.close()
    print(json.dumps(results, ensure_ascii=False))


if __name__ == "__main__":
    main()

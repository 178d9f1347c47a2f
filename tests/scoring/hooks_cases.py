"""The fixed inputs of the dispatch regression (`test_scoring_hooks.py`): kong notes, 荒牌 hands and 诈和
arguments, run over every ruleset, and what the Win page asks of each (its referee-only options, its fan table with
the payment rules); `run_all()` gives what the dispatch answers for each, as JSON.

The recorded answers (`data/hooks_recorded.json`) were taken on the code that branched on family ids in
`scoring/__init__.py` (kong, exhaustive, false_win) and in `win_options` and `catalog.settlement_rows`
(win_options, fan_table, settlement_rows); regenerate with
`python -m tests.scoring.hooks_cases > tests/scoring/data/hooks_recorded.json` only when a ruleset's payments, options
or fan table are meant to change."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from table_controller.rules import ruleset_ids
from table_controller.scoring import ScoringError, exhaustive_settlement, false_win, kong_payment, scored, win_options
from table_controller.scoring.catalog import fan_table, settlement_rows
from table_controller.scoring.config import scoring

KONG_NOTES: list[tuple[dict[str, Any], tuple[str, ...] | None]] = [
    ({"seat": "E", "kind": "exposed", "discarder": "N"}, None),
    ({"seat": "S", "kind": "exposed", "discarder": "E", "double": True}, None),
    ({"seat": "W", "kind": "added"}, None),
    ({"seat": "W", "kind": "added", "discarder": "S"}, None),
    ({"seat": "N", "kind": "concealed"}, None),
    ({"seat": "N", "kind": "concealed", "double": True}, None),
    ({"seat": "E", "kind": "flower"}, None),
    ({"seat": "S", "kind": "concealed"}, ("S", "W", "N")),
    ({"seat": "S", "kind": "added"}, ("E", "S")),
    ({"seat": "E", "kind": "exposed"}, None),
    ({"seat": "E", "kind": "hidden"}, None),
]


def _doc(seat: str, concealed: str, melds: list[dict[str, Any]] | None = None,
         options: dict[str, Any] | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"seat_wind": seat, "prevalent_wind": "E", "concealed": concealed, "melds": melds or []}
    if options:
        out["options"] = options
    return out


DRAWS: list[tuple[dict[str, Any], list[dict[str, int]]]] = [
    ({"E": _doc("E", "1234567899m1p2s3s"), "S": _doc("S", "1112345678999m"), "W": _doc("W", "12345678m13579p"),
      "N": _doc("N", "1357m2468p99p", [{"type": "kong", "tiles": "5555p", "concealed": True}])},
     [{"N": 6, "E": -2, "S": -2, "W": -2}, {"S": 1, "W": -1}]),
    ({"S": _doc("S", "123456789m1122p"), "W": _doc("W", "1112223334445m", options={"missing_suit": "p"})}, []),
    ({"E": _doc("E", "123m456p789s1122z"), "S": _doc("S", "19m19p19s1234567z"), "W": _doc("W", "13579m2468p13s5z"),
      "N": _doc("N", "")}, []),
    ({"E": _doc("E", "1234567899m1p2s3s")}, [{"E": 1}]),
]

FALSE_WINS: list[tuple[str, dict[str, Any]]] = [
    ("S", {}),
    ("E", {"amount": 20}),
    ("E", {"amount": 30, "victim": "W", "double": True}),
    ("N", {"amount": 60}),
    ("W", {"fan": 2}),
    ("W", {"fan": 9, "active": ["S", "W", "N"]}),
    ("N", {"fan": 1, "amount": 10, "victim": "E", "double": True}),
    ("X", {"fan": 1}),
]


def _answer(call: Callable[[], Any]) -> dict[str, Any]:
    """What a call gave: its value, or the code and field of its `ScoringError` (the message may be reworded)."""
    try:
        return {"value": call()}
    except ScoringError as exc:
        return {"error": [exc.code, exc.field]}


def answers(ruleset: str) -> dict[str, list[dict[str, Any]]]:
    """{"kong": [...], "exhaustive": [...], "false_win": [...], "win_options": [...], "fan_table": [...],
    "settlement_rows": [...]}: one answer per fixed input, as JSON (the last three have one input, the ruleset;
    `settlement_rows` with its own `[scoring]` table, where it has one)."""
    return json.loads(json.dumps({
        "kong": [_answer(lambda n=n, a=a: kong_payment(ruleset, n, a)) for n, a in KONG_NOTES],
        "exhaustive": [_answer(lambda h=h, k=k: exhaustive_settlement(ruleset, h, k)) for h, k in DRAWS],
        "false_win": [_answer(lambda s=s, kw=kw: false_win(ruleset, s, **kw)) for s, kw in FALSE_WINS],
        "win_options": [_answer(lambda: win_options(ruleset))],
        "fan_table": [_answer(lambda: fan_table(ruleset))],
        "settlement_rows": [_answer(lambda: settlement_rows(ruleset, scoring(ruleset)))] if scored(ruleset) else [],
    }))


def run_all() -> dict[str, dict[str, list[dict[str, Any]]]]:
    """ruleset → its `answers`, for every ruleset of the rulesets folder."""
    return {rs: answers(rs) for rs in ruleset_ids()}


if __name__ == "__main__":
    print(json.dumps(run_all(), ensure_ascii=False, indent=1, sort_keys=True))

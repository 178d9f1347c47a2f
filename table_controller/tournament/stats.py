"""Players' statistics across a tournament (技术统计), from the hands' public records the tables send.

Per player (by registration number, or by name where a table keyed none, as the standings count
them): hands played, wins, self-drawn wins (自摸), wins on a discard, discards won on (点炮), the
rates of winning and of feeding a win, the average of the winning hands' totals and the biggest
win. Pure: `player_stats(tables)` over (the round's standings, its records) per table and round; a record
may be its `summary`, all `player_stats` reads of it (the hub keeps those, not 20 KB records parsed again).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

SELF_DRAWN = ("self_draw", "kong_replacement", "flower_replacement")


def player_stats(rounds: Iterable[tuple[str, dict[str, Any], list[dict[str, Any]]]]) -> list[dict[str, Any]]:
    """`rounds`: (table name, that round's standing as the table sent it, that round's hand records).
    Players most winning first (then the fewest discards won on, then the name)."""
    players: dict[str, dict[str, Any]] = {}
    for table_name, standing, records in rounds:
        ids = standing.get("player_ids") or {}
        sitters = standing.get("sitters") or {}  # chairs a substitute (替补) sat part of the round
        for rec in records:
            if rec.get("result") == "playing":
                continue  # counted when it ends
            by_wind: dict[str, str] = {}
            for wind, seat in (rec.get("seats") or {}).items():
                chair = str(seat.get("player_no"))
                hand_no = int(rec.get("hand_no") or 0)
                pid = _sitter_id(standing, chair, hand_no) if chair in sitters else ids.get(chair, "")
                key = f"id:{pid}" if pid else f"name:{seat.get('player', '')}"
                p = players.setdefault(key, {"name": seat.get("player", ""), "id": pid, "hands": 0, "wins": 0,
                                             "self_drawn": 0, "on_discard": 0, "fed": 0, "fan_total": 0,
                                             "best": None})
                p["hands"] += 1
                by_wind[wind] = key
            for win in rec.get("wins") or []:
                winner = players.get(by_wind.get(win.get("seat", ""), ""))
                if winner is None:
                    continue
                winner["wins"] += 1
                winner["self_drawn" if win.get("win_kind") in SELF_DRAWN else "on_discard"] += 1
                total = int(win.get("total") or 0)
                winner["fan_total"] += total
                if winner["best"] is None or total > winner["best"]["total"]:
                    winner["best"] = {"total": total, "table_name": table_name, "round": rec.get("round", 1),
                                      "hand_no": rec.get("hand_no"),
                                      "fans": [f.get("name") for f in win.get("fans") or []][:6],
                                      "fans_en": [f.get("name_en") or f.get("name") for f in win.get("fans") or []][:6]}
                feeder = players.get(by_wind.get(win.get("discarder") or "", ""))
                if feeder is not None:
                    feeder["fed"] += 1
    out = []
    for p in players.values():
        hands = p["hands"] or 1
        out.append({**p, "win_rate": round(p["wins"] / hands, 3), "feed_rate": round(p["fed"] / hands, 3),
                    "average_win": round(p["fan_total"] / p["wins"], 1) if p["wins"] else None})
    return sorted(out, key=lambda p: (-p["win_rate"], p["feed_rate"], p["name"], p["id"]))


def summary(record: dict[str, Any]) -> dict[str, Any]:
    """What `player_stats` reads of a hand's record: a few hundred bytes of its 10-20 KB (the plays left out),
    so the hub counts a national day's 7,000 hands from memory, not by parsing 130 MB on its loop."""
    keys = ("round", "hand_no", "result")
    return {**{k: record[k] for k in keys if k in record},
            "seats": {wind: {"player_no": seat.get("player_no"), "player": seat.get("player", "")}
                      for wind, seat in (record.get("seats") or {}).items()},
            "wins": [{"seat": w.get("seat"), "win_kind": w.get("win_kind"), "total": w.get("total"),
                      "discarder": w.get("discarder"),
                      "fans": [{"name": f.get("name"), "name_en": f.get("name_en")} for f in (w.get("fans") or [])[:6]]}
                     for w in record.get("wins") or []]}


def summary_problem(made: dict[str, Any]) -> str | None:
    """Why `player_stats` cannot count a hand's `summary`, or None: a seat's player that is no text (the players
    are sorted by name), a win's seat or discarder that is no wind (looked up by it), a total that is no finite
    number. One such record filed made every count of the hall's statistics fail."""
    for wind, seat in made["seats"].items():
        if not isinstance(seat.get("player", ""), str):
            return f"the player at {wind} is not text"
    for w in made["wins"]:
        if not isinstance(w.get("seat"), str) or not isinstance(w.get("discarder") or "", str):
            return "a win's seat or discarder is not a wind"
        total = w.get("total")
        if total is not None and (isinstance(total, bool) or not isinstance(total, (int, float))
                                  or not math.isfinite(total)):
            return f"a win's total {total!r} is not a number"
    return None


def _sitter_id(standing: dict[str, Any], chair: str, hand_no: int) -> str:
    """The registration number of who sat `chair` in hand `hand_no`, where a substitute came in."""
    from table_controller.substitutes import sitter_of

    spans = standing["sitters"][chair]
    return str(spans[sitter_of(spans, hand_no)].get("id", ""))

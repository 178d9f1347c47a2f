"""Turn timers and the session clock, their limits from each ruleset's `[timers]` table.

The fold stores only *when* a turn or a session began (the event's stamp); how much time is left is
computed here against a clock the caller passes in, so the fold stays pure and replayable.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Mapping

from table_controller.rules.ruleset import folder, in_use

#: Seconds before a turn's end when the display turns amber (a third of a short limit).
TURN_WARN_S = 5.0


@dataclass(frozen=True)
class TimerRules:
    """Limits of one ruleset; `None` where its rule text sets none (nothing is shown then)."""

    first_discard_s: float | None = None
    discard_s: float | None = None
    claim_s: float | None = None
    session_minutes: float | None = None
    warnings_min: tuple[float, ...] = (15.0, 5.0)
    #: 申诉: appeals close this long after the session's end (seed 000 九 2: 30 minutes); None: no limit
    appeal_minutes: float | None = None
    source: str = ""

    def limit(self, kind: str) -> float | None:
        return {"first_discard": self.first_discard_s, "discard": self.discard_s, "claim": self.claim_s}.get(kind)

    def to_json(self) -> dict[str, Any]:
        return {"first_discard_s": self.first_discard_s, "discard_s": self.discard_s, "claim_s": self.claim_s,
                "session_minutes": self.session_minutes, "warnings_min": list(self.warnings_min),
                "appeal_minutes": self.appeal_minutes, "source": self.source}


#: The limits, each a number above 0 where it is given.
_LIMITS = ("first_discard_s", "discard_s", "claim_s", "session_minutes", "appeal_minutes")


def timers_problem(table: Mapping[str, Any]) -> str | None:
    """What a `[timers]` table gives that no clock can run, Chinese first, or None. Read when the ruleset file is
    (`rules.ruleset`): a `session_minutes = -90` showed the session over as it started, a `claim_s = "3"` or a
    `warnings_min = 15` answered every state of the display with a 500."""
    def number(v: Any) -> bool:
        return isinstance(v, (int, float)) and not isinstance(v, bool) and v > 0

    for key in _LIMITS:
        if key in table and not number(table[key]):
            return f"[timers] {key} 须为大于 0 的数，不是 {table[key]!r} / must be a number above 0, not {table[key]!r}"
    warnings = table.get("warnings_min", [])
    if not isinstance(warnings, list) or not all(number(w) for w in warnings):
        return (f"[timers] warnings_min 须为大于 0 的分钟数列表（如 [15, 5]），不是 {warnings!r} / must be a list of "
                f"minutes above 0 (e.g. [15, 5]), not {warnings!r}")
    if not isinstance(table.get("source", ""), str):
        return f"[timers] source 须为文字 / must be a string, not {table['source']!r}"
    return None


def timer_rules(ruleset_id: str) -> TimerRules:
    """The ruleset's `[timers]`; a ruleset without the table has no timers. Read once per rulesets folder from
    the read every part of the table takes (`rules.ruleset.in_use`), as the penalty catalogue is."""
    return _timer_rules(ruleset_id, folder())


@lru_cache(maxsize=32)
def _timer_rules(ruleset_id: str, directory: str) -> TimerRules:
    t: Mapping[str, Any] = in_use(ruleset_id, directory).sections.get("timers", {})
    known = set(TimerRules.__dataclass_fields__)
    unknown = set(t) - known
    if unknown:
        raise ValueError(f"{ruleset_id}.toml [timers]: unknown key(s) {', '.join(sorted(unknown))}; "
                         f"allowed: {', '.join(sorted(known))}")
    return TimerRules(
        first_discard_s=t.get("first_discard_s"), discard_s=t.get("discard_s"), claim_s=t.get("claim_s"),
        session_minutes=t.get("session_minutes"), appeal_minutes=t.get("appeal_minutes"),
        warnings_min=tuple(sorted((float(w) for w in t.get("warnings_min", (15, 5))), reverse=True)),
        source=str(t.get("source", "")),
    )


def pauses_of(session: Mapping[str, Any] | None) -> list[tuple[float, float | None]]:
    """The referee's holds of the session clock (`referee.session`'s `pauses`: a table jam, a ruling) as
    (from, until); one still on ends with the session when the referee ended it meanwhile."""
    if not session:
        return []
    end = session.get("ended_at")
    return [(float(p["at"]), float(p["until"]) if p.get("until") is not None else float(end) if end else None)
            for p in session.get("pauses") or ()]


def stood_still(session: Mapping[str, Any] | None, since: float, now: float) -> float:
    """Seconds between `since` and `now` the session clock was held: a turn's time stands still with it."""
    return sum(max(0.0, min(now, now if until is None else until) - max(at, since))
               for at, until in pauses_of(session))


def turn_status(turn: Mapping[str, Any] | None, now: float,
                session: Mapping[str, Any] | None = None) -> dict[str, Any] | None:
    """Time left on a running turn or claim window: `level` is ok, warning, overdue, or paused while the
    referee holds the session clock (`session`, the time its pauses took given back: before, a seat whose
    turn a 10-minute jam stopped read 超时 585 秒 when play resumed)."""
    if not turn or turn.get("limit_s") is None:
        return None
    since = float(turn["since"])
    remaining = since + float(turn["limit_s"]) + stood_still(session, since, now) - now
    warn = min(TURN_WARN_S, float(turn["limit_s"]) / 3)
    held = any(at <= now and (until is None or now < until) for at, until in pauses_of(session))
    level = "paused" if held else "overdue" if remaining <= 0 else "warning" if remaining <= warn else "ok"
    return {**turn, "remaining_s": round(remaining, 1), "level": level}


def session_status(session: Mapping[str, Any] | None, now: float) -> dict[str, Any] | None:
    """Minutes left in the session and which warning (15, 5 minutes ...) has been reached; the
    clock stands still while the referee has paused it (`paused_s`, `paused_since`)."""
    if not session or session.get("started_at") is None:
        return None
    paused_since = session.get("paused_since")
    end = float(session["ended_at"]) if session.get("ended_at") else float(paused_since) if paused_since else now
    ends_at = float(session["started_at"]) + float(session["minutes"]) * 60 + float(session.get("paused_s") or 0)
    remaining = ends_at - end
    if paused_since and not session.get("ended_at"):
        ends_at += now - float(paused_since)
    reached = [w for w in session.get("warnings_min", ()) if remaining <= w * 60]
    level = "over" if remaining <= 0 else "paused" if paused_since else "warning" if reached else "ok"
    return {**session, "ends_at": ends_at, "remaining_s": round(remaining, 1),
            "warning_min": min(reached) if reached else None, "level": level}

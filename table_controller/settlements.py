"""A confirmed win's settlement as the referee confirmed it: its fans, total and each seat's points.

What the referee confirms (and the players sign) is the record. The confirmation logs the settlement
the Win page showed (`of_read`, added by `Controller.referee_action`), and the fold takes those figures
(`referee._win_confirm`) instead of scoring the read again: a ruleset's file edited later (a venue's
fan value changed mid-tournament) or the scoring code changed (a fan's bug fixed) no longer changes
hands confirmed rounds ago, so the score sheet, the hub's standings and the printed sheets agree. The
fold still scores the read with today's rules and keeps what that gives where it differs (`rescored`):
`tablectl check` and the score sheet name those hands for the head referee to decide.

A correction of the hand's plays after the win was confirmed (`referee.play_correct`) may change what
it scores (杠上炮, 包付, 杠上开花 come from the record): the correction scores the hand's confirmed wins
again and logs the new figures (`again`). Each set of figures names the corrections in force when it
was taken, so the hand folded again (`corrections.rework`) takes the set of the corrections in force
then (`chosen`), and an undo of the correction puts back the confirmation's own. A log written before
(no figures) is scored as it always was. Pure: no I/O.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from table_controller.store import Event

if TYPE_CHECKING:
    from table_controller.state import TableState

#: In a `referee.win_confirm`'s data: the settlement confirmed.
KEY = "settlement"
#: In a `referee.play_correct`'s data: confirmation seq (text) -> the settlement after the correction.
AGAIN = "settled"


def figures(result: dict[str, Any]) -> dict[str, Any]:
    """The figures of a scorer's verdict that the record keeps."""
    return {"total": result.get("total"), "fans": [dict(f) for f in result.get("fans") or []],
            "payments": {str(w): int(v) for w, v in (result.get("payments") or {}).items()}}


def in_force(actions: list[dict[str, Any]], hand_no: Any) -> list[int]:
    """The seqs of the hand's corrections in force: together they make the play record scored."""
    from table_controller.corrections import TYPE
    from table_controller.referee import active

    return sorted(int(a["seq"]) for a in active(actions, TYPE, hand_no) if not a.get("error"))


def of_read(s: "TableState") -> dict[str, Any] | None:
    """The settlement a confirmation being taken logs: the current read's, as the Win page shows it
    (None where there is nothing to confirm: the fold refuses it and says why)."""
    from table_controller.referee import current_read

    if s.hand is None:
        return None
    read = current_read(s.actions, s.hand["hand_no"])
    if read is None or not read["result"].get("valid"):
        return None
    return {"read_seq": read["seq"], **figures(read["result"]), "corrections": in_force(s.actions, s.hand["hand_no"])}


def recorded(d: dict[str, Any], read_seq: Any) -> dict[str, Any] | None:
    """The settlement logged with a confirmation, where it is whole and of the read being confirmed."""
    got = d.get(KEY)
    if not isinstance(got, dict) or got.get("read_seq") != read_seq:
        return None
    pays, fans = got.get("payments"), got.get("fans")
    if not isinstance(pays, dict) or not isinstance(fans, list) or not all(isinstance(f, dict) for f in fans) \
            or not all(isinstance(v, int) and not isinstance(v, bool) for v in pays.values()):
        return None
    return got


def _key(f: dict[str, Any]) -> dict[str, Any]:
    return {"total": f.get("total"), "payments": {w: v for w, v in (f.get("payments") or {}).items() if v},
            "fans": [(x.get("name"), x.get("value"), x.get("count", 1)) for x in f.get("fans") or []]}


def rescored(kept: dict[str, Any], result: dict[str, Any]) -> dict[str, Any] | None:
    """What today's rules make of a win confirmed as `kept`, where it differs (None: the same)."""
    if result.get("valid"):
        now = figures(result)
        return None if _key(now) == _key(kept) else {"valid": True, **now}
    return {"valid": False, "reason": result.get("reason"), "message": result.get("message", "")}


def again(s: "TableState", ev: Event) -> dict[str, dict[str, Any]]:
    """The figures a correction being taken (`ev`, not yet logged) logs: each win of the hand confirmed
    and standing once it is folded, scored again, with the corrections in force but itself."""
    from table_controller.referee import confirmed_wins
    from table_controller.state import apply

    if s.hand is None:
        return {}
    trial = apply(s, ev)
    hand_no = s.hand["hand_no"]
    forced = [x for x in in_force(trial.actions, hand_no) if x != ev.seq]
    return {str(w["seq"]): {"read_seq": w["read_seq"], "total": w.get("total"), "fans": list(w.get("fans", [])),
                            "payments": dict(w.get("by_wind", {})), "corrections": forced}
            for w in confirmed_wins(trial.actions, hand_no)}


def chosen(ev: Event, actions: list[dict[str, Any]], hand_no: Any) -> Event:
    """A confirmation folded again in a hand whose corrections changed (`actions`: those in force now):
    with the figures logged for exactly these corrections (its own, or the newest a correction logged),
    or with none, to be scored again."""
    from table_controller.corrections import TYPE
    from table_controller.referee import active

    forced = in_force(actions, hand_no)
    own = ev.data.get(KEY)
    pick = own if isinstance(own, dict) and sorted(own.get("corrections") or []) == forced else None
    for a in active(actions, TYPE, hand_no):
        got = (a.get(AGAIN) or {}).get(str(ev.seq)) if not a.get("error") else None
        if isinstance(got, dict) and sorted([*(got.get("corrections") or []), a["seq"]]) == forced:
            pick = got
    data = {k: v for k, v in ev.data.items() if k != KEY}
    if pick is not None:
        data[KEY] = pick
    return Event(ev.seq, ev.at, ev.source, ev.type, data)


def differences(s: "TableState") -> list[dict[str, Any]]:
    """Every confirmed win standing, in every round, whose figures today's rules would change: the
    round, hand, winner and both sets of figures (for `tablectl check` and the head referee)."""
    from table_controller.referee import confirmed_wins

    rounds = [(r.get("round"), r.get("actions") or []) for r in s.rounds] + [(s.round, s.actions)]
    out = []
    for number, actions in rounds:
        for w in confirmed_wins(actions, None):
            if w.get("rescored"):
                out.append({"round": number, "hand_no": w.get("hand_no"), "seq": w["seq"], "seat": w.get("seat"),
                            "confirmed": {"total": w.get("total"), "payments": dict(w.get("by_wind", {}))},
                            "now": w["rescored"]})
    return out

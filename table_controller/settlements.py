"""Figures settled at the table as they were when accepted: a confirmed win's fans, total and each seat's
points, and a 查叫's, a penalty's, a kong's and a 追牌's payments.

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
(no figures) is scored as it always was.

Every other figure settled at the table is kept the same way (`kept`, logged by the controller as the
event is accepted, `of_action` and `of_play`): a 查叫/查花猪 ruling's payments at 荒牌
(`referee.exhaustive`), a penalty's amount from the catalogue or the scorer (诈和), and the on-the-spot
payments of a kong and of 追牌 (the play's own event). The fold takes them, notes what today's rules
would pay where it differs (`rescored`; for plays on the hand, `PLAYS_RESCORED`), a correction logs
them again for the hand as corrected (`again`), and `differences` names them all. Pure: no I/O.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from table_controller.store import Event

if TYPE_CHECKING:
    from table_controller.state import TableState

#: In a `referee.win_confirm`'s data: the settlement confirmed (and in a 查叫's, a penalty's, a kong's or a
#: discard's that paid 追牌: its figures, `kept`).
KEY = "settlement"
#: In a `referee.play_correct`'s data: event seq (text; an inserted play's: its correction's) -> the figures
#: after the correction.
AGAIN = "settled"
#: On a hand: the kong and 追牌 payments today's rules would make otherwise (seq, kind, seat, kept, now).
PLAYS_RESCORED = "rescored"
SEATS = ("E", "S", "W", "N")
#: What a penalty's record keeps of what the catalogue (or the scorer) gave when it was taken.
PENALTY_FIGURES = ("code", "name_zh", "name_en", "amount", "by_wind", "stops_win", "disqualify", "standing",
                   "redeal")
#: What a 查叫 ruling's record keeps of the scorer's settlement.
EXHAUSTIVE_FIGURES = ("by_wind", "flower_pigs", "ready", "not_ready", "refunds")
#: The plays whose event carries an on-the-spot payment.
KONG, CHASE, FOLLOW = "kong", "chase", "follow"
#: The figures other than wins `differences` names, by `kind`: (中文, English) for `tablectl check`.
KINDS = {"exhaustive": ("查叫", "draw settlements (查叫)"), "penalty": ("罚分", "penalties"),
         KONG: ("杠分", "kong payments"), CHASE: ("追牌", "追牌 payments"), FOLLOW: ("跟庄", "跟庄 payments")}


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


def _points(p: Any) -> bool:
    return isinstance(p, dict) and all(w in SEATS and isinstance(v, int) and not isinstance(v, bool)
                                       for w, v in p.items())


def kept(d: dict[str, Any]) -> dict[str, Any] | None:
    """The figures logged with a 查叫, a penalty or a play (`of_action`, `of_play`), where whole."""
    got = d.get(KEY)
    return got if isinstance(got, dict) and _points(got.get("by_wind")) else None


def paid(by_wind: Any) -> dict[str, int]:
    """Points per wind, the seats that pay or get nothing left out (how the record compares them)."""
    return {str(w): int(v) for w, v in (by_wind or {}).items() if v}


def differs(kept_fig: dict[str, Any], now: dict[str, Any], fields: tuple[str, ...] = ("by_wind",)
            ) -> dict[str, Any] | None:
    """What today's rules make of figures recorded as `kept_fig`, where it differs (None: the same);
    `now` has `valid` False and a `message` where today's rules refuse it."""
    if not now.get("valid", True):
        return {"valid": False, "message": str(now.get("message", ""))}
    same = all((paid(kept_fig.get(f)) == paid(now.get(f))) if f == "by_wind" else kept_fig.get(f) == now.get(f)
               for f in fields)
    return None if same else {"valid": True, **{f: now.get(f) for f in fields}}


def _forced(s: "TableState") -> list[int]:
    return in_force(s.actions, s.hand["hand_no"]) if s.hand is not None else []


def of_record(type: str, record: dict[str, Any]) -> dict[str, Any]:
    """The figures a folded 查叫 or penalty record shows, as its event logs them."""
    fields = PENALTY_FIGURES if type == "referee.penalty" else EXHAUSTIVE_FIGURES
    out = {f: record.get(f) for f in fields}
    if record.get("fan") is not None:
        out["fan"] = record["fan"]
    return out


def of_action(s: "TableState", type: str, data: dict[str, Any], at: float) -> dict[str, Any] | None:
    """The figures a 查叫 or penalty being taken logs: the fold's own, as the page shows them after it
    (None for other actions, or one the fold refuses: `referee.validate` says why)."""
    from table_controller.referee import _shallow, apply_referee

    if type not in ("referee.penalty", "referee.exhaustive"):
        return None
    trial = _shallow(s)
    apply_referee(trial, Event(s.seq + 1, at, "referee", type, {k: v for k, v in data.items() if k != KEY}))
    record = trial.actions[-1]
    return None if record.get("error") else {**of_record(type, record), "corrections": _forced(s)}


def _play_paid(hand: dict[str, Any], ev: Event) -> dict[str, Any] | None:
    """The on-the-spot payment the fold made for play `ev` in `hand`: a kong's (nothing paid: empty), a
    discard's 追牌 (None where it made none)."""
    if ev.type == "play.discard":
        got = next((c for c in hand.get("chase_payments", []) if c.get("seq") == ev.seq), None)
        return None if got is None else {"kind": got.get("kind", CHASE), "seat": got["seat"],
                                         "by_wind": dict(got["by_wind"])}
    got = next((k for k in hand.get("kong_payments", []) if k.get("seq") == ev.seq), None)
    return {"kind": KONG, "by_wind": dict(got["by_wind"]) if got else {}}


def of_play(s: "TableState", ev: Event) -> dict[str, Any] | None:
    """The on-the-spot payment a play being logged (`ev`, its data the table's own) logs: what the fold
    pays for it now (a kong: even nothing, so a ruleset paying kongs later pays no old one); None where
    the play settles nothing or is not folded."""
    from table_controller.state import apply

    from table_controller.referee import flow_of

    if not carries(ev) or not ev.type.startswith("play.") or s.hand is None:
        return None
    if ev.type == "play.discard" and not (flow_of(s.ruleset).chase or flow_of(s.ruleset).follow_dealer):
        # no 追牌 or 跟庄 to pay: spare the trial fold
        return None
    trial = apply(s, ev)
    if trial.hand is None or trial.hand.get("play_seq") != ev.seq:
        return None
    got = _play_paid(trial.hand, ev)
    return None if got is None else {**got, "corrections": _forced(s)}


def _key(f: dict[str, Any]) -> dict[str, Any]:
    return {"total": f.get("total"), "payments": {w: v for w, v in (f.get("payments") or {}).items() if v},
            "fans": [(x.get("name"), x.get("value"), x.get("count", 1)) for x in f.get("fans") or []]}


#: Factors a confirmation logged as a fan before they became steps of the payment (`details["steps"]`): 推倒胡's 硬胡,
#: appended to the fans with its factor as value. A hand confirmed so is the same hand, not one today's rules score
#: otherwise.
FORMER_FANS = ("硬胡",)


def rescored(kept: dict[str, Any], result: dict[str, Any]) -> dict[str, Any] | None:
    """What today's rules make of a win confirmed as `kept`, where it differs (None: the same)."""
    if result.get("valid"):
        now = figures(result)
        was = {**now, "fans": now["fans"] + [{"name": s["name"], "value": s["value"], "count": 1}
                                             for s in result.get("steps") or [] if s.get("name") in FORMER_FANS]}
        return None if _key(kept) in (_key(now), _key(was)) else {"valid": True, **now}
    return {"valid": False, "reason": result.get("reason"), "message": result.get("message", "")}


def again(s: "TableState", ev: Event) -> dict[str, dict[str, Any]]:
    """The figures a correction being taken (`ev`, not yet logged) logs: each win of the hand confirmed
    and standing once it is folded, scored again, its 查叫 and penalties, and its kongs' and 追牌's
    payments, with the corrections in force but itself."""
    from table_controller.referee import active, confirmed_wins
    from table_controller.state import apply

    if s.hand is None:
        return {}
    trial = apply(s, ev)
    hand_no = s.hand["hand_no"]
    forced = [x for x in in_force(trial.actions, hand_no) if x != ev.seq]
    out: dict[str, dict[str, Any]] = {
        str(w["seq"]): {"read_seq": w["read_seq"], "total": w.get("total"), "fans": list(w.get("fans", [])),
                        "payments": dict(w.get("by_wind", {})), "corrections": forced}
        for w in confirmed_wins(trial.actions, hand_no)}
    for a in active(trial.actions, None, hand_no):  # the hand's 查叫 and penalties, as they now fold
        if a["type"] in ("referee.penalty", "referee.exhaustive") and not a.get("error"):
            out[str(a["seq"])] = {**of_record(a["type"], a), "corrections": forced}
    if trial.hand is not None:  # its kongs and 追牌, each play as it now stands
        for play in _plays(trial):
            got = _play_paid(trial.hand, play)
            if got is not None:
                out[name(play)] = {**got, "corrections": forced}
    return out


def _plays(s: "TableState") -> list[Event]:
    """The hand's plays that settle figures, as the fold took them (corrected, inserted, void ones left out)."""
    from table_controller.corrections import fixed, insertions, layout, patches

    if s.hand is None or s.hand_base is None:
        return []
    hand_no = s.hand["hand_no"]
    fixes = patches(s.actions, hand_no)
    out = []
    for p in layout(s.hand_events, insertions(s.actions, hand_no), s.hand_base.seq):
        now = fixed(p, fixes)
        if now is not None and now.type.startswith("play.") and carries(now):
            out.append(now)
    return out


def name(ev: Event) -> str:
    """How a correction's `settled` names an event: its seq, or an inserted play's correction's."""
    return str(ev.data.get("inserted") or ev.seq)


def carries(ev: Event) -> bool:
    """Whether the event settles figures the record keeps (`KEY`)."""
    return ev.type in ("referee.win_confirm", "referee.exhaustive", "referee.penalty", "play.kong",
                       "play.discard") or (ev.type == "play.claim" and ev.data.get("kind") == "kong")


def chosen(ev: Event, actions: list[dict[str, Any]], hand_no: Any) -> Event:
    """An event that settles figures (`carries`: a confirmation, a 查叫, a penalty, a kong, a discard)
    folded again in a hand whose corrections changed (`actions`: those in force now):
    with the figures logged for exactly these corrections (its own, or the newest a correction logged),
    or with none, to be scored again."""
    from table_controller.corrections import TYPE
    from table_controller.referee import active

    forced = in_force(actions, hand_no)
    own = None if ev.data.get("inserted") else ev.data.get(KEY)  # an inserted play's are its correction's
    pick = own if isinstance(own, dict) and sorted(own.get("corrections") or []) == forced else None
    for a in active(actions, TYPE, hand_no):
        got = (a.get(AGAIN) or {}).get(name(ev)) if not a.get("error") else None
        if isinstance(got, dict) and sorted([*(got.get("corrections") or []), a["seq"]]) == forced:
            pick = got
    data = {k: v for k, v in ev.data.items() if k != KEY}
    if pick is not None:
        data[KEY] = pick
    return Event(ev.seq, ev.at, ev.source, ev.type, data)


def differences(s: "TableState") -> list[dict[str, Any]]:
    """Every figure standing, in every round, that today's rules would change: confirmed wins (`kind`
    "win": both sets of figures), then 查叫 rulings, penalties, kong and 追牌 payments (`kind` the event's,
    `recorded` and `now` points per wind), with the round, hand, seat and seq (for `tablectl check`)."""
    from table_controller.referee import active, confirmed_wins

    current = [s.hand] if s.hand is not None and not s.hand.get("ended") else []
    rounds = [(r.get("round"), r.get("actions") or [], r.get("hands") or []) for r in s.rounds]
    rounds.append((s.round, s.actions, [*s.hands, *current]))
    out: list[dict[str, Any]] = []
    for number, actions, hands in rounds:
        for w in confirmed_wins(actions, None):
            if w.get("rescored"):
                out.append({"kind": "win", "round": number, "hand_no": w.get("hand_no"), "seq": w["seq"],
                            "seat": w.get("seat"),
                            "confirmed": {"total": w.get("total"), "payments": dict(w.get("by_wind", {}))},
                            "now": w["rescored"]})
        for a in active(actions):
            if a["type"] in ("referee.penalty", "referee.exhaustive") and a.get("rescored") and not a.get("error"):
                out.append({"kind": a["type"].partition(".")[2], "round": number, "hand_no": a.get("hand_no"),
                            "seq": a["seq"], "seat": a.get("seat"), "name_zh": a.get("name_zh"),
                            "recorded": paid(a.get("by_wind")), "now": a["rescored"]})
        for h in hands:
            for r in h.get(PLAYS_RESCORED) or []:
                out.append({**r, "round": number, "hand_no": h.get("hand_no")})
    return out


def note_play(hand: dict[str, Any], ev: Event, kind: str, seat: Any, recorded: dict[str, int],
              now: dict[str, Any]) -> None:
    """Note on `hand` (the fold's copy) a kong's or 追牌's payment kept as logged that today's rules
    would make otherwise (`now`: {"valid": True, "by_wind": ...})."""
    hand[PLAYS_RESCORED] = [*hand.get(PLAYS_RESCORED, []), {"kind": kind, "seq": ev.seq, "seat": seat,
                                                            "recorded": recorded, "now": now}]


def told(d: dict[str, Any]) -> str:
    """One of `differences` (not a win) in words, Chinese first: where, what was recorded, what today's
    rules give."""
    from table_controller.tiles import SEAT_NAMES

    now = d["now"]
    today = (f"现行规则计 {in_words(now.get('by_wind'))}" if now.get("valid")
             else f"现行规则不成立（{now.get('message', '')}）")
    seat = f"{SEAT_NAMES.get(d['seat'], d['seat'])}家" if d.get("seat") in SEATS else ""
    what = d.get("name_zh") if d["kind"] == "penalty" and d.get("name_zh") else KINDS[d["kind"]][0]
    return (f"第 {d['round']} 轮第 {d['hand_no'] if d.get('hand_no') is not None else '-'} 盘 {seat}{what} #{d['seq']}："
            f"记录时 {in_words(d['recorded'])}，{today}")


def in_words(by_wind: Any) -> str:
    """Points per wind as the check says them: 东+4 南-4 (无: nothing paid)."""
    from table_controller.tiles import SEAT_NAMES

    pays = paid(by_wind if isinstance(by_wind, dict) else {})
    return " ".join(f"{SEAT_NAMES[w]}{pays[w]:+d}" for w in SEATS if pays.get(w)) or "无"

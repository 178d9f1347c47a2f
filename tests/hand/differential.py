"""Differential checks of undo (撤销) and corrections (更正牌谱) on real recorded hands: shared by
`test_undo_corrections_differential.py` (a fixed number of examples, seconds) and any longer run.

The hands are the simulator's players' (`live_games.LiveGame`), keyed into a real controller. Each
check compares two logs of the same events (the same seqs and stamps) folded from the start:
- undo: the log with a referee action and its undo against the log where both are a filler event
  that changes nothing but the log's lines (`FILLER`); then the rest of the session after both;
- correction: the log with the correction against the log where the play was recorded as corrected
  from the start (a void play and the correction a filler, an inserted play keyed in its place,
  numbered between its neighbours as the fold numbers it), each settled figure logged as the
  controller logs it (`Keyer`: a kong's and 追牌's payments, a confirmation's, a 查叫's, a penalty's).
Compared: the public and the referee projection, the score sheet, each hand's public record;
less what the docs say differs: the log's lines and the referee's action list (the action and its
undo are on it), and for a correction the referee's record (it keeps `was` / `void`) and an inserted
play's line named by its correction's seq (`inserted`)."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from table_controller import settlements
from table_controller.corrections import FIELDS, TYPE as CORRECTION, layout
from table_controller.penalties import PenaltyError, catalogue
from table_controller.projection import public_view, referee_view
from table_controller.record import hand_numbers, hand_record
from table_controller.referee import RefereeError, validate
from table_controller.state import TableState, apply, fold
from table_controller.store import Event
from table_controller.tiles import SEATS

from .live_games import LiveGame

#: An event that changes nothing but the log's lines (no part of the fold reads it): in place of a play.
FILLER = "test.filler"
#: In place of a referee action: one the fold refuses (unknown), recorded with its error and no effect, so
#: that what the fold derives after any referee action (`hand.winners`, `hand.out`) is derived here too.
REF_FILLER = "referee.test_filler"
#: What the views may differ in between an action undone and no action: the log's lines, the action
#: list (the action and its undo are kept on it, marked), the count of actions, what undo would cancel next.
UNDO_SKIP = frozenset({"log", "actions", "actions_total", "last_action"})
#: Fields of a referee event's data that name another event by its seq.
_SEQ_FIELDS = ("target", "read_seq", "seq", "appeal", "insert_before", "insert_after")


def session_events(ruleset: str, seed: int, hands: int, path: Any) -> list[Event]:
    """The log of up to `hands` hands of a session played by the simulator's players."""
    game = LiveGame(ruleset, seed, path, undo_every=10**9, late_undo=0.0)
    for _ in range(hands):
        if not game.play_hand():
            break
    return game.store.since(0)


def filler(seq: int, at: float) -> Event:
    return Event(seq, at, "test", FILLER, {})


def ref_filler(seq: int, at: float) -> Event:
    return Event(seq, at, "referee", REF_FILLER, {})


def renumber(ev: Event, shift: Callable[[int], int]) -> Event:
    """`ev` with its seq and every seq it names moved by `shift` (events inserted before it)."""
    def move(d: Any) -> Any:
        if isinstance(d, dict):
            out = {}
            for k, v in d.items():
                if k in _SEQ_FIELDS and isinstance(v, int) and not isinstance(v, bool):
                    out[k] = shift(v)
                elif k == "corrections" and isinstance(v, list):
                    out[k] = [shift(x) for x in v]
                elif k == settlements.AGAIN and isinstance(v, dict):
                    out[k] = {(str(shift(int(n))) if n.isdigit() else n): move(f) for n, f in v.items()}
                else:
                    out[k] = move(v)
            return out
        if isinstance(d, list):
            return [move(x) for x in d]
        return d

    return Event(shift(ev.seq), ev.at, ev.source, ev.type, move(ev.data))


def take(s: TableState, type_: str, data: dict[str, Any], at: float | None = None) -> Event:
    """A referee action as `Controller.referee_action` logs it on state `s` (its figures added, checked
    first: `RefereeError` / `PenaltyError` where the service would refuse it)."""
    at = at if at is not None else (s.last_at or 0.0)
    payload = {**data, "by": "referee", "client": None}
    shown = settlements.of_read(s) if type_ == "referee.win_confirm" else settlements.of_action(s, type_, payload, at)
    if shown is not None:
        payload[settlements.KEY] = shown
    validate(s, type_, payload, at=at)
    if type_ == CORRECTION:
        again = settlements.again(s, Event(s.seq + 1, at, "referee", type_, payload))
        if again:
            payload[settlements.AGAIN] = again
    return Event(s.seq + 1, at, "referee", type_, payload)


def rekeyed(s: TableState, ev: Event) -> Event:
    """`ev` (an event of a log) as the controller would have logged it on state `s`: a play's and a
    ruling's settled figures worked out again (a play keyed otherwise pays otherwise)."""
    data = {k: v for k, v in ev.data.items() if k not in (settlements.KEY, settlements.AGAIN)}
    plain = Event(ev.seq, ev.at, ev.source, ev.type, data)
    if ev.type.startswith("play."):
        shown = settlements.of_play(s, plain)
    elif ev.type == "referee.win_confirm":
        shown = settlements.of_read(s)
    elif ev.type in ("referee.penalty", "referee.exhaustive"):
        shown = settlements.of_action(s, ev.type, data, ev.at)
    else:
        return ev
    return plain if shown is None else Event(ev.seq, ev.at, ev.source, ev.type, {**data, settlements.KEY: shown})


def fold_rekeyed(events: Iterable[Event]) -> tuple[TableState, list[Event]]:
    """The log of `events` keyed afresh, event by event (`rekeyed`), and its fold."""
    s = TableState()
    out = []
    for ev in events:
        ev = rekeyed(s, ev) if settlements.carries(ev) else ev
        out.append(ev)
        s = apply(s, ev)
    return s, out


def views(s: TableState, skip: frozenset[str] = UNDO_SKIP) -> dict[str, Any]:
    pub, ref = public_view(s), referee_view(s)
    return {"public": {k: v for k, v in pub.items() if k not in skip},
            "referee": {k: v for k, v in ref.items() if k not in skip}}


def records(events: list[Event], s: TableState, drop: frozenset[int] = frozenset(),
            inserted: bool = False) -> dict[int, Any]:
    """Each hand's public record, less the lines of events `drop` (an action and its undo) and, with
    `inserted`, the lines' seqs and an inserted play's mark (it is named by its correction's seq: the
    lines' order and contents are compared)."""
    out = {}
    for n in dict.fromkeys(hand_numbers(events)):
        rec = hand_record(events, n, state=s)
        lines = []
        for line in rec["lines"]:
            if line["seq"] in drop and not line.get("inserted"):
                continue
            line = dict(line)
            if inserted:  # a play inserted is named by its correction's seq, marked so; one keyed, by its own
                line.pop("inserted", None)
                line.pop("seq")
            lines.append(line)
        out[n] = {**rec, "lines": lines}
    return out


def differ(a: Any, b: Any, path: str = "") -> list[str]:
    """Where `a` and `b` differ, as paths; lists of unequal length item by item as far as both go."""
    if isinstance(a, dict) and isinstance(b, dict):
        return [d for k in sorted(set(a) | set(b), key=str)
                for d in (differ(a[k], b[k], f"{path}.{k}") if k in a and k in b else [f"{path}.{k} only on one side"])]
    if isinstance(a, list) and isinstance(b, list):
        out = [d for i, (x, y) in enumerate(zip(a, b)) for d in differ(x, y, f"{path}[{i}]")]
        if len(a) != len(b):
            out.append(f"{path}: {len(a)} items != {len(b)}; extra {(a[len(b):] or b[len(a):])[:2]!r}"[:400])
        return out
    return [] if a == b else [f"{path}: {a!r} != {b!r}"[:300]]


@dataclass
class Outcome:
    """What one example did: compared, or refused (and why), or skipped (no such action here)."""

    kind: str
    where: str
    diffs: list[str] = field(default_factory=list)
    why: str = ""


# -- (a) undo -------------------------------------------------------------------------------------

def candidate_actions(s: TableState, rng: random.Random, later: list[Event]) -> list[tuple[str, list[tuple[str, dict[str, Any]]]]]:
    """Referee action sequences that may be taken on `s` (named), each a list of (type, data), to be
    undone one by one, newest first. `later`: the session's events after `s` (reads to borrow)."""
    out: list[tuple[str, list[tuple[str, dict[str, Any]]]]] = []
    hand = s.hand
    playing = hand is not None and not hand.get("ended")
    cat = catalogue(s.ruleset)
    for p in rng.sample(list(cat.items), min(3, len(cat.items))):
        d: dict[str, Any] = {"seat": rng.choice(SEATS), "code": p.code, "note": "fuzz"}
        if p.from_scoring:
            d["fan"] = rng.choice([1, 2, 8])
        elif p.chosen:
            d["amount"] = p.min
        if p.pays == "victim":
            d["victim"] = rng.choice([w for w in SEATS if w != d["seat"]])
        out.append((f"penalty {p.code}", [("referee.penalty", d)]))
    reads = [e for e in later if e.type == "referee.win_read"
             and hand is not None and e.data["hand"].get("seat_wind") in SEATS]
    hand_no = hand["hand_no"] if hand else None
    nxt = next((e for e in later if e.type == "operator.hand_start"), None)
    mine = [e for e in reads if nxt is None or e.seq < nxt.seq]
    if mine and hand is not None:
        read = rng.choice(mine).data["hand"]
        out.append(("win_read", [("referee.win_read", {"hand": read})]))
        out.append(("win_read+confirm", [("referee.win_read", {"hand": read}), ("referee.win_confirm", {})]))
    out.append(("session", [("referee.session_start", {"minutes": 120})]))
    out.append(("session+pause+resume", [("referee.session_start", {"minutes": 120}),
                                         ("referee.clock_pause", {"reason": "牌桌故障"}),
                                         ("referee.clock_resume", {})]))
    out.append(("session+end", [("referee.session_start", {"minutes": 120}), ("referee.session_end", {})]))
    out.append(("appeal+ruling", [("referee.appeal", {"position": rng.randint(1, 4), "text": "fuzz"}),
                                  ("referee.appeal_ruling", {"appeal": "@1", "upheld": rng.random() < 0.5,
                                                             "note": "fuzz"})]))
    if not playing:
        out.append(("substitute", [("referee.substitute", {"position": str(rng.randint(1, 4)), "name": "替补",
                                                           "reason": "fuzz"})]))
        out.append(("round_start", [("referee.round_start", {"round": s.round + 1,
                                                             "players": {"1": "甲", "2": "乙", "3": "丙", "4": "丁"}})]))
        ended = hand is not None and hand.get("ended") and hand_no is not None
        xs = [e for e in later if e.type == "referee.exhaustive"]
        if ended and xs and (nxt is None or xs[0].seq < nxt.seq):
            out.append(("exhaustive", [("referee.exhaustive", {"hands": xs[0].data["hands"]})]))
    if playing and hand is not None:
        fix = random_correction(s, rng)
        if fix is not None:
            out.append((f"correction {fix[0]}", [(CORRECTION, fix[1])]))
    return out


def _resolve(data: dict[str, Any], seqs: list[int]) -> dict[str, Any]:
    """"@n" in `data`: the seq of the n-th action of the sequence."""
    return {k: (seqs[int(v[1:]) - 1] if isinstance(v, str) and v.startswith("@") else v) for k, v in data.items()}


def undo_example(events: list[Event], k: int, rng: random.Random, across: bool = False) -> list[Outcome]:
    """At position `k` (after `events[:k]`) each candidate action sequence taken, then undone (newest
    first; with `across`, the undo only after the next hand has started), against the same log with
    fillers: the views at once, and after the rest of the session; each hand's record."""
    base = fold(events[:k])
    out: list[Outcome] = []
    for name, seqn in candidate_actions(base, rng, events[k:]):
        where = f"#{k} {name}"
        s, taken, refused = base, [], ""
        for type_, data in seqn:
            try:
                ev = take(s, type_, _resolve(data, [e.seq for e in taken]))
            except (RefereeError, PenaltyError) as exc:
                refused = f"{type_}: {exc}"
                break
            taken.append(ev)
            s = apply(s, ev)
        if not taken:
            out.append(Outcome("refused", where, why=refused))
            continue
        # the events between the action and its undo (across a hand's boundary: into the next hand)
        gap: list[Event] = []
        if across:
            starts = [i for i in range(k, len(events)) if events[i].type == "operator.hand_start"]
            if not starts:
                continue
            j = rng.randint(starts[0] + 1, min(len(events), starts[0] + 30))
            gap = events[k:j]
        n = len(taken)
        shift_gap = (lambda q: q + n if q > k else q)
        moved_gap = [renumber(e, shift_gap) for e in gap]
        for e in moved_gap:
            s = apply(s, e)
        undos: list[Event] = []
        undo_refused = ""
        for ev in reversed(taken):
            try:
                u = take(s, "referee.undo", {"reason": "fuzz", "target": ev.seq}, at=s.last_at)
            except (RefereeError, PenaltyError) as exc:
                undo_refused = str(exc)
                break
            undos.append(u)
            s = apply(s, u)
        if undo_refused:
            out.append(Outcome("undo refused", where, why=undo_refused))
            continue
        # undo of an undo: refused
        try:
            take(s, "referee.undo", {"reason": "fuzz", "target": undos[-1].seq})
            out.append(Outcome("compared", where, [f"an undo of undo #{undos[-1].seq} was taken"]))
        except (RefereeError, PenaltyError):
            pass
        with_log = events[:k] + taken + moved_gap + undos
        ref = fold(events[:k] + [ref_filler(e.seq, e.at) for e in taken] + moved_gap
                   + [ref_filler(u.seq, u.at) for u in undos])
        diffs = differ(views(s), views(ref))
        m = n + len(undos)
        rest = [renumber(e, lambda q: q + m if q > k + len(gap) else (q + n if q > k else q))
                for e in events[k + len(gap):]]
        s_end, r_end = fold(rest, s), fold(rest, ref)
        diffs += [f"after the rest: {d}" for d in differ(views(s_end), views(r_end))]
        full = with_log + rest
        ref_log = full[:k] + [ref_filler(e.seq, e.at) for e in taken] + moved_gap + [ref_filler(u.seq, u.at) for u in undos] + rest
        drop = frozenset(e.seq for e in taken + undos)
        try:
            diffs += [f"record: {d}" for d in differ(records(full, s_end, drop), records(ref_log, r_end, drop))]
        except Exception as exc:  # noqa: BLE001 — a record that cannot be read is a finding too
            diffs.append(f"record raised {type(exc).__name__}: {exc}")
        out.append(Outcome("compared", where + (" across" if across else ""), diffs))
    return out


# -- (b) corrections ------------------------------------------------------------------------------

def _plays(s: TableState) -> list[Event]:
    """The hand's logged plays (as recorded), oldest first, the deal's end aside."""
    return [e for e in s.hand_events if e.type in FIELDS]


def random_correction(s: TableState, rng: random.Random) -> tuple[str, dict[str, Any]] | None:
    """A correction of a play of the hand in play, of a random kind (a field put right, void, an
    insertion, a play of another kind in its place); None where the hand has no play."""
    plays = _plays(s)
    if not plays or s.hand is None:
        return None
    ev = rng.choice(plays[-3:] if rng.random() < 0.6 else plays)  # a late play: fewer later plays depend on it
    tiles = sorted({d["tile"] for pool in s.hand["discards"].values() for d in pool}) or ["1m"]
    kind = rng.choice(["tile", "seat", "void", "insert_discard", "insert_flower", "insert_kong", "replace",
                       "claim_seat", "claim_meld"])
    d = ev.data
    laid = {t for fl in s.hand["flowers"].values() for t in fl}
    free = [f"{n}f" for n in range(1, 9) if f"{n}f" not in laid]
    if kind == "tile" and ev.type in ("play.discard", "play.flower"):
        return kind, {"target": ev.seq, "tile": rng.choice(tiles if ev.type == "play.discard" else free or ["1f"]),
                      "reason": "fuzz"}
    if kind == "seat" and "seat" in d:
        return kind, {"target": ev.seq, "seat": rng.choice([w for w in SEATS if w != d["seat"]]), "reason": "fuzz"}
    if kind == "claim_seat" and ev.type == "play.claim":
        seat = rng.choice([w for w in SEATS if w not in (d["seat"], d.get("from"))])
        return kind, {"target": ev.seq, "seat": seat, "reason": "fuzz"}
    if kind == "claim_meld" and ev.type == "play.claim" and d.get("kind") in ("pung", "kong"):
        t = d["tiles"][0]
        other = "kong" if d["kind"] == "pung" else "pung"
        return kind, {"target": ev.seq, "kind": other, "tiles": [t] * (4 if other == "kong" else 3),
                      "reason": "fuzz"}
    if kind == "void":
        return kind, {"target": ev.seq, "void": True, "reason": "fuzz"}
    if kind == "insert_discard" and "seat" in d:
        return kind, {rng.choice(["insert_before", "insert_after"]): ev.seq,
                      "play": {"type": "discard", "seat": d["seat"], "tile": rng.choice(tiles)}, "reason": "fuzz"}
    if kind == "insert_flower" and free and "seat" in d:
        return kind, {rng.choice(["insert_before", "insert_after"]): ev.seq,
                      "play": {"type": "flower", "seat": d["seat"], "tile": rng.choice(free)}, "reason": "fuzz"}
    if kind == "insert_kong" and "seat" in d:
        return kind, {"insert_after": ev.seq, "play": {"type": "kong", "seat": d["seat"], "tiles": [rng.choice(tiles)] * 4,
                                                        "concealed": True}, "reason": "fuzz"}
    if kind == "replace" and ev.type == "play.discard" and free:
        return kind, {"target": ev.seq, "play": {"type": "flower", "seat": d["seat"], "tile": rng.choice(free)},
                      "reason": "fuzz"}
    if kind == "replace" and ev.type == "play.flower":
        return kind, {"target": ev.seq, "play": {"type": "discard", "seat": d["seat"], "tile": rng.choice(tiles)},
                      "reason": "fuzz"}
    return None


def direct_log(logged: list[Event], fix: Event, action: dict[str, Any]) -> list[Event]:
    """The log `logged` (which holds correction `fix`, folded as `action`) as it would have been with the
    hand's plays recorded as corrected from the start: a play's fields put right in place, a void play
    and the correction a filler, an inserted play keyed where the fold puts it (numbered between its
    neighbours, as the fold numbers it, and marked `inserted` as the fold marks it)."""
    start = max(e.seq for e in logged if e.type == "operator.hand_start" and e.seq <= fix.seq)
    inserts = {fix.seq: action["insert"]} if action.get("insert") else {}
    hand_evs = [e for e in logged if e.seq > start]
    placed = [p.play for p in layout(hand_evs, inserts, start) if p.recorded is None]
    target = action.get("target")
    out: list[Event] = []
    for e in logged:
        if e.seq == fix.seq:
            out.append(ref_filler(e.seq, e.at))
        elif e.seq == target and action.get("void"):
            out.append(filler(e.seq, e.at))
        elif e.seq == target:
            out.append(Event(e.seq, e.at, e.source, e.type, {**e.data, **action.get("fields", {})}))
        else:
            out.append(e)
    for play in placed:
        i = next((i for i, e in enumerate(out) if e.seq > play.seq), len(out))
        out.insert(i, play)
    return out


def correction_example(events: list[Event], k: int, rng: random.Random) -> Outcome | None:
    """At position `k` a random correction taken (or refused: the state untouched, a reason given),
    then the rest of the hand as recorded (each settled figure as the controller would log it then),
    against the log recorded as corrected from the start: the views at once and at the hand's end,
    and each hand's public record; then the correction undone at once, against the log as recorded."""
    s = fold(events[:k])
    if s.hand is None or s.hand_base is None:
        return None
    got = random_correction(s, rng)
    if got is None:
        return None
    kind, data = got
    where = f"#{k} correction {kind} {data}"
    seen = views(s)
    try:
        fix = take(s, CORRECTION, data)
    except (RefereeError, PenaltyError) as exc:
        diffs = [] if str(exc).strip() else ["refused without a reason"]
        diffs += [f"refused, yet changed: {d}" for d in differ(seen, views(s))]
        return Outcome("compared" if diffs else "refused", where, diffs, why=str(exc))
    after = apply(s, fix)
    action = after.actions[-1]
    if action.get("error"):
        return Outcome("compared", where, [f"taken yet refused by the fold: {action['error']}"])
    direct, direct_events = fold_rekeyed(direct_log(events[:k] + [fix], fix, action))
    diffs = differ(views(after), views(direct))
    # the rest of the hand keyed after the correction
    nxt = next((i for i in range(k, len(events)) if events[i].type == "operator.hand_start"), len(events))
    logged, end = events[:k] + [fix], after
    for e in events[k:nxt]:
        e = rekeyed(end, renumber(e, lambda q: q + 1 if q > k else q))
        logged.append(e)
        end = apply(end, e)
    d_end, d_events = fold_rekeyed(direct_log(logged, fix, action))
    diffs += [f"at the hand's end: {d}" for d in differ(views(end), views(d_end))]
    try:
        diffs += [f"record: {d}" for d in differ(records(logged, end, frozenset({fix.seq}), inserted=True),
                                                  records(d_events, d_end, frozenset({fix.seq}), inserted=True))]
    except Exception as exc:  # noqa: BLE001 — a record that cannot be read is a finding too
        diffs.append(f"record raised {type(exc).__name__}: {exc}")
    # undone at once: the log as recorded
    try:
        undo = take(after, "referee.undo", {"reason": "fuzz", "target": fix.seq})
    except (RefereeError, PenaltyError) as exc:
        diffs.append(f"its undo refused: {exc}")
        return Outcome("compared", where, diffs)
    back = apply(after, undo)
    ref = fold(events[:k] + [ref_filler(fix.seq, fix.at), ref_filler(undo.seq, undo.at)])
    diffs += [f"undone: {d}" for d in differ(views(back), views(ref))]
    return Outcome("compared", where, diffs)

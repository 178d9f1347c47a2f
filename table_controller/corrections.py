"""Correcting a play already in the record (`referee.play_correct`): a tile, a seat or a meld keyed
or seen wrong, a play recorded twice, a play never keyed (inserted before or after a play of the
record), or a play of another kind (a discard keyed as a flower: the play voided and the right one put
in its place, in one action), in the hand in play (or just ended, until the next starts).

The log keeps the play as recorded and the correction beside it (nothing is rewritten): a correction
names the play's `seq` (`target`), the fields it puts right (`seat`, `tile`, `tiles`, `from`, `kind`,
`concealed`, `added`, `suit`) or `void`, and a reason; or it names where a missed play goes
(`insert_before` / `insert_after` a play's seq, or `target` for a play of another kind in its place)
and the play (`play`: as `POST /api/play` has it). An inserted play is named by its correction's seq
(a later correction may put it right or void it, or insert beside it). `referee.undo` takes it back. The fold keeps
the hand's events since its start (`HandEvents`) and the state at its start; when the corrections
in force change, it folds the hand again from there with each play as corrected (`rework`), so the
pools, melds, flowers, the wall's count, the turn, kong payments and any win read since are what
they would have been had the play been recorded right. A void play is skipped; an inserted one is
folded where it goes (`layout`), numbered between its neighbours (19.5 between #19 and #20) so that
what the fold reads as newest (a pool's last discard, a claim keyed late) stays right.

A correction the hand cannot take (a fifth copy, a claim of a tile no longer the last discard, a
later play that no longer fits) is refused when it is taken (`refusal`, through
`referee.refuse_new`), with the checks keyed play goes through (`controller._play_problem`); a
correction already in a log folds as it did. Pure: no I/O.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from table_controller.store import Event

if TYPE_CHECKING:
    from table_controller.state import TableState

TYPE = "referee.play_correct"
#: The plain fold of one event: (state, the event as applied, the event as recorded; None for a play a
#: correction inserted, which is not kept among the hand's events) -> state.
Step = Callable[["TableState", Event, "Event | None"], "TableState"]
#: The fields a correction may put right, per kind of play (a play keeps its kind: a discard keyed
#: as a flower is voided and keyed again).
FIELDS = {
    "play.discard": ("seat", "tile"),
    "play.flower": ("seat", "tile"),
    "play.claim": ("seat", "from", "kind", "tiles"),
    "play.kong": ("seat", "tiles", "concealed", "added"),
    "play.missing": ("seat", "suit"),
    "play.riichi": ("seat",),
}
ALL_FIELDS = ("seat", "tile", "tiles", "from", "kind", "concealed", "added", "suit")
PLAY_ZH = {"play.discard": "打出", "play.flower": "补花", "play.claim": "吃碰杠", "play.kong": "杠",
           "play.missing": "定缺", "play.riichi": "立直"}
#: What an inserted play must name, per kind (as `POST /api/play` asks).
NEEDS = {"play.discard": ("seat", "tile"), "play.flower": ("seat", "tile"),
         "play.claim": ("seat", "from", "kind", "tiles"), "play.kong": ("seat", "tiles"),
         "play.missing": ("seat", "suit"), "play.riichi": ("seat",)}


@dataclass(frozen=True)
class Placed:
    """One step of the hand as the fold takes it: an event as logged (`recorded`), or a play a correction
    inserted (`recorded` None, `by` the correction's seq: the play's name). `play` is not yet corrected."""

    play: Event
    recorded: Event | None
    by: int | None = None

    @property
    def ident(self) -> int:
        """The seq a correction names this play by."""
        return self.by if self.by is not None else int(self.play.seq)


class HandEvents:
    """The events since the hand in play started, oldest first. States share one list: a state reads
    only its first `n`, and appends in place only when it holds the list's tip (else it copies), so
    keeping them costs O(1) an event and an older state (a trial, the broadcast's past) never sees
    a newer one's events."""

    __slots__ = ("_items", "n")

    def __init__(self, items: list[Event] | None = None, n: int | None = None) -> None:
        self._items = items if items is not None else []
        self.n = len(self._items) if n is None else n

    def plus(self, ev: Event) -> "HandEvents":
        if len(self._items) != self.n:
            return HandEvents(self._items[:self.n] + [ev])
        self._items.append(ev)
        return HandEvents(self._items, self.n + 1)

    def __iter__(self) -> Iterator[Event]:
        return iter(self._items[:self.n])

    def __len__(self) -> int:
        return self.n

    def find(self, seq: Any) -> Event | None:
        return next((e for e in self if e.seq == seq), None)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, HandEvents) and list(self) == list(other)

    __hash__ = None  # type: ignore[assignment]

    def __getstate__(self) -> tuple[list[Event], int]:  # a snapshot keeps only this state's events
        return self._items[:self.n], self.n

    def __setstate__(self, st: tuple[list[Event], int]) -> None:
        self._items, self.n = st


def patches(actions: list[dict[str, Any]], hand_no: Any) -> dict[int, dict[str, Any] | None]:
    """The corrections in force in hand `hand_no`: play seq -> the fields put right (None: void).
    Several of one play apply in order (a later one corrects the earlier; fields after a void
    restore the play with them)."""
    from table_controller.referee import active

    out: dict[int, dict[str, Any] | None] = {}
    for a in active(actions, TYPE, hand_no):
        if a.get("error") or "target" not in a:  # an insertion alone corrects no play
            continue
        t = int(a["target"])
        out[t] = None if a.get("void") else {**(out.get(t) or {}), **a.get("fields", {})}
    return out


def insertions(actions: list[dict[str, Any]], hand_no: Any) -> dict[int, dict[str, Any]]:
    """The plays inserted in hand `hand_no` (None: any) by corrections in force: the correction's seq ->
    its `insert` (`type`, `data`, `anchor`: the play it goes beside, `after`, `at`: the anchor's time)."""
    from table_controller.referee import active

    return {a["seq"]: a["insert"] for a in active(actions, TYPE, hand_no) if a.get("insert") and not a.get("error")}


def layout(events: Iterable[Event], inserts: dict[int, dict[str, Any]], start: int) -> list[Placed]:
    """The hand's steps in play order: each logged event, and the plays inserted right before and right
    after it (a later insertion nearer its anchor), and beside those, numbered between the logged
    events around them (`start`: the seq of the hand's start, before its first event). A play inserted
    beside an inserted play names it by its correction's seq, which is also that correction's event in
    the log: only plays are places, else it would be folded there too."""
    if not inserts:
        return [Placed(e, e) for e in events]
    near: dict[tuple[int, bool], list[int]] = {}
    for by in sorted(inserts):
        near.setdefault((int(inserts[by]["anchor"]), bool(inserts[by]["after"])), []).append(by)
    order: list[tuple[Event | None, int]] = []

    def put(ident: int, ev: Event | None) -> None:
        for by in near.get((ident, False), []):
            put(by, None)
        order.append((ev, ident))
        for by in reversed(near.get((ident, True), [])):
            put(by, None)

    for e in events:  # only a play is a place: a correction's own event shares the seq naming its play
        if e.type.startswith("play."):
            put(e.seq, e)
        else:
            order.append((e, e.seq))
    placed: list[Placed] = []
    run: list[int] = []
    prev: float = start

    def flush() -> None:
        for i, by in enumerate(run, 1):
            ins = inserts[by]
            key = prev + i / (len(run) + 1)  # between its logged neighbours: "newest" stays true
            placed.append(Placed(Event(key, ins["at"], "referee", ins["type"],  # type: ignore[arg-type]
                                       {**ins["data"], "inserted": by}), None, by))
        run.clear()

    for ev, ident in order:
        if ev is None:
            run.append(ident)
            continue
        flush()
        placed.append(Placed(ev, ev))
        prev = ev.seq
    flush()
    return placed


def fixed(p: Placed, fixes: dict[int, dict[str, Any] | None]) -> Event | None:
    """`p`'s play as corrected by `fixes` (`patches`): itself, with fields put right, or None if void."""
    ev = p.play
    if p.ident not in fixes or not ev.type.startswith("play."):  # an inserted play is named by its correction's seq
        return ev
    fix = fixes[p.ident]
    if fix is None:
        return None
    return Event(ev.seq, ev.at, ev.source, ev.type, {**ev.data, **fix})


def corrected(ev: Event, fixes: dict[int, dict[str, Any] | None]) -> Event | None:
    """`ev` as corrected by `fixes` (`patches`): itself, with fields put right, or None if void."""
    return fixed(Placed(ev, ev), fixes)


def play_of(s: "TableState", seq: Any) -> Event | None:
    """The play of the hand in play named `seq`: one logged, or one a correction in force inserted (as
    inserted, named by the correction's seq); None if there is none."""
    if not isinstance(seq, int) or isinstance(seq, bool) or s.hand is None:
        return None
    ev = s.hand_events.find(seq)
    if ev is not None and ev.type.startswith("play."):
        return ev
    ins = insertions(s.actions, s.hand["hand_no"]).get(seq)
    return None if ins is None else Event(seq, ins["at"], "referee", ins["type"], dict(ins["data"]))


def not_a_play(s: "TableState", seq: Any) -> str:
    """Why a correction naming `seq` finds no play of the hand in play to put right or insert beside,
    saying what `seq` is where the state knows: a correction (the referee is pointed to the play it put
    right), or a record of a hand that has ended, the next having started (its record stands: the fold
    would correct the hand in play, never that one); else that it is no play of this hand."""
    assert s.hand is not None
    hand_no = s.hand["hand_no"]
    named = next((a for a in s.actions if a["seq"] == seq), None) if isinstance(seq, int) else None
    if named is not None and named["type"] == TYPE and named.get("hand_no") not in (None, hand_no):
        return _closed(s, seq, f"第 {named['hand_no']} 盘的更正", f"a correction of hand {named['hand_no']}")
    if named is not None and named["type"] == TYPE:
        target = named.get("target")
        if named.get("error") or named.get("undone"):
            how, how_en = ("未成立", "refused") if named.get("error") else ("已撤销", "undone")
            return f"#{seq} 是{how}的更正，不是行牌记录 / #{seq} is a correction, {how_en}, not a play"
        return (f"#{seq} 是更正（{named.get('now') or '作废'}），不是行牌记录：它更正的是 #{target}，"
                f"要再改请更正 #{target}（或撤销 #{seq}）/ #{seq} is a correction, not a play: it put #{target} "
                f"right; correct #{target} itself (or undo #{seq})")
    start = s.hand_base.seq if s.hand_base is not None else None
    ended = s.rounds or any(h.get("hand_no") != hand_no for h in s.hands)  # a hand before this one: closed
    if isinstance(seq, int) and not isinstance(seq, bool) and start is not None and 0 < seq < start and ended:
        return _closed(s, seq, f"本盘开始（#{start}）之前的记录", f"before this hand, from #{start}")
    return f"#{seq} 不是本盘的行牌记录 / #{seq} is no play of hand {hand_no}"


def _closed(s: "TableState", seq: Any, what: str, what_en: str) -> str:
    """The refusal of a correction (or its undo) of a hand that has ended, the next having started."""
    now = f"（第 {s.hand['hand_no']} 盘已开始）" if s.hand is not None else ""
    return (f"上一手已结束{now}，不能再更正或撤销：#{seq} 是{what}，那一盘的记录已定 / the hand it belongs to "
            f"has ended and the next has started: #{seq} ({what_en}) can no longer be corrected or undone")


def closed_undo(s: "TableState", last: dict[str, Any]) -> str | None:
    """Why the undo of correction `last` (the last undoable action, `referee.settled_undo`) is refused once its
    hand has ended and the next has started: the fold folds again only the hand in play, so the undo took the
    correction out of the ended hand's record (牌谱) while its payments, its score sheet row and the next hands
    stayed as corrected."""
    if s.hand is not None and s.hand["hand_no"] == last["hand_no"]:
        return None
    return _closed(s, last["seq"], f"第 {last['hand_no']} 盘的更正（{last.get('now') or '作废'}）",
                   f"a correction of hand {last['hand_no']}")


def check(s: "TableState", d: dict[str, Any], record: dict[str, Any]) -> None:
    """Fold a `referee.play_correct` into its action `record`: what it corrects or inserts and how, in
    words. Raises `RefereeError` (no such play in the hand, void already, nothing changed) or
    `PenaltyError` (fields that are not the play's, no reason, nothing given, no place for a play)."""
    from table_controller.penalties import PenaltyError
    from table_controller.referee import RefereeError
    from table_controller.state import describe

    reason = str(d.get("reason", "")).strip()
    if not reason:
        raise PenaltyError("更正须说明理由 / a correction needs a reason")
    if s.hand is None:
        raise RefereeError("没有可更正的牌局 / no hand to correct")
    if d.get("play") is not None:
        _check_insert(s, d, record, reason[:200])
        return
    if d.get("insert_before") is not None or d.get("insert_after") is not None:
        raise PenaltyError("补录须给出补录的行牌（play）/ an insertion needs the play (play)")
    target = d.get("target")
    ev = play_of(s, target)
    if ev is None:
        raise RefereeError(not_a_play(s, target))
    if ev.type not in FIELDS:
        raise RefereeError(f"#{target}（{describe(ev)}）不能更正 / #{target} ({ev.type}) cannot be corrected")
    void = d.get("void") is True
    given = {k: d[k] for k in ALL_FIELDS if k in d and d[k] is not None}
    wrong = sorted(k for k in given if k not in FIELDS[ev.type])
    if wrong:
        raise PenaltyError(f"{PLAY_ZH[ev.type]}只能更正 {'、'.join(FIELDS[ev.type])}，不含 {'、'.join(wrong)} / "
                           f"{ev.type} has no {', '.join(wrong)}")
    if void and given:
        raise PenaltyError("作废与更正内容只能二选一 / void, or the fields put right, not both")
    if not void and not given:
        raise PenaltyError("须给出更正的内容，或作废 / give the fields put right, or void")
    now = corrected(ev, patches(s.actions, s.hand["hand_no"]))
    if now is None and void:
        raise RefereeError(f"#{target} 已作废 / #{target} is void already")
    after = None if void else Event(ev.seq, ev.at, ev.source, ev.type, {**(now or ev).data, **given})
    if now is not None and after is not None and after.data == now.data:
        raise RefereeError(f"#{target} 的记录已是如此 / #{target} is recorded so already")
    record.update(target=ev.seq, target_type=ev.type, void=void, fields=given, reason=reason[:200],
                  was=describe(now) if now is not None else f"（已作废）{describe(ev)}",
                  now=describe(after) if after is not None else None)


def _check_insert(s: "TableState", d: dict[str, Any], record: dict[str, Any], reason: str) -> None:
    """A play never keyed put in beside a play of the hand (`insert_before` / `insert_after`), or in
    the place of a play of another kind (`target`: that play voided, both or neither)."""
    from table_controller.penalties import PenaltyError
    from table_controller.referee import RefereeError
    from table_controller.state import describe

    play = d["play"]
    if not isinstance(play, dict):
        raise PenaltyError("补录的行牌须为对象 / play must be an object")
    kind = str(play.get("type", ""))
    type_ = kind if kind.startswith("play.") else f"play.{kind}"
    if type_ not in FIELDS:
        raise PenaltyError(f"补录的行牌须为{'、'.join(PLAY_ZH.values())}之一，不是 {kind or '（空）'} / "
                           f"play.type must be one of {', '.join(t[5:] for t in FIELDS)}")
    extra = sorted(k for k in play if k != "type" and k not in FIELDS[type_] and play[k] is not None)
    if extra:
        raise PenaltyError(f"{PLAY_ZH[type_]}只有 {'、'.join(FIELDS[type_])}，不含 {'、'.join(extra)} / "
                           f"{type_} has no {', '.join(extra)}")
    data = {k: play[k] for k in FIELDS[type_] if play.get(k) is not None}
    missing = [k for k in NEEDS[type_] if k not in data]
    if missing:
        raise PenaltyError(f"补录{PLAY_ZH[type_]}须给出 {'、'.join(missing)} / {type_} needs {', '.join(missing)}")
    loose = sorted(k for k in ALL_FIELDS if d.get(k) is not None)
    if loose:
        raise PenaltyError(f"补录时行牌的内容写在 play 中，不另给 {'、'.join(loose)} / "
                           f"with play, give {', '.join(loose)} inside it")
    places = [k for k in ("insert_before", "insert_after") if d.get(k) is not None]
    target = d.get("target")
    if target is not None and places:
        raise PenaltyError("改为另一种行牌即放在原处，不另给位置 / a play in another's place takes no insert_before/after")
    if target is None and len(places) != 1:
        raise PenaltyError("补录须给出位置：在哪条记录之前（insert_before）或之后（insert_after），二选一 / "
                           "give insert_before or insert_after (one)")
    if target is None and d.get("void") is True:
        raise PenaltyError("作废须指明要作废的记录（target）/ void needs the target")
    anchor = play_of(s, target if target is not None else d[places[0]])
    named = target if target is not None else d[places[0]]
    if anchor is None:
        raise RefereeError(not_a_play(s, named))
    after = bool(places) and places[0] == "insert_after"
    if anchor.type == "play.deal_done" and not after:
        raise RefereeError("起牌完毕之前没有行牌可补录 / nothing is played before the deal is done")
    new = Event(0, anchor.at, "referee", type_, data)
    record.update(insert={"type": type_, "data": data, "anchor": anchor.seq, "after": after, "at": anchor.at},
                  reason=reason, now=describe(new))
    if target is None:
        return
    if anchor.type not in FIELDS:
        raise RefereeError(f"#{target}（{describe(anchor)}）不能更正 / #{target} ({anchor.type}) cannot be corrected")
    now = corrected(anchor, patches(s.actions, s.hand["hand_no"] if s.hand else None))
    if now is None:
        raise RefereeError(f"#{target} 已作废：在它前后补录 / #{target} is void already: insert beside it")
    if now.type == type_ and all(now.data.get(k) == data.get(k) for k in FIELDS[type_]):
        raise RefereeError(f"#{target} 的记录已是如此 / #{target} is recorded so already")
    record.update(target=anchor.seq, target_type=anchor.type, void=True, fields={}, was=describe(now))


def remember(s: "TableState", ev: Event | None) -> "TableState":
    """`s` (a state the caller owns) keeping `ev` among the hand's events (None: a play a correction
    inserted, not kept); at a hand's start, the state to fold its plays again from."""
    if ev is None:
        return s
    if ev.type == "operator.hand_start" and s.hand is not None:
        s.hand_aside = None  # a round's start can no longer be undone
        base = copy.copy(s)
        base.hand_base, base.hand_events = None, HandEvents()
        s.hand_base, s.hand_events = base, HandEvents()
    elif s.hand is None:
        if s.hand_aside is not None:  # set aside by a round's start (`rounds.close_round`): its events go on
            hand, base, events = s.hand_aside
            s.hand_aside = (hand, base, events.plus(ev))
        if s.hand_base is not None:
            s.hand_base, s.hand_events = None, HandEvents()
    elif s.hand_base is not None:
        s.hand_events = s.hand_events.plus(ev)
    return s


def _start(s: "TableState") -> "TableState":
    """The state to fold the hand in play again from: its start, keeping the hand's events anew."""
    assert s.hand_base is not None
    base = copy.copy(s.hand_base)
    base.hand_base = s.hand_base
    return base


def reworks(before: "TableState", after: "TableState") -> bool:
    """Whether the corrections in force in the hand changed from `before` to `after` (a correction,
    an insertion, or an undo of one): then the hand is folded again."""
    if after.hand is None or after.hand_base is None or before.hand is None:
        return False
    hand_no = after.hand["hand_no"]
    return patches(before.actions, hand_no) != patches(after.actions, hand_no) \
        or insertions(before.actions, hand_no) != insertions(after.actions, hand_no)


def rework(before: "TableState", ev: Event, after: "TableState", step: Step) -> "TableState":
    """The state after `ev` (which changed the corrections in force, `after` its plain fold): the hand
    folded again from its start with each play as corrected now and the plays inserted where they go,
    then `ev` itself; a confirmed win, a 查叫, a penalty, a kong or a 追牌 takes the figures logged for
    the corrections in force now, or is settled again (`settlements.chosen`). `step` is the plain fold
    of one event (no rework), keeping the event as recorded among the hand's."""
    from table_controller.settlements import carries, chosen

    hand_no = after.hand["hand_no"] if after.hand else None
    fixes, inserts = patches(after.actions, hand_no), insertions(after.actions, hand_no)
    s = _start(before)
    for p in layout(before.hand_events, inserts, s.seq):
        now = fixed(p, fixes)
        if now is not None and carries(now):  # its figures for the plays as they now stand
            now = chosen(now, after.actions, hand_no)
        if now is not None:
            s = step(s, now, p.recorded)
        elif p.recorded is not None:  # void: as if never recorded; kept for the next rework
            s = copy.copy(s)
            s.hand_events = s.hand_events.plus(p.recorded)
    return step(s, ev, ev)


def refusal(s: "TableState", type: str, d: dict[str, Any], step: Step) -> str | None:
    """Why a correction (or the undo of one) cannot be taken now: the hand as it would then stand
    breaks a rule at the play it changes or inserts, or at a later one (the checks keyed play passes,
    `controller._play_problem`) where the hand as it stands does not there; None when it fits.
    Only for an action being taken: one in a log folds as it did."""
    from table_controller.controller import _play_problem
    from table_controller.referee import _shallow, apply_referee
    from table_controller.state import describe

    if s.hand is None or s.hand_base is None:
        return None
    trial = _shallow(s)  # an undo of a win changes the hand: a copy
    apply_referee(trial, Event(s.seq + 1, s.last_at or 0.0, "referee", type, d))
    if trial.actions[-1].get("error"):
        return None  # the fold says why (`referee.validate` raises it)
    hand_no = s.hand["hand_no"]
    was, now = patches(s.actions, hand_no), patches(trial.actions, hand_no)
    was_in, now_in = insertions(s.actions, hand_no), insertions(trial.actions, hand_no)
    steps = [(p, fixed(p, was) if p.by is None or p.by in was_in else None,
              fixed(p, now) if p.by is None or p.by in now_in else None)
             for p in layout(s.hand_events, {**was_in, **now_in}, s.hand_base.seq)]
    changed = {p.ident for p, a, b in steps if a != b}
    if not changed:
        return None
    word = "撤销更正" if type != TYPE else "补录" if d.get("play") is not None and d.get("target") is None else "更正"
    won_on = _won_on_moved(s, steps) or _drawn_on_moved(s, steps) or _win_voided(s, type, d)
    if won_on:
        return f"不能{word}：{won_on}"
    old = new = _start(s)
    checking = False
    for p, a, b in steps:
        checking = checking or p.ident in changed
        if checking and b is not None and b.type in FIELDS and new.hand is not None and not new.hand.get("ended"):
            why = _play_problem(new.hand, b.type, b.data)
            if why and (a is None or old.hand is None or why != _play_problem(old.hand, a.type, a.data)):
                at = "" if p.ident in changed else f"其后 #{p.ident}（{describe(b)}）"
                return f"{word}后{at}不成立：{why}"
        old = step(old, a, p.recorded) if a is not None else old
        new = step(new, b, p.recorded) if b is not None else new
    return None


def _win_voided(s: "TableState", type: str, d: dict[str, Any]) -> str | None:
    """Why a change of the hand's plays is refused where a confirmed win would no longer stand on the hand as
    corrected: the read, scored again on it, refused (振听 or 过胡不胡 where the winner's or another seat's discard
    is put right to a tile the hand waits on, a flower put at another seat): the fold then refused the confirmation
    and the win was gone from the sheet without a word. The confirmation is undone first; then corrected and read
    again. Said to the referee only (a refusal is not logged): it may name the hand's waits."""
    from table_controller.referee import confirmed_wins
    from table_controller.state import apply
    from table_controller.tiles import seat_name

    assert s.hand is not None
    hand_no = s.hand["hand_no"]
    wins = confirmed_wins(s.actions, hand_no)
    if not wins:
        return None
    after = apply(s, Event(s.seq + 1, s.last_at or 0.0, "referee", type, d))
    refused = {a["seq"]: a for a in after.actions if a["type"] == "referee.win_confirm" and a.get("error")}
    lost = next((w for w in wins if w["seq"] in refused), None)
    if lost is None:
        return None
    why = str(refused[lost["seq"]]["error"])
    return (f"已确认的和牌 #{lost['seq']}（{seat_name(lost['seat'])}家）将不再成立：{why}；确有此事请先撤销该和牌确认，"
            f"更正后重新读牌 / the confirmed win #{lost['seq']} would no longer stand: undo its confirmation first")


#: The plays a win on a discard or a robbed kong follows: the last of them before its read is the one won on.
MOVES = ("play.discard", "play.claim", "play.kong", "play.flower")


def _rests_on(win: dict[str, Any], ev: Event | None) -> bool:
    """Whether play `ev` is the one confirmed win `win` was won on: the discarder's discard of the tile
    (a win on a discard), or its 补杠 of it (抢杠和); not a play voided (None)."""
    if ev is None:
        return False
    seat, tile = ev.data.get("seat"), win.get("win_tile")
    if win.get("win_kind") == "discard":
        return ev.type == "play.discard" and seat == win.get("discarder") and ev.data.get("tile") == tile
    return ev.type == "play.kong" and bool(ev.data.get("added")) and not ev.data.get("concealed") \
        and seat == win.get("discarder") and tile in (ev.data.get("tiles") or [])


def _placed_wins(wins: list[dict[str, Any]]) -> dict[tuple[int, str], dict[str, Any]]:
    """Confirmed wins by where they stand in the hand's steps: at their read, as the fold places them
    (`state.after_win`: the discard won on, the draw, the turn), not at the confirmation, which may come
    after play went on (血战, 血流: a confirmation undone then and confirmed again on the same read). A
    win without its read's seq (an older log) stands at its confirmation."""
    out: dict[tuple[int, str], dict[str, Any]] = {}
    for w in wins:
        read = w.get("read_seq")
        out[(int(read), "referee.win_read") if isinstance(read, int) else (int(w["seq"]), "referee.win_confirm")] = w
    return out


def _at_wins(steps: list[tuple[Placed, Event | None, Event | None]], wins: dict[tuple[int, str], dict[str, Any]],
            counts: Callable[[str], bool]) -> Iterator[tuple[dict[str, Any], tuple[Placed, Event],
                                                                tuple[Placed, Event] | None, dict[Any, Event]]]:
    """Each confirmed win of `wins` (by where it stands, `_placed_wins`) met in `steps`, with the last play of a
    type that `counts` before it as the hand stands (`was`) and as it would (`now`, None: none), and each play
    as it would stand (`kept`, by its ident); a win with no such play before it is not met."""
    was: tuple[Placed, Event] | None = None
    now: tuple[Placed, Event] | None = None
    kept = {p.ident: b for p, a, b in steps if b is not None}
    for p, a, b in steps:
        win = wins.get((int(p.play.seq), p.play.type)) if p.by is None else None
        if win is not None and was is not None:
            yield win, was, now, kept
        if a is not None and counts(a.type):
            was = (p, a)
        if b is not None and counts(b.type):
            now = (p, b)


def _won_on_moved(s: "TableState", steps: list[tuple[Placed, Event | None, Event | None]]) -> str | None:
    """Why a change of the hand's plays (`steps`: each as it stands and as it would) is refused where it
    takes away the play a confirmed win was won on: the discard voided, its tile or seat changed, the
    robbed 补杠 made another kong, or a play put in between it and the win. The win would stand on a
    discard the record no longer holds (paid by a seat that did not deal it in); its undo comes first.
    A win stands where it was read (`_placed_wins`); one whose play the record did not show as its last
    before it (an older log) is left."""
    from table_controller.referee import confirmed_wins
    from table_controller.state import describe
    from table_controller.tiles import seat_name, tile_name

    assert s.hand is not None
    wins = _placed_wins([w for w in confirmed_wins(s.actions, s.hand["hand_no"])
                         if w.get("win_kind") in ("discard", "rob_kong")])
    if not wins:
        return None
    for win, was, now, kept in _at_wins(steps, wins, MOVES.__contains__):
        if _rests_on(win, was[1]) and not (
                now is not None and now[0].ident == was[0].ident and _rests_on(win, now[1])):
            robbed = win.get("win_kind") == "rob_kong"
            who = f"{seat_name(win['seat'])}家和{tile_name(str(win.get('win_tile')))}"
            what = f"抢杠和 #{win['seq']}（{who}）抢的补杠" if robbed else f"和牌 #{win['seq']}（{who}）和的那张牌"
            if now is not None and now[0].ident != was[0].ident and _rests_on(win, kept.get(was[0].ident)):
                return (f"#{was[0].ident}（{describe(was[1])}）是已确认的{what}，和牌之前不能再有行牌"
                        f"（{describe(now[1])}）；确有此事请先撤销该和牌确认，更正后重新读牌 / "
                        f"the confirmed win #{win['seq']} rests on #{was[0].ident}: no play ({now[1].type}) "
                        f"comes between; undo the confirmation, correct, then read the win again")
            return (f"#{was[0].ident}（{describe(was[1])}）是已确认的{what}：和牌成立期间不能作废、改牌、改家，也不能在它与和牌之间"
                    f"补录行牌；请先撤销该和牌确认 / #{was[0].ident} is the {'added kong' if robbed else 'discard'} "
                    f"confirmed win #{win['seq']} was won on: it cannot be corrected away while the win stands; "
                    f"undo the win first")
    return None


def _same_step(ev: Event | None, was: Event) -> bool:
    """Whether play `ev` (None: voided) is still the step `was` was: the same kind of play by the same seat."""
    return ev is not None and ev.type == was.type and ev.data.get("seat") == was.data.get("seat")


def _drawn_on_moved(s: "TableState", steps: list[tuple[Placed, Event | None, Event | None]]) -> str | None:
    """Why a change of the hand's plays is refused where it moves the last play before a confirmed self-drawn
    win (自摸, 杠上开花, 花上; a discard, claim, kong or flower: a 定缺 or 立直 moves no draw, and a win on the
    deal, 天和, has none): a play put between it and the win (the winner's discard, flower or kong, another
    seat's claim), or that play voided, made another kind or given to another seat. The winner drew the tile
    won on right after it (its turn, or the replacement of its kong or flower): with a play in between the
    read, its 杠上开花 and its flowers no longer follow the record (a kong put there undid the confirmation
    silently, the read wanting a kong it did not show). A tile put right in that play leaves the win. The
    confirmation is undone first; then corrected and read again."""
    from table_controller.referee import confirmed_wins
    from table_controller.scoring.hand import SELF_DRAWN
    from table_controller.state import describe
    from table_controller.tiles import seat_name

    assert s.hand is not None
    wins = _placed_wins([w for w in confirmed_wins(s.actions, s.hand["hand_no"]) if w.get("win_kind") in SELF_DRAWN])
    if not wins:
        return None
    for win, was, now, kept in _at_wins(steps, wins, MOVES.__contains__):  # a 定缺 or 立直 moves no draw
        if not (now is not None and now[0].ident == was[0].ident and _same_step(now[1], was[1])):
            who = f"#{win['seq']}（{seat_name(str(win['seat']))}家自摸）"
            if now is not None and now[0].ident != was[0].ident and _same_step(kept.get(was[0].ident), was[1]):
                return (f"#{was[0].ident}（{describe(was[1])}）之后是已确认的自摸 {who}，和牌之前不能再有行牌"
                        f"（{describe(now[1])}）；确有此事请先撤销该和牌确认，更正后重新读牌 / the confirmed "
                        f"self-drawn win #{win['seq']} follows #{was[0].ident}: no play ({now[1].type}) comes "
                        "between; undo the confirmation, correct, then read the win again")
            return (f"#{was[0].ident}（{describe(was[1])}）是已确认的自摸 {who}之前的最后一步：和牌成立期间不能作废、改家、"
                    f"改为另一种行牌，也不能在它与和牌之间补录行牌；请先撤销该和牌确认 / #{was[0].ident} is the "
                    f"last play before the confirmed self-drawn win #{win['seq']}: it cannot be voided or moved "
                    "while the win stands; undo the win first")
    return None

"""Correcting a play already in the record (`referee.play_correct`): a tile, a seat or a meld keyed
or seen wrong, or a play recorded twice, in the hand in play (or just ended, until the next starts).

The log keeps the play as recorded and the correction beside it (nothing is rewritten): a correction
names the play's `seq` (`target`), the fields it puts right (`seat`, `tile`, `tiles`, `from`, `kind`,
`concealed`, `added`, `suit`) or `void`, and a reason; `referee.undo` takes it back. The fold keeps
the hand's events since its start (`HandEvents`) and the state at its start; when the corrections
in force change, it folds the hand again from there with each play as corrected (`rework`), so the
pools, melds, flowers, the wall's count, the turn, kong payments and any win read since are what
they would have been had the play been recorded right. A void play is skipped.

A correction the hand cannot take (a fifth copy, a claim of a tile no longer the last discard, a
later play that no longer fits) is refused when it is taken (`refusal`, through
`referee.refuse_new`), with the checks keyed play goes through (`controller._play_problem`); a
correction already in a log folds as it did. Pure: no I/O.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from table_controller.store import Event

if TYPE_CHECKING:
    from table_controller.state import TableState

TYPE = "referee.play_correct"
#: The plain fold of one event: (state, the event as applied, the event as recorded) -> state.
Step = Callable[["TableState", Event, Event], "TableState"]
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
        if a.get("error"):
            continue
        t = int(a["target"])
        out[t] = None if a.get("void") else {**(out.get(t) or {}), **a.get("fields", {})}
    return out


def corrected(ev: Event, fixes: dict[int, dict[str, Any] | None]) -> Event | None:
    """`ev` as corrected by `fixes` (`patches`): itself, with fields put right, or None if void."""
    if ev.seq not in fixes:
        return ev
    fix = fixes[ev.seq]
    if fix is None:
        return None
    return Event(ev.seq, ev.at, ev.source, ev.type, {**ev.data, **fix})


def check(s: "TableState", d: dict[str, Any], record: dict[str, Any]) -> None:
    """Fold a `referee.play_correct` into its action `record`: what it corrects and how, in words.
    Raises `RefereeError` (no such play in the hand, void already, nothing changed) or
    `PenaltyError` (fields that are not the play's, no reason, nothing given)."""
    from table_controller.penalties import PenaltyError
    from table_controller.referee import RefereeError
    from table_controller.state import describe

    reason = str(d.get("reason", "")).strip()
    if not reason:
        raise PenaltyError("更正须说明理由 / a correction needs a reason")
    if s.hand is None:
        raise RefereeError("没有可更正的牌局 / no hand to correct")
    target = d.get("target")
    ev = s.hand_events.find(target) if isinstance(target, int) and not isinstance(target, bool) else None
    if ev is None or not ev.type.startswith("play."):
        raise RefereeError(f"#{target} 不是本盘的行牌记录 / #{target} is no play of hand {s.hand['hand_no']}")
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


def remember(s: "TableState", ev: Event) -> "TableState":
    """`s` (a state the caller owns) keeping `ev` among the hand's events; at a hand's start, the
    state to fold its plays again from."""
    if ev.type == "operator.hand_start" and s.hand is not None:
        base = copy.copy(s)
        base.hand_base, base.hand_events = None, HandEvents()
        s.hand_base, s.hand_events = base, HandEvents()
    elif s.hand is None:
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
    or an undo of one): then the hand is folded again."""
    if after.hand is None or after.hand_base is None or before.hand is None:
        return False
    hand_no = after.hand["hand_no"]
    return patches(before.actions, hand_no) != patches(after.actions, hand_no)


def rework(before: "TableState", ev: Event, after: "TableState", step: Step) -> "TableState":
    """The state after `ev` (which changed the corrections in force, `after` its plain fold): the hand
    folded again from its start with each play as corrected now, then `ev` itself. `step` is the
    plain fold of one event (no rework), keeping the event as recorded among the hand's."""
    fixes = patches(after.actions, after.hand["hand_no"] if after.hand else None)
    s = _start(before)
    for e in before.hand_events:
        now = corrected(e, fixes)
        if now is None:  # void: as if never recorded; kept for the next rework
            s = copy.copy(s)
            s.hand_events = s.hand_events.plus(e)
        else:
            s = step(s, now, e)
    return step(s, ev, ev)


def refusal(s: "TableState", type: str, d: dict[str, Any], step: Step) -> str | None:
    """Why a correction (or the undo of one) cannot be taken now: the hand as it would then stand
    breaks a rule at the play it changes or a later one (the checks keyed play passes,
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
    was, now = patches(s.actions, s.hand["hand_no"]), patches(trial.actions, s.hand["hand_no"])
    changed = [t for t in set(was) | set(now) if was.get(t, {}) != now.get(t, {})]
    if not changed:
        return None
    first = min(changed)
    old = new = _start(s)
    for e in s.hand_events:
        a, b = corrected(e, was), corrected(e, now)
        if e.seq >= first and b is not None and b.type in FIELDS and new.hand is not None \
                and not new.hand.get("ended"):
            why = _play_problem(new.hand, b.type, b.data)
            if why and (a is None or old.hand is None or why != _play_problem(old.hand, a.type, a.data)):
                at = "" if e.seq in changed else f"其后 #{e.seq}（{describe(b)}）"
                return f"{'更正' if type == TYPE else '撤销更正'}后{at}不成立：{why}"
        old = step(old, a, e) if a is not None else old
        new = step(new, b, e) if b is not None else new
    return None

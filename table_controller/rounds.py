"""Rounds (轮次): one table, a new four players each round of a tournament.

A tournament of five rounds seats every player at a different table each round; the table keeps
playing and logging. The referee starts each new round with its four players
(`referee.round_start`, `POST /api/referee/round`): the round that ends is closed as it stands,
with its hands, its rulings and its score sheet (final: its rulings can no longer be undone), and
the new round starts at hand 1 with E at chair 1, an empty sheet and no session clock. Closed
rounds stay readable (`?round=N` on the score sheet and the records) and are what the hub adds up
across tables.

Before the round's first hand the referee may start it again under the same number to correct
its players; a round that has nothing on its sheet yet (no hand, no penalty) is replaced rather
than closed, so a slip does not leave an empty round in the standings.

Pure functions over the folded state: no I/O.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from table_controller.store import Event

if TYPE_CHECKING:
    from table_controller.state import TableState

POSITIONS = ("1", "2", "3", "4")
#: Longest player name or registration number kept (a name tag, not an essay).
NAME_MAX = 40


class RoundError(LookupError):
    """No such round at this table; the text names the rounds there are."""


def start_round(s: "TableState", d: dict[str, Any], record: dict[str, Any]) -> bool:
    """Check a `referee.round_start` and fill its action `record`; True when the current round
    must be closed first (it has something on its sheet). Raises `RefereeError` / `PenaltyError`
    with the reason, and then nothing changes."""
    from table_controller.penalties import PenaltyError
    from table_controller.referee import RefereeError

    number = d.get("round")
    if not isinstance(number, int) or isinstance(number, bool) or not 1 <= number <= 999:
        raise PenaltyError("轮次须为 1 至 999 的整数 / round must be a whole number 1..999")
    if s.hand is not None and not s.hand.get("ended"):
        raise RefereeError(f"第 {s.hand['hand_no']} 盘尚未结束，不能换轮 / end the hand in play first")
    players = _names(d.get("players"), "players", required=True)
    ids = _names(d.get("player_ids") or {}, "player_ids", required=False)
    if number < s.round or (number == s.round and _has_sheet(s)):
        done = "已结束" if number < s.round else "已开始计分"
        raise RefereeError(f"第 {number} 轮{done}；下一轮为第 {s.round + 1} 轮 / round {number} is "
                           f"{'closed' if number < s.round else 'under way'}: the next is round {s.round + 1}")
    closes = number > s.round and _has_sheet(s)
    record.update(hand_no=None, round=number, players=players, player_ids=ids,
                  closes=s.round if closes else None, replaces=s.round if not closes else None,
                  before=_roster(s))  # what an undo puts back where nothing is closed (a correction)
    return closes


def seated_twice(d: dict[str, Any]) -> str | None:
    """Why a new round's players cannot be taken: one player (or one registration number) keyed in
    two chairs, whom the hub would credit with both chairs' points; None when each is in one chair."""
    for what, given in (("选手", d.get("players")), ("编号", d.get("player_ids"))):
        if not isinstance(given, dict):
            continue  # the fold says what is wrong with it
        seen = [v.strip() for v in given.values() if isinstance(v, str) and v.strip()]
        twice = sorted({v for v in seen if seen.count(v) > 1})
        if twice:
            return (f"同一{what}不能占两个号位：{'、'.join(twice)} / "
                    f"the same {'player' if what == '选手' else 'number'} in two chairs")
    return None


def _roster(s: "TableState") -> dict[str, Any]:
    """Who and where a round is: its number, players, 定庄 and where its log starts (chairs as
    strings, as in the log)."""
    return {"round": s.round, "players": {str(k): v for k, v in s.players.items()},
            "player_ids": {str(k): v for k, v in s.player_ids.items()},
            "first_dealer": s.first_dealer, "start_seq": s.round_start_seq}


def _seat(s: "TableState", roster: dict[str, Any]) -> None:
    """Make `roster` (`_roster`, or a closed round) the round `s` shows."""
    s.round, s.round_start_seq, s.first_dealer = roster["round"], roster["start_seq"], roster.get("first_dealer")
    s.players = {int(p): n for p, n in roster["players"].items()}
    s.player_ids = {int(p): n for p, n in roster["player_ids"].items()}


def close_round(s: "TableState", record: dict[str, Any]) -> None:
    """Keep the current round as it stands (hands, rulings, players, its final score sheet) in
    `s.rounds`, then begin the round that `record` starts. `s` is the caller's copy."""
    from table_controller import scoresheet

    if record.get("closes") is not None:
        view = copy.copy(s)
        view.hand = None  # the last hand has ended (checked): its row is in `hands`
        sheet = scoresheet.compute(view, final=True)  # closed: final, sticks left on the table settled
        s.rounds = s.rounds + [{**_roster(s), "hands": s.hands, "actions": s.actions, "end_seq": record["seq"],
                                "closed_at": record["at"], "sheet": sheet}]
        s.actions = []
    _seat(s, {"round": record["round"], "players": record["players"], "player_ids": record["player_ids"],
              "first_dealer": None, "start_seq": record["seq"]})  # the new round chooses its first dealer again
    s.roster_by_referee = True
    if s.hand is not None:  # the ended hand, for an undo of this start to put back (`reopen`)
        s.hand_aside = (s.hand, s.hand_base, s.hand_events)
    s.hand = None
    s.hands = []
    s.hands_played = 0


def reopen(s: "TableState", target: dict[str, Any]) -> None:
    """Undo a round's start (a slip: the round was not over, or the wrong players): the round it
    closed comes back whole, or the round and players it replaced. Only before the new round's
    first hand; `RefereeError` after. `s` is the caller's copy; the undo marks the action."""
    from table_controller.referee import RefereeError

    if s.hands or s.hand is not None:
        raise RefereeError(f"第 {s.round} 轮已开始打牌，不能撤销开始 / round {s.round} has begun: its start stands")
    if s.hand_aside is not None:  # the last hand comes back as it stood: shown, ruled on, corrected
        from table_controller.state import copy_hand

        hand, s.hand_base, s.hand_events = s.hand_aside
        s.hand, s.hand_aside = copy_hand(hand), None  # older states share the one set aside: the fold changes a copy
    if target.get("closes") is None:
        _seat(s, target["before"])
        return
    closed, s.rounds = s.rounds[-1], s.rounds[:-1]
    _seat(s, closed)
    s.hands, s.hands_played = closed["hands"], len(closed["hands"])
    s.actions = closed["actions"] + s.actions  # the start and its undo stay in the record


def withdrawn(s: "TableState") -> dict[int, dict[str, Any]]:
    """Rounds that no longer exist at this table, each with the `referee.round_start` that ended it: the
    hub must drop what it was sent of them. A round started and then undone; and a round with nothing on
    its sheet replaced by a round of another number (a spare table's round 1 of its config's players, never
    played, when it comes in for round 3; round 2 keyed where round 3 was meant): the hub held that round's
    standing, all four tied at 0 and sharing 1.75 标准分 each, and added it up for good. Every round's
    actions are read, not only the current one's: the start of a later round moves them into a closed round."""
    live = set(numbers(s))
    actions = [a for r in s.rounds for a in r.get("actions", [])] + list(s.actions)
    gone: dict[int, dict[str, Any]] = {}
    for a in actions:
        if a["type"] != "referee.round_start" or a.get("error"):
            continue
        if a.get("undone"):
            gone[a["round"]] = a
        elif a.get("replaces") is not None and a["replaces"] != a["round"]:
            gone[a["replaces"]] = a
    return {number: a for number, a in gone.items() if number not in live}


def _has_sheet(s: "TableState") -> bool:
    """Whether the round has anything on its score sheet: a hand, or a penalty (迟到) not undone."""
    from table_controller.referee import active

    return bool(s.hands) or any(not a.get("error") for a in active(s.actions, "referee.penalty"))


def _names(raw: Any, what: str, required: bool) -> dict[str, str]:
    from table_controller.penalties import PenaltyError

    if not isinstance(raw, dict):
        raise PenaltyError(f"{what} 须为 1号位..4号位 的名单 / {what} must map chairs 1..4 to names")
    out: dict[str, str] = {}
    for pos, name in raw.items():
        if str(pos) not in POSITIONS:
            raise PenaltyError(f"{what}：没有 {pos} 号位 / no chair {pos!r} (chairs are 1..4)")
        if not isinstance(name, str) or not name.strip():
            if required:
                raise PenaltyError(f"{what}：{pos} 号位须有名字 / chair {pos} needs a name")
            continue
        if len(name.strip()) > NAME_MAX:
            raise PenaltyError(f"{what}：{pos} 号位的名字超过 {NAME_MAX} 字 / chair {pos}: at most {NAME_MAX} characters")
        out[str(pos)] = name.strip()
    if required and sorted(out) != list(POSITIONS):
        missing = "、".join(p for p in POSITIONS if p not in out)
        raise PenaltyError(f"{what}：缺 {missing} 号位 / chair {missing.replace('、', ', ')} needs a player")
    return dict(sorted(out.items()))


# -- reading a round back ---------------------------------------------------------------------------
def numbers(s: "TableState") -> list[int]:
    """The rounds this table has played or is playing, in order."""
    return [r["round"] for r in s.rounds] + [s.round]


def view(s: "TableState", number: int | None) -> "TableState":
    """The state as the score sheet and the records read round `number` (None: the current one):
    the current state itself, or a closed round's hands, rulings and players with no hand in play."""
    if number is None or number == s.round:
        return s
    closed = _closed(s, number)
    out = copy.copy(s)
    _seat(out, closed)
    out.hands, out.actions, out.hand = closed["hands"], closed["actions"], None
    out.hands_played = len(closed["hands"])
    return out


def _closed(s: "TableState", number: int) -> dict[str, Any]:
    """Closed round `number`; `RoundError` naming the rounds there are."""
    closed = next((r for r in s.rounds if r["round"] == number), None)
    if closed is None:
        known = ", ".join(str(n) for n in numbers(s))
        raise RoundError(f"本桌没有第 {number} 轮 / no round {number} at this table (rounds: {known})")
    return closed


def sheet(s: "TableState", number: int | None) -> dict[str, Any]:
    """Round `number`'s score sheet (a closed round's as it was closed, final)."""
    from table_controller import scoresheet

    if number is not None and number != s.round:
        return copy.deepcopy(_closed(s, number)["sheet"])
    return scoresheet.compute(s)


def events_of(events: Sequence[Event], s: "TableState", number: int | None) -> list[Event]:
    """The part of the log that belongs to round `number`: from its `referee.round_start` to the
    next round's (the log before a table's first round start is round 1's)."""
    if number is None or number == s.round:
        start, end = s.round_start_seq, None
    else:
        closed = _closed(s, number)
        start, end = closed["start_seq"], closed["end_seq"]
    return [e for e in events if e.seq >= start and (end is None or e.seq < end)]


def summaries(s: "TableState") -> list[dict[str, Any]]:
    """Every round at this table: its players and, for a closed one, its totals and 标准分 (public)."""
    out = [{"round": r["round"], "players": dict(r["players"]), "player_ids": dict(r["player_ids"]),
            "hands": len(r["hands"]), "totals": dict(r["sheet"]["totals"]),
            "table_points": dict(r["sheet"]["table_points"]), "final": True, "closed_seq": r["end_seq"]}
           for r in s.rounds]
    out.append({"round": s.round, "players": {str(k): v for k, v in sorted(s.players.items())},
                "player_ids": {str(k): v for k, v in sorted(s.player_ids.items())},
                "hands": len(s.hands), "final": False, "closed_seq": None})
    return out

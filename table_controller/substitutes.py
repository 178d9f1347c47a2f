"""A player replaced mid-round (替补, 换人): who sat each hand of a chair.

A player falls ill, leaves for good (中途离场 past the time allowed: 自动弃权, seed 000 八.2(2)) or is
disqualified (取消比赛资格) with hands of the round still to play; the referee seats a substitute
(替补, 陪打: "由裁判指定替补人员作为陪打，参赛可计分，但不计成绩名次", seed 000 七.3(2)) in that
player's chair from the next hand (`referee.substitute`). Never during a hand: the hand in play is
finished by the one who began it. The round's players (`state.players`) stay as drawn; the sitters
of each chair are worked out from the actions not undone, so an undo simply drops a substitution.
The score sheet credits each hand (and the penalties ruled with it) to the one who sat; the hub
adds them up per player (docs/tournament.md, Substitutes). Pure: no I/O.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from table_controller.state import TableState

TYPE = "referee.substitute"
POSITIONS = ("1", "2", "3", "4")
#: Longest name, number or reason kept (as a round's players: `rounds.NAME_MAX`).
NAME_MAX = 40
REASON_MAX = 200


def next_hand(s: "TableState") -> int:
    """The number of the round's next hand (hands are numbered on, an abandoned one too)."""
    numbers = [int(h["hand_no"]) for h in s.hands]
    if s.hand is not None:
        numbers.append(int(s.hand["hand_no"]))
    return max(numbers, default=0) + 1


def check(s: "TableState", d: dict[str, Any], record: dict[str, Any]) -> None:
    """Check a `referee.substitute` and fill its action `record` (the chair, the player coming in,
    whom they replace, from which hand, why). Raises `RefereeError` (not now) or `PenaltyError`
    (the input is wrong) with the reason, Chinese first; nothing changes then."""
    from table_controller.penalties import PenaltyError
    from table_controller.referee import RefereeError, session_ended_at
    from table_controller.seating import for_state

    position = str(d.get("position", ""))
    if position not in POSITIONS:
        raise PenaltyError(f"没有 {d.get('position')} 号位 / no chair {d.get('position')!r} (chairs are 1..4)")
    name = d.get("name")
    if not isinstance(name, str) or not name.strip() or len(name.strip()) > NAME_MAX:
        raise PenaltyError(f"替补选手须有名字（至多 {NAME_MAX} 字）/ the substitute needs a name "
                           f"(at most {NAME_MAX} characters)")
    pid = d.get("player_id") or ""
    if not isinstance(pid, str) or len(pid.strip()) > NAME_MAX:
        raise PenaltyError(f"编号至多 {NAME_MAX} 字 / the number: at most {NAME_MAX} characters")
    reason = d.get("reason")
    if not isinstance(reason, str) or not reason.strip():
        raise PenaltyError("换人须说明理由（伤病、弃权、取消资格…）/ a substitution needs a reason")
    name, pid = name.strip(), pid.strip()
    if s.hand is not None and not s.hand.get("ended"):
        raise RefereeError(f"第 {s.hand['hand_no']} 盘进行中，不能换人：本盘结束后换人，替补从下一盘上场 / "
                           "a hand is in play: substitute once it has ended, from the next hand")
    if session_ended_at(s.actions) is not None or (s.hands and for_state(s).over):
        raise RefereeError("本轮比赛已结束，没有下一盘可换人 / the round is over: no hand left to substitute for")
    now = sitting(s)
    if now[position]["name"] == name and now[position]["id"] == pid:
        raise RefereeError(f"{name} 已在 {position} 号位 / {name} already sits in chair {position}")
    for other, who in now.items():
        if other != position and (who["name"] == name or (pid and who["id"] == pid)):
            raise PenaltyError(f"{name} 已在 {other} 号位，同一选手不能占两个号位 / "
                               f"{name} sits in chair {other}: one player, one chair")
    record.update(position=position, name=name, player_id=pid, reason=reason.strip()[:REASON_MAX],
                  from_hand=next_hand(s), replaces=dict(now[position]))


def sitters(players: dict[int, str], player_ids: dict[int, str],
            actions: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """Each chair's players in the order they sat: the round's player from its start (hand 1, and
    the penalties ruled before it), then each substitute from the hand they came in (`from_hand`;
    `to_hand` the last hand before the next one came, None while they sit). Two substitutions
    for the same hand (a name put right before it started): the later stands."""
    out = {p: [{"name": players.get(int(p), f"{p}号位"), "id": player_ids.get(int(p), ""), "from_hand": 1,
                "to_hand": None, "reason": "", "seq": None}] for p in POSITIONS}
    for a in actions:
        if a["type"] != TYPE or a.get("undone") or a.get("error"):
            continue
        spans = out[a["position"]]
        span = {"name": a["name"], "id": a.get("player_id", ""), "from_hand": a["from_hand"], "to_hand": None,
                "reason": a["reason"], "seq": a["seq"]}
        if spans[-1]["from_hand"] >= a["from_hand"] and spans[-1]["seq"] is not None:
            spans[-1] = span  # put right before that hand began: the one who sits is the later
        else:
            spans[-1]["to_hand"] = a["from_hand"] - 1
            spans.append(span)
        if len(spans) > 1 and (spans[-2]["name"], spans[-2]["id"]) == (span["name"], span["id"]) \
                and spans[-2]["to_hand"] == span["from_hand"] - 1:
            spans.pop()  # the one put back before a hand was played: they simply sit on
            spans[-1]["to_hand"] = None
    return out


def sitting(s: "TableState") -> dict[str, dict[str, str]]:
    """Who sits in each chair for the next hand (or the hand in play): name and number."""
    return {p: {"name": spans[-1]["name"], "id": spans[-1]["id"]}
            for p, spans in sitters(s.players, s.player_ids, s.actions).items()}


def sitter_of(spans: list[dict[str, Any]], hand_no: int) -> int:
    """The index in `spans` of who sat hand `hand_no` (0: the round's player; hand 0 is the
    penalties ruled before the first hand)."""
    found = 0
    for i, span in enumerate(spans):
        if hand_no >= 1 and span["from_hand"] <= hand_no:
            found = i
    return found


def credit(spans: dict[str, list[dict[str, Any]]], rows: list[dict[str, Any]],
           totals: dict[str, int]) -> dict[str, list[dict[str, Any]]]:
    """Each sitter's hands and points from the score sheet's rows (a hand's points, its penalties
    and payments, to the one who sat it). What the sheet adds only at the session's end (竞技's
    points held outside the table, the riichi sticks left over) goes to the chair's last sitter,
    so a chair's sitters always add up to its total."""
    out: dict[str, list[dict[str, Any]]] = {}
    for p, chair in spans.items():
        credited = [{**span, "hands": 0, "points": 0} for span in chair]
        for row in rows:
            who = credited[sitter_of(chair, int(row["hand_no"]))]
            who["points"] += row["points"][p]
            # a hand stopped short (中止) is dealt again and counts for no one's share
            who["hands"] += 1 if row["hand_no"] and row["result"] != "abandoned" else 0
        credited[-1]["points"] += totals[p] - sum(c["points"] for c in credited)
        out[p] = [{k: v for k, v in c.items() if k != "seq"} for c in credited]
    return out


def replaced(spans: dict[str, list[dict[str, Any]]]) -> bool:
    """Whether any chair had more than its round's player."""
    return any(len(chair) > 1 for chair in spans.values())

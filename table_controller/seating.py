"""Who sits where in the coming hand: the dealer's chair, 圈风, 倍打, the players' chairs after any
换位 (seat swap), and whether the session's hands are all played; and 定庄, the throw that
chooses the round's first dealer (walls.md "Choosing seats and the first dealer by dice").

Worked out from the round's hands and the referee's rulings by the ruleset's `[match]` rules
(`hand.match`), never stored: an undone win moves the deal back by itself. Players are known by
the chair they drew (抽签号位, the score sheet's columns 1..4); MCR moves them once, before the
West round (seed 000 四.6: 1号2号位互换，3号4号位互换), and a hand's `seats` then name the player
holding each wind, while `dealer_position` stays the physical chair (the wall, the dice, the camera).
Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

SEATS = ("E", "S", "W", "N")
IDENTITY = (1, 2, 3, 4)


@dataclass(frozen=True)
class Coming:
    """The coming hand's places."""

    dealer_position: int
    prevalent: str
    double: bool
    #: the player (抽签号位) in chairs 1..4
    seating: tuple[int, int, int, int]
    #: the session's hands are all played (MCR's 16, or every round's): the round is over
    over: bool
    hands_per_session: int
    #: over because the referee ended the session (结束比赛), not because its hands are played
    ended_by_referee: bool = False
    #: 本场 of the coming hand where the ruleset counts them (`[match] honba`, riichi), else 0
    honba: int = 0
    #: 飛び (`[match] bust`): the players (抽签号位) below 0 that ended the session, with the points they hold
    busted: tuple[tuple[int, int], ...] = ()

    def seats(self) -> dict[str, int]:
        """Wind → the player holding it (the score sheet's column)."""
        return {SEATS[(p - self.dealer_position) % 4]: self.seating[p - 1] for p in (1, 2, 3, 4)}


def for_state(state: Any) -> Coming:
    """The coming hand's places at this table: its round's hands, rulings and 定庄. The session is
    over too once the referee has ended it (比赛结束: time is up, or the competition says so)."""
    from dataclasses import replace

    from table_controller.hand.match import MatchRules
    from table_controller.referee import session_ended_at
    from table_controller.scoring import ScoringError

    try:
        counts = MatchRules.for_ruleset(state.ruleset).counts_points
    except (ScoringError, ValueError, KeyError, TypeError):
        counts = False
    points = None
    if counts:  # 飛び, アガリ止め: the sheet's points of each hand (sticks, penalties, kongs and 查叫 in)
        from table_controller.scoresheet import hand_points

        points = hand_points(state)
    c = coming(state.ruleset, state.hands, state.actions, first_dealer_of(getattr(state, "first_dealer", None)), points)
    return replace(c, over=True, ended_by_referee=True) if session_ended_at(state.actions) is not None else c


def coming(ruleset: str, hands: Sequence[dict[str, Any]], actions: Sequence[dict[str, Any]],
           first_dealer: int = 1, points: Mapping[int, Mapping[str, int]] | None = None) -> Coming:
    """The places of the hand after `hands` (the round's ended hands, in order), the round's first
    hand dealt by chair `first_dealer` (定庄). `points`: the score sheet's points of each hand by player
    (`scoresheet.hand_points`), where the session's end depends on them (`[match] bust`, `last_dealer_stop`).

    The session ends (`over`) only where the ruleset says how long it is (`[match]`
    `hands_per_session`, or its `rounds`: MCR's 16 hands, four rounds). Elsewhere the deal goes on
    passing round the table for as long as the table plays. A hand stopped short (result
    "abandoned", 中止) is replayed: it neither passes the deal nor counts, unless the ruleset's
    `[match] replay_abandoned = false` treats it as a 荒庄."""
    from table_controller.hand.errors import IllegalAction
    from table_controller.hand.match import MatchRules, busted, next_hand, start
    from table_controller.referee import exhaustive, winners
    from table_controller.scoring import ScoringError
    from table_controller.scoring.config import match

    try:
        table = match(ruleset)
        rules = MatchRules.for_ruleset(ruleset)
    except (ScoringError, ValueError, KeyError, TypeError):
        table, rules = {}, None
    if table.get("replay_abandoned", True):
        # a hand stopped short (中止: a jam, a wrong count of tiles) is dealt again by the same dealer
        # and does not count towards the session's hands
        hands = [h for h in hands if h.get("result") != "abandoned"]
    n, actions = len(hands), list(actions)
    if rules is not None:
        limited = rules.hands_per_session > 0 or "rounds" in table
        m, past = start(rules, first_dealer), False
        # a hand that does not count (中止) or a penalty before the first: its points go with the next hand's
        counted = {h["hand_no"] for h in hands}
        aside = sorted(no for no in (points or {}) if no not in counted)
        try:
            for h in hands:
                ready = sorted((exhaustive(actions, h["hand_no"]) or {}).get("ready", {}))
                paid = None
                if points is not None:
                    due = dict(points.get(h["hand_no"], {}))
                    while aside and aside[0] < h["hand_no"]:
                        for p, v in points[aside.pop(0)].items():
                            due[p] = due.get(p, 0) + v
                    paid = {w: int(due.get(str(player), 0)) for w, player in (h.get("seats") or {}).items()}
                m, _ = next_hand(m, winners(actions, h["hand_no"]), paid, ready=ready,
                                 abortive=h.get("result") == "abortive")
        except IllegalAction:  # hands played past the session's end
            past = True
        over = m.over or past
        if limited or not over or busted(m):  # 飛び ends even a session of no set length
            return Coming(m.dealer_position, m.prevalent, m.double, m.seating, over, rules.hands_per_session,
                          honba=m.honba if rules.honba else 0, busted=tuple(sorted(busted(m).items())))
    # no session rules, or past the rounds a ruleset does not limit: the deal passes every hand
    return Coming((first_dealer - 1 + n) % 4 + 1, SEATS[(n // 4) % 4], False, IDENTITY, False, 0)


# -- 定庄: the round's first dealer ------------------------------------------------------------------
#: How a ruleset chooses the first dealer (`[dice] dealer_by`, docs/rules.md): "count" (1号位 throws,
#: the total counts chairs from it: seed 000 十万麻将 四.3(1), 003 骰点法) or "highest" (each
#: throws, the highest deals, ties throw again: 四川 大为庄, seed 000 范文三).
def method_of(ruleset: str) -> str:
    from table_controller.scoring import ruleset_file

    rs = ruleset_file(ruleset)  # None for an unknown ruleset, reported where it is set
    return "highest" if rs is not None and rs.dealer_by == "highest" else "count"


def first_dealer_of(fd: dict[str, Any] | None) -> int:
    """The chair that deals the round's first hand: as the 定庄 throw chose, else chair 1."""
    return int(fd["position"]) if fd and fd.get("position") else 1


def to_throw(fd: dict[str, Any] | None, method: str = "count") -> list[int]:
    """The chairs that still throw for the first dealer (none once it is chosen)."""
    if fd is None:
        return [1] if method == "count" else [1, 2, 3, 4]
    return [c for c in fd.get("waiting", []) if str(c) not in fd.get("round_throws", {})]


def pending(fd: dict[str, Any] | None) -> str | None:
    """Why the round's first hand cannot start yet (a 定庄 begun and not finished), or None."""
    if not fd or fd.get("position"):
        return None
    chairs = to_throw(fd)
    waiting = "、".join(f"{c}号位" for c in chairs)
    return f"定庄未完成：请{waiting}掷骰 / choosing the first dealer: {_chairs_en(chairs)} to throw"


def _chairs_en(chairs: Sequence[int]) -> str:
    """"chair 1" or "chairs 1, 2" for the English half of a message (it read "chairs [1, 2]")."""
    return f"chair{'s' if len(chairs) > 1 else ''} {', '.join(map(str, chairs))}"


def first_dealer_throw(fd: dict[str, Any] | None, method: str, chair: int, dice: Sequence[int],
                       keyed: bool = False) -> dict[str, Any]:
    """The round's 定庄 after one more throw (a new dict): the throws in order, the chairs still to
    throw (`waiting`), the chosen `position` once there is one, and `note` on a throw that did
    not count (out of turn, after the choice, not two dice)."""
    from table_controller.rules import DealError, first_dealer_position, highest_thrower

    fd = {"method": method, "throws": [], "waiting": [1] if method == "count" else [1, 2, 3, 4], "position": None,
          "round_throws": {}, "note": None} if fd is None else {**fd, "throws": list(fd["throws"]),
                                                                  "round_throws": dict(fd["round_throws"])}
    throw = {"chair": chair, "dice": [int(x) for x in dice], **({"keyed": True} if keyed else {})}
    fd["throws"].append(throw)
    fd["note"] = None
    if fd["position"]:
        throw["ignored"] = fd["note"] = f"庄家已定（{fd['position']}号位）/ the first dealer is chosen"
        return fd
    if chair not in fd["waiting"]:
        throw["ignored"] = fd["note"] = (f"定庄应由{'、'.join(f'{c}号位' for c in fd['waiting'])}掷骰 / "
                                         f"{_chairs_en(fd['waiting'])} to throw for the first dealer, not chair {chair}")
        return fd
    counts = (2, 3) if method == "count" else (2,)  # a three-dice table (广东) counts its three
    if len(throw["dice"]) not in counts or not all(1 <= x <= 6 for x in throw["dice"]):
        throw["ignored"] = fd["note"] = (
            "定庄掷两颗骰子（三颗骰的牌桌：三颗），每颗 1 至 6 点 / two dice (three on a three-dice table) of 1 to 6"
            if method == "count" else "定庄掷两颗骰子，每颗 1 至 6 点 / two dice of 1 to 6")
        return fd
    try:
        if method == "count":
            fd["position"] = first_dealer_position(sum(throw["dice"]), thrower=chair, dice=len(throw["dice"]))
            fd["waiting"] = []
            return fd
        fd["round_throws"][str(chair)] = throw["dice"]
        if len(fd["round_throws"]) < len(fd["waiting"]):
            return fd
        result = highest_thrower({int(c): d for c, d in fd["round_throws"].items()})
    except DealError as exc:
        throw["ignored"] = fd["note"] = str(exc)
        return fd
    fd["round_throws"] = {}
    if result.dealer is not None:
        fd["position"], fd["waiting"] = result.dealer, []
    else:  # 大为庄 tied: the tied chairs throw again
        fd["waiting"] = list(result.tied)
        fd["note"] = f"{'、'.join(f'{c}号位' for c in result.tied)}点数相同，重掷 / tied: they throw again"
    return fd

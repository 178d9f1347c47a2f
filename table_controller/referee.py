"""Referee actions folded into the state: penalties, a win as read and confirmed, the session clock, undo.

Every action is an event in the log (`referee.*`, with who and when) and lands in
`state.actions`; an undo is itself an event naming the action it cancels and why. Effects are
computed from the actions that are not undone, so an undo never rewrites history.
"""

from __future__ import annotations

from collections.abc import Collection
from functools import lru_cache
from typing import TYPE_CHECKING, Any, NamedTuple

from table_controller import settlements
from table_controller.penalties import PenaltyError, catalogue
from table_controller.rules.ruleset import folder
from table_controller.scoring.errors import ScoringError, chinese_first
from table_controller.store import Event
from table_controller.tiles import seat_name
from table_controller.timers import timer_rules

if TYPE_CHECKING:
    from table_controller.state import TableState

SEATS = ("E", "S", "W", "N")
#: Referee events that may be undone (play records are corrected by a new read instead).
UNDOABLE = frozenset({"referee.penalty", "referee.win_read", "referee.win_confirm",
                      "referee.session_start", "referee.session_end", "referee.camera_confirm",
                      "referee.camera_dismiss", "referee.exhaustive", "referee.round_start", "referee.clock_pause",
                      "referee.clock_resume",
                      "referee.appeal", "referee.appeal_ruling", "referee.play_correct",
                      "referee.substitute"})
ACTION_ZH = {
    "referee.penalty": "罚分", "referee.win_read": "读牌", "referee.win_confirm": "确认和牌",
    "referee.session_start": "开始计时", "referee.session_end": "结束计时", "referee.undo": "撤销",
    "referee.camera_confirm": "确认识牌", "referee.camera_dismiss": "判为不是牌", "referee.exhaustive": "查叫",
    "referee.round_start": "新一轮",
    "referee.clock_pause": "暂停计时", "referee.clock_resume": "继续计时",
    "referee.appeal": "申诉", "referee.appeal_ruling": "申诉裁决", "referee.play_correct": "更正牌谱",
    "referee.substitute": "换人",
}


class RefereeError(ValueError):
    """An action that cannot be taken now; the message says why, Chinese first."""


def active(actions: list[dict[str, Any]], type: str | None = None, hand_no: int | None = None) -> list[dict[str, Any]]:
    """Actions not undone, optionally of one type and one hand."""
    return [a for a in actions if not a.get("undone") and (type is None or a["type"] == type)
            and (hand_no is None or a.get("hand_no") == hand_no)]


def last_undoable(actions: list[dict[str, Any]]) -> dict[str, Any] | None:
    live = [a for a in actions if a["type"] in UNDOABLE and not a.get("undone")]
    return live[-1] if live else None


def current_read(actions: list[dict[str, Any]], hand_no: int | None) -> dict[str, Any] | None:
    """The latest win read of the hand that is not undone (a correction is a newer read)."""
    reads = active(actions, "referee.win_read", hand_no)
    return reads[-1] if reads else None


def confirmed_wins(actions: list[dict[str, Any]], hand_no: int | None) -> list[dict[str, Any]]:
    """Every win the referee confirmed in the hand, in the order confirmed: more than one where
    the ruleset has 一炮多响 or plays on after a win (血战到底, 血流成河)."""
    return [a for a in active(actions, "referee.win_confirm", hand_no) if not a.get("error")]


def confirmed(actions: list[dict[str, Any]], hand_no: int | None) -> dict[str, Any] | None:
    """The hand's latest confirmed win, or None."""
    done = confirmed_wins(actions, hand_no)
    return done[-1] if done else None


def ranked_wins(actions: list[dict[str, Any]], hand_no: int | None) -> list[dict[str, Any]]:
    """The hand's confirmed wins in the order the rules rank them: by the order confirmed, and
    several winners on one discard (一炮多响) from the discarder's next seat round (四川's first
    winner deals next; 竞技's discarder pays them counter-clockwise)."""
    wins = confirmed_wins(actions, hand_no)
    first_of: dict[tuple[Any, ...], int] = {}
    keyed = []
    for i, w in enumerate(wins):
        group = discard_of(w) or ("self", i)
        first_of.setdefault(group, i)
        away = (SEATS.index(w["seat"]) - SEATS.index(w["discarder"])) % 4 if discard_of(w) else 0
        keyed.append((first_of[group], away, i))
    return [wins[i] for _, _, i in sorted(keyed)]


def winners(actions: list[dict[str, Any]], hand_no: int | None) -> list[str]:
    """The seats that won the hand, ranked as `ranked_wins`."""
    return [w["seat"] for w in ranked_wins(actions, hand_no)]


def out_seats(ruleset: str, actions: list[dict[str, Any]], hand_no: int | None) -> list[str]:
    """Seats that have left the hand by winning (血战到底: a winner plays no more)."""
    if flow_of(ruleset).continue_after_win != "blood_battle":
        return []
    return [w["seat"] for w in confirmed_wins(actions, hand_no)]


def flow_of(ruleset: str) -> Any:
    """The ruleset's hand flow (`FlowRules`); a ruleset without a `[flow]` table ends at the first win. Once per
    rulesets folder (`rules.ruleset.in_use`'s read, through `scoring.config`): keyed by the id alone, a venue's copy
    in another folder played the first folder's flow."""
    return _flow_of(ruleset, folder())


def _flow_of(ruleset: str, directory: str) -> Any:
    from table_controller.hand.rules import FlowRules
    from table_controller.scoring import ScoringError

    try:
        return _flow_read(ruleset, directory)
    except (ScoringError, KeyError, ValueError):  # not kept: a file put right is read as it is then
        return FlowRules(ruleset=ruleset)


@lru_cache(maxsize=32)
def _flow_read(ruleset: str, directory: str) -> Any:
    """`flow_of` of a file that reads. A file that does not raises, and is not kept: kept, a house file saved with a
    typo was played with the default flow (first win ends the hand, chows, flowers) after it was put right."""
    from table_controller.hand.rules import FlowRules

    return FlowRules.for_ruleset(ruleset)


def settles_draw(ruleset: str) -> bool:
    """Whether the ruleset checks the hands at 荒牌 (`[flow] exhaustive_checks`: 四川 查花猪, 查大叫)."""
    from table_controller.scoring.config import flow

    try:
        return bool(flow(ruleset).get("exhaustive_checks"))
    except (ScoringError, KeyError):
        return False


def discard_of(win: dict[str, Any]) -> tuple[str, str] | None:
    """(discarder, tile) of a confirmed win on a discard, None for a self-drawn one."""
    if win.get("win_kind") == "discard" and win.get("discarder") in SEATS:
        return (win["discarder"], win.get("win_tile", ""))
    return None


def ended_by_wins(ruleset: str, actions: list[dict[str, Any]], hand_no: int | None) -> bool:
    """Whether the hand's confirmed wins have ended it (as 结束本盘 then records it: 和牌): one win where the hand
    ends at a win (一炮多响 too), three under 血战到底; never under 血流成河, which plays on to the wall's end."""
    wins = confirmed_wins(actions, hand_no)
    flow = flow_of(ruleset).continue_after_win
    return bool(wins) and (flow == "end" or (flow == "blood_battle" and len({w["seat"] for w in wins}) >= 3))


def ended_unconfirmed(s: "TableState") -> bool:
    """Whether the last hand ended as a win (和牌) that no confirmed win stands for: ended so by the
    API, or its confirmation undone after the hand ended. Its win is still to be confirmed (a read
    may be made again), or the hand ended otherwise (`Controller.end_hand`: 荒牌 or 中止)."""
    hand = s.hand
    if hand is None or not hand.get("ended") or not s.hands or s.hands[-1]["hand_no"] != hand["hand_no"]:
        return False
    return s.hands[-1].get("result") == "win" and not confirmed_wins(s.actions, hand["hand_no"])


def redeal_due(s: "TableState") -> dict[str, Any] | None:
    """The ruling (not undone) that has the last hand, ended 荒牌 or 流局, dealt again (`redeal`: riichi's 错和 found at
    the draw, a 立直 not ready: WRC 7.1 "no noten payment and no continuance counters"), or None: the operator then
    ends it again 中止 (`Controller.end_hand`), so its 查叫 and 立直棒 are not paid and the same dealer deals."""
    hand = s.hand
    if hand is None or not hand.get("ended") or not s.hands or s.hands[-1]["hand_no"] != hand["hand_no"] \
            or s.hands[-1].get("result") not in ("draw", "abortive"):
        return None
    return next((a for a in active(s.actions, "referee.penalty", hand["hand_no"])
                 if a.get("redeal") and not a.get("error")), None)


def pending_read(s: "TableState") -> dict[str, Any] | None:
    """The hand's win read that waits for the referee's confirmation: the latest not undone, not
    confirmed, and of a seat not ruled out of winning (停和, 相公, 诈和: then it can never be confirmed)."""
    if s.hand is None:
        return None
    no = s.hand["hand_no"]
    read = current_read(s.actions, no)
    if read is None or any(w.get("read_seq") == read["seq"] for w in confirmed_wins(s.actions, no)):
        return None
    return None if read.get("seat") in stopped_seats(s.actions, no) else read


def win_waiting(s: "TableState", what_zh: str, what_en: str) -> str | None:
    """Why the round cannot go on (`what_zh`: 开始新一盘, 开始新一轮) while a hand's win waits for the
    referee, and how to get out; None when nothing waits. A hand in play with a win read not yet
    confirmed (the next hand's start would stop it as 中止, the read dropped), or a hand that ended as
    a win with no confirmed win (the round closed with a 0-point 和牌（待确认） row, final)."""
    hand = s.hand
    if hand is None:
        return None
    no, read = hand["hand_no"], pending_read(s)
    who = f"{seat_name(read['seat'])}家的和牌读牌（#{read['seq']}）" if read else ""
    if not hand.get("ended"):
        if read is None:
            return None
        return (f"第 {no} 盘{who}尚待确认，不能{what_zh}：请在和牌页确认和牌；读错了就撤销该读牌或判诈和；"
                f"无人和牌则先按结束本盘 / hand {no}: the win read #{read['seq']} ({read['seat']}) awaits "
                f"confirmation, so you cannot {what_en}: confirm it, or undo the read or rule a false win, "
                "or end the hand first")
    if not ended_unconfirmed(s):
        return None
    if read is not None:
        return (f"第 {no} 盘以和牌结束，{who}尚未确认，不能{what_zh}：请在和牌页确认和牌（读错可更正后确认）；"
                f"和牌不成立就撤销该读牌或判诈和，再按结束本盘改记为荒牌 / hand {no} ended as a win whose read "
                f"#{read['seq']} ({read['seat']}) is not confirmed, so you cannot {what_en}: confirm it (correct the "
                "read first if needed), or undo the read or rule a false win and end the hand again as a draw")
    return (f"第 {no} 盘以和牌结束，但没有已确认的和牌，不能{what_zh}：请在和牌页读牌并确认和牌，"
            f"或按结束本盘改记为荒牌 / hand {no} ended as a win with no confirmed win, so you cannot {what_en}: "
            "read the win and confirm it, or end the hand again as a draw")


def further_win_refusal(ruleset: str, wins: list[dict[str, Any]], read: dict[str, Any]) -> str | None:
    """Why the ruleset allows no win by `read` after the hand's confirmed `wins`, or None.

    - one win ends the hand (MCR 截和: one winner per discard) unless the ruleset has 一炮多响,
      where others may win on the same discard;
    - 血战到底: each seat wins once, and the hand ends when three have won;
    - 血流成河: winners play on and may win again.
    """
    if not wins:
        return None
    flow = flow_of(ruleset)
    seat = read["seat"]
    if flow.continue_after_win == "blood_river":
        return None
    if flow.continue_after_win == "blood_battle":
        done = {w["seat"] for w in wins}
        if seat in done:
            return "该家本盘已和牌（血战到底）/ this seat has already won this hand"
        if len(done) >= 3:
            return "三家已和，本盘已结束（血战到底）/ three seats have won: the hand is over"
        return None
    hand = read.get("hand") or {}
    this = (hand.get("discarder"), hand.get("win_tile")) if hand.get("win", "discard") == "discard" else None
    if not flow.multiple_winners:
        first = wins[0]
        if this is not None and this == discard_of(first) and seat in SEATS and _nearer(seat, first["seat"], this[0]):
            # seed 000 范文六 第四条 (三) "如有一人以上同时表示和牌时，从打牌者按逆时针方向，顺序在前者被定为'和牌者'"
            near, far, by = seat_name(seat), seat_name(first["seat"]), seat_name(this[0])
            return (f"截和：{near}家比{far}家先轮到（从点炮的{by}家按逆时针方向顺序在前者为和牌者）；两家同时报和应由"
                    f"{near}家和牌：请撤销本读牌和{far}家的确认和牌，再读{near}家的牌确认 / 截和: {seat} comes before "
                    f"{first['seat']} after the discarder {this[0]}; if both declared together {seat} is the winner: "
                    f"undo this read and {first['seat']}'s confirmed win, then read {seat} again")
        return "本盘和牌已确认（截和：一张牌只有一家和）/ this hand's win is already confirmed"
    if this is None or this != discard_of(wins[0]):
        return "一炮多响只限同一张弃牌 / after a win, others may win only on the same discard"
    if any(w["seat"] == seat for w in wins):
        return "该家本盘已和牌 / this seat has already won this hand"
    return None


def _nearer(seat: str, other: str, discarder: str) -> bool:
    """Whether `seat` comes before `other` in play order after `discarder` (截和: the first of them wins)."""
    return (SEATS.index(seat) - SEATS.index(discarder)) % 4 < (SEATS.index(other) - SEATS.index(discarder)) % 4


def stopped_seats(actions: list[dict[str, Any]], hand_no: int | None) -> dict[str, str]:
    """Seats that lost the right to win this hand (停和/相公), with the ruling's name."""
    out: dict[str, str] = {}
    for a in active(actions, "referee.penalty", hand_no):
        if a.get("stops_win"):
            out[a["seat"]] = a["name_zh"]
    return out


def apply_referee(s: "TableState", ev: Event) -> None:
    """Fold one `referee.*` event into `s` (a copy the caller owns)."""
    d = ev.data
    hand = s.hand
    hand_no = hand["hand_no"] if hand else None
    record: dict[str, Any] = {"seq": ev.seq, "at": ev.at, "source": ev.source, "type": ev.type,
                              "by": d.get("by", ev.source), "by_name": d.get("by_name", ""),
                              "client": d.get("client"), "hand_no": hand_no,
                              "undone": False, "deltas": {}}
    closes = None
    try:
        if ev.type == "referee.penalty":
            _penalty(s, d, record)
        elif ev.type == "referee.round_start":
            from table_controller.rounds import start_round

            closes = start_round(s, d, record)
        elif ev.type == "referee.win_read":
            _win_read(s, d, record)
        elif ev.type == "referee.win_confirm":
            _win_confirm(s, d, record)
        elif ev.type == "referee.session_start":
            rules = timer_rules(s.ruleset)
            minutes = d.get("minutes") or rules.session_minutes
            if not minutes:
                raise RefereeError("本规则未规定比赛时间，请给出分钟数 / give the session's minutes")
            record.update(minutes=float(minutes), warnings_min=list(rules.warnings_min))
        elif ev.type == "referee.session_end":
            pass
        elif ev.type in ("referee.clock_pause", "referee.clock_resume"):
            _clock(s, ev.type, d, record)
        elif ev.type == "referee.appeal":
            from table_controller.appeals import appeal

            appeal(s, d, record, ev.at, timer_rules(s.ruleset).appeal_minutes)
        elif ev.type == "referee.appeal_ruling":
            from table_controller.appeals import ruling

            ruling(s, d, record)
        elif ev.type == "referee.undo":
            _undo(s, d, record)
        elif ev.type == "referee.camera_confirm":
            _camera_confirm(s, d, record)
        elif ev.type == "referee.camera_dismiss":
            _camera_dismiss(s, d, record)
        elif ev.type == "referee.exhaustive":
            _exhaustive(s, d, record)
        elif ev.type == "referee.play_correct":
            from table_controller.corrections import check

            check(s, d, record)  # its effect: the hand folded again (`state.apply`, `corrections.rework`)
            if isinstance(d.get(settlements.AGAIN), dict):  # the hand's confirmed wins scored again
                record[settlements.AGAIN] = d[settlements.AGAIN]
        elif ev.type == "referee.substitute":
            from table_controller.substitutes import check as check_substitute

            check_substitute(s, d, record)  # its effect: the chair's sitters (`substitutes.sitters`)
        else:
            raise RefereeError(f"未知的裁判操作 {ev.type}")
    except (RefereeError, PenaltyError, ScoringError) as exc:
        # The log is the record even of a refused action; it just has no effect.
        record["error"] = str(exc)
        record["error_kind"] = "state" if isinstance(exc, RefereeError) else "input"
    except Exception as exc:  # noqa: BLE001 — the event is already in the log: a replay must never stop here
        record["error"] = f"无法处理此操作 / cannot apply: {type(exc).__name__}: {exc}"
        record["error_kind"] = "input"
    if closes is not None and not record.get("error"):
        from table_controller.rounds import close_round

        close_round(s, record)  # the round it ends is kept whole; the new one starts with this action
    s.actions = s.actions + [record]


#: The camera's readings the referee has ruled on, kept a while (an undo reopens one, the camera
#: watcher reads the ruling's reading back); open readings kept at most, the oldest (an earlier
#: hand's) dropped first: about every tile a hand lays face up, and the state goes to every page
#: with each event.
CAMERA_RULED_KEPT = 20
CAMERA_OPEN_KEPT = 120
#: The rulings on an unsure reading: what tile it is (confirmed or corrected), or no tile at all
CAMERA_RULINGS = ("referee.camera_confirm", "referee.camera_dismiss")


def _ruled(s: "TableState") -> set[Any]:
    return {a.get("camera_seq") for a in active(s.actions) if a["type"] in CAMERA_RULINGS and not a.get("error")}


def camera_open(s: "TableState") -> list[dict[str, Any]]:
    """The camera's unsure readings the referee has not yet ruled on (a confirmation undone reopens one)."""
    ruled = _ruled(s)
    return [p for p in s.camera_pending if p["seq"] not in ruled]


def camera_kept(s: "TableState", items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Of the camera's unsure readings `items` (oldest first), those the state keeps: every one still
    open (up to `CAMERA_OPEN_KEPT`) and the last `CAMERA_RULED_KEPT` ruled. Before, the newest 20 of
    both together: a referee more than 20 questions behind lost the oldest open ones for good (409
    "no open camera reading"), and the play record waited on them for the rest of the hand (24
    discards asked, none recorded after the 20 still listed were ruled)."""
    ruled = _ruled(s)
    opened = [p["seq"] for p in items if p["seq"] not in ruled][-CAMERA_OPEN_KEPT:]
    done = [p["seq"] for p in items if p["seq"] in ruled][-CAMERA_RULED_KEPT:]
    keep = set(opened) | set(done)
    return [p for p in items if p["seq"] in keep]


def _camera_confirm(s: "TableState", d: dict[str, Any], record: dict[str, Any]) -> None:
    """The referee says what the unsure tile really is: the camera's reading, or a correction."""
    from table_controller.tiles import is_tile

    seq = d.get("seq")
    item = next((p for p in camera_open(s) if p["seq"] == seq), None)
    if item is None:
        raise RefereeError(f"没有待确认的识牌 #{seq} / no open camera reading #{seq}")
    kind = d.get("kind") or item.get("kind")
    if not isinstance(kind, str) or not is_tile(kind):
        raise PenaltyError(f"不是牌的代码：{kind!r} / not a tile code (e.g. 5m 1z 3f)")
    record.update(camera_seq=seq, kind=kind, read_as=item.get("kind"), zone=item.get("zone"),
                  corrected=kind != item.get("kind"))


def _camera_dismiss(s: "TableState", d: dict[str, Any], record: dict[str, Any]) -> None:
    """The referee says the unsure reading is no tile (a coin, a phone, a glare spot, a sleeve): it leaves the
    questions, the camera's record stops waiting on it, and it names no kind (nothing is learnt from it). Before,
    the referee could only confirm it or name a tile, and a phantom in a pool held that pool back all hand."""
    seq = d.get("seq")
    item = next((p for p in camera_open(s) if p["seq"] == seq), None)
    if item is None:
        raise RefereeError(f"没有待确认的识牌 #{seq} / no open camera reading #{seq}")
    record.update(camera_seq=seq, read_as=item.get("kind"), zone=item.get("zone"))


def position_deltas(hand: dict[str, Any], by_wind: dict[str, int]) -> dict[str, int]:
    """Points per player (抽签号位 1..4, the score sheet's columns) from points per wind of this
    hand: `seats` name the player holding each wind (the physical chair until a 换位 moves them)."""
    seats = hand.get("seats") or {w: i + 1 for i, w in enumerate(SEATS)}
    return {str(seats[w]): int(v) for w, v in by_wind.items() if v}


def _penalty(s: "TableState", d: dict[str, Any], record: dict[str, Any]) -> None:
    seat = d.get("seat")
    if seat not in SEATS:
        raise RefereeError("须指定受罚的一家 (E/S/W/N) / seat must be E, S, W or N")
    code = str(d.get("code"))
    previous = sum(1 for a in active(s.actions, "referee.penalty", record["hand_no"])
                   if a.get("code") == code and a.get("seat") == seat and not a.get("error"))
    kept = settlements.kept(d)  # as taken: a catalogue edited since changes no penalty already ruled
    try:
        now = _penalty_now(s, seat, d, record, previous)
    except (PenaltyError, RefereeError) as exc:
        if kept is None:
            raise
        now = {"valid": False, "message": str(exc)}
    got = now if kept is None else {f: kept.get(f, 0 if f == "standing" else now.get(f))
                                    for f in settlements.PENALTY_FIGURES}
    by_wind = {str(w): int(v) for w, v in got["by_wind"].items()}
    record.update(code=got["code"], name_zh=got["name_zh"], name_en=got["name_en"], seat=seat, victim=d.get("victim"),
                  amount=got["amount"], nth=previous + 1, stops_win=bool(got["stops_win"]),
                  disqualify=bool(got["disqualify"]), redeal=bool(got.get("redeal")),
                  note=str(d.get("note", ""))[:200], by_wind=by_wind,
                  standing=int(got.get("standing") or 0))
    if kept is not None:
        record["recorded"] = True
        # a penalty logged before `standing` was kept took nothing off the standing
        differs = settlements.differs({"standing": 0, **kept}, now,
                                      ("by_wind", "amount", "stops_win", "disqualify", "standing"))
        if differs:
            record["rescored"] = differs  # today's catalogue would rule it so: `tablectl check` names it
    if s.hand is not None:
        record["deltas"] = position_deltas(s.hand, by_wind)
    else:  # between hands (迟到): chairs and winds are those of the first hand
        record["deltas"] = {str(i + 1): v for i, v in enumerate(by_wind[w] for w in SEATS) if v}
    if record["standing"]:  # off the player's session standing (WRC 7.1), by chair as the deltas are
        chair = (position_deltas(s.hand, {seat: 1}) if s.hand is not None else {str(SEATS.index(seat) + 1): 1})
        record["standing_deltas"] = {p: -record["standing"] for p in chair}


def _penalty_now(s: "TableState", seat: str, d: dict[str, Any], record: dict[str, Any],
                 previous: int) -> dict[str, Any]:
    """A penalty as today's catalogue (or scorer, for 诈和) rules it: `settlements.PENALTY_FIGURES`."""
    p = catalogue(s.ruleset).get(str(d.get("code")))
    if p.from_scoring:
        if d.get("amount") is not None:
            raise PenaltyError(f"{p.name_zh}：罚分由所报番数算出，请给番数 / give the declared 番 (fan), not an amount")
        by_wind = _scored_false_win(s, seat, d, record)
        amount = -by_wind[seat]
    else:
        if d.get("fan") is not None:
            raise PenaltyError(f"{p.name_zh}：此罚则不按番数计 / this penalty takes no 番 (fan)")
        amount = p.amount_for(previous, d.get("amount"))
        by_wind = p.deltas(seat, amount, d.get("victim"))
    return {"code": p.code, "name_zh": p.name_zh, "name_en": p.name_en, "amount": amount, "by_wind": by_wind,
            "stops_win": p.stops_win, "disqualify": p.disqualify, "standing": p.standing_of(amount),
            "redeal": p.redeal}


def _scored_false_win(s: "TableState", seat: str, d: dict[str, Any], record: dict[str, Any]) -> dict[str, int]:
    """诈和 as the ruleset's scorer pays it (四川: each seat still playing gets what the declared
    hand of `fan` 番 would have won, seed 003); the referee gives the 番 the seat declared."""
    from table_controller.scoring import ScoringError, false_win

    fan = d.get("fan")
    if fan is None:
        raise RefereeError("诈和：须给出该家所报的番数 / give the 番 (fan) the seat declared")
    out = out_seats(s.ruleset, s.actions, record["hand_no"]) if s.hand is not None else []
    try:
        by_wind = false_win(s.ruleset, seat, fan=fan, active=[w for w in SEATS if w not in out or w == seat])
    except ScoringError as exc:
        raise RefereeError(f"诈和：{exc}") from None
    record["fan"] = fan
    return by_wind


def _win_read(s: "TableState", d: dict[str, Any], record: dict[str, Any]) -> None:
    from table_controller.scoring import ScoringError, score_json
    from table_controller.tiles import tile_name

    if s.hand is None or (s.hand.get("ended") and not ended_unconfirmed(s)):
        # a hand that ended as a win whose confirmation was undone may be read again (a read put right)
        raise RefereeError("没有进行中的牌局 / no hand in play")
    hand_in = d.get("hand")
    if not isinstance(hand_in, dict):
        raise RefereeError("缺少手牌 / hand is required")
    wins = confirmed_wins(s.actions, record["hand_no"])
    out = out_seats(s.ruleset, s.actions, record["hand_no"])
    if "prevalent_wind" not in hand_in and s.hand.get("prevalent_wind"):  # 圈风: the hand's, not 东 by default
        hand_in = {**hand_in, "prevalent_wind": s.hand["prevalent_wind"]}
    derived = record_options(s.hand, hand_in)
    if derived:  # what the record shows (倍打, 包付, 杠上炮); the referee's own options win
        given = hand_in.get("options") if isinstance(hand_in.get("options"), dict) else {}
        hand_in = {**hand_in, "options": {**derived, **given}}
    if _horses_from_discarder(s.ruleset, wins, hand_in):  # 一炮多响: a further winner on the same discard
        hand_in = {**hand_in, "options": {**(hand_in.get("options") or {}), "horse_origin": hand_in["discarder"]}}
    kong_win = record_win(s.hand, hand_in)
    if kong_win:  # 杠上开花: the record shows the tile drawn was the kong's replacement
        hand_in = {**hand_in, "win": kong_win}
    if out and "active" not in hand_in:  # 血战: only the seats still playing pay a later win
        hand_in = {**hand_in, "active": [w for w in SEATS if w not in out or w == hand_in.get("seat_wind")]}
    record["hand"] = hand_in  # concealed tiles: the referee channel only (see projection.py)
    record["seat"] = hand_in.get("seat_wind", hand_in.get("winner"))
    previous = current_read(s.actions, record["hand_no"])
    # a new read corrects the last one unless that one is confirmed (then it is a further winner)
    record["correction"] = previous is not None and all(w.get("read_seq") != previous["seq"] for w in wins)
    stopped = stopped_seats(s.actions, record["hand_no"])
    try:
        result = score_json(hand_in, s.ruleset)
    except ScoringError as exc:  # the referee reads Chinese first (a fifth 5p seen on the table: 同一张牌超过 4 张)
        result = {"valid": False, "reason": "bad_hand", "message": chinese_first(exc, "hand.")}
    konger = konger_elsewhere(s.hand, hand_in)
    if konger:  # before: "visible.5p: 4 visible and 1 in the hand: a set has 4 of 5p", in English only
        tile = hand_in.get("win_tile")
        result = {"valid": False, "reason": "not_robbed",
                  "message": f"抢杠和：加杠{tile_name(tile)}的是{seat_name(konger)}家，点炮方应选{seat_name(konger)}家 / "
                             f"rob_kong: the added kong of {tile} is {konger}'s: name {konger} as the discarder"}
    # a win whose confirmation was undone, read again to put it right where play went on (血战): its discard stands
    undone = [Undone(a.get("discarder"), a.get("win_tile"), (a.get("restore") or {}).get("won_on"),
                     float(a.get("read_seq") or a["seq"]), float(a["undo"]["seq"])) for a in s.actions
              if a["type"] == "referee.win_confirm" and a.get("undone") and not a.get("error")
              and a.get("hand_no") == record["hand_no"] and a.get("seat") == record["seat"]]
    against = read_against_record(s.hand, hand_in, undone) if not konger else None
    if against is not None:  # the record says otherwise: the wrong seat would pay, or a flower would be two
        result = {**result, "valid": False, "reason": against[0], "message": against[1]}
    unrobbable = kong_not_added(s.hand, hand_in, s.ruleset)
    if unrobbable:  # before the scorer's words: a 明杠's four tiles read as "a set has 4 of 6p", in English
        result = {**result, "valid": False, "reason": "not_added_kong", "message": unrobbable}
    if record["seat"] in stopped and result.get("valid"):
        result = {**result, "valid": False, "reason": "stopped",
                  "message": f"该家已被判{stopped[record['seat']]}，不得和牌"}
    sealed = sealed_by(s.hand, record["seat"])
    if sealed and result.get("valid"):
        n = flow_of(s.ruleset).seal_pungs
        result = {**result, "valid": False, "reason": "sealed",
                  "message": f"封胡：该家已放给{seat_name(sealed)}家碰 {n} 次，本盘不能和牌 / "
                             f"sealed: it fed {sealed} {n} pungs and may not win this hand"}
    if record["seat"] in out and result.get("valid"):
        result = {**result, "valid": False, "reason": "already_won",
                  "message": "该家本盘已和牌（血战到底），不再行牌"}
    passed = missed_win(s.ruleset, s.hand, hand_in) if result.get("valid") else None
    if passed is not None:
        who, tile = passed
        result = {**result, "valid": False, "reason": "missed_win",
                  "message": f"漏和：放过了{seat_name(who)}家打出的这张牌，在自己摸牌前不能再和这张 / "
                             "passed a win on this tile and has not moved since" if tile == hand_in.get("win_tile")
                  else f"过胡不胡：放过了{seat_name(who)}家打出的{tile_name(tile)}（可和），在自己摸牌前不能点和 / "
                       f"passed a win on {who}'s {tile} and has not moved since"}
    turned = indicators_problem(s.ruleset, s.hand, hand_in) if result.get("valid") else None
    if turned is not None:
        result = {**result, "valid": False, "reason": "indicators", "message": turned}
    held = furiten(s.ruleset, s.hand, hand_in) if result.get("valid") else None
    if held is not None:
        result = {**result, "valid": False, "reason": "furiten", "message": held}
    record["result"] = result


class Undone(NamedTuple):
    """A win on a discard whose confirmation was undone, as `read_against_record` holds a read again to it."""

    discarder: Any
    tile: Any
    won_on: Any  # the seq of the discard won on, as the fold placed it (`state.after_win`); None: none recorded
    since: float  # where the win stood from (its read, `corrections._placed_wins`) ...
    until: float  # ... to its undo


def read_against_record(hand: dict[str, Any] | None, read: dict[str, Any],
                        undone: Collection[Undone] = ()) -> tuple[str, str] | None:
    """What a win read says that the play record contradicts, as (reason, words), or None. The record is
    taken where it speaks plainly and no further (a table keeping no play record, or one the camera missed a
    discard of, has nothing to say): a win on a discard naming as 点炮方 a seat other than the one whose
    discard of the winning tile is the last play of the record (the wrong seat would pay), and a flower read
    tile (1f..8f) read in the winner's hand that the record shows another seat laid out (each exists once).
    `undone`: the winner's wins on a discard whose confirmation was undone. One read again to put it right
    after play went on (血战: a later seat's discard of the same tile the newest) names its own discard, not
    the newest (before, refused naming a seat the winner, out by then, never won on): where that very discard
    is still in the record, not won on by the winner since, and the newest was thrown while the win stood.
    A read naming the undone win's 点炮方 for a discard thrown after the undo is held to the record (before,
    the same 点炮方 and tile let it pass, and that seat paid for a discard nobody won on)."""
    from table_controller.tiles import tile_name

    if not hand:
        return None
    winner, tile, named = read.get("seat_wind", read.get("winner")), read.get("win_tile"), read.get("discarder")
    pools = hand.get("discards") or {}
    last = max(((seat, d) for seat, pool in pools.items() for d in pool),
               key=lambda sd: float(sd[1].get("seq") or 0), default=None)
    if read.get("win", "discard") == "discard" and last is not None and named in SEATS:
        seat, d = last
        newest = float(d.get("seq") or 0)
        if (seat != named and seat != winner and d.get("tile") == tile and not d.get("claimed")
                and newest >= float(hand.get("play_seq") or 0)
                and not any(_read_again(pools.get(named) or [], winner, named, tile, newest, u) for u in undone)):
            return ("wrong_discarder",
                    f"点炮方：记录中最后打出{tile_name(str(tile))}的是{seat_name(seat)}家，不是{seat_name(named)}家"
                    f"（应选{seat_name(seat)}家，或先更正打牌记录） / discarder: the record's last play is {seat}'s "
                    f"discard of {tile}, not {named}'s (name {seat}, or correct the play record first)")
    flowers = read.get("flowers") if isinstance(read.get("flowers"), list) else []
    for seat, laid in (hand.get("flowers") or {}).items():
        if seat == winner:
            continue
        # a flower tile (1f..8f) exists once; 南京's 白 and the like, laid out as flowers, have four copies
        shared = [f for f in flowers if isinstance(f, str) and f.endswith("f") and f in (laid or [])]
        if shared:
            return ("flower_elsewhere",
                    f"花牌：{tile_name(str(shared[0]))}在记录中是{seat_name(seat)}家补的花，每张花牌只有一张"
                    f"（读牌或补花记录有误） / flowers: the record has {shared[0]} laid out by {seat}; each flower "
                    "exists once (the read or the flower record is wrong)")
    return None


def _read_again(pool: list[dict[str, Any]], winner: Any, named: Any, tile: Any, newest: float, u: Undone) -> bool:
    """Whether a read naming `named` (whose discards are `pool`) is the undone win `u` read again, the record's
    newest discard of the tile (at `newest`) thrown while `u` stood: `u`'s own discard, by its seq, still in the
    record as `named`'s `tile` and not taken since (into a meld, or won on by the winner again)."""
    if (u.discarder, u.tile) != (named, tile) or u.won_on is None or not u.since <= newest < u.until:
        return False
    own = next((d for d in pool if float(d.get("seq") or 0) == float(u.won_on)), None)
    return own is not None and own.get("tile") == tile and not (
        own.get("claimed") and own.get("won_by") in (None, winner))


def konger_elsewhere(hand: dict[str, Any], read: dict[str, Any]) -> str | None:
    """A 抢杠和 read naming as 点炮方 a seat with no 补杠 of the winning tile, where another seat's 补杠 of it
    is in the record: that seat (the one robbed). None where the read names the konger, or no 补杠 was keyed."""
    if read.get("win") != "rob_kong":
        return None
    tile = read.get("win_tile")

    def added(seat: Any) -> bool:
        return any(m.get("type") == "kong" and m.get("added_seq") and (m.get("tiles") or [None])[0] == tile
                   for m in (hand.get("melds") or {}).get(seat) or [])

    if added(read.get("discarder")):
        return None
    return next((w for w in SEATS if w != read.get("seat_wind") and added(w)), None)


def kong_not_added(hand: dict[str, Any], read: dict[str, Any], ruleset: str) -> str | None:
    """Why a 抢杠和 read cannot stand: the seat it names made its kong of the tile concealed (暗杠) or from a
    discard (点杠), and has no 补杠 of it. Only the tile added to a pung can be robbed (seed 000 范文五 47
    "抢杠和 和别人自抓开明杠的牌", 范文六 "明杠 ... 抓进一张与已经碰的刻子牌相同"); before, a 抢杠和 of a 暗杠 scored
    its 8 番 and the konger paid it. Riichi's 国士无双 robbing an 暗杠 is its own rule: not refused there. With
    no kong of the tile in the record (it lags the table), the read is scored as before."""
    from table_controller.tiles import tile_name

    if read.get("win") != "rob_kong" or flow_of(ruleset).riichi:
        return None
    konger, tile = read.get("discarder"), read.get("win_tile")
    kongs = [m for m in (hand.get("melds") or {}).get(konger) or []
             if m.get("type") == "kong" and tile in (m.get("tiles") or [])]
    if not kongs or any(m.get("added_seq") for m in kongs):
        return None
    how = "暗杠" if kongs[-1].get("concealed") or kongs[-1].get("from") not in SEATS else "明杠（杠别人打出的牌）"
    how_en = "concealed" if how == "暗杠" else "made on a discard"
    return (f"抢杠和只能抢补杠（和别人自抓开明杠的牌）：{seat_name(konger)}家的{tile_name(tile)}杠是{how}，不能抢 / "
            f"rob_kong: only an added kong (补杠) can be robbed; {konger}'s kong of {tile} is {how_en}")


def _win_confirm(s: "TableState", d: dict[str, Any], record: dict[str, Any]) -> None:
    from table_controller.state import after_win

    if s.hand is None:
        raise RefereeError("没有进行中的牌局 / no hand in play")
    read = current_read(s.actions, record["hand_no"])
    if read is None:
        raise RefereeError("尚无和牌读牌，无法确认 / no win has been read")
    wins = confirmed_wins(s.actions, record["hand_no"])
    if any(w.get("read_seq") == read["seq"] for w in wins):
        raise RefereeError("本盘和牌已确认 / this win is already confirmed")
    result = read["result"]
    kept = settlements.recorded(d, read["seq"])  # as confirmed: a later ruleset or scorer does not change it
    if kept is None and not result.get("valid"):
        raise RefereeError(f"和牌不成立：{result.get('message') or result.get('reason', '')}（可更正读牌，或判诈和）")
    got = kept if kept is not None else settlements.figures(result)
    # a win confirmed under the [flow] of its day (一炮多响 then) stands: today's is for new ones (`refuse_new`)
    flow_refusal = further_win_refusal(s.ruleset, wins, read)
    refusal = (None if kept is not None else flow_refusal) or _stacks_refuse(s, read, got["payments"])
    if refusal:
        raise RefereeError(refusal)
    hand = read.get("hand") or {}
    kind = hand.get("win", "discard")
    record.update(read_seq=read["seq"], seat=read["seat"], total=got["total"], fans=list(got["fans"]),
                  by_wind=dict(got["payments"]), deltas=position_deltas(s.hand, got["payments"]), win_kind=kind)
    if kept is not None:
        record["recorded"] = True  # the figures logged when it was confirmed (or corrected), not scored again
        differs = ({"valid": False, "reason": "flow", "message": flow_refusal} if flow_refusal
                   else settlements.rescored(kept, result))
        if differs:
            record["rescored"] = differs  # today's rules would score it so (or refuse it): `tablectl check` names it
    if kind in ("discard", "rob_kong"):  # the tile won on was face up: public, unlike a self-drawn one
        record.update(discarder=hand.get("discarder"), win_tile=hand.get("win_tile"))
    void = _riichi_dealt_in(s.hand, hand)
    if void:
        record["riichi_void"] = void
    record["restore"] = after_win(s.hand, record, flow_of(s.ruleset), wins + [record], record["at"])


def _riichi_dealt_in(live: dict[str, Any], read: dict[str, Any]) -> str | None:
    """The seat whose 立直 declaration tile is the one won on (立直宣言牌放铳), or None: its 立直 does not stand,
    and its stick is never put on the table (WRC, JPML, 天凤 alike; `scoresheet._sticks`)."""
    discarder = read.get("discarder")
    if read.get("win", "discard") != "discard" or discarder not in SEATS:
        return None
    declared = (live.get("riichi") or {}).get(discarder)
    pool = (live.get("discards") or {}).get(discarder) or []
    if declared and pool and pool[-1].get("seq") == declared.get("discard_seq") \
            and pool[-1].get("tile") == read.get("win_tile"):
        return str(discarder)
    return None


def _horses_from_discarder(ruleset: str, wins: list[dict[str, Any]], read: dict[str, Any]) -> bool:
    """买马 under 一炮多响 (seed 001: "一炮多响时，从放炮者开始"): a win read on a discard another win confirmed
    was on counts its horses from the discarder, unless the referee said where they count from."""
    from table_controller.scoring import ruleset_file

    options = read.get("options") if isinstance(read.get("options"), dict) else {}
    if "horse_origin" in options or read.get("win", "discard") != "discard" or read.get("discarder") not in SEATS:
        return False
    rs = ruleset_file(ruleset)
    if rs is None or rs.hand_end is None or rs.hand_end.kind != "horses":
        return False
    return any(discard_of(w) == (read["discarder"], read.get("win_tile")) for w in wins)


def missed_win(ruleset: str, hand: dict[str, Any], read: dict[str, Any]) -> tuple[str, Any] | None:
    """漏和 (`[flow] missed_win`, 广东): a seat that let a discard of the tile it now wins on go by,
    and has not moved since, may not win on it. The record shows it without the seat's tiles:
    with no move of its own since, the hand read now is the hand it held then, so it could have
    won on that discard too. With `missed_win_any` (过胡不胡) a win on any tile let go by since bars it: one the
    hand read would have won on, scored as such. Returns (the seat whose discard it passed, that tile), or None."""
    flow = flow_of(ruleset)
    if not flow.missed_win or read.get("win", "discard") != "discard":
        return None
    seat, tile, discarder = read.get("seat_wind", read.get("winner")), read.get("win_tile"), read.get("discarder")
    pools = hand.get("discards") or {}
    if seat not in SEATS or discarder not in SEATS or not pools.get(discarder):
        return None
    moved = max([d["seq"] for d in pools.get(seat, [])] + [0])
    won_on = pools[discarder][-1]["seq"]
    for other, pool in pools.items():
        if other != seat and any(moved < d["seq"] < won_on and d.get("tile") == tile for d in pool):
            return other, tile
    if flow.missed_win_any:
        for other, pool in pools.items():
            for d in pool:
                if other != seat and moved < d["seq"] < won_on and _would_win(read, d.get("tile"), other, ruleset):
                    return other, d.get("tile")
    return None


def _would_win(read: dict[str, Any], tile: Any, discarder: str, ruleset: str) -> bool:
    """Whether the hand read would have won on `tile` discarded by `discarder` (过胡不胡: a ron let go by)."""
    from table_controller.scoring import ScoringError, score_json

    if tile == read.get("win_tile"):
        return False  # the tile won on now: the plain 漏和 above
    try:
        return bool(score_json({**read, "win_tile": tile, "discarder": discarder, "last_tile": False}, ruleset)
                    .get("valid"))
    except ScoringError:
        return False


def furiten(ruleset: str, hand: dict[str, Any], read: dict[str, Any]) -> str | None:
    """振听 (`[flow] furiten`, riichi): a seat may not win on a discard (or rob a kong) while any of
    its waits lies in its own discards (舍牌振听, claimed ones too), or was discarded by another
    seat since it last moved and it let it pass (同巡振听). The waits are those of the hand read,
    which is the hand it held then; after a keyed 立直 a wait let pass at any time since counts
    (立直振听). Returns why, or None."""
    from table_controller.scoring import ScoringError
    from table_controller.scoring.hand import HandInput
    from table_controller.scoring.waits import shape_waits
    from table_controller.tiles import tile_name

    if not flow_of(ruleset).furiten or read.get("win", "discard") not in ("discard", "rob_kong"):
        return None
    seat = read.get("seat_wind", read.get("winner"))
    pools = hand.get("discards") or {}
    if seat not in SEATS:
        return None
    try:
        waits = shape_waits(HandInput.from_json(read), ruleset)
    except ScoringError:
        return None  # a read that does not parse is refused by the scorer already
    own = sorted({d["tile"] for d in pools.get(seat, []) if d.get("tile") in waits}, key=waits.index)
    if own:
        return (f"振听：自己打过所听的{'、'.join(tile_name(t) for t in own)}，不能荣和 / "
                f"furiten: {', '.join(own)} among its own discards")
    moved = max([d["seq"] for d in pools.get(seat, [])] + [0])
    declared = (hand.get("riichi") or {}).get(seat)
    if declared:  # 立直振听: after riichi a wait let pass bars a ron for the rest of the hand
        moved = declared["discard_seq"]
    # the discard won on is the last one, not let pass; a robbed kong comes after every discard, each let pass
    won_on = max([d["seq"] for pool in pools.values() for d in pool] + [0]) if read.get("win", "discard") == "discard" \
        else float("inf")
    passed = sorted({d["tile"] for other, pool in pools.items() if other != seat for d in pool
                     if moved < d["seq"] < won_on and d.get("tile") in waits}, key=waits.index)
    if passed:
        return (f"同巡振听：放过了所听的{'、'.join(tile_name(t) for t in passed)}，在自己摸牌前不能荣和 / "
                f"furiten: let {', '.join(passed)} pass since its last discard")
    return None


def indicators_problem(ruleset: str, hand: dict[str, Any], read: dict[str, Any]) -> str | None:
    """宝牌指示牌 (riichi): one is turned up at the deal and one more after each kong (杠宝牌, `[indicators.dora]
    kan_step`), so a read may give no more 宝牌 or 里宝牌 indicators than 1 + the kongs in the record; more
    scored 宝牌 nobody turned up (the scorer takes up to 5). A kong the record lacks is keyed first. Why, or None."""
    from table_controller.scoring import ruleset_file

    opts = read.get("options") if isinstance(read.get("options"), dict) else {}
    rs = ruleset_file(ruleset)
    rule = next((r for r in (rs.indicators if rs is not None else ()) if r.name == "dora"), None)
    if rule is None or not any(isinstance(opts.get(k), list) for k in ("dora", "ura_dora")):
        return None
    kongs = sum(m.get("type") == "kong" for melds in (hand.get("melds") or {}).values() for m in melds or ())
    most = 1 + (kongs if rule.kan_step else 0)
    for name, zh in (("dora", "宝牌指示牌"), ("ura_dora", "里宝牌指示牌")):
        given = opts.get(name)
        if isinstance(given, list) and len(given) > most:
            return (f"{zh}最多 {most} 张（开局翻 1 张，每个杠再翻 1 张；本盘记录有 {kongs} 个杠），收到 {len(given)} 张："
                    f"请核对，漏录的杠请先补录 / options.{name}: at most {most} indicators (one, and one a kong: the record "
                    f"has {kongs}), got {len(given)}")
    return None


def record_options(hand: dict[str, Any], read: dict[str, Any]) -> dict[str, Any]:
    """Scoring options of a win read that the play record shows: 倍打 (`double`: the dealer kept
    the deal), 竞技 包付 (`baofu`: three claims in a row between the winner and one seat, either
    way round), 杠上炮 (`after_kong`: the discard won on followed the discarder's kong), 四川
    定缺 (`missing_suit`: the suit the winner named), 南宁 封胡 (`sealed`: the seat that fed
    the winner three pungs) and riichi's 立直, 两立直 and 一发 (`riichi`, `double_riichi`, `ippatsu`: keyed
    declarations), 本场 (`honba`: counted by the session, `seating.coming`), 包 (`pao`: `state._pao`) and the
    点杠's discarder of a 杠上开花 (`kong_feeder`, 广东 杠爆全包)."""
    opts: dict[str, Any] = {}
    seat = read.get("seat_wind", read.get("winner"))
    if hand.get("double"):
        opts["double"] = True
    if hand.get("honba"):
        opts["honba"] = hand["honba"]
    liable = (hand.get("pao") or {}).get(seat)
    if liable:  # 包 (riichi): the seat that fed the last dragon or wind set pays for 大三元 / 大四喜
        opts["pao"] = liable["seat"]
    gone = (hand.get("missing") or {}).get(seat)
    if gone:
        opts["missing_suit"] = gone
    declared = (hand.get("riichi") or {}).get(seat)
    if declared:  # 立直; 一发 while the seat has not discarded since and nobody has called
        opts["riichi"] = True
        mine = (hand.get("discards") or {}).get(seat) or []
        if mine and mine[0]["seq"] == declared["discard_seq"] and hand.get("first_call", declared["discard_seq"]) \
                >= declared["discard_seq"]:  # 两立直: with the seat's first discard, nobody having called before it
            opts["double_riichi"] = True
        if mine and mine[-1]["seq"] == declared["discard_seq"] and hand.get("last_call", 0) < declared["discard_seq"]:
            opts["ippatsu"] = True
    for feeder, claimer in hand.get("sealed", []):
        if seat == claimer:
            opts["sealed"] = feeder  # 南宁 封胡: the seat that fed the winner three pungs pays for it
    for claimer, feeder in hand.get("bao", []):
        if seat == claimer:
            opts["baofu"] = feeder
        elif seat == feeder:
            opts["baofu"] = claimer
    exposed, added = _kong_bloom_paid_by_one(str(hand.get("ruleset", "")))
    feeder = kong_feeder(hand, seat, added=added) if exposed else None
    if feeder and read.get("win") in ("self_draw", "kong_replacement"):
        opts["kong_feeder"] = feeder  # 杠爆全包: the 点杠's discarder (or the 补杠's pung's), for a 杠上开花
    discarder = read.get("discarder")
    pool = (hand.get("discards") or {}).get(discarder) or []
    if read.get("win", "discard") == "discard" and pool and pool[-1].get("tile") == read.get("win_tile") \
            and pool[-1].get("after_kong"):
        opts["after_kong"] = True
    return opts


def _kong_bloom_paid_by_one(ruleset: str) -> tuple[bool, bool]:
    """Whether the ruleset has a 点杠's 杠上开花 paid by its discarder alone (`[scoring] kong_bloom_pays_all`), and
    a 补杠's by the seat that fed its pung (`added_kong_bloom_pays_all`, 南宁-style)."""
    from table_controller.scoring import ScoringError
    from table_controller.scoring.config import scoring

    try:
        table = scoring(ruleset)
    except ScoringError:  # a ruleset the referee scores
        return False, False
    return bool(table.get("kong_bloom_pays_all")), bool(table.get("added_kong_bloom_pays_all"))


def kong_feeder(hand: dict[str, Any], seat: Any, *, added: bool = False) -> str | None:
    """The seat whose discard `seat` just konged (点杠, a 明杠 claimed), while the kong's replacement is the
    tile in play: its 杠上开花 may be that seat's alone to pay (广东 杠爆全包). After a 补杠, with `added`, the seat
    whose discard made the pung (the record keeps the pung's claim); else None, as after a 暗杠."""
    if hand.get("kong_by") != seat or hand.get("kong_flower"):
        return None
    melds = (hand.get("melds") or {}).get(seat) or []
    just_added = next((m for m in melds if m.get("added_seq") and m.get("added_seq") == hand.get("play_seq")), None)
    if just_added is not None:  # a 补杠 made just now: its pung lies where it was claimed, not last
        fed = just_added.get("from")
        return str(fed) if added and fed in SEATS and fed != seat else None
    last = melds[-1] if melds else {}
    if last.get("type") != "kong" or last.get("concealed") or last.get("added_seq") or last.get("from") not in SEATS:
        return None
    return str(last["from"])


def record_win(hand: dict[str, Any], read: dict[str, Any]) -> str | None:
    """杠上开花 the record shows: a self-drawn win (`self_draw`) by the seat whose last play was a
    kong, before it discarded, won on the kong's replacement tile (`kong_replacement`); None when
    the record adds nothing. A flower drawn as the replacement and replaced in turn leaves it as read
    (国标 杠上开花 "不包括补花")."""
    seat = read.get("seat_wind", read.get("winner"))
    if read.get("win") == "self_draw" and seat in SEATS and hand.get("kong_by") == seat \
            and not hand.get("kong_flower"):
        return "kong_replacement"
    return None


def sealed_by(hand: dict[str, Any], seat: Any) -> str | None:
    """南宁 封胡: the seat `seat` fed three pungs, which bars `seat` from winning this hand; None if not sealed."""
    return next((claimer for feeder, claimer in hand.get("sealed", []) if feeder == seat), None)


def record_melds(hand: dict[str, Any], wind: str) -> list[dict[str, Any]]:
    """A seat's melds as the record holds them, in the scorer's JSON (docs/scoring.md)."""
    return [{"type": "chi" if m["type"] == "chow" else m["type"], "tiles": list(m["tiles"]),
             "concealed": bool(m.get("concealed")), **({"from": m["from"]} if m.get("from") else {})}
            for m in (hand.get("melds") or {}).get(wind, [])]


def draw_record(hand: dict[str, Any], seat: str) -> dict[str, Any]:
    """What the record knows of a seat at 荒牌 on a riichi table, for its settlement's local rules: its keyed
    立直 (`riichi`, 不听立直) and its river (`river`, the tiles it discarded, and `river_called`, one of them
    claimed: 流し满贯). Nothing on other tables."""
    if not hand.get("riichi_declarations"):
        return {}
    river = (hand.get("discards") or {}).get(seat) or []
    return {**({"riichi": True} if seat in (hand.get("riichi") or {}) else {}),
            "river": [str(d["tile"]) for d in river if d.get("tile")],
            "river_called": any(d.get("claimed") for d in river)}


def exhaustive_due(s: "TableState") -> bool:
    """Whether the hand in play ended at the wall's end with seats still to check (查叫): ended as a draw
    (荒牌), or, where play goes on after a win (血战, 血流), ended as a win with the wall exhausted and two
    seats or more still playing (血战: those that have not won; 血流: all four). The wall's end, not its
    last tile going to a winner, is what checks them: a 海底 or a last discard won on leaves the others to
    查叫 (seed 000: 血战 goes on "摸完最后一张牌"). Before, such a hand ended 和牌 was refused (本盘不是荒牌)."""
    hand = s.hand
    if hand is None or not hand.get("ended"):
        return False
    ended = next((h for h in reversed(s.hands) if h["hand_no"] == hand["hand_no"]), None)
    if ended is None or ended.get("result") not in ("draw", "win"):
        return False
    if ended["result"] == "draw":
        return True
    if flow_of(s.ruleset).continue_after_win not in ("blood_battle", "blood_river"):
        return False
    if not confirmed_wins(s.actions, hand["hand_no"]) or hand.get("tiles_left") != 0:
        return False
    return len([w for w in SEATS if w not in out_seats(s.ruleset, s.actions, hand["hand_no"])]) > 1


def _exhaustive(s: "TableState", d: dict[str, Any], record: dict[str, Any]) -> None:
    """查叫 at 荒牌 (四川 查花猪, 查大叫, 退税): the seats still playing show their 13 tiles, the
    scorer settles among them. `hands`: seat -> {"concealed": tiles} (melds from the record
    unless given; `options.missing_suit` for 定缺, else the 定缺 keyed in the hand). A newer ruling
    replaces an older one."""
    hand = s.hand
    if hand is None or not hand.get("ended"):
        raise RefereeError("查叫在荒牌结束本盘之后 / 查叫 comes after the hand ends in a draw")
    if not exhaustive_due(s):
        raise RefereeError("本盘不是荒牌 / the hand did not end in a draw")
    playing = [w for w in SEATS if w not in out_seats(s.ruleset, s.actions, record["hand_no"])]
    given = d.get("hands")
    if not isinstance(given, dict) or sorted(given) != sorted(playing):
        raise ScoringError("bad_field", f"须给出仍在牌局中各家的手牌：{'、'.join(playing)} / "
                           f"give the hands of {', '.join(playing)}", "hands")
    hands = {}
    for seat in playing:
        one = given[seat]
        if not isinstance(one, dict):
            raise ScoringError("bad_field", "手牌须为对象 / a hand is an object", f"hands.{seat}")
        hands[seat] = {"seat_wind": seat, "prevalent_wind": hand.get("prevalent_wind", "E"),
                       "melds": record_melds(hand, seat), **one}
        gone = (hand.get("missing") or {}).get(seat)
        if gone:  # the 定缺 keyed during the hand, unless the ruling names it
            given_opts = one.get("options") if isinstance(one.get("options"), dict) else {}
            hands[seat]["options"] = {"missing_suit": gone, **given_opts}
        known = draw_record(hand, seat)
        if known and seat in stopped_seats(s.actions, hand["hand_no"]):
            known["dead_hand"] = True  # 和了放弃 (dead hand, WRC 7.1): 不听 whatever it shows
        if known and isinstance(hands[seat].get("options", {}), dict):  # the record's, not what the form says
            hands[seat]["options"] = {**hands[seat].get("options", {}), **known}
    kept = settlements.kept(d)  # as ruled: a ruleset or scorer changed since changes no old 查叫
    try:
        now = _exhaustive_now(s, hands)
    except (RefereeError, ScoringError) as exc:
        if kept is None:
            raise
        now = {"valid": False, "message": str(exc)}
    got = now if kept is None else {f: kept.get(f, now.get(f)) for f in settlements.EXHAUSTIVE_FIGURES}
    pays = settlements.paid(got["by_wind"])
    record.update(hands=hands, flower_pigs=got["flower_pigs"], ready=got["ready"],
                  not_ready=got["not_ready"], refunds=got["refunds"], by_wind=pays,
                  deltas=position_deltas(hand, pays))
    if kept is not None:
        record["recorded"] = True
        differs = settlements.differs(kept, now)
        if differs:
            record["rescored"] = differs  # today's rules would settle it so: `tablectl check` names it


def _exhaustive_now(s: "TableState", hands: dict[str, Any]) -> dict[str, Any]:
    """A 查叫's settlement as today's ruleset and scorer make it: `settlements.EXHAUSTIVE_FIGURES`."""
    from table_controller.scoring import exhaustive_settlement

    assert s.hand is not None
    kongs = [dict(k["by_wind"]) for k in s.hand.get("kong_payments", [])]
    for k in kongs:  # a payment names only the seats that moved: the scorer wants them summing to zero
        if sum(k.values()):
            raise RefereeError("杠分记录不平 / a kong payment does not sum to zero")
    settled = exhaustive_settlement(s.ruleset, hands, kongs)
    if settled is None:
        raise RefereeError("本规则荒牌不查叫 / this ruleset settles nothing at a draw")
    return {"by_wind": {w: int(v) for w, v in settled["payments"].items() if v}, "flower_pigs": settled["flower_pigs"],
            "ready": settled["ready"], "not_ready": settled["not_ready"], "refunds": settled["refunds"]}


def exhaustive(actions: list[dict[str, Any]], hand_no: int | None) -> dict[str, Any] | None:
    """The hand's standing 查叫 ruling (the newest not undone), or None."""
    done = [a for a in active(actions, "referee.exhaustive", hand_no) if not a.get("error")]
    return done[-1] if done else None


#: Why 竞技's stacks forbid a win (seed 004 三十二, 三十六, 三十八(一)5), for `jingji.win_refusal`.
_REFUSALS = {
    "no_points_payer": "盘面无分者点炮，禁止和牌 / the discarder has no points left: no win on its discard",
    "non_winning_end": "此和牌将使局结而和牌方不是第一名，禁止和牌 / this win would end the session "
                       "without the winner first",
}


def _stacks_refuse(s: "TableState", read: dict[str, Any], payments: dict[str, int]) -> str | None:
    """Where the ruleset plays from stacks (竞技), why they forbid this win paying `payments`, or None."""
    from types import SimpleNamespace

    from table_controller.scoresheet import compute, stack_of

    if s.hand is None or stack_of(s.ruleset) is None:
        return None
    from table_controller.scoring import jingji

    rows = compute(s)["rows"]
    seats = s.hand.get("seats") or {w: i + 1 for i, w in enumerate(SEATS)}
    by_wind = {w: rows[-1]["stacks"][str(seats[w])] for w in SEATS} if rows and "stacks" in rows[-1] else None
    if by_wind is None:
        return None
    result = SimpleNamespace(valid=True, payments=payments)
    why = jingji.win_refusal(by_wind, result, read["hand"].get("discarder"))  # type: ignore[arg-type]
    return _REFUSALS.get(why or "", why)


def undo_target_refusal(s: "TableState", target: Any) -> str | None:
    """Why `target` names nothing an undo can take, whatever came last: an undo (to have what it undid
    back, that action is taken again), a refused action not the last (it had no effect; the last one is
    undone as before, marked so: the page names it, and the next undo then reaches the one before), a
    play (put right by a correction), nothing in the record; None for an action an undo takes (or no
    target: the last).
    Said so that the referee is not told only that it is not the last action, as if one came after."""
    if target is None:
        return None
    seq = int(target)
    named = next((a for a in s.actions if a["seq"] == seq), None)
    if named is None:
        play = s.hand_events.find(seq) if s.hand is not None else None
        if play is not None and play.type.startswith("play."):
            from table_controller.state import describe

            return (f"#{seq}（{describe(play)}）是行牌记录，不是裁判操作：记错的行牌请用更正牌谱 / "
                    f"#{seq} is a play, not a referee action: correct it (referee.play_correct)")
        return f"#{seq} 不是可撤销的裁判操作：记录中没有这一项 / #{seq} is no referee action to undo"
    if named["type"] == "referee.undo":
        undone = next((a for a in s.actions if a["seq"] == named.get("target")), None)
        what = f"撤销 #{named.get('target')}" + (f" {ACTION_ZH.get(undone['type'], undone['type'])}" if undone else "")
        return (f"#{seq} 这是一次撤销（{what}），不能再撤销；要恢复被撤销的操作，请重新做一次 / "
                f"#{seq} is an undo (of #{named.get('target')}): an undo cannot be undone; take that action again")
    if named["type"] not in UNDOABLE:
        return (f"#{seq}（{ACTION_ZH.get(named['type'], named['type'])}）不能撤销 / "
                f"#{seq} ({named['type']}) cannot be undone")
    if named.get("error") and named is not last_undoable(s.actions):
        # the last one, refused, is undone as before (no effect): the page names it, and a log's undo of it folds as it did
        return (f"#{seq}（{ACTION_ZH.get(named['type'], named['type'])}）未被接受，没有生效，无需撤销 / "
                f"#{seq} was refused: it had no effect, nothing to undo")
    return None


#: A hand's result as the referee rules it: settled once the next hand has started (`settled_undo`).
RESULTS = ("referee.win_read", "referee.win_confirm", "referee.exhaustive")


def settled_undo(s: "TableState", d: dict[str, Any]) -> str | None:
    """Why an undo of a hand's win read, win confirmation, 查叫, a penalty that had it dealt again (`redeal`:
    riichi's 错和, the hand ended 中止 on it) or a correction of its plays (`corrections.closed_undo`) is refused
    once that hand has ended and the next has started: the dealer rotation, the next hand's dealer and the
    scores rest on it. Another penalty only moves points, and is undone as before. Before, the confirmation
    was undone: the ended hand's row went to 和牌（待确认） at 0 points while the next was played, with no way
    to confirm it again (a read goes to the hand in play). Only for an undo being taken (`refuse_new`): one in
    a log folds as it did."""
    from table_controller import corrections

    last = last_undoable(s.actions)
    if last is None or last.get("error") or last.get("hand_no") is None:
        return None
    if d.get("target") is not None and str(d["target"]) != str(last["seq"]):
        return None  # not the one to undo: said by `undo_target_refusal`, `_undo`
    if last["type"] == corrections.TYPE:
        return corrections.closed_undo(s, last)
    settles = last["type"] in RESULTS or last["type"] == "referee.penalty" and last.get("redeal")
    if not settles or s.hand is None or s.hand["hand_no"] == last["hand_no"]:
        return None
    from table_controller.tiles import tile_name

    no, now = last["hand_no"], s.hand["hand_no"]
    who = seat_name(str(last["seat"])) if last.get("seat") in SEATS else "?"
    if last["type"] == "referee.win_confirm":
        how = "自摸" if last.get("win_kind") == "self_draw" or not last.get("win_tile") \
            else f"和{tile_name(str(last['win_tile']))}"
        what, what_en = f"第 {no} 盘的确认和牌（{who}家{how}）", f"hand {no}'s confirmed win, {last.get('seat')}"
    elif last["type"] == "referee.win_read":
        what, what_en = f"第 {no} 盘的和牌读牌（{who}家）", f"hand {no}'s win read, {last.get('seat')}"
    elif last["type"] == "referee.penalty":  # one that had the hand dealt again (riichi's 错和): 中止 rests on it
        what = f"第 {no} 盘的罚分（{who}家{last.get('name_zh') or last.get('code')}，本盘作废重打）"
        what_en = f"hand {no}'s penalty on {last.get('seat')} that had it dealt again"
    else:
        what, what_en = f"第 {no} 盘的查叫", f"hand {no}'s check of hands at the draw"
    return (f"上一手已结束（第 {now} 盘已开始），不能再撤销：#{last['seq']} 是{what}，那一盘的结果已定："
            f"庄家轮转、第 {now} 盘的庄家和各家得分都以它为准 / hand {no} has ended and hand {now} has started: "
            f"#{last['seq']} ({what_en}) can no longer be undone: the dealer rotation, hand {now}'s dealer "
            "and the scores rest on it")


def _undo(s: "TableState", d: dict[str, Any], record: dict[str, Any]) -> None:
    reason = str(d.get("reason", "")).strip()
    if not reason:
        raise RefereeError("撤销须说明理由 / an undo needs a reason")
    why = undo_target_refusal(s, d.get("target"))
    if why:
        raise RefereeError(why)
    target = last_undoable(s.actions)
    if target is None:
        raise RefereeError("没有可撤销的裁判操作 / nothing to undo")
    if d.get("target") is not None and int(d["target"]) != target["seq"]:
        raise RefereeError(f"只能撤销最后一次裁判操作（#{target['seq']}）/ only the last action can be undone")
    record.update(target=target["seq"], reason=reason[:200], target_type=target["type"])
    if target["type"] == "referee.round_start" and not target.get("error"):
        from table_controller.rounds import reopen

        reopen(s, target)  # the round it closed (or the players it replaced) come back
    if target["type"] == "referee.win_confirm" and s.hand is not None and target.get("hand_no") == s.hand["hand_no"]:
        from table_controller.state import undo_win

        undo_win(s.hand, target.get("restore"))
    s.actions = [({**a, "undone": True, "undo": {"seq": record["seq"], "reason": record["reason"],
                                                 "by": record["by"], "at": record["at"]}}
                  if a["seq"] == target["seq"] else a) for a in s.actions]


def visible_tiles(hand: dict[str, Any] | None, win: dict[str, Any]) -> dict[str, int]:
    """Tiles seen on the table outside the winner's hand (for 和绝张): every discard still in the
    pool and the other seats' exposed melds (a claimed discard is counted once, in its meld). The
    discard being won on is the winning tile itself, not one of the others."""
    seen: dict[str, int] = {}
    if not hand:
        return seen
    winner = win.get("seat_wind", win.get("winner"))
    for pool in (hand.get("discards") or {}).values():
        for d in pool:
            if not d.get("claimed") and d.get("tile"):
                seen[d["tile"]] = seen.get(d["tile"], 0) + 1
    for seat, melds in (hand.get("melds") or {}).items():
        if seat == winner:
            continue
        for m in melds:
            if not m.get("concealed"):
                for tile in m.get("tiles", []):
                    seen[tile] = seen.get(tile, 0) + 1
    pool = (hand.get("discards") or {}).get(win.get("discarder")) or []
    tile = win.get("win_tile")
    robbed = win.get("win") == "rob_kong" and any(
        m.get("type") == "kong" and m.get("added_seq") and (m.get("tiles") or [None])[0] == tile
        for m in (hand.get("melds") or {}).get(win.get("discarder")) or [])
    if robbed or (win.get("win") == "discard" and pool and pool[-1]["tile"] == tile and not pool[-1]["claimed"]):
        # the discard won on, or the tile a robbed 补杠 added (the record shows the kong until the
        # win is confirmed, state._rob_kong): the winning tile itself, not one of the other three
        seen[tile] -= 1
        if not seen[tile]:
            del seen[tile]
    return seen


def session_ended_at(actions: list[dict[str, Any]]) -> float | None:
    """When the referee ended this round's session (结束比赛), or None while it goes on: the first end
    after the last start of the session clock, or the first end where no clock was started. A hall
    timed by the chief referee's own clock ends each table's session without the table's clock ever
    running; before, that end was taken and did nothing (the next hand could start, no appeal window)."""
    marks = [a for a in active(actions) if a["type"] in ("referee.session_start", "referee.session_end")
             and not a.get("error")]
    starts = [i for i, a in enumerate(marks) if a["type"] == "referee.session_start"]
    ends = [a for a in marks[(starts[-1] + 1 if starts else 0):] if a["type"] == "referee.session_end"]
    return float(ends[0]["at"]) if ends else None


def session(actions: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The session clock from the last start that is not undone, its end if one followed, and the
    time it stood still (the referee's pauses: a table jam, a player taken ill): `paused_s` of
    the pauses ended, `paused_since` while one lasts."""
    starts = [a for a in active(actions, "referee.session_start") if not a.get("error")]
    if not starts:
        return None
    start = starts[-1]
    pauses: list[dict[str, Any]] = []
    for a in actions:
        if a["seq"] <= start["seq"] or a.get("undone") or a.get("error"):
            continue
        if a["type"] == "referee.clock_pause":
            pauses.append({"at": a["at"], "until": None, "reason": a.get("reason", "")})
        elif a["type"] == "referee.clock_resume" and pauses and pauses[-1]["until"] is None:
            pauses[-1]["until"] = a["at"]
    open_ = pauses[-1]["at"] if pauses and pauses[-1]["until"] is None else None
    return {"started_at": start["at"], "minutes": start["minutes"], "warnings_min": start["warnings_min"],
            "ended_at": session_ended_at(actions), "seq": start["seq"], "pauses": pauses,
            "paused_s": round(sum(p["until"] - p["at"] for p in pauses if p["until"] is not None), 3),
            "paused_since": open_}


def _clock(s: "TableState", type: str, d: dict[str, Any], record: dict[str, Any]) -> None:
    """Stop or restart the session clock: only a running session's, and in turn."""
    clock = session(s.actions)
    if clock is None or clock["ended_at"] is not None:
        raise RefereeError("比赛计时未在进行 / the session clock is not running")
    if type == "referee.clock_pause":
        if clock["paused_since"] is not None:
            raise RefereeError("比赛计时已暂停 / the session clock is paused already")
        record["reason"] = str(d.get("reason", ""))[:200]
    elif clock["paused_since"] is None:
        raise RefereeError("比赛计时未暂停 / the session clock is not paused")


def refuse_new(s: "TableState", type: str, data: dict[str, Any]) -> None:
    """Refusals made after logs were kept (a harmed seat on a penalty that pays none, one player in
    two chairs, a start of a running clock, an appeal naming no ruling), for an action being accepted
    (`validate`), never for a recorded one being folded: an old log holding such an action (taken
    then, with its effect) folds to the history it had. Raises `PenaltyError` (422) or
    `RefereeError` (409), as the fold does."""
    if type == "referee.penalty":
        # a harmed seat on a penalty that pays none was kept unpaid (受损方 left set from 暴露他人手牌)
        entry = next((p for p in catalogue(s.ruleset).items if p.code == data.get("code")), None)
        if data.get("victim") is not None and entry is not None and entry.pays != "victim":
            raise PenaltyError(f"{entry.name_zh}：不付给受损方，不能指定受损方 / "
                               "this penalty pays no harmed seat (victim)")
    elif type == "referee.round_start":
        from table_controller.rounds import seated_twice

        why = seated_twice(data)
        if why:
            raise PenaltyError(why)
        # the round closed with its last hand's win unconfirmed: a 0-point 和牌（待确认） row, and final
        waiting = win_waiting(s, "开始新一轮", "start a new round")
        if waiting:
            raise RefereeError(waiting)
    elif type == "referee.session_start":
        # a second start while the clock runs started it afresh: the full time again, the pauses gone
        running = session(s.actions)
        if running and running["ended_at"] is None:
            raise RefereeError(f"比赛计时已在进行（#{running['seq']}），不能重新开始；改时长请先撤销开始计时 / "
                               "the session clock is running: undo its start to change it")
    elif type == "referee.win_confirm" and s.hand is not None:
        # the fold keeps a confirmed win whatever today's [flow] says (`_win_confirm`); a new one must fit it
        read = current_read(s.actions, s.hand["hand_no"])
        wins = confirmed_wins(s.actions, s.hand["hand_no"])
        if read is not None and all(w.get("read_seq") != read["seq"] for w in wins):
            why = further_win_refusal(s.ruleset, wins, read) or _stopped_since_read(s, read)
            if why:
                raise RefereeError(why)
    elif type == "referee.appeal":
        from table_controller.appeals import AppealError, unappealable

        why = unappealable(s, data.get("target"))
        if why:
            raise AppealError(why)
    if type in ("referee.play_correct", "referee.undo"):
        # the hand as corrected (or as recorded again) must still fit the rules of play; a correction, a win
        # or a 查叫 of a hand that has ended, the next having started, is not undone (its record is settled)
        from table_controller.corrections import refusal
        from table_controller.state import _step

        why = (settled_undo(s, data) if type == "referee.undo" else None) or refusal(s, type, data, _step)
        if why:
            raise RefereeError(why)


def _stopped_since_read(s: "TableState", read: dict[str, Any]) -> str | None:
    """Why read `read` cannot be confirmed: its seat was ruled out of winning this hand (停和, 相公, 诈和:
    `stops_win`) after it was read. A read after such a ruling is scored invalid (`_win_read`); one read
    before it was confirmed all the same, the seat paying for the offence and paid for the win."""
    stop = next((a for a in active(s.actions, "referee.penalty", read.get("hand_no"))
                 if a.get("stops_win") and not a.get("error") and a.get("seat") == read.get("seat")
                 and a["seq"] > read["seq"]), None)
    if stop is None:
        return None
    return (f"{seat_name(stop['seat'])}家已被判{stop['name_zh']}（#{stop['seq']}），本盘不得和牌，不能确认和牌；"
            f"判罚有误请先撤销该判罚 / {stop['seat']} was ruled {stop['name_en']} (#{stop['seq']}) after this read: "
            "no win this hand; undo that ruling if it was wrong")


def validate(s: "TableState", type: str, data: dict[str, Any], at: float | None = None) -> None:
    """Refuse before logging what the fold would record as refused (the API answers 409/422 instead),
    and what only a new action is refused (`refuse_new`). `at`: when it is taken (the log's clock;
    default the last event's), for what depends on the time, an appeal's window."""
    refuse_new(s, type, data)
    when = at if at is not None else (s.last_at or 0.0)
    probe = Event(seq=s.seq + 1, at=when, source="referee", type=type, data=data)
    trial = _shallow(s)
    apply_referee(trial, probe)
    error = trial.actions[-1].get("error")
    if error:
        raise (PenaltyError if trial.actions[-1]["error_kind"] == "input" else RefereeError)(error)


def confirm_refusal(s: "TableState", hand: dict[str, Any]) -> str | None:
    """Why a win read now as `hand` would not be confirmed, or None: the read refused or no win, or its
    confirmation refused (竞技's stacks: 盘面无分者点炮, 禁止非胜式和牌局结; a winner the flow does not take).
    The demo's players know the rules: they do not lay down a win the referee must refuse (they did, and
    the demo stopped the hand as 荒牌 with the wall still standing and the read left unconfirmed)."""
    when = s.last_at or 0.0
    trial = _shallow(s)
    apply_referee(trial, Event(seq=s.seq + 1, at=when, source="demo", type="referee.win_read", data={"hand": hand}))
    read = trial.actions[-1]
    if read.get("error"):
        return str(read["error"])
    result = read.get("result") or {}
    if not result.get("valid"):
        return str(result.get("message") or result.get("reason") or "no win")
    trial.seq = s.seq + 1
    try:
        validate(trial, "referee.win_confirm", {}, at=when)
    except (RefereeError, PenaltyError) as exc:
        return str(exc)
    return None


def _shallow(s: "TableState") -> "TableState":
    import copy

    from table_controller.state import copy_hand

    trial = copy.copy(s)
    trial.hand = copy_hand(s.hand) if s.hand is not None else None
    return trial

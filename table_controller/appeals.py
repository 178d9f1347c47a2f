"""Appeals (申诉): a player's written appeal against a referee's ruling, and the arbitration
committee's decision on it (seed 000 九、申诉及处理).

"运动员可对裁判员在其比赛桌上所做的任何裁决，有提出申诉的权利 … 必须在本局比赛结束后30分钟的有效时限内，
以书面形式提出 … 仲裁委员会可行使本《规则》赋予裁判长的一切权力进行复核、裁决。" The referee keys the
appeal as the player hands it in (`referee.appeal`) and, later, the committee's decision
(`referee.appeal_ruling`: upheld or dismissed, with its reasons). An upheld appeal changes the
record only through the rulings the referee then makes (an undo, a new penalty): the appeal and
its decision stay in the record beside them. Pure functions over the fold's referee actions.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from table_controller.referee import ACTION_ZH, RefereeError

if TYPE_CHECKING:
    from table_controller.state import TableState


class AppealError(RefereeError):
    """An appeal or a decision the rules refuse; the message says why, Chinese first."""


def appeals(actions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every appeal not undone, oldest first, each with the committee's decision (`ruling`, None
    while it waits)."""
    live = [a for a in actions if not a.get("undone") and not a.get("error")]
    rulings = {a["appeal"]: a for a in live if a["type"] == "referee.appeal_ruling"}
    out = []
    for a in live:
        if a["type"] != "referee.appeal":
            continue
        r = rulings.get(a["seq"])
        out.append({"seq": a["seq"], "at": a["at"], "position": a["position"], "player": a["player"],
                    "target": a.get("target"), "target_what": a.get("target_what", ""), "text": a["text"],
                    "by": a["by"], "by_name": a.get("by_name", ""),
                    "ruling": None if r is None else {"seq": r["seq"], "at": r["at"], "upheld": r["upheld"],
                                                      "note": r["note"], "by": r["by"], "by_name": r.get("by_name", "")}})
    return out


def standing(s: "TableState") -> list[dict[str, Any]]:
    """The appeals the table shows, counts as waiting (the hub) and takes decisions on: every appeal of
    the round (轮次) being played, and an earlier round's still waiting for the committee or decided
    during this round; each with its `round`. The window (30 minutes after the session) outlasts a
    tournament's break before the next round: before, an appeal keyed at round 1's end went with the
    round when round 2 started, its decision was refused (没有申诉 #n) and the hub stopped listing it."""
    kinds = ("referee.appeal", "referee.appeal_ruling")
    earlier = [(r["round"], a) for r in s.rounds for a in r.get("actions", ()) if a["type"] in kinds]
    round_of = {a["seq"]: number for number, a in earlier}
    here = {a["seq"] for a in s.actions if a["type"] in kinds}
    return [{**a, "round": round_of.get(a["seq"], s.round)}
            for a in appeals([a for _, a in earlier] + s.actions)
            if a["seq"] in here or a["ruling"] is None or a["ruling"]["seq"] in here]


def round_ended_at(s: "TableState") -> float | None:
    """When this round's session ended: the referee's 结束比赛, or the last hand once the session's
    hands are all played; None while it goes on."""
    from table_controller.referee import session_ended_at
    from table_controller.seating import for_state

    ended = session_ended_at(s.actions)
    if ended is not None:
        return ended
    if s.hands and (s.hand is None or s.hand.get("ended")) and for_state(s).over:
        return float(s.hands[-1]["ended_at"])
    return None


#: Referee actions that are no ruling (裁决) of a dispute: the session clock and a round's players
#: are the schedule the referee keeps. A complaint about them is an appeal on a related matter
#: (相关事宜, seed 000 九 2), without a number.
NOT_RULINGS = frozenset({"referee.session_start", "referee.session_end", "referee.clock_pause",
                         "referee.clock_resume", "referee.round_start"})


def unappealable(s: "TableState", target: Any) -> str | None:
    """Why a new appeal cannot name action `target`: it is no ruling (seed 000 九 1: "对裁判员…所做的
    任何裁决"); None otherwise. Checked when an appeal is taken (`referee.refuse_new`), not in the
    fold: an appeal an older version took against the clock's start stands in its log."""
    named = next((a for a in s.actions if a["seq"] == target), None)
    if named is None or named["type"] not in NOT_RULINGS:
        return None
    return (f"#{target}（{ACTION_ZH[named['type']]}）不是裁判的裁决，不能针对它申诉；对计时、轮次等相关事宜的申诉"
            f"请不填编号，写明内容 / #{target} is no ruling ({named['type']}): appeal it as a related matter, "
            "without a number")


def appeal(s: "TableState", d: dict[str, Any], record: dict[str, Any], at: float, window_min: float | None) -> None:
    """Record a player's appeal: the player by chair (抽签号位), what it is against (a referee
    action's number, or none: 相关事宜), and its text; within `window_min` minutes of the round's end."""
    try:
        position = int(d.get("position"))  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise AppealError("须指定申诉的选手（1–4号位）/ position must be the appellant's chair 1..4") from None
    if position not in (1, 2, 3, 4):
        raise AppealError("须指定申诉的选手（1–4号位）/ position must be the appellant's chair 1..4")
    text = str(d.get("text", "")).strip()
    if not text:
        raise AppealError("申诉须以书面形式提出：请写明申诉内容 / an appeal is in writing: give its text")
    target = d.get("target")
    what = ""
    if target is not None:
        ruled = next((a for a in s.actions if a["seq"] == target and a["type"].startswith("referee.")
                      and a["type"] not in ("referee.appeal", "referee.appeal_ruling")), None)
        if ruled is None:
            raise AppealError(f"#{target} 不是裁判的裁决 / #{target} is not a referee's ruling")
        what = str(ruled.get("name_zh") or ACTION_ZH.get(ruled["type"], ruled["type"]))  # not "referee.session_start"
    ended = round_ended_at(s)
    if window_min is not None and ended is not None and at > ended + window_min * 60:
        raise AppealError(f"申诉须在本局比赛结束后 {window_min:g} 分钟内提出，已超过时限 / appeals close "
                          f"{window_min:g} minutes after the session")
    record.update(position=position, player=s.players.get(position, ""), target=target, target_what=what,
                  text=text[:500])


def ruling(s: "TableState", d: dict[str, Any], record: dict[str, Any]) -> None:
    """The arbitration committee's decision on a waiting appeal: upheld or dismissed, with reasons."""
    seq = d.get("appeal")
    waiting = next((a for a in standing(s) if a["seq"] == seq), None)
    if waiting is None:
        raise AppealError(f"没有申诉 #{seq} / no appeal #{seq}")
    if waiting["ruling"] is not None:
        raise AppealError(f"申诉 #{seq} 已裁决 / appeal #{seq} has its decision already")
    if not isinstance(d.get("upheld"), bool):
        raise AppealError("裁决须说明是否支持申诉（upheld: true/false）/ say whether the appeal is upheld")
    note = str(d.get("note", "")).strip()
    if not note:
        raise AppealError("裁决须写明理由 / a decision gives its reasons")
    record.update(appeal=seq, upheld=d["upheld"], note=note[:500])

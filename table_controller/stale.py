"""Two referees, one table: an action taken on a view that another action has since changed.

The floor referee and the head referee (or one referee's tablet and phone) may both have the referee
page open. Each page acts on what it shows; when another page changed that same thing in between (a
win read corrected, a play corrected or its correction undone, a substitute seated in the chair), the
action would silently act on something its referee never saw: confirm the other referee's read, put
a correction on top of one it did not know of, replace a substitute just seated. The page sends the
log position its view was at (`seen`, the state's `seq`); an action on something changed after it is
refused, naming what changed, who and when (409 through `Controller.referee_action`): a read, a
confirmation, a 诈和 or 查叫 when the hand's outcome changed since (one of those); a correction when
that play's corrections did; a substitute when that chair's did; a new round (or its seating corrected)
when another page started or corrected one. Without `seen` (a script, an older
page) nothing is checked, as before.

An undo names its target already, and a decision on an appeal its appeal: their refusals say here what
happened since instead of only that they were refused. Pure: the fold's referee actions in, words out.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from table_controller.referee import ACTION_ZH, UNDOABLE, last_undoable, undo_target_refusal

if TYPE_CHECKING:
    from table_controller.state import TableState

#: What a win read or its confirmation acts on: the hand's reads and confirmations.
WIN = frozenset({"referee.win_read", "referee.win_confirm"})
WHO_ZH = {"referee": "裁判", "operator": "操作员"}


def _named(a: dict[str, Any], actions: list[dict[str, Any]]) -> str:
    """`#21 读牌（裁判 张三 10:31:05）`: an action as the referee's record lists it."""
    name = a.get("name_zh") or ACTION_ZH.get(a["type"], a["type"])
    if a["type"] == "referee.undo":
        undone = next((x for x in actions if x["seq"] == a.get("target")), None)
        name += f" #{a.get('target')}" + (f" {ACTION_ZH.get(undone['type'], '')}" if undone else "")
    who = " ".join(p for p in (WHO_ZH.get(str(a.get("by")), str(a.get("by") or "")), a.get("by_name") or "") if p)
    return f"#{a['seq']} {name}（{who} {time.strftime('%H:%M:%S', time.localtime(float(a['at'])))}）"


def _false_win(type: str, data: dict[str, Any]) -> bool:
    """A 诈和 ruled (`false_win`, 四川's `false_win_deliberate`): the Win page's 判诈和, on the read it shows."""
    return type == "referee.penalty" and str(data.get("code", "")).startswith("false_win")


def _touches(s: "TableState", type: str, data: dict[str, Any], a: dict[str, Any]) -> bool:
    """Whether logged action `a` (not an undo) changed what an action `type` with `data` acts on."""
    hand_no = s.hand["hand_no"] if s.hand else None
    if type == "referee.undo":  # one naming no target (the page showed nothing to undo) undoes the last
        return data.get("target") is None and a["type"] in UNDOABLE
    if type in WIN or type == "referee.exhaustive" or _false_win(type, data):
        # the hand's outcome: a read, a confirmation, a 诈和 ruled, 查叫
        return a.get("hand_no") == hand_no and (a["type"] in WIN or a["type"] == "referee.exhaustive"
                                                or _false_win(a["type"], a))
    if type == "referee.round_start":  # another page started the round, or corrected its seating
        return a["type"] == "referee.round_start"
    if type == "referee.substitute":
        return a["type"] == "referee.round_start" or (
            a["type"] == "referee.substitute" and str(a.get("position")) == str(data.get("position")))
    if type == "referee.play_correct" and a["type"] == "referee.play_correct":
        play = data.get("target") or data.get("insert_before") or data.get("insert_after")
        return play is not None and int(play) in {a.get("target"), a["seq"], (a.get("insert") or {}).get("anchor")}
    return False


def changed_since(s: "TableState", type: str, data: dict[str, Any], seen: int,
                  mine: frozenset[int] = frozenset()) -> str | None:
    """Why action `type` with `data`, taken on a view of the log up to `seen`, is refused: an action
    logged after `seen` (or an undo of one, whenever it was taken) changed what it acts on; or None.
    `mine`: the page's own actions after `seen` (answered, their events not on its socket yet): its
    referee knows them, so a confirmation pressed right after the page's own read is not refused."""
    by_seq = {a["seq"]: a for a in s.actions}
    for a in reversed(s.actions):
        if a["seq"] <= seen:
            break
        if a.get("error") or a["seq"] in mine:
            continue
        hit = (_touches(s, type, data, by_seq[a["target"]]) if a["type"] == "referee.undo" and a.get("target") in by_seq
               else _touches(s, type, data, a))
        if hit:
            return (f"未执行：你的页面显示之后，{_named(a, s.actions)}已改变了这一项；请看清现在的状态再操作 / "
                    f"not done: #{a['seq']} ({a['type']}) changed this after your page's view (#{seen}): look again")
    return None


def undo_refusal(s: "TableState", target: Any) -> str | None:
    """Why an undo of `target` (the last action the page showed) is refused, naming what happened
    since: it was undone already, or actions came after it; None when it is the one to undo."""
    if target is None:
        return None
    last = last_undoable(s.actions)
    why = undo_target_refusal(s, target)  # an undo, a play, a refused action: said as such
    if why:
        zh, _, en = why.partition(" / ")
        now = f"；现在最后一次裁判操作是 {_named(last, s.actions)}" if last else ""
        return f"未撤销：{zh}{now} / not undone: {en}" + (f"; the last one is #{last['seq']}" if last else "")
    if last is None or last["seq"] == int(target):
        return None
    named = next((a for a in s.actions if a["seq"] == int(target)), None)
    if named is None:
        return None
    if named.get("undone"):
        undo = next((a for a in s.actions if a["seq"] == (named.get("undo") or {}).get("seq")), None)
        by = _named(undo, s.actions) if undo else f"#{(named.get('undo') or {}).get('seq')}"
        return (f"未撤销：#{target} 已被撤销（{by}）；现在最后一次裁判操作是 {_named(last, s.actions)}，"
                f"它不是你看到的那一项 / not undone: #{target} was undone already; the last action now is "
                f"#{last['seq']}")
    return (f"未撤销：#{target} 之后又有 {_named(last, s.actions)}，只能撤销最后一次裁判操作；请看清后再撤销 / "
            f"not undone: #{last['seq']} came after #{target}: only the last action can be undone")


def ruled_already(s: "TableState", appeal: Any) -> str | None:
    """Why a decision on appeal `appeal` is refused when it has one: who decided it, when and how."""
    from table_controller.appeals import standing

    waiting = next((a for a in standing(s) if a["seq"] == appeal), None)
    if waiting is None or waiting["ruling"] is None:
        return None
    r = waiting["ruling"]
    done = next((a for a in s.actions if a["seq"] == r["seq"]), None)
    how = "支持" if r["upheld"] else "驳回"
    return (f"申诉 #{appeal} 已裁决：{how}（{_named(done, s.actions) if done else '#' + str(r['seq'])}：{r['note']}）；"
            f"要改判请先撤销该裁决 / appeal #{appeal} has its decision already (#{r['seq']}): undo it to change it")


def camera_ruled(s: "TableState", seq: Any) -> str | None:
    """Why a ruling on the camera's unsure reading `seq` is refused when another ruled on it: who, when,
    and as what, a tile or no tile (before: only "没有待确认的识牌", as if it had never been asked)."""
    from table_controller.referee import CAMERA_RULINGS

    done = next((a for a in reversed(s.actions) if a["type"] in CAMERA_RULINGS and not a.get("undone")
                 and not a.get("error") and a.get("camera_seq") == seq), None)
    if done is None:
        return None
    from table_controller.tiles import tile_name

    if done["type"] == "referee.camera_dismiss":
        return (f"识牌 #{seq} 已判为不是牌（{_named(done, s.actions)}）；要改请先撤销该裁决 / "
                f"camera reading #{seq} was ruled already (#{done['seq']}: not a tile): undo it to change it")
    return (f"识牌 #{seq} 已确认为 {tile_name(str(done.get('kind')))}（{_named(done, s.actions)}）；要改请先撤销该确认 / "
            f"camera reading #{seq} was ruled already (#{done['seq']}: {done.get('kind')}): undo it to change it")


def ended_already(s: "TableState") -> str | None:
    """Why a 结束比赛 is refused when the session has ended: two pages' presses were both logged, the
    second doing nothing but needing its own undo before the first could be (an undo reopened nothing)."""
    from table_controller.referee import session_ended_at

    if session_ended_at(s.actions) is None:
        return None
    end = next((a for a in s.actions if a["type"] == "referee.session_end" and not a.get("undone")
                and not a.get("error") and float(a["at"]) == session_ended_at(s.actions)), None)
    by = _named(end, s.actions) if end else "结束比赛"
    return (f"本局比赛已结束（{by}）；要继续请先撤销该结束 / the session has ended already"
            + (f" (#{end['seq']})" if end else ""))

"""The organiser's decisions on the day (组织者决定): a broken table left out of the seating, a
round ended at a table with the scores so far, a player who withdrew or is late left out of it.

Each decision is a row in the hub's own file (`decisions` in hub.sqlite3, kept in order, never
changed); what stands now is a fold over them (`fold`, pure), so a restarted hub shows and seats
as before, and the page lists every decision with its time for the record. The tables' logs are
never touched: a round ended here is ended in the hub's standings, not at the table.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from table_controller.printable import first_unprintable
from table_controller.tournament.wire import MAX_ROUND

#: What the organiser may decide, and its words on the page.
ACTIONS: dict[str, tuple[str, str]] = {
    "table_out": ("停用此桌（不参加编排）", "table out of service (left out of the seating)"),
    "table_back": ("恢复此桌", "table back in service"),
    "round_end": ("按现有成绩结束本轮", "round ended with the scores so far"),
    "round_reopen": ("撤销结束本轮", "round's early end undone"),
    "player_out": ("退出编排（退赛或未到）", "player left out of the seating (withdrew or not here)"),
    "player_back": ("恢复编排", "player back in the seating"),
    "stand_in": ("陪打补位（填满空座）", "stand-in seated to fill a chair"),
    "stand_in_end": ("陪打结束", "stand-in no longer seated"),
}
#: The longest reason taken (the page's field stops at it; a longer one is refused).
REASON_MAX = 200


class OrganiserError(ValueError):
    """A decision that cannot be taken as asked: the words say why (Chinese first)."""

    def __init__(self, message: str, status: int = 409) -> None:
        super().__init__(message)
        self.status = status


@dataclass(frozen=True)
class Standing:
    """What the organiser's decisions mean now."""

    #: table id → {reason, at}: left out of every seating proposed while it stands
    tables_out: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: player key ("id:A01" or "name:甲") → {name, id, reason, at}: not seated while it stands
    players_out: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: (table id, round) → {standing (the table's standing the organiser ended it with), reason, at}
    rounds_ended: dict[tuple[str, int], dict[str, Any]] = field(default_factory=dict)
    #: stand-ins' names (陪打, not on the registration list) → {reason, at}: seated where a chair would
    #: be empty, the first to sit out when none is
    stand_ins: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: player key → the disqualifications at the tables (取消比赛资格: (table id, round, its # there)) the
    #: organiser seated them again despite (恢复编排: the arbitration committee overturned it after the
    #: table's round closed, when the table can no longer undo it); a later one leaves them out again
    reinstated: dict[str, set[tuple[str, int, int]]] = field(default_factory=dict)


def fold(rows: list[dict[str, Any]]) -> Standing:
    """The decisions in order (`id`, `at`, `action`, `data`) → what stands: each later decision on
    the same table, player or round replaces the earlier."""
    out = Standing()
    for row in rows:
        d, at, action = row["data"], row["at"], row["action"]
        note = {"reason": d.get("reason", ""), "at": at}
        if action == "table_out":
            out.tables_out[d["table_id"]] = note
        elif action == "table_back":
            out.tables_out.pop(d["table_id"], None)
        elif action == "player_out":
            out.players_out[d["key"]] = {"name": d["name"], "id": d["id"], **note}
        elif action == "player_back":
            out.players_out.pop(d["key"], None)
            out.reinstated.setdefault(d["key"], set()).update(
                (str(r["table_id"]), int(r["round"]), int(r["seq"])) for r in d.get("reinstated") or [])
        elif action == "round_end":
            out.rounds_ended[(d["table_id"], int(d["round"]))] = {"standing": d["standing"], **note}
        elif action == "round_reopen":
            out.rounds_ended.pop((d["table_id"], int(d["round"])), None)
        elif action == "stand_in":
            out.stand_ins[d["name"]] = note
        elif action == "stand_in_end":
            out.stand_ins.pop(d["name"], None)
    return out


def player_key(pid: str, name: str) -> str:
    """A player as the standings key them: by registration number, else by name."""
    return f"id:{pid}" if pid else f"name:{name}"


def check(action: str, body: dict[str, Any], now: Standing, tables: dict[str, dict[str, Any] | None],
          players: dict[str, dict[str, str]], registered: set[str] | None = None,
          names: dict[str, str] | None = None,
          disqualified: dict[str, list[dict[str, Any]]] | None = None) -> dict[str, Any]:
    """The data to record for `action`, or `OrganiserError`. `tables`: every table the hub knows →
    its latest standing of each round ({round: standing}, None for one never heard from);
    `players`: every player key the hub knows (ranked, or registered) → {name, id}; `registered`:
    the registration list's keys (a stand-in is a player not on it); `names`: table id → the name
    the page shows (the words say 一号桌, as the organiser picked it, not t01); `disqualified`: player key →
    the disqualifications at the tables that leave them out of the seating now (`Hub.disqualified`)."""
    if action not in ACTIONS:
        raise OrganiserError(f"未知的组织者操作 {action!r} / unknown action (one of {', '.join(ACTIONS)})", 422)
    reason = _text(body, "reason").strip()
    if len(reason) > REASON_MAX:  # the page's field stops at it; a longer one was cut without a word
        raise OrganiserError(f"理由最多 {REASON_MAX} 个字，收到 {len(reason)} 个 / a reason is at most {REASON_MAX} "
                             f"characters, got {len(reason)}", 422)
    if action in ("table_out", "table_back", "round_end", "round_reopen"):
        table_id = _text(body, "table_id")
        if table_id not in tables:
            raise OrganiserError(f"没有这张桌子：{table_id!r} / no such table", 404)
        label = (names or {}).get(table_id) or table_id
        if action == "table_out":
            if table_id in now.tables_out:
                raise OrganiserError(f"{label} 已停用 / the table is out of service already")
            return {"table_id": table_id, "reason": reason}
        if action == "table_back":
            if table_id not in now.tables_out:
                raise OrganiserError(f"{label} 未停用 / the table is in service")
            return {"table_id": table_id, "reason": reason}
        return _round(action, table_id, label, body, reason, now, tables[table_id] or {})
    if action in ("stand_in", "stand_in_end"):
        return _stand_in(action, _text(body, "name").strip(), reason, now, registered or set())
    key = _text(body, "player")
    if key not in players:
        raise OrganiserError(f"没有这位选手：{key!r} / no such player (id:NUMBER or name:NAME)", 404)
    who = players[key]
    if action == "player_out" and key in now.players_out:
        raise OrganiserError(f"{who['name']} 已退出编排 / the player is out of the seating already")
    barred = (disqualified or {}).get(key) or []
    if action == "player_back" and key not in now.players_out and not barred:
        raise OrganiserError(f"{who['name']} 未退出编排 / the player is in the seating")
    data = {"key": key, "name": who["name"], "id": who["id"], "reason": reason}
    if action == "player_back" and barred:  # seated again despite the table's 取消比赛资格 (an appeal upheld)
        data["reinstated"] = [{"table_id": d["table_id"], "round": d["round"], "seq": d["seq"]} for d in barred]
    return data


#: the decision's text fields shown on the page and in the seating as typed: a stand-in "甲\u200b" was another
#: player than the registered 甲 (both seated, shown alike), a reason's U+202E turned the decisions' line round
SHOWN = ("name", "reason")
#: the decision's text fields, in the organiser's words
TEXT_ZH = {"reason": "理由", "table_id": "桌号", "name": "陪打的名字", "player": "选手"}


def _text(body: dict[str, Any], key: str) -> str:
    """A text field of the decision ("" when absent): a number, a list or an object there was kept as its
    Python spelling (a stand-in named "{'a': 1}"), and a lone surrogate (\\ud800) could not be written to the
    hub's file (UnicodeEncodeError, a 500); both are refused (422) with what is wrong."""
    value = body.get(key)
    if value is None:
        return ""
    if not isinstance(value, str):
        raise OrganiserError(f"{TEXT_ZH[key]}须为文字 / {key} must be a string", 422)
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise OrganiserError(f"{TEXT_ZH[key]}含有无法保存的字符 / {key} has a character that is not "
                             "Unicode text (a lone surrogate)", 422) from None
    found = first_unprintable(value.strip()) if key in SHOWN else None  # as kept: stripped
    if found is not None:
        raise OrganiserError(f"{TEXT_ZH[key]}含有不可见字符或控制字符（第 {found[0]} 个字符，{found[1]}） / {key} has an "
                             f"invisible or control character (character {found[0]}, {found[1]})", 422)
    return value


def _round(action: str, table_id: str, label: str, body: dict[str, Any], reason: str, now: Standing,
           rounds: dict[int, dict[str, Any]]) -> dict[str, Any]:
    """End a table's round with the standing the hub holds (the hands played so far), or undo that;
    `label`: the table as the words name it."""
    if not rounds:
        raise OrganiserError(f"{label} 尚无成绩 / the hub has no standing from this table")
    given = body.get("round")
    number = max(rounds) if given is None or given == "" else _round_number(given)
    if action == "round_reopen":
        if (table_id, number) not in now.rounds_ended:
            raise OrganiserError(f"{label} 第 {number} 轮未由组织者结束 / not ended by the organiser")
        return {"table_id": table_id, "round": number, "reason": reason}
    standing = rounds.get(number)
    if standing is None:
        raise OrganiserError(f"{label} 没有第 {number} 轮的成绩 / no standing of round {number} from it")
    if (table_id, number) in now.rounds_ended:
        raise OrganiserError(f"{label} 第 {number} 轮已由组织者结束 / ended by the organiser already")
    if standing.get("final"):
        raise OrganiserError(f"{label} 第 {number} 轮已打完 / that round is over at the table already")
    return {"table_id": table_id, "round": number, "reason": reason,
            "standing": {**standing, "final": True, "ended_by_organiser": True}}


def _round_number(given: Any) -> int:
    """The round a request names: a whole number 1..MAX_ROUND, or its digits as text. A round that is no number
    was a 500 with no words; `1e400` (Python's JSON reads it as infinity) still was, and `true` and `1.7` were
    taken as round 1."""
    number: int | None = None
    if isinstance(given, int) and not isinstance(given, bool):
        number = given
    elif isinstance(given, float) and given.is_integer():
        number = int(given)
    elif isinstance(given, str) and given.strip().isdecimal():
        number = int(given) if len(given.strip()) <= 9 else MAX_ROUND + 1  # past 4,300 digits int() refuses
    if number is None:
        raise OrganiserError(f"轮次须为整数，收到 {str(given)[:40]!r} / round must be a whole number", 422)
    if not 1 <= number <= MAX_ROUND:
        raise OrganiserError(f"轮次须为 1 至 {MAX_ROUND} / round must be 1..{MAX_ROUND}", 422)
    return number


def _stand_in(action: str, name: str, reason: str, now: Standing, registered: set[str]) -> dict[str, Any]:
    """A stand-in (陪打) for the seating: only with a registration list (else everyone who plays is
    ranked, and a stand-in could not be told from a player), and never a registered player."""
    if action == "stand_in_end":
        if name not in now.stand_ins:
            raise OrganiserError(f"{name!r} 不是陪打 / not a stand-in of the seating")
        return {"name": name, "reason": reason}
    if not registered:
        raise OrganiserError("无报名名单（--players），陪打无法与选手区分 / a stand-in needs the registration list")
    if not name or len(name) > 40:
        raise OrganiserError("陪打的名字须为 1 至 40 个字 / a stand-in's name is 1..40 characters", 422)
    if f"name:{name}" in registered:
        raise OrganiserError(f"{name} 是报名选手，不能作陪打 / a registered player is not a stand-in")
    if name in now.stand_ins:
        raise OrganiserError(f"{name} 已是陪打 / already a stand-in")
    return {"name": name, "reason": reason}

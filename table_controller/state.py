"""The table's state as a pure fold over the event log: `apply(state, event) -> state`.

Nothing here does I/O or reads a clock: replaying the same log always gives the same state, which
is what makes the SQLite log the match record and a restart lossless.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Iterable

from drivers.faults import fault_fields
from drivers.names import LINK_REASONS, reason_en, reason_zh

from table_controller import chatter, corrections
from table_controller.camera_public import CAMERA_TILE_EVENTS, camera_public
from table_controller.corrections import HandEvents
from table_controller.log_en import action_en, describe_en
from table_controller.refusal_public import public_error, quotes_read
from table_controller.rules.ruleset import folder
from table_controller.store import Event
from table_controller.substitutes import sitting
from table_controller.tiles import SEAT_NAMES, SEATS

LOG_TAIL = 60
ZONE_ZH = {"discard": "弃牌区", "meld": "副露区", "flower": "花牌区", "centre": "中央"}

#: The table's seat buttons as players know them.
BUTTON_ZH = {"dice": "骰子", "start": "开始", "raise": "升牌", "lower": "降牌"}

#: Phases of the table as the display names them (the table reports the English id).
PHASE_ZH = {
    "idle": "空闲",
    "shuffling": "洗牌中",
    "building": "砌牌中",
    "ready": "牌已砌好",
    "raising": "升牌中",
    "walls_raised": "牌墙已升起",
    "playing": "对局中",
    "lowering": "降牌中",
    "fault": "故障",
    "offline": "未连接",
}

#: Phases in which a hand's walls are not up (protocol.md §8): the set still shuffled or built under the table
#: (`shuffling` is an older board's name for `building`), standing ready, rising, or the last hand's tiles being
#: taken in. A throw the table reports then is not the dealer's throw on the walls (004 第六条: 洗牌、码牌 by the
#: machine, then 掷骰与开牌) and does not count (`walls_down`).
WALLS_DOWN = ("idle", "shuffling", "building", "ready", "raising", "lowering")
#: Phases in which walls are up: at a hand's start they are the last hand's (the start lowers them first,
#: `Controller.start_hand`) until the table reports them down (`last_walls`).
WALLS_UP = ("walls_raised", "playing")


class UnknownRuleset(KeyError):
    """The log names a ruleset this installation cannot load: a house file removed or renamed, or a
    command run without the $TABLECTL_RULESETS_DIR the service has. Its hands cannot be folded; the
    message says where the file is looked for (it was a bare KeyError and a traceback)."""

    def __init__(self, ruleset_id: str) -> None:
        super().__init__(ruleset_id)
        self.ruleset_id = ruleset_id

    def __str__(self) -> str:
        from table_controller.rules.ruleset import ENV_DIR, rulesets_dir

        rid = self.ruleset_id
        return (f"记录中的对局使用规则 {rid!r}，本机找不到该规则文件 / the log's hands were played under ruleset "
                f"{rid!r}, which is not in {rulesets_dir()} (or cannot be read): set {ENV_DIR} to the folder holding "
                f"{rid}.toml, as the service has it (sudo drops it: sudo env ...), or put the file back")


def _ruleset(ruleset_id: str) -> Any:
    """The ruleset, read once per rulesets folder (`scoring.ruleset_file`); UnknownRuleset if unknown."""
    from table_controller.scoring import ruleset_file

    rs = ruleset_file(ruleset_id)
    if rs is None:
        raise UnknownRuleset(ruleset_id)
    return rs


def missing_rulesets(ids: Iterable[str]) -> list[str]:
    """Of the ruleset ids a log names, those this installation cannot load (`tablectl check`)."""
    from table_controller.scoring import ruleset_file

    return sorted({i for i in ids if i and ruleset_file(i) is None})


@dataclass
class TableState:
    """Everything the displays show. Referee-only parts (a win as read, a concealed kong's faces, who
    acted from where) are in here too: pages and sockets read it only through `projection`."""

    seq: int = 0
    #: the last event's stamp (a clock that would stamp earlier was set back: `controller.check_clock`)
    last_at: float | None = None
    table_name: str = ""
    ruleset: str = "mcr"
    players: dict[int, str] = field(default_factory=dict)  # position -> name
    player_ids: dict[int, str] = field(default_factory=dict)  # position -> registration number (tournaments)
    link: dict[str, Any] = field(default_factory=lambda: {"up": False, "reason": "未连接", "reason_en": "not connected"})
    identity: dict[str, Any] = field(default_factory=dict)
    phase: str = "offline"
    #: whether `phase` is the table's own word (a `table.phase` event, its status at a relink included) rather than
    #: the host's guess (`offline`, `idle` at the link's start): a board that reports no phases (the remote-control
    #: dialect) never sets it, and only a phase the table reported holds a throw back (`walls_down`)
    phase_by_table: bool = False
    tile_count: int | None = None
    faults: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: Buttons reporting themselves over and over (按键抖动, `chatter.py`), by `side:button`: shown beside the faults
    buttons: dict[str, dict[str, Any]] = field(default_factory=dict)
    hand: dict[str, Any] | None = None
    hands_played: int = 0
    log: list[dict[str, Any]] = field(default_factory=list)
    #: Referee actions, every one kept (undone ones flagged): the score sheet and the audit read them.
    actions: list[dict[str, Any]] = field(default_factory=list)
    #: Hands that ended: number, dealer, chairs by wind, result (the score sheet's rows).
    hands: list[dict[str, Any]] = field(default_factory=list)
    #: The camera's last reported state (None: no camera configured).
    camera: dict[str, Any] | None = None
    #: Tiles the camera read but is unsure of, for the referee to confirm (newest last).
    camera_pending: list[dict[str, Any]] = field(default_factory=list)
    #: The round (轮次) being played, the seq of the action that started it (0: the log's start),
    #: and the rounds closed before it, each whole (`rounds.close_round`).
    round: int = 1
    round_start_seq: int = 0
    rounds: list[dict[str, Any]] = field(default_factory=list)
    #: The referee named this round's players: a restart's config no longer renames them.
    roster_by_referee: bool = False
    #: 定庄: the throws before the round's first hand that choose its first dealer (`seating`)
    first_dealer: dict[str, Any] | None = None
    #: The organiser's seating for a round, from the tournament hub (编排): the referee keys it
    seating_offer: dict[str, Any] | None = None
    #: The state when the hand in play started and the events since, as logged: a correction of a
    #: play (`corrections.py`) folds the hand again from there. Not shown (not in `to_json`).
    hand_base: "TableState | None" = None
    hand_events: HandEvents = field(default_factory=HandEvents)
    #: The ended hand a round's start set aside, with its `hand_base` and `hand_events` (the events
    #: since kept too): an undo of that start, before the new round's first hand, puts it back whole
    #: (`rounds.reopen`), so the last hand is shown, ruled (查叫) and corrected as before. Not shown.
    hand_aside: "tuple[dict[str, Any], TableState | None, HandEvents] | None" = None

    def to_json(self) -> dict[str, Any]:
        """The whole state, referee-only parts included: show it through `projection`, not directly."""
        # States are never changed in place (`apply` copies what it changes), so sharing is safe.
        hand = self.hand
        return {
            "seq": self.seq,
            "table_name": self.table_name,
            "ruleset": self.ruleset,
            "ruleset_name_zh": _ruleset_name(self.ruleset),
            "ruleset_name_en": _ruleset_name(self.ruleset, "name_en"),
            # the unit a win's total counts in (倍, 张, 番 ...): the pages said 番 for every ruleset
            "ruleset_unit": _unit(self.ruleset),
            "ruleset_unit_en": _unit(self.ruleset, english=True),
            "players": {str(k): v for k, v in sorted(self.players.items())},
            "player_ids": {str(k): v for k, v in sorted(self.player_ids.items())},
            # who sits each chair now: the round's player, or the substitute (替补) seated there
            "sitting": {p: who["name"] for p, who in sitting(self).items()},
            "link": dict(self.link),
            "identity": dict(self.identity),
            "phase": self.phase,
            "phase_zh": PHASE_ZH.get(self.phase, self.phase),
            "tile_count": self.tile_count,
            "faults": list(self.faults.values()),
            "buttons": list(self.buttons.values()),
            "hand": hand,
            "hands_played": self.hands_played,
            "log": list(self.log),
            "actions": list(self.actions),
            "hands": list(self.hands),
            "camera": self.camera,
            "camera_pending": _camera_open(self),
            "round": self.round,
            "rounds": _round_summaries(self),
            "first_dealer": self.first_dealer,
            "seating_offer": self.seating_offer,
        }


def _round_summaries(state: "TableState") -> list[dict[str, Any]]:
    from table_controller.rounds import summaries

    return summaries(state)


def _camera_open(state: "TableState") -> list[dict[str, Any]]:
    from table_controller.referee import camera_open

    return camera_open(state)


def _dice_count(ruleset_id: str) -> int | None:
    try:
        return int(_ruleset(ruleset_id).dice_count)
    except Exception:  # an unknown id is reported where it is set
        return None


def _flow_value(ruleset_id: str, name: str) -> Any:
    """A `FlowRules` field of a ruleset (`referee.flow_of`); None for an unknown id (reported where it is set)."""
    from table_controller.referee import flow_of

    try:
        return getattr(flow_of(ruleset_id), name)
    except Exception:  # an unknown id is reported where it is set
        return None


def _flow_flag(ruleset_id: str, name: str) -> bool:
    return bool(_flow_value(ruleset_id, name))


def _tile_set(ruleset_id: str) -> dict[str, bool]:
    """Whether the ruleset's set holds flowers (`flowers_in_set`) and honours (`honours_in_set`); both
    for an unknown id or a broken file (the pages then hide nothing)."""
    from table_controller.scoring import ruleset_tiles
    from table_controller.tiles import is_honour

    rs, kinds = ruleset_tiles(ruleset_id)
    if rs is None or not kinds:
        return {"flowers_in_set": True, "honours_in_set": True}
    return {"flowers_in_set": any(rs.tile_spec.is_bonus(k) for k in kinds),
            "honours_in_set": any(is_honour(k) for k in kinds)}


def _abortive_kinds(ruleset_id: str) -> list[str]:
    """The abortive draws (途中流局) of a ruleset's `[flow] abortive_draws`; none for an unknown one."""
    from table_controller.hand.abortive import kinds_of
    from table_controller.scoring.config import flow

    try:
        return list(kinds_of(flow(ruleset_id)))
    except Exception:  # an unknown id is reported where it is set
        return []


def _unit(ruleset_id: str, english: bool = False) -> str:
    """The ruleset's unit (`scoring.config.unit`), in English where it has one (else "fan")."""
    from table_controller.scoring.config import UNIT_EN, unit

    word = unit(ruleset_id)
    return UNIT_EN.get(word, "fan") if english else word


def _ruleset_name(ruleset_id: str, attr: str = "name_zh") -> str:
    try:
        return str(getattr(_ruleset(ruleset_id), attr))
    except Exception:  # an unknown id is reported where it is set; here only the label is missing
        return ruleset_id


def seat_of_position(position: int, dealer_position: int) -> str:
    """Wind of a physical chair when `dealer_position` deals: chairs count counter-clockwise."""
    return SEATS[(position - dealer_position) % 4]


def _log_line(ev: Event, s: "TableState | None" = None) -> dict[str, Any]:
    text = describe(ev)
    action = s.actions[-1] if s is not None and s.actions and s.actions[-1]["seq"] == ev.seq else None
    if action is not None and action["type"] == "referee.penalty" and "name_zh" in action:
        seat = SEAT_NAMES.get(action["seat"], action["seat"])
        text = f"裁判：{seat}家 {action['name_zh']}" + (f"（{action['amount']} 分）" if action["amount"] else "（停和）" if action["stops_win"] else "（警告）")
    if action is not None and action["type"] == "referee.undo" and action.get("target"):
        text = f"裁判撤销 #{action['target']}：{action['reason']}"  # the body may not name it: the action does
    if action is not None and action["type"] == corrections.TYPE and action.get("now") and "target" not in action:
        where = f"#{action['insert']['anchor']} {'后' if action['insert']['after'] else '前'}"
        text = f"裁判补录（{where}）：{action['now']}（{action['reason']}）"  # a play never keyed, put in
    elif action is not None and action["type"] == corrections.TYPE and action.get("now"):
        text = f"裁判更正 #{action['target']}：{action['now']}（{action['reason']}）"  # as corrected only: public
    plain = text
    if action is not None and action.get("error"):
        text += f"（无效：{action['error']}）"
    if ev.type == "play.claim" and s is not None and s.hand is not None and any(
            m.get("late_seq") == ev.seq for m in (s.hand.get("melds") or {}).get(ev.data.get("seat"), [])):
        text += "（补记：记入时该家已出牌）"  # log order is arrival order: the claim came before that discard
    if ev.type.startswith("play.") and ev.data.get("inserted"):
        text += f"（裁判补录 #{ev.data['inserted']}）"  # never keyed: put in by a correction
    text_en = _log_line_en(ev, s, action)
    if ev.type in ("table.dice", "operator.dice") and s is not None and (aside := _throw_aside(s, ev)):
        text, text_en = f"{text}（不计：{aside[0]}）", f"{text_en} (not counted: {aside[1]})"
    line = {"seq": ev.seq, "at": ev.at, "source": ev.source, "type": ev.type, "text": text, "text_en": text_en}
    if ev.type in CAMERA_TILE_EVENTS:  # a tile the camera saw laid down is not named in public (camera_public)
        hidden = Event(ev.seq, ev.at, ev.source, ev.type, camera_public(ev.data))
        public, public_en = describe(hidden), describe_en(hidden)
        if public != text or public_en != line["text_en"]:
            line["public"], line["public_en"] = public, public_en
    elif action is not None and action.get("error") and quotes_read(action):  # its words may quote the read
        withheld = {**action, "error": public_error(action)}
        line["public"] = f"{plain}（无效：{withheld['error']}）"
        line["public_en"] = action_en(withheld, describe_en(ev))
    return line


def _throw_aside(s: "TableState", ev: Event) -> tuple[str, str] | None:
    """Why the throw `ev` (just folded into `s`) did not count, in Chinese and English; None when it counted."""
    if s.hand is not None:
        return next(((th["note"], th["note_en"]) for th in s.hand.get("ignored_throws", ())
                     if th.get("seq") == ev.seq), None)
    if ev.data.get("seat") not in SEATS:
        return "牌桌未报告掷骰的座位", "the table named no seat"
    throws = (s.first_dealer or {}).get("throws") or [{}]
    if s.hands or not throws[-1].get("ignored"):  # (定庄 throws only before the round's first hand)
        return None
    zh, _, en = str(throws[-1]["ignored"]).partition("/")  # seating's notes: "中文 / English"
    return zh.strip(), en.strip() or zh.strip()


def _log_line_en(ev: Event, s: "TableState | None", action: dict[str, Any] | None) -> str:
    """`_log_line`'s text in English (`log_en`): the English pages' log and the overlay's last play."""
    text = describe_en(ev) if action is None else action_en(action, describe_en(ev))
    if ev.type == "play.claim" and s is not None and s.hand is not None and any(
            m.get("late_seq") == ev.seq for m in (s.hand.get("melds") or {}).get(ev.data.get("seat"), [])):
        text += " (entered late: that seat had discarded since)"
    if ev.type.startswith("play.") and ev.data.get("inserted"):
        text += f" (put in by the referee #{ev.data['inserted']})"
    return text


def _camera_seat(wind: Any, side: str) -> str:
    """Whose area the camera saw a tile in: the player by wind (`wind`, added by the camera watcher
    during a hand), else the table's side as its chair number (sides E S W N are chairs 1 to 4)."""
    if wind in SEAT_NAMES:
        return f"{SEAT_NAMES[wind]}家"
    return f"{SEATS.index(side) + 1}号位" if side in SEATS else ""


def _fault_name_zh(code: Any) -> str:
    """A fault code's Chinese name (卡牌); a code the fault table lacks as 未知故障 N."""
    return str(fault_fields(code, "")["name_zh"]) if isinstance(code, int) else str(code or "")


def _presser(d: dict[str, Any]) -> str:
    """Who pressed or threw, in a hand: the wind sitting at the side (东家); a side the board did not name
    (0xFF) said as such (it read "None家")."""
    who = d.get("wind", d.get("seat"))
    return f"{SEAT_NAMES[who]}家" if who in SEAT_NAMES else "牌桌（未报座位）"


def describe(ev: Event) -> str:
    """A one-line Chinese description of an event for the display's log."""
    d = ev.data
    t = ev.type
    if t == "link.up":
        return f"连接牌桌：{d.get('serial', '')} 固件 {d.get('firmware', '')}"
    if t == "link.down":
        return f"牌桌连接中断：{reason_zh(str(d.get('reason', '')))}"
    if t == "link.restored":
        return f"牌桌已重新连接（第 {d.get('reconnects', '')} 次）"
    if t == "tournament.seating" and d.get("withdrawn"):
        return f"赛事撤回第 {d.get('round', '?')} 轮编排：本桌本轮不排选手"
    if t == "tournament.seating":
        players = d.get("players") if isinstance(d.get("players"), dict) else {}
        names = "、".join(f"{c}号位 {n}" for c, n in sorted(players.items()))
        return f"赛事发布第 {d.get('round', '?')} 轮编排：{names}"
    if t == "controller.configured":  # the first line of every log: it showed as "controller.configured"
        players = d.get("players") if isinstance(d.get("players"), dict) else {}
        names = "、".join(f"{c}号位 {n}" for c, n in sorted(players.items()))
        return (f"本桌设定：{d.get('table_name', '')} · {_ruleset_name(str(d.get('ruleset', '')))}"
                + (f" · {names}" if names else ""))
    if t == "controller.session_alert":
        return "报时：比赛时间到" if not d.get("minutes") else f"报时：比赛剩余 {d.get('left_min', d['minutes']):g} 分钟"
    if t == "table.unreadable":
        return (f"牌桌发来本机无法识别的事件 {d.get('type', '')}（固件较新？）：已记录并跳过 / "
                f"an event this controller cannot read ({d.get('error', '')}): recorded and skipped")
    if t == "controller.log_salvaged":
        lost = d.get("lost_count", 0)
        return (f"事件记录文件损坏（{d.get('problem', '')}）：已移至 {d.get('damaged_file', '')}，"
                f"恢复 {d.get('recovered', 0)} 条" + (f"，备份盘补回 {d['from_mirror']} 条" if d.get("from_mirror") else "")
                + (f"，丢失 {lost} 条（编号 " + "、".join(f"{a}–{b}" if a != b else str(a) for a, b in d.get("lost", []))
                   + "）" if lost else "，无丢失")
                + " / the damaged log was kept aside and its events carried over")
    if t == "controller.log_restored":
        return (f"事件记录恢复写入（此前 {d.get('unwritable_s', '?')} 秒无法写入：{d.get('error', '')}）；"
                "其间牌桌事件已按顺序补记 / the event log writes again; the table's events held meanwhile are in, in order")
    if t == "controller.clock_step":
        if d.get("behind_record_s") and d.get("from_record"):
            return (f"系统时钟比记录晚 {d['behind_record_s']} 秒（断电后时间未同步？）：计时从记录的最后一刻接续，停机时间不计 / "
                    "the clock was behind the record: timers go on from its last event, the time down not counted")
        if d.get("behind_record_s"):
            return f"系统时钟比记录晚 {d['behind_record_s']} 秒（时钟被调回？）：请核对时间 / the clock is behind the record"
        return (f"系统时钟跳变 {d.get('drift_s')} 秒（如首次对时）；本次运行的计时不受影响 / "
                f"the system clock moved {d.get('drift_s')} s; this run's timers are unaffected")
    if t == "table.phase":
        return f"牌桌：{PHASE_ZH.get(d.get('phase', ''), d.get('phase', ''))}"
    if t in ("table.dice", "operator.dice"):
        dice = "、".join(str(x) for x in d.get("dice", []))
        how = "掷骰（录入）" if t == "operator.dice" else "掷骰"
        if "wind" not in d and d.get("seat") in SEATS:  # no hand yet: 定庄, by chair
            return f"{SEATS.index(d['seat']) + 1}号位{how}定庄：{dice}（共 {sum(d.get('dice', []))} 点）"
        return f"{_presser(d)}{how}：{dice}（共 {sum(d.get('dice', []))} 点）"
    if t == "table.fault_raised":
        where = str(d.get("where_zh") or d.get("where") or "") if d.get("where") not in (None, "", "table") else ""
        return f"故障：{d.get('name_zh', d.get('code', ''))}" + (f"（{where}）" if where else "")
    if t == "table.fault_cleared":  # the table's event names the code alone: its name from the fault table
        return f"故障解除：{d.get('name_zh') or _fault_name_zh(d.get('code'))}"
    if t == "table.tile_count":  # the counter's reading after a build, not the setting: short or over is 缺牌/多牌
        count, expected = d.get("count"), d.get("expected")
        off = f"，应为 {expected} 张" if expected not in (None, count) else ""
        return f"点牌：{count} 张{off}"
    if t in ("controller.button_chatter", "controller.button_chatter_ended"):
        key = str(d.get("key", ""))
        where = chatter.where(known)[0] if (known := chatter.key_of(d)) else key
        if t.endswith("_ended"):
            return f"按键抖动已停止：{where}，共触发 {d.get('presses', 0)} 次（每次均已记录）"
        return (f"按键抖动或卡住：{where} {d.get('window_s', '')} 秒内触发 {d.get('presses', 0)} 次；"
                "之后的触发只在故障栏计数，不逐条显示（每次均已记录）")
    if t == "table.button":
        button = BUTTON_ZH.get(d.get("button", ""), d.get("button", ""))
        if "wind" not in d and d.get("seat") in SEATS:  # no hand yet: nobody sits at a wind, a side is its chair
            return f"{SEATS.index(d['seat']) + 1}号位按键：{button}"
        return f"{_presser(d)}按键：{button}"
    if t == "operator.hand_start":
        return f"开始第 {d.get('hand_no')} 盘（{SEAT_NAMES.get('E')}家：{d.get('dealer_position')} 号位）"
    if t == "operator.hand_end":
        return f"第 {d.get('hand_no')} 盘结束"
    if t.startswith(("referee.", "play.")):
        return _describe_referee(ev)
    if t == "display.credential_changed":  # which credential and who; never the PIN
        who = f"（裁判 {d['by_name']}）" if d.get("by_name") else "（配置文件）" if d.get("by") == "config file" else ""
        return f"凭证已更改：{d.get('credential', '')}{who}"
    if t == "controller.rejected":
        return f"拒绝：{d.get('reason', '')}"
    if t == "camera.status":
        said = str(d.get("message", d.get("code", "")))
        return ("" if said.startswith("摄像头") else "摄像头：") + said + (f"（{d['problem']}）" if d.get("problem") else "")
    if t.startswith("camera.tile_"):
        zone, _, side = str(d.get("zone", "")).partition(":")
        where = _camera_seat(d.get("wind"), side) + ZONE_ZH.get(zone, zone)
        verb = "出现" if t.endswith("appeared") else "横放" if t.endswith("turned") else "移走"
        kind = _tile_zh(d["kind"]) if d.get("kind") else "一张牌"
        sure = "（待裁判确认）" if d.get("needs_referee") else "（按裁判裁定）" if d.get("ruled") else ""
        return f"摄像头：{where}{verb} {kind}，置信度 {float(d.get('confidence', 0)):.2f}{sure}"
    if t == "camera.learned":
        how = "按裁判更正" if d.get("corrected") else "按裁判确认"
        return f"摄像头学会此副牌的 {_tile_zh(d['kind']) if d.get('kind') else '一张牌'}（{how} #{d.get('camera_seq', '')}）"
    if t == "camera.recalibrated":
        return f"摄像头被碰动约 {float(d.get('moved_mm', 0)):.0f} 毫米，已按台面边缘重新校准"
    if t == "camera.play_refused":  # in public a refused claim names nothing (camera_public): who, to check
        return (f"摄像头所见未记入牌谱：{d['reason']}" if d.get("reason")
                else f"摄像头所见{SEAT_NAMES.get(str(d.get('seat')), '')}{'家' if d.get('seat') in SEAT_NAMES else ''}"
                     "的牌未记入牌谱，请裁判核对")
    if t == "camera.unlearned":
        return f"摄像头忘掉 #{d.get('camera_seq', '')} 所学的 {_tile_zh(d['kind']) if d.get('kind') else '一张牌'}（裁判撤销）"
    return t


def apply(state: TableState, ev: Event) -> TableState:
    """Return the state after `ev`; the input state is not modified. A referee action that changes
    the corrections of the hand's plays (`referee.play_correct`, or its undo) folds the hand again
    from its start with the plays as corrected (`corrections.rework`)."""
    s = _step(state, ev, ev)
    if ev.type.startswith("referee.") and corrections.reworks(state, s):
        return corrections.rework(state, ev, s, _step)
    return s


def _step(state: TableState, ev: Event, recorded: Event | None) -> TableState:
    """The plain fold of one event `ev`, kept among the hand's events as `recorded` (the play as
    logged, where `ev` is it corrected; None: a play a correction inserted, not kept)."""
    return corrections.remember(_apply_one(state, ev), recorded)


def _apply_one(state: TableState, ev: Event) -> TableState:
    """The state after `ev` alone (no rework); the input state is not modified."""
    # Structural sharing: copy only what this event changes (a deep copy of a long session per
    # event was the display's main cost); nothing below mutates a container it did not copy.
    t = ev.type
    s = copy.copy(state)
    s.faults = dict(state.faults)
    if state.hand is not None and t.startswith(("operator.hand", "table.dice", "operator.dice", "play.", "referee.")):
        s.hand = copy_hand(state.hand)
    s.seq = ev.seq
    s.last_at = ev.at
    d = ev.data
    t = ev.type
    if t == "controller.configured":
        s.table_name = d.get("table_name", s.table_name)
        s.ruleset = d.get("ruleset", s.ruleset)
        if not s.roster_by_referee:  # once the referee has named a round's players, they stand
            s.players = {int(k): v for k, v in d.get("players", {}).items()}
            s.player_ids = {int(k): v for k, v in d.get("player_ids", {}).items()}
    elif t == "link.up":
        s.link = {"up": True, "reason": ""}
        s.identity = dict(d)
        if s.phase == "offline":
            s.phase = "idle"
    elif t == "link.restored":
        s.link = {"up": True, "reason": ""}
    elif t == "link.down":
        # the driver's reasons are codes (unplugged, silent): the display shows words, the code beside them
        code = str(d.get("reason", ""))
        s.link = {"up": False, "reason": reason_zh(code), "reason_en": reason_en(code),
                  **({"code": code} if code in LINK_REASONS else {})}
    elif t == "table.phase":
        s.phase = d.get("phase", s.phase)
        s.phase_by_table = True
        if s.hand is not None and s.hand.get("last_walls") and s.phase in WALLS_DOWN:  # the last hand's went down
            s.hand = {k: v for k, v in s.hand.items() if k != "last_walls"}
    elif t == "table.tile_count":
        s.tile_count = d.get("count")
    elif t == "table.fault_raised":
        s.faults[str(d.get("code"))] = dict(d)
    elif t == "table.fault_cleared":
        s.faults.pop(str(d.get("code")), None)
    elif t == "controller.button_chatter" and (key := chatter.key_of(d)) is not None:
        s.buttons = {**state.buttons, key: chatter.notice(key, int(d.get("presses", 0)), float(d.get("window_s", 0)),
                                                          ev.seq, ev.at)}
    elif t == "controller.button_chatter_ended":
        s.buttons = {k: v for k, v in state.buttons.items() if k != chatter.key_of(d)}
    elif t == "table.button" and chatter.muted(t, d, ev.seq, state.buttons):
        # counted on the notice, not a line of its own: the page's 60 lines stay the game's (the event is logged)
        key = chatter.key_of(d)
        assert key is not None
        s.buttons = {**state.buttons, key: chatter.counted(state.buttons[key])}
        return s
    elif t == "operator.hand_start":
        s.ruleset = d.get("ruleset", s.ruleset)
        s.hand = {
            **_empty_play(),
            "seats": d.get("seats") or {w: (i + d.get("dealer_position", 1) - 1) % 4 + 1 for i, w in enumerate(SEATS)},
            "hand_no": d["hand_no"],
            "round": s.round,
            # the player (抽签号位) in chairs "1".."4" after any 换位; `seats` name the players by wind
            "seating": dict(d.get("seating") or {str(c): c for c in (1, 2, 3, 4)}),
            "ruleset": s.ruleset,
            "dealer_position": d.get("dealer_position", 1),
            "double": bool(d.get("double", False)),
            "honba": int(d.get("honba", 0)),  # 本场 (riichi `[match] honba`): given to each win read
            "prevalent_wind": d.get("prevalent_wind", "E"),
            "wall_lengths": d.get("wall_lengths"),
            "throws": [],
            "next_thrower": "E",
            "deal": None,
            "error": None,
            # the dice this table's unit throws (0: it reports none, as a remote-control table) against
            # the ruleset's: where they differ, the operator keys the dice thrown by hand
            "table_dice": d.get("table_dice"),
            "dice_count": _dice_count(s.ruleset),
            # 定缺 (四川): whether the ruleset has each seat name a suit it will not keep, and the
            # suits named so far (public: players declare them openly)
            "missing_suit": _flow_flag(s.ruleset, "missing_suit"),
            "missing": {},
            # 立直 (riichi): whether the ruleset has declarations, and each seat's (public)
            "riichi_declarations": _flow_flag(s.ruleset, "riichi"),
            "riichi": {},
            # what the ruleset plays with, for the pages' keys and fields: 吃 (`[flow] chow`: none under 四川,
            # 推倒胡, 南宁), flowers (补花) and honours in its set (四川's 108 tiles have neither)
            "chows": _flow_flag(s.ruleset, "chow"),
            **_tile_set(s.ruleset),
            # 途中流局 (riichi): the kinds the ruleset has (the page's buttons), and those the record shows
            "abortive_draws": _abortive_kinds(s.ruleset),
            "abortive_shown": [],
            # the last hand's walls still up as this one starts (the table said so): no throw counts on them
            **({"last_walls": True} if s.phase_by_table and s.phase in WALLS_UP else {}),
        }
    elif t in ("table.dice", "operator.dice") and s.hand is not None:
        _apply_throw(s.hand, d, ev.seq, keyed=t == "operator.dice", walls_down=walls_down(s),
                     dice_unit_down=_dice_unit_down(s))
    elif t in ("table.dice", "operator.dice") and s.hand is None and not s.hands and d.get("seat") in SEATS:
        # before the round's first hand: 定庄, the throw that chooses its first dealer
        from table_controller.seating import first_dealer_throw, method_of

        s.first_dealer = first_dealer_throw(s.first_dealer, method_of(s.ruleset), SEATS.index(d["seat"]) + 1,
                                            [int(x) for x in d.get("dice", []) if isinstance(x, int)],
                                            keyed=t == "operator.dice")
    elif t == "operator.hand_end" and s.hand is not None and not s.hand.get("ended"):
        s.hand["ended"] = True
        s.hand["turn"] = None
        s.hand["claim"] = None
        s.hands_played += 1
        s.hands = s.hands + [{"hand_no": s.hand["hand_no"], "dealer_position": s.hand["dealer_position"],
                              "prevalent_wind": s.hand["prevalent_wind"], "seats": dict(s.hand["seats"]),
                              "seating": dict(s.hand.get("seating") or {}),
                              "result": d.get("result", "draw"), "ended_at": ev.at, "seq": ev.seq,
                              # 途中流局 (riichi): which, and the seat that declared 九种九牌
                              **{k: d[k] for k in ("abortive", "seat") if d.get("result") == "abortive" and k in d},
                              "kong_payments": list(s.hand.get("kong_payments", [])),
                              "chase_payments": list(s.hand.get("chase_payments", [])),
                              # a kong's or 追牌's payment kept as logged that today's rules make otherwise
                              **({"rescored": list(s.hand["rescored"])} if s.hand.get("rescored") else {}),
                              # for the hand's record (牌谱) after the next hand has started
                              "throws": [dict(t) for t in s.hand.get("throws", [])],
                              "riichi": sorted(s.hand.get("riichi", {})),  # 立直棒 carried to the next win
                              "break": (s.hand.get("deal") or {}).get("break")}]
    elif t == "operator.hand_end" and s.hand is not None and d.get("hand_no") == s.hand["hand_no"] \
            and d.get("result") in ("draw", "abandoned"):
        from table_controller.referee import ended_unconfirmed, redeal_due

        # ended as a win with no win confirmed, or a 错和 found at the draw: the operator ends it otherwise
        if ended_unconfirmed(s) or (d.get("result") == "abandoned" and redeal_due(s) is not None):
            s.hands = s.hands[:-1] + [{**s.hands[-1], "result": d["result"], "seq": ev.seq, "ended_again": True}]
    elif t == "tournament.seating" and d.get("withdrawn"):  # the round published again without this table
        s.seating_offer = None
    elif t == "tournament.seating":
        s.seating_offer = {k: d.get(k) for k in ("round", "table_name", "players", "player_ids", "at")}
    elif t == "camera.status":
        s.camera = dict(d)
    elif t.startswith("camera.tile_") and d.get("needs_referee"):
        # The camera is unsure (split vote or low confidence): the referee confirms instead of a guess.
        from table_controller.referee import camera_kept

        asked = {"seq": ev.seq, **d}
        if s.hand is not None:  # the hand it was asked in: a question left open into the next is told as such
            asked.update(hand_no=s.hand.get("hand_no"), round=s.hand.get("round", 1))
        s.camera_pending = camera_kept(s, s.camera_pending + [asked])
    elif t.startswith("referee."):
        from table_controller.referee import apply_referee, out_seats, winners

        apply_referee(s, ev)
        if s.hand is not None:  # derived from the actions, so an undo puts them back too
            s.hand["winners"] = winners(s.actions, s.hand["hand_no"])
            s.hand["out"] = out_seats(s.ruleset, s.actions, s.hand["hand_no"])
    elif t.startswith("play.") and s.hand is not None and not s.hand.get("ended"):
        _apply_play(s.hand, ev, s.ruleset)
    s.log = (s.log + [_log_line(ev, s)])[-LOG_TAIL:]
    return s


def copy_hand(hand: dict[str, Any]) -> dict[str, Any]:
    """A copy of the hand that the fold may change: its lists and the dicts inside them are new;
    the deal plan, never changed once computed, is shared."""
    out = dict(hand)
    for key in ("discards", "melds", "flowers"):
        if key in out:
            out[key] = {w: [dict(x) if isinstance(x, dict) else x for x in v] for w, v in out[key].items()}
    for key in ("throws", "ignored_throws"):
        if key in out:
            out[key] = list(out[key])
    for key in ("missing", "riichi"):
        if key in out:
            out[key] = dict(out[key])
    return out


def _empty_play() -> dict[str, Any]:
    return {"discards": {w: [] for w in SEATS}, "melds": {w: [] for w in SEATS},
            "flowers": {w: [] for w in SEATS}, "turn": None, "claim": None}


def _turn(seat: str, kind: str, since: float, ruleset: str) -> dict[str, Any]:
    from table_controller.timers import timer_rules

    return {"seat": seat, "kind": kind, "since": since, "limit_s": timer_rules(ruleset).limit(kind)}


def _apply_play(hand: dict[str, Any], ev: Event, ruleset: str) -> None:
    """What the table shows face up (discards, melds, flowers) and whose turn it is, for the timers.

    `play.*` events come from the camera or the referee's keying; a concealed kong keeps its tiles
    here for the referee, and the public projection shows it face down. Draws are not seen, so
    `tiles_left` counts them from what is: a seat that acts after a discard it did not claim drew
    first; every kong and flower took a replacement.
    """
    d = ev.data
    seat = d.get("seat")
    if seat not in SEATS and ev.type != "play.deal_done":
        return
    if ev.type == "play.deal_done":
        hand["turn"] = _turn("E", "first_discard", ev.at, ruleset)
        return
    if ev.type == "play.missing":  # 定缺: said, not played; no draw, no turn
        hand["missing"] = {**hand.get("missing", {}), seat: d.get("suit")}
        return
    if ev.type == "play.riichi":  # 立直 with the seat's last discard (the one laid sideways)
        last = hand["discards"][seat][-1]["seq"] if hand["discards"][seat] else 0
        hand["riichi"] = {**hand.get("riichi", {}), seat: {"seq": ev.seq, "discard_seq": last}}
        _abortive_shown(hand)
        return
    late = ev.type == "play.claim" and _claimed_late(hand, seat, d.get("from"))
    if late:  # keyed after the claimer's discard (a claim from 上家 the camera missed): it drew nothing
        hand["live_drawn"] = max(0, hand.get("live_drawn", 0) - 1)
    elif ev.type == "play.claim":
        hand["pending_draw"] = False  # the claimer takes the discard instead of drawing
    elif hand.get("pending_draw"):
        hand["live_drawn"] = hand.get("live_drawn", 0) + 1  # the seat drew from the wall before acting
        hand["pending_draw"] = False
    if ev.type == "play.discard":
        after_kong = hand.get("kong_by") == seat  # 杠上炮 if this discard is won on
        hand["discards"][seat].append({"tile": d.get("tile"), "seq": ev.seq, "claimed": False,
                                       **({"after_kong": True} if after_kong else {}),
                                       # put in by a correction: named by its seq, not by `seq` (19.5)
                                       **({"inserted": d["inserted"]} if d.get("inserted") else {})})
        hand["turn"] = _turn(next_playing(seat, hand.get("out") or ()), "discard", ev.at, ruleset)
        _chase(hand, ev, seat, d.get("tile"), ruleset)
        claim = _turn(seat, "claim", ev.at, ruleset)
        hand["claim"] = {**claim, "tile": d.get("tile")} if claim["limit_s"] else None
        hand["pending_draw"] = True
    elif ev.type == "play.claim":
        frm = d.get("from")
        if frm in SEATS and hand["discards"][frm]:
            hand["discards"][frm][-1]["claimed"] = True
            _feed(hand, seat, frm, ruleset)
            if d.get("kind") in ("pung", "kong"):
                _seal(hand, seat, frm, ruleset)
        if d.get("kind") in ("pung", "kong") and frm in SEATS and hand.get("riichi_declarations"):
            _pao(hand, seat, frm, list(d.get("tiles", [])))
        hand["melds"][seat].append({"type": d.get("kind", "pung"), "tiles": list(d.get("tiles", [])),
                                    "concealed": False, "from": frm, **({"late_seq": ev.seq} if late else {})})
        if not late:  # a late claim leaves the turn where the claimer's discard put it
            hand["turn"] = _turn(seat, "discard", ev.at, ruleset)
            hand["claim"] = None
        if d.get("kind") == "kong":
            hand["tail_drawn"] = hand.get("tail_drawn", 0) + 1  # the replacement tile
            _pay_kong(hand, ev, seat, "exposed", frm, ruleset)
    elif ev.type == "play.kong":
        tiles = list(d.get("tiles", []))
        pung = next((m for m in hand["melds"][seat] if d.get("added") and m["type"] == "pung"
                     and tiles and m["tiles"][:1] == tiles[:1]), None)
        if pung is not None:  # 补杠: the pung becomes a kong where it lies
            pung.update(type="kong", tiles=tiles, added_seq=ev.seq)  # 抢杠: a win may take it back
        else:
            hand["melds"][seat].append({"type": "kong", "tiles": tiles, "concealed": bool(d.get("concealed")),
                                        "from": None})
        # a kong from the hand pays as 暗杠 whether its tiles lie face up or down
        # (a 补杠 names the seat whose discard made the pung: 南宁 has that seat pay it)
        _pay_kong(hand, ev, seat, "added" if pung is not None else "concealed",
                  pung.get("from") if pung is not None else None, ruleset)
        hand["turn"] = _turn(seat, "discard", ev.at, ruleset)
        hand["claim"] = None
        hand["tail_drawn"] = hand.get("tail_drawn", 0) + 1
    elif ev.type == "play.flower":
        hand["flowers"][seat].append(d.get("tile"))
        if _replacement_stands(hand):  # a 海底 that is a flower has none: 荒牌 (walls.md)
            hand["tail_drawn"] = hand.get("tail_drawn", 0) + 1
        else:
            hand["flower_unreplaced"] = seat  # and nothing more is played (controller._wall_empty)
    if ev.type in ("play.discard", "play.claim", "play.kong", "play.flower"):
        hand["play_seq"] = ev.seq  # a win confirmed or undone before it leaves the turn and the draws alone
    if ev.type in ("play.discard", "play.claim", "play.kong", "play.flower"):
        # the seat that just chowed, until the next play (国标: no kong before its next draw, `controller._kong_problem`)
        if ev.type == "play.claim" and d.get("kind") == "chow" and not late:
            hand["chowed"] = seat
        else:
            hand.pop("chowed", None)
    if ev.type in ("play.claim", "play.kong"):
        hand["run"] = []  # a claim or a kong breaks a run of the same discard (追牌)
        hand["last_call"] = ev.seq  # and breaks 一发
        hand.setdefault("first_call", ev.seq)  # a call before a seat's first discard: no 两立直 for it
    if ev.type != "play.flower":  # a flower replaced after a kong keeps the seat's discard 杠上炮
        hand["kong_by"] = seat if ev.type == "play.kong" or d.get("kind") == "kong" else None
        hand.pop("kong_flower", None)
    elif hand.get("kong_by") == seat:  # the kong's replacement was a flower: a win now is not on the kong's tile
        hand["kong_flower"] = True
    _abortive_shown(hand)
    _wall_now(hand)


def _abortive_shown(hand: dict[str, Any]) -> None:
    """The abortive draws the record shows now (四风连打, 四家立直, 四杠散了): the page marks their buttons."""
    if hand.get("abortive_draws"):
        from table_controller.hand.abortive import shown

        hand["abortive_shown"] = shown(hand, hand["abortive_draws"])


def _chase(hand: dict[str, Any], ev: Event, seat: str, tile: Any, ruleset: str) -> None:
    """竞技 追牌现场汇 (seed 004 三十七): four seats in a row discard the same tile, no claim between;
    the first pays on the spot what the ruleset's scorer says (`scoring.chase_payment`: 竞技 `chase_each` to each
    other seat, 倍打 doubling it, from the ruleset's own table). 广东 跟庄 (`[flow] follow_dealer`) is the same run
    begun by the dealer in the hand's first go-around(s), nobody having called: the dealer pays
    (`scoring.follow_payment`); its entry says `kind: "follow"` for the sheet."""
    from table_controller import settlements
    from table_controller.referee import flow_of
    from table_controller.scoring import ScoringError, chase_payment, follow_payment

    kept = settlements.kept(ev.data)  # the 追牌 paid as logged with this discard, whatever the ruleset says now
    flow = flow_of(ruleset)
    if not flow.chase and not flow.follow_dealer and kept is None:
        return
    payer, now, kind = None, {}, settlements.FOLLOW if flow.follow_dealer else settlements.CHASE
    run = [*hand.get("run", []), [seat, tile]][-4:]
    hand["run"] = run
    four = len(run) == 4 and len({t for _, t in run}) == 1 and len({w for w, _ in run}) == 4
    try:
        if flow.chase and four:
            payer = run[0][0]
            now = settlements.paid(chase_payment(ruleset, payer, double=bool(hand.get("double"))))
        elif four and _followed(hand, run, flow.follow_dealer):
            payer = "E"
            now = settlements.paid(follow_payment(ruleset, payer))
    except ScoringError:  # a ruleset the referee scores: no table to pay it from
        now = {}
    if payer is not None and flow.chase:
        hand["run"] = []
    if kept is not None:
        got = settlements.paid(kept["by_wind"])
        if got != now:
            settlements.note_play(hand, ev, kept.get("kind", kind), kept.get("seat"), got,
                                  {"valid": True, "by_wind": now})
        payer, now, kind = kept.get("seat"), got, kept.get("kind", kind)
    if now:
        hand["chase_payments"] = hand.get("chase_payments", []) + [
            {"seq": ev.seq, "seat": payer, "tile": tile, "by_wind": now,
             **({"kind": settlements.FOLLOW} if kind == settlements.FOLLOW else {})}]


def _followed(hand: dict[str, Any], run: list[list[Any]], rounds: int) -> bool:
    """跟庄: the run of four is E, S, W, N, nobody has called or konged this hand, and it is a go-around the
    ruleset counts (`follow_dealer`: 1 the first only; 2 the second too, where the first was followed)."""
    before = sum(1 for c in hand.get("chase_payments", []) if c.get("kind") == "follow")
    return ([w for w, _ in run] == list(SEATS) and not any(hand["melds"][w] for w in SEATS)
            and len(hand["discards"]["E"]) == before + 1 <= rounds)


def _feed(hand: dict[str, Any], claimer: str, feeder: str, ruleset: str) -> None:
    """竞技 包付 (吃碰三次): `baofu_claims` claims in a row by one seat from one feeder bind them;
    a later win read of either carries `options.baofu` (`referee.record_options`)."""
    from table_controller.referee import flow_of

    need = flow_of(ruleset).baofu_claims
    if not need:
        return
    feeds = dict(hand.get("feeds", {}))
    was, n = feeds.get(claimer, [feeder, 0])
    n = n + 1 if was == feeder else 1
    feeds[claimer] = [feeder, n]
    hand["feeds"] = feeds
    if n >= need and [claimer, feeder] not in hand.get("bao", []):
        hand["bao"] = [*hand.get("bao", []), [claimer, feeder]]


def _seal(hand: dict[str, Any], claimer: str, feeder: str, ruleset: str) -> None:
    """南宁 封胡: a seat that fed one seat `seal_pungs` pungs or 明杠 this hand (in any order; a 暗杠
    is not fed) may not win it, and pays for that seat's win (`referee.record_options`: `sealed`)."""
    from table_controller.referee import flow_of

    need = flow_of(ruleset).seal_pungs
    if not need:
        return
    key = f"{feeder}>{claimer}"
    fed = {**hand.get("pungs_fed", {}), key: hand.get("pungs_fed", {}).get(key, 0) + 1}
    hand["pungs_fed"] = fed
    if fed[key] == need:
        hand["sealed"] = [*hand.get("sealed", []), [feeder, claimer]]


#: 包 (riichi pao): the honour sets a yakuman needs all of → its name in `[scoring] pao`
PAO_SETS = {"daisangen": ("5z", "6z", "7z"), "daisuushii": ("1z", "2z", "3z", "4z")}


def _pao(hand: dict[str, Any], claimer: str, feeder: str, tiles: list[str]) -> None:
    """包 (riichi): a pung or kong claimed that completes the claimer's melds of all three dragons (大三元) or
    all four winds (大四喜) makes its feeder liable for that yakuman (`referee.record_options`: `pao`).
    Called before the meld is added: the claimed set is the last one missing."""
    for name, kinds in PAO_SETS.items():
        held = {m["tiles"][0] for m in hand["melds"][claimer] if m.get("type") in ("pung", "kong") and m.get("tiles")}
        if tiles[:1] and tiles[0] in kinds and tiles[0] not in held and held >= set(kinds) - {tiles[0]}:
            hand["pao"] = {**hand.get("pao", {}), claimer: {"seat": feeder, "yakuman": name}}


def _claimed_late(hand: dict[str, Any], seat: Any, frm: Any) -> bool:
    """Whether a claim is recorded after the claimer already discarded (its newest discard is
    newer than the discard it claims): keyed late, for a claim the camera could not see."""
    if seat not in SEATS or frm not in SEATS or not hand["discards"][frm] or not hand["discards"][seat]:
        return False
    return float(hand["discards"][seat][-1]["seq"]) > float(hand["discards"][frm][-1]["seq"])  # 19.5: inserted


def next_playing(seat: str, out: Any = ()) -> str:
    """The seat after `seat` in play order that is still playing (血战到底: the seats `out` have won)."""
    for k in range(1, 5):
        nxt = SEATS[(SEATS.index(seat) + k) % 4]
        if nxt not in out:
            return nxt
    return SEATS[(SEATS.index(seat) + 1) % 4]


#: What a confirmed win changes on the live hand and its undo puts back (`after_win`, `undo_win`).
_RESTORED = ("turn", "claim", "pending_draw", "live_drawn", "won_seq")


def after_win(hand: dict[str, Any], win: dict[str, Any], flow: Any, wins: list[dict[str, Any]],
              at: float) -> dict[str, Any]:
    """What a confirmed win does to the live hand; returns what an undo of it puts back.

    Where one win ends play (MCR, 竞技 and 广东 even with 一炮多响) nobody has the turn any more.
    Where play goes on (血战到底, 血流成河) the tile won on leaves the pool, a self-drawn win counts
    its draw from the wall, and the turn passes to the seat after the winner (after the last
    of several winners on one discard or one robbed 补杠, counted from the discarder or the
    konger), skipping seats that are out.
    A win confirmed after plays made since it was read (again, after an undo, where play went on)
    leaves the turn and the draws where those plays put them.
    """
    discarder = win.get("discarder")
    on = _won_on(hand, win)
    restore = {"turn": hand.get("turn"), "claim": hand.get("claim"), "pending_draw": hand.get("pending_draw"),
               "live_drawn": hand.get("live_drawn", 0), "won_discard": None, "won_seq": hand.get("won_seq"),
               # the discard won on (its seq), claimed by this win or by one before it on the same discard:
               # what a read again after an undo is held to (`referee.read_against_record`)
               "won_on": hand["discards"][discarder][on]["seq"] if on is not None else None,
               "robbed": _rob_kong(hand, win) if win.get("win_kind") == "rob_kong" else None,
               "play_seq": hand.get("play_seq"),
               # keys the hand did not have yet (no draw counted, no win): an undo leaves them out again
               "absent": [k for k in (*_RESTORED, "wall_now") if k not in hand]}
    if flow.continue_after_win == "end":
        if win.get("win_kind") not in ("discard", "rob_kong") and hand.get("pending_draw"):
            # 自摸: the winner's draw stands no more (买马's horses, the tiles left at the hand's end)
            hand["live_drawn"] = hand.get("live_drawn", 0) + 1
            hand["pending_draw"] = False
        hand["turn"] = None
        hand["claim"] = None
        _wall_now(hand)
        return restore
    seat = win["seat"]
    out = set(hand.get("out") or [])
    if flow.continue_after_win == "blood_battle":
        out |= {w["seat"] for w in wins}
    if win.get("win_kind") == "discard" and discarder in SEATS:
        pool = hand["discards"][discarder]
        if on is not None and not pool[on].get("claimed"):
            pool[on] = {**pool[on], "claimed": True, "won_by": seat}
            restore["won_discard"] = [discarder, on]
        from table_controller.referee import discard_of

        same = [w["seat"] for w in wins if discard_of(w) == discard_of(win)]
        seat = max(same, key=lambda w: (SEATS.index(w) - SEATS.index(discarder)) % 4)
    elif win.get("win_kind") == "rob_kong" and discarder in SEATS:  # 血战: more than one robbed the same 补杠
        same = [w["seat"] for w in wins if w.get("win_kind") == "rob_kong"
                and (w.get("discarder"), w.get("win_tile")) == (discarder, win.get("win_tile"))]
        seat = max(same, key=lambda w: (SEATS.index(w) - SEATS.index(discarder)) % 4)
    if int(hand.get("play_seq") or 0) > int(win.get("read_seq") or win.get("seq") or 0):
        hand["won_seq"] = win.get("read_seq")  # played past already: its draw counted, the turn moved on
        _wall_now(hand)
        return restore
    if not (win.get("win_kind") in ("discard", "rob_kong") and discarder in SEATS) and hand.get("pending_draw"):
        # 自摸: the winner drew from the wall first (a robbed 补杠's tile is the konger's, drawn already)
        hand["live_drawn"] = hand.get("live_drawn", 0) + 1
    hand["pending_draw"] = True
    hand["claim"] = None
    hand["won_seq"] = win.get("seq")  # a discard made before it is past claiming (controller._passed_by)
    if len(out) >= 3:  # 血战到底: one seat left, the hand is over
        hand["turn"] = None
    else:
        hand["turn"] = _turn(next_playing(seat, out), "discard", at, hand.get("ruleset", ""))
    _wall_now(hand)
    return restore


def _won_on(hand: dict[str, Any], win: dict[str, Any]) -> int | None:
    """Where in the discarder's pool the discard a win on a discard was won on lies: its newest of the tile
    before the win was read (not one discarded since); None for another win, or where the record has none."""
    discarder = win.get("discarder")
    if win.get("win_kind") != "discard" or discarder not in SEATS:
        return None
    pool = (hand.get("discards") or {}).get(discarder) or []
    read = int(win.get("read_seq") or win.get("seq") or 0)
    return next((i for i in range(len(pool) - 1, -1, -1)
                 if pool[i].get("tile") == win.get("win_tile") and int(pool[i].get("seq") or 0) <= read), None)


def _rob_kong(hand: dict[str, Any], win: dict[str, Any]) -> dict[str, Any] | None:
    """抢杠和: the robbed 补杠 never stands. The konger's kong goes back to the pung it was, its
    on-the-spot payment is void and its replacement tile was never drawn. Returns what undoes it."""
    konger, tile = win.get("discarder"), win.get("win_tile")
    melds = (hand.get("melds") or {}).get(konger) or []
    i = next((i for i in range(len(melds) - 1, -1, -1) if melds[i].get("type") == "kong"
              and melds[i].get("added_seq") and (melds[i].get("tiles") or [None])[0] == tile), None)
    if i is None:
        return None  # the 补杠 was never recorded: nothing to take back
    kong = melds[i]
    melds[i] = {k: v for k, v in kong.items() if k != "added_seq"} | {"type": "pung", "tiles": kong["tiles"][:3]}
    pays = hand.get("kong_payments", [])
    paid = next((p for p in pays if p.get("seq") == kong["added_seq"]), None)
    hand["kong_payments"] = [p for p in pays if p is not paid]
    hand["tail_drawn"] = max(0, hand.get("tail_drawn", 0) - 1)
    notes = [n for n in hand.get("rescored", []) if n.get("kind") == "kong" and n.get("seq") == kong["added_seq"]]
    if notes:  # a kong that never stood pays nothing, whatever today's rules say: nothing for the check to name
        hand["rescored"] = [n for n in hand["rescored"] if n not in notes]
    return {"seat": konger, "index": i, "kong": kong, "payment": paid, **({"notes": notes} if notes else {})}


def undo_win(hand: dict[str, Any], restore: dict[str, Any] | None) -> None:
    """Put back what `after_win` changed (plays recorded since stay as they are: where play went on
    after the win, 血战/血流, the turn and the draws they counted stand)."""
    if not restore:
        return
    moved = "play_seq" in restore and hand.get("play_seq") != restore["play_seq"]
    robbed = restore.get("robbed")
    if robbed:  # the 补杠 stands again, paid
        hand["melds"][robbed["seat"]][robbed["index"]] = robbed["kong"]
        if robbed["payment"]:
            hand["kong_payments"] = sorted([*hand.get("kong_payments", []), robbed["payment"]], key=lambda p: p["seq"])
        if robbed.get("notes"):
            hand["rescored"] = sorted([*hand.get("rescored", []), *robbed["notes"]], key=lambda n: n["seq"])
        hand["tail_drawn"] = hand.get("tail_drawn", 0) + 1
    absent = restore.get("absent") or ()
    for key in ("won_seq",) if moved else _RESTORED:
        if key in absent:  # as it was: a state folded without the win has no such key
            hand.pop(key, None)
        else:
            hand[key] = restore.get(key)
    if restore.get("won_discard"):
        seat, i = restore["won_discard"]
        pool = hand["discards"][seat]
        if i < len(pool):
            pool[i] = {k: v for k, v in pool[i].items() if k != "won_by"} | {"claimed": False}
    if "wall_now" in absent and not moved and not robbed:  # no draw counted before the win: none shown again
        hand.pop("wall_now", None)
        hand.pop("tiles_left", None)
    else:
        _wall_now(hand)


def _pay_kong(hand: dict[str, Any], ev: Event, seat: str, kind: str, discarder: str | None, ruleset: str) -> None:
    """The kong's on-the-spot payment where the ruleset has one (竞技 杠牌现场汇, 四川 刮风下雨,
    广东 杠分; none in MCR), kept on the hand for the score sheet (`kong_payments`)."""
    from table_controller.scoring import ScoringError, kong_payment

    from table_controller import settlements

    note = {"seat": seat, "kind": kind, "discarder": discarder, "double": bool(hand.get("double"))}
    playing = tuple(w for w in SEATS if w not in hand.get("out", []))  # 血战: winners pay no more
    try:
        pay = kong_payment(ruleset, note, playing)
    except ScoringError:  # a ruleset with no [scoring] table (shanghai, wuhan: the referee scores): none
        pay = None
    now = settlements.paid(pay)
    kept = settlements.kept(ev.data)  # as logged with the kong: a ruleset edited since changes no old kong
    if kept is not None:
        got = settlements.paid(kept["by_wind"])
        if got != now:  # today's rules would pay it otherwise: `tablectl check` names it
            settlements.note_play(hand, ev, settlements.KONG, seat, got, {"valid": True, "by_wind": now})
        now = got
    if now:
        hand["kong_payments"] = hand.get("kong_payments", []) + [
            {"seq": ev.seq, "seat": seat, "kind": kind, "by_wind": now}]


def _replacement_stands(hand: dict[str, Any]) -> bool:
    """Whether a tile stands for one more replacement draw. After the 海底 a wall without a reserve
    has none: the flower drawn last is laid out unreplaced and the hand is 荒牌 (walls.md "exhausted
    when no tile is left to draw"); counting a replacement there put the wall in error. Without a
    deal, or with counts the wall cannot hold already, the replacement is counted as seen."""
    from table_controller.rules import WallError

    if not hand.get("deal") or (hand.get("wall_now") or {}).get("error"):
        return True
    try:
        hand_plan(hand).state_after(live_drawn=hand.get("live_drawn", 0), tail_drawn=hand.get("tail_drawn", 0) + 1)
    except WallError:
        return False
    return True


def _wall_now(hand: dict[str, Any]) -> None:
    """Next draw, next replacement, 海底 and tiles left after the draws counted so far (rules engine)."""
    from table_controller.rules import WallError

    if not hand.get("deal"):
        return
    live, tail = hand.get("live_drawn", 0), hand.get("tail_drawn", 0)
    try:
        st = hand_plan(hand).state_after(live_drawn=live, tail_drawn=tail)
    except WallError as exc:  # more draws counted than the wall holds: shown, not guessed
        hand["wall_now"] = {"live_drawn": live, "tail_drawn": tail, "live_left": 0, "error": str(exc)}
    else:
        hand["wall_now"] = {"live_drawn": live, "tail_drawn": tail, "live_left": st.live_left,
                            "next_draw": st.next_draw, "next_replacement": st.next_replacement,
                            "last_live": st.last_live}
        if st.plan.ruleset.reserve:
            # 留牌 (海南's 15, riichi's dead wall): still that many standing after each replacement, so it moves with
            # the 海底; the deal's `dead` is where it stood before any (walls.md "海底 ... moves as replacement tiles
            # are taken"). The Table page marked the deal's, leaving a tile between the 海底 and the 留牌 unmarked.
            hand["wall_now"]["dead"] = list(st.dead())
        if any(rule.kan_step for rule in st.plan.ruleset.indicators):
            # riichi's 杠宝牌: each replacement turns up one more indicator (`WallState.indicator_positions`); the page
            # marked the deal's first only, and the referee looked for the kong's in the dead wall unaided
            hand["wall_now"]["indicators"] = {k: list(v) for k, v in st.indicator_positions().items()}
        if st.plan.ruleset.hand_end is not None:  # 买马 / 钓鱼: the tiles turned up when the hand ends
            hand["wall_now"]["hand_end"] = list(st.hand_end_tiles())
        must = int(_flow_value(hand["ruleset"], "must_win_last") or 0)
        if must and st.in_last_zone:
            # 后4张必胡: the table cannot see who is ready, so it cannot force the win; the referee and the
            # players are told the rule holds now (the display's warning)
            hand["wall_now"]["must_win"] = must
    hand["tiles_left"] = hand["wall_now"]["live_left"]


def hand_plan(hand: dict[str, Any]) -> Any:
    """The rules engine's deal plan of a dealt hand (its ruleset, throws and wall lengths), cached per rulesets
    folder as the ruleset is read (`rules.ruleset.in_use`): keyed by the id alone, a venue's copy in another folder
    was dealt by the first folder's `[break]` and `[deal]`."""
    throws = tuple(tuple(th["dice"]) for th in hand["throws"])
    lengths = tuple(sorted((hand.get("wall_lengths") or {}).items()))
    return _plan(hand["ruleset"], folder(), throws, lengths)


@lru_cache(maxsize=16)
def _plan(ruleset_id: str, directory: str, throws: tuple[tuple[int, ...], ...],
          lengths: tuple[tuple[str, int], ...]) -> Any:
    from table_controller.rules import deal_plan

    return deal_plan(_ruleset(ruleset_id), dice=throws[0], dice2=throws[1] if len(throws) > 1 else None,
                     wall_lengths=dict(lengths) or None)


def _describe_referee(ev: Event) -> str:
    """Log lines for referee and play events: never a concealed tile (the log is public)."""
    d = ev.data
    seat = SEAT_NAMES.get(d.get("seat", ""), d.get("seat", ""))
    t = ev.type
    if t == "referee.penalty":
        return f"裁判：{seat}家 罚则 {d.get('code', '')}"
    if t == "referee.win_read":
        h = d.get("hand") or {}
        return f"读牌：{SEAT_NAMES.get(h.get('seat_wind', ''), '?')}家和牌" + ("（更正）" if d.get("correction") else "")
    if t == "referee.win_confirm":
        return "裁判确认和牌"
    if t == "referee.exhaustive":
        return "裁判查叫（荒牌）"
    if t == "referee.session_start":
        return "裁判开始比赛计时" + (f"（{d['minutes']} 分钟）" if d.get("minutes") else "")
    if t == "referee.session_end":
        return "裁判结束比赛计时"
    if t == "referee.appeal":
        about = f"（针对 #{d['target']}）" if d.get("target") else ""
        return f"{d.get('position', '?')}号位选手提出申诉{about}：{str(d.get('text', ''))[:40]}"
    if t == "referee.appeal_ruling":
        return f"仲裁委员会裁决申诉 #{d.get('appeal', '')}：{'支持' if d.get('upheld') else '驳回'}（{str(d.get('note', ''))[:40]}）"
    if t == "referee.clock_pause":
        return "裁判暂停比赛计时" + (f"：{d['reason']}" if d.get("reason") else "")
    if t == "referee.clock_resume":
        return "裁判继续比赛计时"
    if t == "referee.round_start":
        players = d.get("players") if isinstance(d.get("players"), dict) else {}
        names = "、".join(str(v) for _, v in sorted(players.items(), key=lambda kv: str(kv[0])))
        return f"裁判开始第 {d.get('round', '?')} 轮" + (f"：{names}" if names else "")
    if t == "referee.substitute":
        return f"裁判换人：{d.get('position', '?')}号位由 {d.get('name', '')} 替补（下一盘起）：{str(d.get('reason', ''))[:40]}"
    if t == "referee.undo":
        return f"裁判撤销 #{d.get('target', '')}：{d.get('reason', '')}"
    if t == corrections.TYPE and d.get("play") is not None and d.get("target") is None:
        before = d.get("insert_before")
        where = f"#{before} 前" if before is not None else f"#{d.get('insert_after', '')} 后"
        return f"裁判补录行牌（{where}）：{d.get('reason', '')}"
    if t == corrections.TYPE:
        what = "改记" if d.get("play") is not None else "作废" if d.get("void") else "更正"
        return f"裁判{what}记录 #{d.get('target', '')}：{d.get('reason', '')}"
    if t == "referee.camera_confirm":
        kind = d.get("kind")
        return f"裁判确认识牌 #{d.get('seq', '')}" + (f"：{_tile_zh(kind)}" if kind else "")
    if t == "referee.camera_dismiss":  # names no tile: the object was none
        return f"裁判判定识牌 #{d.get('seq', '')} 不是牌"
    if t == "play.deal_done":
        return "起牌完毕，庄家出牌"
    if t == "play.discard":
        return f"{seat}家打出 {_tile_zh(d.get('tile'))}"
    if t == "play.claim":
        kind = {"chow": "吃", "pung": "碰", "kong": "杠"}.get(d.get("kind", ""), d.get("kind", ""))
        return f"{seat}家{kind} {' '.join(_tile_zh(x) for x in d.get('tiles', []))}"
    if t == "play.kong":
        if d.get("concealed"):
            return f"{seat}家暗杠"
        if d.get("added"):
            return f"{seat}家补杠 {_tile_zh((d.get('tiles') or [''])[0])}"
        return f"{seat}家杠 {' '.join(_tile_zh(x) for x in d.get('tiles', []))}"
    if t == "play.flower":
        return f"{seat}家补花 {_tile_zh(d.get('tile'))}"
    if t == "play.missing":
        return f"{seat}家定缺：{_suit_zh(d.get('suit'))}"
    if t == "play.riichi":
        return f"{seat}家立直"
    return t


def _suit_zh(code: Any) -> str:
    from table_controller.tiles import TileError, suit_name

    try:
        return suit_name(str(code))
    except TileError:
        return str(code)


def _tile_zh(code: Any) -> str:
    from table_controller.tiles import tile_name

    try:
        return tile_name(str(code))
    except Exception:  # a misread code is shown as read, not hidden
        return str(code)


def walls_down(s: TableState) -> tuple[str, str] | None:
    """Why a throw now would not count for the hand's break, its walls not up as the table itself says (its phase
    one of `WALLS_DOWN`), in Chinese and English; None when the walls stand or nobody can tell. Nobody can tell
    where the table reports no phases (the remote-control dialect; a log or test with dice and no phases), while
    the link is down (the phase is the last heard: the walls may have risen since, and the operator keys the throw
    the players made meanwhile), or for a phase this host does not know (an older log's `fault`): a throw then
    counts as before, since holding it back on a guess would leave the hand without a break, and the referee sees
    every throw in the log. Walls up as the hand started are the last hand's (`last_walls`), until the table
    reports them down: the start takes them in first, and a throw on them counted for the new hand."""
    if not s.phase_by_table or not s.link.get("up"):
        return None
    if s.hand is not None and s.hand.get("last_walls"):
        return "上一盘的牌墙尚未降下", "the last hand's walls are still up"
    if s.phase not in WALLS_DOWN:
        return None
    return (f"牌墙尚未升起（牌桌：{PHASE_ZH.get(s.phase, s.phase)}）",
            f"the walls are not up yet (the table: {s.phase.replace('_', ' ')})")


def dice_refusal(s: TableState) -> tuple[str, str] | None:
    """Why a throw keyed now (`POST /api/dice`) is refused while the hand waits for its break: the table says its
    walls are not up (`walls_down`), so its own report would not count; in Chinese and English, None when it is
    taken. One function for the API's refusal (`Controller.record_dice`) and the page's form (`projection._base`
    `dice_refused`): the page offered 录入骰子 while the walls were built, and pressing it got this 409."""
    hand = s.hand
    if hand is None or hand.get("ended") or hand.get("deal") is not None or (down := walls_down(s)) is None:
        return None
    seat = hand.get("next_thrower") or "E"
    return (f"{down[0]}：牌墙升起后再由{SEAT_NAMES[seat]}家掷骰、录入",
            f"{down[1]}: key the throw made once they are")


def _dice_unit_down(s: TableState) -> bool:
    """Whether a fault the table reported stops its dice unit (protocol.md §9 `dice`): it reports no throw then."""
    from drivers.faults import BY_CODE

    return any("dice" in kind.blocks for code in s.faults
               if str(code).isdigit() and (kind := BY_CODE.get(int(code))) is not None)


def _report_due(hand: dict[str, Any], wind: Any, dice_unit_down: bool) -> bool:
    """Whether the board will still report the throw of `wind` keyed now (the throw the hand waits for): its dice
    unit throws the ruleset's dice and is not faulted, and it has not reported this throw already in a form the
    hand could not take (a face of 7, a die short, no side named: the operator keyed the throw in its place).
    Where the board owes no report, its next throw is a throw of its own (国标's dealer again on a 5 or a 9)."""
    table_dice = hand.get("table_dice")
    if dice_unit_down or table_dice == 0 or (table_dice is not None and table_dice != hand.get("dice_count")):
        return False
    turn = len(hand["throws"])
    return not any((ig.get("seat") == wind and ig.get("reason")) or ig.get("seat") not in SEATS
                   for ig in hand.get("ignored_throws", ()) if ig.get("turn") == turn and not ig.get("keyed"))


def _apply_throw(hand: dict[str, Any], d: dict[str, Any], seq: int, keyed: bool = False,
                 walls_down: tuple[str, str] | None = None, dice_unit_down: bool = False) -> None:
    """Record a throw (the table's dice, or dice keyed by the operator); when the ruleset's
    throws are complete, compute the wall break.

    A throw the hand does not take (after its break, after its end, out of turn, a side the board did not
    name) or the ruleset cannot use (a 2-dice table under a 3-dice rule, a dice unit's fault, a face of 0
    or 7) is kept among the ignored throws with why (`note`, `note_en`; the log's line says it, `_log_line`),
    and the same seat throws again, or the operator keys the dice thrown by hand: a bad throw never leaves
    the hand without a break. Before, a throw after the break or out of turn was logged as a throw like any
    other (东家掷骰：5、1), and players read the break as thrown twice. So is a throw while the table says its
    walls are not up (`walls_down`: why, as `walls_down` gave it): a press of the dice button while the set was
    still built set the break, and the dealer's throw once the walls rose was 不计：本盘骰子已掷完.

    A keyed throw the board will still report (`_report_due`: its cable was out, or the operator keyed faster than
    the dice settled) waits for that report (`report_due`, the throw's index): the same faces are the same throw;
    other faces are the board's reading of it (or a player's throw before the next was due) and the keyed throw,
    the referee's ruling, stands: the report is set aside saying so and the hand tells the referee
    (`dice_dispute`). Before, a differing report was a throw of its own, and under 国标 a keyed 5 or 9 took it as
    the dealer's second throw: the wall broken on a throw nobody made."""
    from table_controller.rules import DealError, deal_plan, next_thrower

    rs = _ruleset(hand["ruleset"])
    dice = [int(x) for x in d.get("dice", [])]
    wind = d.get("wind", d.get("seat"))

    def aside(note: str, note_en: str, **more: Any) -> None:
        hand.setdefault("ignored_throws", []).append(
            {"seq": seq, "seat": wind, "side": d.get("seat"), "dice": dice, "note": note, "note_en": note_en,
             "turn": len(hand["throws"]), **({"keyed": True} if keyed else {}), **more})

    if hand.get("ended"):
        aside("本盘已结束", "the hand is over")
        return
    last = hand["throws"][-1] if hand["throws"] else None
    if (not keyed and last is not None and hand.get("report_due") == len(hand["throws"]) - 1
            and last["seat"] == wind):
        # the board's report of the throw the operator keyed (its link was out, its report late): one throw,
        # the keyed one; under 国标 a dealer's 5 or 9 took it as the dealer's second throw
        hand["throws"][-1] = {**last, "reported": seq}
        del hand["report_due"]
        shown, shown_en = "、".join(map(str, last["dice"])), ", ".join(map(str, last["dice"]))
        if sorted(last["dice"]) == sorted(dice):
            aside(f"{SEAT_NAMES.get(wind, wind)}家此次掷骰已录入（{shown}），牌桌所报为同一次",
                  f"the same throw as the one keyed ({shown_en})")
            return
        got, got_en = "、".join(map(str, dice)), ", ".join(map(str, dice))
        aside(f"{SEAT_NAMES.get(wind, wind)}家此次掷骰已录入（{shown}），牌桌所报（{got}）与录入不符，以录入为准",
              f"the table reported {got_en} for the throw keyed as {shown_en}: the keyed throw stands")
        hand["dice_dispute"] = {
            "seq": seq, "seat": wind, "keyed": list(last["dice"]), "reported": dice,
            "text": f"牌桌所报{SEAT_NAMES.get(wind, wind)}家掷骰（{got}）与录入（{shown}）不符：以录入为准，牌桌所报不计；"
                    f"请核对桌上的骰子",
            "text_en": f"the table reported {wind}'s throw as {got_en}, keyed as {shown_en}: the keyed throw stands, "
                       f"the table's is not counted; check the dice on the table"}
        return
    if hand["deal"] is not None:
        aside("本盘骰子已掷完，已开门", "the dice are all thrown: the break is set")
        return
    if walls_down is not None:  # whoever threw: nobody's throw counts before the walls are up
        aside(*walls_down)
        return
    if wind not in SEATS:
        aside("牌桌未报告掷骰的座位，请录入骰子", "the table named no seat: key the dice")
        return
    if hand.get("next_thrower") and wind != hand["next_thrower"]:
        # Out of turn (a wrong button): shown to the referee, not counted for the break.
        aside(f"应由{SEAT_NAMES[hand['next_thrower']]}家掷骰", f"{hand['next_thrower']} throws next")
        return
    throw = {"seat": wind, "side": d.get("seat"), "dice": dice, **({"keyed": True} if keyed else {})}
    due = keyed and _report_due(hand, wind, dice_unit_down)
    throws = [tuple(th["dice"]) for th in hand["throws"]] + [tuple(dice)]
    try:
        after = next_thrower(rs, throws)
        deal = None
        if after is None:
            deal = deal_plan(rs, dice=throws[0], dice2=throws[1] if len(throws) > 1 else None,
                             wall_lengths=hand.get("wall_lengths")).to_json()
    except DealError as exc:
        # Not guessed: shown, set aside, and asked again (the dice are keyed where the table cannot throw them)
        if exc.code == "dice_count":
            why = f"本规则每次掷 {rs.dice_count} 颗骰子，此次 {len(dice)} 颗"
        elif exc.code == "dice_face":
            why = "骰子点数须为 1 至 6"
        else:
            why = "骰子无法开门"
        hand["error"] = f"{why}：请重掷或录入骰子 / {exc}: throw again or key the dice"
        aside(why, str(exc), reason=str(exc))
        return
    hand["throws"].append(throw)
    hand.pop("report_due", None)  # a report still due of an earlier throw is a throw of its own now
    if due:
        hand["report_due"] = len(hand["throws"]) - 1
    hand["next_thrower"] = after
    hand["error"] = None
    if deal is not None:
        hand["deal"] = deal


def fold(events: Iterable[Event], initial: TableState | None = None) -> TableState:
    """The state after every event of `events`, in order."""
    state = initial or TableState()
    for ev in events:
        state = apply(state, ev)
    return state

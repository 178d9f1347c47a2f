"""Chinese (and English) names of the table's phases, buttons and link states, for the referee display."""

from __future__ import annotations

#: phase id -> (中文, English); ids as on the wire (protocol.md §8).
PHASE_NAMES: dict[str, tuple[str, str]] = {
    "idle": ("空闲", "idle"),
    "building": ("洗牌码牌中", "shuffling and building"),
    "ready": ("牌已码好", "set ready"),
    "raising": ("升牌中", "raising the walls"),
    "walls_raised": ("牌墙已升起，请掷骰", "walls up, throw the dice"),
    "playing": ("对局中", "playing"),
    "lowering": ("开中心收牌中", "taking the tiles in"),
}

#: button id -> (中文, English)
BUTTON_NAMES: dict[str, tuple[str, str]] = {
    "dice": ("骰子键", "dice button"),
    "start": ("开始键", "start button"),
    "raise": ("升牌键", "raise button"),
    "lower": ("降牌键", "lower button"),
}

#: `link_down` reason / TableError code -> (中文, English)
LINK_REASONS: dict[str, tuple[str, str]] = {
    "silent": ("牌桌无响应（超过3.5秒未收到数据）", "the table went silent"),
    "no_ack": ("牌桌未确认数据（重发8次）", "the table stopped acknowledging"),
    "unplugged": ("连接线断开", "the cable was unplugged"),
    "table_reset": ("牌桌重新启动", "the table restarted"),
    "table_restarted": ("牌桌重新启动，命令未执行", "the table restarted; the command did not run"),
    "cannot_open": ("无法打开牌桌端口", "cannot open the table's port"),
    "no_answer": ("牌桌无应答", "no answer from the table"),
    "no_identity": ("牌桌未报告身份", "the table did not identify itself"),
    "timeout": ("牌桌未回复，请查询状态", "no reply; ask the table's status"),
    "closed": ("连接已关闭", "the link was closed"),
    "events_behind": ("牌桌事件未送达，正在重新同步", "table events missing; resynchronising"),
    "unsupported": ("此牌桌不支持该功能", "this table cannot do that"),
    "bad_phase": ("牌桌当前状态不允许此操作", "not possible in the table's current phase"),
    "bad_argument": ("参数错误", "bad argument"),
    "fault_active": ("牌桌故障，请先排除", "a table fault blocks this"),
    "link_down": ("连接中断", "the link went down"),
    "unknown_command": ("牌桌不认识此命令", "the table does not know this command"),
    "malformed": ("命令格式错误", "the command was malformed"),
}

#: A host → table command (protocol.md §7) -> (中文, English), for the log's line when one fails.
COMMAND_NAMES: dict[str, tuple[str, str]] = {
    "identify": ("握手", "identify"),
    "status": ("查询状态", "status"),
    "set_tile_count": ("设定牌数", "set the tile count"),
    "start_shuffle": ("洗牌砌牌", "shuffle and build"),
    "raise_walls": ("升牌", "raise the walls"),
    "lower_walls": ("降牌收牌", "lower the walls"),
    "roll_dice": ("掷骰", "roll the dice"),
    "set_seat_lights": ("座位指示灯", "seat lights"),
    "buzzer": ("蜂鸣器", "buzzer"),
    "reset": ("复位", "reset"),
    "ping": ("测试连接", "ping"),
}


def phase_zh(phase: str | None) -> str:
    """The Chinese name of a phase; an unknown id is shown as it is rather than hidden."""
    if phase is None:
        return "未知"
    return PHASE_NAMES.get(phase, (phase, phase))[0]


def reason_zh(code: str) -> str:
    return LINK_REASONS.get(code, (code, code))[0]


def reason_en(code: str) -> str:
    """The link reason in the English page's words; an unknown code as it is."""
    return LINK_REASONS.get(code, (code, code))[1]


def command_failed(name: str, error: BaseException) -> str:
    """A table command that failed, as the operator reads it: the command and the reason in Chinese first
    (by the error's `code`), then the driver's own words (the board's reason text is English)."""
    code = str(getattr(error, "code", ""))
    why = LINK_REASONS[code][0] if code in LINK_REASONS else "牌桌未执行"
    said = str(error)
    return f"{COMMAND_NAMES.get(name, (name, name))[0]}：{why} / {said if said.startswith(name) else f'{name}: {said}'}"

"""A seat button that reports itself over and over (a worn contact chattering past the board's debounce, a
button stuck and chattering, a board that does not debounce): told once as a notice, not line by line.

Every `button` event the table sends is still logged (the record keeps all it accepted). What changes is what
people see: once a button of one side is reported `presses` times within `window_s` (`[buttons]` in the
table's config), the controller logs `controller.button_chatter`; the fold then shows a notice beside the
faults (按键抖动：2号位开始键…) and counts that button's further presses on it instead of one log line each,
and the display's sockets send them at most once a `MUTED_EVERY_S`. When the button has been quiet for
`quiet_s` (read on the table's heartbeats), `controller.button_chatter_ended` clears the notice.
The times are the controller's clock's (`Controller.now`, steady): this module reads none.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from table_controller.tiles import SEATS

#: How often a display socket is sent a chattering button's presses (the notice's count), at most.
MUTED_EVERY_S = 1.0

#: Each button's Chinese name on the notice, and what the referee or the attendant does about it.
BUTTON_ZH = {"dice": "骰子键", "start": "开始键", "raise": "升牌键", "lower": "降牌键"}
BUTTON_EN = {"dice": "dice button", "start": "start button", "raise": "raise button", "lower": "lower button"}
REMEDY_ZH = "检查或更换该按键，修好前勿按；每次触发仍全部记录"
REMEDY_EN = "check or replace the button, do not press it until fixed; every report is still recorded"
DICE_REMEDY_ZH = "骰子机可能一直被占用：检查该按键，需要时在录入骰子处录入骰子；每次触发仍全部记录"
DICE_REMEDY_EN = ("the dice unit may be kept busy: check the button and key the dice by hand if need be; "
                  "every report is still recorded")


@dataclass(frozen=True)
class ChatterRules:
    """When a button is chattering (`presses` reports within `window_s` seconds) and when it has stopped
    (no report for `quiet_s` seconds): `[buttons]` in the table's config."""

    presses: int = 10
    window_s: float = 2.0
    quiet_s: float = 3.0


def key_of(data: Mapping[str, Any]) -> str | None:
    """A `table.button` event's button as `side:button` (`E:start`); None for one the board named no side for."""
    side, button = data.get("seat"), data.get("button")
    if side not in SEATS or not isinstance(button, str):
        return None
    return f"{side}:{button}"


class ButtonWatch:
    """The recent reports of each side's buttons, fed the controller's clock: says when one starts chattering
    and when a chattering one has gone quiet. No clock of its own, no I/O."""

    def __init__(self, rules: ChatterRules) -> None:
        self.rules = rules
        self._recent: dict[str, deque[float]] = {}
        self._last: dict[str, float] = {}

    def press(self, key: str, now: float, chattering: bool) -> int | None:
        """A report of button `key` at `now`; `chattering`: the log already holds its notice. The number of
        reports within the window when this one makes it chattering, else None."""
        self._last[key] = now
        recent = self._recent.setdefault(key, deque())
        recent.append(now)
        while recent and now - recent[0] > self.rules.window_s:
            recent.popleft()
        if chattering or len(recent) < self.rules.presses:
            return None
        count = len(recent)
        recent.clear()
        return count

    def quiet(self, now: float, chattering: Iterable[str]) -> list[str]:
        """The chattering buttons (the log's notices, `chattering`) not reported for `quiet_s` by `now`. One this
        watch has not heard (a notice from before a restart) is timed from the first time it is asked about."""
        ended = []
        for key in chattering:
            last = self._last.setdefault(key, now)
            if now - last >= self.rules.quiet_s:
                ended.append(key)
                del self._last[key]
                self._recent.pop(key, None)
        return ended


def where(key: str) -> tuple[str, str]:
    """Button `key` (`side:button`, as `key_of` makes it) named by its chair, Chinese and English: 2号位开始键."""
    side, _, button = key.partition(":")
    chair = SEATS.index(side) + 1
    return f"{chair}号位{BUTTON_ZH.get(button, button)}", f"chair {chair} {BUTTON_EN.get(button, button)}"


def notice(key: str, presses: int, window_s: float, seq: int, at: float) -> dict[str, Any]:
    """The notice shown beside the faults while `key` chatters: the fault list's fields (`name_zh`, `where_zh`,
    `remedy_zh` and their English), and the count of reports since it began."""
    side, _, button = key.partition(":")
    dice = button == "dice"
    where_zh, where_en = where(key)
    return {"key": key, "seat": side, "button": button, "seq": seq, "since": at, "presses": presses,
            "window_s": window_s, "code": "button_chatter",
            "name_zh": "按键抖动或卡住", "name_en": "button chattering or stuck",
            "where_zh": where_zh, "where": where_en,
            "remedy_zh": f"已连续触发 {presses} 次，" + (DICE_REMEDY_ZH if dice else REMEDY_ZH),
            "remedy_en": f"reported {presses} times; " + (DICE_REMEDY_EN if dice else REMEDY_EN)}


def counted(held: dict[str, Any]) -> dict[str, Any]:
    """The notice after one more report of its button."""
    presses = int(held.get("presses", 0)) + 1
    dice = held.get("button") == "dice"
    return {**held, "presses": presses,
            "remedy_zh": f"已连续触发 {presses} 次，" + (DICE_REMEDY_ZH if dice else REMEDY_ZH),
            "remedy_en": f"reported {presses} times; " + (DICE_REMEDY_EN if dice else REMEDY_EN)}


def muted(type_: str, data: Mapping[str, Any], seq: int, buttons: Mapping[str, Mapping[str, Any]]) -> bool:
    """Whether a logged event is a chattering button's report the notice counts: no line of its own on the
    page, no journal line, and sent to the display's sockets at most once a `MUTED_EVERY_S`."""
    if type_ != "table.button":
        return False
    key = key_of(data)
    held = buttons.get(key) if key is not None else None
    return held is not None and seq > int(held.get("seq", 0))

"""Scoring errors: one exception with a stable code a display can show, and the field at fault."""

from __future__ import annotations


class ScoringError(ValueError):
    """Malformed input to the scoring engine (not a verdict on a hand: that is `ScoreResult`).

    `code` is stable (`"bad_field"`, `"bad_tile"`, `"too_many_copies"`, `"unknown_ruleset"`, ...);
    `field` names the input field at fault (`"melds[1].tiles"`), or `""` when none is.
    """

    def __init__(self, code: str, message: str, field: str = "") -> None:
        super().__init__(f"{field}: {message}" if field else message)
        self.code = code
        self.field = field
        self.message = message  # without the field, for a caller that names it its own way


#: each code's gist in the referee's words: the scorer's messages are English (field names, tile codes), and the
#: people who read them at a table (the Win page, `tablectl score` / `waits`) read Chinese first
GIST_ZH = {"bad_tile": "读牌中有不是牌的代码", "bad_meld": "副露有误", "too_many_copies": "同一张牌超过 4 张（花牌各 1 张）",
           "wrong_tile_count": "手牌张数不对", "impossible_rob_kong": "抢杠和不成立",
           "impossible_kong_replacement": "杠上开花不成立（没有杠）", "bad_field": "读牌有误",
           "unknown_ruleset": "没有这个规则", "bad_ruleset_table": "规则文件有误"}


def chinese_first(exc: ScoringError, where: str = "") -> str:
    """The error as a person at the table reads it: its Chinese gist, then the message; a message in Chinese
    already (a check of ours that says both) with its field after it. `where`: what the fields are of
    (`"hand."` on the Win page)."""
    if any("\u4e00" <= ch <= "\u9fff" for ch in exc.message):
        return f"{exc.message} ({where}{exc.field})" if exc.field else exc.message
    return f"{GIST_ZH.get(exc.code, '读牌有误')} / {where}{exc}"

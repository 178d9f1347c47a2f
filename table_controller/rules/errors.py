"""Errors of the rules engine: one base class, each error with a stable code a display can show."""

from __future__ import annotations


class RulesError(Exception):
    """Base of every rules-engine error.

    `code` is stable (tests and the referee display match on it, never on the text);
    the message says in words what is wrong and what would be right.
    """

    code: str = "rules_error"

    def __init__(self, message: str, code: str | None = None) -> None:
        super().__init__(message)
        if code is not None:
            self.code = code

    @property
    def message(self) -> str:
        return str(self.args[0]) if self.args else ""


class RulesetError(RulesError, ValueError):
    """A ruleset file is missing, unknown or malformed (names the file and the key)."""

    code = "ruleset_invalid"


class DealError(RulesError, ValueError):
    """Dice or wall lengths that cannot produce a deal for the chosen ruleset."""

    code = "deal_invalid"


class WallError(RulesError):
    """A draw the wall cannot give: live wall exhausted (荒牌) or no replacement tile left."""

    code = "wall_error"


#: Each code's gist in the words of the people at the table, for a message said "中文 / English" (`tablectl deal`):
#: the messages are English (ids, file paths, keys); a code not here is one of the ruleset file's (规则文件有误).
GIST_ZH = {"dice_missing": "缺少骰子点数", "dice_count": "骰子个数与本规则不符", "dice_face": "骰子点数须为 1 至 6",
           "dice2_missing": "本规则须掷第二次骰子（--dice2）", "dice2_unexpected": "本规则只掷一次骰子：请去掉 --dice2",
           "dice_too_many": "掷骰次数多于本规则", "wall_lengths": "牌墙墩数有误", "position": "座位号须为 1 至 4",
           "unknown_ruleset": "没有这个规则", "ruleset_unreadable": "规则文件无法读取"}


def gist_zh(exc: RulesError) -> str:
    """`exc`'s gist in Chinese (`GIST_ZH`)."""
    return GIST_ZH.get(exc.code, "规则文件有误" if isinstance(exc, RulesetError) else "输入有误")

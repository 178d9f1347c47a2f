"""What the public reads of a referee action's refusal (`error`) and of today's rules' verdict on it (`rescored`),
where their words may quote a hand as read: a win read's, a confirmation's (和牌不成立：{the read's message}), a
查叫's. The read's message names what only the hand shows: 振听's waits (自己打过所听的二筒), 过胡不胡's tile the hand
would have won on, the scorer's tiles of a hand it refuses. The public reads that it was refused, not why; the
referee's view, record and log keep the words. Pure: the fold's log lines (`state`), the records (`record`) and
the projection read it (as `camera_public`)."""

from __future__ import annotations

from typing import Any

#: The actions whose refusal or rescoring may quote the hand (or hands) read
READ_ACTIONS = ("referee.win_read", "referee.win_confirm", "referee.exhaustive")
#: What the public reads in place of such a refusal's words
WITHHELD_ZH = "理由涉及所读手牌，仅见于裁判记录"
WITHHELD_EN = "the reason concerns the hand as read: in the referee's record only"
WITHHELD = f"{WITHHELD_ZH} / {WITHHELD_EN}"
#: The keys of a `rescored` that say why today's rules refuse it (the read's message, its reason)
RESCORED_WHY = ("message", "reason")


def quotes_read(action: dict[str, Any] | None) -> bool:
    """Whether `action`'s refusal or rescoring may quote a hand as read."""
    return action is not None and action.get("type") in READ_ACTIONS


def public_error(action: dict[str, Any]) -> Any:
    """`action`'s refusal (`error`) as the public may read it: withheld where it may quote a hand as read."""
    error = action.get("error")
    return WITHHELD if error and quotes_read(action) else error


def public_rescored(action: dict[str, Any]) -> Any:
    """`action`'s `rescored` as the public may read it: whether today's rules take it, its figures, not why not."""
    now = action.get("rescored")
    if isinstance(now, dict) and quotes_read(action):
        return {k: v for k, v in now.items() if k not in RESCORED_WHY}
    return now

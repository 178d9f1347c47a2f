"""Response schemas of the display's API, so OpenAPI (/docs) tells a client what each GET returns.

The state is large and grows with the rules it shows; these models name and describe its
top-level parts (docs/display.md has the details) and let the rest through unchanged.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class _Open(BaseModel):
    model_config = ConfigDict(extra="allow")


class LinkState(_Open):
    up: bool = Field(description="whether the table's controller board is linked")
    reason: str = Field("", description="why not, in Chinese (牌桌连接中断 ...)")


class StateOut(_Open):
    """One view (public or referee) of the folded state."""

    seq: int = Field(description="sequence number of the last event folded in")
    view: str = Field(description='"public" or "referee"')
    table_name: str
    ruleset: str = Field(description="ruleset id (config/rulesets/<id>.toml)")
    ruleset_name_zh: str
    ruleset_unit: str = Field("番", description="the unit a win's total counts in ([scoring] unit: 番, 倍 推倒胡, 张 南宁, "
                              "分 竞技 and a ruleset the referee scores); ruleset_unit_en its English (fan where none)")
    players: dict[str, str] = Field(description="chair (1..4) → player name")
    sitting: dict[str, str] = Field(default_factory=dict,
                                    description="chair (1..4) → who sits it now: the player, or a substitute (替补)")
    link: LinkState
    phase: str = Field(description="the table's phase id (idle, building, ready, walls_raised, playing, ...)")
    phase_zh: str
    faults: list[dict[str, Any]] = Field(description="active table faults: code, name_zh/en, where, remedy_zh/en")
    hand: dict[str, Any] | None = Field(description="the current hand: throws, deal plan, wall now, discards, melds, flowers, turn")
    hands: list[dict[str, Any]] = Field(description="hands that ended")
    log: list[dict[str, Any]] = Field(description="the last log lines: seq, at, source, type, text (Chinese), text_en (English)")
    actions: list[dict[str, Any]] = Field(description="the last referee actions (who, when, what, undone)")
    win: dict[str, Any] | None = Field(description="the win as read: seat, fans, total, payments (hand: referee view only)")
    wins: list[dict[str, Any]] = Field(description="every win confirmed this hand (一炮多响, 血战): seat, fans, total, payments")
    further_win: bool = Field(description="another seat may still win this hand (一炮多响, 血战到底, 血流成河)")
    plays_on: bool = Field(description="the ruleset plays on after a win (血战到底, 血流成河)")
    settles_draw: bool = Field(description="the ruleset checks the hands at 荒牌 (查叫: 查花猪, 查大叫, 退税)")
    exhaustive_due: bool = Field(False, description="the hand ended at the wall's end with seats to check (查叫): "
                                 "a 荒牌, or 血战/血流 ended by a win on the wall's last tile (海底, 河底)")
    referee_scored: bool = Field(False, description="the referee gives the points of a win (裁判计分: a ruleset "
                                 "the engine does not score); the win read carries options.points or options.pays")
    win_options: list[str] = Field(default_factory=list, description="options of a win read only the referee can give "
                                   "(points, special, wildcard, horses): the Win page shows their fields")
    dice_refused: dict[str, str] | None = Field(None, description="why a throw keyed now (POST /api/dice) is refused "
                                                "while the hand waits for its break (its walls not up, as the table "
                                                "says): text (Chinese), text_en; null when it is taken")
    exhaustive: dict[str, Any] | None = Field(description="the 查叫 at 荒牌: flower_pigs, ready, not_ready, refunds, payments")
    scoresheet: dict[str, Any]
    camera: dict[str, Any] | None = Field(description="the camera's last status; null without a camera")
    camera_pending: list[dict[str, Any]] = Field(description="unsure camera readings awaiting the referee")
    now: float = Field(description="the server's clock (s since the epoch) for the page's timers")


class EventOut(_Open):
    seq: int
    at: float = Field(description="when it was accepted (s since the epoch)")
    source: str = Field(description="table, link, camera, referee, operator, controller or demo")
    type: str
    data: dict[str, Any]


class HealthOut(BaseModel):
    ok: bool
    version: str
    seq: int
    link: LinkState
    health: dict[str, Any] = Field(description="link counters (rtt_ms, retransmits, crc_errors, reconnects, "
                                               "heard_s_ago) and the camera's state")
    recovering: dict[str, int] | None = Field(None, description="while the log is folded at start: events folded "
                                                                "(done) of total; the rest of the API answers 503")

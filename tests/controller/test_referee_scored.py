"""A table running a ruleset the engine does not score (上海): the referee's points make the win,
the score sheet moves, and every page knows to ask for the points."""

from __future__ import annotations

import pytest

from table_controller.projection import public_view
from table_controller.referee import RefereeError, validate
from table_controller.scoresheet import compute
from table_controller.tiles import parse_tiles

from test_referee_fold import Log  # type: ignore[import-not-found]


def test_a_shanghai_win_needs_the_referees_points_then_counts_on_the_score_sheet() -> None:
    log = Log("shanghai")
    log.start(dealer=2)  # E sits in chair 2
    assert public_view(log.state())["referee_scored"] is True
    hand = {"seat_wind": "S", "prevalent_wind": "E", "concealed": parse_tiles("123m456m789m11p23s"),
            "win_tile": "4s", "win": "self_draw", "flowers": ["1f", "6f"]}
    log.ref("referee.win_read", hand=hand)
    result = log.state().actions[-1]["result"]
    assert not result["valid"] and result["reason"] == "needs_points"
    with pytest.raises(RefereeError, match="裁判计分"):
        validate(log.state(), "referee.win_confirm", {})
    log.ref("referee.win_read", hand={**hand, "options": {"points": 20}})
    assert log.state().actions[-1]["result"]["valid"]
    log.ref("referee.win_confirm")
    log.add("operator", "operator.hand_end", {"hand_no": 1, "result": "win"})
    row = compute(log.state())["rows"][-1]
    assert row["points"] == {"3": 60, "2": -20, "4": -20, "1": -20}  # S (chair 3) from each
    assert public_view(log.state())["wins"][0]["fans"] == [{"name": "裁判计分", "value": 60, "count": 1}]


def test_a_scored_ruleset_does_not_ask_for_points() -> None:
    log = Log("mcr")
    log.start()
    assert public_view(log.state())["referee_scored"] is False


def test_the_camera_reads_a_taiwan_sixteen_tile_hand_laid_down() -> None:
    """台湾 deals 16: a self-drawn win laid down shows 17 tiles; the winning tile is taken apart."""
    from table_controller.camera_record import win_hand

    log = Log("taiwan")
    log.start()
    laid = parse_tiles("123m456m789m234p11p678s")
    read = win_hand(log.state().hand, "S", laid, "self_draw", "8s")
    assert len(read["concealed"]) == 16 and read["win_tile"] == "8s"
    log.ref("referee.win_read", hand={**read, "options": {"points": 4}})
    assert log.state().actions[-1]["result"]["valid"], log.state().actions[-1]["result"]


def test_a_win_undone_after_the_hand_ended_reads_as_awaiting_confirmation() -> None:
    """The hand was ended as a win, then the referee undid the win's confirmation: the sheet's row
    said 和牌 with no winner and no points, as if the hand had been won by nobody."""
    log = Log("shanghai")
    log.start(dealer=2)
    hand = {"seat_wind": "S", "prevalent_wind": "E", "concealed": parse_tiles("123m456m789m11p23s"),
            "win_tile": "4s", "win": "self_draw", "flowers": ["1f", "6f"], "options": {"points": 20}}
    log.ref("referee.win_read", hand=hand)
    confirm = log.ref("referee.win_confirm")
    log.add("operator", "operator.hand_end", {"hand_no": 1, "result": "win"})
    log.ref("referee.undo", target=confirm.seq, reason="读错")
    row = compute(log.state())["rows"][-1]
    assert (row["result"], row["result_zh"], row["wins"]) == ("win_pending", "和牌（待确认）", [])
    assert row["points"] == {"1": 0, "2": 0, "3": 0, "4": 0}
    validate(log.state(), "referee.win_confirm", {})  # the read stands: confirmed again, the row is a win
    log.ref("referee.win_confirm")
    row = compute(log.state())["rows"][-1]
    assert (row["result"], row["result_zh"]) == ("win", "和牌") and row["points"]["3"] == 60

"""国标 win conditions read from the live record (camera_record.win_hand): 抢杠和 on the 补杠 the
record holds, 海底 from the tiles left, 和绝张 from the tiles shown (seed 000 范文五 44-47, 58)."""

from __future__ import annotations

from typing import Any

import pytest

from table_controller.camera_record import WinReadError, win_hand
from table_controller.scoring import score_json

from test_referee_fold import Log  # type: ignore[import-not-found]

N_LAID = "1m 2m 3m 4m 5m 6m 7m 8m 9m 3p 4p 9s 9s".split()  # waits on 2p / 5p


def play(log: Log, type_: str, **d: Any) -> None:
    log.add("camera", f"play.{type_}", {**d, "by": "camera"})


def _w_adds_the_fourth_5p(log: Log) -> None:
    log.start()
    play(log, "deal_done")
    play(log, "discard", seat="E", tile="5p")
    play(log, "claim", seat="W", kind="pung", tiles=["5p"] * 3, **{"from": "E"})
    for seat, tile in (("W", "9m"), ("N", "1z"), ("E", "2z"), ("S", "3z")):
        play(log, "discard", seat=seat, tile=tile)
    play(log, "kong", seat="W", tiles=["5p"] * 4, added=True)


def test_the_camera_reads_a_robbed_kong_from_the_record() -> None:
    """抢杠和 "和别人自抓开明杠的牌": the tile is W's 补杠, W pays as the discarder (点和 包括抢杠和).
    Before, the read took the newest discard (S's 3z) for the tile won on, or, with 5p named, no
    discarder at all, which the scorer refused."""
    log = Log("mcr")
    _w_adds_the_fourth_5p(log)
    hand = log.state().hand
    for named in (None, "5p"):
        read = win_hand(hand, "N", N_LAID, "rob_kong", named)
        assert (read["win_tile"], read["discarder"]) == ("5p", "W")
        assert read["visible"]["5p"] == 3  # W's pung; the robbed tile is the one won on
        out = score_json(read, "mcr")
        assert out["valid"] and {"抢杠和", "清龙"} <= {f["name"] for f in out["fans"]}
        assert "和绝张" not in {f["name"] for f in out["fans"]}  # 抢杠和不计和绝张
        assert out["payments"]["W"] == -(8 + out["total"]) and out["payments"]["E"] == -8


def test_no_added_kong_to_rob_is_said_not_guessed() -> None:
    log = Log("mcr")
    _w_adds_the_fourth_5p(log)
    play(log, "discard", seat="W", tile="7z")  # the kong stood: W played on
    with pytest.raises(WinReadError, match="补杠"):
        win_hand(log.state().hand, "N", N_LAID, "rob_kong")
    with pytest.raises(WinReadError, match="补杠"):  # a tile that is not the added one
        win_hand(log.state().hand, "N", N_LAID, "rob_kong", "2p")
    fresh = Log("mcr")
    fresh.start()
    play(fresh, "deal_done")
    play(fresh, "discard", seat="E", tile="5p")
    with pytest.raises(WinReadError, match="补杠"):  # a discard is no kong
        win_hand(fresh.state().hand, "N", N_LAID, "rob_kong")

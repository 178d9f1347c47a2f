"""立直 needs the stick's 1000 points: on a riichi table (`[scoring] start_points`, 25000) a player who has
paid out below 1000 is refused the declaration, in words, and nothing is logged; the others declare."""

from __future__ import annotations

from pathlib import Path

import pytest

from table_controller.config import parse_config
from table_controller.controller import ActionError, Controller
from table_controller.store import EventStore
from table_controller.tiles import parse_tiles


async def _no_table(url: str) -> None:
    raise OSError("no table in this test")


def _start(c: Controller, hand_no: int) -> None:
    c.accept("operator", "operator.hand_start", {"hand_no": hand_no, "ruleset": "riichi", "dealer_position": 1,
                                                 "prevalent_wind": "E", "seats": {"E": 1, "S": 2, "W": 3, "N": 4}})
    while c.state.hand["deal"] is None and c.state.hand["next_thrower"]:
        seat = c.state.hand["next_thrower"]
        c.accept("table", "table.dice", {"seat": seat, "wind": seat, "dice": [3, 4]})
    c.record_play("play.deal_done", {}, by="op")


def test_a_player_below_1000_points_may_not_declare_riichi(tmp_path: Path) -> None:
    cfg = parse_config({"table": {"link": "socket://127.0.0.1:9"}, "rules": {"ruleset": "riichi"}}, "test")
    store = EventStore(tmp_path / "events.sqlite3")
    try:
        c = Controller(cfg, store, _no_table)
        _start(c, 1)
        c.record_play("play.discard", {"seat": "E", "tile": "9p"}, by="op")
        c.record_play("play.discard", {"seat": "S", "tile": "7z"}, by="op")
        # E (the dealer) wins 国士无双 on S's 中: 48000, S at 25000 - 48000
        c.referee_action("referee.win_read", {"hand": {"seat_wind": "E", "concealed": parse_tiles("19m19p19s1123456z"),
                                                       "win_tile": "7z", "win": "discard", "discarder": "S"}}, by="ref")
        assert c.state.actions[-1]["result"]["payments"]["S"] == -48000
        c.referee_action("referee.win_confirm", {}, by="ref")
        c.accept("operator", "operator.hand_end", {"hand_no": 1, "result": "win"})
        _start(c, 2)
        for seat, tile in (("E", "1m"), ("S", "2m")):
            c.record_play("play.discard", {"seat": seat, "tile": tile}, by="op")
        seq = c.state.seq
        with pytest.raises(ActionError, match="南家只有-23000点，不足1000点，不能立直"):
            c.record_play("play.riichi", {"seat": "S"}, by="op")
        assert c.state.seq == seq and not c.state.hand["riichi"]
        c.record_play("play.riichi", {"seat": "E"}, by="op")  # 73000: E declares
        assert list(c.state.hand["riichi"]) == ["E"]
    finally:
        store.close()


def test_a_riichi_keyed_after_a_ron_on_its_tile_is_refused(tmp_path: Path) -> None:
    """立直宣言牌放铳: E's 4s won on is its declaration tile only if its 立直 is keyed; keyed after the win's
    confirmation it was taken and its stick paid to the winner (1000 more). It is refused in words now; W's 立直
    keyed as late, its tile 1z not won on, still stands and the winner takes its stick."""
    from table_controller.scoresheet import compute

    cfg = parse_config({"table": {"link": "socket://127.0.0.1:9"}, "rules": {"ruleset": "riichi"}}, "test")
    store = EventStore(tmp_path / "events.sqlite3")
    try:
        c = Controller(cfg, store, _no_table)
        _start(c, 1)
        for seat, tile in (("E", "9p"), ("S", "9s"), ("W", "1z"), ("N", "2z"), ("E", "4s")):
            c.record_play("play.discard", {"seat": seat, "tile": tile}, by="op")
        c.referee_action("referee.win_read", {"hand": {"seat_wind": "S", "concealed": parse_tiles("22444m333567p44s"),
                                                       "win_tile": "4s", "win": "discard", "discarder": "E"}}, by="ref")
        c.referee_action("referee.win_confirm", {}, by="ref")
        seq = c.state.seq
        with pytest.raises(ActionError, match="东家的立直宣言牌已被荣和：立直不成立"):
            c.record_play("play.riichi", {"seat": "E"}, by="op")
        assert c.state.seq == seq and not c.state.hand["riichi"]
        c.record_play("play.riichi", {"seat": "W"}, by="op")
        c.accept("operator", "operator.hand_end", {"hand_no": 1, "result": "win"})
        row = compute(c.state)["rows"][-1]
        assert row["riichi_points"] == {"1": 0, "2": 1000, "3": -1000, "4": 0} and row["riichi_taken"] == {"2": 1000}
    finally:
        store.close()

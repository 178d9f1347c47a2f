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

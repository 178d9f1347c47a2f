"""振听 on the live riichi table: a seat may not 荣和 on a wait it discarded itself, nor on one it
let pass since its last discard; the record shows both without the seat's tiles."""

from __future__ import annotations

from typing import Any

from table_controller.tiles import parse_tiles

from test_referee_fold import Log  # type: ignore[import-not-found]

#: S waits on 2m or 4s (双碰): 22m and 44s with 444m 333p 567p.
S_READY = parse_tiles("22444m333567p44s")


def _ron(log: Log, tile: str, discarder: str) -> dict[str, Any]:
    log.ref("referee.win_read", hand={"seat_wind": "S", "prevalent_wind": "E", "concealed": S_READY,
                                      "win_tile": tile, "win": "discard", "discarder": discarder,
                                      "options": {"riichi": True}})
    return log.state().actions[-1]["result"]


def _table(*plays: tuple[str, str]) -> Log:
    log = Log("riichi")
    log.start()
    log.add("demo", "play.deal_done", {"by": "demo"})
    for seat, tile in plays:
        log.add("demo", "play.discard", {"seat": seat, "tile": tile, "by": "demo"})
    return log


def test_a_wait_among_its_own_discards_bars_a_ron() -> None:
    result = _ron(_table(("E", "9p"), ("S", "2m"), ("W", "1z"), ("N", "2z"), ("E", "4s")), "4s", "E")
    assert not result["valid"] and result["reason"] == "furiten" and "二万" in result["message"]


def test_a_wait_let_pass_since_its_last_discard_bars_a_ron_until_it_discards_again() -> None:
    passed = _table(("E", "9p"), ("S", "9s"), ("W", "2m"), ("N", "1z"), ("E", "4s"))
    result = _ron(passed, "4s", "E")
    assert not result["valid"] and "同巡振听" in result["message"] and "二万" in result["message"]
    # S discards again: the pass is behind it
    later = _table(("E", "9p"), ("S", "9s"), ("W", "2m"), ("N", "1z"), ("E", "1z"), ("S", "3z"), ("W", "5z"),
                   ("N", "6z"), ("E", "4s"))
    assert _ron(later, "4s", "E")["valid"]


def test_no_furiten_a_ron_scores_and_a_tsumo_is_never_barred() -> None:
    log = _table(("E", "9p"), ("S", "2m"), ("W", "1z"), ("N", "2z"), ("E", "4s"))
    assert _ron(_table(("E", "9p"), ("S", "9s"), ("W", "1z"), ("N", "2z"), ("E", "4s")), "4s", "E")["valid"]
    log.ref("referee.win_read", hand={"seat_wind": "S", "prevalent_wind": "E", "concealed": S_READY,
                                      "win_tile": "4s", "win": "self_draw", "options": {"riichi": True}})
    assert log.state().actions[-1]["result"]["valid"]  # 振听 bars 荣和 only
    mcr = Log("mcr")  # no 振听 outside riichi
    mcr.start()
    mcr.add("demo", "play.discard", {"seat": "S", "tile": "2p", "by": "demo"})
    mcr.add("demo", "play.discard", {"seat": "W", "tile": "2p", "by": "demo"})
    mcr.ref("referee.win_read", hand={"seat_wind": "S", "prevalent_wind": "E", "concealed": parse_tiles("123456789m1112p"),
                                      "win_tile": "2p", "win": "discard", "discarder": "W"})
    assert mcr.state().actions[-1]["result"]["valid"]


def test_at_a_riichi_draw_the_ready_seats_share_the_noten_penalty() -> None:
    """流局 不听罚符: S and E show ready hands, W shows one that is not, N shows nothing (不听):
    each 不听 seat pays 1500, each 听牌 seat receives 1500; with one seat ready it takes 3000."""
    from table_controller.scoresheet import compute

    log = _table(("E", "9p"), ("S", "9s"))
    log.add("operator", "operator.hand_end", {"hand_no": 1, "result": "draw"})
    hands = {"S": {"concealed": S_READY}, "E": {"concealed": parse_tiles("123456789m12p99s")},
             "W": {"concealed": parse_tiles("13579m2468p135s7z")}, "N": {"concealed": []}}
    log.ref("referee.exhaustive", hands=hands)
    ruling = log.state().actions[-1]
    assert not ruling.get("error"), ruling.get("error")
    assert sorted(ruling["ready"]) == ["E", "S"] and sorted(ruling["not_ready"]) == ["N", "W"]
    assert ruling["by_wind"] == {"S": 1500, "E": 1500, "W": -1500, "N": -1500}
    assert compute(log.state())["rows"][-1]["exhaustive_points"] == {"1": 1500, "2": 1500, "3": -1500, "4": -1500}
    log.ref("referee.exhaustive", hands={**hands, "E": {"concealed": []}})  # a newer ruling replaces it
    assert log.state().actions[-1]["by_wind"] == {"S": 3000, "E": -1000, "W": -1000, "N": -1000}

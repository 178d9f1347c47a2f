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
    log.throw()
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


def _riichi(log: Log, seat: str) -> None:
    log.add("demo", "play.riichi", {"seat": seat, "by": "demo"})


def test_a_keyed_riichi_puts_riichi_and_ippatsu_on_the_read_until_a_call_or_its_next_discard() -> None:
    from table_controller.controller import _play_problem
    from table_controller.referee import record_options

    log = _table(("E", "9p"), ("S", "9s"))
    _riichi(log, "S")
    hand = log.state().hand
    assert hand["riichi"]["S"]["discard_seq"] == hand["discards"]["S"][-1]["seq"]
    # declared with S's first discard, nobody having called: 两立直
    assert record_options(hand, {"seat_wind": "S"}) == {"riichi": True, "double_riichi": True, "ippatsu": True}
    assert record_options(hand, {"seat_wind": "W"}) == {}
    assert log.state().log[-1]["text"] == "南家立直"
    assert "已立直" in _play_problem(hand, "play.riichi", {"seat": "S"})
    assert "尚未出牌" in _play_problem(hand, "play.riichi", {"seat": "W"})
    log.add("demo", "play.discard", {"seat": "W", "tile": "5z", "by": "demo"})
    log.add("demo", "play.claim", {"seat": "N", "kind": "pung", "from": "W", "tiles": ["5z"] * 3, "by": "demo"})
    hand = log.state().hand
    assert record_options(hand, {"seat_wind": "S"}) == {"riichi": True, "double_riichi": True}  # a call breaks 一发
    assert "副露" in _play_problem(hand, "play.riichi", {"seat": "N"})
    # a riichi win read: 立直 from the record, the referee gives nothing
    log.add("demo", "play.discard", {"seat": "N", "tile": "4s", "by": "demo"})
    log.ref("referee.win_read", hand={"seat_wind": "S", "prevalent_wind": "E", "concealed": S_READY,
                                      "win_tile": "4s", "win": "discard", "discarder": "N"})
    read = log.state().actions[-1]
    assert read["hand"]["options"] == {"riichi": True, "double_riichi": True}
    assert ("两立直", 2) in [(f["name"], f["value"]) for f in read["result"]["fans"]]
    mcr = Log("mcr")
    mcr.start()
    mcr.throw()
    assert "无立直" in _play_problem(mcr.state().hand, "play.riichi", {"seat": "S"})


def test_double_riichi_is_a_declaration_with_the_seats_first_discard_before_any_call() -> None:
    """两立直 (2 han): S declares with its first discard and nobody has called: 两立直 on the read, scored
    4 han (两立直, 断幺九, 一发), 8000. Declared with its second discard, or after a call made before its
    first, it is 立直. Before, the record gave 立直 only and the Win page had no field for it (2600 short)."""
    from table_controller.referee import record_options

    log = _table(("E", "9p"), ("S", "9s"))
    _riichi(log, "S")
    log.add("demo", "play.discard", {"seat": "W", "tile": "4s", "by": "demo"})
    result = _ron(log, "4s", "W")
    fans = [(f["name"], f["value"]) for f in result["fans"]]
    assert ("两立直", 2) in fans and ("一发", 1) in fans and ("立直", 1) not in fans, fans
    assert result["payments"]["S"] == 8000, result
    second = _table(("E", "9p"), ("S", "9s"), ("W", "1z"), ("N", "2z"), ("E", "3z"), ("S", "7z"))
    _riichi(second, "S")
    assert record_options(second.state().hand, {"seat_wind": "S"}) == {"riichi": True, "ippatsu": True}
    called = _table(("E", "5z"))
    called.add("demo", "play.claim", {"seat": "W", "kind": "pung", "from": "E", "tiles": ["5z"] * 3, "by": "demo"})
    for seat, tile in (("W", "1z"), ("N", "9s")):
        called.add("demo", "play.discard", {"seat": seat, "tile": tile, "by": "demo"})
    _riichi(called, "N")  # N's first discard, but W called before it
    assert record_options(called.state().hand, {"seat_wind": "N"}) == {"riichi": True, "ippatsu": True}


def test_after_riichi_a_wait_let_pass_bars_a_ron_for_the_rest_of_the_hand() -> None:
    log = _table(("E", "9p"), ("S", "9s"))
    _riichi(log, "S")
    for seat, tile in (("W", "2m"), ("N", "1z"), ("E", "1z"), ("S", "3z"), ("W", "5z"), ("N", "6z"), ("E", "4s")):
        log.add("demo", "play.discard", {"seat": seat, "tile": tile, "by": "demo"})
    result = _ron(log, "4s", "E")  # S let W's 2m pass after its riichi: its discard since does not clear it
    assert not result["valid"] and "同巡振听" in result["message"]


def test_riichi_sticks_go_to_the_next_winner_across_a_draw() -> None:
    """立直棒: S and W declare in hand 1, which ends 流局 (the sticks stay on the table); in hand 2
    E declares and N wins on S's next discard: N takes all three sticks, 1000 from each declarer's chair."""
    from table_controller.scoresheet import compute

    log = _table(("E", "9p"), ("S", "9s"), ("W", "9m"))
    _riichi(log, "S")
    _riichi(log, "W")
    log.add("operator", "operator.hand_end", {"hand_no": 1, "result": "draw"})
    log.start(hand_no=2, dealer=2)  # E=2 S=3 W=4 N=1
    log.add("demo", "play.deal_done", {"by": "demo"})
    log.add("demo", "play.discard", {"seat": "E", "tile": "9p", "by": "demo"})
    _riichi(log, "E")  # won on its declaration tile, E's 立直 would not stand (test_riichi_pages.py)
    log.add("demo", "play.discard", {"seat": "S", "tile": "4s", "by": "demo"})
    log.ref("referee.win_read", hand={"seat_wind": "N", "prevalent_wind": "E", "concealed": S_READY,
                                      "win_tile": "4s", "win": "discard", "discarder": "S", "options": {"riichi": True}})
    log.ref("referee.win_confirm")
    sheet = compute(log.state())
    rows = sheet["rows"]
    # hand 1: S sat in chair 2, W in chair 3, and put their sticks down (供托); 流局: they stay there
    assert rows[0]["riichi_points"] == {"1": 0, "2": -1000, "3": -1000, "4": 0}
    assert sum(rows[0]["points"].values()) == -2000  # on the table, no one's
    # hand 2: E (chair 2) puts one down, N (chair 1) wins and takes all three
    assert rows[1]["riichi_points"] == {"1": 3000, "2": -1000, "3": 0, "4": 0}
    assert sum(rows[1]["points"].values()) == 2000 and sum(sheet["totals"].values()) == 0
    assert sheet["riichi_pot"] == 0


def test_riichi_sticks_left_on_the_table_at_the_end_go_to_the_first_placed() -> None:
    """WRC: 供托 still on the table when the session ends go to the player placed first."""
    from table_controller.scoresheet import compute

    log = _table(("E", "9p"), ("S", "9s"), ("W", "9m"))
    _riichi(log, "S")
    log.add("operator", "operator.hand_end", {"hand_no": 1, "result": "draw"})
    sheet = compute(log.state())
    assert sheet["riichi_pot"] == 1 and sheet["totals"]["2"] == -1000 and not sheet["final"]
    log.ref("referee.session_start", minutes=60)
    log.ref("referee.session_end")
    sheet = compute(log.state())
    assert sheet["final"] and sheet["riichi_pot"] == 0 and sheet["rows"][-1]["riichi_leftover"] == 1000
    assert sum(sheet["totals"].values()) == 0 and sheet["totals"]["2"] == -1000
    assert sheet["table_points"]["2"] == 0  # the declarer is last; the first places share its stick


def test_the_seat_that_fed_the_third_dragon_set_is_liable_for_daisangen() -> None:
    """包 on the live table: S punged 白 from E, 发 from N, then 中 from W: W is liable, the read gets
    `pao: W` from the record and S's 大三元 by tsumo is W's alone (32000). A third set S melded from
    its own hand (暗杠) makes nobody liable."""
    from table_controller.referee import record_options

    def dragons(third: str) -> Log:
        log = _table(("E", "5z"))
        log.add("demo", "play.claim", {"seat": "S", "kind": "pung", "from": "E", "tiles": ["5z"] * 3, "by": "demo"})
        for seat, tile in (("S", "9s"), ("W", "1m"), ("N", "6z")):
            log.add("demo", "play.discard", {"seat": seat, "tile": tile, "by": "demo"})
        log.add("demo", "play.claim", {"seat": "S", "kind": "pung", "from": "N", "tiles": ["6z"] * 3, "by": "demo"})
        log.add("demo", "play.discard", {"seat": "S", "tile": "9p", "by": "demo"})
        if third == "claimed":
            log.add("demo", "play.discard", {"seat": "W", "tile": "7z", "by": "demo"})
            log.add("demo", "play.claim", {"seat": "S", "kind": "pung", "from": "W", "tiles": ["7z"] * 3, "by": "demo"})
        else:
            for seat, tile in (("W", "1p"), ("N", "2p"), ("E", "3p")):
                log.add("demo", "play.discard", {"seat": seat, "tile": tile, "by": "demo"})
            log.add("demo", "play.kong", {"seat": "S", "tiles": ["7z"] * 4, "concealed": True, "by": "demo"})
        return log

    log = dragons("claimed")
    assert record_options(log.state().hand, {"seat_wind": "S"}) == {"pao": "W"}
    melds = [{"type": "pung", "tiles": [t] * 3, "from": f} for t, f in (("5z", "E"), ("6z", "N"), ("7z", "W"))]
    log.ref("referee.win_read", hand={"seat_wind": "S", "prevalent_wind": "E", "concealed": parse_tiles("234m5p"),
                                      "melds": melds, "win_tile": "5p", "win": "self_draw"})
    result = log.state().actions[-1]["result"]
    assert {w: v for w, v in result["payments"].items() if v} == {"W": -32000, "S": 32000}, result
    assert "pao" not in record_options(dragons("concealed").state().hand, {"seat_wind": "S"})


def test_a_wait_let_pass_bars_robbing_a_kong_after_it() -> None:
    """抢杠 is a ron: W's 4m let pass (S waits on 1m 4m 7m), N's 补杠 of 7m right after it cannot be robbed.
    The last discard is no longer the tile won on: before, it was left out and the rob scored."""
    log = _table(("E", "7m"))
    log.add("demo", "play.claim", {"seat": "N", "from": "E", "kind": "pung", "tiles": ["7m"] * 3, "by": "demo"})
    for seat, tile in (("N", "9p"), ("E", "1z"), ("S", "9s"), ("W", "4m")):
        log.add("demo", "play.discard", {"seat": seat, "tile": tile, "by": "demo"})
    log.add("demo", "play.kong", {"seat": "N", "tiles": ["7m"] * 4, "added": True, "by": "demo"})
    rob = {"seat_wind": "S", "prevalent_wind": "E", "concealed": parse_tiles("23456m333567p88s"), "win_tile": "7m",
           "win": "rob_kong", "discarder": "N"}
    log.ref("referee.win_read", hand=rob)
    result = log.state().actions[-1]["result"]
    assert not result["valid"] and result["reason"] == "furiten" and "四万" in result["message"], result
    log.add("demo", "play.discard", {"seat": "N", "tile": "1z", "by": "demo"})  # N's discard after its kong: a
    log.add("demo", "play.discard", {"seat": "E", "tile": "2z", "by": "demo"})  # pass past, S moves on
    log.add("demo", "play.discard", {"seat": "S", "tile": "9p", "by": "demo"})
    log.add("demo", "play.discard", {"seat": "W", "tile": "4m", "by": "demo"})
    log.ref("referee.win_read", hand={**rob, "win": "discard", "win_tile": "4m", "discarder": "W"})
    assert log.state().actions[-1]["result"]["valid"], log.state().actions[-1]["result"]  # the next ron scores

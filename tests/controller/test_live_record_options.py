"""What the live play record knows and the win read would otherwise miss: 竞技 追牌现场汇 paid on the
spot, 包付 from three claims in a row, 倍打 while the dealer keeps the deal, and 杠上炮."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from table_controller.referee import record_options
from table_controller.scoresheet import compute

from test_referee_fold import Log  # type: ignore[import-not-found]


def play(log: Log, type_: str, **d: Any) -> None:
    log.add("camera", f"play.{type_}", {**d, "by": "camera"})


def discards(log: Log, *plays: tuple[str, str]) -> None:
    for seat, tile in plays:
        play(log, "discard", seat=seat, tile=tile)


def test_four_seats_in_a_row_discarding_one_tile_pay_the_chase_on_the_spot() -> None:
    log = Log("jingji")
    log.start(dealer=2)  # E=2, S=3, W=4, N=1
    play(log, "deal_done")
    discards(log, ("E", "5z"), ("S", "5z"), ("W", "5z"), ("N", "5z"))
    hand = log.state().hand
    assert [(c["seat"], c["by_wind"]) for c in hand["chase_payments"]] == [
        ("E", {"E": -12, "S": 4, "W": 4, "N": 4})]  # seed 004 三十七: the first pays 4 to each
    row = compute(log.state())["rows"][-1]
    assert row["chase_points"] == {"2": -12, "3": 4, "4": 4, "1": 4} and row["points"] == row["chase_points"]
    assert row["stacks"] == {"2": 88, "3": 104, "4": 104, "1": 104}  # 竞技 plays from stacks of 100
    # a claim breaks the run; and MCR has no such payment
    discards(log, ("E", "1z"), ("S", "1z"), ("W", "1z"))
    play(log, "claim", seat="N", kind="pung", tiles=["1z"] * 3, **{"from": "W"})
    discards(log, ("N", "1z"))
    assert len(log.state().hand["chase_payments"]) == 1
    mcr = Log("mcr")
    mcr.start()
    play(mcr, "deal_done")
    discards(mcr, ("E", "5z"), ("S", "5z"), ("W", "5z"), ("N", "5z"))
    assert "chase_payments" not in mcr.state().hand


def test_the_chase_is_paid_from_the_rulesets_own_table(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The record paid 追牌 with `jingji.chase_payment(first)`, which read the shipped 竞技 file: a house 竞技 with
    `chase_each = 5` paid 4, and a venue's copy of 竞技 under its own id, in a folder without jingji.toml, broke the
    fold (unknown_ruleset 'jingji'). It is the engine's `pay_chase` hook now, given the ruleset's own table."""
    from tests.scoring.test_engines import PACKAGED, _venue_copy

    def chased(ruleset: str, folder: Path) -> list[dict[str, int]]:
        monkeypatch.setenv("TABLECTL_RULESETS_DIR", str(folder))
        log = Log(ruleset)
        log.start()
        play(log, "deal_done")
        discards(log, ("E", "7z"), ("S", "7z"), ("W", "7z"), ("N", "7z"))
        return [c["by_wind"] for c in log.state().hand["chase_payments"]]

    club, city = tmp_path / "club", tmp_path / "city"
    club.mkdir()
    city.mkdir()
    (club / "jingji.toml").write_text((PACKAGED / "jingji.toml").read_text(encoding="utf-8"), encoding="utf-8")
    (club / "jingji_club.toml").write_text('extends = "jingji"\nid = "jingji_club"\nname_zh = "竞技（俱乐部）"\n'
                                           'name_en = "Jingji, club"\n\n[scoring]\nchase_each = 5\n', encoding="utf-8")
    _venue_copy(city, "jingji", "jingji_city", "jingji")
    assert chased("jingji_club", club) == [{"E": -15, "S": 5, "W": 5, "N": 5}]
    assert chased("jingji_city", city) == [{"E": -12, "S": 4, "W": 4, "N": 4}]


def test_three_claims_in_a_row_from_one_seat_bind_them_and_the_win_read_carries_it() -> None:
    log = Log("jingji")
    log.start()
    play(log, "deal_done")
    for tile in ("2m", "5p", "7s"):
        discards(log, ("E", "1z"), ("S", tile))
        play(log, "claim", seat="W", kind="pung", tiles=[tile] * 3, **{"from": "S"})
        discards(log, ("W", "9m"), ("N", "9p"))
    hand = log.state().hand
    assert hand["bao"] == [["W", "S"]]
    assert record_options(hand, {"seat_wind": "W", "win": "self_draw"})["baofu"] == "S"
    assert record_options(hand, {"seat_wind": "S", "win": "self_draw"})["baofu"] == "W"  # 互相包牌
    assert "baofu" not in record_options(hand, {"seat_wind": "E", "win": "self_draw"})
    # the read the referee makes without options is scored with 包付: S alone pays
    win = {"seat_wind": "W", "prevalent_wind": "E", "win": "self_draw", "win_tile": "6m",
           "melds": [{"type": "pung", "tiles": [t] * 3, "from": "S"} for t in ("2m", "5p", "7s")],
           "concealed": ["4m", "4m", "4m", "6m"]}  # 碰碰和
    log.ref("referee.win_read", hand=win)
    read = log.state().actions[-1]
    assert read["hand"]["options"]["baofu"] == "S"
    assert read["result"]["valid"], read["result"]
    pays = {w: v for w, v in read["result"]["payments"].items() if v}
    assert set(pays) == {"W", "S"}


def test_a_doubled_hand_and_a_discard_after_a_kong_reach_the_read() -> None:
    log = Log("jingji")
    log.add("operator", "operator.hand_start", {"hand_no": 1, "ruleset": "jingji", "dealer_position": 1,
                                                "prevalent_wind": "E", "double": True,
                                                "seats": {"E": 1, "S": 2, "W": 3, "N": 4}})
    play(log, "deal_done")
    play(log, "kong", seat="E", tiles=["9s"] * 4, concealed=True)
    play(log, "flower", seat="E", tile="3f")  # the replacement was a flower: still the kong's turn
    discards(log, ("E", "2p"))
    hand = log.state().hand
    assert hand["discards"]["E"][-1].get("after_kong")
    opts = record_options(hand, {"seat_wind": "N", "win": "discard", "discarder": "E", "win_tile": "2p"})
    assert opts == {"double": True, "after_kong": True}
    discards(log, ("S", "3p"))
    assert not log.state().hand["discards"]["S"][-1].get("after_kong")
    assert record_options(log.state().hand, {"seat_wind": "N", "win": "discard", "discarder": "S",
                                             "win_tile": "3p"}) == {"double": True}
    # the referee's own option stands over the record's
    log.ref("referee.win_read", hand={"seat_wind": "N", "prevalent_wind": "E", "win": "discard", "discarder": "S",
                                      "win_tile": "3p", "concealed": "1m 2m 3m 4m 5m 6m 7m 8m 9m 1p 1p 1p 3p".split(),
                                      "options": {"double": False}})
    assert log.state().actions[-1]["hand"]["options"] == {"double": False}


def test_nanning_a_seat_that_fed_one_seat_three_pungs_is_sealed_and_pays_for_its_win() -> None:
    """南宁 封胡: E feeds S three pungs (not in a row: W's pung from E between does not reset it).
    E's own win is refused with the rule; S's win read carries `sealed` and E pays it alone."""
    log = Log("nanning")
    log.start()
    play(log, "deal_done")
    fed = ("1z", "5z", "9p")
    discards(log, ("E", fed[0]))
    play(log, "claim", seat="S", kind="pung", tiles=[fed[0]] * 3, **{"from": "E"})
    discards(log, ("S", "9m"), ("W", "9s"), ("N", "1s"), ("E", "2s"))
    play(log, "claim", seat="W", kind="pung", tiles=["2s"] * 3, **{"from": "E"})
    discards(log, ("W", "3s"), ("N", "4s"), ("E", fed[1]))
    play(log, "claim", seat="S", kind="pung", tiles=[fed[1]] * 3, **{"from": "E"})
    assert "sealed" not in log.state().hand  # two pungs: not yet
    discards(log, ("S", "8m"), ("W", "7s"), ("N", "6s"), ("E", fed[2]))
    play(log, "claim", seat="S", kind="pung", tiles=[fed[2]] * 3, **{"from": "E"})
    hand = log.state().hand
    assert hand["sealed"] == [["E", "S"]] and hand["pungs_fed"] == {"E>S": 3, "E>W": 1}
    assert record_options(hand, {"seat_wind": "S"}) == {"sealed": "E"}
    assert "sealed" not in record_options(hand, {"seat_wind": "W"})
    discards(log, ("S", "7m"), ("W", "5s"))
    e_win = {"seat_wind": "E", "prevalent_wind": "E", "win": "discard", "discarder": "W", "win_tile": "5s",
             "concealed": "1m 2m 3m 4m 5m 6m 7m 8m 9m 3p 3p 5s 5s".split()}
    log.ref("referee.win_read", hand=e_win)
    read = log.state().actions[-1]
    assert not read["result"]["valid"] and read["result"]["reason"] == "sealed" and "封胡" in read["result"]["message"]
    s_win = {"seat_wind": "S", "prevalent_wind": "E", "win": "self_draw", "win_tile": "4m",
             "melds": [{"type": "pung", "tiles": [t] * 3, "from": "E"} for t in fed],
             "concealed": "2m 3m 6p 6p".split()}
    log.ref("referee.win_read", hand=s_win)
    read = log.state().actions[-1]
    assert read["result"]["valid"] and read["hand"]["options"] == {"sealed": "E"}
    pays = {w: v for w, v in read["result"]["payments"].items() if v}
    assert pays == {"E": -9, "S": 9}  # 自摸 3 from each, all three paid by E


def test_a_self_drawn_win_right_after_the_winners_kong_is_scored_as_kong_replacement() -> None:
    """The record shows W konged and has not discarded since: the tile it won on was the kong's
    replacement, so a read that says 自摸 is scored 杠上开花. After a discard, or where the
    replacement was a flower replaced in turn, the read stays as given; a read claiming 杠上开花
    with no kong is refused with the reason (before: scored, kong or no kong)."""
    win = {"seat_wind": "W", "prevalent_wind": "E", "win": "self_draw", "win_tile": "2p",
           "melds": [{"type": "kong", "tiles": ["7s"] * 4, "concealed": True}],
           "concealed": "1m 2m 3m 4m 5m 6m 7m 8m 9m 2p".split()}
    log = Log("mcr")
    log.start()
    play(log, "deal_done")
    discards(log, ("E", "1z"), ("S", "2z"))
    play(log, "kong", seat="W", tiles=["7s"] * 4, concealed=True)
    log.ref("referee.win_read", hand=win)
    read = log.state().actions[-1]
    assert read["hand"]["win"] == "kong_replacement" and read["result"]["valid"], read["result"]
    assert "杠上开花" in [f["name"] for f in read["result"]["fans"]]
    flower = Log("mcr")
    flower.start()
    play(flower, "deal_done")
    play(flower, "kong", seat="E", tiles=["7s"] * 4, concealed=True)
    play(flower, "flower", seat="E", tile="3f")  # the replacement was a flower, replaced in turn
    flower.ref("referee.win_read", hand={**win, "seat_wind": "E", "flowers": ["3f"]})
    assert flower.state().actions[-1]["hand"]["win"] == "self_draw"
    discards(log, ("W", "9p"), ("N", "1z"))  # W played on: its next self-drawn tile is a live draw
    log.ref("referee.win_read", hand=win)
    assert log.state().actions[-1]["hand"]["win"] == "self_draw"
    log.ref("referee.win_read", hand={**win, "win": "kong_replacement", "melds": [],
                                      "concealed": "7s 7s 7s 1m 2m 3m 4m 5m 6m 7m 8m 9m 2p".split()})
    result = log.state().actions[-1]["result"]
    assert not result["valid"] and result["reason"] == "bad_hand" and "杠上开花须有杠" in result["message"]

"""Riichi's table options a parlour or a league sets in its ruleset (`[scoring]`, docs/scoring.md): the session's
uma and oka, 流し满贯, 形式听牌 on a wait held whole, and a 不听立直 at 荒牌. Each default is the table as it was;
the venue's copy of the ruleset file turns one on, and the fold of a hand-written log shows the exact points."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from table_controller.rules.ruleset import ENV_DIR, PACKAGED
from table_controller.scoresheet import compute
from table_controller.scoring import ScoringError, check_tables
from table_controller.tiles import parse_tiles

from test_furiten import _table  # type: ignore[import-not-found]
from test_referee_fold import Log  # type: ignore[import-not-found]


def _venue(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *lines: str) -> None:
    """The shipped riichi file with `lines` added to its `[scoring]`, in use from now."""
    text = (PACKAGED / "riichi.toml").read_text(encoding="utf-8")
    anchor = "\n[flow]\n"  # the end of [scoring]
    assert text.count(anchor) == 1
    folder = tmp_path / "rulesets"
    folder.mkdir()
    (folder / "riichi.toml").write_text(text.replace(anchor, "".join(f"{x}\n" for x in lines) + anchor),
                                        encoding="utf-8")
    monkeypatch.setenv(ENV_DIR, str(folder))


def _dealer_wins_48000(log: Log) -> None:
    """Hand 1: E (chair 1, the dealer) wins 国士无双 on S's (chair 2) 中: +48000 / -48000."""
    log.start()
    log.throw()
    log.add("demo", "play.deal_done", {"by": "demo"})
    log.add("demo", "play.discard", {"seat": "E", "tile": "9p", "by": "demo"})
    log.add("demo", "play.discard", {"seat": "S", "tile": "7z", "by": "demo"})
    log.ref("referee.win_read", hand={"seat_wind": "E", "concealed": parse_tiles("19m19p19s1123456z"),
                                      "win_tile": "7z", "win": "discard", "discarder": "S"})
    assert log.state().actions[-1]["result"]["payments"]["S"] == -48000
    log.ref("referee.win_confirm")
    log.add("operator", "operator.hand_end", {"hand_no": 1, "result": "win"})


def test_without_uma_the_sheet_ranks_by_table_points_as_before() -> None:
    log = Log("riichi")
    _dealer_wins_48000(log)
    sheet = compute(log.state(), final=True)
    assert sheet["totals"] == {"1": 48000, "2": -48000, "3": 0, "4": 0}
    assert sheet["table_points"] == {"1": 4, "2": 0, "3": 1.5, "4": 1.5}


def test_uma_and_oka_make_the_sessions_points(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Start 25000, return 30000 (返し: oka 4 × 5000 = 20 to the first), uma 30/10/-10/-30 (M-League's): chair 1
    holds 73000: 43 + 30 + 20 = 93; chairs 3 and 4 hold 25000 and share 2nd and 3rd: -5 + 0 each; chair 2
    holds -23000: -53 - 30 = -83. The four sum to 0."""
    _venue(tmp_path, monkeypatch, "uma = [30, 10, -10, -30]", "return_points = 30000")
    log = Log("riichi")
    _dealer_wins_48000(log)
    points = compute(log.state(), final=True)["table_points"]
    assert points == {"1": 93, "2": -83, "3": -5, "4": -5} and sum(points.values()) == 0


def test_uma_without_return_points_has_no_oka(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """WRC: start and return 30000, uma 15/5/-5/-15: 48 + 15 = 63, -48 - 15 = -63, the tied two 0 each."""
    text = "start_points = 25000 "
    assert (PACKAGED / "riichi.toml").read_text(encoding="utf-8").count(text) == 1
    _venue(tmp_path, monkeypatch, "uma = [15, 5, -5, -15]")
    folder = tmp_path / "rulesets" / "riichi.toml"
    folder.write_text(folder.read_text(encoding="utf-8").replace(text, "start_points = 30000 "), encoding="utf-8")
    log = Log("riichi")
    _dealer_wins_48000(log)
    assert compute(log.state(), final=True)["table_points"] == {"1": 63, "2": -63, "3": 0, "4": 0}


def test_a_good_uma_passes_the_check_a_tables_config_makes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`check_tables` reads the frozen tables (`scoring.config._freeze`: arrays become tuples), and `uma` was
    refused unless a list: every uma, [30, 10, -10, -30] too, stopped `tablectl run` and `check` with
    "顺位马须为四个数、合计为 0", so no table could use it."""
    _venue(tmp_path, monkeypatch, "uma = [30, 10, -10, -30]", "return_points = 30000")
    check_tables("riichi")


@pytest.mark.parametrize("line, words", [("uma = [15, 5, -5]", "顺位马须为四个数"),
                                         # the value as written, not the frozen table's tuple
                                         ("uma = [20, 10, -10, -10]", r"合计为 0（千点），不是 \[20, 10, -10, -10\]"),
                                         ("return_points = 20000", "返点须为不低于起始点数")])
def test_a_bad_uma_or_return_is_refused_in_words(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, line: str,
                                                 words: str) -> None:
    _venue(tmp_path, monkeypatch, line)
    with pytest.raises(ScoringError, match=words):
        check_tables("riichi")


#: ready on 2m or 4s (双碰)
READY = parse_tiles("22444m333567p44s")
#: 1111m 234p 567p 789s: its only wait is 1m, whose four tiles it holds (形式听牌 on a wait held whole)
HELD_WAIT = parse_tiles("1111m234p567p789s")


def _drawn(*plays: tuple[str, str], claims: tuple[tuple[str, str], ...] = (), riichi: str = "") -> Log:
    """Hand 1 played to 荒牌: the discards in order (a claim after the discard it takes), 立直 by `riichi`."""
    log = _table()  # hand 1 dealt under riichi
    for seat, tile in plays:
        log.add("demo", "play.discard", {"seat": seat, "tile": tile, "by": "demo"})
        for claimer, frm in claims:
            if frm == seat and tile in ("5z",):
                log.add("demo", "play.claim", {"seat": claimer, "kind": "pung", "from": frm, "tiles": [tile] * 3,
                                               "by": "demo"})
        if seat == riichi:
            log.add("demo", "play.riichi", {"seat": seat, "by": "demo"})
            riichi = ""
    log.add("operator", "operator.hand_end", {"hand_no": 1, "result": "draw"})
    return log


def _ruled(log: Log, **hands: list[str]) -> dict[str, Any]:
    log.ref("referee.exhaustive", hands={w: {"concealed": hands.get(w, [])} for w in "ESWN"})
    ruling = log.state().actions[-1]
    assert not ruling.get("error"), ruling.get("error")
    return ruling


#: E's river all 幺九 (1m 9p 东); S, W and N discard simples or are called
RIVER = (("E", "1m"), ("S", "5m"), ("W", "5z"), ("N", "4p"), ("E", "9p"), ("S", "6m"), ("W", "6p"), ("N", "7z"),
         ("E", "1z"))


def test_nagashi_mangan_off_the_river_pays_nothing_and_the_noten_penalty_stands() -> None:
    assert _ruled(_drawn(*RIVER), S=READY)["by_wind"] == {"S": 3000, "E": -1000, "W": -1000, "N": -1000}


def test_nagashi_mangan_pays_the_dealer_a_mangan_tsumo_and_no_noten_penalty(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """E (dealer, chair 1) discarded 1m 9p 东, none called: 4000 from each (12000); S's 听牌 takes nothing."""
    _venue(tmp_path, monkeypatch, "nagashi_mangan = true")
    log = _drawn(*RIVER)
    ruling = _ruled(log, S=READY)
    assert ruling["by_wind"] == {"E": 12000, "S": -4000, "W": -4000, "N": -4000}
    assert ruling["hands"]["E"]["options"]["river"] == ["1m", "9p", "1z"]
    assert compute(log.state())["rows"][-1]["exhaustive_points"] == {"1": 12000, "2": -4000, "3": -4000, "4": -4000}


def test_nagashi_mangan_of_another_seat_and_none_for_a_river_called_from(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """W discards 5z 中 7z only: 4000 from the dealer, 2000 from S and N (8000). When N pungs W's 5z, W's
    river was called from: no 流し满贯, the 不听罚符 as always (S ready: 3000)."""
    _venue(tmp_path, monkeypatch, "nagashi_mangan = true")
    honours = (("E", "5m"), ("S", "5p"), ("W", "5z"), ("N", "4p"), ("E", "6m"), ("S", "6p"), ("W", "7z"))
    assert _ruled(_drawn(*honours), S=READY)["by_wind"] == {"W": 8000, "E": -4000, "S": -2000, "N": -2000}
    called = _drawn(*honours, claims=(("N", "W"),))
    assert called.state().hand["discards"]["W"][0]["claimed"]
    assert _ruled(called, S=READY)["by_wind"] == {"S": 3000, "E": -1000, "W": -1000, "N": -1000}


def test_a_wait_held_whole_is_ready_by_default_and_noten_where_the_venue_says(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """S shows 1111m 234p 567p 789s (waits on 1m, all four in its hand), E a true wait: as before both are
    听牌 (1500 each from W and N); under 天凤's rule (`held_wait_ready = false`) S is 不听: E takes 1000 from
    each."""
    plays = (("E", "5m"), ("S", "5p"))
    before = _ruled(_drawn(*plays), E=READY, S=HELD_WAIT)
    assert before["by_wind"] == {"E": 1500, "S": 1500, "W": -1500, "N": -1500}
    _venue(tmp_path, monkeypatch, "held_wait_ready = false")
    after = _ruled(_drawn(*plays), E=READY, S=HELD_WAIT)
    assert after["by_wind"] == {"E": 3000, "S": -1000, "W": -1000, "N": -1000} and after["not_ready"] == ["S", "W", "N"]


def test_a_noten_riichi_at_the_draw_pays_a_mangan_where_the_venue_says(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """S declares 立直 and shows a hand not ready at 荒牌; E is ready. By default S pays the 不听罚符 only (1000);
    with `noten_riichi = "mangan"` (错和) it also pays a mangan as a tsumo lost: 4000 to E, 2000 to W and N. Its
    立直棒 stays on the table either way."""
    plays = (("E", "5m"), ("S", "5p"))
    noten = parse_tiles("13579m2468p135s7z")
    assert _ruled(_drawn(*plays, riichi="S"), E=READY, S=noten)["by_wind"] == {
        "E": 3000, "S": -1000, "W": -1000, "N": -1000}
    _venue(tmp_path, monkeypatch, 'noten_riichi = "mangan"')
    log = _drawn(*plays, riichi="S")
    assert _ruled(log, E=READY, S=noten)["by_wind"] == {"E": 7000, "S": -9000, "W": 1000, "N": 1000}
    row = compute(log.state())["rows"][-1]
    assert row["exhaustive_points"] == {"1": 7000, "2": -9000, "3": 1000, "4": 1000}
    assert row["riichi_points"]["2"] == -1000 and row["points"]["2"] == -10000
    # a ready riichi seat pays nothing more
    assert _ruled(_drawn(*plays, riichi="S"), E=READY, S=READY)["by_wind"] == {
        "E": 1500, "S": 1500, "W": -1500, "N": -1500}


@pytest.mark.parametrize("line, words", [("nagashi_mangan = 1", "nagashi_mangan 须为 true 或 false"),
                                         ('noten_riichi = "chombo"', "不听立直须为 none")])
def test_a_bad_draw_option_is_refused_in_words(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, line: str,
                                               words: str) -> None:
    _venue(tmp_path, monkeypatch, line)
    with pytest.raises(ScoringError, match=words):
        check_tables("riichi")

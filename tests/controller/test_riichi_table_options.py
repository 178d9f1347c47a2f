"""Riichi's table options a parlour or a league sets in its ruleset (`[scoring]`, docs/scoring.md): the session's
uma and oka, 流し满贯, 形式听牌 on a wait held whole, and a 不听立直 at 荒牌. Each default is the table as it was;
the venue's copy of the ruleset file turns one on, and the fold of a hand-written log shows the exact points."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterator

import pytest

from table_controller.penalties import catalogue
from table_controller.referee import flow_of
from table_controller.rules.ruleset import ENV_DIR, PACKAGED
from table_controller.scoresheet import compute
from table_controller.scoring import ScoringError, check_tables
from table_controller.tiles import parse_tiles

from test_referee_fold import Log  # type: ignore[import-not-found]


@pytest.fixture(autouse=True)
def _fresh_rulesets() -> Iterator[None]:
    yield
    catalogue.cache_clear()
    flow_of.cache_clear()


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
    catalogue.cache_clear()
    flow_of.cache_clear()


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


@pytest.mark.parametrize("line, words", [("uma = [15, 5, -5]", "顺位马须为四个数"),
                                         ("uma = [20, 10, -10, -10]", "合计为 0"),
                                         ("return_points = 20000", "返点须为不低于起始点数")])
def test_a_bad_uma_or_return_is_refused_in_words(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, line: str,
                                                 words: str) -> None:
    _venue(tmp_path, monkeypatch, line)
    with pytest.raises(ScoringError, match=words):
        check_tables("riichi")

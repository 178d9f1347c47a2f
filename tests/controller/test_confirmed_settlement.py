"""A confirmed hand's points stay what the referee confirmed (`settlements.py`).

The fold scored every win again from the read at every start and every page's state: a venue editing a
fan's value in its ruleset's file mid-tournament (or a scorer's fix) silently changed hands confirmed rounds
ago, and the table's sheet, the hub's standings and the sheets printed before no longer agreed. Now the
confirmation logs the figures shown, the fold takes them, and `tablectl check` names the hands today's rules
would score otherwise. A correction of the hand's plays scores it again and logs the new figures; its undo
puts back the confirmed ones. Real SQLite logs, real `tablectl` processes, a venue's copy of the ruleset.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from table_controller import snapshot
from table_controller.config import parse_config
from table_controller.controller import Controller
from table_controller.projection import public_view, referee_view
from table_controller.rules.ruleset import ENV_DIR, PACKAGED
from table_controller.scoresheet import compute
from table_controller.state import fold
from table_controller.store import EventStore
from table_controller.tournament.broker import free_port

TABLECTL = [sys.executable, "-m", "table_controller.cli"]
PLAYERS = {"1": "甲", "2": "乙", "3": "丙", "4": "丁"}
SEATS = {"E": 1, "S": 2, "W": 3, "N": 4}
#: 七对 (2 番 in the shipped 四川) won on S's discard: S pays base × 2^2 = 4
PAIRS = {"seat_wind": "E", "concealed": "11223344m55667p", "win_tile": "7p", "win": "discard", "discarder": "S"}
WHAT = "已确认和牌 / confirmed wins"


async def _no_table(url: str) -> Any:
    raise ConnectionRefusedError(f"nothing at {url}")


def _venue(folder: Path, pairs: int) -> Path:
    """A venue's rulesets folder: the shipped 四川 with 七对 worth `pairs` 番."""
    folder.mkdir()
    text = (PACKAGED / "sichuan.toml").read_text(encoding="utf-8")
    assert '"七对" = 2\n' in text
    (folder / "sichuan.toml").write_text(text.replace('"七对" = 2\n', f'"七对" = {pairs}\n'), encoding="utf-8")
    return folder


def _controller(data: Path) -> Controller:
    config = parse_config({"table": {"link": "socket://127.0.0.1:9"}, "rules": {"ruleset": "sichuan"}}, "test")
    return Controller(config, EventStore(data / "events.sqlite3"), _no_table)


def _dealt(c: Controller) -> None:
    c.accept("controller", "controller.configured", {"table_name": "T", "ruleset": "sichuan", "players": PLAYERS})
    c.accept("operator", "operator.hand_start", {"hand_no": 1, "ruleset": "sichuan", "dealer_position": 1,
                                                  "prevalent_wind": "E", "seats": SEATS})
    c.accept("table", "table.dice", {"seat": "E", "wind": "E", "dice": [3, 4]})
    c.accept("operator", "play.deal_done", {})
    for seat, suit in (("E", "s"), ("S", "m"), ("W", "m"), ("N", "m")):
        c.accept("operator", "play.missing", {"seat": seat, "suit": suit})
    c.accept("operator", "play.discard", {"seat": "E", "tile": "1s"})


def _read_on_7p(c: Controller) -> Any:
    """S discards 7p and the referee reads the seven pairs won on it (`PAIRS`); the read's event."""
    c.accept("operator", "play.discard", {"seat": "S", "tile": "7p"})
    return c.referee_action("referee.win_read", {"hand": PAIRS}, by="referee")


def _win(sheet: dict[str, Any]) -> dict[str, Any]:
    (row,) = sheet["rows"]
    (win,) = row["wins"]
    return win


def _check(tmp: Path, folder: Path) -> dict[str, Any]:
    """`tablectl check`'s finding on the confirmed wins, in a process of its own with the venue's folder."""
    config = tmp / "table.toml"
    config.write_text(f'[table]\nlink = "sim://"\n[rules]\nruleset = "sichuan"\n[display]\nport = {free_port()}\n'
                      f'[storage]\ndata_dir = "data"\n', encoding="utf-8")
    env = {**os.environ, ENV_DIR: str(folder)}
    out = subprocess.run(TABLECTL + ["check", "--config", str(config), "--no-table", "--json"],
                         capture_output=True, text=True, timeout=60, env=env)
    findings = {f["what"]: f for f in json.loads(out.stdout)["findings"]}
    assert out.returncode in (0, 1), out.stderr
    return findings[WHAT]


def test_a_confirmed_hand_keeps_its_points_after_the_venue_edits_a_fan_and_check_names_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    shipped = _venue(tmp_path / "rulesets", 2)
    monkeypatch.setenv(ENV_DIR, str(shipped))
    c = _controller(tmp_path / "data")
    try:
        _dealt(c)
        _read_on_7p(c)
        confirm = c.referee_action("referee.win_confirm", {}, by="referee")
        win = _win(compute(c.state))
        assert (win["fan_total"], win["points"]) == (2, {"1": 4, "2": -4, "3": 0, "4": 0}) and "rescored" not in win
        # the Win page's line from 合计 to the payment: 2 番 → 2^2 × 底分 1 = 4
        shown = public_view(c.state)["win"]["result"]
        assert [(s["name"], s["op"]) for s in shown["steps"]] == [("番", "2^"), ("底分", "×")]
    finally:
        c.store.close()
    # weeks later the venue makes 七对 1 番 (its file edited: a new process reads it, here a folder of its own)
    edited = _venue(tmp_path / "rulesets-edited", 1)
    monkeypatch.setenv(ENV_DIR, str(edited))
    store = EventStore(tmp_path / "data" / "events.sqlite3")
    try:
        folded = fold(store)
        sheet = compute(folded)
    finally:
        store.close()
    # the Win page shows the figures confirmed, and no line: today's steps (1 番 → 2) do not lead to the 4 confirmed
    for view in (public_view(folded), referee_view(folded)):
        result = view["win"]["result"]
        assert (result["total"], result["payments"]["S"]) == (2, -4) and "steps" not in result, result
    win = _win(sheet)
    assert (win["fan_total"], win["points"]) == (2, {"1": 4, "2": -4, "3": 0, "4": 0})  # as confirmed
    assert sheet["totals"] == {"1": 4, "2": -4, "3": 0, "4": 0}
    assert win["rescored"] == {"valid": True, "fan_total": 1, "points": {"1": 2, "2": -2, "3": 0, "4": 0}}
    found = _check(tmp_path, edited)
    assert found["level"] == "warn", found
    assert f"第 1 轮第 1 盘 东家和牌 #{confirm.seq}：确认时 2（东+4 南-4），现行规则计 1（东+2 南-2）" in found["detail"]
    assert "裁判长" in found["detail"] and "head referee" in found["detail"]
    # the service restarted under the edited file keeps a snapshot of that fold: check starts from it, the same
    store = EventStore(tmp_path / "data" / "events.sqlite3")
    try:
        assert snapshot.save(store, fold(store))
    finally:
        store.close()
    assert _check(tmp_path, edited) == found
    assert confirm.data["settlement"]["total"] == 2  # the figures shown were logged with the confirmation
    # with the file as it was (the snapshot of other rulesets: the log folded whole), nothing to say
    assert _check(tmp_path, shipped) == {"what": WHAT, "level": "ok",
                                         "detail": "已确认的和牌按现行规则计分均与确认时相同 / every confirmed win scores "
                                                   "today as it was confirmed"}


def test_a_correction_after_the_confirmation_scores_again_and_logs_it_and_its_undo_puts_the_confirmed_back(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """S konged before the discard won on: 杠上炮 (+1 番). The kong was never made: voided, the win is
    scored again (2 番) and those figures are logged with the correction, so a later edit of the file changes
    neither; the correction undone, the confirmation's own 3 番 stand again."""
    monkeypatch.setenv(ENV_DIR, str(_venue(tmp_path / "rulesets", 2)))
    c = _controller(tmp_path / "data")
    try:
        _dealt(c)
        kong = c.accept("operator", "play.kong", {"seat": "S", "tiles": ["9s"] * 4, "concealed": True})
        _read_on_7p(c)
        confirm = c.referee_action("referee.win_confirm", {}, by="referee")
        assert (_win(compute(c.state))["fan_total"], _win(compute(c.state))["points"]["1"]) == (3, 8)  # 杠上炮
        fixed = c.referee_action("referee.play_correct", {"target": kong.seq, "void": True, "reason": "没有杠"},
                                 by="referee")
        win = _win(compute(c.state))
        assert (win["fan_total"], win["points"]["1"], win["points"]["2"]) == (2, 4, -4) and "rescored" not in win
    finally:
        c.store.close()
    monkeypatch.setenv(ENV_DIR, str(_venue(tmp_path / "rulesets-edited", 1)))  # 七对 1 番 now
    c = _controller(tmp_path / "data")
    try:
        win = _win(compute(c.state))
        assert (win["fan_total"], win["points"]["1"]) == (2, 4)  # as the correction logged it
        assert win["rescored"] == {"valid": True, "fan_total": 1, "points": {"1": 2, "2": -2, "3": 0, "4": 0}}
        c.referee_action("referee.undo", {"reason": "确有暗杠", "target": fixed.seq}, by="referee")
        win = _win(compute(c.state))
        assert (win["fan_total"], win["points"]["1"]) == (3, 8)  # the confirmation's own figures
        assert win["rescored"]["fan_total"] == 2
    finally:
        c.store.close()
    assert fixed.data["settled"][str(confirm.seq)]["total"] == 2  # logged with the correction
    assert fixed.data["settled"][str(confirm.seq)]["payments"] == {"E": 4, "S": -4, "W": 0, "N": 0}


def test_figures_a_caller_sends_are_not_taken(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The settlement is the scorer's as shown: one in the request is dropped, never logged."""
    monkeypatch.setenv(ENV_DIR, str(_venue(tmp_path / "rulesets", 2)))
    c = _controller(tmp_path / "data")
    try:
        _dealt(c)
        read = _read_on_7p(c)
        forged = {"read_seq": read.seq, "total": 88, "fans": [], "payments": {"E": 300, "S": -300}, "corrections": []}
        confirm = c.referee_action("referee.win_confirm", {"settlement": forged}, by="referee")
        assert confirm.data["settlement"]["payments"] == {"E": 4, "S": -4, "W": 0, "N": 0}
        assert _win(compute(c.state))["points"]["1"] == 4
    finally:
        c.store.close()


def test_an_old_log_without_figures_is_scored_as_before(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A confirmation logged before the figures were (no `settlement`): scored from the read, as it always was."""
    from table_controller.store import Event

    events = []
    shipped = _venue(tmp_path / "rulesets", 2)
    monkeypatch.setenv(ENV_DIR, str(shipped))
    c = _controller(tmp_path / "data")
    try:
        _dealt(c)
        _read_on_7p(c)
        c.accept("referee", "referee.win_confirm", {"by": "referee"})  # as an older version logged it
        events = [Event(e.seq, e.at, e.source, e.type, e.data) for e in c.store]
    finally:
        c.store.close()
    assert _win(compute(fold(events)))["fan_total"] == 2
    monkeypatch.setenv(ENV_DIR, str(_venue(tmp_path / "rulesets-edited", 1)))
    win = _win(compute(fold(events)))
    assert (win["fan_total"], win["points"]["1"]) == (1, 2) and "rescored" not in win
    shutil.rmtree(tmp_path / "data")


def test_a_win_confirmed_under_a_six_fan_minimum_stands_when_the_club_raises_it_to_eight(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Scored again, the 7-番 win fell below the new minimum: its confirmation became an error and the
    hand lost its win altogether. It stands as confirmed now, and check says today's rules refuse it."""
    club = tmp_path / "rulesets"
    club.mkdir()
    text = (PACKAGED.parent / "house-ruleset.example.toml").read_text(encoding="utf-8")
    assert "min_fan = 6 " in text
    (club / "mcr_club.toml").write_text(text, encoding="utf-8")
    seven = {"seat_wind": "S", "prevalent_wind": "E", "concealed": "67s66z", "win_tile": "8s", "win": "discard",
             "discarder": "E", "melds": [{"type": "chi", "tiles": "234m", "from": "E"},
                                         {"type": "chi", "tiles": "456p", "from": "E"},
                                         {"type": "pung", "tiles": "333z", "from": "W"}]}
    monkeypatch.setenv(ENV_DIR, str(club))
    config = parse_config({"table": {"link": "socket://127.0.0.1:9"}, "rules": {"ruleset": "mcr_club"}}, "test")
    c = Controller(config, EventStore(tmp_path / "data" / "events.sqlite3"), _no_table)
    try:
        c.accept("controller", "controller.configured", {"table_name": "T", "ruleset": "mcr_club", "players": PLAYERS})
        c.accept("operator", "operator.hand_start", {"hand_no": 1, "ruleset": "mcr_club", "dealer_position": 1,
                                                      "prevalent_wind": "E", "seats": SEATS})
        c.accept("operator", "play.discard", {"seat": "E", "tile": "8s"})
        c.referee_action("referee.win_read", {"hand": seven}, by="referee")
        c.referee_action("referee.win_confirm", {}, by="referee")
        confirmed = _win(compute(c.state))
        assert confirmed["fan_total"] == 7 and confirmed["points"]["2"] == 31
    finally:
        c.store.close()
    raised = tmp_path / "rulesets-raised"
    raised.mkdir()
    (raised / "mcr_club.toml").write_text(text.replace("min_fan = 6 ", "min_fan = 8 "), encoding="utf-8")
    monkeypatch.setenv(ENV_DIR, str(raised))
    store = EventStore(tmp_path / "data" / "events.sqlite3")
    try:
        state = fold(store)
    finally:
        store.close()
    win = _win(compute(state))
    assert (win["fan_total"], win["points"]) == (confirmed["fan_total"], confirmed["points"])
    assert win["rescored"] == {"valid": False}  # the sheet is public: why is the confirmation's
    (confirmation,) = [a for a in state.actions if a["type"] == "referee.win_confirm"]
    assert "8番" in confirmation["rescored"]["message"]
    assert state.hand["winners"] == ["S"]


def test_a_hard_win_confirmed_with_its_factor_among_the_fans_is_not_rescored() -> None:
    """推倒胡's 硬胡 was a fan until it became a step of the payment: a 鸡胡 自摸 without 鬼牌 confirmed then logged
    鸡胡 2 and 硬胡 2 (合计 2, 8 from each). Today's figures hold 鸡胡 alone and 硬胡 among the steps: the same
    hand, which `tablectl check` must not name; a payment that differs still is named."""
    from table_controller import settlements
    from table_controller.scoring import score_json

    now = score_json({"seat_wind": "S", "concealed": "123m456p789s1122z", "win_tile": "2z", "win": "self_draw",
                      "options": {"wildcard": "5z"}}, "tuidaohu")
    logged = {"total": 2, "fans": [{"name": "鸡胡", "value": 2, "count": 1}, {"name": "硬胡", "value": 2, "count": 1}],
              "payments": {"E": -8, "S": 24, "W": -8, "N": -8}}
    assert settlements.rescored(logged, now) is None
    assert settlements.rescored(dict(logged, fans=logged["fans"][:1]), now) is None
    paid_less = dict(logged, payments={"E": -4, "S": 12, "W": -4, "N": -4})
    assert settlements.rescored(paid_less, now) == {"valid": True, **settlements.figures(now)}

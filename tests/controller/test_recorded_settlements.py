"""Every figure settled at the table stays what was recorded, not only a confirmed win's (`settlements.py`).

The fold worked out again from the CURRENT ruleset, at every start and every page's state, a 查叫 ruling's
payments at 荒牌, a penalty's amount from the catalogue, a 诈和's from the scorer, and the on-the-spot payments
of a kong and of 追牌: a venue editing its ruleset's file mid-tournament silently changed hands already played and
signed. Now each event logs the figures the table settled when it was accepted, the fold takes them, and
`tablectl check` names those today's rules would settle otherwise, one line each. Real SQLite logs, a venue's
copy of the ruleset's file edited, real `tablectl` processes.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from table_controller.config import parse_config
from table_controller.controller import ActionError, Controller
from table_controller.rules.ruleset import ENV_DIR, PACKAGED
from table_controller.scoresheet import compute
from table_controller.state import TableState, fold
from table_controller.store import Event, EventStore
from table_controller.tournament.broker import free_port

TABLECTL = [sys.executable, "-m", "table_controller.cli"]
PLAYERS = {"1": "甲", "2": "乙", "3": "丙", "4": "丁"}
SEATS = {"E": 1, "S": 2, "W": 3, "N": 4}


async def _no_table(url: str) -> Any:
    raise ConnectionRefusedError(f"nothing at {url}")


def _venue(folder: Path, ruleset: str, old: str, new: str, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A venue's rulesets folder holding the shipped `ruleset` with `old` replaced by `new`, in use from now
    (as by a process started on it: the per-ruleset caches are keyed by the folder too)."""
    folder.mkdir()
    text = (PACKAGED / f"{ruleset}.toml").read_text(encoding="utf-8")
    assert text.count(old) == 1, old
    (folder / f"{ruleset}.toml").write_text(text.replace(old, new), encoding="utf-8")
    monkeypatch.setenv(ENV_DIR, str(folder))
    return folder


def _controller(data: Path, ruleset: str, dice: bool = False) -> Controller:
    """A hand dealt with no table linked; `dice`: 四川's one throw breaks the wall first, so keyed plays
    (`record_play`, checked as the API checks them) are taken."""
    config = parse_config({"table": {"link": "socket://127.0.0.1:9"}, "rules": {"ruleset": ruleset}}, "test")
    c = Controller(config, EventStore(data / "events.sqlite3"), _no_table)
    if c.state.seq == 0:
        c.accept("controller", "controller.configured", {"table_name": "T", "ruleset": ruleset, "players": PLAYERS})
        c.accept("operator", "operator.hand_start", {"hand_no": 1, "ruleset": ruleset, "dealer_position": 1,
                                                      "prevalent_wind": "E", "seats": SEATS})
        if dice:
            c.accept("table", "table.dice", {"seat": "E", "wind": "E", "dice": [3, 4]})
        c.accept("operator", "play.deal_done", {})
    return c


def _folded(data: Path) -> TableState:
    store = EventStore(data / "events.sqlite3")
    try:
        return fold(store)
    finally:
        store.close()


def _check(tmp: Path, folder: Path, ruleset: str) -> dict[str, dict[str, Any]]:
    """`tablectl check`'s findings, in a process of its own reading the venue's folder."""
    config = tmp / "table.toml"
    config.write_text(f'[table]\nlink = "sim://"\n[rules]\nruleset = "{ruleset}"\n[display]\nport = {free_port()}\n'
                      f'[storage]\ndata_dir = "data"\n', encoding="utf-8")
    out = subprocess.run(TABLECTL + ["check", "--config", str(config), "--no-table", "--json"],
                         capture_output=True, text=True, timeout=60, env={**os.environ, ENV_DIR: str(folder)})
    assert out.returncode in (0, 1), out.stderr
    return {f["what"]: f for f in json.loads(out.stdout)["findings"]}


def _row(state: TableState) -> dict[str, Any]:
    return compute(state)["rows"][-1]


def test_a_kong_paid_stays_paid_as_logged_after_the_venue_edits_its_payment(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """四川 下雨: S's 暗杠 took 2 from each seat still playing; the venue makes it 3. The sheet keeps 6."""
    shipped = _venue(tmp_path / "rulesets", "sichuan", '"暗杠" = 2\n', '"暗杠" = 2\n', monkeypatch)
    c = _controller(tmp_path / "data", "sichuan")
    try:
        kong = c.accept("operator", "play.kong", {"seat": "S", "tiles": ["9s"] * 4, "concealed": True})
        assert kong.data["settlement"]["by_wind"] == {"E": -2, "S": 6, "W": -2, "N": -2}
    finally:
        c.store.close()
    edited = _venue(tmp_path / "rulesets-edited", "sichuan", '"暗杠" = 2\n', '"暗杠" = 3\n', monkeypatch)
    state = _folded(tmp_path / "data")
    assert _row(state)["kong_points"] == {"1": -2, "2": 6, "3": -2, "4": -2}  # before: S +9 under the edit
    found = _check(tmp_path, edited, "sichuan")["已记录的杠分 / recorded kong payments"]
    assert found["level"] == "warn"
    assert f"第 1 轮第 1 盘 南家杠分 #{kong.seq}：记录时 东-2 南+6 西-2 北-2，现行规则计 东-3 南+9 西-3 北-3" \
        in found["detail"]
    ok = _check(tmp_path, shipped, "sichuan")
    assert ok["已记录的结算 / recorded settlements"]["level"] == "ok"
    assert "已记录的杠分 / recorded kong payments" not in ok


def test_a_chase_paid_stays_paid_as_logged_after_the_venue_edits_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """竞技 追牌现场汇: four seats discard 1z in a row, E pays 4 to each; the venue makes it 8."""
    _venue(tmp_path / "rulesets", "jingji", "chase_each = 4 ", "chase_each = 4 ", monkeypatch)
    c = _controller(tmp_path / "data", "jingji")
    try:
        for seat in "ESWN":
            last = c.accept("operator", "play.discard", {"seat": seat, "tile": "1z"})
        assert last.data["settlement"]["seat"] == "E"
        assert _row(c.state)["chase_points"] == {"1": -12, "2": 4, "3": 4, "4": 4}
    finally:
        c.store.close()
    edited = _venue(tmp_path / "rulesets-edited", "jingji", "chase_each = 4 ", "chase_each = 8 ", monkeypatch)
    assert _row(_folded(tmp_path / "data"))["chase_points"] == {"1": -12, "2": 4, "3": 4, "4": 4}
    # a venue that drops 追牌 altogether pays none for new runs, and keeps the one paid
    _venue(tmp_path / "rulesets-off", "jingji", "chase = true ", "chase = false ", monkeypatch)
    assert _row(_folded(tmp_path / "data"))["chase_points"] == {"1": -12, "2": 4, "3": 4, "4": 4}
    found = _check(tmp_path, edited, "jingji")["已记录的追牌 / recorded 追牌 payments"]
    assert f"东家追牌 #{last.seq}：记录时 东-12 南+4 西+4 北+4，现行规则计 东-24 南+8 西+8 北+8" in found["detail"]


def test_a_catalogue_penalty_keeps_its_amount_after_the_venue_edits_the_catalogue(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """国标 迟到5分钟 10 分 made 30 by the venue: the penalty ruled stays 10, and check names it."""
    block = 'code = "late_5"\nname_zh = "迟到（5分钟内）"\nname_en = "Late (within 5 minutes)"\npays = "dead"\namount = 10\n'
    _venue(tmp_path / "rulesets", "mcr", block, block, monkeypatch)
    c = _controller(tmp_path / "data", "mcr")
    try:
        pen = c.referee_action("referee.penalty", {"seat": "W", "code": "late_5"}, by="referee")
        assert pen.data["settlement"]["amount"] == 10
    finally:
        c.store.close()
    edited = _venue(tmp_path / "rulesets-edited", "mcr", block, block.replace("amount = 10", "amount = 30"),
                    monkeypatch)
    state = _folded(tmp_path / "data")
    (ruled,) = [a for a in state.actions if a["type"] == "referee.penalty"]
    assert (ruled["amount"], ruled["by_wind"]["W"]) == (10, -10)
    assert _row(state)["penalty_points"]["3"] == -10
    found = _check(tmp_path, edited, "mcr")["已记录的罚分 / recorded penalties"]
    assert f"西家{ruled['name_zh']} #{pen.seq}：记录时 西-10，现行规则计 西-30" in found["detail"]


def test_a_false_win_keeps_what_the_scorer_paid_after_the_venue_doubles_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """四川 诈和 of 2 番: each other seat got 4 (和多少罚多少); the venue's 加倍罚 would make it 8."""
    _venue(tmp_path / "rulesets", "sichuan", "false_win_factor = 1 ", "false_win_factor = 1 ", monkeypatch)
    c = _controller(tmp_path / "data", "sichuan")
    try:
        pen = c.referee_action("referee.penalty", {"seat": "W", "code": "false_win", "fan": 2}, by="referee")
        paid = dict(pen.data["settlement"]["by_wind"])
        assert paid["W"] == -12
    finally:
        c.store.close()
    edited = _venue(tmp_path / "rulesets-edited", "sichuan", "false_win_factor = 1 ", "false_win_factor = 2 ",
                    monkeypatch)
    (ruled,) = [a for a in _folded(tmp_path / "data").actions if a["type"] == "referee.penalty"]
    assert (ruled["amount"], ruled["by_wind"]) == (12, paid) and ruled["stops_win"]
    found = _check(tmp_path, edited, "sichuan")["已记录的罚分 / recorded penalties"]
    assert f"西家诈和 #{pen.seq}：记录时 东+4 南+4 西-12 北+4，现行规则计 东+8 南+8 西-24 北+8" in found["detail"]


def test_a_draw_settlement_keeps_its_payments_after_the_venue_edits_the_noten_penalty(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """日本麻将 流局: E ready, the others not: each pays 1000 to E (不听罚符 3000); the venue makes it 6000."""
    from table_controller.tiles import parse_tiles

    _venue(tmp_path / "rulesets", "riichi", "noten_penalty = 3000 ", "noten_penalty = 3000 ", monkeypatch)
    c = _controller(tmp_path / "data", "riichi")
    try:
        c.accept("operator", "operator.hand_end", {"hand_no": 1, "result": "draw"})
        ruling = c.referee_action("referee.exhaustive", {"hands": {
            "E": {"concealed": parse_tiles("22444m333567p44s")}, "S": {"concealed": []}, "W": {"concealed": []},
            "N": {"concealed": []}}}, by="referee")
        assert ruling.data["settlement"]["by_wind"] == {"E": 3000, "S": -1000, "W": -1000, "N": -1000}
    finally:
        c.store.close()
    edited = _venue(tmp_path / "rulesets-edited", "riichi", "noten_penalty = 3000 ", "noten_penalty = 6000 ",
                    monkeypatch)
    state = _folded(tmp_path / "data")
    assert _row(state)["exhaustive_points"] == {"1": 3000, "2": -1000, "3": -1000, "4": -1000}
    found = _check(tmp_path, edited, "riichi")["已记录的查叫 / recorded draw settlements (查叫)"]
    assert f"第 1 轮第 1 盘 查叫 #{ruling.seq}：记录时 东+3000 南-1000 西-1000 北-1000，现行规则计 东+6000 南-2000 " \
        "西-2000 北-2000" in found["detail"]


def test_a_correction_logs_the_hands_payments_again_and_its_undo_keeps_the_kongs_own(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A correction folds the hand again and logs its payments as they then stand (as for a confirmed win), so
    a ruleset edited after it changes none; the correction undone, the kong's own figures stand again."""
    _venue(tmp_path / "rulesets", "sichuan", '"暗杠" = 2\n', '"暗杠" = 2\n', monkeypatch)
    c = _controller(tmp_path / "data", "sichuan")
    try:
        slip = c.accept("operator", "play.discard", {"seat": "E", "tile": "1s"})
        kong = c.accept("operator", "play.kong", {"seat": "S", "tiles": ["9s"] * 4, "concealed": True})
        fixed = c.referee_action("referee.play_correct", {"target": slip.seq, "tile": "2s", "reason": "是二条"},
                                 by="referee")
        assert fixed.data["settled"][str(kong.seq)]["by_wind"] == {"E": -2, "S": 6, "W": -2, "N": -2}
    finally:
        c.store.close()
    _venue(tmp_path / "rulesets-edited", "sichuan", '"暗杠" = 2\n', '"暗杠" = 3\n', monkeypatch)
    c = _controller(tmp_path / "data", "sichuan")
    try:
        assert _row(c.state)["kong_points"]["2"] == 6  # as the correction logged it (before: 9, today's)
        assert c.state.hand["rescored"][0]["now"]["by_wind"]["S"] == 9
        c.referee_action("referee.undo", {"reason": "确是一条", "target": fixed.seq}, by="referee")
        assert _row(c.state)["kong_points"]["2"] == 6  # the kong's own
    finally:
        c.store.close()
    assert _row(_folded(tmp_path / "data"))["kong_points"]["2"] == 6


def test_figures_a_request_sends_are_never_logged(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A kong keyed, a penalty ruled with a `settlement` of the caller's: dropped, the table's own logged."""
    _venue(tmp_path / "rulesets", "sichuan", '"暗杠" = 2\n', '"暗杠" = 2\n', monkeypatch)
    c = _controller(tmp_path / "data", "sichuan", dice=True)
    forged = {"by_wind": {"S": 300, "E": -300}, "corrections": []}
    try:
        c.accept("operator", "play.discard", {"seat": "E", "tile": "1s"})
        kong = c.record_play("play.kong", {"seat": "S", "tiles": ["9s"] * 4, "concealed": True, "settlement": forged},
                             by="referee")
        assert kong.data["settlement"]["by_wind"] == {"E": -2, "S": 6, "W": -2, "N": -2}
        pen = c.referee_action("referee.penalty", {"seat": "W", "code": "false_win", "fan": 1,
                                                   "settlement": {**forged, "amount": 1}}, by="referee")
        assert pen.data["settlement"]["by_wind"]["W"] == -6
        assert _row(c.state)["kong_points"]["2"] == 6 and _row(c.state)["penalty_points"]["3"] == -6
    finally:
        c.store.close()


def test_an_old_log_without_figures_settles_as_before(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A kong and a penalty logged before the figures were (no `settlement`): worked out by today's rules."""
    _venue(tmp_path / "rulesets", "sichuan", '"暗杠" = 2\n', '"暗杠" = 2\n', monkeypatch)
    c = _controller(tmp_path / "data", "sichuan")
    try:
        c.accept("operator", "play.kong", {"seat": "S", "tiles": ["9s"] * 4, "concealed": True})
        c.referee_action("referee.penalty", {"seat": "W", "code": "false_win", "fan": 1}, by="referee")
        events = [Event(e.seq, e.at, e.source, e.type, {k: v for k, v in e.data.items() if k != "settlement"})
                  for e in c.store]
    finally:
        c.store.close()
    _venue(tmp_path / "rulesets-edited", "sichuan", '"暗杠" = 2\n', '"暗杠" = 3\n', monkeypatch)
    state = fold(events)
    assert _row(state)["kong_points"]["2"] == 9 and "rescored" not in state.hand
    assert not any(a.get("recorded") or a.get("rescored") for a in state.actions)


def test_a_robbed_kong_is_named_by_check_only_while_it_stands(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """竞技 抢杠和: W's 补杠 is robbed by N, so it never stood and pays nothing, whatever the ruleset says now:
    check has no kong to name; the win undone, the kong stands again, paid as logged, and is named."""
    _venue(tmp_path / "rulesets", "jingji", '"明杠" = 4\n', '"明杠" = 4\n', monkeypatch)
    c = _controller(tmp_path / "data", "jingji")
    try:
        for seat, tile in (("E", "1z"), ("S", "5p")):
            c.accept("operator", "play.discard", {"seat": seat, "tile": tile})
        c.accept("operator", "play.claim", {"seat": "W", "kind": "pung", "tiles": ["5p"] * 3, "from": "S"})
        for seat, tile in (("W", "9m"), ("N", "9s"), ("E", "2z"), ("S", "3z")):
            c.accept("operator", "play.discard", {"seat": seat, "tile": tile})
        kong = c.accept("operator", "play.kong", {"seat": "W", "tiles": ["5p"] * 4, "added": True})
        assert kong.data["settlement"]["by_wind"]["W"] > 0
    finally:
        c.store.close()
    edited = _venue(tmp_path / "rulesets-edited", "jingji", '"明杠" = 4\n', '"明杠" = 8\n', monkeypatch)
    c = _controller(tmp_path / "data", "jingji")
    try:
        assert [r["seq"] for r in c.state.hand["rescored"]] == [kong.seq]
        c.referee_action("referee.win_read", {"hand": {
            "seat_wind": "N", "concealed": "1m 2m 3m 4m 5m 6m 7m 8m 9m 3p 4p 9s 9s".split(), "win_tile": "5p",
            "win": "rob_kong", "discarder": "W"}}, by="referee")
        win = c.referee_action("referee.win_confirm", {}, by="referee")
        assert c.state.hand["kong_payments"] == [] and not c.state.hand.get("rescored")
    finally:
        c.store.close()
    assert "已记录的杠分 / recorded kong payments" not in _check(tmp_path, edited, "jingji")
    c = _controller(tmp_path / "data", "jingji")
    try:
        c.referee_action("referee.undo", {"reason": "抢杠读错", "target": win.seq}, by="referee")
        assert [r["seq"] for r in c.state.hand["rescored"]] == [kong.seq]
    finally:
        c.store.close()
    assert f"西家杠分 #{kong.seq}" in _check(tmp_path, edited, "jingji")["已记录的杠分 / recorded kong payments"]["detail"]


def test_a_second_winner_confirmed_under_multiple_winners_stands_when_the_venue_turns_it_off(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """广东鸡平胡 一炮多响: S and N both win on E's 2p, each confirmed. Weeks later the venue turns
    `multiple_winners` off: the fold refused N's confirmation (截和) and the sheet lost a win the players signed.
    It stands as confirmed now, `tablectl check` names it, and a new second winner is still refused today."""
    _venue(tmp_path / "rulesets", "jipinghu", "multiple_winners = true", "multiple_winners = true", monkeypatch)
    c = _controller(tmp_path / "data", "jipinghu")
    reads = {"S": "3m 4m 5m 6m 7m 8m 4s 4s 4s 9p 9p 9p 2p", "N": "1m 2m 3m 4m 5m 6m 7m 8m 9m 1p 1p 1p 2p"}
    try:
        c.accept("operator", "play.discard", {"seat": "E", "tile": "2p"})
        confirms = {}
        for seat, tiles in reads.items():
            c.referee_action("referee.win_read", {"hand": {
                "seat_wind": seat, "prevalent_wind": "E", "concealed": tiles.split(), "win_tile": "2p",
                "win": "discard", "discarder": "E"}}, by="referee")
            confirms[seat] = c.referee_action("referee.win_confirm", {}, by="referee")
        signed = _row(c.state)
        assert [w["seat"] for w in signed["wins"]] == ["S", "N"] and signed["win_points"]["1"] < 0
    finally:
        c.store.close()
    edited = _venue(tmp_path / "rulesets-edited", "jipinghu", "multiple_winners = true", "multiple_winners = false",
                    monkeypatch)
    state = _folded(tmp_path / "data")
    row = _row(state)
    assert [w["seat"] for w in row["wins"]] == ["S", "N"]  # as confirmed
    assert row["points"] == signed["points"] and row["running"] == signed["running"]
    assert state.hand["winners"] == ["S", "N"]
    (north,) = [w for w in row["wins"] if w["seat"] == "N"]
    assert north["rescored"] == {"valid": False}  # the sheet is public: why is the confirmation's, below
    (confirmation,) = [a for a in state.actions if a["seq"] == confirms["N"].seq]
    assert "截和" in confirmation["rescored"]["message"]
    assert not any(w.get("rescored") for w in row["wins"] if w["seat"] == "S")  # the first win fits today's rules
    found = _check(tmp_path, edited, "jipinghu")["已确认和牌 / confirmed wins"]
    assert found["level"] == "warn", found
    assert f"第 1 轮第 1 盘 北家和牌 #{confirms['N'].seq}：确认时" in found["detail"]
    assert "现行规则不成和（本盘和牌已确认（截和" in found["detail"] and f"#{confirms['S'].seq}" not in found["detail"]
    # a third seat read on the same discard today is refused under today's [flow], and nothing is logged
    c = _controller(tmp_path / "data", "jipinghu")
    try:
        c.referee_action("referee.win_read", {"hand": {
            "seat_wind": "W", "prevalent_wind": "E", "concealed": "1s 2s 3s 4s 5s 6s 7s 8s 9s 5z 5z 5z 2p".split(),
            "win_tile": "2p", "win": "discard", "discarder": "E"}}, by="referee")
        seq = c.state.seq
        with pytest.raises(ActionError, match="截和"):
            c.referee_action("referee.win_confirm", {}, by="referee")
        assert c.state.seq == seq and [w["seat"] for w in _row(c.state)["wins"]] == ["S", "N"]
    finally:
        c.store.close()

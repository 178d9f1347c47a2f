"""Refusals of a new referee action on every path that takes one (the API, the demo's referee, any
caller of `Controller.referee_action`), and never of an action an older log already holds: such a
log folds, in the service and in `tablectl record`, to the history it had."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from table_controller.cli import main
from table_controller.config import parse_config
from table_controller.controller import ActionError, Controller
from table_controller.referee import session
from table_controller.store import EventStore

PLAYERS = {"1": "甲", "2": "乙", "3": "丙", "4": "丁"}
SEATS = {"E": 1, "S": 2, "W": 3, "N": 4}


async def _no_table(url: str) -> Any:
    raise ConnectionRefusedError(f"nothing at {url}")


def _controller(path: Path) -> Controller:
    return Controller(parse_config({"table": {"link": "socket://127.0.0.1:9"}}, "test"), EventStore(path), _no_table)


def _refused(c: Controller, type_: str, data: dict[str, Any], status: int, words: str) -> None:
    """`type_` is refused with `status`, Chinese first, and the log has not grown."""
    before = c.state.seq
    with pytest.raises(ActionError) as info:
        c.referee_action(type_, data, by="referee")
    assert info.value.status == status and words in str(info.value), str(info.value)
    zh, _, en = str(info.value).partition(" / ")  # the referee reads Chinese first, English after
    assert any("\u4e00" <= ch <= "\u9fff" for ch in zh) and en.isascii() and en
    assert c.state.seq == before == len(c.store.since(0))


def test_the_controller_refuses_what_the_api_refused(tmp_path: Path) -> None:
    """The three refusals were the API's alone: the demo's referee (or any caller of
    `referee_action`) could still name a harmed seat on 迟到, start a running clock afresh and
    seat one player in two chairs."""
    c = _controller(tmp_path / "events.sqlite3")
    try:
        c.accept("controller", "controller.configured", {"table_name": "T", "ruleset": "mcr", "players": PLAYERS})
        c.accept("operator", "operator.hand_start", {"hand_no": 1, "ruleset": "mcr", "dealer_position": 1,
                                                      "prevalent_wind": "E", "seats": SEATS})
        _refused(c, "referee.penalty", {"seat": "S", "code": "late_5", "victim": "N"}, 422, "不付给受损方")
        c.referee_action("referee.penalty", {"seat": "S", "code": "exposed_other", "amount": 10, "victim": "N"},
                         by="referee")  # a penalty that pays the harmed seat takes one
        start = c.referee_action("referee.session_start", {"minutes": 60}, by="referee")
        _refused(c, "referee.session_start", {"minutes": 90}, 409, f"比赛计时已在进行（#{start.seq}）")
        c.referee_action("referee.undo", {"reason": "时长录错", "target": start.seq}, by="referee")
        again = c.referee_action("referee.session_start", {"minutes": 90}, by="referee")  # after the undo: taken
        _refused(c, "referee.appeal", {"position": 1, "target": again.seq, "text": "开始晚了"}, 409,
                 f"#{again.seq}（开始计时）不是裁判的裁决")
        c.referee_action("referee.appeal", {"position": 1, "text": "开始晚了"}, by="referee")  # 相关事宜: taken
        c.accept("operator", "operator.hand_end", {"hand_no": 1, "result": "draw"})
        _refused(c, "referee.round_start", {"round": 2, "players": {"1": "戊", "2": "己", "3": "庚", "4": " 戊 "}},
                 422, "同一选手不能占两个号位：戊")
        _refused(c, "referee.round_start", {"round": 2, "players": {"1": "戊", "2": "己", "3": "庚", "4": "辛"},
                                            "player_ids": {"1": "B101", "3": "B101"}}, 422, "同一编号不能占两个号位：B101")
        c.referee_action("referee.round_start", {"round": 2, "players": {"1": "戊", "2": "己", "3": "庚", "4": "辛"},
                                                 "player_ids": {"1": "B101"}}, by="referee")
        assert c.state.round == 2 and not any(a.get("error") for a in c.state.actions)
    finally:
        c.store.close()


def _old_log(path: Path) -> None:
    """What the code before these refusals took and logged: a harmed seat on 迟到, the clock started
    again while it ran (after a pause), an appeal against that start, one player in two chairs of round 2."""
    store = EventStore(path)
    at = 1000.0

    def add(source: str, type_: str, **data: Any) -> None:
        nonlocal at
        at += 60.0
        if source == "referee":
            data = {**data, "by": "referee", "client": "10.0.0.9"}
        store.append(source, type_, data, at=at)

    add("controller", "controller.configured", table_name="T", ruleset="mcr", players=PLAYERS)
    add("operator", "operator.hand_start", hand_no=1, ruleset="mcr", dealer_position=1, prevalent_wind="E", seats=SEATS)
    add("referee", "referee.penalty", seat="S", code="late_5", victim="N")  # seq 3
    add("referee", "referee.session_start", minutes=60)  # seq 4
    add("referee", "referee.clock_pause", reason="牌桌卡牌")
    add("referee", "referee.clock_resume")
    add("referee", "referee.session_start", minutes=90)  # seq 7: taken afresh, the pause forgotten
    add("referee", "referee.appeal", position=1, target=7, text="开始晚了")  # seq 8: against no ruling
    add("operator", "operator.hand_end", hand_no=1, result="draw")
    add("referee", "referee.round_start", round=2, players={"1": "戊", "2": "己", "3": "庚", "4": "戊"}, player_ids={})
    store.close()


def test_an_old_log_with_actions_now_refused_folds_to_the_history_it_had(tmp_path: Path,
                                                                        capsys: pytest.CaptureFixture[str]) -> None:
    """Refused only when taken: were the refusals checked in the fold, the old log's start again,
    its round and its penalty would each become a refused action, and its sheet and clock change."""
    _old_log(tmp_path / "events.sqlite3")
    c = _controller(tmp_path / "events.sqlite3")  # the service's start: the log folded from the file
    try:
        s = c.state
        assert [a.get("error") for a in s.rounds[0]["actions"] + s.actions] == [None] * 7
        penalty = s.rounds[0]["actions"][0]
        assert (penalty["seq"], penalty["victim"], penalty["deltas"]) == (3, "N", {"2": -10})
        assert s.rounds[0]["sheet"]["totals"] == {"1": 0, "2": -10, "3": 0, "4": 0}
        clock = session(s.rounds[0]["actions"])
        assert (clock["seq"], clock["minutes"], clock["pauses"]) == (7, 90.0, [])
        appeal = s.rounds[0]["actions"][-1]
        assert (appeal["seq"], appeal["target"], appeal["target_what"]) == (8, 7, "开始计时")
        assert s.round == 2 and s.players == {1: "戊", 2: "己", 3: "庚", 4: "戊"}
        # the same actions now are refused, the old ones standing
        _refused(c, "referee.round_start", {"round": 3, "players": {"1": "壬", "2": "壬", "3": "癸", "4": "子"}},
                 422, "壬")
        _refused(c, "referee.penalty", {"seat": "E", "code": "late_5", "victim": "S"}, 422, "受损方")
    finally:
        c.store.close()
    assert main(["record", "--data-dir", str(tmp_path), "--round", "1", "--hand", "1", "--json"]) == 0
    lines = json.loads(capsys.readouterr().out)["lines"]
    assert [line["seq"] for line in lines if line["type"].startswith("referee.")] == [3, 4, 5, 6, 7, 8]
    assert not any("refused" in line for line in lines)

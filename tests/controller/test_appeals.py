"""Appeals (申诉, seed 000 九): a player's written appeal against a ruling, kept in the record with
the arbitration committee's decision; closed 30 minutes after the session under MCR."""

from __future__ import annotations

from typing import Any

import pytest

from table_controller.projection import public_view
from table_controller.referee import RefereeError, validate
from table_controller.state import TableState, fold
from table_controller.store import Event


class Log:
    def __init__(self, ruleset: str = "mcr") -> None:
        self.events: list[Event] = []
        self.at = 1000.0
        self.add("controller", "controller.configured",
                 {"table_name": "T", "ruleset": ruleset, "players": {"1": "甲", "2": "乙", "3": "丙", "4": "丁"}})
        self.add("operator", "operator.hand_start", {"hand_no": 1, "ruleset": ruleset, "dealer_position": 1,
                                                      "prevalent_wind": "E", "seats": {"E": 1, "S": 2, "W": 3, "N": 4}})

    def add(self, source: str, type_: str, data: dict[str, Any], after_s: float = 1.0) -> Event:
        self.at += after_s
        ev = Event(len(self.events) + 1, self.at, source, type_, data)
        self.events.append(ev)
        return ev

    def ref(self, type_: str, after_s: float = 1.0, **data: Any) -> Event:
        return self.add("referee", type_, {**data, "by": "referee", "client": None}, after_s)

    def state(self) -> TableState:
        return fold(self.events)


def test_an_appeal_against_a_ruling_and_the_committees_decision_stay_in_the_record() -> None:
    log = Log()
    penalty = log.ref("referee.penalty", seat="S", code="exposed_other", amount=15, victim="W")
    with pytest.raises(RefereeError, match="in writing"):
        validate(log.state(), "referee.appeal", {"position": 2, "text": " "})
    with pytest.raises(RefereeError, match="not a referee's ruling"):
        validate(log.state(), "referee.appeal", {"position": 2, "text": "我没有亮牌", "target": 1})
    log.ref("referee.appeal", position=2, target=penalty.seq, text="我没有暴露他人手牌")
    view = public_view(log.state())
    (a,) = view["appeals"]
    assert (a["player"], a["target"], a["target_what"], a["ruling"]) == ("乙", penalty.seq, "暴露他人手牌", None)
    with pytest.raises(RefereeError, match="reasons"):
        validate(log.state(), "referee.appeal_ruling", {"appeal": a["seq"], "upheld": False, "note": ""})
    ruling = log.ref("referee.appeal_ruling", appeal=a["seq"], upheld=False, note="录像显示确有亮牌")
    (a,) = public_view(log.state())["appeals"]
    assert a["ruling"]["upheld"] is False and a["ruling"]["note"] == "录像显示确有亮牌"
    with pytest.raises(RefereeError, match="has its decision already"):
        validate(log.state(), "referee.appeal_ruling", {"appeal": a["seq"], "upheld": True, "note": "x"})
    # the decision keyed wrong: undone, the appeal waits again, and the penalty stands throughout
    log.ref("referee.undo", reason="裁决录反", target=ruling.seq)
    assert public_view(log.state())["appeals"][0]["ruling"] is None
    assert next(x for x in log.state().actions if x["seq"] == penalty.seq)["deltas"] == {"2": -15, "3": 15}
    assert "2号位选手提出申诉（针对 #3）" in [line["text"] for line in log.state().log][-3]


def test_appeals_close_thirty_minutes_after_the_session() -> None:
    log = Log()
    log.ref("referee.session_start", minutes=60)
    log.ref("referee.session_end", after_s=3600)
    log.ref("referee.appeal", after_s=29 * 60, position=1, text="计分有误")  # 29 minutes after: taken
    assert len(log.state().actions) and not log.state().actions[-1].get("error")
    log.ref("referee.appeal", after_s=2 * 60, position=3, text="太晚了")  # 31 minutes after: refused
    assert "30 分钟内" in log.state().actions[-1]["error"]
    assert [a["position"] for a in public_view(log.state())["appeals"]] == [1]
    # a ruleset that states no limit (竞技) takes an appeal at any time
    late = Log("jingji")
    late.ref("referee.session_start", minutes=60)
    late.ref("referee.session_end", after_s=3600)
    late.ref("referee.appeal", after_s=5 * 3600, position=4, text="申诉")
    assert not late.state().actions[-1].get("error")


def test_an_appeal_names_a_ruling_not_the_clock_or_the_round() -> None:
    """An appeal could name any referee action, 开始计时 too: the seed gives appeals against 裁决
    (rulings), and a complaint about the clock is a related matter (相关事宜), without a number."""
    log = Log()
    start = log.ref("referee.session_start", minutes=60)
    pause = log.ref("referee.clock_pause", reason="牌桌卡牌")
    penalty = log.ref("referee.penalty", seat="S", code="exposed_other", amount=15, victim="W")
    undo = log.ref("referee.undo", reason="罚错人", target=penalty.seq)
    for target, what in ((start.seq, "开始计时"), (pause.seq, "暂停计时")):
        with pytest.raises(RefereeError) as info:
            validate(log.state(), "referee.appeal", {"position": 2, "text": "开始晚了", "target": target})
        assert str(info.value).startswith(f"#{target}（{what}）不是裁判的裁决") and "不填编号" in str(info.value)
    for target in (penalty.seq, undo.seq, None):  # a penalty, its undo, a related matter: taken
        validate(log.state(), "referee.appeal", {"position": 2, "text": "计时不公", "target": target})
    log.add("operator", "operator.hand_end", {"hand_no": 1, "result": "draw"})
    new_round = log.ref("referee.round_start", round=2, players={"1": "戊", "2": "己", "3": "庚", "4": "辛"})
    assert log.state().actions[-1]["seq"] == new_round.seq and not log.state().actions[-1].get("error")
    with pytest.raises(RefereeError, match="（新一轮）不是裁判的裁决"):
        validate(log.state(), "referee.appeal", {"position": 2, "text": "编排不公", "target": new_round.seq})


def test_a_late_appeal_is_refused_when_keyed_not_logged_as_refused(tmp_path: Any) -> None:
    """The window was checked only in the fold: `validate` tried the appeal at time 0, so a late one
    was taken (the API answered 200), logged, and shown nowhere but as a refused line. Now the
    controller tries it at the time it would be logged: 409, nothing logged."""
    from table_controller.config import parse_config
    from table_controller.controller import ActionError, Controller
    from table_controller.store import EventStore

    async def no_table(url: str) -> Any:
        raise ConnectionRefusedError(url)

    now = [1000.0]
    c = Controller(parse_config({"table": {"link": "socket://127.0.0.1:9"}}, "test"),
                   EventStore(tmp_path / "events.sqlite3"), no_table, wall_clock=lambda: now[0])
    try:
        c.accept("controller", "controller.configured", {"table_name": "T", "ruleset": "mcr",
                                                         "players": {"1": "甲", "2": "乙", "3": "丙", "4": "丁"}})
        c.referee_action("referee.session_start", {"minutes": 60}, by="referee")
        now[0] += 3600
        c.referee_action("referee.session_end", {}, by="referee")
        now[0] += 29 * 60
        c.referee_action("referee.appeal", {"position": 1, "text": "计分有误"}, by="referee")  # in time
        now[0] += 2 * 60
        with pytest.raises(ActionError, match="30 分钟内") as info:
            c.referee_action("referee.appeal", {"position": 3, "text": "太晚了"}, by="referee")
        assert info.value.status == 409 and len(c.store.since(0)) == 4
        assert [a["position"] for a in public_view(c.state)["appeals"]] == [1]
    finally:
        c.store.close()


def test_the_referee_ends_a_session_the_tables_clock_never_timed() -> None:
    """A hall timed by the chief referee's clock: the table's session clock was never started, and its
    referee's 结束比赛 was taken and did nothing (the next hand could start, the appeal window never
    opened). Now it ends the session; an end undone gives it back."""
    from table_controller.seating import for_state

    log = Log()
    log.add("operator", "operator.hand_end", {"hand_no": 1, "result": "draw"})
    assert not for_state(log.state()).over
    end = log.ref("referee.session_end")
    over = for_state(log.state())
    assert over.over and over.ended_by_referee
    log.ref("referee.undo", reason="按错", target=end.seq)
    assert not for_state(log.state()).over
    log.ref("referee.session_end", after_s=60)
    assert for_state(log.state()).over
    log.ref("referee.appeal", after_s=29 * 60, position=1, text="计分有误")
    assert [a["position"] for a in public_view(log.state())["appeals"]] == [1]
    with pytest.raises(RefereeError, match="30 分钟内"):
        validate(log.state(), "referee.appeal", {"position": 2, "text": "太晚了"}, at=log.at + 2 * 60)

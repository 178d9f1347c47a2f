"""Referee actions folded from the log: penalties per ruleset, win read → confirm, undo, timers, score sheet."""

from __future__ import annotations

import json
from typing import Any

import pytest

from table_controller.penalties import PenaltyError, catalogue
from table_controller.projection import public_event, public_view, referee_view
from table_controller.referee import RefereeError, validate
from table_controller.scoresheet import compute, to_csv
from table_controller.state import TableState, fold
from table_controller.store import Event
from table_controller.timers import session_status, timer_rules, turn_status

WIN_HAND = {"seat_wind": "N", "prevalent_wind": "E", "melds": [],
            "concealed": "1m 2m 3m 4m 5m 6m 7m 8m 9m 1p 1p 1p 2p".split(),
            "win_tile": "2p", "win": "discard", "discarder": "E"}
CONCEALED = set(WIN_HAND["concealed"])


class Log:
    """A hand-written log: events numbered and stamped one second apart."""

    def __init__(self, ruleset: str = "mcr") -> None:
        self.events: list[Event] = []
        self.add("controller", "controller.configured",
                 {"table_name": "T", "ruleset": ruleset, "players": {"1": "甲", "2": "乙", "3": "丙", "4": "丁"}})

    def add(self, source: str, type: str, data: dict[str, Any]) -> Event:
        ev = Event(len(self.events) + 1, 1000.0 + len(self.events), source, type, data)
        self.events.append(ev)
        return ev

    def start(self, hand_no: int = 1, dealer: int = 1) -> None:
        seats = {w: (i + dealer - 1) % 4 + 1 for i, w in enumerate("ESWN")}
        self.add("operator", "operator.hand_start", {"hand_no": hand_no, "ruleset": self.state().ruleset,
                                                     "dealer_position": dealer, "prevalent_wind": "E", "seats": seats})

    def throw(self) -> None:
        """The table's dice, 3+4 then (国标's second throw, by the seat 7 counts to) 2+5: the wall is broken."""
        for dice in ([3, 4], [2, 5]):
            hand = self.state().hand
            if hand["deal"] is None:
                seat = hand["next_thrower"]
                self.add("table", "table.dice", {"seat": seat, "wind": seat, "dice": dice})
        assert self.state().hand["deal"] is not None

    def ref(self, type: str, **data: Any) -> Event:
        return self.add("referee", type, {**data, "by": "referee", "client": "10.0.0.9"})

    def state(self) -> TableState:
        return fold(self.events)


def test_catalogues_come_from_the_seeds_with_amounts() -> None:
    mcr = catalogue("mcr")
    assert mcr.get("late_5").amount == 10 and mcr.get("late_10").amount == 20  # seed 000 八 2.(1)
    assert mcr.get("empty_claim").amounts == (0, 5, 10, 20)
    assert mcr.get("false_win").pays == "each" and mcr.get("false_win").stops_win
    from table_controller.scoring.config import scoring
    assert mcr.get("false_win").amount == scoring("mcr")["false_win_each"]  # one number for 诈和 in mcr
    assert catalogue("shiwan").get("false_win").amount == 20  # 范文四: 罚给各家20分
    jj = catalogue("jingji").get("foul")
    assert (jj.min, jj.max, jj.step) == (10, 50, 10)  # seed 004: 10分一个单位，限于50分以内
    assert catalogue("sichuan").get("other").chosen  # beyond 诈和 the text has no catalogue: the referee's ruling


def test_escalating_penalty_doubles_after_the_listed_amounts() -> None:
    p = catalogue("mcr").get("slow_claim")
    assert [p.amount_for(n) for n in range(6)] == [0, 5, 10, 20, 40, 80]
    with pytest.raises(PenaltyError):
        p.amount_for(0, chosen=30)
    with pytest.raises(PenaltyError, match="10"):
        catalogue("jingji").get("foul").amount_for(0, chosen=15)


def test_penalties_fold_per_hand_with_who_and_when() -> None:
    log = Log()
    log.start(dealer=2)  # chair 2 deals: E is chair 2, N is chair 1
    log.ref("referee.penalty", seat="S", code="empty_claim")
    log.ref("referee.penalty", seat="S", code="empty_claim")
    log.ref("referee.penalty", seat="N", code="exposed_other", amount=15, victim="W")
    s = log.state()
    a1, a2, a3 = s.actions
    assert (a1["amount"], a2["amount"], a2["nth"]) == (0, 5, 2)
    assert a2["deltas"] == {"3": -5}  # S is chair 3 when chair 2 deals
    assert a3["deltas"] == {"1": -15, "4": 15}
    assert a1["by"] == "referee" and a1["at"] == 1002.0 and a1["client"] == "10.0.0.9"
    # the next hand counts offences afresh
    log.add("operator", "operator.hand_end", {"hand_no": 1, "result": "draw"})
    log.start(hand_no=2, dealer=3)
    log.ref("referee.penalty", seat="S", code="empty_claim")
    assert log.state().actions[-1]["amount"] == 0


def test_refused_ruling_is_logged_without_effect_and_validate_refuses_it_first() -> None:
    log = Log()
    log.start()
    log.ref("referee.penalty", seat="S", code="exposed_other", amount=15)  # no victim named
    s = log.state()
    assert "victim" in s.actions[-1]["error"] and s.actions[-1]["deltas"] == {}
    with pytest.raises(PenaltyError, match="unknown penalty code"):
        validate(s, "referee.penalty", {"seat": "S", "code": "nope"})
    with pytest.raises(RefereeError, match="E, S, W or N"):
        validate(s, "referee.penalty", {"seat": "X", "code": "warning"})
    validate(s, "referee.penalty", {"seat": "S", "code": "warning"})  # fine: no exception


def test_win_read_corrected_confirmed_and_scored_in_chairs() -> None:
    log = Log()
    log.start()
    bad = {**WIN_HAND, "concealed": WIN_HAND["concealed"][:-1] + ["5s"]}
    log.ref("referee.win_read", hand=bad)
    s = log.state()
    assert s.actions[-1]["result"]["valid"] is False
    with pytest.raises(RefereeError, match="和牌不成立"):
        validate(s, "referee.win_confirm", {})
    log.ref("referee.win_read", hand=WIN_HAND)  # the referee corrects the tiles
    log.ref("referee.win_confirm")
    s = log.state()
    view = referee_view(s)
    assert view["win"]["correction"] and view["win"]["confirmed"]
    assert view["win"]["hand"]["concealed"] == WIN_HAND["concealed"]
    pay = view["win"]["result"]["payments"]
    assert sum(pay.values()) == 0 and pay["N"] > 0 and pay["E"] < pay["S"]  # the discarder pays 8 + fan
    assert s.actions[-1]["deltas"] == {"1": pay["E"], "2": pay["S"], "3": pay["W"], "4": pay["N"]}
    with pytest.raises(RefereeError, match="已确认"):
        validate(s, "referee.win_confirm", {})


def test_a_seat_stopped_by_a_ruling_cannot_win() -> None:
    log = Log()
    log.start()
    log.ref("referee.penalty", seat="N", code="false_win")
    log.ref("referee.win_read", hand=WIN_HAND)
    result = log.state().actions[-1]["result"]
    assert result["valid"] is False and "诈和" in result["message"]


def test_sichuan_false_win_pays_the_declared_hands_worth_to_each_seat_still_playing() -> None:
    """四川 诈和 (seed 003): 和多少罚多少, to each seat still playing, the seat stopped from winning;
    the referee gives the 番 it declared. Before, the catalogue had no 诈和 for 四川 at all."""
    log = Log("sichuan")
    log.start()
    with pytest.raises(RefereeError, match="番"):
        validate(log.state(), "referee.penalty", {"seat": "W", "code": "false_win"})
    with pytest.raises(PenaltyError, match="give the declared 番"):
        validate(log.state(), "referee.penalty", {"seat": "W", "code": "false_win", "amount": 20})
    with pytest.raises(PenaltyError, match="takes no 番"):
        validate(log.state(), "referee.penalty", {"seat": "W", "code": "other", "amount": 5, "fan": 2})
    # S wins first (血战) and leaves; then N declares a win it does not have, saying 2 番
    win = {"seat_wind": "S", "prevalent_wind": "E", "win": "discard", "discarder": "E", "win_tile": "4p",
           "concealed": "1m 1m 1m 2m 3m 4m 5m 6m 7m 8m 8m 2p 3p".split()}
    log.ref("referee.win_read", hand=win)
    log.ref("referee.win_confirm")
    log.ref("referee.penalty", seat="N", code="false_win", fan=2)
    a = log.state().actions[-1]
    assert not a.get("error") and a["fan"] == 2 and a["amount"] == 8
    assert a["by_wind"] == {"E": 4, "S": 0, "W": 4, "N": -8}  # 2^2 to E and W; S has left
    assert a["deltas"] == {"1": 4, "3": 4, "4": -8} and a["stops_win"]
    n_win = {**win, "seat_wind": "N", "discarder": "W"}
    log.ref("referee.win_read", hand=n_win)
    result = log.state().actions[-1]["result"]
    assert result["valid"] is False and "诈和" in result["message"]  # N plays on without winning
    # short of ready by two tiles or more: deliberate, the same points and 取消比赛资格
    log.ref("referee.penalty", seat="W", code="false_win_deliberate", fan=0)
    d = log.state().actions[-1]
    assert d["disqualify"] and d["by_wind"] == {"E": 1, "S": 0, "W": -2, "N": 1}
    assert catalogue("xueliu").get("false_win").from_scoring


def test_undo_needs_a_reason_targets_the_last_action_and_the_fold_honours_it() -> None:
    log = Log()
    log.start()
    log.ref("referee.penalty", seat="S", code="late_5")
    log.ref("referee.win_read", hand=WIN_HAND)
    log.ref("referee.win_confirm")
    before = compute(log.state())["totals"]
    s = log.state()
    with pytest.raises(RefereeError, match="理由"):
        validate(s, "referee.undo", {"reason": "  "})
    with pytest.raises(RefereeError, match="最后"):
        validate(s, "referee.undo", {"reason": "x", "target": 3})
    log.ref("referee.undo", reason="读错了和牌方", target=s.actions[-1]["seq"])
    s = log.state()
    confirm = s.actions[-2]
    assert confirm["undone"] and confirm["undo"]["reason"] == "读错了和牌方"
    assert public_view(s)["win"]["confirmed"] is False
    assert compute(s)["totals"] != before and compute(s)["totals"]["2"] == -10  # only the late penalty stays
    log.ref("referee.undo", reason="读牌有误")  # then the read itself
    log.ref("referee.undo", reason="迟到判罚有误")  # then the penalty
    s = log.state()
    assert compute(s)["totals"] == {"1": 0, "2": 0, "3": 0, "4": 0}
    assert public_view(s)["win"] is None
    log.ref("referee.undo", reason="again")
    assert "没有可撤销" in log.state().actions[-1]["error"]


def test_public_projection_has_no_concealed_tile() -> None:
    log = Log()
    log.start()
    log.add("camera", "play.kong", {"seat": "W", "tiles": ["7s"] * 4, "concealed": True})
    log.add("camera", "play.discard", {"seat": "W", "tile": "3z"})
    win_ev = log.ref("referee.win_read", hand=WIN_HAND)
    s = log.state()
    public = json.dumps(public_view(s), ensure_ascii=False)
    private = json.dumps(referee_view(s), ensure_ascii=False)
    assert "concealed\": [\"1m\"" not in public and "7s" not in public and "10.0.0.9" not in public
    assert "\"1m\"" in private and "7s" in private
    assert "3z" in public  # a discard is public
    ev = json.dumps(public_event(win_ev.to_json()))
    assert "1m" not in ev and "\"N\"" in ev
    assert "7s" not in json.dumps(public_event(log.events[-3].to_json()))
    for line in s.log:
        assert not any(t in line["text"] for t in ("1m", "一万", "七条"))


def test_turn_timers_follow_the_ruleset() -> None:
    assert timer_rules("mcr").first_discard_s == 30 and timer_rules("mcr").discard_s == 15
    assert timer_rules("jingji").first_discard_s == 20 and timer_rules("jingji").discard_s == 10
    assert timer_rules("mcr").claim_s == 3
    assert timer_rules("sichuan").discard_s is None  # its text sets no time limit
    log = Log("jingji")
    log.start()
    log.add("camera", "play.deal_done", {})
    s = log.state()
    turn = s.hand["turn"]
    assert (turn["seat"], turn["kind"], turn["limit_s"]) == ("E", "first_discard", 20)
    assert turn_status(turn, turn["since"] + 5)["level"] == "ok"
    assert turn_status(turn, turn["since"] + 16)["level"] == "warning"
    assert turn_status(turn, turn["since"] + 21)["level"] == "overdue"
    log.add("camera", "play.discard", {"seat": "E", "tile": "1z"})
    hand = log.state().hand
    assert (hand["turn"]["seat"], hand["turn"]["limit_s"], hand["claim"]["limit_s"]) == ("S", 10, 3)
    log.add("camera", "play.claim", {"seat": "W", "kind": "pung", "tiles": ["1z"] * 3, "from": "E"})
    hand = log.state().hand
    assert hand["turn"]["seat"] == "W" and hand["claim"] is None and hand["discards"]["E"][0]["claimed"]


def test_a_turn_stands_still_while_the_referee_pauses_the_session_clock() -> None:
    """A jam 10 s into 東's first discard (20 s under 竞技), the clock paused 10 minutes: the turn holds at 10 s
    left and has them at the restart (it ran on under the pause: 超时 590 秒). A turn begun during the pause
    starts at the restart; a pause the referee ended the session in ends with it."""
    log = Log("jingji")
    log.start()
    log.ref("referee.session_start", minutes=120)
    log.add("camera", "play.deal_done", {})
    turn = log.state().hand["turn"]
    t0 = turn["since"]

    def at(s: float, type: str, **data: Any) -> None:
        log.events.append(Event(len(log.events) + 1, t0 + s, "referee", type, {**data, "by": "referee", "client": None}))

    at(10, "referee.clock_pause", reason="牌桌卡牌")
    sess = public_view(log.state())["session"]
    st = turn_status(turn, t0 + 300, sess)
    assert (st["level"], st["remaining_s"]) == ("paused", 10.0)
    at(610, "referee.clock_resume")
    sess = public_view(log.state())["session"]
    assert turn_status(turn, t0 + 615, sess)["remaining_s"] == 5.0
    assert turn_status(turn, t0 + 609, sess)["level"] == "paused"
    assert turn_status(turn, t0 + 612, sess)["level"] == "ok"
    assert turn_status(turn, t0 + 621, sess)["level"] == "overdue"
    assert turn_status(turn, t0 + 615)["remaining_s"] == -595.0  # without the session: as the fold stamped it
    later = {**turn, "since": t0 + 100}  # keyed during the pause: its 20 s from the restart
    assert turn_status(later, t0 + 615, sess)["remaining_s"] == 15.0
    at(700, "referee.clock_pause")
    at(800, "referee.session_end")
    sess = public_view(log.state())["session"]
    # over at 630, held 700-800 (a pause the session's end closed), then running again
    assert turn_status(later, t0 + 900, sess)["remaining_s"] == -170.0


def test_tiles_left_counts_unseen_draws_and_replacements() -> None:
    log = Log("jingji")
    log.start()
    log.add("table", "table.dice", {"seat": "E", "wind": "E", "dice": [3, 4]})
    live = len(log.state().hand["deal"]["live"])
    log.add("camera", "play.flower", {"seat": "E", "tile": "1f"})  # opening replacement: 1
    log.add("camera", "play.deal_done", {})
    log.add("camera", "play.discard", {"seat": "E", "tile": "1z"})  # the dealer's 14th tile: no draw
    log.add("camera", "play.discard", {"seat": "S", "tile": "2z"})  # S drew first: 2
    log.add("camera", "play.claim", {"seat": "N", "kind": "pung", "tiles": ["2z"] * 3, "from": "S"})
    log.add("camera", "play.discard", {"seat": "N", "tile": "3z"})  # after a claim: no draw
    log.add("camera", "play.kong", {"seat": "E", "tiles": ["9m"] * 4, "concealed": True})  # draw + replacement: 4
    hand = log.state().hand
    assert hand["tiles_left"] == live - 4
    now = hand["wall_now"]
    assert (now["live_drawn"], now["tail_drawn"]) == (2, 2)
    assert now["next_draw"] == hand["deal"]["live"][2] and now["next_replacement"] == hand["deal"]["tail"][2]


def test_session_clock_warns_at_15_and_5_minutes() -> None:
    log = Log()
    log.ref("referee.session_start", minutes=60)
    sess = public_view(log.state())["session"]
    start = sess["started_at"]
    assert session_status(sess, start + 30 * 60)["level"] == "ok"
    st = session_status(sess, start + 46 * 60)
    assert (st["level"], st["warning_min"]) == ("warning", 15)
    assert session_status(sess, start + 56 * 60)["warning_min"] == 5
    assert session_status(sess, start + 61 * 60)["level"] == "over"
    log.ref("referee.session_start")
    assert public_view(log.state())["session"]["minutes"] == 180  # the ruleset's 3 hours


def test_the_referee_pauses_the_session_clock_and_the_time_is_added_back() -> None:
    """A table jam stops play: the referee stops the clock, restarts it, and the session ends that
    much later. Pausing twice, restarting a running clock or pausing an ended one is refused."""
    log = Log()
    with pytest.raises(RefereeError, match="not running"):
        validate(log.state(), "referee.clock_pause", {})
    log.ref("referee.session_start", minutes=60)
    start = public_view(log.state())["session"]["started_at"]

    def at(minutes: float, type: str, **data: Any) -> None:  # an action `minutes` into the session
        log.events.append(Event(len(log.events) + 1, start + minutes * 60, "referee", type,
                                {**data, "by": "referee", "client": None}))

    with pytest.raises(RefereeError, match="not paused"):
        validate(log.state(), "referee.clock_resume", {})
    at(10, "referee.clock_pause", reason="牌桌卡牌")
    sess = public_view(log.state())["session"]
    assert sess["paused_since"] == start + 600 and sess["pauses"][0]["reason"] == "牌桌卡牌"
    st = session_status(sess, start + 20 * 60)  # stands still at 50 minutes left
    assert (st["level"], st["remaining_s"]) == ("paused", 3000.0)
    with pytest.raises(RefereeError, match="paused already"):
        validate(log.state(), "referee.clock_pause", {})
    at(25, "referee.clock_resume")
    sess = public_view(log.state())["session"]
    assert sess["paused_s"] == 900 and sess["paused_since"] is None
    st = session_status(sess, start + 30 * 60)
    assert (st["level"], st["remaining_s"], st["ends_at"]) == ("ok", 45 * 60.0, start + 75 * 60)
    assert session_status(sess, start + 61 * 60)["level"] == "warning"  # not over: 14 minutes left
    # undoing the restart: the clock is paused again from 10 minutes in
    at(26, "referee.undo", reason="按错", target=log.events[-1].seq)
    assert public_view(log.state())["session"]["paused_since"] == start + 600
    at(27, "referee.session_end")
    with pytest.raises(RefereeError, match="not running"):
        validate(log.state(), "referee.clock_resume", {})
    assert "暂停比赛计时：牌桌卡牌" in [line["text"] for line in log.state().log][-4]


def test_score_sheet_totals_table_points_and_csv() -> None:
    log = Log()
    log.start()
    log.ref("referee.win_read", hand=WIN_HAND)
    log.ref("referee.win_confirm")
    log.add("operator", "operator.hand_end", {"hand_no": 1, "result": "win"})
    log.start(hand_no=2, dealer=2)
    log.ref("referee.penalty", seat="E", code="late_10")
    log.add("operator", "operator.hand_end", {"hand_no": 2, "result": "draw"})
    log.ref("referee.session_start", minutes=1)
    log.ref("referee.session_end")
    sheet = compute(log.state())
    assert [r["hand_no"] for r in sheet["rows"]] == [1, 2]
    assert sheet["rows"][0]["result"] == "win" and sheet["rows"][0]["winner_position"] == "4"
    assert sheet["rows"][1]["points"]["2"] == -20  # chair 2 dealt hand 2
    assert sheet["rows"][1]["running"] == sheet["totals"] and sum(sheet["rows"][0]["points"].values()) == 0
    assert sheet["final"] and sheet["table_points"]["4"] == 4
    csv = to_csv(sheet)
    assert csv.startswith("\ufeff盘,") and "标准分" in csv and "丁" in csv
    assert csv.splitlines()[-1].split(",")[5:9] == [str(sheet["table_points"][p]) for p in "1234"]


def test_apply_never_changes_the_state_it_is_given() -> None:
    """The fold shares unchanged parts between states (for speed): sharing must never leak a change."""
    log = Log()
    log.start()
    log.add("table", "table.fault_raised", {"code": "E1", "name_zh": "卡牌"})
    log.add("camera", "play.deal_done", {})
    log.add("camera", "play.discard", {"seat": "E", "tile": "1z"})
    log.add("camera", "play.claim", {"seat": "W", "kind": "pung", "tiles": ["1z"] * 3, "from": "E"})
    log.add("camera", "play.kong", {"seat": "S", "tiles": ["7s"] * 4, "concealed": True})
    log.ref("referee.penalty", seat="S", code="empty_claim")
    log.ref("referee.win_read", hand=WIN_HAND)
    log.ref("referee.win_confirm")
    log.ref("referee.undo", reason="重来")
    log.add("table", "table.fault_cleared", {"code": "E1"})
    log.add("operator", "operator.hand_end", {"hand_no": 1, "result": "draw"})
    from table_controller.state import apply
    state = TableState()
    for ev in log.events:
        before = json.dumps(state.to_json(), sort_keys=True)
        public_view(state)
        after = apply(state, ev)
        assert json.dumps(state.to_json(), sort_keys=True) == before, ev.type
        state = after


def test_kongs_pay_on_the_spot_where_the_ruleset_says_and_the_score_sheet_shows_it() -> None:
    """竞技 杠牌现场汇 (seed 004): 点杠 12 from the discarder, 暗杠 6 from each, 补杠 as 明杠 4
    from each; MCR pays kongs only as fans. Chair 2 deals, so the points land on the chairs."""
    log = Log("jingji")
    log.start(dealer=2)
    play = lambda type_, **d: log.add("operator", f"play.{type_}", {**d, "by": "operator"})  # noqa: E731
    play("deal_done")
    play("discard", seat="E", tile="5s")
    play("claim", seat="S", kind="kong", **{"from": "E"}, tiles=["5s"] * 4)  # 点杠: E pays 12
    play("discard", seat="S", tile="1z")
    play("kong", seat="W", tiles=["9m"] * 4, concealed=True)  # 暗杠: 6 from each
    play("discard", seat="W", tile="2p")
    play("claim", seat="N", kind="pung", **{"from": "W"}, tiles=["2p"] * 3)
    play("discard", seat="N", tile="3p")
    play("discard", seat="E", tile="4p")
    play("discard", seat="S", tile="6p")
    play("discard", seat="W", tile="7p")
    play("kong", seat="N", tiles=["2p"] * 4, added=True)  # 补杠: 4 from each
    state = log.state()
    kongs = state.hand["kong_payments"]
    assert [(k["seat"], k["kind"], k["by_wind"]) for k in kongs] == [
        ("S", "exposed", {"S": 12, "E": -12}),
        ("W", "concealed", {"W": 18, "E": -6, "S": -6, "N": -6}),
        ("N", "added", {"N": 12, "E": -4, "S": -4, "W": -4})]
    assert [m["type"] for m in state.hand["melds"]["N"]] == ["kong"]
    row = compute(state)["rows"][-1]
    # winds → chairs with chair 2 dealing: E=2, S=3, W=4, N=1
    assert row["kong_points"] == {"2": -22, "3": 2, "4": 14, "1": 6} and row["points"] == row["kong_points"]
    log.add("operator", "operator.hand_end", {"hand_no": 1, "result": "draw"})
    assert compute(log.state())["totals"] == {"1": 6, "2": -22, "3": 2, "4": 14}
    # the same kongs in MCR pay nothing on the spot
    mcr = Log("mcr")
    mcr.start(dealer=2)
    for ev in log.events[2:]:
        if ev.type.startswith("play."):
            mcr.add(ev.source, ev.type, ev.data)
    assert "kong_payments" not in mcr.state().hand and compute(mcr.state())["totals"] == {p: 0 for p in "1234"}


def test_jingji_plays_from_stacks_a_seat_pays_what_it_holds_and_two_empty_seats_end_the_session() -> None:
    """Seed 004: 100 points each (储备分), 盘面付完为止, the 局 over when two seats have nothing."""
    log = Log("jingji")
    log.start(dealer=1)  # winds sit at their own chairs: E=1, S=2, W=3, N=4
    log.ref("referee.penalty", seat="E", code="foul_to_victim", amount=50, victim="S")
    log.ref("referee.penalty", seat="E", code="foul_to_victim", amount=30, victim="S")
    log.ref("referee.win_read", hand=WIN_HAND)  # N on E's discard: 18 × 2 = 36 due from E
    log.ref("referee.win_confirm")
    sheet = compute(log.state())
    row = sheet["rows"][-1]
    assert row["win_points"] == {"1": -36, "2": 0, "3": 0, "4": 36}  # what the hand scored...
    assert row["points"] == {"1": -100, "2": 80, "3": 0, "4": 20}   # ...and what E could pay: its last 20
    assert row["stacks"] == {"1": 0, "2": 180, "3": 100, "4": 120} and not sheet["final"]
    assert sheet["totals"] == {"1": -100, "2": 80, "3": 0, "4": 20}
    log.add("operator", "operator.hand_end", {"hand_no": 1, "result": "win"})
    log.start(hand_no=2, dealer=2)  # W is chair 4 now
    log.ref("referee.penalty", seat="W", code="foul_to_victim", amount=50, victim="S")
    log.ref("referee.penalty", seat="W", code="foul_to_victim", amount=50, victim="S")
    sheet = compute(log.state())
    assert sheet["rows"][-1]["stacks"] == {"1": 0, "2": 180, "3": 200, "4": 20}
    assert not sheet["final"]
    log.ref("referee.penalty", seat="W", code="foul_to_victim", amount=20, victim="S")
    sheet = compute(log.state())  # chair 4 is empty too: two seats with nothing end the 局
    assert sheet["rows"][-1]["stacks"] == {"1": 0, "2": 180, "3": 220, "4": 0} and sheet["final"]
    assert sum(sheet["totals"].values()) == 0
    # MCR keeps no stacks: the same rulings are summed as they are
    mcr = Log("mcr")
    mcr.start(dealer=1)
    mcr.ref("referee.win_read", hand=WIN_HAND)
    mcr.ref("referee.win_confirm")
    assert "stacks" not in compute(mcr.state())["rows"][-1]


def test_jingji_refuses_a_win_on_the_discard_of_a_seat_with_no_points_left() -> None:
    """Seed 004: 盘面无分者点炮，禁止和牌."""
    log = Log("jingji")
    log.start(dealer=1)
    log.ref("referee.penalty", seat="E", code="foul_to_victim", amount=50, victim="S")
    log.ref("referee.penalty", seat="E", code="foul_to_victim", amount=50, victim="S")  # E (chair 1) is empty
    log.ref("referee.win_read", hand=WIN_HAND)  # N on E's discard
    with pytest.raises(RefereeError, match="盘面无分"):
        validate(log.state(), "referee.win_confirm", {"by": "referee"})
    self_drawn = {**WIN_HAND, "win": "self_draw", "discarder": None}
    log.ref("referee.win_read", hand=self_drawn)  # a self-drawn win is allowed: the others pay
    validate(log.state(), "referee.win_confirm", {"by": "referee"})


def test_the_demos_players_do_not_lay_down_a_win_the_stacks_forbid() -> None:
    """`tablectl demo --ruleset jingji`: a player won on the discard of a seat with no points left (or ended
    the 局 without being first); the demo's referee could not confirm it and the demo stopped the hand as 荒牌,
    the wall still standing and the read left unconfirmed (4 hands in 34). The players know the rule: they
    play on, and the same hand self-drawn is theirs."""
    from table_controller.demo import win_judge
    from table_controller.referee import confirm_refusal

    log = Log("jingji")
    log.start(dealer=1)
    judge = win_judge("jingji", "E", table=log.state)
    assert judge(WIN_HAND)  # E still holds its 100 points
    log.ref("referee.penalty", seat="E", code="foul_to_victim", amount=50, victim="S")
    log.ref("referee.penalty", seat="E", code="foul_to_victim", amount=50, victim="S")  # E (chair 1) is empty
    assert confirm_refusal(log.state(), WIN_HAND) == "盘面无分者点炮，禁止和牌 / the discarder has no points left: " \
                                                    "no win on its discard"
    assert not judge(WIN_HAND)
    assert judge({**WIN_HAND, "win": "self_draw", "discarder": None})
    assert win_judge("jingji", "E")(WIN_HAND)  # without the table: the shape and the scorer only (tests' players)
    assert [a["type"] for a in log.state().actions] == ["referee.penalty"] * 2  # the look logged nothing

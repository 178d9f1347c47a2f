"""Corrections of the record (`referee.play_correct`) that are refused, and why, Chinese first: a play or a
correction of a hand that has ended (the next started), a correction named in place of a play, a 补杠 said
concealed too, and the play a confirmed win was won on corrected away while the win stands. Nothing is
logged, and the hand stays as it was."""

from __future__ import annotations

from typing import Any

import pytest

from table_controller.referee import validate
from table_controller.state import fold

from test_play_corrections_fold import _dealt, _kong_hand, _refused  # type: ignore[import-not-found]
from test_referee_fold import Log  # type: ignore[import-not-found]


def _undo_refused(log: Log, **body: Any) -> str:
    with pytest.raises(ValueError) as err:
        validate(log.state(), "referee.undo", {"reason": "记错了", **body})
    return str(err.value)


def test_a_correction_of_a_hand_that_has_ended_is_neither_undone_nor_made_once_the_next_has_started() -> None:
    """Hand 1's kong corrected to W after the hand ended (allowed: the next has not started), then hand 2
    started: the undo of that correction was taken, and took it out of hand 1's record (牌谱) while W stayed
    paid for the kong; a new correction of hand 1's kong was refused as "#7 不是本盘的行牌记录". Both are
    refused saying hand 1 has ended, and nothing changes."""
    log, kong = _kong_hand()
    log.add("operator", "operator.hand_end", {"hand_no": 1, "result": "draw"})
    fix = log.ref("referee.play_correct", target=kong, seat="W", reason="是西家暗杠")
    inserted = log.ref("referee.play_correct", insert_after=kong, reason="漏记",
                       play={"type": "discard", "seat": "W", "tile": "9p"})
    log.ref("referee.undo", reason="补录有误", target=inserted.seq)  # within hand 1: taken
    log.start(hand_no=2, dealer=2)
    before = log.state()
    assert before.hands[-1]["kong_payments"][0]["seat"] == "W"
    why = _undo_refused(log, target=fix.seq)
    assert why.startswith("上一手已结束（第 2 盘已开始），不能再更正或撤销：") and f"#{fix.seq} 是第 1 盘的更正" in why, why
    assert _undo_refused(log).startswith("上一手已结束")  # the page named no target: the last action is meant
    for body in ({"target": kong, "seat": "N"}, {"target": kong, "void": True}, {"target": fix.seq, "seat": "N"},
                 {"insert_after": kong, "play": {"type": "discard", "seat": "N", "tile": "1m"}},
                 {"target": inserted.seq, "void": True}):
        assert _refused(log, reason="看错", **body).startswith("上一手已结束（第 2 盘已开始），不能再更正或撤销"), body
    assert fold(log.events).hands == before.hands and fold(log.events).actions == before.actions


def test_a_correction_named_in_place_of_a_play_points_to_the_play_it_put_right() -> None:
    """The referee's page lists corrections beside the plays: naming the correction's #, the refusal said
    only "#12 不是本盘的行牌记录". It says which play that correction put right."""
    log = _dealt()
    e = log.add("operator", "play.discard", {"seat": "E", "tile": "1z"})
    log.add("operator", "play.discard", {"seat": "S", "tile": "2m"})
    fix = log.ref("referee.play_correct", target=e.seq, tile="2z", reason="看错")
    why = _refused(log, target=fix.seq, tile="3z", reason="还是看错")
    assert why.startswith(f"#{fix.seq} 是更正（东家打出 南），不是行牌记录：它更正的是 #{e.seq}，要再改请更正 #{e.seq}"), why
    assert _refused(log, insert_before=fix.seq, reason="漏记", play={"type": "flower", "seat": "E", "tile": "1f"}) \
        .startswith(f"#{fix.seq} 是更正")
    log.ref("referee.undo", reason="原来没错")
    assert _refused(log, target=fix.seq, tile="3z", reason="x").startswith(f"#{fix.seq} 是已撤销的更正，不是行牌记录")
    assert _refused(log, target=999, tile="3z", reason="x").startswith("#999 不是本盘的行牌记录")
    validate(log.state(), "referee.play_correct", {"target": e.seq, "tile": "3z", "reason": "看错"})  # the play: taken


def test_an_added_kong_said_concealed_too_is_refused_keyed_inserted_or_corrected() -> None:
    """A 补杠 is the fourth tile added to a pung laid out: it cannot be concealed. Keyed, inserted or corrected
    both ways, it was taken (the fold made it the pung's kong, paid as 补杠, face up); it is refused saying why."""
    from table_controller.controller import _play_problem

    log = _dealt()
    log.add("operator", "play.discard", {"seat": "E", "tile": "5p"})
    log.add("operator", "play.claim", {"seat": "W", "kind": "pung", "tiles": ["5p"] * 3, "from": "E"})
    w = log.add("operator", "play.discard", {"seat": "W", "tile": "9m"})
    log.add("operator", "play.discard", {"seat": "N", "tile": "1z"})
    log.add("operator", "play.discard", {"seat": "E", "tile": "2z"})
    log.add("operator", "play.discard", {"seat": "S", "tile": "3z"})
    both = {"seat": "W", "tiles": ["5p"] * 4, "added": True, "concealed": True}
    why = _play_problem(log.state().hand, "play.kong", both)
    assert why is not None and why.startswith("补杠是在碰出的刻子上加一张，牌是亮出的：不能同时是暗杠"), why
    assert _refused(log, insert_before=w.seq, reason="漏记", play={"type": "kong", **both}) \
        .startswith("补录后不成立：补杠是在碰出的刻子上加一张")
    added = log.add("operator", "play.kong", {"seat": "W", "tiles": ["5p"] * 4, "added": True})
    assert _refused(log, target=added.seq, concealed=True, reason="是暗杠").startswith(
        "更正后不成立：补杠是在碰出的刻子上加一张，牌是亮出的：不能同时是暗杠")
    s = log.state()
    concealed = log.add("operator", "play.kong", {"seat": "W", "tiles": ["7s"] * 4, "concealed": True})
    assert _refused(log, target=concealed.seq, added=True, reason="是补杠").startswith("更正后不成立：补杠是在碰出的刻子上")
    log.events.pop()
    assert fold(log.events).hand == s.hand


PAIRS = {"seat_wind": "E", "concealed": "11223344m55667p", "win_tile": "7p", "win": "discard", "discarder": "S"}


def _won_on_7p() -> tuple[Log, int, int, int]:
    """四川: E wins 七对 on S's 7p, confirmed; the log, E's earlier discard, S's 7p and the confirmation's seqs."""
    log = _dealt("sichuan")
    for seat, suit in (("E", "s"), ("S", "m"), ("W", "m"), ("N", "m")):
        log.add("operator", "play.missing", {"seat": seat, "suit": suit})
    e = log.add("operator", "play.discard", {"seat": "E", "tile": "1s"})
    won_on = log.add("operator", "play.discard", {"seat": "S", "tile": "7p"})
    log.ref("referee.win_read", hand=PAIRS)
    confirm = log.ref("referee.win_confirm")
    assert not log.state().actions[-1].get("error") and log.state().hand["winners"] == ["E"]
    return log, e.seq, won_on.seq, confirm.seq


def test_the_discard_a_confirmed_win_was_won_on_is_not_corrected_away_while_the_win_stands() -> None:
    """E's 七对 on S's 7p confirmed, S paying: the 7p corrected to 8p, or voided, was taken, and the win stood on a
    discard the record no longer held, S still paying. Refused, saying the win must be undone first; a play put
    in between the discard and the win too. Another play is corrected as before, and after the win's undo the
    discard is."""
    log, e, won_on, confirm = _won_on_7p()
    before = log.state()
    for body in ({"target": won_on, "tile": "8p"}, {"target": won_on, "void": True},
                 {"target": won_on, "play": {"type": "kong", "seat": "S", "tiles": ["7p"] * 4, "concealed": True}},
                 {"insert_after": won_on, "play": {"type": "discard", "seat": "W", "tile": "1m"}}):
        why = _refused(log, reason="看错", **body)
        put = "，和牌之前不能再有行牌（西家打出 一万）" if "insert_after" in body else "：和牌成立期间不能作废、改牌、改家"
        assert why.startswith(f"不能{'补录' if 'insert_after' in body else '更正'}：#{won_on}（南家打出 七筒）是已确认的和牌 "
                              f"#{confirm}（东家和七筒）和的那张牌{put}"), why
        assert "请先撤销该和牌确认" in why
    assert fold(log.events).hand == before.hand
    validate(before, "referee.play_correct", {"target": e, "tile": "2s", "reason": "看错"})  # another play: taken
    log.ref("referee.undo", reason="先撤销和牌", target=confirm)
    validate(log.state(), "referee.play_correct", {"target": won_on, "tile": "8p", "reason": "看错"})


def test_the_added_kong_a_confirmed_robbing_took_is_not_corrected_away_while_the_win_stands() -> None:
    """国标: N robs W's 补杠 of 5p (抢杠和), confirmed. The kong voided or made W's concealed kong was taken, and
    the 抢杠和 stood on no 补杠; refused, saying the win must be undone first."""
    log = _dealt()
    log.add("operator", "play.discard", {"seat": "E", "tile": "5p"})
    log.add("operator", "play.claim", {"seat": "W", "kind": "pung", "tiles": ["5p"] * 3, "from": "E"})
    for seat, tile in (("W", "9m"), ("N", "1z"), ("E", "2z"), ("S", "3z")):
        log.add("operator", "play.discard", {"seat": seat, "tile": tile})
    kong = log.add("operator", "play.kong", {"seat": "W", "tiles": ["5p"] * 4, "added": True})
    log.ref("referee.win_read", hand={"seat_wind": "N", "prevalent_wind": "E", "melds": [], "win": "rob_kong",
                                      "concealed": "1m 2m 3m 4m 5m 6m 7m 8m 9m 3p 4p 9s 9s".split(),
                                      "win_tile": "5p", "discarder": "W"})
    confirm = log.ref("referee.win_confirm")
    assert not log.state().actions[-1].get("error"), log.state().actions[-1]
    for body in ({"void": True}, {"added": False, "concealed": True}, {"seat": "S"}):
        why = _refused(log, target=kong.seq, reason="看错", **body)
        assert why.startswith(f"不能更正：#{kong.seq}（西家补杠 五筒）是已确认的抢杠和 #{confirm.seq}（北家和五筒）抢的补杠"), why


def test_a_forgotten_declaration_after_the_last_one_is_keyed_under_a_confirmed_win_on_the_deal() -> None:
    """四川: E (the dealer) wins 天和 on the deal, confirmed; N's 定缺 was never keyed. Inserted after W's, it was
    refused as a play put between a self-drawn win and the draw it was won on (the last 定缺 taken for that draw):
    a 定缺 moves no turn and no tile, so it is taken, and so is a 定缺's suit put right."""
    log = _dealt("sichuan")
    missing = {seat: log.add("operator", "play.missing", {"seat": seat, "suit": suit}).seq
               for seat, suit in (("E", "s"), ("S", "m"), ("W", "m"))}
    log.ref("referee.win_read", hand={**PAIRS, "win": "self_draw", "discarder": None})
    log.ref("referee.win_confirm")
    s = log.state()
    assert not s.actions[-1].get("error") and s.hand["winners"] == ["E"]
    for body in ({"insert_after": missing["W"], "play": {"type": "missing", "seat": "N", "suit": "p"}},
                 {"target": missing["W"], "suit": "p"}):
        validate(s, "referee.play_correct", {**body, "reason": "漏记", "by": "referee"})

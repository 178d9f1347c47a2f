"""Corrections (更正牌谱) and their undos after a win is confirmed (`corrections.refusal`, `rework`): a play
put right before the discard won on folds the hand again with the win standing and its undo puts the hand
back; a play put between the discard won on and the win (a play inserted after it, a claim of the tile won
on) no longer lets the confirmed read follow the record, and is refused until the confirmation is undone; so
does a play put between a confirmed self-drawn win and the play the winner drew after. Once the next hand has
started, the ended hand's win, read and 查叫 are not undone."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from table_controller.referee import validate
from table_controller.state import TableState, apply, fold

from test_corrections_random import _dealt, _seen  # type: ignore[import-not-found]
from test_referee_fold import Log  # type: ignore[import-not-found]

#: N wins on W's discard of 二筒 (国标: 清龙 and more).
READ = {"seat_wind": "N", "prevalent_wind": "E", "melds": [], "win_tile": "2p", "win": "discard", "discarder": "W",
        "concealed": "1m 2m 3m 4m 5m 6m 7m 8m 9m 1p 1p 1p 2p".split()}


def _take(log: Log, s: TableState, type_: str, **body: Any) -> TableState:
    data = {**body, "reason": body.get("reason", "更正"), "by": "referee"}
    validate(s, type_, data)
    return apply(s, log.ref(type_, **{k: v for k, v in data.items() if k != "by"}))


def _won() -> tuple[Log, TableState, dict[str, int]]:
    """E, S and W discard, N's win on W's 二筒 read and confirmed; the log, the state, the plays' seqs."""
    log = _dealt()
    seqs = {w: log.add("operator", "play.discard", {"seat": w, "tile": t}).seq
            for w, t in (("E", "1z"), ("S", "9s"), ("W", "2p"))}
    s = log.state()
    s = _take(log, s, "referee.win_read", hand=READ)
    s = _take(log, s, "referee.win_confirm")
    assert s.hand["winners"] == ["N"] and s.hand["turn"] is None
    return log, s, seqs


def _refused(log: Log, s: TableState, **body: Any) -> str:
    """Why the correction `body` is refused; the state and the log as they were."""
    hand, actions, events = copy.deepcopy(s.hand), copy.deepcopy(s.actions), list(log.events)
    with pytest.raises(ValueError) as err:
        validate(s, "referee.play_correct", {**body, "reason": "漏记", "by": "referee"})
    assert s.hand == hand and s.actions == actions and log.events == events
    return str(err.value)


def test_a_play_put_right_before_the_discard_won_on_leaves_the_win_and_its_undo_the_hand() -> None:
    log, won, seqs = _won()
    s = _take(log, won, "referee.play_correct", target=seqs["S"], tile="8s")
    assert s.hand["discards"]["S"][0]["tile"] == "8s" and s.hand["winners"] == ["N"] and s.hand["turn"] is None
    confirm = next(a for a in s.actions if a["type"] == "referee.win_confirm")
    assert not confirm.get("error") and not confirm["undone"]
    s = _take(log, s, "referee.play_correct", insert_before=seqs["S"],
              play={"type": "flower", "seat": "S", "tile": "5f"})
    assert s.hand["flowers"]["S"] == ["5f"] and s.hand["tiles_left"] == won.hand["tiles_left"] - 1
    assert s.hand["winners"] == ["N"] and _seen(fold(log.events).hand) == _seen(s.hand)
    for fix in sorted((a["seq"] for a in s.actions if a["type"] == "referee.play_correct"), reverse=True):
        s = _take(log, s, "referee.undo", target=fix)  # newest first: the hand as confirmed
    assert _seen(s.hand) == _seen(won.hand) and s.hand["winners"] == ["N"]


def test_a_play_put_between_the_discard_won_on_and_the_confirmed_win_is_refused_until_it_is_undone() -> None:
    """Before: taken, N's discard (or flower, or E's pung of the tile won on) folded after W's 二筒 with N's win on
    that 二筒 still confirmed, the record then saying N drew and discarded before winning on W's discard."""
    log, won, seqs = _won()
    confirm = next(a for a in won.actions if a["type"] == "referee.win_confirm")
    for play, said in (({"type": "discard", "seat": "N", "tile": "3s"}, "北家打出 三条"),
                       ({"type": "flower", "seat": "N", "tile": "5f"}, "北家补花 梅"),
                       ({"type": "claim", "seat": "E", "from": "W", "kind": "pung", "tiles": ["2p"] * 3},
                        "东家碰 二筒 二筒 二筒")):
        why = _refused(log, won, insert_after=seqs["W"], play=play)
        assert why.startswith(f"不能补录：#{seqs['W']}（西家打出 二筒）是已确认的和牌 #{confirm['seq']}（北家和二筒）和的那张牌，"
                              f"和牌之前不能再有行牌（{said}）；确有此事请先撤销该和牌确认"), why
        assert " / " in why and "undo the confirmation" in why
    # a play before the discard won on, or the discard won on put right, is not this question
    assert _take(log, won, "referee.play_correct", insert_before=seqs["W"],
                 play={"type": "flower", "seat": "W", "tile": "6f"}).hand["winners"] == ["N"]
    log.events.pop()
    # the confirmation undone, the play goes in (the read is to be made again)
    s = _take(log, won, "referee.undo", target=confirm["seq"], reason="漏记北家行牌")
    s = _take(log, s, "referee.play_correct", insert_after=seqs["W"], play={"type": "discard", "seat": "N", "tile": "3s"})
    assert [d["tile"] for d in s.hand["discards"]["N"]] == ["3s"] and s.hand["winners"] == []
    assert _seen(fold(log.events).hand) == _seen(s.hand)


def test_a_win_of_a_hand_that_has_ended_is_not_undone_once_the_next_has_started() -> None:
    """Before: hand 2 in play, the undo of hand 1's confirmed win was taken: hand 1's score-sheet row went to
    和牌（待确认） at 0 points while hand 2 was played, its dealer chosen on that win, and no read could confirm
    it again (a read goes to the hand in play). Refused, as a correction of hand 1 is, saying why; so is the
    undo of hand 1's read once its confirmation was undone and the hand ended again as a draw."""
    from table_controller.scoresheet import compute

    log, won, _ = _won()
    confirm = next(a for a in won.actions if a["type"] == "referee.win_confirm")
    log.add("operator", "operator.hand_end", {"hand_no": 1, "result": "win"})
    log.start(hand_no=2, dealer=2)
    before = log.state()
    row = compute(before)["rows"][0]
    assert row["result"] == "win" and row["points"]["4"] > 0
    for body in ({}, {"target": confirm["seq"]}):  # the page names no target: the last action is meant
        with pytest.raises(ValueError) as err:
            validate(before, "referee.undo", {"reason": "读错", **body})
        assert str(err.value).startswith(f"上一手已结束（第 2 盘已开始），不能再撤销：#{confirm['seq']} 是第 1 盘的确认和牌"
                                         "（北家和二筒），那一盘的结果已定：庄家轮转、第 2 盘的庄家和各家得分都以它为准"), err.value
        assert " / hand 1 has ended and hand 2 has started" in str(err.value)
    assert compute(log.state())["rows"][0] == row and log.state().actions == before.actions
    # undone within hand 1 (taken), the hand ended again as a draw: its read, left, is settled with hand 2 too
    log, won, _ = _won()
    read = next(a for a in won.actions if a["type"] == "referee.win_read")
    log.add("operator", "operator.hand_end", {"hand_no": 1, "result": "win"})
    validate(log.state(), "referee.undo", {"reason": "读错"})
    log.ref("referee.undo", reason="读错")
    log.add("operator", "operator.hand_end", {"hand_no": 1, "result": "draw"})
    log.start(hand_no=2, dealer=2)
    with pytest.raises(ValueError) as err:
        validate(log.state(), "referee.undo", {"reason": "读错"})
    assert str(err.value).startswith(f"上一手已结束（第 2 盘已开始），不能再撤销：#{read['seq']} 是第 1 盘的和牌读牌（北家）"), err.value


def test_a_check_of_hands_at_a_draw_is_not_undone_once_the_next_hand_has_started() -> None:
    """A riichi draw's 查叫 (不听罚符) pays and says who was ready, the dealer's 连庄 resting on it: undone with
    hand 2 in play, hand 1's row lost its payments. Refused the same way; before hand 2 it is taken."""
    from table_controller.scoresheet import compute
    from test_furiten import S_READY, _table  # type: ignore[import-not-found]

    log = _table(("E", "9p"), ("S", "9s"))
    log.add("operator", "operator.hand_end", {"hand_no": 1, "result": "draw"})
    hands = {"S": {"concealed": S_READY}, "E": {"concealed": []}, "W": {"concealed": []}, "N": {"concealed": []}}
    ruling = log.ref("referee.exhaustive", hands=hands)
    validate(log.state(), "referee.undo", {"reason": "看错"})  # hand 1 not yet followed: taken
    log.start(hand_no=2, dealer=2)
    row = compute(log.state())["rows"][0]
    assert row["exhaustive_points"] == {"1": -1000, "2": 3000, "3": -1000, "4": -1000}
    with pytest.raises(ValueError) as err:
        validate(log.state(), "referee.undo", {"reason": "看错", "target": ruling.seq})
    assert str(err.value).startswith(f"上一手已结束（第 2 盘已开始），不能再撤销：#{ruling.seq} 是第 1 盘的查叫，"), err.value


def test_a_play_put_between_the_draw_a_confirmed_self_drawn_win_was_won_on_and_the_win_is_refused() -> None:
    """N self-draws after W's 三筒 (自摸, read and confirmed). Before: N's discard, N's flower or E's pung of that
    三筒 inserted after it was taken, the record then saying N discarded (or never drew) before winning on its
    draw; W's 三筒 voided too (N winning out of turn); and N's concealed kong put there undid the confirmation
    silently (the read, wanting a kong for 杠上开花, no longer scored). Refused, naming the play put there; W's
    三筒 put right as another tile leaves the win, and so does a play put before it."""
    log = _dealt()
    seqs = {w: log.add("operator", "play.discard", {"seat": w, "tile": t}).seq
            for w, t in (("E", "1z"), ("S", "9s"), ("W", "3p"))}
    s = _take(log, log.state(), "referee.win_read", hand={**READ, "win": "self_draw", "discarder": None})
    won = _take(log, s, "referee.win_confirm")
    confirm = won.actions[-1]
    assert won.hand["winners"] == ["N"] and confirm["win_kind"] == "self_draw"
    for play, said in (({"type": "discard", "seat": "N", "tile": "3s"}, "北家打出 三条"),
                       ({"type": "flower", "seat": "N", "tile": "5f"}, "北家补花 梅"),
                       ({"type": "kong", "seat": "N", "tiles": ["1p"] * 4, "concealed": True}, "北家暗杠"),
                       ({"type": "claim", "seat": "E", "from": "W", "kind": "pung", "tiles": ["3p"] * 3},
                        "东家碰 三筒 三筒 三筒")):
        why = _refused(log, won, insert_after=seqs["W"], play=play)
        assert why.startswith(f"不能补录：#{seqs['W']}（西家打出 三筒）之后是已确认的自摸 #{confirm['seq']}（北家自摸），"
                              f"和牌之前不能再有行牌（{said}）；确有此事请先撤销该和牌确认，更正后重新读牌"), why
        assert " / the confirmed self-drawn win" in why
    for body in ({"target": seqs["W"], "void": True}, {"target": seqs["W"], "seat": "N"},
                 {"target": seqs["W"], "play": {"type": "flower", "seat": "W", "tile": "5f"}}):
        assert _refused(log, won, **body).startswith(
            f"不能更正：#{seqs['W']}（西家打出 三筒）是已确认的自摸 #{confirm['seq']}（北家自摸）之前的最后一步"), body
    s = _take(log, won, "referee.play_correct", target=seqs["W"], tile="4p")
    assert s.hand["winners"] == ["N"] and not s.actions[-2].get("error") and not s.actions[-2]["undone"]
    s = _take(log, s, "referee.play_correct", insert_before=seqs["W"], play={"type": "flower", "seat": "W", "tile": "6f"})
    assert s.hand["winners"] == ["N"] and s.hand["flowers"]["W"] == ["6f"]


def test_a_correction_the_confirmed_read_no_longer_stands_on_is_refused_until_it_is_undone() -> None:
    """N's win read with 梅 (5f) among its flowers, confirmed; S's 梅 put in before S's discard: the read, scored
    again on the record as corrected, has a flower the record lays out at S (flower_elsewhere). Before, the
    correction was taken and the fold refused the confirmation: the win left the sheet without a word, and its
    refusal (the read's message, which may name the hand's waits: 振听) stood on the public action. Refused
    while the confirmation stands; once it is undone, taken."""
    log = _dealt()
    seqs = {w: log.add("operator", "play.discard", {"seat": w, "tile": t}).seq
            for w, t in (("E", "1z"), ("S", "9s"), ("W", "2p"))}
    s = _take(log, log.state(), "referee.win_read", hand={**READ, "flowers": ["5f"]})
    s = _take(log, s, "referee.win_confirm")
    confirm = s.actions[-1]
    assert s.hand["winners"] == ["N"] and not confirm.get("error")
    flower = {"insert_before": seqs["S"], "play": {"type": "flower", "seat": "S", "tile": "5f"}}
    why = _refused(log, s, **flower)
    assert why.startswith(f"不能补录：已确认的和牌 #{confirm['seq']}（北家）将不再成立：和牌不成立：花牌：梅在记录中是南家补的花"), why
    assert why.endswith("确有此事请先撤销该和牌确认，更正后重新读牌 / the confirmed win "
                        f"#{confirm['seq']} would no longer stand: undo its confirmation first"), why
    s = _take(log, s, "referee.undo", target=confirm["seq"])
    s = _take(log, s, "referee.play_correct", **flower)
    assert s.hand["flowers"]["S"] == ["5f"] and s.hand["winners"] == []


def test_a_win_confirmed_again_after_play_went_on_is_checked_where_it_was_read() -> None:
    """血战/血流: a confirmation undone after play went on and confirmed again on the same read (no new read) stands
    where it was read, as the fold places it (`state.after_win`: its draw, its turn, the discard won on). The checks
    took its place from the new confirmation: under 血流 E's second 四筒 (thrown after S's win) was the one won on,
    and could not be put right, while E's first, the one the win took, could be voided with the win standing;
    a self-drawn win's "last play before the draw" was N's discard made after it (no void, nothing put after it),
    while E's discard before the draw could be voided."""
    from test_many_winners import (  # type: ignore[import-not-found]
        S_WINS, confirmed_again_after_a_second_4p, play, read_and_confirm, sichuan_hand, win)

    log = confirmed_again_after_a_second_4p()
    s = log.state()
    first, second = (d["seq"] for d in s.hand["discards"]["E"])
    assert _refused(log, s, target=first, void=True).startswith(f"不能更正：#{first}（东家打出 四筒）是已确认的和牌")
    assert not validate(s, "referee.play_correct", {"target": second, "tile": "5p", "reason": "看错", "by": "referee"})

    log = Log("sichuan")
    sichuan_hand(log)                                              # E's 4p; S draws and wins on its draw
    read_and_confirm(log, win("S", S_WINS, "1p", how="self_draw"))  # S is out
    for seat, tile in (("W", "1s"), ("N", "2s")):
        play(log, "discard", seat=seat, tile=tile)
    conf = [a for a in log.state().actions if a["type"] == "referee.win_confirm"][-1]
    log.ref("referee.undo", reason="读错了", target=conf["seq"])
    log.ref("referee.win_confirm")
    s = log.state()
    e4p, n2s = s.hand["discards"]["E"][0]["seq"], s.hand["discards"]["N"][0]["seq"]
    assert _refused(log, s, target=e4p, void=True).startswith(f"不能更正：#{e4p}（东家打出 四筒）是已确认的自摸")
    assert not validate(s, "referee.play_correct", {"target": n2s, "void": True, "reason": "没打", "by": "referee"})
    assert not validate(s, "referee.play_correct", {"insert_after": n2s, "reason": "漏记", "by": "referee",
                                                    "play": {"type": "discard", "seat": "E", "tile": "5s"}})

"""Corrections (更正牌谱) and their undos after a win is confirmed (`corrections.refusal`, `rework`): a play
put right before the discard won on folds the hand again with the win standing and its undo puts the hand
back; a play put between the discard won on and the win (a play inserted after it, a claim of the tile won
on) no longer lets the confirmed read follow the record, and is refused until the confirmation is undone."""

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

"""A play corrected in the fold (`referee.play_correct`, `corrections.py`): what the record derives from
the play follows the correction (a kong's payment, the hand's row on the score sheet after its end), a
snapshot taken mid-hand goes on as the whole log folds, and an undo puts the play back."""

from __future__ import annotations

import pickle
import time

from table_controller.scoresheet import compute
from table_controller.state import apply, fold

from test_referee_fold import Log  # type: ignore[import-not-found]


def _kong_hand() -> tuple[Log, int]:
    """四川: a concealed kong keyed for S that W made; returns the log and the kong's seq."""
    log = Log("sichuan")
    log.start(hand_no=1, dealer=1)
    log.add("table", "table.dice", {"seat": "E", "wind": "E", "dice": [3, 4]})
    log.add("operator", "play.deal_done", {})
    log.add("operator", "play.discard", {"seat": "E", "tile": "1m"})
    log.add("operator", "play.discard", {"seat": "S", "tile": "2m"})
    kong = log.add("operator", "play.kong", {"seat": "S", "tiles": ["7s"] * 4, "concealed": True})
    return log, kong.seq


def test_a_kongs_payment_follows_the_seat_corrected_after_the_hand_ended() -> None:
    log, kong = _kong_hand()
    log.add("operator", "operator.hand_end", {"hand_no": 1, "result": "draw"})
    before = fold(log.events)
    (paid,) = before.hands[-1]["kong_payments"]
    assert paid["seat"] == "S" and paid["by_wind"]["S"] > 0
    log.ref("referee.play_correct", target=kong, seat="W", reason="是西家暗杠")
    after = log.state()
    (paid,) = after.hands[-1]["kong_payments"]
    assert paid["seat"] == "W" and paid["by_wind"]["W"] > 0 and "S" not in [w for w, v in paid["by_wind"].items()
                                                                           if v > 0]
    assert after.hand["melds"]["W"][0]["tiles"] == ["7s"] * 4 and after.hand["melds"]["S"] == []
    # the score sheet's kong points move with it: chair 3 (W) is paid, chair 2 (S) pays like the others
    assert compute(before)["rows"][-1]["kong_points"] == {"1": -2, "2": 6, "3": -2, "4": -2}
    assert compute(after)["rows"][-1]["kong_points"] == {"1": -2, "2": -2, "3": 6, "4": -2}
    log.ref("referee.undo", reason="原来没错")
    back = log.state()
    assert back.hands[-1]["kong_payments"] == before.hands[-1]["kong_payments"]
    assert [e.type for e in log.events[-2:]] == ["referee.play_correct", "referee.undo"]


def test_a_snapshot_taken_after_a_correction_goes_on_as_the_whole_log() -> None:
    log, kong = _kong_hand()
    log.ref("referee.play_correct", target=kong, seat="W", reason="是西家暗杠")
    mid = pickle.loads(pickle.dumps(fold(log.events), protocol=5))  # as `snapshot.save` keeps it
    first = log.add("operator", "play.discard", {"seat": "W", "tile": "9p"})
    log.ref("referee.play_correct", target=first.seq, tile="8p", reason="看错")
    goes_on = apply(apply(mid, log.events[-2]), log.events[-1])
    whole = fold(log.events)
    assert goes_on.hand == whole.hand and goes_on.log == whole.log and goes_on.actions == whole.actions
    assert [d["tile"] for d in whole.hand["discards"]["W"]] == ["8p"] and whole.hand["melds"]["W"]


def _long_hand() -> tuple[Log, list[int]]:
    """88 discards and 4 camera sightings each (445 events); the log and the discards' seqs."""
    log = Log("mcr")
    log.start(hand_no=1, dealer=1)
    log.add("table", "table.dice", {"seat": "E", "wind": "E", "dice": [3, 4]})
    log.add("table", "table.dice", {"seat": "W", "wind": "W", "dice": [2, 5]})
    log.add("demo", "play.deal_done", {})
    tiles = [f"{r}{s}" for s in "mps" for r in range(1, 10)] + [f"{r}z" for r in range(1, 8)]
    plays = []
    for i in range(88):
        seat = "ESWN"[i % 4]
        for k in range(4):
            log.add("camera", "camera.tile_appeared", {"event": "appeared", "zone": f"discard:{seat}",
                                                       "kind": tiles[i % 34], "confidence": 0.9, "wind": seat,
                                                       "track": i * 10 + k})
        plays.append(log.add("demo", "play.discard", {"seat": seat, "tile": tiles[i % 34]}).seq)
    return log, plays


def test_a_correction_early_in_a_long_hand_folds_it_again_in_well_under_a_second() -> None:
    """445 events: about 6 ms here to fold the hand again."""
    log, plays = _long_hand()
    state = fold(log.events)
    fix = log.ref("referee.play_correct", target=plays[0], tile="9s", reason="看错")
    began = time.perf_counter()
    after = apply(state, fix)
    took = time.perf_counter() - began
    assert after.hand["discards"]["E"][0]["tile"] == "9s" and after.hand["tiles_left"] == state.hand["tiles_left"]
    assert took < 1.0, took


def test_a_play_inserted_early_in_a_long_hand_is_checked_and_folded_in_well_under_a_second() -> None:
    """E's flower missed before its first discard of 445 events: the check (the hand folded twice, each
    later play's rule asked) and the fold again: about 15 ms and 7 ms here (a correction of a tile: the same)."""
    from table_controller.referee import validate

    log, plays = _long_hand()
    state = fold(log.events)
    body = {"insert_before": plays[0], "play": {"type": "flower", "seat": "E", "tile": "1f"}, "reason": "漏记"}
    began = time.perf_counter()
    validate(state, "referee.play_correct", body)
    checked = time.perf_counter() - began
    fix = log.ref("referee.play_correct", **body)
    began = time.perf_counter()
    after = apply(state, fix)
    took = time.perf_counter() - began
    assert after.hand["flowers"]["E"] == ["1f"] and after.hand["tiles_left"] == state.hand["tiles_left"] - 1
    assert after.hand["discards"] == state.hand["discards"]
    assert checked < 1.0 and took < 1.0, (checked, took)


def test_a_concealed_kongs_faces_put_right_stay_hidden_from_the_public() -> None:
    """The correction names the kong's tiles; the public state, its actions and the event as the public
    socket sends it show none of them (the kong face down), the referee's view has them."""
    import json

    from table_controller.projection import public_event, public_view, referee_view

    log, kong = _kong_hand()
    fix = log.ref("referee.play_correct", target=kong, tiles=["8s"] * 4, reason="是八条")
    state = log.state()
    assert state.hand["melds"]["S"][0]["tiles"] == ["8s"] * 4
    assert "8s" in json.dumps(referee_view(state))
    shown = json.dumps(public_view(state), ensure_ascii=False) + json.dumps(public_event(fix.to_json()))
    assert "8s" not in shown and "7s" not in shown, shown
    assert "裁判更正 #" in shown and "南家暗杠" in shown


def test_an_undo_sent_without_its_target_names_it_in_the_log() -> None:
    """`POST /api/referee/undo` may leave out `target` (the last action is meant): the log line said
    "裁判撤销 #：…" with no number; it names the action undone."""
    log, kong = _kong_hand()
    fix = log.ref("referee.play_correct", target=kong, seat="W", reason="是西家暗杠")
    log.ref("referee.undo", reason="原来没错")
    assert log.state().log[-1]["text"] == f"裁判撤销 #{fix.seq}：原来没错"


def _dealt(ruleset: str = "mcr") -> Log:
    log = Log(ruleset)
    log.start(hand_no=1, dealer=1)
    log.add("table", "table.dice", {"seat": "E", "wind": "E", "dice": [3, 4]})
    if ruleset == "mcr":
        log.add("table", "table.dice", {"seat": "W", "wind": "W", "dice": [2, 5]})
    log.add("operator", "play.deal_done", {})
    return log


def _refused(log: Log, **body: object) -> str:
    """Why the referee's correction `body` is refused now (it must be), the log left as it was."""
    import pytest

    from table_controller.referee import validate

    with pytest.raises(ValueError) as err:
        validate(log.state(), "referee.play_correct", dict(body))
    return str(err.value)


def test_a_flower_never_keyed_is_inserted_before_the_discard_that_followed_it_and_an_undo_takes_it_out() -> None:
    """S laid 梅 and drew its replacement, then discarded: the flower was missed. Keyed late it is out of
    turn; inserted before S's discard, the wall counts the replacement and the log is not rewritten."""
    from table_controller.controller import _play_problem

    log = _dealt()
    log.add("operator", "play.discard", {"seat": "E", "tile": "1z"})
    s_discard = log.add("operator", "play.discard", {"seat": "S", "tile": "2m"})
    log.add("operator", "play.discard", {"seat": "W", "tile": "3m"})
    before = log.state()
    assert _play_problem(before.hand, "play.flower", {"seat": "S", "tile": "5f"}).startswith("未轮到南家补花")
    fix = log.ref("referee.play_correct", insert_before=s_discard.seq, reason="漏记南家补花",
                  play={"type": "flower", "seat": "S", "tile": "5f"})
    after = log.state()
    assert after.hand["flowers"]["S"] == ["5f"] and after.hand["tiles_left"] == before.hand["tiles_left"] - 1
    assert after.hand["turn"] == before.hand["turn"] and after.hand["discards"] == before.hand["discards"]
    texts = [line["text"] for line in after.log]
    at = texts.index(f"南家补花 梅（裁判补录 #{fix.seq}）")
    assert texts[at - 1] == "东家打出 东" and texts[at + 1] == "南家打出 二万", texts
    assert texts[-1] == f"裁判补录（#{s_discard.seq} 前）：南家补花 梅（漏记南家补花）"
    assert [e.type for e in log.events[-4:]] == ["play.discard", "play.discard", "play.discard", "referee.play_correct"]
    log.ref("referee.undo", reason="记错了")
    back = log.state()
    assert back.hand["flowers"] == before.hand["flowers"] and back.hand["tiles_left"] == before.hand["tiles_left"]


def test_an_insertion_the_later_plays_cannot_take_is_refused_naming_the_first_that_breaks() -> None:
    log = _dealt()
    e = log.add("operator", "play.discard", {"seat": "E", "tile": "1z"})
    s = log.add("operator", "play.discard", {"seat": "S", "tile": "2m"})
    pung = {"type": "claim", "seat": "W", "kind": "pung", "from": "E", "tiles": ["1z"] * 3}
    assert _refused(log, insert_after=e.seq, play=pung, reason="漏记").startswith(
        f"补录后其后 #{s.seq}（南家打出 二万）不成立：未轮到南家，现在是西家")
    assert _refused(log, insert_after=e.seq, play={"type": "discard", "seat": "N", "tile": "9p"}, reason="漏记") \
        .startswith("补录后不成立：未轮到北家")
    # the place, the play's fields, and the reason are checked before the hand is
    assert _refused(log, play=pung, reason="漏记").startswith("补录须给出位置")
    assert _refused(log, insert_before=e.seq, insert_after=e.seq, play=pung, reason="漏记").startswith("补录须给出位置")
    assert _refused(log, insert_after=e.seq, play={"type": "claim", "seat": "W"}, reason="漏记").startswith(
        "补录吃碰杠须给出 from、kind、tiles")
    assert _refused(log, insert_after=e.seq, play={"type": "discard", "seat": "W", "tile": "1m", "from": "E"},
                    reason="漏记").startswith("打出只有 seat、tile，不含 from")
    assert _refused(log, insert_after=999, play=pung, reason="漏记").startswith("#999 不是本盘的行牌记录")
    assert _refused(log, insert_after=e.seq, play=pung, reason=" ").startswith("更正须说明理由")
    assert fold(log.events).hand["melds"]["W"] == []


def test_a_kong_never_keyed_is_paid_and_an_inserted_play_is_corrected_or_voided_by_its_corrections_seq() -> None:
    """四川: S's concealed kong was missed before its discard; inserted, it is paid and the wall gave a
    replacement; the inserted play is named by the correction's seq, which corrects it and voids it."""
    log = _dealt("sichuan")
    log.add("operator", "play.discard", {"seat": "E", "tile": "1m"})
    s_discard = log.add("operator", "play.discard", {"seat": "S", "tile": "2m"})
    log.add("operator", "play.discard", {"seat": "W", "tile": "3m"})
    before = log.state()
    kong = log.ref("referee.play_correct", insert_before=s_discard.seq, reason="漏记南家暗杠",
                   play={"type": "kong", "seat": "S", "tiles": ["7s"] * 4, "concealed": True})
    state = log.state()
    (paid,) = state.hand["kong_payments"]
    assert paid["seat"] == "S" and paid["by_wind"]["S"] > 0
    assert state.hand["melds"]["S"][0]["tiles"] == ["7s"] * 4
    assert state.hand["tiles_left"] == before.hand["tiles_left"] - 1
    log.ref("referee.play_correct", target=kong.seq, tiles=["8s"] * 4, reason="是八条")
    assert log.state().hand["melds"]["S"][0]["tiles"] == ["8s"] * 4
    log.ref("referee.play_correct", target=kong.seq, void=True, reason="没有杠")
    voided = log.state()
    assert voided.hand["melds"]["S"] == [] and not voided.hand.get("kong_payments") and \
        voided.hand["tiles_left"] == before.hand["tiles_left"]


def test_a_play_of_another_kind_takes_the_place_of_the_one_keyed_both_or_neither() -> None:
    """S's last play was keyed as a discard of 7s; it was S's concealed kong of 7s: one action voids the
    discard and puts the kong in its place (S still to discard). Where a later play cannot stand after the
    kong (W's discard, out of turn then), neither happens."""
    log = _dealt("sichuan")
    log.add("operator", "play.discard", {"seat": "E", "tile": "1m"})
    wrong = log.add("operator", "play.discard", {"seat": "S", "tile": "7s"})
    kong = {"type": "kong", "seat": "S", "tiles": ["7s"] * 4, "concealed": True}
    w = log.add("operator", "play.discard", {"seat": "W", "tile": "9s"})  # keyed after: S's turn goes on after a kong
    assert _refused(log, target=wrong.seq, play=kong, reason="是暗杠").startswith(
        f"更正后其后 #{w.seq}（西家打出 九条）不成立：未轮到西家")
    assert log.state().hand["discards"]["S"][0]["tile"] == "7s"  # neither the void nor the kong
    log.events.pop()
    assert _refused(log, target=wrong.seq, play={"type": "discard", "seat": "S", "tile": "7s"}, reason="x") \
        .startswith(f"#{wrong.seq} 的记录已是如此")
    fix = log.ref("referee.play_correct", target=wrong.seq, play=kong, reason="是暗杠")
    state = log.state()
    assert state.hand["discards"]["S"] == [] and state.hand["melds"]["S"][0]["type"] == "kong"
    assert state.hand["turn"]["seat"] == "S" and state.actions[-1]["was"] == "南家打出 七条"
    assert state.actions[-1]["void"] is True and state.actions[-1]["now"] == "南家暗杠"
    assert state.log[-1]["text"] == f"裁判更正 #{wrong.seq}：南家暗杠（是暗杠）" and fix.seq == state.seq


def test_an_insertion_folds_the_same_from_a_snapshot_and_an_old_style_log_is_untouched() -> None:
    """A snapshot taken after an insertion goes on as the whole log; inserted plays are numbered
    between their neighbours (the fold's "newest discard" reads the inserted one as newer)."""
    log = _dealt()
    e = log.add("operator", "play.discard", {"seat": "E", "tile": "1z"})
    log.add("operator", "play.discard", {"seat": "S", "tile": "2m"})
    log.ref("referee.play_correct", insert_after=e.seq, play={"type": "flower", "seat": "S", "tile": "6f"}, reason="漏记")
    mid = pickle.loads(pickle.dumps(fold(log.events), protocol=5))
    log.add("operator", "play.discard", {"seat": "W", "tile": "3m"})
    goes_on = apply(mid, log.events[-1])
    whole = fold(log.events)
    assert goes_on.hand == whole.hand and goes_on.log == whole.log and goes_on.actions == whole.actions
    assert whole.hand["flowers"]["S"] == ["6f"]


def test_a_play_inserted_beside_an_inserted_play_is_folded_once_in_its_place() -> None:
    """S's two flowers were both missed: the first is inserted before S's discard, the second after that
    inserted one (named by its correction's seq). It was folded twice: beside the inserted play and again
    beside the correction's own event in the log (S had 梅 兰 兰, the wall three short); it is folded once,
    numbered between its neighbours."""
    from table_controller.corrections import insertions, layout

    log = _dealt()
    log.add("operator", "play.discard", {"seat": "E", "tile": "1z"})
    s_discard = log.add("operator", "play.discard", {"seat": "S", "tile": "2m"})
    log.add("operator", "play.discard", {"seat": "W", "tile": "3m"})
    before = log.state()
    first = log.ref("referee.play_correct", insert_before=s_discard.seq, reason="漏记",
                    play={"type": "flower", "seat": "S", "tile": "5f"})
    second = log.ref("referee.play_correct", insert_after=first.seq, reason="漏记",
                     play={"type": "flower", "seat": "S", "tile": "6f"})
    after = log.state()
    assert after.hand["flowers"]["S"] == ["5f", "6f"]
    assert after.hand["tiles_left"] == before.hand["tiles_left"] - 2
    assert after.hand["discards"] == before.hand["discards"] and after.hand["turn"] == before.hand["turn"]
    steps = [(p.play.seq, p.by) for p in layout(after.hand_events, insertions(after.actions, 1), after.hand_base.seq)]
    inserted = [(seq, by) for seq, by in steps if by is not None]
    assert [by for _, by in inserted] == [first.seq, second.seq]
    assert s_discard.seq - 1 < inserted[0][0] < inserted[1][0] < s_discard.seq
    texts = [line["text"] for line in after.log]
    assert texts.count(f"南家补花 兰（裁判补录 #{second.seq}）") == 1
    at = texts.index(f"南家补花 兰（裁判补录 #{second.seq}）")
    assert texts[at - 1] == f"南家补花 梅（裁判补录 #{first.seq}）" and texts[at + 1] == "南家打出 二万", texts
    # one inserted before the inserted one goes between it and E's discard; the fold from a snapshot agrees
    third = log.ref("referee.play_correct", insert_before=first.seq, reason="漏记",
                    play={"type": "flower", "seat": "S", "tile": "7f"})
    mid = pickle.loads(pickle.dumps(fold(log.events), protocol=5))
    assert mid.hand["flowers"]["S"] == ["7f", "5f", "6f"]
    assert mid.hand["tiles_left"] == before.hand["tiles_left"] - 3
    log.add("operator", "play.discard", {"seat": "N", "tile": "4m"})
    goes_on = apply(mid, log.events[-1])
    assert goes_on.hand == fold(log.events).hand
    log.events.pop()
    log.ref("referee.undo", reason="记错了")
    assert log.state().hand["flowers"]["S"] == ["5f", "6f"] and third.seq


def test_an_undo_naming_an_undo_or_a_play_says_so_rather_than_that_it_is_not_the_last() -> None:
    """The referee undoes a correction, then presses 撤销 again naming that undo (to have the correction
    back), or names a play's seq: it was refused as "只能撤销最后一次裁判操作" (the fold) or "不是可撤销的
    裁判操作" (the page), as if some other action had come after; it says what the target is, Chinese first."""
    import pytest

    from table_controller.referee import validate
    from table_controller.stale import undo_refusal

    log = _dealt()
    log.add("operator", "play.discard", {"seat": "E", "tile": "1z"})
    s = log.add("operator", "play.discard", {"seat": "S", "tile": "2m"})
    late = log.ref("referee.penalty", seat="E", code="late_5")
    fix = log.ref("referee.play_correct", target=s.seq, tile="3m", reason="看错")
    undo = log.ref("referee.undo", target=fix.seq, reason="原来没错")
    state = log.state()
    said = undo_refusal(state, undo.seq)
    assert said is not None and said.startswith(f"未撤销：#{undo.seq} 这是一次撤销（撤销 #{fix.seq} 更正牌谱），不能再撤销"), said
    assert " / not undone: " in said and "is an undo" in said
    with pytest.raises(ValueError, match=f"^#{undo.seq} 这是一次撤销（撤销 #{fix.seq} 更正牌谱），不能再撤销"):
        validate(state, "referee.undo", {"target": undo.seq, "reason": "要更正", "by": "referee"})
    played = undo_refusal(state, s.seq)
    assert played is not None and played.startswith(
        f"未撤销：#{s.seq}（南家打出 二万）是行牌记录，不是裁判操作：记错的行牌请用更正牌谱"), played
    with pytest.raises(ValueError, match=f"^#{s.seq}（南家打出 二万）是行牌记录"):
        validate(state, "referee.undo", {"target": s.seq, "reason": "x", "by": "referee"})
    # the last action named is undone as before; with nothing left to undo, an undo named is still said to be one
    assert undo_refusal(state, late.seq) is None
    log.ref("referee.undo", target=late.seq, reason="罚错了")
    bare = log.state()
    said = undo_refusal(bare, undo.seq)
    assert said is not None and said.startswith(f"未撤销：#{undo.seq} 这是一次撤销"), said
    with pytest.raises(ValueError, match=f"^#{undo.seq} 这是一次撤销"):  # was: 没有可撤销的裁判操作
        validate(bare, "referee.undo", {"target": undo.seq, "reason": "x", "by": "referee"})
    assert not bare.actions[-1].get("error") and next(a for a in bare.actions if a["seq"] == late.seq)["undone"]
    assert fold(log.events).hand["discards"]["S"][0]["tile"] == "2m"


def test_an_undo_naming_a_refused_action_that_is_the_last_still_takes_it_as_before() -> None:
    """A log holding a refused action (a confirmation with no read, logged before the page checked it) as the last
    one to undo: the page names it (`last_action`), and its undo was taken, marking it undone (no effect), so that
    the next undo reached the penalty before it. Refused since as "没有生效，无需撤销", the fold of such a log
    changed (the penalty stayed) and the page could undo nothing: it names that action, and an undo naming the
    one before it is not the last. A refused action that is not the last is still said to be one."""
    import pytest

    from table_controller.referee import last_undoable, validate
    from table_controller.stale import undo_refusal

    log = _dealt()
    late = log.ref("referee.penalty", seat="E", code="late_5")
    bad = log.ref("referee.win_confirm")
    state = log.state()
    assert state.actions[-1]["error"] and last_undoable(state.actions)["seq"] == bad.seq
    assert undo_refusal(state, bad.seq) is None
    validate(state, "referee.undo", {"target": bad.seq, "reason": "误按", "by": "referee"})
    first = log.ref("referee.undo", target=bad.seq, reason="误按")
    second = log.ref("referee.undo", target=late.seq, reason="罚错了")
    folded = log.state()
    by_seq = {a["seq"]: a for a in folded.actions}
    assert not by_seq[first.seq].get("error") and not by_seq[second.seq].get("error"), by_seq[first.seq]
    assert by_seq[bad.seq]["undone"] and by_seq[late.seq]["undone"]
    # a refused action behind the last one is said to be refused, not to be "not the last"
    log.events[-2:] = []
    again = log.ref("referee.penalty", seat="S", code="late_5")
    state = log.state()
    assert last_undoable(state.actions)["seq"] == again.seq
    with pytest.raises(ValueError, match=f"^#{bad.seq}（确认和牌）未被接受，没有生效"):
        validate(state, "referee.undo", {"target": bad.seq, "reason": "x", "by": "referee"})

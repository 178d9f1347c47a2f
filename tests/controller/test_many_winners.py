"""More than one winner in a hand on the live table: 一炮多响, 血战到底 / 血流成河 playing on after a
win, and 查叫 at 荒牌 (四川 查花猪, 查大叫, 退税), folded from the log into the score sheet."""

from __future__ import annotations

from typing import Any

import pytest

from table_controller.controller import _play_problem
from table_controller.penalties import PenaltyError
from table_controller.projection import public_event, public_view, referee_view
from table_controller.referee import RefereeError, validate, winners
from table_controller.scoresheet import compute, to_csv

from test_referee_fold import Log  # type: ignore[import-not-found]


def win(seat: str, concealed: str, tile: str, how: str = "discard", discarder: str | None = None) -> dict[str, Any]:
    hand: dict[str, Any] = {"seat_wind": seat, "prevalent_wind": "E", "melds": [], "concealed": concealed.split(),
                            "win_tile": tile, "win": how}
    if discarder:
        hand["discarder"] = discarder
    return hand


def nz(pay: dict[str, int]) -> dict[str, int]:
    return {w: v for w, v in pay.items() if v}


def play(log: Log, type_: str, **d: Any) -> None:
    log.add("camera", f"play.{type_}", {**d, "by": "camera"})


def read_and_confirm(log: Log, hand: dict[str, Any]) -> dict[str, Any]:
    log.ref("referee.win_read", hand=hand)
    state = log.state()
    validate(state, "referee.win_confirm", {})
    log.ref("referee.win_confirm")
    return log.state().actions[-1]


# 四川: no honours, 缺一门 (two suits at most).
S_WINS = "1m 1m 1m 2m 3m 4m 5m 6m 7m 8m 8m 2p 3p"       # on 4p (or 1p)
N_WINS = "4m 5m 6m 7m 8m 9m 2p 3p 4p 6p 6p 7p 8p"       # on 6p / 9p
W_WINS = "2s 3s 4s 5s 6s 7s 2p 2p 2p 6p 7p 9s 9s"       # on 5p / 8p


def sichuan_hand(log: Log) -> None:
    log.start()
    log.throw()
    play(log, "deal_done")
    play(log, "discard", seat="E", tile="4p")


def test_mcr_one_winner_a_second_read_is_a_new_read_and_its_confirmation_is_refused() -> None:
    log = Log("mcr")
    log.start()
    read_and_confirm(log, win("N", "1m 2m 3m 4m 5m 6m 7m 8m 9m 1p 1p 1p 2p", "2p", discarder="E"))
    log.ref("referee.win_read", hand=win("S", "1m 2m 3m 4m 5m 6m 7m 8m 9m 1p 1p 1p 2p", "2p", discarder="E"))
    state = log.state()
    assert state.actions[-1]["correction"] is False  # the confirmed read stays; this one is another seat's
    with pytest.raises(RefereeError, match="截和"):
        validate(state, "referee.win_confirm", {})
    assert public_view(state)["further_win"] is False


def test_mcr_jiehu_the_seat_nearer_the_discarder_is_the_winner() -> None:
    """Seed 000 范文六 第四条 (三) 和牌者: "一盘只能有一位和牌者。如有一人以上同时表示和牌时，从打牌者按逆时针方向，
    顺序在前者被定为'和牌者'". N's win on E's 2p is confirmed, then S (E's 下家, before N) is read winning on the same
    tile: the refusal says S is the winner and how to get there (undo the read and N's confirmation). Before, it said
    only "本盘和牌已确认（截和：一张牌只有一家和）", and the referee kept N's win."""
    log = Log("mcr")
    log.start()
    hand = "1m 2m 3m 4m 5m 6m 7m 8m 9m 1p 1p 1p 2p"
    read_and_confirm(log, win("N", hand, "2p", discarder="E"))
    log.ref("referee.win_read", hand=win("S", hand, "2p", discarder="E"))
    with pytest.raises(RefereeError, match="截和：南家比北家先轮到.*应由南家和牌：请撤销本读牌和北家的确认和牌"):
        validate(log.state(), "referee.win_confirm", {})
    log.ref("referee.undo", reason="两家同时报和，截和")  # S's read
    log.ref("referee.undo", reason="截和：南家在先")  # N's confirmation
    read_and_confirm(log, win("S", hand, "2p", discarder="E"))
    assert winners(log.state().actions, 1) == ["S"]
    # a seat after the confirmed winner is refused as before: its win is cut off (截和)
    log.ref("referee.win_read", hand=win("W", hand, "2p", discarder="E"))
    with pytest.raises(RefereeError) as refused:
        validate(log.state(), "referee.win_confirm", {})
    assert str(refused.value).startswith("本盘和牌已确认（截和")


def test_one_discard_two_winners_where_the_ruleset_allows_it_and_the_sheet_adds_both() -> None:
    """广东鸡平胡 一炮多响: both seats win on E's discard; another kind of win is refused."""
    log = Log("jipinghu")
    log.start(dealer=2)  # winds on chairs: E=2, S=3, W=4, N=1
    play(log, "deal_done")
    play(log, "discard", seat="E", tile="2p")
    first = read_and_confirm(log, win("N", "1m 2m 3m 4m 5m 6m 7m 8m 9m 1p 1p 1p 2p", "2p", discarder="E"))
    assert log.state().hand["turn"] is None  # the hand's play is over at the first win
    assert public_view(log.state())["further_win"] is True
    # a read of a win on another tile is not 一炮多响
    log.ref("referee.win_read", hand=win("W", "2s 3s 4s 5s 6s 7s 2p 2p 2p 6p 7p 9s 9s", "8p", "self_draw"))
    with pytest.raises(RefereeError, match="同一张弃牌"):
        validate(log.state(), "referee.win_confirm", {})
    second = read_and_confirm(log, win("S", "3m 4m 5m 6m 7m 8m 4s 4s 4s 1p 1p 1p 2p", "2p", discarder="E"))
    state = log.state()
    assert winners(state.actions, 1) == ["S", "N"]  # ranked from the discarder's next seat round
    row = compute(state)["rows"][-1]
    assert [w["seat"] for w in row["wins"]] == ["S", "N"]  # counter-clockwise from the discarder
    e_pays = first["by_wind"]["E"] + second["by_wind"]["E"]
    assert e_pays < 0 and row["win_points"]["2"] == e_pays  # E sits in chair 2
    assert row["win_points"]["1"] == first["by_wind"]["N"] and row["win_points"]["3"] == second["by_wind"]["S"]
    view = public_view(state)
    assert [w["seat"] for w in view["wins"]] == ["N", "S"] and view["win"]["confirmed"]
    csv = to_csv(compute(state))
    assert "和牌（丙、甲）" in csv  # S (chair 3, 丙) first after the discarder, then N (chair 1, 甲)
    with pytest.raises(RefereeError, match="已确认"):
        validate(state, "referee.win_confirm", {})


def test_blood_battle_plays_on_winners_leave_and_pay_no_more() -> None:
    log = Log("sichuan")
    sichuan_hand(log)  # E discards 4p
    s_win = read_and_confirm(log, win("S", S_WINS, "4p", discarder="E"))
    hand = log.state().hand
    assert nz(s_win["by_wind"]) == {"S": 1, "E": -1}
    assert hand["out"] == ["S"] and hand["turn"]["seat"] == "W"  # the seat after the winner plays on
    assert hand["discards"]["E"][-1]["claimed"] and hand["discards"]["E"][-1]["won_by"] == "S"
    assert "已和牌" in (_play_problem(hand, "play.discard", {"seat": "S", "tile": "9m"}) or "")
    assert _play_problem(hand, "play.discard", {"seat": "W", "tile": "9m"}) is None
    play(log, "discard", seat="W", tile="9m")
    assert log.state().hand["turn"]["seat"] == "N"
    play(log, "kong", seat="N", tiles=["1s"] * 4, concealed=True)  # 下雨: 2 from each seat still playing
    assert log.state().hand["kong_payments"][-1]["by_wind"] == {"N": 4, "E": -2, "W": -2}
    play(log, "discard", seat="N", tile="9m")
    assert log.state().hand["turn"]["seat"] == "E"  # S is skipped
    play(log, "discard", seat="E", tile="1p")
    # W wins by self-draw: only E and N, still playing, pay
    w_win = read_and_confirm(log, win("W", W_WINS, "8p", "self_draw"))
    assert set(nz(w_win["by_wind"])) == {"W", "E", "N"} and w_win["by_wind"]["W"] > 0
    hand = log.state().hand
    assert hand["out"] == ["S", "W"] and hand["turn"]["seat"] == "N"
    # S cannot win again; a read of it is shown invalid
    log.ref("referee.win_read", hand=win("S", S_WINS, "1p", discarder="E"))
    assert log.state().actions[-1]["result"]["reason"] == "already_won"
    n_win = read_and_confirm(log, win("N", N_WINS, "9p", discarder="E"))
    state = log.state()
    assert nz(n_win["by_wind"]) == {"N": 1, "E": -1} and state.hand["turn"] is None  # one seat left: over
    assert winners(state.actions, 1) == ["S", "W", "N"]
    log.ref("referee.win_read", hand=win("E", "1m 1m 1m 2m 3m 4m 5m 6m 7m 8m 8m 2p 3p", "1p", discarder="N"))
    with pytest.raises(RefereeError):
        validate(log.state(), "referee.win_confirm", {})
    row = compute(log.state())["rows"][-1]
    assert [w["seat"] for w in row["wins"]] == ["S", "W", "N"]
    assert sum(row["points"].values()) == 0 and row["points"]["1"] < 0  # E (chair 1) paid every win


def test_blood_battle_one_discard_two_winners_then_the_seat_after_the_last_plays() -> None:
    log = Log("sichuan")
    sichuan_hand(log)  # E discards 4p
    read_and_confirm(log, win("N", "4m 5m 6m 7m 8m 9m 2p 3p 6p 6p 6p 7p 7p", "4p", discarder="E"))
    assert log.state().hand["turn"]["seat"] == "E"  # after N comes E
    read_and_confirm(log, win("S", S_WINS, "4p", discarder="E"))
    hand = log.state().hand
    assert hand["out"] == ["N", "S"] and hand["turn"]["seat"] == "E"  # N is the last counted from E
    assert winners(log.state().actions, 1) == ["S", "N"]  # S first after the discarder: deals next


def test_undoing_a_blood_battle_win_puts_the_seat_and_the_discard_back() -> None:
    log = Log("sichuan")
    sichuan_hand(log)
    before = log.state().hand
    conf = read_and_confirm(log, win("S", S_WINS, "4p", discarder="E"))
    log.ref("referee.undo", reason="读错了", target=conf["seq"])
    hand = log.state().hand
    assert hand["out"] == [] and hand["turn"] == before["turn"]
    assert not hand["discards"]["E"][-1]["claimed"] and "won_by" not in hand["discards"]["E"][-1]
    assert compute(log.state())["rows"][-1]["wins"] == []


def test_blood_river_a_winner_plays_on_and_may_win_again() -> None:
    log = Log("xueliu")
    sichuan_hand(log)
    read_and_confirm(log, win("S", S_WINS, "4p", discarder="E"))
    hand = log.state().hand
    assert hand["out"] == [] and hand["turn"]["seat"] == "W"
    play(log, "discard", seat="W", tile="1p")
    read_and_confirm(log, win("S", S_WINS, "1p", discarder="W"))
    assert winners(log.state().actions, 1) == ["S", "S"]
    assert len(compute(log.state())["rows"][-1]["wins"]) == 2


def test_exhaustive_settles_flower_pig_not_ready_and_refunds_among_the_seats_still_playing() -> None:
    log = Log("sichuan")
    sichuan_hand(log)
    read_and_confirm(log, win("S", S_WINS, "4p", discarder="E"))
    play(log, "kong", seat="W", tiles=["9s"] * 4, concealed=True)   # W takes 2 from E and N
    play(log, "discard", seat="W", tile="1m")
    hands = {"E": {"concealed": "1m 1m 2m 3m 4m 6m 7m 8m 5p 6p 7p 9p 9p".split()},   # ready (9p / 1m)
             "W": {"concealed": "1m 2m 4m 5p 6p 8p 9p 1s 1s 2s".split()},             # 花猪: three suits
             "N": {"concealed": "1m 3m 5m 7m 9m 2p 4p 6p 8p 1p 3p 5p 9p".split()}}    # not ready
    with pytest.raises(RefereeError, match="荒牌"):
        validate(log.state(), "referee.exhaustive", {"hands": hands})  # the hand is still in play
    log.add("operator", "operator.hand_end", {"hand_no": 1, "result": "draw"})
    state = log.state()
    with pytest.raises(PenaltyError, match="E、W、N"):  # S has won: its hand is not asked for (422)
        validate(state, "referee.exhaustive", {"hands": {**hands, "S": hands["E"]}})
    log.ref("referee.exhaustive", hands=hands)
    state = log.state()
    done = state.actions[-1]
    assert "error" not in done, done.get("error")
    assert done["flower_pigs"] == ["W"] and list(done["ready"]) == ["E"] and done["not_ready"] == ["N"]
    assert done["refunds"] == {"W": 4}  # W, not ready, gives back its 下雨
    assert sum(done["by_wind"].values()) == 0 and done["by_wind"]["E"] > 0 and done["by_wind"]["W"] < 0
    row = compute(state)["rows"][-1]
    assert row["exhaustive_points"]["2"] == done["by_wind"].get("S", 0) == 0  # S (chair 2) is out
    assert sum(row["points"].values()) == 0
    # W's 下雨 and its refund cancel on the sheet
    assert row["kong_points"]["3"] == 4 and done["deltas"]["3"] <= -4
    view = public_view(state)
    assert view["exhaustive"]["flower_pigs"] == ["W"]
    assert all("hands" not in a for a in view["actions"]) and "hands" in referee_view(state)["actions"][-1]
    ev = public_event({"type": "referee.exhaustive", "data": {"hands": hands, "by": "referee"}})
    assert "hands" not in ev["data"]


def test_exhaustive_is_refused_where_the_ruleset_settles_nothing_at_a_draw() -> None:
    log = Log("mcr")
    log.start()
    log.add("operator", "operator.hand_end", {"hand_no": 1, "result": "draw"})
    hands = {w: {"concealed": "1m 2m 3m 4m 5m 6m 7m 8m 9m 1p 1p 1p 2p".split()} for w in "ESWN"}
    with pytest.raises(RefereeError, match="不查叫"):
        validate(log.state(), "referee.exhaustive", {"hands": hands})


def test_a_robbed_kong_is_not_paid_and_goes_back_to_a_pung_until_the_win_is_undone() -> None:
    """竞技 抢杠和: W adds the fourth 5p to its pung (补杠, paid on the spot); N wins on that 5p. The
    kong never stood: no kong payment, the pung is back, the replacement was not drawn."""
    log = Log("jingji")
    log.start()
    play(log, "deal_done")
    play(log, "discard", seat="E", tile="1z")
    play(log, "discard", seat="S", tile="5p")
    play(log, "claim", seat="W", kind="pung", tiles=["5p"] * 3, **{"from": "S"})
    play(log, "discard", seat="W", tile="9m")
    play(log, "discard", seat="N", tile="9s")
    play(log, "discard", seat="E", tile="2z")
    play(log, "discard", seat="S", tile="3z")
    play(log, "kong", seat="W", tiles=["5p"] * 4, added=True)
    paid = log.state().hand
    assert [k["kind"] for k in paid["kong_payments"]] == ["added"]
    before = compute(log.state())["rows"][-1]["kong_points"]
    assert before["3"] > 0  # W (chair 3) was paid for it
    conf = read_and_confirm(log, win("N", "1m 2m 3m 4m 5m 6m 7m 8m 9m 3p 4p 9s 9s", "5p", "rob_kong", discarder="W"))
    hand = log.state().hand
    assert hand["kong_payments"] == [] and hand["melds"]["W"][0]["type"] == "pung"
    assert hand["melds"]["W"][0]["tiles"] == ["5p"] * 3
    assert hand["tail_drawn"] == paid["tail_drawn"] - 1  # the replacement was never drawn
    row = compute(log.state())["rows"][-1]
    assert row["kong_points"] == {p: 0 for p in "1234"} and row["points"] == row["win_points"]
    assert nz(conf["by_wind"]) and set(nz(conf["by_wind"])) == {"N", "W"}  # the konger pays 抢杠和
    log.ref("referee.undo", reason="抢杠读错", target=conf["seq"])
    hand = log.state().hand
    assert hand["melds"]["W"][0]["type"] == "kong" and [k["kind"] for k in hand["kong_payments"]] == ["added"]
    assert compute(log.state())["rows"][-1]["kong_points"] == before


def test_the_camera_reads_a_second_winner_on_the_discard_already_won_on() -> None:
    """一炮多响 in 血战: after S's win on E's 4p, N's hand laid down reads as a win on that same 4p."""
    from table_controller.camera_record import win_hand

    log = Log("sichuan")
    sichuan_hand(log)
    read_and_confirm(log, win("S", S_WINS, "4p", discarder="E"))
    laid = "4m 5m 6m 7m 8m 9m 2p 3p 6p 6p 6p 7p 7p".split()
    read = win_hand(log.state().hand, "N", laid)
    assert (read["discarder"], read["win_tile"], read["win"]) == ("E", "4p", "discard")
    n_win = read_and_confirm(log, read)
    assert nz(n_win["by_wind"]) == {"N": 1, "E": -1}  # the discarder pays each winner
    assert winners(log.state().actions, 1) == ["S", "N"]


def test_blood_river_checks_all_four_at_a_draw_and_a_newer_ruling_or_an_undo_replaces_it() -> None:
    log = Log("xueliu")
    sichuan_hand(log)
    read_and_confirm(log, win("S", S_WINS, "4p", discarder="E"))  # 血流: S stays in the hand
    log.add("operator", "operator.hand_end", {"hand_no": 1, "result": "draw"})
    ready = {"concealed": "1m 1m 2m 3m 4m 6m 7m 8m 5p 6p 7p 9p 9p".split()}
    pig = {"concealed": "1m 3m 5m 7m 9m 2p 4p 6p 8p 1s 3s 5s 9s".split()}
    with pytest.raises(PenaltyError, match="E、S、W、N"):
        validate(log.state(), "referee.exhaustive", {"hands": {"E": ready, "W": ready, "N": pig}})
    log.ref("referee.exhaustive", hands={"E": ready, "S": ready, "W": ready, "N": pig})
    first = compute(log.state())["rows"][-1]["exhaustive_points"]
    assert first["4"] < 0 and sum(first.values()) == 0  # N (chair 4) the 花猪 pays the three others
    log.ref("referee.exhaustive", hands={"E": ready, "S": ready, "W": pig, "N": pig})  # read again: W too
    second = compute(log.state())["rows"][-1]["exhaustive_points"]
    assert second != first and second["3"] < 0 and second["4"] < 0
    log.ref("referee.undo", reason="重新查叫", target=log.state().actions[-1]["seq"])
    assert compute(log.state())["rows"][-1]["exhaustive_points"] == first


def test_a_seat_that_let_its_winning_tile_go_by_may_not_win_on_it_until_it_moves() -> None:
    """广东 漏和: N waits on 2p; S's 2p goes by; W's 2p right after is not N's to win. Once N has
    moved (discarded), a later 2p is."""
    n_hand = "1m 2m 3m 4m 5m 6m 7m 8m 9m 1p 1p 1p 2p".split()
    log = Log("jipinghu")
    log.start()
    play(log, "deal_done")
    play(log, "discard", seat="E", tile="1z")
    play(log, "discard", seat="S", tile="2p")          # N could win: it lets it go by
    play(log, "discard", seat="W", tile="2p")
    log.ref("referee.win_read", hand=win("N", " ".join(n_hand), "2p", discarder="W"))
    result = log.state().actions[-1]["result"]
    assert not result["valid"] and result["reason"] == "missed_win" and "漏和" in result["message"]
    with pytest.raises(RefereeError, match="漏和"):
        validate(log.state(), "referee.win_confirm", {})
    play(log, "discard", seat="N", tile="9s")           # N moves (drew and discarded)
    play(log, "discard", seat="E", tile="2p")
    read_and_confirm(log, win("N", " ".join(n_hand), "2p", discarder="E"))
    # a ruleset without 漏和 (MCR) lets the same win stand
    mcr = Log("mcr")
    mcr.start()
    play(mcr, "deal_done")
    for seat in "ESW":
        play(mcr, "discard", seat=seat, tile="2p" if seat != "E" else "1z")
    mcr.ref("referee.win_read", hand=win("N", " ".join(n_hand), "2p", discarder="W"))
    assert mcr.state().actions[-1]["result"]["valid"]


def _claimable(hand: dict[str, Any], seat: str) -> bool:
    """The seat's newest discard is not past claiming by a win since (`controller._passed_by`)."""
    return int(hand.get("won_seq") or 0) < int(hand["discards"][seat][-1]["seq"])


def test_a_blood_battle_win_undone_after_play_went_on_leaves_the_turn_and_the_draws_and_confirmed_again_is_as_it_was(
) -> None:
    log = Log("sichuan")
    sichuan_hand(log)
    read_and_confirm(log, win("S", S_WINS, "4p", discarder="E"))   # S is out, W plays next
    play(log, "discard", seat="W", tile="1s")                     # W drew and discarded
    play(log, "discard", seat="N", tile="2s")                     # N too: E is to draw
    before = log.state().hand
    assert before["turn"]["seat"] == "E" and before["live_drawn"] == 2 and _claimable(before, "N")
    conf = [a for a in log.state().actions if a["type"] == "referee.win_confirm"][-1]
    log.ref("referee.undo", reason="读错了", target=conf["seq"])
    hand = log.state().hand
    # the win is gone (S plays again, E's 4p back in the pool), the draws W and N made and the turn stand
    assert hand["out"] == [] and not hand["discards"]["E"][-1]["claimed"]
    assert hand["live_drawn"] == 2 and hand["turn"]["seat"] == "E" and hand["pending_draw"]
    log.ref("referee.win_confirm")                                 # the referee confirms it again
    again = log.state().hand
    for key in ("out", "live_drawn", "pending_draw", "discards"):
        assert again[key] == before[key], key
    assert again["turn"]["seat"] == "E" and _claimable(again, "N")


def test_a_blood_battle_win_undone_after_play_went_on_is_read_again_on_its_own_discard() -> None:
    """S's win on E's 4p is confirmed (S is out), W later throws a 4p nobody takes, and the referee undoes the
    confirmation to put the read right. The read again, naming E, was refused (`wrong_discarder`: 记录中最后打出四筒的是
    西家) though S, out by then, never could have won on W's 4p; it stands, and confirmed, E's 4p is the one won on.
    A read naming another seat than the undone win's is still held against the record."""
    log = Log("sichuan")
    sichuan_hand(log)
    read_and_confirm(log, win("S", S_WINS, "4p", discarder="E"))   # S is out
    for seat, tile in (("W", "1s"), ("N", "2s"), ("E", "3s"), ("W", "4p")):
        play(log, "discard", seat=seat, tile=tile)
    conf = [a for a in log.state().actions if a["type"] == "referee.win_confirm"][-1]
    log.ref("referee.undo", reason="读错了，重读", target=conf["seq"])
    log.ref("referee.win_read", hand=win("S", S_WINS, "4p", discarder="N"))
    assert log.state().actions[-1]["result"]["reason"] == "wrong_discarder"
    log.ref("referee.win_read", hand=win("S", S_WINS, "4p", discarder="E"))
    result = log.state().actions[-1]["result"]
    assert result["valid"] is True, result
    log.ref("referee.win_confirm")
    pools = log.state().hand["discards"]
    assert (pools["E"][0]["tile"], pools["E"][0].get("won_by")) == ("4p", "S")
    assert not pools["W"][-1]["claimed"]


def confirmed_again_after_a_second_4p() -> Log:
    """血流: S's win on E's 四筒 confirmed, play going on to E's second 四筒, then the confirmation undone and
    confirmed again on the same read."""
    log = Log("xueliu")
    sichuan_hand(log)                                              # E's 4p
    read_and_confirm(log, win("S", S_WINS, "4p", discarder="E"))   # 血流: S plays on
    for seat, tile in (("W", "1s"), ("N", "2s"), ("E", "4p")):     # E throws a second 4p, nobody takes it
        play(log, "discard", seat=seat, tile=tile)
    conf = [a for a in log.state().actions if a["type"] == "referee.win_confirm"][-1]
    log.ref("referee.undo", reason="读错了", target=conf["seq"])
    log.ref("referee.win_confirm")
    return log


def test_a_win_confirmed_again_after_the_discarder_threw_the_same_tile_again_marks_the_discard_won_on() -> None:
    log = confirmed_again_after_a_second_4p()
    pool = log.state().hand["discards"]["E"]
    assert [(d["tile"], d["claimed"], d.get("won_by")) for d in pool] == [("4p", True, "S"), ("4p", False, None)]


def _to_the_last_tile(log: Log) -> str:
    """Discards in turn until the seat in turn is to draw the wall's last tile (海底); that seat."""
    tiles = [f"{r}{s}" for s in "smp" for r in range(1, 10)]
    i = 0
    while not (log.state().hand["tiles_left"] == 1 and log.state().hand["pending_draw"]):
        hand = log.state().hand
        seat, tile = hand["turn"]["seat"], tiles[i % len(tiles)]
        assert _play_problem(hand, "play.discard", {"seat": seat, "tile": tile}) is None
        play(log, "discard", seat=seat, tile=tile)
        i += 1
    return log.state().hand["turn"]["seat"]


@pytest.mark.parametrize("ruleset, result", [("sichuan", "draw"), ("sichuan", "win"), ("xueliu", "win")])
def test_a_win_on_the_walls_last_tile_leaves_the_seats_still_playing_to_the_check(ruleset: str, result: str) -> None:
    """血战/血流 play on to the wall's end (seed 000 "摸完最后一张牌"): S wins early, a seat on the 海底, and
    the seats still playing are checked (查叫) however 结束本盘 named the hand. Before, a hand ended 和牌 at
    the wall's end refused the check (本盘不是荒牌) and its seats escaped 查花猪 and 退税."""
    log = Log(ruleset)
    sichuan_hand(log)
    read_and_confirm(log, win("S", S_WINS, "4p", discarder="E"))
    last = _to_the_last_tile(log)  # 血战 skips S: W draws it; 血流 E
    assert last == ("W" if ruleset == "sichuan" else "E")
    read_and_confirm(log, win(last, {"W": W_WINS, "E": S_WINS}[last], {"W": "8p", "E": "1p"}[last], "self_draw"))
    assert log.state().hand["tiles_left"] == 0
    log.add("operator", "operator.hand_end", {"hand_no": 1, "result": result})
    state = log.state()
    assert referee_view(state)["exhaustive_due"] is True
    playing = ["E", "N"] if ruleset == "sichuan" else ["E", "S", "W", "N"]
    ready = {"concealed": "1m 1m 2m 3m 4m 6m 7m 8m 5p 6p 7p 9p 9p".split()}
    pig = {"concealed": "1m 3m 5m 7m 9m 2p 4p 6p 8p 1s 3s 5s 9s".split()}
    hands = {w: ready for w in playing[:-1]} | {"N": pig}
    validate(state, "referee.exhaustive", {"hands": hands})
    log.ref("referee.exhaustive", hands=hands)
    done = log.state().actions[-1]
    assert "error" not in done and done["flower_pigs"] == ["N"] and sorted(done["ready"]) == playing[:-1]
    assert done["by_wind"]["N"] < 0 and sum(done["by_wind"].values()) == 0
    row = compute(log.state())["rows"][-1]
    assert [w["seat"] for w in row["wins"]] == ["S", last] and row["exhaustive_points"]["4"] < 0


def test_a_hand_ended_by_three_blood_battle_wins_has_no_check() -> None:
    log = Log("sichuan")
    sichuan_hand(log)
    read_and_confirm(log, win("S", S_WINS, "4p", discarder="E"))
    play(log, "discard", seat="W", tile="9m")
    play(log, "discard", seat="N", tile="9m")
    play(log, "discard", seat="E", tile="1p")
    read_and_confirm(log, win("W", W_WINS, "8p", "self_draw"))
    read_and_confirm(log, win("N", N_WINS, "9p", discarder="E"))
    log.add("operator", "operator.hand_end", {"hand_no": 1, "result": "win"})
    state = log.state()
    assert referee_view(state)["exhaustive_due"] is False
    with pytest.raises(RefereeError, match="荒牌"):
        validate(state, "referee.exhaustive", {"hands": {"E": {"concealed": "1m 1m 2m 3m 4m 6m 7m 8m 5p 6p 7p 9p 9p".split()}}})


def test_an_undone_win_stands_for_a_read_again_on_its_own_discard_only_not_for_a_later_one_of_the_same_tile(
) -> None:
    """An undone win's discard stands for a read naming its 点炮方 only where the read is that win read again:
    its very discard (by seq) still in the record, the record's last discard of the tile thrown while it stood.
    Before, any undone win with the same (点炮方, tile) let a read name that seat: S's win on E's 四筒 confirmed and
    undone (a wrong confirmation), S playing on and winning on W's 四筒, the read naming E passed and E paid for a
    discard nobody won on; so under 血流 once the win on E's 四筒 was confirmed again and S won on W's too, and
    under 血战 once E's 四筒 was put right to 五筒 after the undo (E threw no 四筒)."""
    log = Log("sichuan")
    sichuan_hand(log)                                              # E's 4p
    conf = read_and_confirm(log, win("S", S_WINS, "4p", discarder="E"))
    log.ref("referee.undo", reason="确认错了，南家没有和", target=conf["seq"])
    for seat, tile in (("S", "9s"), ("W", "4p")):                 # S plays on; W's 4p is the one S wins on
        play(log, "discard", seat=seat, tile=tile)
    log.ref("referee.win_read", hand=win("S", S_WINS, "4p", discarder="E"))
    result = log.state().actions[-1]["result"]
    assert result["reason"] == "wrong_discarder" and "最后打出四筒的是西家" in result["message"], result
    log.ref("referee.win_read", hand=win("S", S_WINS, "4p", discarder="W"))
    assert log.state().actions[-1]["result"]["valid"] is True

    log = Log("xueliu")                                            # 血流: the undone win confirmed again first
    sichuan_hand(log)
    conf = read_and_confirm(log, win("S", S_WINS, "4p", discarder="E"))
    log.ref("referee.undo", reason="读错了", target=conf["seq"])
    log.ref("referee.win_confirm")                                 # E's 4p won on again, S plays on
    for seat, tile in (("W", "1s"), ("N", "2s"), ("E", "3s"), ("S", "9s"), ("W", "4p")):
        play(log, "discard", seat=seat, tile=tile)
    log.ref("referee.win_read", hand=win("S", S_WINS, "4p", discarder="E"))
    result = log.state().actions[-1]["result"]
    assert result["reason"] == "wrong_discarder", result
    read_and_confirm(log, win("S", S_WINS, "4p", discarder="W"))
    pools = log.state().hand["discards"]
    assert [d.get("won_by") for d in (pools["E"][0], pools["W"][-1])] == ["S", "S"]

    log = Log("sichuan")                                           # 血战: the undone win's discard put right since
    sichuan_hand(log)
    conf = read_and_confirm(log, win("S", S_WINS, "4p", discarder="E"))
    for seat, tile in (("W", "1s"), ("N", "2s"), ("E", "3s"), ("W", "4p")):
        play(log, "discard", seat=seat, tile=tile)
    log.ref("referee.undo", reason="读错了", target=conf["seq"])
    e4p = log.state().hand["discards"]["E"][0]["seq"]
    log.ref("referee.play_correct", target=e4p, tile="5p", reason="东家打的是五筒")
    log.ref("referee.win_read", hand=win("S", S_WINS, "4p", discarder="E"))
    assert log.state().actions[-1]["result"]["reason"] == "wrong_discarder"   # E threw no 四筒 to pay for

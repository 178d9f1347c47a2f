"""Who deals the next hand follows the ruleset's session rules and the wins the referee confirmed."""

from __future__ import annotations

from pathlib import Path

from offline import offline_controller  # type: ignore[import-not-found]

from table_controller.controller import Controller
from table_controller.seating import coming

WIN_BY_DEALER = {"seat_wind": "E", "prevalent_wind": "E", "melds": [],
                 "concealed": "1m 2m 3m 4m 5m 6m 7m 8m 9m 1p 1p 1p 2p".split(),
                 "win_tile": "2p", "win": "discard", "discarder": "S"}




def _next(c: Controller) -> tuple[int, str, bool]:
    """Who deals the coming hand, the round's wind, 倍打 (`seating.coming`, as `start_hand` uses it)."""
    places = coming(c.state.ruleset, c.state.hands, c.state.actions)
    return places.dealer_position, places.prevalent, places.double


def _play_hand(c: Controller, hand_no: int, dealer_wins: bool) -> None:
    dealer, prevalent, double = _next(c)
    seats = {w: (i + dealer - 1) % 4 + 1 for i, w in enumerate("ESWN")}
    c.accept("operator", "operator.hand_start", {"hand_no": hand_no, "ruleset": c.state.ruleset,
                                                 "dealer_position": dealer, "prevalent_wind": prevalent, "seats": seats})
    if dealer_wins:
        c.referee_action("referee.win_read", {"hand": WIN_BY_DEALER}, by="referee")
        c.referee_action("referee.win_confirm", {}, by="referee")
    c.accept("operator", "operator.hand_end", {"hand_no": hand_no, "result": "win" if dealer_wins else "draw"})


def test_mcr_passes_the_deal_every_hand(tmp_path: Path) -> None:
    c = offline_controller(tmp_path, "mcr")
    assert _next(c) == (1, "E", False)
    _play_hand(c, 1, dealer_wins=True)  # no 连庄 in MCR
    assert _next(c)[0] == 2
    for n in range(2, 5):
        _play_hand(c, n, dealer_wins=False)
    assert _next(c) == (1, "S", False)  # the South round


def test_jingji_dealer_keeps_the_deal_and_doubles(tmp_path: Path) -> None:
    c = offline_controller(tmp_path, "jingji")
    _play_hand(c, 1, dealer_wins=True)
    assert _next(c) == (1, "E", True)  # 连庄, 倍打
    _play_hand(c, 2, dealer_wins=False)
    assert _next(c)[:2] == (2, "E")


def test_hainan_keeps_the_dealer_on_a_dealers_win_and_on_a_draw_scored_by_the_referee(tmp_path: Path) -> None:
    """海南 (裁判计分, seed 004): 庄家胡牌继续做庄; 荒庄 the dealer stays too. Its [match] is read
    though the ruleset has no [scoring]."""
    c = offline_controller(tmp_path, "hainan")
    win = {**WIN_BY_DEALER, "options": {"points": 5}}
    dealer, _, _ = _next(c)
    c.accept("operator", "operator.hand_start", {"hand_no": 1, "ruleset": "hainan", "dealer_position": dealer,
                                                 "prevalent_wind": "E", "seats": {"E": 1, "S": 2, "W": 3, "N": 4}})
    c.referee_action("referee.win_read", {"hand": win}, by="referee")
    c.referee_action("referee.win_confirm", {}, by="referee")
    c.accept("operator", "operator.hand_end", {"hand_no": 1, "result": "win"})
    assert _next(c)[0] == 1
    _play_hand(c, 2, dealer_wins=False)
    assert _next(c)[0] == 1  # 荒庄: 庄家继续坐庄


def test_shanghai_the_winner_deals_next(tmp_path: Path) -> None:
    """上海 随意庄 (seed 000 范文七, 003): 谁胡牌，下一轮由他做庄."""
    c = offline_controller(tmp_path, "shanghai")
    c.accept("operator", "operator.hand_start", {"hand_no": 1, "ruleset": "shanghai", "dealer_position": 1,
                                                 "prevalent_wind": "E", "seats": {"E": 1, "S": 2, "W": 3, "N": 4}})
    win = {**WIN_BY_DEALER, "seat_wind": "W", "discarder": "S", "options": {"points": 5}}
    c.referee_action("referee.win_read", {"hand": win}, by="referee")
    c.referee_action("referee.win_confirm", {}, by="referee")
    c.accept("operator", "operator.hand_end", {"hand_no": 1, "result": "win"})
    assert _next(c)[0] == 3  # W sat in chair 3


def test_riichi_a_ready_dealer_keeps_the_deal_at_a_draw(tmp_path: Path) -> None:
    """日本麻将 听牌连庄: at 流局 the dealer keeps the deal when the 查叫 ruling finds it ready, and
    passes it when not."""
    from table_controller.tiles import parse_tiles

    c = offline_controller(tmp_path, "riichi")
    for hand_no, dealer_ready in ((1, True), (2, False)):
        dealer, _, _ = _next(c)
        seats = {w: (i + dealer - 1) % 4 + 1 for i, w in enumerate("ESWN")}
        c.accept("operator", "operator.hand_start", {"hand_no": hand_no, "ruleset": "riichi", "dealer_position": dealer,
                                                     "prevalent_wind": "E", "seats": seats})
        c.accept("operator", "operator.hand_end", {"hand_no": hand_no, "result": "draw"})
        shown = parse_tiles("22444m333567p44s") if dealer_ready else parse_tiles("13579m2468p135s7z")
        c.referee_action("referee.exhaustive", {"hands": {"E": {"concealed": shown}, "S": {"concealed": []},
                                                          "W": {"concealed": []}, "N": {"concealed": []}}}, by="referee")
        assert _next(c)[0] == (1 if dealer_ready else 2), hand_no

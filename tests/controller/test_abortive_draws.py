"""途中流局 on the live riichi table: which abortive draws the record shows (四风连打, 四家立直, 四杠散了),
九种九牌 on a seat's first draw before any call, and what follows (the dealer deals again, the 立直棒
stay on the table for the next winner)."""

from __future__ import annotations

from typing import Any

import pytest

from table_controller.hand.abortive import kinds_of, refusal, terminal_kinds
from table_controller.scoresheet import compute
from table_controller.scoring.config import flow
from table_controller.seating import for_state
from table_controller.tiles import parse_tiles

from test_referee_fold import Log  # type: ignore[import-not-found]

KINDS = kinds_of(flow("riichi"))


def _table(*plays: tuple[str, ...]) -> Log:
    """A riichi hand dealt by chair 1, then `plays`: (seat, tile) discards, (seat, "riichi"), or
    (seat, "pung"/"kong"/"ankan", tile, from)."""
    log = Log("riichi")
    log.start()
    log.throw()
    log.add("demo", "play.deal_done", {"by": "demo"})
    for p in plays:
        seat, what = p[0], p[1]
        if what == "riichi":
            log.add("demo", "play.riichi", {"seat": seat})
        elif what == "pung":
            log.add("demo", "play.claim", {"seat": seat, "kind": "pung", "tiles": [p[2]] * 3, "from": p[3]})
        elif what == "kong":
            log.add("demo", "play.claim", {"seat": seat, "kind": "kong", "tiles": [p[2]] * 4, "from": p[3]})
        elif what == "ankan":
            log.add("demo", "play.kong", {"seat": seat, "tiles": [p[2]] * 4, "concealed": True})
        else:
            log.add("demo", "play.discard", {"seat": seat, "tile": what})
    return log


def _hand(log: Log) -> dict[str, Any]:
    return log.state().hand


def test_riichi_lists_the_four_standard_abortive_draws_and_mcr_none() -> None:
    assert KINDS == ("nine_terminals", "four_winds", "four_riichi", "four_kongs")
    assert kinds_of(flow("mcr")) == ()
    assert "本规则无" in (refusal(_hand(_table()), "four_winds", kinds_of(flow("mcr"))) or "")


def test_four_winds_is_four_first_discards_of_one_wind_with_no_call() -> None:
    winds = _table(("E", "1z"), ("S", "1z"), ("W", "1z"), ("N", "1z"))
    assert _hand(winds)["abortive_shown"] == ["four_winds"]
    assert refusal(_hand(winds), "four_winds", KINDS) is None
    assert _hand(_table(("E", "1z"), ("S", "1z"), ("W", "1z")))["abortive_shown"] == []
    other = _table(("E", "1z"), ("S", "1z"), ("W", "1z"), ("N", "2z"))
    assert "同一风牌" in (refusal(_hand(other), "four_winds", KINDS) or "")
    dragons = _table(("E", "5z"), ("S", "5z"), ("W", "5z"), ("N", "5z"))  # 白 is no wind
    assert refusal(_hand(dragons), "four_winds", KINDS) is not None
    called = _table(("E", "1z"), ("S", "1z"), ("W", "pung", "1z", "S"), ("W", "1z"), ("N", "1z"))
    assert "无人鸣牌" in (refusal(_hand(called), "four_winds", KINDS) or "")
    late = _table(("E", "9p"), ("S", "1z"), ("W", "1z"), ("N", "1z"), ("E", "1z"))
    assert refusal(_hand(late), "four_winds", KINDS) is not None


def test_four_riichi_and_four_kongs_by_more_than_one_seat() -> None:
    three = [(w, t) for w, t in (("E", "9p"), ("S", "9s"), ("W", "9m"))] + [("E", "riichi"), ("S", "riichi"),
                                                                          ("W", "riichi")]
    log = _table(*three)
    assert "3家立直" in (refusal(_hand(log), "four_riichi", KINDS) or "")
    log = _table(*three, ("N", "1m"), ("N", "riichi"))
    assert _hand(log)["abortive_shown"] == ["four_riichi"]
    kongs = _table(("E", "ankan", "1m"), ("E", "9p"), ("S", "kong", "9p", "E"), ("S", "ankan", "2p"),
                   ("S", "1s"))
    assert "3个杠" in (refusal(_hand(kongs), "four_kongs", KINDS) or "")
    kongs.add("demo", "play.kong", {"seat": "W", "tiles": ["4z"] * 4, "concealed": True})
    assert refusal(_hand(kongs), "four_kongs", KINDS) is None and "four_kongs" in _hand(kongs)["abortive_shown"]
    alone = _table(*[("E", "ankan", t) for t in ("1m", "2m", "3m", "4m")])
    assert "四杠子" in (refusal(_hand(alone), "four_kongs", KINDS) or "")  # one seat's four: it plays on


NINE = parse_tiles("19m19p19s123z23456m")  # 1m 9m 1p 9p 1s 9s 东南西: nine kinds, 14 tiles


def test_nine_terminals_on_the_seats_first_draw_before_any_call() -> None:
    assert terminal_kinds(NINE) == 9
    assert refusal(_hand(_table()), "nine_terminals", KINDS, "E", NINE) is None  # the dealer's first turn
    w_turn = _table(("E", "5m"), ("S", "6m"))
    assert refusal(_hand(w_turn), "nine_terminals", KINDS, "W") is None
    assert "第一次摸牌" in (refusal(_hand(w_turn), "nine_terminals", KINDS, "N") or "")  # not N's turn yet
    assert "第一次摸牌" in (refusal(_hand(w_turn), "nine_terminals", KINDS, "E") or "")  # E has discarded
    called = _table(("E", "5m"), ("S", "pung", "5m", "E"), ("S", "6m"))
    assert "无人鸣牌" in (refusal(_hand(called), "nine_terminals", KINDS, "W") or "")
    eight = parse_tiles("19m19p19s12z234567m")
    assert "只有8种" in (refusal(_hand(_table()), "nine_terminals", KINDS, "E", eight) or "")
    assert "14张" in (refusal(_hand(_table()), "nine_terminals", KINDS, "E", NINE[:13]) or "")
    assert "座位" in (refusal(_hand(_table()), "nine_terminals", KINDS, None) or "")


def test_after_an_abortive_draw_the_dealer_deals_again_and_the_sticks_go_to_the_next_winner() -> None:
    """Hand 1: E (chair 1) declared riichi, then four winds: 流局（四风连打）, no points but E's 立直棒 down.
    Hand 2: chair 1 deals again; S wins and takes the stick carried over. Hand 3 after a non-dealer's win:
    chair 2 deals."""
    log = _table(("E", "1z"), ("E", "riichi"), ("S", "1z"), ("W", "1z"), ("N", "1z"))
    log.add("operator", "operator.hand_end", {"hand_no": 1, "result": "abortive", "abortive": "four_winds"})
    state = log.state()
    assert state.hands[-1]["abortive"] == "four_winds"
    row = compute(state)["rows"][-1]
    assert row["result_zh"] == "流局（四风连打）" and row["abortive"] == "four_winds"
    assert row["points"] == {"1": -1000, "2": 0, "3": 0, "4": 0} and compute(state)["riichi_pot"] == 1
    assert for_state(state).dealer_position == 1
    log.start(hand_no=2, dealer=1)
    log.throw()
    log.add("demo", "play.deal_done", {"by": "demo"})
    log.add("demo", "play.discard", {"seat": "E", "tile": "4s"})
    log.ref("referee.win_read", hand={"seat_wind": "S", "concealed": parse_tiles("22444m333567p44s"),
                                      "win_tile": "4s", "win": "discard", "discarder": "E", "options": {"riichi": True}})
    assert log.state().actions[-1]["result"]["valid"], log.state().actions[-1]["result"]
    log.ref("referee.win_confirm")
    log.add("operator", "operator.hand_end", {"hand_no": 2, "result": "win"})
    sheet = compute(log.state())
    assert sheet["rows"][-1]["riichi_points"]["2"] == 1000 and sheet["riichi_pot"] == 0
    assert for_state(log.state()).dealer_position == 2


@pytest.mark.parametrize("keep", [True, False])
def test_a_ruleset_may_pass_the_deal_after_an_abortive_draw(keep: bool) -> None:
    from table_controller.hand.match import MatchRules, next_hand, start

    rules = MatchRules.from_table("riichi", {"continue_dealer": True, "continue_on_abortive": keep})
    m, notes = next_hand(start(rules), [], abortive=True)
    assert m.dealer_position == (1 if keep else 2)
    assert MatchRules.for_ruleset("riichi").continue_on_abortive

"""A riichi session (半荘) as a riichi table plays it: the East and South rounds, the dealer keeping the deal on a
win and on a ready 流局 (连庄, 本场), and the session over once the South round's last dealer does not keep it
(オーラス); the sticks still on the table to the first, the points held adding up to the four starts. Keyed on a
live controller with a real SQLite log, as an operator and a referee key them."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterator

import pytest

from offline import offline_controller  # type: ignore[import-not-found]

from table_controller.controller import ActionError, Controller
from table_controller.hand.match import MatchRules, next_hand, start
from table_controller.scoresheet import compute
from table_controller.tiles import parse_tiles

#: 查叫 hands: E ready on 1p/4p, the others not ready (no tile five times over the four)
READY = parse_tiles("123456789m1123p")
NOTEN = {"S": parse_tiles("2468s2468p1357m9m"), "W": parse_tiles("1357s1357p2468m5z"),
         "N": parse_tiles("9s9s5s6z6z7z7z1z2z3z4z5z6z")}


@pytest.fixture
def table(tmp_path: Path) -> Iterator[Controller]:
    c = offline_controller(tmp_path, "riichi", {"1": "甲", "2": "乙", "3": "丙", "4": "丁"})
    yield c
    c.store.close()


def _start(c: Controller) -> dict[str, Any]:
    """The next hand as `start_hand` records it (its places from `Controller._coming`, refused once the session
    is over), the dice thrown and the tiles dealt."""
    places = c._coming()
    hand_no = c.state.hands_played + 1
    c.accept("operator", "operator.hand_start", {
        "hand_no": hand_no, "by": "op", "ruleset": "riichi", "dealer_position": places.dealer_position,
        "prevalent_wind": places.prevalent, "seats": places.seats(),
        **({"honba": places.honba} if places.honba else {})})
    while c.state.hand["deal"] is None and c.state.hand["next_thrower"]:
        seat = c.state.hand["next_thrower"]
        c.accept("table", "table.dice", {"seat": seat, "wind": seat, "dice": [3, 4]})
    c.record_play("play.deal_done", {}, by="op")
    return c.state.hand


def _draw(c: Controller, dealer_ready: bool, riichi: str | None = None) -> None:
    """A hand to 荒牌 (S declaring 立直 first where told), the 查叫 ruled: E ready or nobody."""
    _start(c)
    c.record_play("play.discard", {"seat": "E", "tile": "9p"}, by="op")
    c.record_play("play.discard", {"seat": "S", "tile": "1z"}, by="op")
    if riichi:
        c.record_play("play.riichi", {"seat": riichi}, by="op")
    c.accept("operator", "operator.hand_end", {"hand_no": c.state.hand["hand_no"], "result": "draw"})
    hands = {"E": READY if dealer_ready else parse_tiles("1357m2468p1357s1z"), **NOTEN}
    c.referee_action("referee.exhaustive", {"hands": {w: {"concealed": t} for w, t in hands.items()}}, by="ref")


def _dealer_ron(c: Controller) -> dict[str, Any]:
    """The dealer (E) wins 断幺九 on S's 4s."""
    _start(c)
    c.record_play("play.discard", {"seat": "E", "tile": "9p"}, by="op")
    c.record_play("play.discard", {"seat": "S", "tile": "4s"}, by="op")
    c.referee_action("referee.win_read", {"hand": {"seat_wind": "E", "concealed": parse_tiles("22444m333567p44s"),
                                                   "win_tile": "4s", "win": "discard", "discarder": "S"}}, by="ref")
    result = c.state.actions[-1]["result"]
    c.referee_action("referee.win_confirm", {}, by="ref")
    c.accept("operator", "operator.hand_end", {"hand_no": c.state.hand["hand_no"], "result": "win"})
    return result


def _held(c: Controller) -> dict[str, int]:
    sheet = compute(c.state)
    return {p: sheet["start_points"] + v for p, v in sheet["totals"].items()}


def test_the_hand_machine_plays_a_hanchan_to_the_souths_last_dealer() -> None:
    m = start(MatchRules.for_ruleset("riichi"))
    for _ in range(7):  # 东1 .. 南3, each dealer not ready at 荒牌
        m, notes = next_hand(m, [])
        assert not m.over
    assert (m.prevalent, m.dealer_position) == ("S", 4)  # 南4局, オーラス
    m, notes = next_hand(m, ["E"])  # the last dealer wins: 连庄, the session goes on
    assert not m.over and m.honba == 8  # 7 draws, then the dealer's win
    m, notes = next_hand(m, [], ready=["E"])  # ready at 流局: it goes on
    assert not m.over and m.honba == 9
    m, notes = next_hand(m, ["S"])  # another seat wins: the deal would pass, the 半荘 is over
    assert m.over and notes[-1] == {"type": "session_over", "hands": 10}


def test_a_hanchan_ends_when_the_souths_last_dealer_does_not_keep_the_deal(table: Controller) -> None:
    c = table
    _draw(c, dealer_ready=True, riichi="S")  # 东1: E ready (+3000), S's stick on the table; E deals again
    assert (c.state.hands[-1]["prevalent_wind"], c.state.hands[-1]["dealer_position"]) == ("E", 1)
    assert _held(c) == {"1": 28000, "2": 23000, "3": 24000, "4": 24000}
    for _ in range(7):  # 东1 1本场 .. 南3: the dealers not ready, the deal passes each hand
        _draw(c, dealer_ready=False)
    assert c._coming().prevalent == "S" and c._coming().dealer_position == 4 and c._coming().honba == 8
    result = _dealer_ron(c)  # 南4 8本场: chair 4 wins 2000 + 8 × 300, and the 供托 on the table
    assert result["payments"]["E"] == 2000 + 2400
    assert compute(c.state)["rows"][-1]["riichi_taken"] == {"4": 1000}
    places = c._coming()  # 连庄 in the last hand: the session goes on
    assert (places.prevalent, places.dealer_position, places.honba) == ("S", 4, 9)
    _draw(c, dealer_ready=False, riichi="S")  # the last dealer not ready: no hand after this one
    with pytest.raises(ActionError, match="比赛结束"):
        c._coming()
    sheet = compute(c.state)
    assert sheet["final"] and sheet["riichi_pot"] == 0  # S's stick of the last hand went to the first
    assert sheet["rows"][-1]["riichi_leftover"] == 1000
    held = _held(c)
    assert sum(held.values()) == 4 * 25000, held
    assert max(held, key=held.__getitem__) == "4" and sheet["table_points"]["4"] == 4

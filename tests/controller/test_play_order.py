"""The live record takes plays in the order the hand machine (`hand/state.py`) allows them, and refuses the
rest naming why: a flower laid out of turn after the opening, a claim of a discard the table has played past,
a play after the win that ended the hand or after 荒牌. Each was taken before, found by `tests/hand/test_parity.py`."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterator

import pytest

from table_controller.config import parse_config
from table_controller.controller import ActionError, Controller
from table_controller.store import EventStore


async def _no_table(url: str) -> Any:
    raise ConnectionRefusedError(f"nothing at {url}")


@pytest.fixture
def mcr(tmp_path: Path) -> Iterator[Controller]:
    """An MCR hand on a real SQLite log, dealt (dice 3+4, then W's 2+5) and the deal done."""
    cfg = parse_config({"table": {"link": "socket://127.0.0.1:9"}, "rules": {"ruleset": "mcr"}}, "test")
    store = EventStore(tmp_path / "events.sqlite3")
    c = Controller(cfg, store, _no_table)
    c.accept("operator", "operator.hand_start", {"hand_no": 1, "ruleset": "mcr", "dealer_position": 1})
    c.record_dice("E", [3, 4], by="operator")
    c.record_dice("W", [2, 5], by="operator")
    c.record_play("play.deal_done", {}, by="operator")
    yield c
    store.close()


def _play(c: Controller, type_: str, **data: Any) -> None:
    c.record_play("play." + type_, data, by="operator")


def _refused(c: Controller, type_: str, why: str, **data: Any) -> None:
    seq, hand = c.state.seq, c.state.hand
    with pytest.raises(ActionError) as err:
        _play(c, type_, **data)
    assert why in str(err.value)
    assert c.state.seq == seq and c.state.hand == hand  # nothing recorded, nothing changed


def test_a_flower_is_laid_in_the_opening_by_anyone_then_only_by_the_seat_in_turn(mcr: Controller) -> None:
    _play(mcr, "flower", seat="W", tile="1f")  # the opening 补花: every seat in its round
    _play(mcr, "discard", seat="E", tile="1z")
    _play(mcr, "flower", seat="E", tile="2f")  # seen after its discard, nobody has played since: taken
    _play(mcr, "flower", seat="S", tile="3f")  # S drew a flower
    _refused(mcr, "flower", "未轮到北家补花", seat="N", tile="4f")
    _refused(mcr, "flower", "未轮到东家补花", seat="E", tile="4f")  # S has played since E's discard
    _play(mcr, "discard", seat="S", tile="2z")
    _play(mcr, "flower", seat="W", tile="4f")
    assert mcr.state.hand["flowers"] == {"E": ["2f"], "S": ["3f"], "W": ["1f", "4f"], "N": []}


def test_deal_done_once_play_has_begun_is_refused_and_the_turn_stays(mcr: Controller) -> None:
    """配牌完成 sits beside 打出 on the Table page: pressed by a slip mid-hand it gave the turn back to the
    dealer, and every play after it was refused (未轮到西家，现在是东家) until the referee voided it."""
    _refused(mcr, "deal_done", "配牌已完成")  # the dealer is to discard: done already
    _play(mcr, "discard", seat="E", tile="1z")
    _play(mcr, "discard", seat="S", tile="2z")
    _refused(mcr, "deal_done", "配牌已完成，本盘已开始行牌")
    _play(mcr, "discard", seat="W", tile="3z")
    assert mcr.state.hand["turn"]["seat"] == "N"


def test_a_discard_the_table_has_played_past_is_not_claimed(mcr: Controller) -> None:
    _play(mcr, "discard", seat="E", tile="1z")
    _play(mcr, "discard", seat="S", tile="2z")  # S drew: E's 1z was let go
    _refused(mcr, "claim", "东家的这张牌已过", seat="W", kind="pung", **{"from": "E"}, tiles=["1z"] * 3)
    _play(mcr, "flower", seat="W", tile="1f")  # W drew a flower: S's 2z was let go too
    _refused(mcr, "claim", "南家的这张牌已过", seat="N", kind="pung", **{"from": "S"}, tiles=["2z"] * 3)
    _refused(mcr, "claim", "南家的这张牌已过", seat="W", kind="chow", **{"from": "S"}, tiles=["1m", "2m", "3m"])
    _play(mcr, "discard", seat="W", tile="3z")
    _play(mcr, "claim", seat="E", kind="pung", **{"from": "W"}, tiles=["3z"] * 3)  # the newest: taken
    assert mcr.state.hand["turn"]["seat"] == "E"


def test_a_pung_over_a_recorded_chow_says_pung_comes_first_and_the_correction_puts_it_right(mcr: Controller) -> None:
    """Seed 000 范文六 第三条: "'碰'比'吃'优先", "报吃应稍慢些", "'杠'比'吃'优先". S's chow of E's 3m was keyed, and W
    called 碰 with it: W takes the tile. The record says so and how to put it right (the chow replaced by the pung,
    更正牌谱); before, the pung was refused as "东家没有可吃碰的最后一张弃牌", though the 3m lay in S's chow."""
    _play(mcr, "discard", seat="E", tile="3m")
    _play(mcr, "claim", seat="S", kind="chow", **{"from": "E"}, tiles=["1m", "2m", "3m"])
    chow = mcr.state.seq
    _refused(mcr, "claim", "东家的三万已记为南家吃：碰比吃优先，西家同时报碰时请在更正牌谱中把南家的吃换成西家的碰",
             seat="W", kind="pung", **{"from": "E"}, tiles=["3m"] * 3)
    _refused(mcr, "claim", "杠比吃优先", seat="N", kind="kong", **{"from": "E"}, tiles=["3m"] * 4)
    mcr.referee_action("referee.play_correct", {"target": chow, "reason": "西家同时报碰，碰比吃优先", "play": {
        "type": "claim", "seat": "W", "kind": "pung", "from": "E", "tiles": ["3m"] * 3}}, by="referee")
    hand = mcr.state.hand
    assert hand["melds"]["S"] == [] and hand["melds"]["W"][0]["tiles"] == ["3m"] * 3
    assert hand["turn"]["seat"] == "W"
    # once play has gone on (W discarded), a pung of E's 3m is refused as before
    _play(mcr, "discard", seat="W", tile="1z")
    _refused(mcr, "claim", "东家没有可吃碰的最后一张弃牌", seat="N", kind="pung", **{"from": "E"}, tiles=["3m"] * 3)


def test_no_kong_between_a_chow_and_the_seats_next_draw(mcr: Controller) -> None:
    """Seed 000 范文五/六 七、开杠: "吃牌时，手中有杠牌，不能开杠。只能在下一次自己抓进牌后才能开杠". Before, the record
    (and the hand machine) took S's 暗杠 or 补杠 right after its chow."""
    _play(mcr, "discard", seat="E", tile="1z")
    _play(mcr, "claim", seat="W", kind="pung", **{"from": "E"}, tiles=["1z"] * 3)
    _play(mcr, "discard", seat="W", tile="5p")
    _play(mcr, "discard", seat="N", tile="3m")
    _play(mcr, "discard", seat="E", tile="6p")
    _play(mcr, "claim", seat="S", kind="chow", **{"from": "E"}, tiles=["4p", "5p", "6p"])
    _refused(mcr, "kong", "南家刚吃牌：吃牌时手中有杠牌不能开杠，只能在下一次自己抓进牌后才能开杠",
             seat="S", tiles=["9s"] * 4, concealed=True)
    _play(mcr, "discard", seat="S", tile="2z")
    _play(mcr, "discard", seat="W", tile="3z")
    _play(mcr, "discard", seat="N", tile="4z")
    _play(mcr, "discard", seat="E", tile="7z")
    _play(mcr, "kong", seat="S", tiles=["9s"] * 4, concealed=True)  # S drew: its kong stands
    assert mcr.state.hand["melds"]["S"][-1]["tiles"] == ["9s"] * 4


def test_a_claim_keyed_after_the_claimers_own_discard_still_stands(mcr: Controller) -> None:
    """The record catching up (a pung the camera did not see), not a late claim (state._claimed_late)."""
    _play(mcr, "discard", seat="E", tile="2p")
    _play(mcr, "discard", seat="S", tile="4p")
    _play(mcr, "claim", seat="S", kind="pung", **{"from": "E"}, tiles=["2p"] * 3)
    assert mcr.state.hand["melds"]["S"][0]["late_seq"] and mcr.state.hand["turn"]["seat"] == "W"


def test_no_play_after_the_win_that_ended_the_hand(mcr: Controller) -> None:
    """MCR: one win ends the hand. The machine refuses every play after it (hand_over); the record took
    them until the operator ended the hand. An undo of the win opens play again."""
    _play(mcr, "discard", seat="E", tile="5m")
    win = {"seat_wind": "S", "prevalent_wind": "E", "win": "discard", "discarder": "E", "win_tile": "5m",
           "concealed": "1m 1m 1m 2m 3m 4m 5m 6m 7m 8m 9m 9m 9m".split()}
    mcr.referee_action("referee.win_read", {"hand": win}, by="referee")
    confirm = mcr.referee_action("referee.win_confirm", {}, by="referee")
    assert mcr.state.hand["winners"] == ["S"] and mcr.state.hand["turn"] is None
    _refused(mcr, "discard", "本盘已和牌结束", seat="S", tile="1z")
    _refused(mcr, "claim", "本盘已和牌结束", seat="W", kind="pung", **{"from": "E"}, tiles=["5m"] * 3)
    _refused(mcr, "flower", "本盘已和牌结束", seat="N", tile="1f")
    _refused(mcr, "kong", "本盘已和牌结束", seat="S", tiles=["2z"] * 4, concealed=True)
    mcr.referee_action("referee.undo", {"target": confirm.seq, "reason": "读错"}, by="referee")
    assert mcr.state.hand["turn"]["seat"] == "S"
    _play(mcr, "discard", seat="S", tile="1z")


def test_blood_battle_a_discard_made_before_a_self_drawn_win_is_past_claiming(sichuan_table: Controller) -> None:
    """四川血战: S drew after E's 1m and won on its own draw; the window on the 1m closed at that draw, though
    play goes on and the 1m is still the newest discard. An undo of the win opens it again."""
    c = sichuan_table
    _play(c, "deal_done")
    _play(c, "missing", seat="S", suit="s")
    _play(c, "discard", seat="E", tile="1m")
    win = {"seat_wind": "S", "prevalent_wind": "E", "win": "self_draw", "win_tile": "5p",
           "options": {"missing_suit": "s"}, "concealed": "1p 1p 1p 2p 3p 4p 5p 6p 7p 8p 9p 9p 9p".split()}
    c.referee_action("referee.win_read", {"hand": win}, by="referee")
    confirm = c.referee_action("referee.win_confirm", {}, by="referee")
    assert c.state.hand["out"] == ["S"] and c.state.hand["turn"]["seat"] == "W"
    _refused(c, "claim", "其后已有人和牌", seat="W", kind="pung", **{"from": "E"}, tiles=["1m"] * 3)
    c.referee_action("referee.undo", {"target": confirm.seq, "reason": "读错"}, by="referee")
    _play(c, "claim", seat="W", kind="pung", **{"from": "E"}, tiles=["1m"] * 3)


def test_no_play_that_needs_a_draw_once_the_wall_is_exhausted(mcr: Controller) -> None:
    """荒牌 (walls.md: exhausted when no tile is left to draw): after the discard that followed the 海底 the
    next seat cannot draw, so it neither discards, kongs nor lays a flower; the machine ends the hand there
    (the record took the discard and counted a draw past the wall's end). A claim of that discard draws
    nothing and stands."""
    kinds = [f"{n}{s}" for s in "mpsz" for n in range(1, 10) if f"{n}{s}" not in ("4m", "5m", "6m", "8z", "9z")] * 4
    i = 0
    while not (mcr.state.hand.get("tiles_left") == 1 and mcr.state.hand.get("pending_draw")):
        _play(mcr, "discard", seat=mcr.state.hand["turn"]["seat"], tile=kinds[i])
        i += 1
    _play(mcr, "discard", seat=mcr.state.hand["turn"]["seat"], tile="5m")  # drew the 海底 and let it go
    seat = mcr.state.hand["turn"]["seat"]
    _refused(mcr, "discard", "荒牌", seat=seat, tile="1z")
    _refused(mcr, "flower", "荒牌", seat=seat, tile="1f")
    _refused(mcr, "kong", "牌墙已无牌", seat=seat, tiles=["2z"] * 4, concealed=True)
    _play(mcr, "claim", seat=seat, kind="chow", **{"from": BEFORE[seat]}, tiles=["4m", "5m", "6m"])  # draws nothing
    assert mcr.state.hand["tiles_left"] == 0 and "error" not in mcr.state.hand["wall_now"]
    _play(mcr, "discard", seat=seat, tile="4m")  # and its discard after the claim is no draw either


BEFORE = {"E": "N", "S": "E", "W": "S", "N": "W"}


def test_no_play_after_a_flower_drawn_as_the_haidi(tmp_path: Path) -> None:
    """A 海底 that is a flower is laid out unreplaced and the hand is 荒牌 (walls.md; the machine ends it
    there): its seat, holding one tile short, does not discard after it (the record took the discard)."""
    cfg = parse_config({"table": {"link": "socket://127.0.0.1:9"}, "rules": {"ruleset": "jingji"}}, "test")
    c = Controller(cfg, EventStore(tmp_path / "events.sqlite3"), _no_table)
    c.accept("operator", "operator.hand_start", {"hand_no": 1, "ruleset": "jingji", "dealer_position": 1})
    c.record_dice("E", [3, 4], by="operator")
    _play(c, "deal_done")
    kinds = [f"{n}{s}" for s in "mpsz" for n in range(1, 10) if f"{n}{s}" not in ("8z", "9z")] * 4
    i = 0
    while not (c.state.hand.get("tiles_left") == 1 and c.state.hand.get("pending_draw")):
        _play(c, "discard", seat=c.state.hand["turn"]["seat"], tile=kinds[i])
        i += 1
    seat = c.state.hand["turn"]["seat"]
    _play(c, "flower", seat=seat, tile="5f")  # the 海底, a flower: no replacement
    assert c.state.hand["tiles_left"] == 0 and c.state.hand["flower_unreplaced"] == seat
    _refused(c, "discard", "荒牌", seat=seat, tile=kinds[i])
    _refused(c, "flower", "荒牌", seat=seat, tile="6f")

"""The 海底 on the live record: walls.md "海底: the last drawable tile". A win read from the record
says `last_tile` exactly when the winner took that tile (self-drawn) or won on the discard made
after it; before, a self-drawn win on the 海底 was read as an ordinary self-draw (the winner's draw
was not yet counted, so one tile still seemed to stand)."""

from __future__ import annotations

from typing import Any

import pytest

from table_controller.camera_record import win_hand
from table_controller.state import fold
from table_controller.store import Event

KINDS = [f"{n}{s}" for s in "mps" for n in range(1, 10)] * 4


def _play_to(ruleset: str, dice: list[int], left: int, again: tuple[str, list[int]] | None = None) -> list[Event]:
    """Discards in turn until `left` live tiles stand and the seat in turn has still to draw
    (`again`: mcr's second throw, by the seat the dealer's total counts to)."""
    start = {"hand_no": 1, "ruleset": ruleset, "dealer_position": 1}
    events = [Event(1, 0.0, "operator", "operator.hand_start", start),
              Event(2, 1.0, "table", "table.dice", {"seat": "E", "wind": "E", "dice": dice})]
    if again is not None:
        events.append(Event(3, 1.5, "table", "table.dice", {"seat": again[0], "wind": again[0], "dice": again[1]}))
    events.append(Event(len(events) + 1, 2.0, "demo", "play.deal_done", {}))
    i = 0
    while True:
        hand = fold(events).hand
        if hand.get("tiles_left", 999) <= left and hand.get("pending_draw"):
            return events
        seat = hand["turn"]["seat"]
        events.append(Event(len(events) + 1, float(len(events)), "demo", "play.discard",
                            {"seat": seat, "tile": KINDS[i % len(KINDS)]}))
        i += 1


def _read(hand: dict[str, Any], win: str) -> bool:
    seat = hand["turn"]["seat"]  # the seat about to draw: the self-drawer, or 下家 of the discarder
    tile = "1m" if win == "self_draw" else None
    return bool(win_hand(hand, seat, ["1m"] * 14, win, tile)["last_tile"])


@pytest.mark.parametrize("ruleset,dice", [("tuidaohu", [3, 4]), ("hainan", [2, 5]), ("sichuan", [6, 6])])
def test_a_self_drawn_win_on_the_last_drawable_tile_is_on_the_haidi(ruleset: str, dice: list[int]) -> None:
    """hainan keeps 15 tiles back (荒牌 when 15 remain): its 海底 is the last tile before them."""
    hand = fold(_play_to(ruleset, dice, 1)).hand
    assert hand["tiles_left"] == 1 and hand["pending_draw"]
    assert _read(hand, "self_draw") is True
    earlier = fold(_play_to(ruleset, dice, 2)).hand  # two stood: the winner drew the one before the 海底
    assert _read(earlier, "self_draw") is False


def test_a_win_on_the_discard_after_the_haidi_and_not_before() -> None:
    events = _play_to("tuidaohu", [3, 4], 1)
    hand = fold(events).hand
    seat = hand["turn"]["seat"]  # draws the 海底 and discards it
    events.append(Event(len(events) + 1, float(len(events)), "demo", "play.discard", {"seat": seat, "tile": "9s"}))
    after = fold(events).hand
    assert after["tiles_left"] == 0
    assert win_hand(after, "W" if seat != "W" else "N", ["9s"] * 13, "discard")["last_tile"] is True
    assert _read(hand, "discard") is False  # the discard made before the 海底 was drawn


@pytest.mark.parametrize("ruleset,dice,again,replaced", [("jingji", [3, 4], None, False),
                                                         ("mcr", [3, 4], ("W", [2, 5]), False),
                                                         ("hainan", [2, 5], None, True)])
def test_a_flower_drawn_as_the_haidi(ruleset: str, dice: list[int], again: tuple[str, list[int]] | None,
                                     replaced: bool) -> None:
    """walls.md: "The live wall is exhausted (荒牌) when no tile is left to draw". A 海底 that is a
    flower is laid out; with no tile standing it has no replacement and the wall is simply empty
    (before: the replacement was counted anyway and the wall shown in error). 海南 keeps 15 tiles
    back: its replacement comes from them, and no live tile is left either way."""
    events = _play_to(ruleset, dice, 1, again)
    assert fold(events).hand["deal"] is not None
    seat = fold(events).hand["turn"]["seat"]
    events.append(Event(len(events) + 1, float(len(events)), "demo", "play.flower", {"seat": seat, "tile": "1f"}))
    hand = fold(events).hand
    assert "error" not in hand["wall_now"], hand["wall_now"]
    assert hand["tiles_left"] == 0 and hand["wall_now"]["next_draw"] is None
    assert hand["wall_now"]["tail_drawn"] == (1 if replaced else 0)


def test_a_self_drawn_win_takes_its_tile_out_of_the_wall_before_the_horses_are_read() -> None:
    """walls.md tuidaohu 买马: "at the end of a hand the next N tiles of the tail are the horses". A
    self-drawn win on one of the last tiles drew it from the wall: it is no horse and no tile left
    (before: where a win ends the hand the winner's draw was never counted, so with three tiles
    standing the winner's own tile was read as the first of three horses)."""
    from table_controller.referee import flow_of
    from table_controller.state import after_win, undo_win

    hand = fold(_play_to("tuidaohu", [3, 4], 3)).hand
    assert hand["tiles_left"] == 3 and hand["pending_draw"]
    drawn = hand["wall_now"]["next_draw"]
    assert drawn in hand["wall_now"]["hand_end"]  # the three standing tiles, read from the tail
    restore = after_win(hand, {"seat": hand["turn"]["seat"], "win_kind": "self_draw"}, flow_of("tuidaohu"), [], 9.0)
    assert hand["tiles_left"] == 2 and drawn not in hand["wall_now"]["hand_end"]
    assert len(hand["wall_now"]["hand_end"]) == 2
    undo_win(hand, restore)
    assert hand["tiles_left"] == 3 and hand["pending_draw"]
    # on a discard nothing more was drawn
    after_win(hand, {"seat": "E", "win_kind": "discard", "discarder": "N", "win_tile": "1m"},
              flow_of("tuidaohu"), [], 9.0)
    assert hand["tiles_left"] == 3


def test_the_demo_referee_reads_no_horse_from_the_self_drawn_winners_tile() -> None:
    """The demo turns up 买马's horses at the win read, before the record counts the winner's draw:
    a self-drawn winner's tile has left the wall and is no horse (walls.md: the next N tail tiles)."""
    import random

    from table_controller.demo import turned_up
    from table_controller.rules import deal_plan, load_ruleset, physical_wall

    rs = load_ruleset("tuidaohu")
    plan = deal_plan(rs, (3, 4), None)
    wall = physical_wall(rs, None, random.Random(5))
    live = plan.initial_state().live_left
    hand = {"ruleset": "tuidaohu", "wall_now": {"live_drawn": live - 3, "tail_drawn": 0}, "pending_draw": True}
    drawn = plan.state_after(live_drawn=live - 3).next_draw
    standing = plan.state_after(live_drawn=live - 3).hand_end_tiles()
    assert drawn in standing and len(standing) == 3
    assert turned_up(hand, plan, wall) == {"horses": [wall[p] for p in standing]}  # won on a discard
    assert turned_up(hand, plan, wall, self_drawn=True) == {"horses": [wall[p] for p in standing if p != drawn]}


@pytest.mark.parametrize("ruleset,dice,play,reserve", [
    # 海南 1+1: k = S03, the 留牌 the last 15 of the front order (W13b .. S02b), the 海底 W13t; E's opening 补花
    # takes S02t from the tail, so W13t joins the 15 and the 海底 is W12b
    ("hainan", [1, 1], ("play.flower", {"seat": "E", "tile": "1f"}), ["W13t", "W13b", "W14t"]),
    # riichi 1+1 (17-stack walls): k = S03, the dead wall the 7 tail stacks W13 .. S02, 海底 W12b; E's 暗杠 takes
    # the 岭上 S02t
    ("riichi", [1, 1], ("play.kong", {"seat": "E", "tiles": ["1m"] * 4, "concealed": True}), ["W12b", "W13t", "W13b"]),
])
def test_the_reserve_moves_with_the_haidi_on_the_live_record(ruleset: str, dice: list[int],
                                                             play: tuple[str, dict[str, Any]], reserve: list[str]) -> None:
    """walls.md: the live wall is exhausted when only the ruleset's reserve stands (海南 15, riichi's dead wall), and
    the 海底 "moves as replacement tiles are taken from the tail": so does the reserve, still that many tiles. The
    record's `wall_now.dead` is where it stands now, which the Table page marks; before, the page marked the deal's
    (`deal.dead`): after a replacement the old 海底 stood unmarked between the new 海底 and the reserve, and the
    replacement taken was still marked as reserve."""
    start = {"hand_no": 1, "ruleset": ruleset, "dealer_position": 1}
    events = [Event(1, 0.0, "operator", "operator.hand_start", start),
              Event(2, 1.0, "table", "table.dice", {"seat": "E", "wind": "E", "dice": dice}),
              Event(3, 2.0, "demo", play[0], play[1])]
    hand = fold(events).hand
    size = {"hainan": 15, "riichi": 14}[ruleset]
    assert len(hand["deal"]["dead"]) == size and hand["deal"]["dead"][0] == reserve[1]
    now = hand["wall_now"]
    assert now["tail_drawn"] == 1 and now["last_live"] == {"hainan": "W12b", "riichi": "W12t"}[ruleset]
    assert len(now["dead"]) == size and now["dead"][:3] == reserve
    assert "S02t" not in now["dead"] and now["dead"][-1] == "S02b"
    if ruleset == "riichi":  # its 杠宝牌: the 4th tail stack's top beside the 3rd's (W17t); no other ruleset turns one
        assert now["indicators"] == {"dora": ["W17t", "W16t"]}
    else:
        assert "indicators" not in now
    assert "dead" not in fold(_play_to("tuidaohu", [3, 4], 80)).hand["wall_now"]  # no reserve, nothing to move

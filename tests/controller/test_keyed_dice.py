"""Dice keyed by hand: a table whose dice unit reports nothing (remote-control dialect), throws
fewer dice than the ruleset's (a 2-dice table for 广东's three), or faults mid-throw. A throw the
ruleset cannot use is set aside and shown, never leaves the hand without a break, and the
operator's keyed throw counts as the table's would, in the ruleset's order of throwers."""

from __future__ import annotations

from typing import Any

import pytest

from table_controller.controller import ActionError
from table_controller.rules import deal_plan, load_ruleset, next_thrower
from table_controller.state import fold
from table_controller.store import Event

OPERATOR, REFEREE = "op-dice-1357", "ref-dice-2468"


def _start(ruleset: str, table_dice: int = 2) -> list[Event]:
    return [Event(1, 0.0, "operator", "operator.hand_start",
                  {"hand_no": 1, "ruleset": ruleset, "dealer_position": 1, "table_dice": table_dice})]


def _add(events: list[Event], source: str, type_: str, data: dict) -> None:
    events.append(Event(len(events) + 1, float(len(events)), source, type_, data))


def test_a_two_dice_table_under_a_three_dice_rule_is_shown_and_the_keyed_throw_breaks_the_wall() -> None:
    events = _start("guangdong")
    hand = fold(events).hand
    assert hand["dice_count"] == 3 and hand["table_dice"] == 2  # the page asks for keyed dice from the start
    _add(events, "table", "table.dice", {"seat": "E", "wind": "E", "dice": [3, 4]})
    hand = fold(events).hand
    assert hand["deal"] is None and hand["throws"] == [] and hand["next_thrower"] == "E"
    assert "3 dice" in hand["error"] and "key the dice" in hand["error"]
    assert hand["ignored_throws"][0]["dice"] == [3, 4] and "3 dice" in hand["ignored_throws"][0]["reason"]
    _add(events, "operator", "operator.dice", {"seat": "E", "wind": "E", "dice": [3, 4, 5], "by": "operator"})
    hand = fold(events).hand
    assert hand["error"] is None and hand["throws"] == [{"seat": "E", "side": "E", "dice": [3, 4, 5], "keyed": True}]
    assert hand["deal"] == deal_plan(load_ruleset("guangdong"), dice=(3, 4, 5)).to_json()


def test_a_dice_unit_failing_on_mcr_second_throw_the_same_seat_throws_again_by_hand() -> None:
    rs = load_ruleset("mcr")
    events = _start("mcr")
    _add(events, "table", "table.dice", {"seat": "E", "wind": "E", "dice": [2, 3]})
    second = next_thrower(rs, [(2, 3)])
    _add(events, "table", "table.dice", {"seat": second, "wind": second, "dice": [6]})  # one die fell off the unit
    hand = fold(events).hand
    assert hand["next_thrower"] == second and len(hand["throws"]) == 1 and hand["error"]
    _add(events, "operator", "operator.dice", {"seat": second, "wind": second, "dice": [1, 6], "by": "operator"})
    hand = fold(events).hand
    assert hand["error"] is None
    assert hand["deal"] == deal_plan(rs, dice=(2, 3), dice2=(1, 6)).to_json()


def test_a_table_that_reports_no_dice_is_dealt_from_keyed_throws_over_http(offline_client: Any) -> None:
    """A remote-control table says nothing of its dice: the operator keys both of MCR's throws."""
    c = offline_client("mcr", REFEREE, OPERATOR, dealer_position=2, table_dice=0)
    op = {"Authorization": f"Bearer {OPERATOR}"}
    with c:
        assert c.post("/api/dice", json={"seat": "E", "dice": [4, 4]}).status_code in (401, 403)  # a viewer
        r = c.post("/api/dice", json={"seat": "E", "dice": [4, 4]}, headers=op)
        assert r.status_code == 200 and r.json()["type"] == "operator.dice"
        second = c.get("/api/state").json()["hand"]["next_thrower"]
        assert second == next_thrower(load_ruleset("mcr"), [(4, 4)])
        wrong = next(s for s in "ESWN" if s != second)
        r = c.post("/api/dice", json={"seat": wrong, "dice": [1, 2]}, headers=op)
        assert r.status_code == 409 and second in r.json()["detail"]
        for bad in ({"seat": second, "dice": [7, 1]}, {"seat": second, "dice": []}, {"seat": "X", "dice": [1, 2]},
                    {"seat": second, "dice": "12"}, {"seat": second}):
            r = c.post("/api/dice", json=bad, headers=op)
            assert r.status_code == 422 and r.json()["detail"], bad
        seq = c.controller.state.seq  # type: ignore[attr-defined]
        r = c.post("/api/dice", json={"seat": second, "dice": [1, 2, 3]}, headers=op)  # mcr throws two dice
        assert r.status_code == 422 and "2" in r.json()["detail"]
        assert c.controller.state.seq == seq  # type: ignore[attr-defined]  # refused: nothing logged
        assert c.post("/api/dice", json={"seat": second, "dice": [5, 2]}, headers=op).status_code == 200
        state = c.get("/api/state").json()
        assert state["hand"]["deal"] == deal_plan(load_ruleset("mcr"), dice=(4, 4), dice2=(5, 2)).to_json()
        assert [t.get("keyed") for t in state["hand"]["throws"]] == [True, True]
        assert state["hand"]["throws"][0]["side"] == "S"  # chair 2 deals: E sits at the table's side S
        r = c.post("/api/dice", json={"seat": "E", "dice": [1, 1]}, headers=op)  # the break is set
        assert r.status_code == 409
        events = c.get("/api/events").json()
        assert [e["type"] for e in events].count("operator.dice") == 2


def test_record_dice_needs_a_hand_in_play(offline_client: Any) -> None:
    c = offline_client("jingji", REFEREE, OPERATOR, dealer_position=2, table_dice=0)
    c.controller.accept("operator", "operator.hand_end", {"hand_no": 1, "result": "abandoned"})  # type: ignore[attr-defined]
    with pytest.raises(ActionError, match="no hand in play"):
        c.controller.record_dice("E", [1, 2], by="operator")  # type: ignore[attr-defined]


def test_only_a_phase_the_table_reported_while_linked_holds_a_throw_back() -> None:
    """A throw before the walls are up does not count (`state.walls_down`), but only where the table itself says
    so: the host's own `idle` at the link's start (a remote-control board reports no phases), the link down (the
    last phase heard is stale: the walls may have risen since, and the operator keys the throw the players made)
    and a phase this host does not know (an older log's) hold nothing back."""
    events: list[Event] = []
    _add(events, "link", "link.up", {})
    events += [Event(len(events) + 1, 1.0, "operator", "operator.hand_start",
                     {"hand_no": 1, "ruleset": "jingji", "dealer_position": 1, "table_dice": 2})]
    _add(events, "table", "table.dice", {"seat": "E", "wind": "E", "dice": [3, 4]})  # idle, by the host's word
    assert fold(events).hand["deal"] is not None
    for phase in ("idle", "building", "ready", "raising", "lowering"):
        told = events[:2] + [Event(3, 2.0, "table", "table.phase", {"phase": phase})] + [
            Event(4, 3.0, "table", "table.dice", {"seat": "E", "wind": "E", "dice": [3, 4]})]
        s = fold(told)
        assert s.hand["deal"] is None and s.hand["throws"] == [], phase
        assert s.log[-1]["text"].startswith("东家掷骰：3、4（共 7 点）（不计：牌墙尚未升起（牌桌："), s.log[-1]
    down = events[:2] + [Event(3, 2.0, "table", "table.phase", {"phase": "building"}),
                         Event(4, 3.0, "link", "link.down", {"reason": "unplugged"}),
                         Event(5, 4.0, "operator", "operator.dice", {"seat": "E", "wind": "E", "dice": [3, 4]})]
    assert fold(down).hand["deal"] is not None  # keyed with the cable out: counted
    unknown = events[:2] + [Event(3, 2.0, "table", "table.phase", {"phase": "fault"}),
                            Event(4, 3.0, "table", "table.dice", {"seat": "E", "wind": "E", "dice": [3, 4]})]
    assert fold(unknown).hand["deal"] is not None
    up = events[:2] + [Event(3, 2.0, "table", "table.phase", {"phase": "building"}),
                       Event(4, 2.5, "table", "table.phase", {"phase": "walls_raised"}),
                       Event(5, 3.0, "table", "table.dice", {"seat": "E", "wind": "E", "dice": [3, 4]})]
    assert fold(up).hand["deal"] is not None


def test_a_keyed_throw_that_broke_the_wall_stands_against_the_boards_differing_report() -> None:
    """竞技 (one throw): the keyed 3 and 4 broke the wall; the board's late report of that throw reads 3 and 5. It was
    set aside as 本盘骰子已掷完 and nobody was told the table read the dice otherwise; now the line says the reading
    differs and the keyed throw stands, and the hand tells the referee (`dice_dispute`). A second report is a throw
    of its own again (after the break)."""
    events = _start("jingji")
    _add(events, "operator", "operator.dice", {"seat": "E", "wind": "E", "dice": [3, 4], "by": "operator"})
    deal = fold(events).hand["deal"]
    _add(events, "table", "table.dice", {"seat": "E", "wind": "E", "dice": [3, 5]})
    s = fold(events)
    assert s.hand["deal"] == deal and s.hand["dice_dispute"]["reported"] == [3, 5]
    assert s.log[-1]["text"].endswith("（不计：东家此次掷骰已录入（3、4），牌桌所报（3、5）与录入不符，以录入为准）")
    _add(events, "table", "table.dice", {"seat": "E", "wind": "E", "dice": [6, 6]})
    s = fold(events)
    assert s.log[-1]["text"].endswith("（不计：本盘骰子已掷完，已开门）") and s.hand["dice_dispute"]["reported"] == [3, 5]


@pytest.mark.parametrize("before", [
    [("table", "table.fault_raised", {"code": 9, "where": "dice"})],  # the dice unit faulted: it reports nothing
    [("table", "table.dice", {"seat": None, "dice": [2, 3]})],  # the board's report named no side
])
def test_a_throw_keyed_where_the_board_reports_none_leaves_the_next_press_a_throw(
        before: list[tuple[str, str, dict]]) -> None:
    """国标: the dealer's 2 and 3 keyed (a 5: the dealer throws again) where the board will not report it; the
    dealer's next throw on the board, 3 and 2 again, is the second throw, not that report."""
    events = _start("mcr")
    for source, type_, data in before:
        _add(events, source, type_, data)
    _add(events, "operator", "operator.dice", {"seat": "E", "wind": "E", "dice": [2, 3], "by": "operator"})
    _add(events, "table", "table.dice", {"seat": "E", "wind": "E", "dice": [3, 2]})
    hand = fold(events).hand
    assert [th["dice"] for th in hand["throws"]] == [[2, 3], [3, 2]] and hand["deal"] is not None
    assert "dice_dispute" not in hand

"""The table's own controls as players press them, end to end: the simulator's board over a real pty, the
driver, the controller and a real SQLite log. What each press and throw does in each phase, and what the
log (the Table page's lines) says of one the hand does not take: it is kept, said as not counted and why,
and never moves the break."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from simtable import linked_table, until  # type: ignore[import-not-found]

from drivers.messages import SEATS as SIDES
from table_controller.config import parse_config
from table_controller.controller import side_of_wind
from table_controller.service import TableService
from tablesim.physics import Timings

DEBOUNCE_S = Timings.default().debounce  # a button's bounce at the table's own pace: the sped-up ones' is shorter

DICE, BUTTON = 0x92, 0x93  # protocol.md §7: the board's `dice` and `button` events


@pytest.fixture
async def table(tmp_path: Path) -> AsyncIterator[TableService]:
    """A 竞技 table (one throw of two dice) on the simulator, linked."""
    async with linked_table(tmp_path, ruleset="jingji") as service:
        yield service


def logged(service: TableService, type_: str, after: int = 0) -> list[dict[str, Any]]:
    """The log's lines (as the Table page shows them, Chinese and English) of events of `type_` after `after`."""
    c = service.controller
    assert c is not None
    return [line for line in c.state.log if line["type"] == type_ and line["seq"] > after]


def board_event(service: TableService, type_: int, fields: bytes) -> None:
    """The board sends a numbered event with exactly these bytes after `ev` (a faulty board's, too)."""
    assert service.sim is not None
    service.sim.newer_event(type_, fields)


async def walls_up(service: TableService) -> str:
    """Hand 1 started and its walls up; the dealer's side of the table."""
    c = service.controller
    assert c is not None
    await c.start_hand("op")
    await until(lambda: c.state.phase == "walls_raised")
    assert c.state.hand is not None
    return side_of_wind("E", c.state.hand["dealer_position"])


async def test_a_press_and_a_throw_with_no_side_are_logged_and_the_link_stays_up(table: TableService) -> None:
    """A board that names no side (0xFF) in a `button` or a `dice` event mid-hand: it raised in the controller,
    the link was dropped (牌桌连接中断：tuple.index(x): x not in tuple) and the events skipped at the reconnect."""
    c, sim = table.controller, table.sim
    assert c is not None and sim is not None
    dealer = await walls_up(table)
    start = c.state.seq
    board_event(table, BUTTON, bytes([0xFF, 0]))
    board_event(table, DICE, bytes([0xFF, 2, 3, 4]))
    await until(lambda: logged(table, "table.dice", start))
    assert [e.type for e in table.store.since(start) if e.type.startswith("link.")] == []  # type: ignore[union-attr]
    assert logged(table, "table.button", start)[0]["text"] == "牌桌（未报座位）按键：骰子"
    line = logged(table, "table.dice", start)[0]
    assert line["text"] == "牌桌（未报座位）掷骰：3、4（共 7 点）（不计：牌桌未报告掷骰的座位，请录入骰子）", line
    assert line["text_en"].startswith("the table (no seat given) threw: 3, 4 (7) (not counted"), line
    hand = c.state.hand
    assert hand is not None and hand["throws"] == [] and hand["deal"] is None and hand["next_thrower"] == "E"
    sim.press_button(dealer)  # the dealer's own press still throws for the break
    await until(lambda: c.state.hand and c.state.hand["deal"])


async def test_a_throw_the_hand_does_not_take_is_said_in_the_log_and_leaves_the_break(table: TableService) -> None:
    """A faulty board's faces (0 and 7), a press out of turn, a throw after the break and one after the hand's end:
    each is kept and its line says it did not count and why (it read 东家掷骰：5、1（共 6 点） like the throw that
    broke the wall); the break is the dealer's first good throw's."""
    c, sim = table.controller, table.sim
    assert c is not None and sim is not None
    dealer = await walls_up(table)
    other = next(s for s in SIDES if s != dealer)
    start = c.state.seq
    board_event(table, DICE, bytes([SIDES.index(dealer), 2, 0, 7]))  # a dice unit's bad reading
    await until(lambda: logged(table, "table.dice", start))
    line = logged(table, "table.dice", start)[-1]
    assert line["text"] == "东家掷骰：0、7（共 7 点）（不计：骰子点数须为 1 至 6）", line
    assert "not counted" in line["text_en"]
    hand = c.state.hand
    assert hand is not None and hand["throws"] == [] and hand["error"].startswith("骰子点数须为 1 至 6：请重掷或录入骰子")
    sim.press_button(other)  # not the dealer: out of turn
    await until(lambda: len(logged(table, "table.dice", start)) == 2)
    assert logged(table, "table.dice", start)[-1]["text"].endswith("（不计：应由东家掷骰）")
    sim.press_button(dealer)
    await until(lambda: c.state.hand and c.state.hand["deal"])
    hand = c.state.hand
    assert hand is not None and hand["error"] is None and len(hand["throws"]) == 1
    thrown, deal = hand["throws"][0]["dice"], hand["deal"]
    assert "不计" not in logged(table, "table.dice", start)[-1]["text"]
    await asyncio.sleep(2 * DEBOUNCE_S)  # a press of its own, not the last one's bounce
    sim.press_button(dealer)  # again, the break set
    await until(lambda: len(logged(table, "table.dice", start)) == 4)
    assert logged(table, "table.dice", start)[-1]["text"].endswith("（不计：本盘骰子已掷完，已开门）")
    await c.end_hand("op", result="abandoned")
    await asyncio.sleep(2 * DEBOUNCE_S)
    sim.press_button(dealer)  # the hand over, its walls going down
    await until(lambda: len(logged(table, "table.dice", start)) == 5)
    assert logged(table, "table.dice", start)[-1]["text"].endswith("（不计：本盘已结束）")
    hand = c.state.hand
    assert hand is not None and hand["throws"][0]["dice"] == thrown and len(hand["throws"]) == 1 and hand["deal"] == deal
    assert c.state.hands[-1]["throws"] == hand["throws"]


async def test_a_first_dealer_throw_that_does_not_count_says_why(table: TableService) -> None:
    """定庄 (before the round's first hand): a throw once the dealer is chosen, and one with no side."""
    c, sim = table.controller, table.sim
    assert c is not None and sim is not None
    sim.press_button("E")
    await until(lambda: (c.state.first_dealer or {}).get("position"))
    assert "不计" not in logged(table, "table.dice")[-1]["text"]
    await asyncio.sleep(2 * DEBOUNCE_S)
    sim.press_button("E")
    await until(lambda: len(logged(table, "table.dice")) == 2)
    position = c.state.first_dealer["position"]  # type: ignore[index]
    line = logged(table, "table.dice")[-1]
    assert line["text"].endswith(f"（不计：庄家已定（{position}号位））"), line
    assert line["text_en"].endswith("(not counted: the first dealer is chosen)"), line
    board_event(table, DICE, bytes([0xFF, 2, 6, 6]))
    await until(lambda: len(logged(table, "table.dice")) == 3)
    assert logged(table, "table.dice")[-1]["text"] == "牌桌（未报座位）掷骰：6、6（共 12 点）（不计：牌桌未报告掷骰的座位）"
    assert c.state.first_dealer["position"] == position  # type: ignore[index]


async def service_at(tmp_path: Path, ruleset: str, speed: float) -> TableService:
    config = parse_config({"table": {"link": "sim://", "sim_speed": speed}, "rules": {"ruleset": ruleset},
                           "display": {"port": 0, "operator_token": "op-token-1", "referee_token": "ref-token-1"}},
                          source="test")
    service = TableService(config, tmp_path, serve_http=False)
    await service.start()
    assert service.controller is not None
    await service.controller.wait_linked(10)
    return service


async def test_a_bounced_dice_button_throws_once(tmp_path: Path) -> None:
    """The contacts of a button bounce (two presses within milliseconds: the dice unit at ten times its pace, its
    bounce 3 ms): one press, one throw. The board threw twice; under 国标, where the dealer throws again on a
    5 or a 9, the bounce was the second throw."""
    service = await service_at(tmp_path, "mcr", 10)
    c, sim = service.controller, service.sim
    assert c is not None and sim is not None
    try:
        sim.press_button("E")
        sim.press_button("E")
        await until(lambda: logged(service, "table.dice"))
        await asyncio.sleep(0.3)  # twice the dice's settling: no second throw came
        assert len(logged(service, "table.button")) == 1 and len(logged(service, "table.dice")) == 1
    finally:
        await service.stop()


async def test_the_dice_button_pressed_again_while_the_dice_roll_gives_one_throw(tmp_path: Path) -> None:
    """A player presses again before the dice have settled (定庄, the dice unit at ten times its pace: 0.15 s):
    both presses are reported, one throw comes; `roll_dice` meanwhile is refused, not thrown a second time."""
    service = await service_at(tmp_path, "jingji", 10)
    c, sim = service.controller, service.sim
    assert c is not None and sim is not None and c.table is not None
    try:
        sim.press_button("E")
        await asyncio.sleep(2 * DEBOUNCE_S)  # past a bounce, before the dice settle
        sim.press_button("E")
        await until(lambda: logged(service, "table.dice"))
        await asyncio.sleep(0.3)  # twice the settling time: no second throw came
        assert len(logged(service, "table.button")) == 2 and len(logged(service, "table.dice")) == 1
        await c.table.roll_dice("S")
        with pytest.raises(Exception, match="rolling"):
            await c.table.roll_dice("S")  # the first's dice are still rolling
        await until(lambda: len(logged(service, "table.dice")) == 2)
        await asyncio.sleep(0.3)
        assert len(logged(service, "table.dice")) == 2
    finally:
        await service.stop()


async def test_the_boards_report_of_a_throw_keyed_by_hand_is_one_throw_the_first(tmp_path: Path) -> None:
    """国标: the dealer's throw keyed by the operator (the board's report late: its cable out), then the board
    reports that throw. A 5 counts to the dealer, who throws again: the report was taken as that second throw
    and the wall broken on one throw counted twice. It is the same throw: kept, said, not counted; the dealer's
    next press is the second throw."""
    service = await service_at(tmp_path, "mcr", 500)
    c, sim = service.controller, service.sim
    assert c is not None and sim is not None
    try:
        dealer = await walls_up(service)
        start = c.state.seq
        c.record_dice("E", [2, 3], by="op")
        board_event(service, DICE, bytes([SIDES.index(dealer), 2, 3, 2]))  # the same dice, read the other way round
        await until(lambda: len(logged(service, "table.dice", start)) == 1)
        line = logged(service, "table.dice", start)[0]
        assert line["text"] == "东家掷骰：3、2（共 5 点）（不计：东家此次掷骰已录入（2、3），牌桌所报为同一次）", line
        assert "the same throw as the one keyed" in line["text_en"]
        hand = c.state.hand
        assert hand is not None and len(hand["throws"]) == 1 and hand["next_thrower"] == "E" and hand["deal"] is None
        sim.press_button(dealer)  # the dealer's second throw, on the board
        await until(lambda: c.state.hand and c.state.hand["deal"])
        hand = c.state.hand
        assert hand is not None and [th["dice"] for th in hand["throws"]][0] == [2, 3] and len(hand["throws"]) == 2
        assert "不计" not in logged(service, "table.dice", start)[-1]["text"]
    finally:
        await service.stop()


async def test_the_boards_report_differing_from_a_keyed_throw_is_not_a_second_throw(tmp_path: Path) -> None:
    """国标: the operator keys the dealer's 2 and 3 (a 5: the dealer throws again), then the board reports that throw
    read otherwise, 4 and 1 (its dice unit read the faces wrong, or a player threw again before the second throw was
    due). It was taken as the dealer's second throw: the wall broken on (2, 3) then (4, 1), a throw nobody made. The
    keyed throw is the referee's ruling and stands; the report is kept, its line says why it is not counted, and the
    hand tells the referee of the disagreement (Chinese first); the dealer's next press is the second throw."""
    service = await service_at(tmp_path, "mcr", 500)
    c, sim = service.controller, service.sim
    assert c is not None and sim is not None
    try:
        dealer = await walls_up(service)
        start = c.state.seq
        c.record_dice("E", [2, 3], by="op")
        board_event(service, DICE, bytes([SIDES.index(dealer), 2, 4, 1]))
        await until(lambda: len(logged(service, "table.dice", start)) == 1)
        line = logged(service, "table.dice", start)[0]
        assert line["text"] == ("东家掷骰：4、1（共 5 点）（不计：东家此次掷骰已录入（2、3），牌桌所报（4、1）与录入不符，"
                                "以录入为准）"), line
        assert line["text_en"].endswith("(not counted: the table reported 4, 1 for the throw keyed as 2, 3: "
                                        "the keyed throw stands)"), line
        hand = c.state.hand
        assert hand is not None and [th["dice"] for th in hand["throws"]] == [[2, 3]] and hand["deal"] is None
        assert hand["next_thrower"] == "E" and hand["error"] is None
        told = hand["dice_dispute"]
        assert told["seat"] == "E" and told["keyed"] == [2, 3] and told["reported"] == [4, 1], told
        assert told["text"].startswith("牌桌所报东家掷骰（4、1）与录入（2、3）不符：以录入为准"), told
        assert "the keyed throw stands" in told["text_en"], told
        await asyncio.sleep(2 * DEBOUNCE_S)
        sim.press_button(dealer)  # the dealer's second throw, on the board
        await until(lambda: c.state.hand and c.state.hand["deal"])
        hand = c.state.hand
        assert hand is not None and [th["dice"] for th in hand["throws"]][0] == [2, 3] and len(hand["throws"]) == 2
        assert hand["throws"][1]["seat"] == "E" and "不计" not in logged(service, "table.dice", start)[-1]["text"]
    finally:
        await service.stop()


async def test_a_throw_keyed_for_one_the_board_set_aside_awaits_no_report(tmp_path: Path) -> None:
    """国标: the board reports the dealer's throw with a face of 7 (set aside), the operator keys the throw as the
    dice lie, 2 and 3 (a 5: the dealer throws again), and the dealer's second press comes up 3 and 2. The board had
    reported its throw already, so the press is the second throw; it was taken for the board's late report of the
    keyed one (不计：…牌桌所报为同一次) and the hand waited for a throw already made."""
    service = await service_at(tmp_path, "mcr", 500)
    c = service.controller
    assert c is not None
    try:
        dealer = await walls_up(service)
        start = c.state.seq
        board_event(service, DICE, bytes([SIDES.index(dealer), 2, 2, 7]))
        await until(lambda: logged(service, "table.dice", start))
        c.record_dice("E", [2, 3], by="op")
        board_event(service, DICE, bytes([SIDES.index(dealer), 2, 3, 2]))
        await until(lambda: len(logged(service, "table.dice", start)) == 2)
        assert "不计" not in logged(service, "table.dice", start)[-1]["text"]
        hand = c.state.hand
        assert hand is not None and [th["dice"] for th in hand["throws"]] == [[2, 3], [3, 2]] and hand["deal"]
        assert hand.get("dice_dispute") is None
    finally:
        await service.stop()


async def test_a_throw_keyed_on_a_page_that_had_not_shown_the_boards_report_is_refused(tmp_path: Path) -> None:
    """The reverse: the board reports the dealer's 2 and 3 (国标: a 5, the dealer throws again) and the operator,
    whose page has not shown it yet, keys the same throw. It was taken as the dealer's second throw; it is
    refused naming the board's report, and keyed again on the page as it is now it counts as the second."""
    from table_controller.controller import ActionError

    service = await service_at(tmp_path, "mcr", 500)
    c = service.controller
    assert c is not None
    try:
        dealer = await walls_up(service)
        view = c.state.seq  # what the operator's page shows
        board_event(service, DICE, bytes([SIDES.index(dealer), 2, 2, 3]))
        await until(lambda: logged(service, "table.dice", view))
        with pytest.raises(ActionError, match=r"未录入：你的页面显示之后，已有掷骰（#\d+ 东家掷骰：2、3（共 5 点））"):
            c.record_dice("E", [2, 3], by="op", seen=view)
        hand = c.state.hand
        assert hand is not None and len(hand["throws"]) == 1 and hand["next_thrower"] == "E"
        c.record_dice("E", [4, 1], by="op", seen=c.state.seq)  # the dealer's second throw, keyed on the page as it is
        assert c.state.hand is not None and c.state.hand["deal"] is not None
    finally:
        await service.stop()


def test_keyed_dice_carry_the_pages_view_over_http(offline_client: Any) -> None:
    """`POST /api/dice` takes `seen` and `mine` as the referee's actions do (the Table page sends them): a throw
    logged after the view refuses it (409); the page's own keyed throw, answered but not yet shown, does not."""
    c = offline_client("mcr", "ref-buttons-2468", "op-buttons-1357")
    op = {"Authorization": "Bearer op-buttons-1357"}
    with c:
        view = c.controller.state.seq
        r = c.post("/api/dice", json={"seat": "E", "dice": [2, 3], "seen": view}, headers=op)
        assert r.status_code == 200, r.text  # 5: the dealer throws again
        mine = r.json()["seq"]
        r = c.post("/api/dice", json={"seat": "E", "dice": [6, 6], "seen": view, "mine": [mine]}, headers=op)
        assert r.status_code == 200, r.text
        ours = [mine, r.json()["seq"]]
        assert c.controller.state.hand["deal"] is not None
        reported = c.controller.accept("table", "table.dice", {"seat": "E", "wind": "E", "dice": [1, 1]}).seq
        r = c.post("/api/dice", json={"seat": "E", "dice": [1, 1], "seen": view, "mine": ours}, headers=op)
        assert r.status_code == 409 and f"已有掷骰（#{reported} 东家掷骰" in r.json()["detail"], r.text


async def test_a_throw_while_the_walls_are_built_does_not_break_the_wall_the_dealers_after_they_rise_does(
        tmp_path: Path) -> None:
    """竞技 (one press of the machine's dice, 004 第六条: 洗牌、码牌 by the machine, then 掷骰与开牌): the dealer's
    button pressed while the set is still being built under the table (a child, a player early), the mechanism at
    fifty times its pace (a build of 1.2 s). That throw set the break (开门), and the dealer's own throw once the
    walls were up was 不计：本盘骰子已掷完. It is kept, said as not counted while the walls are not up, and the
    dealer's throw after they rise breaks the wall."""
    service = await service_at(tmp_path, "jingji", 50)
    c, sim = service.controller, service.sim
    assert c is not None and sim is not None
    try:
        await c.start_hand("op")
        await until(lambda: c.state.phase == "building")
        hand = c.state.hand
        assert hand is not None
        dealer = side_of_wind("E", hand["dealer_position"])
        start = c.state.seq
        sim.press_button(dealer)
        await until(lambda: logged(service, "table.dice", start))
        assert c.state.phase == "building"  # (thrown and reported while the set was still being built)
        line = logged(service, "table.dice", start)[0]
        assert line["text"].endswith("（不计：牌墙尚未升起（牌桌：砌牌中））"), line
        assert line["text_en"].endswith("(not counted: the walls are not up yet (the table: building))"), line
        hand = c.state.hand
        assert hand is not None and hand["throws"] == [] and hand["deal"] is None and hand["next_thrower"] == "E"
        assert hand["error"] is None  # nothing wrong with the dice: the dealer throws once the walls are up
        await until(lambda: c.state.phase == "walls_raised")
        await asyncio.sleep(0.2)  # no throw followed on its own (a demo's autopilot would roll only now)
        assert len(logged(service, "table.dice", start)) == 1
        sim.press_button(dealer)
        await until(lambda: c.state.hand and c.state.hand["deal"])
        hand = c.state.hand
        assert hand is not None and len(hand["throws"]) == 1 and hand["throws"][0]["seat"] == "E"
        assert "不计" not in logged(service, "table.dice", start)[-1]["text"]
        assert len(hand["ignored_throws"]) == 1 and hand["ignored_throws"][0]["note"] == "牌墙尚未升起（牌桌：砌牌中）"
    finally:
        await service.stop()


async def test_dice_keyed_before_the_walls_are_up_are_refused_saying_why(tmp_path: Path) -> None:
    """The operator keys a throw (POST /api/dice) while the table still builds the set: it counts as the table's
    report would (display.md), so it is refused as that would not count, naming the table's phase, and nothing is
    logged; keyed once the walls are up it breaks the wall."""
    from table_controller.controller import ActionError

    service = await service_at(tmp_path, "jingji", 50)
    c = service.controller
    assert c is not None
    try:
        await c.start_hand("op")
        await until(lambda: c.state.phase == "building")
        seq = c.state.seq
        with pytest.raises(ActionError, match=r"牌墙尚未升起（牌桌：砌牌中）") as refused:
            c.record_dice("E", [3, 4], by="op")
        assert refused.value.status == 409 and "the walls are not up yet" in str(refused.value)
        assert [e.type for e in service.store.since(seq) if e.type == "operator.dice"] == []  # type: ignore[union-attr]
        await until(lambda: c.state.phase == "walls_raised")
        c.record_dice("E", [3, 4], by="op")
        hand = c.state.hand
        assert hand is not None and hand["deal"] is not None and hand["throws"][0]["keyed"]
    finally:
        await service.stop()


async def test_a_throw_on_the_last_hands_walls_does_not_break_the_new_hands_wall(table: TableService) -> None:
    """A hand abandoned with its walls up and the centre lid open: the next hand's start cannot lower them (the
    line says to press 开始新一盘 again once the lid is closed). The dealer, seeing walls, throws on them, and
    the operator keys a throw: both counted for the new hand, a break on walls that were never its own. Not
    counted now (上一盘的牌墙尚未降下), the keyed one refused; the start pressed again lowers them, raises the
    next set, and the dealer's throw then breaks the wall."""
    from table_controller.controller import ActionError

    c, sim = table.controller, table.sim
    assert c is not None and sim is not None
    dealer = await walls_up(table)
    sim.press_button(dealer)
    await until(lambda: c.state.phase == "playing")
    sim.raise_fault("centre_open", "centre")
    await until(lambda: "6" in c.state.faults)
    await c.start_hand("op")  # hand 1 abandoned; its walls stay up
    await until(lambda: logged(table, "controller.rejected"))
    assert c.state.hand is not None and c.state.hand["hand_no"] == 2 and sim.phase == "playing"
    start = c.state.seq
    await asyncio.sleep(2 * DEBOUNCE_S)
    sim.press_button(side_of_wind("E", c.state.hand["dealer_position"]))
    await until(lambda: logged(table, "table.dice", start))
    line = logged(table, "table.dice", start)[0]
    assert line["text"].endswith("（不计：上一盘的牌墙尚未降下）"), line
    assert line["text_en"].endswith("(not counted: the last hand's walls are still up)"), line
    with pytest.raises(ActionError, match="上一盘的牌墙尚未降下"):
        c.record_dice("E", [3, 4], by="op")
    hand = c.state.hand
    assert hand is not None and hand["throws"] == [] and hand["deal"] is None
    sim.clear_fault("centre_open")
    await until(lambda: not c.state.faults)
    await c.start_hand("op")  # as the refusal says: the old walls go down, the next set rises
    await until(lambda: c.state.phase == "walls_raised" and c.state.hand["hand_no"] == 3)
    start = c.state.seq
    sim.press_button(side_of_wind("E", c.state.hand["dealer_position"]))
    await until(lambda: c.state.hand and c.state.hand["deal"])
    assert "不计" not in logged(table, "table.dice", start)[-1]["text"]

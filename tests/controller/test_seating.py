"""换位 and the session's end on the live table (MCR, seed 000 四.6): before the West round the
players of chairs 1 and 2, and of 3 and 4, change places; the score sheet follows the players;
after 16 hands the session is over, its 标准分 final, and the next hand waits for a new round."""

from __future__ import annotations

from pathlib import Path

import pytest
from offline import no_table, offline_controller  # type: ignore[import-not-found]

from table_controller.config import parse_config
from table_controller.controller import ActionError, Controller
from table_controller.projection import public_view
from table_controller.record import hand_record
from table_controller.scoresheet import compute
from table_controller.seating import coming, for_state
from table_controller.store import EventStore

NAMES = {"1": "甲", "2": "乙", "3": "丙", "4": "丁"}
WIN_BY_EAST = {"seat_wind": "E", "prevalent_wind": "W", "melds": [],
               "concealed": "1m 2m 3m 4m 5m 6m 7m 8m 9m 1p 1p 1p 2p".split(),
               "win_tile": "2p", "win": "discard", "discarder": "S"}


@pytest.fixture
def controller(tmp_path: Path):
    c = offline_controller(tmp_path, "mcr", NAMES)
    yield c
    c.store.close()


def _hand(c: Controller, east_wins: bool = False, result: str | None = None) -> None:
    """One hand as `start_hand` records it (the places from `seating.coming`), to 荒牌 or E's win
    (or `result`, e.g. "abandoned")."""
    places = for_state(c.state)
    no = c.state.hands_played + 1
    c.accept("operator", "operator.hand_start", {
        "hand_no": no, "ruleset": "mcr", "dealer_position": places.dealer_position,
        "prevalent_wind": places.prevalent, "seats": places.seats(),
        "seating": {str(ch): p for ch, p in enumerate(places.seating, start=1)}})
    if east_wins:
        c.referee_action("referee.win_read", {"hand": {**WIN_BY_EAST, "prevalent_wind": places.prevalent}}, by="referee")
        c.referee_action("referee.win_confirm", {}, by="referee")
    c.accept("operator", "operator.hand_end", {"hand_no": no, "result": result or ("win" if east_wins else "draw")})


def test_before_the_west_round_the_players_change_chairs_and_the_sheet_follows_them(controller: Controller) -> None:
    for _ in range(8):
        _hand(controller)
    nxt = public_view(controller.state)["next_hand"]
    assert nxt["prevalent"] == "W" and nxt["dealer_position"] == 1
    assert nxt["seating"] == {"1": 2, "2": 1, "3": 4, "4": 3}
    assert nxt["swap"] == [[1, 1, 2], [2, 2, 1], [3, 3, 4], [4, 4, 3]]  # chair, was, now
    _hand(controller, east_wins=True)  # hand 9: chair 1 deals, and 乙 (drew chair 2) sits there
    hand = controller.state.hands[-1]
    assert hand["seats"] == {"E": 2, "S": 1, "W": 4, "N": 3} and hand["dealer_position"] == 1
    row = compute(controller.state)["rows"][-1]
    assert row["dealer"] == "2" and row["winner_position"] == "2"
    assert row["points"]["2"] > 0 and row["points"]["1"] < row["points"]["3"]  # 甲 (now S) dealt in
    rec = hand_record(controller.store.since(0), 9, state=controller.state)
    assert rec["seats"]["E"] == {"chair": 1, "player_no": 2, "player": "乙"}
    assert public_view(controller.state)["next_hand"]["swap"] == []  # no move before hand 10


async def test_after_sixteen_hands_the_session_is_over_and_the_next_waits_for_a_new_round(
        controller: Controller) -> None:
    for _ in range(16):
        _hand(controller)
    sheet = compute(controller.state)
    assert sheet["final"] and len(sheet["rows"]) == 16
    assert public_view(controller.state)["next_hand"]["over"]
    with pytest.raises(ActionError, match="本局 16 盘已打完"):
        await controller.start_hand(by="operator")
    controller.referee_action("referee.round_start", {"round": 2, "players": NAMES}, by="referee")
    places = coming(controller.state.ruleset, controller.state.hands, controller.state.actions)
    assert not places.over and places.seating == (1, 2, 3, 4) and places.prevalent == "E"
    assert not compute(controller.state)["final"]


def test_fifteen_hands_are_not_the_end_and_a_ruleset_without_a_length_never_ends(controller: Controller,
                                                                                tmp_path: Path) -> None:
    for _ in range(15):
        _hand(controller)
    assert not compute(controller.state)["final"] and not coming("mcr", controller.state.hands, []).over
    hands = [{"hand_no": n} for n in range(1, 40)]
    assert not coming("sichuan", hands, []).over  # 四川 states no session length: play goes on


# -- 定庄: the round's first dealer by dice (walls.md "Choosing seats and the first dealer by dice") --
def test_chair_1s_throw_counts_chairs_from_it_and_other_throws_do_not_count() -> None:
    from table_controller.seating import first_dealer_throw

    fd = first_dealer_throw(None, "count", 2, [3, 5])
    assert fd["position"] is None and "1号位" in fd["note"] and fd["throws"][0]["ignored"]
    fd = first_dealer_throw(fd, "count", 1, [3, 5])  # 8: 4, 8, 12 → 4号位
    assert fd["position"] == 4 and fd["waiting"] == [] and fd["note"] is None
    fd = first_dealer_throw(fd, "count", 1, [6, 6])
    assert fd["position"] == 4 and "已定" in fd["note"]
    assert [first_dealer_throw(None, "count", 1, d)["position"] for d in ([2, 3], [1, 1], [1, 2], [1, 3])] == [1, 2, 3, 4]
    assert first_dealer_throw(None, "count", 1, [1, 2, 3])["position"] == 2  # a three-dice table: 6 → 2号位
    assert first_dealer_throw(None, "count", 1, [1])["position"] is None  # one die is no throw
    assert first_dealer_throw(None, "highest", 1, [1, 2, 3])["throws"][0]["ignored"]


def test_sichuan_each_throws_the_highest_deals_and_a_tie_throws_again() -> None:
    from table_controller.seating import first_dealer_throw, pending

    fd = None
    for chair, dice in ((1, [6, 6]), (2, [6, 6]), (3, [1, 2]), (4, [3, 4])):
        fd = first_dealer_throw(fd, "highest", chair, dice)
    assert fd["position"] is None and fd["waiting"] == [1, 2] and "重掷" in fd["note"]
    assert "1号位、2号位" in pending(fd) and pending(fd).endswith("chairs 1, 2 to throw")  # was "chairs [1, 2]"
    fd = first_dealer_throw(fd, "highest", 3, [6, 5])  # not among the tied
    assert fd["throws"][-1]["ignored"] and fd["waiting"] == [1, 2] and "chairs 1, 2 to throw" in fd["note"]
    fd = first_dealer_throw(fd, "highest", 1, [2, 3])
    fd = first_dealer_throw(fd, "highest", 2, [5, 5])
    assert fd["position"] == 2 and pending(fd) is None


async def test_the_first_hand_is_dealt_by_the_chair_the_dice_chose_and_a_new_round_chooses_again(
        controller: Controller) -> None:
    controller.accept("table", "table.dice", {"seat": "E", "dice": [3, 5]})  # chair 1 throws 8
    assert controller.state.first_dealer["position"] == 4
    assert "1号位掷骰定庄：3、5（共 8 点）" in controller.state.log[-1]["text"]
    nxt = public_view(controller.state)["next_hand"]
    assert nxt["dealer_position"] == 4 and nxt["first_dealer"]["chosen"]
    _hand(controller)
    assert controller.state.hands[0]["dealer_position"] == 4 and controller.state.hands[0]["seats"]["E"] == 4
    controller.accept("table", "table.dice", {"seat": "E", "dice": [1, 1]})  # between hands: not a 定庄
    assert controller.state.first_dealer["position"] == 4
    for _ in range(3):
        _hand(controller)
    assert [h["dealer_position"] for h in controller.state.hands] == [4, 1, 2, 3]
    assert for_state(controller.state).prevalent == "S"  # the deal came back to chair 4: the South round
    controller.referee_action("referee.round_start", {"round": 2, "players": NAMES}, by="referee")
    assert controller.state.first_dealer is None and for_state(controller.state).dealer_position == 1
    # a keyed throw counts as the table's (a table without a dice unit)
    controller.record_dice("E", [2, 4], by="operator")
    assert controller.state.first_dealer["position"] == 2 and controller.state.first_dealer["throws"][0]["keyed"]
    with pytest.raises(ActionError, match="两颗骰子"):
        controller.record_dice("E", [2], by="operator")
    with pytest.raises(ActionError, match="庄家已定（2号位）"):  # keyed again after the choice: refused, not logged
        controller.record_dice("E", [6, 6], by="operator")
    assert len(controller.state.first_dealer["throws"]) == 1


async def test_an_unfinished_sichuan_first_dealer_holds_the_first_hand(tmp_path: Path) -> None:
    cfg = parse_config({"table": {"link": "socket://127.0.0.1:9"}, "rules": {"ruleset": "sichuan"}}, "test")
    store = EventStore(tmp_path / "s.sqlite3")
    c = Controller(cfg, store, no_table)
    try:
        c.accept("controller", "controller.configured", {"table_name": "T", "ruleset": "sichuan", "players": NAMES})
        c.accept("table", "table.dice", {"seat": "E", "dice": [2, 2]})
        with pytest.raises(ActionError, match="定庄未完成：请2号位、3号位、4号位掷骰"):
            await c.start_hand(by="operator")
        for side, dice in (("S", [6, 5]), ("W", [1, 1]), ("N", [3, 3])):
            c.accept("table", "table.dice", {"seat": side, "dice": dice})
        assert c.state.first_dealer["position"] == 2 and for_state(c.state).dealer_position == 2
    finally:
        store.close()


async def test_once_the_referee_ends_the_session_the_next_hand_waits_for_a_new_round(controller: Controller) -> None:
    for _ in range(5):
        _hand(controller)
    controller.referee_action("referee.session_start", {"minutes": 90}, by="referee")
    controller.referee_action("referee.session_end", {}, by="referee")
    nxt = public_view(controller.state)["next_hand"]
    assert for_state(controller.state).over and nxt["over"] and nxt["ended_by_referee"]
    with pytest.raises(ActionError, match="裁判已结束本局比赛"):
        await controller.start_hand(by="operator")
    controller.referee_action("referee.undo", {"reason": "结束早了"}, by="referee")
    assert not for_state(controller.state).over  # the end undone: play goes on


async def test_once_the_session_clock_runs_out_no_new_hand_starts(controller: Controller) -> None:
    """The hand in play when time runs out is the last (seed 000, seed 004 第五条); time the
    referee paused does not count."""
    import asyncio

    _hand(controller)
    controller.referee_action("referee.session_start", {"minutes": 0.005}, by="referee")  # 0.3 s
    controller.referee_action("referee.clock_pause", {"reason": "卡牌"}, by="referee")
    await asyncio.sleep(0.4)
    with pytest.raises(ActionError, match="牌桌未连接"):  # time stood still: the hand may start (no table here)
        await controller.start_hand(by="operator")
    controller.referee_action("referee.clock_resume", {}, by="referee")
    await asyncio.sleep(0.4)
    with pytest.raises(ActionError, match="比赛时间到"):
        await controller.start_hand(by="operator")
    controller.referee_action("referee.session_end", {}, by="referee")
    with pytest.raises(ActionError, match="裁判已结束本局比赛"):  # ended: the next round, as before
        await controller.start_hand(by="operator")


async def test_the_session_clock_is_announced_at_its_warnings_and_at_the_end_once(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """报时 (seed 000: 比赛结束前15分钟，报时提醒): logged once per warning and at the end, and
    sounded on the table's buzzer (one long beep, then three short), a real simulator on a pty."""
    import asyncio
    from collections.abc import Callable

    from drivers.clock import SystemClock
    from tablesim import SimTable

    import table_controller.controller as controller_module
    from table_controller.service import TableService

    # The 报时 loop looks every 0.1 s instead of every 1 s: what it says, and once, is the same; each comes
    # within 0.1 s of its moment instead of within 1 s (the test waited out up to 1 s at the warning and the end).
    monkeypatch.setattr(controller_module, "ANNOUNCE_CHECK_S", 0.1)

    async def until(check: Callable[[], bool], what: str, timeout: float = 6.0) -> None:
        """Poll instead of a fixed sleep: the beeps and the end come when they come, the checks after are the same."""
        for _ in range(int(timeout / 0.05)):
            if check():
                return
            await asyncio.sleep(0.05)
        raise AssertionError(f"timed out after {timeout} s waiting for {what}")

    sim = SimTable(seed=3, clock=SystemClock())
    pty = await sim.serve_pty()
    config = parse_config({"table": {"link": pty}, "display": {"port": 0, "operator_token": "op",
                                                              "referee_token": "ref"}}, source="test")
    service = TableService(config, tmp_path, serve_http=False)
    await service.start()
    try:
        c = service.controller
        await c.wait_linked(10)
        start = c.referee_action("referee.session_start", {"minutes": 5.02}, by="referee")  # 1.2 s before 5 minutes
        assert c.announce_time() is not None  # inside the 15-minute warning from the start: said at once
        for _ in range(60):
            await asyncio.sleep(0.1)
            if len([e for e in c.store.since(0) if e.type == "controller.session_alert"]) == 2:
                break
        alerts = [e.data for e in c.store.since(0) if e.type == "controller.session_alert"]
        assert [(a["minutes"], a["left_min"]) for a in alerts] == [(15, 6), (5, 5)]
        assert c.announce_time() is None  # once each
        await until(lambda: len(sim.buzzes) >= 2, "the second beep")  # sent at once, not after its 0.8 s
        assert sim.buzzes[:2] == [800, 800]
        from table_controller.state import describe

        assert [describe(e) for e in c.store.since(0) if e.type == "controller.session_alert"] == [
            "报时：比赛剩余 6 分钟", "报时：比赛剩余 5 分钟"]
        # the end: announced as time up, three short beeps
        # a running clock is not started afresh: its start undone, then a start of 0.01 minutes
        c.referee_action("referee.undo", {"reason": "改时长", "target": start.seq}, by="referee")
        c.referee_action("referee.session_start", {"minutes": 0.01}, by="referee")
        await until(lambda: [e.data for e in c.store.since(0)
                             if e.type == "controller.session_alert"][-1]["minutes"] == 0, "the end")
        end = [e.data for e in c.store.since(0) if e.type == "controller.session_alert"][-1]
        assert end["minutes"] == 0
        await until(lambda: sim.buzzes[-3:] == [300, 300, 300], "the three short beeps")  # 0.5 s apart
        assert sim.buzzes[-3:] == [300, 300, 300]
    finally:
        await service.stop()
        await sim.close()


async def test_a_stop_during_the_end_beeps_ends_them_and_leaves_no_unheard_error(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """The service stopped (systemctl stop, a restart) while 报时's three short beeps sound: the beeps went on
    after the controller had closed the table, the second one's command raised 牌桌未连接 in a task nobody
    awaited, and all the journal got was asyncio's "Task exception was never retrieved" whenever the garbage
    collector came by. The table's steps beside the link (the beeps, the walls for a phase, the seat lights after
    a throw) are now ended with the controller, and one that fails is logged with its traceback as it fails."""
    import asyncio
    import gc
    import logging

    from drivers.clock import SystemClock
    from tablesim import SimTable

    from table_controller.service import TableService

    sim = SimTable(seed=3, clock=SystemClock())
    pty = await sim.serve_pty()
    config = parse_config({"table": {"link": pty}}, source="test")
    service = TableService(config, tmp_path, serve_http=False)
    await service.start()
    try:
        c = service.controller
        assert c is not None
        await c.wait_linked(10)
        with caplog.at_level(logging.DEBUG):
            # time up at once: announced by the 报时 loop (woken by the event), three short beeps 0.5 s apart
            c.referee_action("referee.session_start", {"minutes": 0.0001}, by="referee")
            for _ in range(80):
                if sim.buzzes:
                    break
                await asyncio.sleep(0.025)
            assert sim.buzzes == [300]
            await service.stop()
            await asyncio.sleep(1.2)  # the other two beeps' time
            gc.collect()
        assert sim.buzzes == [300]
        assert not [r for r in caplog.records if r.levelno >= logging.ERROR], [r.getMessage() for r in caplog.records]
    finally:
        await service.stop()
        await sim.close()


def test_a_hand_stopped_short_is_replayed_by_the_same_dealer_and_does_not_count(
        controller: Controller, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """中止 (a jam, a wrong count of tiles): the same dealer deals again, and MCR's 16 hands are 16
    hands played; a ruleset may count it as a 荒庄 instead (`[match] replay_abandoned = false`)."""
    _hand(controller)  # hand 1: chair 1 deals, 荒庄: the deal passes
    assert for_state(controller.state).dealer_position == 2
    _hand(controller, result="abandoned")  # hand 2 stopped short: chair 2 deals again
    nxt = for_state(controller.state)
    assert (nxt.dealer_position, nxt.prevalent) == (2, "E")
    for _ in range(15):
        _hand(controller)
    assert controller.state.hands_played == 17 and for_state(controller.state).over  # 16 played + 1 replayed
    rows = compute(controller.state)["rows"]
    assert rows[1]["result_zh"] == "中止" and len(rows) == 17
    from table_controller.seating import coming

    hands = [{"hand_no": 1, "result": "draw"}, {"hand_no": 2, "result": "abandoned"}]
    assert coming("mcr", hands, []).dealer_position == 2
    (tmp_path / "mcr_void.toml").write_text('extends = "mcr"\nid = "mcr_void"\nname_zh = "国标（中止计为荒庄）"\n'
                                            'name_en = "MCR, a stopped hand counts"\n[match]\nreplay_abandoned = false\n',
                                            encoding="utf-8")
    monkeypatch.setenv("TABLECTL_RULESETS_DIR", str(tmp_path))
    assert coming("mcr_void", hands, []).dealer_position == 3  # counted as a 荒庄: the deal passed twice


async def test_a_button_pressed_before_any_hand_is_named_by_its_chair_not_a_wind(controller: Controller) -> None:
    """Before a hand nobody sits at a wind: side S pressing 骰子 to throw for 定庄 was logged "南家按键：骰子"
    beside its throw "2号位掷骰定庄" (南家 is whoever sits second from the dealer, not known yet)."""
    controller.accept("table", "table.button", {"seat": "S", "button": "dice"})
    assert controller.state.log[-1]["text"] == "2号位按键：骰子"
    controller.accept("table", "table.dice", {"seat": "S", "dice": [3, 5]})
    assert controller.state.log[-1]["text"].startswith("2号位掷骰定庄")

def test_a_first_dealer_throw_of_the_wrong_dice_names_the_counts_its_method_takes() -> None:
    """By count a three-dice table (广东) throws its three: the note said two dice only, though three are taken;
    by the highest throw (四川) each chair throws two."""
    from table_controller.seating import first_dealer_throw

    assert first_dealer_throw(None, "count", 1, [2, 3, 4])["position"] == 1  # 9 → 1号位
    note = first_dealer_throw(None, "count", 1, [7, 1])["note"]
    assert "三颗骰的牌桌：三颗" in note and "three on a three-dice table" in note
    note = first_dealer_throw(None, "highest", 1, [2, 3, 4])["note"]
    assert note.startswith("定庄掷两颗骰子，") and "三颗" not in note


def test_a_jingji_session_is_announced_5_minutes_before_its_end_as_its_rule_says(tmp_path: Path) -> None:
    """报时 under 竞技 (seed 004 第五条: "每局结束前5分钟，由裁判长报时提醒"): once, 5 minutes before the end.
    The ruleset warned at 15 minutes too, a 国标 text's (seed 000 范文三) its own rule has not: the buzzer
    sounded at a 竞技 table 10 minutes early, and the log said 报时 a second time."""
    now = [1_000_000.0]
    cfg = parse_config({"table": {"link": "socket://127.0.0.1:9"}, "rules": {"ruleset": "jingji"}}, "test")
    c = Controller(cfg, EventStore(tmp_path / "e.sqlite3"), no_table, wall_clock=lambda: now[0])
    c.accept("controller", "controller.configured", {"table_name": "T", "ruleset": "jingji", "players": {}})
    try:
        c.referee_action("referee.session_start", {}, by="referee")  # the ruleset's 2 hours (四圈一局)
        now[0] += 106 * 60  # 14 minutes left
        assert c.announce_time() is None
        now[0] += 9.5 * 60  # 4.5 minutes left
        ev = c.announce_time()
        assert ev is not None and (ev.data["minutes"], ev.data["left_min"]) == (5, 5)
        assert [e.data["minutes"] for e in c.store.since(0) if e.type == "controller.session_alert"] == [5]
    finally:
        c.store.close()

"""A seat button that reports itself over and over (a worn contact chattering past the board's debounce, a
stuck one, a board that does not debounce), end to end: the simulator's board over a real pty, the driver,
the controller on a clock the test moves (`tests/clocks.py`) and a real SQLite log. Every report is kept in
the log; the page says 按键抖动或卡住 once, with the chair and the button, counts the rest on that notice
instead of 60 lines of 按键 pushing the game off the page, and clears it when the button goes quiet."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from clocks import FakeTime  # type: ignore[import-not-found]
from simtable import until  # type: ignore[import-not-found]

from drivers.clock import SteadyWallClock
from drivers.messages import SEATS as SIDES
from table_controller.chatter import ButtonWatch, ChatterRules
from table_controller.config import parse_config
from table_controller.service import TableService

BUTTON = 0x93  # protocol.md §7: the board's `button` event
START = 1      # protocol.md §7 `button`: 1 开始键


@pytest.fixture
async def table(tmp_path: Path) -> AsyncIterator[tuple[TableService, FakeTime]]:
    """A table on the simulator, linked; the controller's clock is `FakeTime`'s (moved by the test)."""
    t = FakeTime(1_700_000_000.0)
    config = parse_config({"table": {"link": "sim://", "sim_speed": 500},
                           "buttons": {"chatter_presses": 10, "chatter_window_s": 2.0, "quiet_s": 3.0},
                           "display": {"port": 0, "operator_token": "op-token-1", "referee_token": "ref-token-1"}},
                          source="test")
    service = TableService(config, tmp_path, serve_http=False,
                           wall_clock=SteadyWallClock(lambda: t.wall, lambda: t.mono))
    await service.start()
    try:
        assert service.controller is not None
        await service.controller.wait_linked(10)
        yield service, t
    finally:
        await service.stop()


def logged(service: TableService, type_: str, after: int = 0) -> list[Any]:
    """The events of `type_` in the SQLite log after `after`."""
    assert service.store is not None
    return [e for e in service.store.since(after) if e.type == type_]


def lines(service: TableService, type_: str, after: int = 0) -> list[dict[str, Any]]:
    """The page's log lines of `type_` after `after` (the Table page shows these)."""
    assert service.controller is not None
    return [line for line in service.controller.state.log if line["type"] == type_ and line["seq"] > after]


async def press(service: TableService, side: str, n: int, t: FakeTime, every: float) -> None:
    """`n` reports of `side`'s start button as the board sends them, `every` seconds apart on the controller's
    clock; each waited for in the log, so the controller read it at its time."""
    assert service.sim is not None
    for _ in range(n):
        before = len(logged(service, "table.button"))
        service.sim.newer_event(BUTTON, bytes([SIDES.index(side), START]))
        await until(lambda: len(logged(service, "table.button")) > before)
        t.advance(every)


async def test_a_chattering_button_is_one_notice_every_report_is_logged_and_it_clears_when_quiet(
        table: tuple[TableService, FakeTime], caplog: pytest.LogCaptureFixture) -> None:
    service, t = table
    c = service.controller
    assert c is not None
    start = c.state.seq
    await press(service, "S", 9, t, 0.1)  # nine in 0.9 s: under the threshold, each its own line
    assert c.state.buttons == {} and len(lines(service, "table.button", start)) == 9
    assert logged(service, "controller.button_chatter", start) == []
    caplog.set_level(logging.INFO, logger="table_controller.controller")
    caplog.clear()
    await press(service, "S", 51, t, 0.1)  # the tenth within 2 s makes it chattering; fifty more
    # the journal: the tenth report and the notice, not the fifty counted on it
    assert len([r for r in caplog.records if r.name == "table_controller.controller" and r.getMessage() == "event"
                and r.levelno == logging.INFO]) == 2
    [began] = logged(service, "controller.button_chatter", start)
    assert began.data == {"key": "S:start", "seat": "S", "button": "start", "presses": 10, "window_s": 2.0}
    said = [line for line in c.state.log if line["seq"] == began.seq][0]
    assert said["text"] == ("按键抖动或卡住：2号位开始键 2.0 秒内触发 10 次；之后的触发只在故障栏计数，不逐条显示（每次均已记录）")
    assert said["text_en"].startswith("button chattering or stuck: chair 2 start button reported 10 times in 2.0 s")
    # every report is in the log; the page has the first ten as lines, the rest counted on the notice
    assert len(logged(service, "table.button", start)) == 60
    assert len(lines(service, "table.button", start)) == 10
    [shown] = c.state.to_json()["buttons"]
    assert (shown["name_zh"], shown["where_zh"], shown["presses"]) == ("按键抖动或卡住", "2号位开始键", 60)
    assert shown["remedy_zh"].startswith("已连续触发 60 次，检查或更换该按键") and shown["name_en"] == "button chattering or stuck"
    # another side's press, and the game's own events, still get their lines
    seq = c.state.seq
    await press(service, "E", 1, t, 0.1)
    assert len(lines(service, "table.button", seq)) == 1
    assert service.sim is not None
    service.sim.raise_fault("sensor", "photo E")
    await until(lambda: "7" in c.state.faults)
    assert len(lines(service, "table.fault_raised", seq)) == 1
    # quiet for 3 s: cleared at the board's next heartbeat, with the count
    t.advance(3.0)
    await until(lambda: not c.state.buttons, 5)
    [ended] = logged(service, "controller.button_chatter_ended", start)
    assert ended.data["presses"] == 60 and ended.data["key"] == "S:start"
    assert lines(service, "controller.button_chatter_ended", start)[0]["text"] == \
        "按键抖动已停止：2号位开始键，共触发 60 次（每次均已记录）"
    # pressed again after: a line again
    seq = c.state.seq
    await press(service, "S", 1, t, 0.1)
    assert len(lines(service, "table.button", seq)) == 1


async def test_a_player_pressing_now_and_then_is_never_taken_for_chatter(table: tuple[TableService, FakeTime]) -> None:
    """Thirty presses half a second apart (four in any 2 s): each is a line, no notice."""
    service, t = table
    c = service.controller
    assert c is not None
    start = c.state.seq
    await press(service, "W", 30, t, 0.5)
    assert c.state.buttons == {} and logged(service, "controller.button_chatter", start) == []
    assert len(lines(service, "table.button", start)) == 30


def test_a_notice_from_before_a_restart_clears_once_its_button_is_quiet() -> None:
    """The log says a button chatters, this controller never heard it (restarted): timed from the first look."""
    watch = ButtonWatch(ChatterRules(presses=3, window_s=1.0, quiet_s=2.0))
    assert watch.quiet(100.0, ["N:dice"]) == []
    assert watch.quiet(101.9, ["N:dice"]) == []
    assert watch.quiet(102.0, ["N:dice"]) == ["N:dice"]
    # and the window: three within a second make it chattering, told once
    assert [watch.press("E:dice", at, False) for at in (0.0, 0.4, 1.5, 1.9)] == [None, None, None, None]
    assert watch.press("E:dice", 2.2, False) == 3
    assert watch.press("E:dice", 2.3, True) is None

"""The turn timer (出牌 / 首打 / 吃碰) on the Table page in Debian's Chromium against the running service (a
simulated table on a real pty, real uvicorn, real SQLite), the service's stamps on a clock the test moves
(`tests.clocks.FakeTime`, as NTP or a long jam would): a referee's pause holds the turn and gives its time
back, across a restart and a reload; a step of the tablet's own wall clock moves no countdown."""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
import pytest_asyncio

from drivers.clock import SteadyWallClock
from table_controller.referee import session
from table_controller.service import TableService
from table_controller.timers import turn_status
from test_browser import REFEREE, _auth, _config, _dealt, _open
from test_browser import browser  # noqa: F401  (the browser tests' fixture, per module)
from tests.clocks import FakeTime

pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="module")]


def _service(tmp_path: Path, t: FakeTime) -> TableService:
    return TableService(_config(), tmp_path, wall_clock=SteadyWallClock(wall=lambda: t.wall, mono=lambda: t.mono))


@pytest.fixture
def clock() -> FakeTime:
    return FakeTime(time.time())


@pytest_asyncio.fixture(loop_scope="module")
async def service(tmp_path: Path, clock: FakeTime):
    svc = _service(tmp_path, clock)
    await svc.start()
    await svc.controller.wait_linked(10)
    yield svc
    await svc.stop()


def _http(svc: TableService) -> httpx.AsyncClient:
    return httpx.AsyncClient(base_url=f"http://127.0.0.1:{svc.port}")


async def _shown(page: Any, seat: str) -> tuple[str, int]:
    """The seat's turn timer as the players read it: its level (the class) and its seconds (negative: 超时)."""
    sel = f'[data-timer="{seat}"]'
    await page.wait_for_selector(f"{sel}:not(:empty)")
    text = await page.inner_text(sel)
    n = int(re.search(r"(\d+)", text).group(1))
    level = (await page.get_attribute(sel, "class")).replace("timer", "").strip()
    return level, -n if "超时" in text else n


async def test_a_pause_of_the_session_clock_holds_the_turn_and_gives_its_time_back(
        browser: Any, clock: FakeTime, tmp_path: Path) -> None:
    """A jam 10 s into the dealer's first discard (30 s under 国标): the referee pauses the clock for 10 minutes.
    The turn stood still with it (⏸ 首打 20 秒), and at 继续计时 東 had its 20 s: before, the turn ran on under
    the pause and 東 read 超时 580 秒 the moment play resumed. A restart and a reload keep the 20 s."""
    service = _service(tmp_path, clock)
    await service.start()
    await service.controller.wait_linked(10)
    try:
        await _pause_ten_minutes(service, browser, clock)
    finally:
        await service.stop()
    # the service restarted 3 s on (systemd, an upgrade) and the page opened afresh: 17 s, not 30 again nor 超时
    clock.advance(3)
    again = _service(tmp_path, clock)
    await again.start()
    try:
        page = await _open(browser, again, "/")
        level, secs = await _shown(page, "E")
        assert level == "ok" and 15 <= secs <= 17, (level, secs)
        await page.reload()
        await page.wait_for_function(f"window.__lastSeq >= {again.controller.state.seq}")
        level, secs = await _shown(page, "E")
        assert level == "ok" and 15 <= secs <= 17, (level, secs)
        await page.close()
    finally:
        await again.stop()


async def _pause_ten_minutes(service: TableService, browser: Any, clock: FakeTime) -> None:
    async with _http(service) as http:
        ref = _auth(REFEREE)
        assert (await http.post("/api/referee/session/start", json={"minutes": 60}, headers=ref)).status_code == 200
        await _dealt(service, http)
        since = service.controller.state.hand["turn"]["since"]
        clock.advance(10)
        r = await http.post("/api/referee/session/pause", json={"reason": "牌桌卡牌"}, headers=ref)
        assert r.status_code == 200, r.text
        page = await _open(browser, service, "/")
        level, secs = await _shown(page, "E")
        assert level == "paused" and 19 <= secs <= 20 and "⏸ 首打" in await page.inner_text('[data-timer="E"]')
        clock.advance(600)
        assert (await http.post("/api/referee/session/resume", headers=ref)).status_code == 200
    await page.wait_for_function(f"window.__lastSeq >= {service.controller.state.seq}")
    level, secs = await _shown(page, "E")
    assert level == "ok" and 18 <= secs <= 20, (level, secs)
    c = service.controller
    st = turn_status(c.state.hand["turn"], c.now(), session(c.state.actions))
    assert st["level"] == "ok" and 19 <= st["remaining_s"] <= 20 and c.state.hand["turn"]["since"] == since
    await page.close()


async def test_a_step_of_the_tablets_wall_clock_moves_no_countdown(service: TableService, browser: Any,
                                                                   clock: FakeTime) -> None:
    """The kiosk is a browser on the table's Pi, whose clock NTP steps at its first sync. The page counted
    from its own wall clock, offset by the service's `now` of the last event: a step of an hour forward
    showed 東 超时 3570 秒 and the session clock 比赛时间到 until a play came. It counts on its steady clock now."""
    async with _http(service) as http:
        ref = _auth(REFEREE)
        assert (await http.post("/api/referee/session/start", json={"minutes": 60}, headers=ref)).status_code == 200
        clock.advance(30)
        page = await browser.new_page()
        await page.clock.install()
        await _open(browser, service, "/", page=page)
        await _dealt(service, http)
    await page.wait_for_function(f"window.__lastSeq >= {service.controller.state.seq}")
    level, before = await _shown(page, "E")
    assert level == "ok" and 25 <= before <= 30
    await page.clock.set_system_time(time.time() + 3600)  # seconds: NTP's step, an hour forward
    await page.wait_for_timeout(300)  # a redraw of the timers (every 250 ms)
    level, after = await _shown(page, "E")
    assert level == "ok" and before - 2 <= after <= before, (before, after)
    assert "比赛剩余 59:" in await page.inner_text("#session")  # 59:xx left, not 比赛时间到
    await page.clock.set_system_time(time.time() - 3600)  # and back
    await page.wait_for_timeout(300)
    level, after = await _shown(page, "E")
    assert level == "ok" and before - 2 <= after <= before, (before, after)
    await page.close()

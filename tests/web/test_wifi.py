"""The referee's pages on a venue's bad Wi-Fi, in Debian's Chromium against the running service, through
a real TCP proxy (`wifi.Wifi`) that drops the link without a close, delays it, or resets it."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
import pytest_asyncio

from table_controller.service import TableService
from table_controller.web import app as web_app
from test_browser import ARGS, CHROMIUM, REFEREE, _config, _until
from wifi import Wifi

pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="module")]


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def chromium():
    from playwright.async_api import async_playwright

    async with async_playwright() as pw:
        b = await pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        await b.close()


@pytest_asyncio.fixture(loop_scope="module")
async def browser(chromium: Any):
    context = await chromium.new_context(viewport={"width": 1280, "height": 720})
    yield context
    await context.close()


@pytest_asyncio.fixture(loop_scope="module")
async def service(tmp_path: Path):
    svc = TableService(_config(), tmp_path)
    await svc.start()
    await svc.controller.wait_linked(10)
    yield svc
    await svc.stop()


@pytest_asyncio.fixture(loop_scope="module")
async def wifi(service: TableService):
    w = await Wifi(service.port).start()
    yield w
    await w.close()


async def _open(browser: Any, svc: TableService, port: int, path: str, token: str | None = None) -> Any:
    page = await browser.new_page()
    await page.goto(f"http://127.0.0.1:{port}{path}")
    if token:
        await page.fill("#token", token)
        await page.click("#login button[type=submit]")
        await page.wait_for_function("document.body.dataset.role && document.body.dataset.role !== 'viewer'")
    await page.wait_for_function(f"window.__lastSeq >= {svc.controller.state.seq}")
    return page


@pytest.fixture
def quick_health(monkeypatch: pytest.MonkeyPatch) -> float:
    """Health every 0.5 s instead of 2 (the page reads the interval from the messages): silence shows in
    seconds, not in the 7 a real page waits."""
    monkeypatch.setattr(web_app, "HEALTH_EVERY_S", 0.5)
    return 0.5


def _auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


async def test_a_wifi_that_drops_without_a_close_is_noticed_and_the_page_catches_up(
        service: TableService, browser: Any, wifi: Wifi, quick_health: float) -> None:
    """The tablet's Wi-Fi drops and no TCP close ever comes: the socket stays open and silent. Before, the
    page said 已连接 over a frozen picture (it listened only for a close); now three health intervals
    without a message and it says so, drops the socket and opens another, and once the Wi-Fi is back
    shows what happened meanwhile."""
    page = await _open(browser, service, wifi.port, "/penalties", token=REFEREE)
    assert await page.inner_text("[data-testid=link]") == "已连接"
    wifi.freeze()
    frozen = time.monotonic()
    await page.wait_for_function("document.body.dataset.connected === '0'", timeout=10000)
    noticed = time.monotonic() - frozen
    assert noticed < 3 * quick_health + 2.5, noticed
    assert "秒没有收到服务的消息" in await page.inner_text("[data-testid=link]")
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{service.port}") as http:  # the hall goes on
        r = await http.post("/api/referee/penalty", json={"seat": "S", "code": "late_5"}, headers=_auth(REFEREE))
        assert r.status_code == 200
    await asyncio.sleep(2 * quick_health)
    assert await page.locator("#actions tr[data-seq]").count() == 0  # not shown: it never arrived
    wifi.thaw()
    await page.wait_for_function(f"window.__lastSeq === {service.controller.state.seq}", timeout=10000)
    await page.wait_for_function("document.body.dataset.connected === '1'", timeout=5000)
    assert await page.inner_text("[data-testid=link]") == "已连接"
    assert await page.locator("#actions tr[data-seq]").count() == 1


async def test_a_quiet_delayed_broadcast_is_not_taken_for_a_dead_link(service: TableService, browser: Any,
                                                                        quick_health: float) -> None:
    """The broadcast feed (`/public?delay=S`) held its events back and sent nothing else: a quiet table
    would look like a dead link to the page's watchdog. It now says it is alive (`alive`) as often as
    the live feed sends health."""
    page = await browser.new_page()
    sockets: list[str] = []
    page.on("websocket", lambda ws: sockets.append(ws.url))
    await page.goto(f"http://127.0.0.1:{service.port}/public?delay=30")
    await page.wait_for_function("document.body.dataset.connected === '1'", timeout=5000)
    await asyncio.sleep(8.0)  # longer than a page waits for a feed that never said how often it speaks (7 s)
    assert await page.evaluate("document.body.dataset.connected") == "1"
    assert len(sockets) == 1 and "delay=30" in sockets[0]

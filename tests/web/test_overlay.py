"""The broadcast overlay (`/overlay?delay=S`) in Debian's Chromium at OBS's 1920×1080 against the running
service (a simulated table on a real pty, real uvicorn, real SQLite): transparent, the players' names and
scores, discards, melds, whose turn and the last play; S seconds behind; never a concealed tile."""

from __future__ import annotations

import io
import json
import os
import re
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from PIL import Image

from table_controller.service import TableService
from test_browser import OPERATOR, PUBLIC_TILES, REFEREE, _dealt, _populate, _until, tiles_in
from test_browser import browser, service  # noqa: F401  (the browser tests' fixtures, per module)

pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="module")]
SIZE = (1920, 1080)
#: the broadcast's delay in the test of it, seconds: 1, not 2 (the page waits it out twice: the dealt hand, the
#: discard); a page that ignored it shows the discard within 0.1 s, in the 0.75 s it is looked for
DELAY = 1.0


def _http(svc: TableService) -> httpx.AsyncClient:
    return httpx.AsyncClient(base_url=f"http://127.0.0.1:{svc.port}")


async def _overlay(browser: Any, svc: TableService, delay: float, frames: list[str] | None = None,
                   token: str | None = None) -> Any:
    page = await browser.new_page()
    await page.set_viewport_size({"width": SIZE[0], "height": SIZE[1]})
    if frames is not None:
        page.on("websocket", lambda ws: ws.on("framereceived", lambda payload: frames.append(payload)))
    if token:  # a referee's credential left in the browser's storage
        await page.goto(f"http://127.0.0.1:{svc.port}/static/style.css")
        await page.evaluate(f"sessionStorage.setItem('token', {json.dumps(token)})")
    await page.goto(f"http://127.0.0.1:{svc.port}/overlay?delay={delay}")
    await page.wait_for_selector("[data-testid=ov-seat-E]")
    return page


async def test_the_overlay_is_transparent_at_1920x1080_and_shows_the_table_seconds_behind(
        service: TableService, browser: Any) -> None:
    async with _http(service) as http:
        play = await _dealt(service, http)
        page = await _overlay(browser, service, delay=DELAY)
        await page.wait_for_function(f"window.__lastSeq >= {service.controller.state.seq}", timeout=10000)
        assert await page.inner_text("[data-testid=ov-seat-E] .name") == "张伟"
        assert "ov-seat turn" in await page.inner_html("[data-testid=ov-seats]")
        assert "出牌" in await page.inner_text("[data-testid=ov-seat-E]")  # the dealer discards first
        keyed = time.monotonic()  # (before the POST: the event is stamped after this, on air DELAY after its stamp)
        await play(type="discard", seat="E", tile="9p")
        shown = '[data-testid=ov-seat-E] .ov-discards [data-tile="9p"]'
        while time.monotonic() - keyed < 0.75 * DELAY:  # on air only once the delay has passed
            assert await page.locator(shown).count() == 0
            await page.wait_for_timeout(100)
        await page.wait_for_selector(shown, timeout=5000)
        assert time.monotonic() - keyed >= DELAY
        assert await page.inner_text("[data-testid=ov-last]") == "东家打出 九筒"
        assert "出牌" in await page.inner_text("[data-testid=ov-seat-S]")  # the turn moved on with it
        assert await page.evaluate("[document.documentElement.scrollWidth, document.documentElement.scrollHeight]") \
            == list(SIZE)
        shot = await page.screenshot(omit_background=True)
        if os.environ.get("SCREENSHOTS_DIR"):
            (Path(os.environ["SCREENSHOTS_DIR"]) / "overlay.png").write_bytes(shot)
        png = Image.open(io.BytesIO(shot))
        assert png.size == SIZE and png.mode == "RGBA"
        assert png.getpixel((960, 540))[3] == 0  # the middle is the table's own picture: nothing drawn over it
        assert png.getpixel((40, 1040))[3] > 0  # the seats' panels are drawn
        r = await http.post("/api/hand/end", json={"result": "abandoned"},
                            headers={"Authorization": f"Bearer {OPERATOR}"})
        assert r.status_code == 200, r.text


async def test_the_overlay_never_shows_a_concealed_tile_nor_logs_in(service: TableService, browser: Any) -> None:
    async with _http(service) as http:
        await _populate(service, http)  # a concealed kong of 7s, a win read of a hand of 1m..9m 1p 1p 1p 2p
        frames: list[str] = []
        page = await _overlay(browser, service, delay=0.3, frames=frames, token=REFEREE)
        await _until(lambda: bool(frames))
        await page.wait_for_function(f"window.__lastSeq >= {service.controller.state.seq}", timeout=10000)
        await page.wait_for_selector("[data-testid=ov-win]:not([hidden])")
        # the fans and total are public, the total in the ruleset's unit (MCR: 番)
        assert re.search(r"合计 \d+ 番", await page.inner_text("[data-testid=ov-win]"))
        assert await page.evaluate("document.body.dataset.role") == "viewer"
        urls = await page.evaluate("performance.getEntriesByType('resource').map(e => e.name)")
        assert not any("/api/" in u for u in urls), urls  # the delayed socket only: no live read
    seen = tiles_in(frames)
    assert seen <= PUBLIC_TILES, seen - PUBLIC_TILES
    html = await page.content()
    drawn = set(re.findall(r'data-tile="([^"]+)"', html))
    assert drawn <= PUBLIC_TILES and {"9p", "5z", "back"} <= drawn
    assert "七条" not in html and "一万" not in html


async def test_the_last_play_line_is_a_play_or_a_ruling_never_the_tables_own_reports(
        service: TableService, browser: Any) -> None:
    """The overlay's line for the last play or ruling showed whatever came last: a seat's button pressed
    (东家按键：开始), the table's count of its tiles after a build (点牌：144 张, late after the deal), the display's
    凭证已更改. It keeps the last play or ruling (a throw, a hand's start and end among them)."""
    async with _http(service) as http:
        play = await _dealt(service, http)
        await play(type="discard", seat="E", tile="9p")
        page = await _overlay(browser, service, delay=0)
        await page.wait_for_function(f"window.__lastSeq >= {service.controller.state.seq}", timeout=10000)
        assert await page.inner_text("[data-testid=ov-last]") == "东家打出 九筒"
        seq = service.controller.state.seq
        service.sim.press_button(seat="W", button="start")
        await _until(lambda: service.controller.state.log[-1]["type"] == "table.button"
                     and service.controller.state.seq > seq)
        await page.wait_for_function(f"window.__lastSeq >= {service.controller.state.seq}", timeout=10000)
        assert await page.inner_text("[data-testid=ov-last]") == "东家打出 九筒"
        r = await http.post("/api/hand/end", json={"result": "abandoned"},
                            headers={"Authorization": f"Bearer {OPERATOR}"})
        assert r.status_code == 200, r.text
        await page.wait_for_function("document.querySelector('[data-testid=ov-last]').textContent.endsWith('盘结束')")

"""The referee's pages left open all day (a tablet at the table, the hall's screen), in Debian's Chromium against
the running service: a restart on another log, many Wi-Fi drops, thousands of events (`bench/page_long.py`
measures a whole simulated day)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import httpx
import pytest

from table_controller.service import TableService
from test_browser import REFEREE, _config, _dealt, _http
from test_browser import _open as open_page
from test_browser import browser  # noqa: F401  (the browser tests' fixtures, per module)
from wifi import Wifi

pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="module")]


async def _penalties(svc: TableService, seat: str, until: int) -> None:
    """Penalties (迟到) against `seat` until the log's head is `until`."""
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{svc.port}") as http:
        while svc.controller.state.seq < until:
            r = await http.post("/api/referee/penalty", json={"seat": seat, "code": "late_5"},
                                headers={"Authorization": f"Bearer {REFEREE}"})
            assert r.status_code == 200, r.text


async def test_a_service_back_on_another_log_is_shown_as_that_log(tmp_path: Path, browser: Any) -> None:
    """The service restarted on another log (a new card, the next day's log, a table swapped) whose numbers
    reach past what the page had: the page asked `since=N` and was sent that log's events after N as if they
    followed its own, and its event list kept the first log's lines under the numbers both logs hold (南's
    penalties, never ruled at this table now). The page now names the log it holds and gets a snapshot of
    another; it shows the second log's lines only."""
    first = TableService(_config(), tmp_path / "a")
    await first.start()
    await first.controller.wait_linked(10)
    port = first.port
    await _penalties(first, "S", first.controller.state.seq + 6)
    page = await open_page(browser, first, "/")
    seen = first.controller.state.seq
    assert (await page.inner_text("#log")).count("迟到") == 6
    await first.stop()
    await page.wait_for_function("document.body?.dataset.connected === '0'")
    second = TableService(_config(port=port), tmp_path / "b")
    await second.start()
    try:
        await second.controller.wait_linked(10)
        await _penalties(second, "W", seen + 2)
        head = second.controller.state.seq
        await page.wait_for_function(f"window.__lastSeq === {head}", timeout=15000)
        await page.wait_for_function("document.body?.dataset.connected === '1'")
        shown = await page.eval_on_selector_all("#log li",
                                                "els => els.map(e => [Number(e.dataset.seq), e.textContent])")
        logged = [[line["seq"], line["text"]] for line in reversed(second.controller.state.log[-60:])]
        assert shown == logged
        assert "南" not in "".join(text for _, text in shown if "迟到" in text)
    finally:
        await second.stop()


async def test_the_score_sheet_is_drawn_again_only_when_it_changed(tmp_path: Path, browser: Any) -> None:
    """The Score sheet page left open drew every row of the round again at each event of a hand (the dice,
    each play), though those bring the sheet as it was (`kept`): its slowest step per event all day
    (`bench/page_long.py`). Now it is drawn when it changed (a penalty), or in the other language."""
    svc = TableService(_config(), tmp_path)
    await svc.start()
    try:
        await svc.controller.wait_linked(10)
        page = await open_page(browser, svc, "/scoresheet", token=REFEREE)
        mark = "() => { document.querySelector('#sheet-head tr').dataset.mark = '1'; }"
        drawn = "() => document.querySelector('#sheet-head tr').dataset.mark !== '1'"
        async with _http(svc) as http:
            play = await _dealt(svc, http)  # a hand in play: its row on the sheet
            await page.wait_for_function(f"window.__lastSeq >= {svc.controller.state.seq}")
            totals = await page.inner_text("#sheet-foot")
            await page.evaluate(mark)
            for seat, tile in (("E", "9p"), ("S", "1z"), ("W", "5s")):
                await play(type="discard", seat=seat, tile=tile)
                await page.wait_for_function(f"window.__lastSeq >= {svc.controller.state.seq}")
            assert not await page.evaluate(drawn)  # three discards: the sheet as it was, not drawn again
            r = await http.post("/api/referee/penalty", json={"seat": "S", "code": "late_5"},
                                headers={"Authorization": f"Bearer {REFEREE}"})
            assert r.status_code == 200, r.text
        await page.wait_for_function(f"window.__lastSeq >= {svc.controller.state.seq}")
        assert await page.evaluate(drawn) and await page.inner_text("#sheet-foot") != totals  # the penalty's
        await page.evaluate(mark)
        await page.click("#lang")
        assert await page.evaluate(drawn) and await page.inner_text("#sheet-head th >> nth=0") == "Hand"
    finally:
        await svc.stop()


async def _size(page: Any, cdp: Any) -> dict[str, float]:
    """What the page holds after a garbage collection: the JS heap (MB), nodes in its document, listeners."""
    await cdp.send("HeapProfiler.collectGarbage")
    metrics = {m["name"]: m["value"] for m in (await cdp.send("Performance.getMetrics"))["metrics"]}
    return {"heap": metrics["JSHeapUsedSize"] / 2**20, "listeners": metrics["JSEventListeners"],
            "dom": await page.evaluate("document.getElementsByTagName('*').length")}


async def test_a_page_through_many_events_and_five_drops_keeps_one_socket_and_its_size(
        tmp_path: Path, browser: Any) -> None:
    """A day in a few seconds (`bench/page_long.py` plays a whole one): the Penalties page through 600 referee
    actions while the venue's Wi-Fi resets five times. One socket open at the end (a reconnect loop that
    stacked would leave two), every action there, and the page no bigger than after the first hundred: the
    lists it shows are bounded (the last 30 actions, the last 60 log lines)."""
    svc = TableService(_config(), tmp_path)
    await svc.start()
    wifi = None
    try:
        await svc.controller.wait_linked(10)
        wifi = await Wifi(svc.port).start()
        page = await open_page(browser, svc, "/penalties", token=REFEREE, port=wifi.port)
        sockets: set[Any] = set()  # open now
        opened: list[Any] = []

        def seen(ws: Any) -> None:
            opened.append(ws)
            sockets.add(ws)
            ws.on("close", lambda *_: sockets.discard(ws))

        page.on("websocket", seen)
        cdp = await page.context.new_cdp_session(page)
        await cdp.send("Performance.enable")

        def rule(n: int) -> None:
            for i in range(n):
                svc.controller.referee_action("referee.penalty", {"seat": "ESWN"[i % 4], "code": "late_5"},
                                              by="referee")

        rule(100)
        await page.wait_for_function(f"window.__lastSeq === {svc.controller.state.seq}", timeout=20000)
        before = await _size(page, cdp)
        for _ in range(5):
            rule(100)
            await asyncio.sleep(0.05)
            wifi.cut()
            await asyncio.sleep(0.4)
        await page.wait_for_function(f"window.__lastSeq === {svc.controller.state.seq}", timeout=30000)
        await page.wait_for_function("document.body?.dataset.connected === '1'")
        after = await _size(page, cdp)
        assert len(sockets) == 1 and len(opened) >= 5, (len(sockets), len(opened))  # each reset: a new one
        assert await page.locator("#actions tr[data-seq]").count() == 30
        assert after["dom"] <= before["dom"] + 20, (before, after)
        assert after["listeners"] <= before["listeners"], (before, after)
        assert after["heap"] < before["heap"] * 1.5 + 1, (before, after)
    finally:
        if wifi is not None:
            await wifi.close()
        await svc.stop()

"""The hub's standings page and the table's health line in Debian's Chromium (Playwright), every part real."""

from __future__ import annotations

from pathlib import Path

import pytest
from tournament_helpers import Broker, until

from table_controller.config import parse_config
from table_controller.scoresheet import compute
from table_controller.service import TableService
from table_controller.tournament.web import HubService

pytestmark = pytest.mark.browser
CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
        "--disable-component-update", "--disable-sync"]


async def test_standings_page_and_the_tables_health_line(tmp_path: Path, broker: Broker) -> None:
    from playwright.async_api import async_playwright

    hub = HubService(broker.url, "cup", tmp_path / "hub", port=0)
    await hub.start()
    table = TableService(parse_config({
        "table": {"link": "sim://", "sim_speed": 100.0, "name": "一号桌"},
        "players": [{"position": i + 1, "name": n} for i, n in enumerate(["张伟", "李娜", "王芳", "陈杰"])],
        "display": {"port": 0, "operator_token": "op", "referee_token": "ref"},
        "tournament": {"broker": broker.url, "name": "cup", "table_id": "t1"},
    }, source="test"), tmp_path / "t1")
    await table.start()
    try:
        await table.controller.wait_linked(10)
        table.controller.referee_action("referee.penalty", {"seat": "S", "code": "exposed_other", "amount": 15,
                                                            "victim": "W"}, by="referee")
        sheet = compute(table.controller.state)
        await until(lambda: hub.hub.tables.get("t1") is not None and hub.hub.tables["t1"].state is not None
                    and hub.hub.tables["t1"].state["totals"] == sheet["totals"], 10, "the hub to have the penalty")
        async with async_playwright() as pw:
            browser = await pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            try:
                page = await browser.new_page()
                await page.goto(f"http://127.0.0.1:{hub.bound_port}/")
                await page.wait_for_selector('[data-player="王芳"]', timeout=5000)
                first = await page.inner_text("[data-testid=standings] tbody tr")
                assert "王芳" in first and "15" in first and first.strip().startswith("1")
                assert "排名" in await page.title() and "一号桌" in await page.inner_text("[data-testid=tables]")
                # the next round's seating, proposed from these standings: the four at one table
                await page.wait_for_selector('[data-testid=pairings] tr[data-table="t1"]', timeout=5000)
                assert "第 2 轮编排" in await page.inner_text("#pair-title")
                row = await page.inner_text('[data-testid=pairings] tr[data-table="t1"]')
                assert all(n in row for n in ("张伟", "李娜", "王芳", "陈杰")) and "再次相遇 6 对" in row
                await page.click("#lang")
                assert "standings" in await page.title()

                await page.goto(f"http://127.0.0.1:{table.port}/")
                line = page.locator("[data-testid=tournament-health]")
                await line.wait_for(timeout=8000)
                assert "赛事连线正常" in await line.inner_text()
                broker.stop()
                await page.wait_for_function(
                    "document.querySelector('[data-testid=tournament-health]').textContent.includes('中断')",
                    timeout=15000)
                assert await line.get_attribute("class") == "bad"
            finally:
                await browser.close()
    finally:
        await table.stop()
        await hub.stop()

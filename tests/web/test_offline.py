"""A venue without internet: every page the table and the hub serve loads nothing from another host.

Chromium is allowed to reach the service only (Playwright aborts a request to any other host, and the
test lists them). FastAPI's own `/docs` and `/redoc` fetched Swagger UI, ReDoc and Google's fonts from
CDNs and stayed blank offline; `/docs` is now drawn by the table itself.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import pytest

from table_controller.config import parse_config
from table_controller.service import TableService
from table_controller.tournament.broker import LocalBroker
from table_controller.tournament.web import HubService
from table_controller.web.app import PAGES
from tests.browsers import CHROMIUM, CHROMIUM_ARGS

pytestmark = pytest.mark.browser


async def page_request(context: Any, url: str) -> tuple[int, str]:
    """`url` fetched as the browser would: its status and media type."""
    answer = await context.request.get(url)
    return answer.status, answer.headers.get("content-type", "").split(";")[0]


async def test_every_page_of_the_table_and_the_hub_loads_only_from_the_pi(tmp_path: Path) -> None:
    from playwright.async_api import async_playwright

    broker = LocalBroker(tmp_path / "broker")
    broker.start()
    hub = HubService(broker.url, "cup", tmp_path / "hub", port=0)
    await hub.start()
    table = TableService(parse_config({"table": {"link": "sim://", "sim_speed": 1000.0},
                                       "display": {"port": 0, "operator_token": "op-offline",
                                                   "referee_token": "ref-offline-7"}}, source="test"), tmp_path / "t")
    await table.start()
    try:
        here = f"http://127.0.0.1:{table.port}"
        urls = [here + p for p in (*PAGES, "/docs", "/redoc", "/openapi.json")] + [hub.url]
        outside: list[tuple[str, str]] = []
        async with async_playwright() as pw:
            browser = await pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            try:
                context = await browser.new_context()

                async def only_the_pi(route: Any) -> None:
                    if urlparse(route.request.url).hostname != "127.0.0.1":
                        outside.append((route.request.frame.url, route.request.url))
                        await route.abort("internetdisconnected")
                    else:
                        await route.continue_()

                await context.route("**/*", only_the_pi)

                async def visit(url: str) -> None:
                    """`url` in a tab of its own until its network is idle (0.5 s without a request): the tabs
                    load side by side, so their quiet half seconds are waited together, not one after another."""
                    tab = await context.new_page()
                    # and nothing it asked for fails (the browser's own /favicon.ico was a 404 on every page)
                    tab.on("response", lambda r: failed.append((url, r.status, r.url)) if r.status >= 400 else None)
                    tab.on("console", lambda m: failed.append((url, m.type, m.text)) if m.type == "error" else None)
                    try:
                        answer = await tab.goto(url, wait_until="networkidle")
                        assert answer is not None and answer.ok, (url, answer and answer.status)
                    finally:
                        await tab.close()

                failed: list[tuple[str, Any, str]] = []
                await asyncio.gather(*(visit(url) for url in urls))
                assert outside == [], outside
                assert failed == [], failed
                # the icon every browser asks for (a JSON answer's tab too), and the pages' link to it
                for site in (here, hub.url.rstrip("/")):
                    icon = await page_request(context, site + "/favicon.ico")
                    assert icon == (200, "image/svg+xml"), (site, icon)
                page = await context.new_page()
                await page.goto(here + "/docs", wait_until="networkidle")
                text = await page.inner_text("body")
                # the reference is there, read without internet: the routes by path with what they do
                assert "/api/referee/win/confirm" in text and "Confirm the win as read" in text, text[:500]
                assert "/openapi.json" in text
                await page.goto(here + "/redoc")
                assert urlparse(page.url).path == "/docs"
            finally:
                await browser.close()
    finally:
        await table.stop()
        await hub.stop()
        broker.stop()

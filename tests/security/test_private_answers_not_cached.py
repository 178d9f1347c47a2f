"""A referee's answers are never kept by the browser of a tablet shared with the players.

The referee's reads carry concealed tiles (the hand as read at a win, the hands at 查叫), and the Penalties page
asks for the hand's referee record at every play. They went out with no `Cache-Control`, and Chromium wrote them
to the profile's disk cache: after 退出 the tablet still held the hand as read, before the win was confirmed.
Now every answer under /api/referee/ and /api/requests/, and every answer to a request with a credential, says
`no-store` (`web/private.py`). Checked on every route of the app, and in a real Chromium profile on disk."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from fastapi.routing import APIRoute
from fastapi.testclient import TestClient

from table_controller.config import parse_config
from table_controller.controller import Controller
from table_controller.service import TableService
from table_controller.store import EventStore
from table_controller.web.app import create_app
from table_controller.web.auth import Credentials

REFEREE, OPERATOR = "ref-cache-7715", "op-cache-7716"
CONCEALED = ["1m", "2m", "3m", "4m", "5m", "6m", "7m", "8m", "9m", "1p", "1p", "1p", "2p"]


async def _no_table(url: str) -> Any:
    raise ConnectionRefusedError(f"nothing at {url}")


def test_every_private_answer_says_no_store(tmp_path: Path) -> None:
    cfg = parse_config({"table": {"link": "socket://127.0.0.1:9"}}, "test")
    store = EventStore(tmp_path / "events.sqlite3")
    try:
        ctl = Controller(cfg, store, _no_table)
        ctl.accept("operator", "operator.hand_start", {"hand_no": 1, "ruleset": "mcr", "dealer_position": 1})
        ctl.accept("operator", "play.deal_done", {})
        app = create_app(ctl, Credentials(referee=REFEREE, operator=OPERATOR, max_failures=1000))
        with TestClient(app) as c:
            ref = {"Authorization": f"Bearer {REFEREE}"}
            r = c.post("/api/referee/win", headers={**ref, "Idempotency-Key": "k-cache-1"}, json={"hand": {
                "seat_wind": "N", "win": "self_draw", "concealed": CONCEALED, "win_tile": "2p"}})
            assert r.status_code == 200, r.text
            assert r.headers.get("cache-control") == "no-store"
            routes = sorted({r.path for r in app.routes if isinstance(r, APIRoute) and "GET" in r.methods
                             and r.path.startswith("/api/referee/")})
            assert "/api/referee/state" in routes and "/api/referee/hands/{hand_no}/record" in routes
            for path in routes:
                url = path.replace("{hand_no}", "1").replace("{seq}", "1")
                for headers in (ref, {}):  # answered or refused: neither is kept
                    got = c.get(url, headers=headers)
                    assert got.headers.get("cache-control") == "no-store", (url, headers, got.status_code)
            record = c.get("/api/referee/hands/1/record", headers=ref)
            assert record.status_code == 200 and '"7m","8m","9m"' in record.text  # the secret is in it
            for url, headers in (("/api/whoami", ref), ("/api/requests/k-cache-1", ref),
                                 ("/api/state", {"Authorization": f"Bearer {OPERATOR}"})):
                assert c.get(url, headers=headers).headers.get("cache-control") == "no-store", url
            # the public reads stay cacheable as they were (nothing private in them)
            assert c.get("/api/state").headers.get("cache-control") != "no-store"
    finally:
        store.close()


@pytest_asyncio.fixture(loop_scope="module")
async def service(tmp_path: Path) -> AsyncIterator[TableService]:
    svc = TableService(parse_config({"table": {"link": "sim://", "sim_seed": 11, "sim_speed": 1000.0},
                                     "display": {"port": 0, "operator_token": OPERATOR,
                                                 "referee_token": REFEREE}}, source="test"), tmp_path / "table")
    await svc.start()
    try:
        yield svc
    finally:
        await svc.stop()


@pytest.mark.browser
@pytest.mark.asyncio(loop_scope="module")
async def test_a_logged_out_tablets_browser_profile_holds_no_hand_as_read(service: TableService,
                                                                         tmp_path: Path) -> None:
    from playwright.async_api import async_playwright

    from tests.browsers import CHROMIUM, CHROMIUM_ARGS

    await _win_read(service)
    profile = tmp_path / "profile"
    async with async_playwright() as pw:
        context = await pw.chromium.launch_persistent_context(str(profile), executable_path=CHROMIUM,
                                                              args=CHROMIUM_ARGS)
        try:
            page = await context.new_page()
            await page.goto(f"http://127.0.0.1:{service.port}/penalties")
            async with page.expect_response(lambda r: "/api/referee/hands/" in r.url and r.status == 200) as got:
                await page.fill("#token", REFEREE)
                await page.click("#login button[type=submit]")
                await page.wait_for_function("document.body?.dataset.role === 'referee'")
            assert '"7m","8m","9m"' in await (await got.value).text()  # the page had the hand as read
            await page.click("#logout")
            await page.wait_for_function("document.body?.dataset.role === 'viewer' && window.__lastSeq > 0")
            await asyncio.sleep(1.0)  # the cache's writes reach the disk
        finally:
            await context.close()
    kept = [f for f in profile.rglob("*") if f.is_file() and b'"7m","8m","9m"' in f.read_bytes()]
    assert not kept, f"the referee's record of the hand as read is kept in the profile: {kept}"


async def _win_read(svc: TableService) -> None:
    import httpx

    from table_controller.controller import side_of_wind

    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{svc.port}") as http:
        await svc.controller.wait_linked(10)
        r = await http.post("/api/hand/start", headers={"Authorization": f"Bearer {OPERATOR}"})
        assert r.status_code == 200, r.text
        loop = asyncio.get_running_loop()
        end = loop.time() + 15
        while svc.controller.state.phase != "walls_raised":
            assert loop.time() < end
            await asyncio.sleep(0.02)
        while (hand := svc.controller.state.hand)["deal"] is None and hand["next_thrower"]:
            n = len(hand["throws"])
            svc.sim.press_button(seat=side_of_wind(hand["next_thrower"], hand["dealer_position"]), button="dice")
            while len(svc.controller.state.hand["throws"]) <= n:
                assert loop.time() < end
                await asyncio.sleep(0.02)
        r = await http.post("/api/referee/win", headers={"Authorization": f"Bearer {REFEREE}"}, json={"hand": {
            "seat_wind": "N", "win": "discard", "discarder": "E", "concealed": CONCEALED, "win_tile": "2p"}})
        assert r.status_code == 200, r.text

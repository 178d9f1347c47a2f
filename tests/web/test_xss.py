"""Names and free text reach the pages as text, never as markup, in a real Chromium.

Player names come from the config, from a round keyed by the referee and from the organiser's
registration list; notes, appeals and reasons are typed by referees. A name like
`<img src=x onerror=...>` rendered as markup would run script in the referee's page, where the
referee's credential lives (sessionStorage). Every page is opened as the referee and as a viewer
with such text everywhere it can be put, and no script may run.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest

from table_controller.config import parse_config
from table_controller.service import TableService
from table_controller.web.app import PAGES

pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="module")]

REFEREE = "ref-xss-token"
BAD = "<img src=x onerror=__xss=1>"


async def test_names_and_notes_are_shown_as_text_on_every_page(tmp_path: Path, chromium: Any) -> None:
    config = parse_config({
        "table": {"name": f"桌{BAD}", "link": "sim://", "sim_seed": 4, "sim_speed": 1000.0},
        "players": [{"position": 1, "name": BAD}, {"position": 2, "name": f'"{BAD}'},
                    {"position": 3, "name": "王芳"}, {"position": 4, "name": "陈杰"}],
        "display": {"port": 0, "operator_token": "op-xss", "referees": [{"name": f"裁{BAD}", "token": REFEREE}]},
    }, source="test")
    service = TableService(config, tmp_path)
    await service.start()
    try:
        await service.controller.wait_linked(10)
        auth = {"Authorization": f"Bearer {REFEREE}"}
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{service.port}") as http:
            for path, body in (("/api/referee/penalty", {"seat": "S", "code": "late_5", "note": BAD}),
                               ("/api/referee/appeal", {"position": 1, "text": BAD}),
                               ("/api/referee/session/start", {}),
                               ("/api/referee/session/pause", {"reason": BAD}),
                               ("/api/referee/undo", {"reason": BAD})):
                r = await http.post(path, json=body, headers=auth)
                assert r.status_code == 200, (path, r.text)
            appeal = next(a for a in service.controller.state.actions if a["type"] == "referee.appeal")
            r = await http.post("/api/referee/appeal/ruling", json={"appeal": appeal["seq"], "upheld": False,
                                                                     "note": BAD}, headers=auth)
            assert r.status_code == 200, r.text
        for who in ("referee", "viewer"):
            # each in a tab of its own: the viewer's holds no credential (sharing the referee's tab, its
            # sessionStorage kept the token and the viewer's pass was the referee's again)
            context = await chromium.new_context(viewport={"width": 1280, "height": 720})
            try:
                page = await context.new_page()
                for path in PAGES:
                    await page.goto(f"http://127.0.0.1:{service.port}{path}")
                    # logged in once, on the first page: the next ones log in by themselves with the tab's
                    # credential, awaited (a PIN typed meanwhile raced that login); the on-air pages have no login
                    await page.wait_for_function("document.body?.dataset.role")
                    if (who == "referee" and await page.evaluate("document.body.dataset.role") != "referee"
                            and await page.is_visible("#token")):
                        await page.fill("#token", REFEREE)
                        await page.click("#login button[type=submit]")
                        await page.wait_for_function("document.body?.dataset.role === 'referee'")
                    await page.wait_for_function(f"window.__lastSeq >= {service.controller.state.seq}")
                    if who == "viewer":
                        assert await page.evaluate("document.body.dataset.role") == "viewer", path
                    await page.wait_for_timeout(300)  # the page's renders after the snapshot
                    assert await page.evaluate("window.__xss") is None, (who, path)
                    assert await page.locator("img[src=x]").count() == 0, (who, path)
                if who == "viewer":
                    await page.goto(f"http://127.0.0.1:{service.port}/")
                    await page.wait_for_function(f"window.__lastSeq >= {service.controller.state.seq}")
                    assert BAD in await page.inner_text("body")  # shown, as text
            finally:
                await context.close()
    finally:
        await service.stop()

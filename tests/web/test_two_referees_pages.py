"""Two referees, one table, in Debian's Chromium against the running service: the referee page sends the
view it acted on (`seen`), so a confirmation pressed on a read another referee corrected in the meantime is
refused and said on the page, which then shows the read as it is and confirms it at the next press."""

from __future__ import annotations

from typing import Any

import pytest

from table_controller.service import TableService
from test_browser import REFEREE, WIN_HAND, _auth, _http, _open, _start_hand, _throw_all
from test_browser import browser, service  # noqa: F401  (the browser tests' fixtures, per module)

pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="module")]


def _confirmed(svc: TableService) -> list[str]:
    return [a["seat"] for a in svc.controller.state.actions
            if a["type"] == "referee.win_confirm" and not a.get("undone") and not a.get("error")]


async def test_a_confirmation_pressed_on_a_read_corrected_meanwhile_is_refused_on_the_page_then_taken(
        service: TableService, browser: Any) -> None:
    async with _http(service) as http:
        await _start_hand(service, http)
        await _throw_all(service)
        assert (await http.post("/api/referee/win", json={"hand": WIN_HAND}, headers=_auth(REFEREE))).status_code == 200
        page = await _open(browser, service, "/win", token=REFEREE)  # the floor referee's tablet: N's read
        await page.wait_for_function("state && state.win && state.win.seat === 'N'")
        sent: list[dict[str, Any]] = []

        async def meanwhile(route: Any) -> None:
            """The head referee's phone corrects the read (W won) while the tablet's press is on its way."""
            if not sent:
                fixed = await http.post("/api/referee/win", json={"hand": {**WIN_HAND, "seat_wind": "W"}},
                                        headers=_auth(REFEREE))
                assert fixed.status_code == 200, fixed.text
            sent.append(route.request.post_data_json)
            await route.continue_()

        await page.route("**/api/referee/win/confirm", meanwhile)
        seen = await page.evaluate("state.seq")
        await page.click("#win-confirm")
        await page.wait_for_function("document.getElementById('action-msg').textContent.includes('未执行')")
        said = await page.inner_text("#action-msg")
        assert said.startswith("✗ 未执行：你的页面显示之后") and "读牌" in said, said
        assert sent == [{"seen": seen}] and _confirmed(service) == []  # before: {} sent, W's win confirmed
        await page.wait_for_function("state.win.seat === 'W'")  # the page shows the read as it is now
        await page.click("#win-confirm")  # pressed again at once, on that view: taken
        await page.wait_for_selector('[data-testid="win-status"].confirmed')
        assert _confirmed(service) == ["W"] and sent[-1]["seen"] > seen

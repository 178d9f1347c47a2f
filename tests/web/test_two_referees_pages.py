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


async def test_a_confirmation_pressed_as_the_pages_own_read_is_answered_is_taken(service: TableService,
                                                                                  browser: Any) -> None:
    """The read's answer (HTTP) comes before its event on the page's socket (another connection, a busy
    Wi-Fi): 确认和牌 pressed in between was sent on the view before the page's own read, and refused as
    if another referee had changed it (pressing again worked). The page names its own actions (`mine`)."""
    async with _http(service) as http:
        await _start_hand(service, http)
        await _throw_all(service)
    page = await browser.new_page()
    lagging: list[Any] = []  # what the service's socket sends while the link lags: held, then delivered
    lag = {"on": False}
    pages: list[Any] = []  # the page's side of its socket

    async def socket(ws: Any) -> None:
        server = ws.connect_to_server()
        pages.append(ws)
        server.on_message(lambda m: lagging.append(m) if lag["on"] else ws.send(m))
        ws.on_message(server.send)

    await page.route_web_socket("**/ws/**", socket)
    page = await _open(browser, service, "/win", token=REFEREE, page=page)
    await page.select_option("#win-form select[name=seat_wind]", "N")
    await page.select_option("#win-form select[name=win]", "discard")
    await page.select_option("#win-form select[name=discarder]", "E")
    await page.fill("#win-form input[name=concealed]", " ".join(WIN_HAND["concealed"]))
    await page.fill("#win-form input[name=win_tile]", "2p")
    seen = await page.evaluate("state.seq")
    bodies: list[dict[str, Any]] = []

    async def noted(route: Any) -> None:
        bodies.append(route.request.post_data_json)
        await route.continue_()

    await page.route("**/api/referee/win/confirm", noted)
    lag["on"] = True
    await page.click("#win-read")
    await page.wait_for_function("document.getElementById('action-msg').textContent.startsWith('✓ 已记录 #')")
    read = service.controller.state.seq
    assert await page.evaluate("state.seq") == seen and lagging  # the read's event is still on its way
    await page.click("#win-confirm")
    await page.wait_for_function(f"document.getElementById('action-msg').textContent.startsWith('✓ 已记录 #')"
                                 f" && !document.getElementById('action-msg').textContent.includes('#{read}')",
                                 timeout=5000)
    assert bodies == [{"seen": seen, "mine": [read]}]  # before: {"seen": seen}, refused 409 naming #read
    assert _confirmed(service) == ["N"]
    lag["on"] = False
    for message in lagging:  # the link catches up: the page shows the read and its confirmation
        pages[-1].send(message)
    await page.wait_for_function(f"state.seq >= {service.controller.state.seq}")
    await page.wait_for_selector('[data-testid="win-status"].confirmed')

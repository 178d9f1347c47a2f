"""Steps of the referee's guide (docs/referee-guide.zh.md) taken on the Table page in Debian's Chromium, against the
running service on the simulated table, in the guide's order: 定庄 before the round's first hand, and the next hand
once a win is confirmed."""

from __future__ import annotations

from typing import Any

import pytest

from table_controller.service import TableService
from test_browser import OPERATOR, REFEREE, WIN_HAND, _auth, _dealt, _http, _open, _until
from test_browser import browser, service  # noqa: F401  (the browser tests' fixtures, per module)

pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="module")]


async def test_the_first_dealers_throw_is_keyed_on_the_table_page(service: TableService, browser: Any) -> None:
    """二、2 定庄: 1号位 throws before the round's first hand; 录入骰子 keys a throw the table does not report. The
    form came only with a hand, so a table without dice (or with fewer than the ruleset's) could not key the 定庄
    throw the service takes: its first dealer was always 1号位. The form is there now, its 掷骰方 by chair."""
    page = await _open(browser, service, "/", token=OPERATOR)
    assert (await page.inner_text("[data-testid=break]")).startswith("定庄：请1号位掷骰")
    form = page.locator("[data-testid=dice-form]")
    assert await form.is_visible()
    assert await form.locator("select[name=seat] option").all_inner_texts() == [
        "1号位 张伟", "2号位 李娜", "3号位 王芳", "4号位 陈杰"]
    await form.locator("input[name=dice]").fill("4 4")  # 8, counted from 1号位 anticlockwise: 4号位
    await form.locator("button[type=submit]").click()
    await page.wait_for_function("document.querySelector('[data-testid=break]').textContent === '定庄：4号位坐庄'")
    assert await form.is_hidden()
    async with _http(service) as http:
        r = await http.post("/api/hand/start", headers=_auth(OPERATOR))
        assert r.status_code == 200, r.text
    assert service.controller.state.hand["dealer_position"] == 4
    await page.wait_for_function("document.querySelector('[data-testid=dice-form] select').selectedOptions[0]"
                                 ".textContent === '东 陈杰'")  # the hand's throw is by wind again


async def test_the_next_hand_after_a_confirmed_win_is_dealt_on_without_stopping_the_won_one(
        service: TableService, browser: Any) -> None:
    """三 和牌 then 开始新一盘: a win confirmed does not end the hand (结束本盘 does), and 开始新一盘 pressed then
    asked to stop the hand as 中止 (same dealer again). Taken, the sheet counted the win while the next hand went
    to the same dealer: MCR's 16 hands became 17. The won hand is recorded as won and the deal passes, unasked."""
    async with _http(service) as http:
        play = await _dealt(service, http)
        await play(type="discard", seat="E", tile="2p")
        for path, body in (("/api/referee/win", {"hand": WIN_HAND}), ("/api/referee/win/confirm", {})):
            r = await http.post(path, json=body, headers=_auth(REFEREE))
            assert r.status_code == 200, r.text
    page = await _open(browser, service, "/", token=OPERATOR)
    asked: list[str] = []

    async def dismiss(dialog: Any) -> None:
        asked.append(dialog.message)
        await dialog.dismiss()

    page.on("dialog", dismiss)
    await page.click("#start-hand")
    assert not asked, asked
    await _until(lambda: (service.controller.state.hand or {}).get("hand_no") == 2, timeout=5)
    state = service.controller.state
    assert state.hands[-1]["result"] == "win"
    assert state.hand["dealer_position"] == 2


async def test_a_substitute_is_named_on_the_broadcast_and_in_the_keying_forms_seat(service: TableService,
                                                                                  browser: Any) -> None:
    """八 换人: the substitute plays from the next hand and the Table page names them at the seat. The broadcast
    (/overlay, what the public view puts on air) and 录入牌局's 座位 still named the player replaced: the operator
    keyed 南 李娜's discards for 赵六. Both say who sits now."""
    async with _http(service) as http:
        r = await http.post("/api/referee/substitute", json={"position": "2", "name": "赵六", "reason": "身体不适，无法继续"},
                            headers=_auth(REFEREE))
        assert r.status_code == 200, r.text
    table = await _open(browser, service, "/", token=OPERATOR)
    assert "赵六" in await table.inner_text('#seats [data-seat="S"] .name')  # as before: the Table page's seat
    seat = await table.locator("#play-form select[name=seat] option[value=S]").inner_text()
    assert seat == "南 赵六", seat
    overlay = await _open(browser, service, "/overlay")
    assert await overlay.inner_text("[data-testid=ov-seat-S] .name") == "赵六"

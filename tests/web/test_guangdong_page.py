"""A 广东推倒胡 table's pages in Chromium: the Score sheet names 跟庄 where the dealer paid it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from table_controller.config import parse_config
from table_controller.service import TableService
from test_browser import OPERATOR, REFEREE, _dealt, _http, _open, _start_hand, _throw_all
from test_browser import browser  # noqa: F401  (the browser tests' fixtures, per module)

pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="module")]


@pytest_asyncio.fixture(loop_scope="module")
async def tuidaohu_table(tmp_path: Path) -> Any:
    config = parse_config({"table": {"link": "sim://", "sim_seed": 5, "sim_speed": 100.0},
                           "rules": {"ruleset": "tuidaohu"},
                           "display": {"port": 0, "operator_token": OPERATOR, "referee_token": REFEREE}},
                          source="test")
    svc = TableService(config, tmp_path / "tuidaohu")
    await svc.start()
    await svc.controller.wait_linked(10)
    yield svc
    await svc.stop()


async def test_the_sheet_names_the_follow_the_dealer_paid(tuidaohu_table: TableService, browser: Any) -> None:
    svc = tuidaohu_table
    async with _http(svc) as http:
        play = await _dealt(svc, http)
        for seat in "ESWN":
            await play(type="discard", seat=seat, tile="7z")
        sheet = (await http.get("/api/scoresheet")).json()
    dealer = str(svc.controller.state.hand["seats"]["E"])
    row = sheet["rows"][-1]
    assert row["follow_points"][dealer] == -3 and sorted(row["follow_points"].values()) == [-3, 1, 1, 1]
    page = await _open(browser, svc, "/scoresheet", token=REFEREE)
    await page.wait_for_selector("#sheet-body tr[data-hand='1'] small")
    notes = await page.eval_on_selector_all("#sheet-body small", "els => els.map(e => e.textContent.trim())")
    assert sorted(notes) == ["(跟庄 +1)", "(跟庄 +1)", "(跟庄 +1)", "(跟庄 -3)"]
    await page.click("#lang")
    await page.wait_for_function("document.querySelector('#sheet-head th').textContent === 'Hand'")
    notes = await page.eval_on_selector_all("#sheet-body small", "els => els.map(e => e.textContent.trim())")
    assert "(follow the dealer -3)" in notes


async def test_the_win_page_keys_horses_counted_from_the_discarder(tuidaohu_table: TableService, browser: Any) -> None:
    """The record cannot see the 买马 tiles nor, at the first winner of a 一炮多响, that another will follow: the
    Win page asks both, in Chinese (马牌（开马）, 一炮多响：马从点炮方数起)."""
    svc = tuidaohu_table
    async with _http(svc) as http:
        if svc.controller.state.hand is None or svc.controller.state.hand.get("ended"):
            await _start_hand(svc, http)
            await _throw_all(svc)
    page = await _open(browser, svc, "/win", token=REFEREE)
    form = "#win-form"
    box = page.locator(f"{form} label[data-option=horse_origin]")
    assert await box.is_visible() and (await box.inner_text()).strip() == "一炮多响：马从点炮方数起"
    assert (await page.locator(f"{form} label[data-option=horses]").inner_text()).strip() == "马牌（开马）"
    await page.select_option(f"{form} select[name=seat_wind]", "W")
    await page.select_option(f"{form} select[name=win]", "discard")
    await page.select_option(f"{form} select[name=discarder]", "S")
    await page.fill(f"{form} input[name=concealed]", "112233446677m 5p")
    await page.fill(f"{form} input[name=win_tile]", "5p")
    await page.fill(f"{form} input[name=horses]", "2m")
    await page.check(f"{form} input[name=horse_origin]")
    n = len(svc.controller.state.actions)
    await page.click("#win-read")
    await page.wait_for_selector('[data-testid="win-status"].pending')
    read = svc.controller.state.actions[n]
    assert read["hand"]["options"] == {"horses": ["2m"], "horse_origin": "S"}
    assert read["result"]["payments"]["W"] == 32  # 七对 16, the horse on W from S: once more

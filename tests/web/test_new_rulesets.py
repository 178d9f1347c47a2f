"""河北 and 内蒙 on the live table's Win page, in Chromium: the fan table shows what each is scored by (河北's
基点, 内蒙's 门槛), and a 内蒙 win read without 开门 is refused with the reason in Chinese, then read opened."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from table_controller.config import parse_config
from table_controller.service import TableService
from test_browser import OPERATOR, REFEREE, _http, _open, _start_hand, _throw_all, _until
from test_browser import browser  # noqa: F401  (the browser tests' fixtures, per module)

pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="module")]


async def _service(ruleset: str, tmp_path: Path) -> TableService:
    config = parse_config({"table": {"link": "sim://", "sim_seed": 11, "sim_speed": 1000.0},
                           "rules": {"ruleset": ruleset},
                           "display": {"port": 0, "operator_token": OPERATOR, "referee_token": REFEREE}}, source="test")
    svc = TableService(config, tmp_path)
    await svc.start()
    await svc.controller.wait_linked(10)
    return svc


async def _hand_dealt(svc: TableService) -> None:
    async with _http(svc) as http:
        await _start_hand(svc, http)
    await _throw_all(svc)


async def _fan_book(page: Any, row: str) -> str:
    await page.click("#fan-book-box summary")
    await page.wait_for_selector(f"[data-testid=fan-book] tr:has-text('{row}')")
    return str(await page.inner_text("[data-testid=fan-book]"))


async def test_the_hebei_fan_table_shows_its_base(browser: Any, tmp_path: Path) -> None:
    svc = await _service("hebei", tmp_path)
    try:
        page = await _open(browser, svc, "/win", token=REFEREE)
        book = await _fan_book(page, "和牌")
        assert "基点为1、2、3" in book and "自摸三家各付" in book
    finally:
        await svc.stop()


async def test_a_neimeng_win_not_opened_is_refused_on_the_win_page(browser: Any, tmp_path: Path) -> None:
    svc = await _service("neimeng", tmp_path)
    try:
        await _hand_dealt(svc)
        page = await _open(browser, svc, "/win", token=REFEREE)
        book = await _fan_book(page, "门槛：开门")
        assert "门槛：有刻" in book and "门槛：幺九或箭刻" in book and "裁判计分" in book
        form = "#win-form"
        await page.select_option(f"{form} select[name=seat_wind]", "S")
        await page.select_option(f"{form} select[name=win]", "discard")
        await page.select_option(f"{form} select[name=discarder]", "E")
        await page.fill(f"{form} input[name=concealed]", "123m 234p 678s 9m 555z")
        await page.fill(f"{form} input[name=win_tile]", "9m")
        await page.fill(f"{form} input[name=points]", "4")
        await page.click("#win-read")
        await page.wait_for_selector("#win-summary:has-text('不够和牌条件（开门）')")
        assert svc.controller.state.actions[-1]["result"]["reason"] == "not_opened"
        await page.fill(f"{form} input[name=concealed]", "234p 678s 9m 555z")
        await page.fill(f"{form} input[name=melds]", "吃 234m 东")
        await page.click("#win-read")
        await page.wait_for_selector('[data-testid="win-status"].pending')
        await _until(lambda: bool(svc.controller.state.actions[-1].get("result", {}).get("valid")))
        assert svc.controller.state.actions[-1]["result"]["payments"] == {"E": -4, "S": 4, "W": 0, "N": 0}
    finally:
        await svc.stop()


async def test_a_riichi_copy_under_its_own_id_asks_riichi_on_the_win_page(browser: Any, tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """A venue's riichi under its own id (`[scoring] engine = "riichi"`): the Win page shows 立直, 一发, 宝牌 ... as
    for riichi, and what the referee ticks reaches the scorer; 竞技's copy lists 包付, 倍打, 诈和. Before, the
    options were chosen by `family == "riichi"`: the copy's page had none, its wins scored without 立直."""
    from tests.scoring.test_engines import _venue_copy

    rulesets = tmp_path / "rulesets"
    rulesets.mkdir()
    _venue_copy(rulesets, "riichi", "dojo", "riichi")
    _venue_copy(rulesets, "jingji", "jingji_city", "jingji")
    monkeypatch.setenv("TABLECTL_RULESETS_DIR", str(rulesets))
    svc = await _service("dojo", tmp_path / "dojo")
    try:
        await _hand_dealt(svc)
        page = await _open(browser, svc, "/win", token=REFEREE)
        shown = ["riichi", "ippatsu", "dora", "ura_dora", "honba", "first_turn"]
        await page.wait_for_selector("#win-options label[data-option=riichi]", state="visible")
        for name in ["points", "special", "wildcard", "horses", *shown]:
            assert await page.is_visible(f"#win-options label[data-option={name}]") == (name in shown), name
        form = "#win-form"
        await page.select_option(f"{form} select[name=seat_wind]", "S")
        await page.select_option(f"{form} select[name=win]", "discard")
        await page.select_option(f"{form} select[name=discarder]", "W")
        await page.fill(f"{form} input[name=concealed]", "22444m333567p44s")
        await page.fill(f"{form} input[name=win_tile]", "4s")
        await page.check(f"{form} input[name=riichi]")
        await page.fill(f"{form} input[name=honba]", "1")
        await page.click("#win-read")
        # nothing logged before the read reaches the table (a loaded CI looked first: actions empty)
        await _until(lambda: bool(svc.controller.state.actions
                                  and svc.controller.state.actions[-1].get("result", {}).get("valid")))
        result = svc.controller.state.actions[-1]["result"]
        assert [f["name"] for f in result["fans"]] == ["立直", "断幺九"] and result["payments"]["S"] == 2900
    finally:
        await svc.stop()
    svc = await _service("jingji_city", tmp_path / "jingji_city")
    try:
        page = await _open(browser, svc, "/win", token=REFEREE)
        book = await _fan_book(page, "包付")
        assert "一家支付三家分" in book and "庄家和牌连庄" in book and "罚分10分一个单位" in book
    finally:
        await svc.stop()

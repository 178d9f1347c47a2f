"""Whole 广东推倒胡 hands kept by the pages alone, in Debian's Chromium (Playwright): the operator keys them on the
Table page (录入牌局), the referee reads and confirms each win on the Win page, turning up the 买马 horses where
the Table page marks them, and the score sheet ends them. No API call by hand: the simulated table's dice buttons
are the players' presses. The service is real (a simulated table on a real pty, uvicorn on a loopback port, SQLite).

Hand 1 (every tile counted, at most four of each; no 吃 in 推倒胡): E 5p, S 碰 5p, S 9m, W 1z, N 暗杠 8s (2 倍 from
each), N 2z, E 3z, S 加杠 5p: W robs it (抢杠胡 8 倍, 234m 567m 789m 22s 46p + 5p), the konger pays three shares
(24); the horses 1m 2m 3p 4p count from W: 1m on W wins once more from the konger, 4p on S makes S pay once more.
Hand 2 (白板 the 鬼牌): E 9p, S 明杠 9p (点杠: E pays 3), S 1z, W 2z, N 3z, E 4z, S 自摸 234m 567m 22s 4p 白板 + 6p
(鸡胡 2 × 自摸 2: 4 from each; read first with 5p for the 白板: 硬胡, 8 from each, and corrected). The Win page's
line under 合计 says each step from the total to the payment (自摸 ×2, 硬胡 ×2, 底分, 包三家).
The last test: each ruleset's unit (倍, 张, 番, 分) where the pages said 番 for all.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from table_controller.service import TableService
from test_blood_battle_pages import FORM, WIN, _fill_win, _keyed, _read_and_confirm, _win_form
from test_browser import OPERATOR, REFEREE, _config, _open, _running, _throw_all, _until
from test_browser import browser  # noqa: F401  (the browser tests' fixtures, per module)

pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="module")]


async def test_a_tuidaohu_hand_with_a_robbed_kong_and_horses_is_kept_by_the_pages_alone(tmp_path: Path,
                                                                                      browser: Any) -> None:
    """The operator's keys and the referee's forms carry a 推倒胡 hand from the dice to the score sheet."""
    async with _running(_config(ruleset="tuidaohu"), tmp_path / "own") as svc:
        ctl = svc.controller
        table = await _open(browser, svc, "/", token=OPERATOR)
        await table.click("#start-hand")
        await _until(lambda: ctl.state.phase == "walls_raised")
        await _throw_all(svc)
        await table.wait_for_selector(f"{FORM}:not([hidden])")
        # 推倒胡: no 吃, no 补花 (136 tiles, no flowers), no 定缺
        for key in ("chow", "flower", "missing:m"):
            assert not await table.is_visible(f"{FORM} [data-play='{key}']"), key
        await table.click(f"{FORM} [data-play=deal_done]")
        await _until(lambda: ctl.state.hand.get("turn") is not None)
        await table.wait_for_function(f"document.querySelector('{FORM} select[name=seat]').value === 'E'", timeout=5000)
        await _keyed(table, "5p")
        assert "南家碰 五筒（东家打出）" in await _keyed(table, "s", "pung")
        for tile in ("9m", "1z"):
            await _keyed(table, tile)
        assert "北家暗杠 八条" in await _keyed(table, "8s", "concealed")
        for tile in ("2z", "3z"):
            await _keyed(table, tile)
        assert "南家加杠 五筒" in await _keyed(table, "s5p", "added")

        # W robs S's 加杠: 方式 抢杠和 and 点炮方 the konger, as the form starts
        win = await _open(browser, svc, "/win", token=REFEREE)
        await win.select_option(f"{WIN} select[name=seat_wind]", "W")
        assert await _win_form(win) == {"seat_wind": "W", "discarder": "S", "win": "rob_kong", "melds": ""}
        # in the ruleset's word, as its fan table and the payment line say it (the form said 抢杠和)
        await win.wait_for_function("document.querySelector('#fan-book').rows.length > 0")
        assert await win.inner_text(f"{WIN} select[name=win] option[value=rob_kong]") == "抢杠胡"
        # the page's static text written again, as when the state brings the ruleset's unit after the fan table came
        # (1 run in 5 under load put 抢杠和 back): the word stays
        await win.evaluate("renderStatic()")
        assert await win.inner_text(f"{WIN} select[name=win] option[value=rob_kong]") == "抢杠胡"
        await _fill_win(win, "234m 567m 789m 22s 46p", "5p")
        await _read(win, svc, "W")
        assert await win.inner_text("#payments") == "东 张伟\n0\n南 李娜\n-24\n西 王芳\n+24\n北 陈杰\n0"
        # the win read, the Table page marks the 4 horses to turn up (at the tail, after the replacements drawn)
        await table.wait_for_function(f"window.__lastSeq >= {ctl.state.seq}")
        assert await table.locator("[data-pos].handend").count() == 4
        marked = await table.eval_on_selector_all("[data-pos].handend", "els => els.map(e => e.dataset.pos)")
        assert sorted(marked) == sorted(ctl.state.hand["wall_now"]["hand_end"])
        # 更正 with the horses turned up: 1m counts to W (the winner), 2m N, 3p E, 4p S (the konger)
        await win.fill(f"{WIN} input[name=horses]", "1m 2m 3p 4p")
        await _read_and_confirm(win, svc, "W")
        assert ctl.state.actions[-2]["hand"]["options"] == {"horses": ["1m", "2m", "3p", "4p"]}
        assert (await win.inner_text("#fans")).strip() == "抢杠胡\t8\t1"
        # from 合计 to the konger's 24: the horses are the line below
        assert await win.inner_text('[data-testid="win-steps"]') == "合计 8 倍 × 底分 1 = 8；抢杠胡包三家：南 8 × 3 = 24"
        assert await win.inner_text('[data-testid="win-horses"]') == \
            "马牌：一万→西 王芳 · 二万→北 陈杰 · 三筒→东 张伟 · 四筒→南 李娜（中马 1 张）"
        # the konger pays all: 24, once more for the horse on the winner, once more for the horse on itself
        assert await win.inner_text('#wins-list li[data-seat="W"]') == "西 王芳 8 倍 · 南 -72 · 西 +72"
        await table.wait_for_function(f"window.__lastSeq >= {ctl.state.seq}")
        assert "抢杠胡 8" in await table.inner_text("#win-banner")
        assert "合计 8 倍" in await table.inner_text("#win-banner")  # its unit, as the Win page and the sheet say
        # and how 8 becomes the konger's 24, as on the Win page: on the Table page and the public one
        steps = "合计 8 倍 × 底分 1 = 8；抢杠胡包三家：南 8 × 3 = 24"
        assert await table.inner_text('[data-testid="banner-steps"]') == steps
        public = await _open(browser, svc, "/public")
        assert await public.inner_text('[data-testid="banner-steps"]') == steps
        await public.close()

        table.once("dialog", lambda dialog: pytest.fail(f"asked: {dialog.message}"))
        await table.click("#end-hand")
        await _until(lambda: bool(ctl.state.hands) and ctl.state.hands[-1]["result"] == "win")

        # hand 2 (W won, not the dealer: the deal passes): S 明杠 E's 9p (点杠: E pays 3), S 自摸 with 白板 the
        # 鬼牌 standing in 456p. The referee first types 5p for the 白板 (no 鬼牌 held: 硬胡, 8 each), then corrects it
        await table.click("#start-hand")
        await _until(lambda: ctl.state.hand["hand_no"] == 2 and ctl.state.phase == "walls_raised")
        await _throw_all(svc)
        await table.wait_for_selector(f"{FORM}:not([hidden])")
        assert await table.locator("[data-pos].handend").count() == 0  # a new hand: its tail is the replacements'
        await table.click(f"{FORM} [data-play=deal_done]")
        await _until(lambda: ctl.state.hand.get("turn") is not None)
        await table.wait_for_function(f"document.querySelector('{FORM} select[name=seat]').value === 'E'", timeout=5000)
        await _keyed(table, "9p")
        assert "南家明杠 九筒（东家打出）" in await _keyed(table, "s", "kong")
        for tile in ("1z", "2z", "3z", "4z"):
            await _keyed(table, tile)
        await win.wait_for_function(f"window.__lastSeq >= {ctl.state.seq}")
        await win.select_option(f"{WIN} select[name=seat_wind]", "S")
        await win.select_option(f"{WIN} select[name=win]", "self_draw")
        assert await _win_form(win) == {"seat_wind": "S", "discarder": "E", "win": "self_draw",
                                        "melds": "明杠 9p 9p 9p 9p 东"}  # S's kong as the record holds it
        assert await win.is_disabled(f"{WIN} select[name=discarder]")
        # the new hand's form holds none of the last hand's options: its horses were turned up for that win only
        assert [await win.input_value(f"{WIN} input[name={n}]") for n in ("horses", "wildcard")] == ["", ""]
        await _fill_win(win, "234m 567m 22s 4p 5p", "6p", wildcard="5z")
        await _read(win, svc, "S")
        # 硬胡 multiplies as 自摸 does: a step from 合计 to the payment, not a 番型 in the fan table
        assert (await win.inner_text("#fans")).strip() == "鸡胡\t2\t1"
        assert await win.inner_text('[data-testid="win-steps"]') == "合计 2 倍 × 自摸 2 × 硬胡 2 × 底分 1 = 每家 8"
        assert await win.inner_text("#payments [class~=pay]:nth-child(1) strong") == "-8"
        await win.fill(f"{WIN} input[name=concealed]", "234m 567m 22s 4p 5z")
        await _read_and_confirm(win, svc, "S")
        assert (await win.inner_text("#fans")).strip() == "鸡胡\t2\t1"
        assert await win.inner_text('[data-testid="win-steps"]') == "合计 2 倍 × 自摸 2 × 底分 1 = 每家 4"
        assert "南 王芳 2 倍 · 东 -4 · 南 +12 · 西 -4 · 北 -4" == await win.inner_text('#wins-list li[data-seat="S"]')
        await table.wait_for_function(f"window.__lastSeq >= {ctl.state.seq}")
        await table.click("#end-hand")
        await _until(lambda: len(ctl.state.hands) == 2)

        # the score sheet: two rows, the ruleset's unit (倍) over the winners' totals, the kongs apart
        sheet = await _open(browser, svc, "/scoresheet", token=REFEREE)
        assert await sheet.inner_text("#sheet-head th:nth-child(5)") == "倍"
        row = sheet.locator("#sheet-body tr[data-hand='2'] td")
        assert await row.nth(3).inner_text() == "和牌 · 王芳" and await row.nth(4).inner_text() == "2"
        assert "(杠 -3)" in await row.nth(6).inner_text() and "(杠 +3)" in await row.nth(7).inner_text()
        assert [await sheet.inner_text(f'[data-testid="total-{p}"]') for p in "1234"] == ["-6", "-81", "85", "2"]


@pytest.mark.parametrize(("ruleset", "unit", "unit_en"), [("tuidaohu", "倍", "Multiples"), ("nanning", "张", "Fan"),
                                                           ("mcr", "番", "Fan"), ("jingji", "分", "Points")])
async def test_the_pages_count_a_win_in_the_rulesets_unit(ruleset: str, unit: str, unit_en: str, tmp_path: Path,
                                                           browser: Any) -> None:
    """A 推倒胡 referee reads 倍, a 南宁 one 张, a 竞技 one 分 where the Win page's fan table and the score sheet
    said 番 for every ruleset; 番种 stays (a named scoring element)."""
    async with _running(_config(ruleset=ruleset), tmp_path / "own") as svc:
        win = await _open(browser, svc, "/win", token=REFEREE)
        heads = await win.eval_on_selector_all("th[data-i18n='win.value']", "els => els.map(e => e.textContent)")
        assert heads == [f"{unit}数", f"{unit}数"]  # the read's fan table and the 本规则番种表
        assert await win.inner_text("#fan-table th[data-i18n='win.fan']") == "番种"
        sheet = await _open(browser, svc, "/scoresheet", token=REFEREE)
        await sheet.wait_for_selector("#sheet-head th")
        assert await sheet.inner_text("#sheet-head th:nth-child(5)") == unit
        await sheet.click("#lang")
        await sheet.wait_for_function("document.querySelector('#sheet-head th').textContent === 'Hand'")
        assert await sheet.inner_text("#sheet-head th:nth-child(5)") == unit_en


async def _read(page: Any, svc: TableService, seat: str) -> dict[str, Any]:
    """读牌 / 更正 with the form as filled; the read, valid, once the page shows it."""
    n = len(svc.controller.state.actions)
    await page.click("#win-read")
    await _until(lambda: len(svc.controller.state.actions) > n
                 and svc.controller.state.actions[-1]["type"] == "referee.win_read"
                 and svc.controller.state.actions[-1].get("seat") == seat)
    read = svc.controller.state.actions[-1]
    assert read["result"]["valid"], read["result"]
    await page.wait_for_function(f"window.__lastSeq >= {read['seq']}")
    return read

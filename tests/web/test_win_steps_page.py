"""The Win page's line under 合计 that takes the referee from the total to what one payer pays, in Chromium.

Before, a 推倒胡 鸡胡 自摸 without 鬼牌 read the rows 鸡胡 2 / 硬胡 2, 合计 2, and each seat paid 8: 自摸 ×2 was
shown nowhere and 硬胡, a factor, sat in the fan table as a 番型 yet was not in 合计; a 鸡平胡 清一色 自摸 read 合计 8
番 and each paid 8, its 爆胡 (封顶 3 番) and 2^番 unsaid. The service is real (a simulated table on a pty, SQLite).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from test_browser import _config, _running, _win_form
from test_browser import browser  # noqa: F401  (the browser tests' fixtures, per module)

pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="module")]

STEPS = '[data-testid="win-steps"]'


async def _read(page: Any) -> None:
    await page.click("#win-read")
    await page.wait_for_selector('[data-testid="win-status"].pending')


async def _english(page: Any) -> str:
    await page.click("#lang")
    await page.wait_for_function(f"document.querySelector('{STEPS}').textContent.startsWith('Total')")
    return str(await page.inner_text(STEPS))


@pytest.mark.parametrize(("ruleset", "concealed", "win_tile", "wildcard", "fans", "zh", "en"), [
    ("tuidaohu", "123m 456p 789s 1122z", "2z", "5z", "鸡胡\t2\t1",
     "合计 2 倍 × 自摸 2 × 硬胡 2 × 底分 1 = 每家 8",
     "Total 2 multiples × self-draw 2 × no wildcard 2 × base 1 = 8 each"),
    ("jipinghu", "123m 456m 789m 11m 55m", "5m", "", "清一色\t6\t1\n自摸\t1\t1\n门清\t1\t1",
     "合计 8 番 → 爆胡 3 番 → 2^3 × 底分 1 = 每家 8",
     "Total 8 fan → cap 3 fan → 2^3 × base 1 = 8 each"),
], ids=["tuidaohu", "jipinghu"])
async def test_the_win_page_says_how_the_total_becomes_each_payment(
        ruleset: str, concealed: str, win_tile: str, wildcard: str, fans: str, zh: str, en: str,
        tmp_path: Path, browser: Any) -> None:
    """南 自摸 under 推倒胡 (鬼牌 白板 played, none held: 硬胡) and under 鸡平胡 (清一色, over 爆胡): the fan table holds
    番型 only, and the line multiplies 合计 out to the 8 each seat pays, in Chinese and in English."""
    async with _running(_config(ruleset=ruleset), tmp_path / "own") as svc:
        page = await _win_form(browser, svc, "S", "self_draw", concealed, win_tile)
        assert await page.is_hidden(STEPS)  # no read yet: no line
        if wildcard:
            await page.fill("#win-form input[name=wildcard]", wildcard)
        await _read(page)
        assert (await page.inner_text("#fans")).strip() == fans
        assert await page.inner_text(STEPS) == zh
        assert svc.controller.state.actions[-1]["result"]["payments"] == {"E": -8, "S": 24, "W": -8, "N": -8}
        assert await _english(page) == en

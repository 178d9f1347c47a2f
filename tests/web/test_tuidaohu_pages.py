"""Whole 广东推倒胡 hands kept by the pages alone, in Debian's Chromium (Playwright): the operator keys them on the
Table page (录入牌局), the referee reads and confirms each win on the Win page, turning up the 买马 horses where
the Table page marks them, and the score sheet ends them. No API call by hand: the simulated table's dice buttons
are the players' presses. The service is real (a simulated table on a real pty, uvicorn on a loopback port, SQLite).

Hand 1 (every tile counted, at most four of each; no 吃 in 推倒胡): E 5p, S 碰 5p, S 9m, W 1z, N 暗杠 8s (2 倍 from
each), N 2z, E 3z, S 加杠 5p: W robs it (抢杠胡 8 倍, 234m 567m 789m 22s 46p + 5p), the konger pays three shares
(24); the horses 1m 2m 3p 4p count from W: 1m on W wins once more from the konger, 4p on S makes S pay once more.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from test_browser import REFEREE, _config, _open, _running
from test_browser import browser  # noqa: F401  (the browser tests' fixtures, per module)

pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="module")]


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

"""A riichi referee's 错和 (チョンボ) ruled on the Penalties page of the real service (a simulated table on a pty,
uvicorn, SQLite) in Debian's Chromium: the page offers riichi's rulings by their Chinese names with what each
costs, the ruling moves the points held as a mangan paid (the four still 4 × 25000 with 南's stick), the hand ended
中止 is dealt again by the same dealer with 南's stick back, and the undo gives the points back."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from test_browser import OPERATOR, REFEREE, _auth, _config, _http, _open, _running, _throw_all, _until
from test_browser import browser  # noqa: F401  (the browser tests' fixtures, per module)

pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="module")]


async def test_a_chombo_is_ruled_and_undone_on_the_penalties_page(tmp_path: Path, browser: Any) -> None:
    async with _running(_config(ruleset="riichi"), tmp_path / "own") as svc, _http(svc) as http:
        ctl = svc.controller

        async def post(path: str, token: str = OPERATOR, **body: Any) -> Any:
            r = await http.post(path, json=body, headers=_auth(token))
            assert r.status_code == 200, r.text
            return r

        await post("/api/hand/start")
        await _until(lambda: ctl.state.phase == "walls_raised")
        await _throw_all(svc)
        for play in ({"type": "deal_done"}, {"type": "discard", "seat": "E", "tile": "9p"},
                     {"type": "discard", "seat": "S", "tile": "1z"}, {"type": "riichi", "seat": "S"}):
            await post("/api/play", **play)

        page = await _open(browser, svc, "/penalties", token=REFEREE)
        try:
            await page.wait_for_function("document.querySelector('#penalty-code').options.length > 0", timeout=5000)
            assert await page.inner_text('#penalty-code option[value="false_win"]') == \
                "错和（诈和，チョンボ）：满贯罚符 8000：闲家付庄家 4000、其余各 2000；庄家付各家 4000 · 停和"
            assert await page.inner_text('#penalty-code option[value="dead_hand"]') == "和了放弃（アガリ放棄）：停和"
            assert await page.inner_text('#penalty-code option[value="other"]') == \
                "罚点（裁判裁定）：裁判定 1000–20000（每 1000）"
            await page.select_option("#penalty-form select[name=seat]", "N")
            await page.select_option("#penalty-code", "false_win")
            assert await page.is_disabled("#penalty-form input[name=amount]")
            await page.click("#penalty-submit")
            await page.wait_for_selector("#action-msg.good")
            ruled = [a for a in ctl.state.actions if a["type"] == "referee.penalty"]
            assert [(a["code"], a["deltas"]) for a in ruled] == \
                [("false_win", {"1": 4000, "2": 2000, "3": 2000, "4": -8000})]

            await post("/api/hand/end", result="abandoned")
            sheet = await _open(browser, svc, "/scoresheet", token=REFEREE)
            try:
                await sheet.wait_for_selector('[data-testid="held-4"]')
                held = [int(await sheet.inner_text(f'[data-testid="held-{p}"]')) for p in "1234"]
                assert held == [29000, 27000, 27000, 17000] and sum(held) == 100000  # 南's stick back
                assert await sheet.query_selector('[data-testid="riichi-pot"]') is None
            finally:
                await sheet.close()
            places = ctl._coming()
            assert (places.prevalent, places.dealer_position, places.honba) == ("E", 1, 0)

            await page.fill("#undo-reason", "判罚对象错误")
            await page.click("#undo")
            await _until(lambda: all(a.get("undone") for a in ctl.state.actions if a["type"] == "referee.penalty"))
            sheet = await _open(browser, svc, "/scoresheet", token=REFEREE)
            try:
                await sheet.wait_for_function(
                    "document.querySelector('[data-testid=\"held-4\"]')?.textContent === '25000'", timeout=5000)
                assert [int(await sheet.inner_text(f'[data-testid="held-{p}"]')) for p in "1234"] == [25000] * 4
            finally:
                await sheet.close()
        finally:
            await page.close()

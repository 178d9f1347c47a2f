"""A whole 四川血战到底 hand kept by the pages alone, in Debian's Chromium (Playwright): the operator keys it on
the Table page (录入牌局), the referee reads and confirms each win on the Win page, and the score sheet page
ends it. No API call by hand: the simulated table's dice buttons are the players' presses. The service is
real (a simulated table on a real pty, uvicorn on a loopback port, SQLite).

The hand (定缺 E 万, S 筒, W 条, N 筒; every tile counted, at most four of each):
E 1m, S 9p, W 9s, N 5p, E 碰 5p, E 2m, S 1p, W 8s, N 7m, W 明杠 7m (直杠: N pays 1), W 4s: S 和 (点和 right
after W's kong, 杠上炮 1 番: W pays 2); W 6s, N 8p, E 3m, W 自摸 (根 1 番: 2 + 自摸加底 1 from E and N, not from
S, out); N 1p, E 加杠 5p (面下杠: N pays 1, the only other seat playing), E 6m: N 和 (杠上炮: E pays 2). Three
seats have won: the hand is over, 4 tiles of each kind at most on the table and in the hands read.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from table_controller.service import TableService
from test_browser import OPERATOR, REFEREE, _config, _open, _running, _throw_all, _until
from test_browser import browser  # noqa: F401  (the browser tests' fixtures, per module)

pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="module")]

FORM = "#play-form"
TILES = f"{FORM} input[name=tiles]"
WIN = "#win-form"


async def _key(page: Any, typed: str, button: str | None = None) -> str:
    """Type `typed` in 牌 and press Enter (打出) or the play's button; the answer said under the form."""
    before = await page.text_content("[data-testid=play-msg]")
    await page.fill(TILES, "")
    await page.type(TILES, typed)  # typed, not filled: a seat's letter first picks the seat as it is typed
    if button:
        await page.click(f"{FORM} [data-play='{button}']")
    else:
        await page.press(TILES, "Enter")
    await page.wait_for_function("([sel, before]) => { const t = document.querySelector(sel).textContent;"
                                 " return t !== before && /[✓✗]/.test(t); }", arg=["[data-testid=play-msg]", before])
    return await page.text_content("[data-testid=play-msg]") or ""


async def _keyed(page: Any, typed: str, button: str | None = None) -> str:
    """`_key`, the play recorded."""
    said = await _key(page, typed, button)
    assert "✓ 已记录" in said, said
    return said


async def _win_form(page: Any) -> dict[str, str]:
    """The Win form's 和牌方, 点炮方, 方式 and 副露 as the referee finds them."""
    return {name: await page.input_value(f"{WIN} [name={name}]") for name in ("seat_wind", "discarder", "win", "melds")}


async def _fill_win(page: Any, concealed: str, win_tile: str, **inputs: str) -> None:
    """The Win form's 手牌 and 和牌张 typed as the referee types them, and any other of its inputs by name."""
    for name, value in {"concealed": concealed, "win_tile": win_tile, **inputs}.items():
        await page.fill(f"{WIN} input[name={name}]", value)


async def _read_and_confirm(page: Any, svc: TableService, seat: str) -> None:
    """读牌 / 更正 with the form as filled, the read shown pending, 确认和牌; until the win is on the list."""
    await page.click("#win-read")
    await _until(lambda: bool(svc.controller.state.actions)
                 and svc.controller.state.actions[-1]["type"] == "referee.win_read"
                 and svc.controller.state.actions[-1].get("seat") == seat)
    read = svc.controller.state.actions[-1]
    assert read["result"]["valid"], read["result"]
    await page.wait_for_function(f"window.__lastSeq >= {read['seq']}")
    await page.wait_for_selector('[data-testid="win-status"].pending')
    await page.click("#win-confirm")
    await page.wait_for_selector(f'#wins-list li[data-seat="{seat}"]')


async def test_a_blood_battle_hand_is_kept_by_the_pages_alone(tmp_path: Path, browser: Any) -> None:
    """The operator's keys and the referee's forms carry a 血战 hand from 定缺 to the score sheet; each default
    the pages set is the one the next step needs (the seat in turn, the next winner's form, no 查叫 after wins)."""
    async with _running(_config(ruleset="sichuan"), tmp_path / "own") as svc:
        table = await _open(browser, svc, "/", token=OPERATOR)
        await table.click("#start-hand")
        await _until(lambda: svc.controller.state.phase == "walls_raised")
        await _throw_all(svc)  # the players' dice buttons
        await table.wait_for_selector(f"{FORM}:not([hidden])")
        # 四川: no 吃, no 补花 among the keys
        assert not await table.is_visible(f"{FORM} [data-play=chow]")
        assert not await table.is_visible(f"{FORM} [data-play=flower]")
        await table.click(f"{FORM} [data-play=deal_done]")
        await table.wait_for_selector('[data-testid="missing-keys"]:not([hidden])')
        for seat, suit in (("E", "m"), ("S", "p"), ("W", "s"), ("N", "p")):
            await table.select_option(f"{FORM} select[name=seat]", seat)
            await table.click(f'{FORM} [data-play="missing:{suit}"]')
            await _until(lambda: svc.controller.state.hand["missing"].get(seat) == suit)
        await table.wait_for_selector('[data-testid="missing-N"]')
        assert await table.inner_text('[data-testid="missing-W"]') == "缺条"

        # 定缺 moves no turn: 座位 is back on the dealer's seat for its first discard
        await table.wait_for_function(f"document.querySelector('{FORM} select[name=seat]').value === 'E'", timeout=5000)
        for tile in ("1m", "9p", "9s", "5p"):
            await _keyed(table, tile)
        assert "东家碰 五筒（北家打出）" in await _keyed(table, "e", "pung")
        for tile in ("2m", "1p", "8s", "7m"):
            await _keyed(table, tile)
        assert "西家明杠 七万（北家打出）" in await _keyed(table, "w", "kong")
        await _keyed(table, "4s")

        # the first win: S on W's 4s, read and confirmed on the Win page
        win = await _open(browser, svc, "/win", token=REFEREE)
        assert await win.input_value(f"{WIN} select[name=discarder]") == "W"  # the last discard's seat
        await win.select_option(f"{WIN} select[name=seat_wind]", "S")
        await _fill_win(win, "111m 234m 456m 88m 23s", "4s")
        await _read_and_confirm(win, svc, "S")
        assert await win.is_visible('[data-testid="win-more"]')
        assert await win.inner_text('#wins-list li[data-seat="S"]') == "南 李娜 1 番 · 南 +2 · 西 -2"
        assert "杠上炮" in await win.inner_text("#fans")

        # play goes on without S: the turn is W's; a play keyed for S is refused, saying why
        await table.wait_for_function(f"window.__lastSeq >= {svc.controller.state.seq}")
        assert await table.input_value(f"{FORM} select[name=seat]") == "W"
        for name in ("seat", "from"):  # S is out: not offered as the seat that plays, nor as a claim's discarder
            assert await table.is_disabled(f"{FORM} select[name={name}] option[value=S]")
            assert not await table.is_disabled(f"{FORM} select[name={name}] option[value=N]")
        said = await _key(table, "s9m")
        assert "✗" in said and "南家本盘已和牌" in said, said
        assert await table.input_value(TILES) == "9m"
        for tile in ("w6s", "8p", "3m"):
            await _keyed(table, tile)
        assert svc.controller.state.hand["turn"]["seat"] == "W"

        # the second win: W by 自摸. The form is the next winner's: S (out) is offered neither as 和牌方
        # nor as 点炮方, 和牌方 is the seat in turn, 副露 its 明杠 as the record holds it, no tile of S's read left
        for name in ("seat_wind", "discarder"):
            assert await win.is_disabled(f"{WIN} select[name={name}] option[value=S]")
        assert await win.input_value(f"{WIN} select[name=seat_wind]") == "W"
        assert await win.input_value(f"{WIN} input[name=melds]") == "明杠 7m 7m 7m 7m 北"
        assert await win.input_value(f"{WIN} input[name=concealed]") == ""
        await win.select_option(f"{WIN} select[name=win]", "self_draw")
        await _fill_win(win, "234p 678p 22m 34m", "5m")
        await _read_and_confirm(win, svc, "W")
        assert await win.inner_text('#wins-list li[data-seat="W"]') == "西 王芳 1 番 · 东 -3 · 西 +6 · 北 -3"
        assert "根" in await win.inner_text("#fans")
        assert await win.inner_text("#payments [class~=pay]:nth-child(2) strong") == "0"  # S pays nothing

        # the third: N on E's discard right after E's 加杠 (杠上炮); 点炮方 follows the discard
        await table.wait_for_function(f"window.__lastSeq >= {svc.controller.state.seq}")
        await _keyed(table, "1p")
        await _keyed(table, "e5p", "added")
        await _keyed(table, "6m")
        await win.wait_for_function(f"window.__lastSeq >= {svc.controller.state.seq}")
        assert await _win_form(win) == {"seat_wind": "N", "discarder": "E", "win": "discard", "melds": ""}
        await _fill_win(win, "123s 456s 789s 66m 88m", "6m")
        await _read_and_confirm(win, svc, "N")
        assert await win.inner_text('#wins-list li[data-seat="N"]') == "北 陈杰 1 番 · 东 -2 · 北 +2"
        assert await win.eval_on_selector_all("#wins-list li", "els => els.map(e => e.dataset.seat)") == ["S", "W", "N"]
        assert not await win.is_visible('[data-testid="win-more"]')  # three have won: no further winner

        # the hand is over: a play is refused, saying so; 结束本盘 ends it as won (no 荒牌 question)
        await table.wait_for_function(f"window.__lastSeq >= {svc.controller.state.seq}")
        said = await _key(table, "e9p")
        assert "本盘已和牌结束" in said and "请结束本盘" in said, said
        banner = await table.inner_text("#win-banner")
        assert all(name in banner for name in ("李娜", "王芳", "陈杰")), banner
        table.once("dialog", lambda dialog: pytest.fail(f"asked: {dialog.message}"))
        await table.click("#end-hand")
        await _until(lambda: bool(svc.controller.state.hands) and svc.controller.state.hands[-1]["result"] == "win")
        await win.wait_for_function(f"window.__lastSeq >= {svc.controller.state.seq}")
        # no 荒牌: the Win page offers no 查叫 (the service refuses one: 本盘不是荒牌)
        assert not await win.is_visible("#exhaustive-section")

        # the score sheet: one row, three winners, their fans, each chair's points with its kongs
        sheet = await _open(browser, svc, "/scoresheet", token=REFEREE)
        row = sheet.locator("#sheet-body tr[data-hand='1'] td")
        assert await row.nth(3).inner_text() == "和牌 · 李娜 · 王芳 · 陈杰"
        assert await row.nth(4).inner_text() == "1 / 1 / 1"
        assert [await sheet.inner_text(f'[data-testid="total-{p}"]') for p in "1234"] == ["-4", "2", "5", "-3"]
        assert "(杠 +1)" in await row.nth(5).inner_text() and "(杠 -2)" in await row.nth(8).inner_text()


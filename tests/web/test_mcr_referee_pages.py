"""A 国标 competition hand kept by the pages alone, in Debian's Chromium (Playwright): the operator keys it
on the Table page (录入牌局), the referee rules on the Win and Penalties pages, the score sheet ends it. The
cases hardest to key: 补花 in the opening and in play, a play keyed wrong and corrected (更正牌谱) and a
correction undone (撤销上一次裁判操作), a win below 8 番 read (花牌不计) and ruled 诈和 with play going on,
and 抢杠和 on a 加杠. No API call by hand: the simulated table's dice buttons are the players' presses.

The hand (every tile counted, at most four of each, each flower once):
E 补花 春, N 补花 梅 (opening); E 5p, W 碰 5p, W 9m, N 补花 兰 (in play), N 1z, E 2z, S 3z (keyed 3s,
corrected), W 4z, N 8p: E declares 和 with 234m 567m 234s 79p 55s + 8p, 7 番 and 花牌 1 (不够8番起和,
花牌不计): 诈和, E pays 10 to each and plays on; E 7z, S 1s, W 加杠 5p: N robs it with 123456789m 34p 99s
(清龙 16 + 抢杠和 8 + 门前清 2 + 平和 2 + 花牌 2 = 30: W pays 8 + 30, E and S 8 each).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from table_controller.service import TableService
from test_blood_battle_pages import FORM, WIN, _fill_win, _keyed, _win_form
from test_browser import OPERATOR, REFEREE, _config, _open, _running, _throw_all, _until
from test_browser import browser  # noqa: F401  (the browser tests' fixtures, per module)

pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="module")]


async def _read(page: Any, svc: TableService, seat: str) -> dict[str, Any]:
    """读牌 / 更正 with the form as filled; the read, once the page shows it."""
    await page.click("#win-read")
    await _until(lambda: bool(svc.controller.state.actions)
                 and svc.controller.state.actions[-1]["type"] == "referee.win_read"
                 and svc.controller.state.actions[-1].get("seat") == seat)
    read = svc.controller.state.actions[-1]
    await page.wait_for_function(f"window.__lastSeq >= {read['seq']}")
    return read


async def test_an_mcr_hand_with_flowers_a_false_win_a_correction_and_a_robbed_kong(tmp_path: Path, browser: Any) -> None:
    """The operator's keys and the referee's forms carry a 国标 hand through its hardest rulings; each
    refusal says why on the page and each default the pages set is the one the ruling needs."""
    async with _running(_config(ruleset="mcr"), tmp_path / "own") as svc:
        ctl = svc.controller
        table = await _open(browser, svc, "/", token=OPERATOR)
        await table.click("#start-hand")
        await _until(lambda: ctl.state.phase == "walls_raised")
        await _throw_all(svc)  # the players' dice buttons
        await table.wait_for_selector(f"{FORM}:not([hidden])")

        # 补花 in the opening: a flower typed and Enter is a 补花, the seat picked by its letter
        assert "东家补花 春" in await _keyed(table, "1f")
        assert "北家补花 梅" in await _keyed(table, "n5f")
        await table.click(f"{FORM} [data-play=deal_done]")
        await _until(lambda: ctl.state.hand.get("dealt") is not False and ctl.state.hand["turn"] is not None)
        await table.wait_for_function(f"document.querySelector('{FORM} select[name=seat]').value === 'E'", timeout=5000)
        await _keyed(table, "5p")
        assert "西家碰 五筒（东家打出）" in await _keyed(table, "w", "pung")
        await _keyed(table, "9m")
        assert "北家补花 兰" in await _keyed(table, "6f")  # in play, in N's turn
        for tile in ("1z", "2z", "3s", "4z", "8p"):  # S's 3z keyed as 3s
            await _keyed(table, tile)
        assert ctl.state.hand["flowers"] == {"E": ["1f"], "S": [], "W": [], "N": ["5f", "6f"]}

        # the referee corrects S's tile on the Penalties page; a correction typed wrong is undone
        pen = await _open(browser, svc, "/penalties", token=REFEREE)
        wrong = next(e.seq for e in ctl.store.since(0) if e.type == "play.discard" and e.data["tile"] == "3s")
        await pen.wait_for_selector(f"#correct-target option[value='{wrong}']", state="attached")
        assert (await pen.inner_text(f"#correct-target option[value='{wrong}']")).strip() == f"#{wrong} 南家打出 三条"
        await pen.select_option("#correct-target", str(wrong))
        await pen.fill("#correct-form input[name=tiles]", "3p")
        await pen.fill("#correct-form input[name=reason]", "看错了")
        await pen.click("#correct-submit")
        await _until(lambda: ctl.state.hand["discards"]["S"][0]["tile"] == "3p")
        fix = ctl.state.actions[-1]["seq"]
        await pen.wait_for_function(f"window.__lastSeq >= {fix}")
        assert f"可撤销：#{fix}" in await pen.inner_text("#undo-target")
        await pen.fill("#undo-reason", "更正时牌填错")
        await pen.click("#undo")
        await _until(lambda: ctl.state.hand["discards"]["S"][0]["tile"] == "3s")
        await pen.select_option("#correct-target", str(wrong))
        await pen.fill("#correct-form input[name=tiles]", "3z")
        await pen.fill("#correct-form input[name=reason]", "是西风")
        await pen.click("#correct-submit")
        await _until(lambda: ctl.state.hand["discards"]["S"][0]["tile"] == "3z")
        await table.wait_for_function(f"window.__lastSeq >= {ctl.state.seq}")
        assert "三条" not in await table.inner_text("[data-seat=S] .discards")

        # E declares 和 on N's 8p: 7 番 and a flower. The read is refused on the page, saying why (花牌不计)
        win = await _open(browser, svc, "/win", token=REFEREE)
        await win.select_option(f"{WIN} select[name=seat_wind]", "E")
        assert await win.input_value(f"{WIN} select[name=discarder]") == "N"
        assert await win.input_value(f"{WIN} input[name=flowers]") == "1f"  # from the record
        await _fill_win(win, "234m 567m 234s 79p 55s", "8p")
        read = await _read(win, svc, "E")
        assert read["result"]["reason"] == "below_minimum"
        summary = await win.inner_text("#win-summary")
        assert "不够8番起和" in summary and "花牌不计" in summary and "7番" in summary, summary
        await win.click("#win-confirm")
        await win.wait_for_function("/和牌不成立/.test(document.querySelector('#action-msg').textContent)")
        assert "判诈和" in await win.inner_text("#action-msg")
        assert not any(a["type"] == "referee.win_confirm" for a in ctl.state.actions)
        # 判诈和: asked first, naming E; E pays 10 to each of the three others
        asked: list[str] = []

        async def answer(dialog: Any) -> None:
            asked.append(dialog.message)
            await dialog.accept()

        win.once("dialog", answer)
        await win.click("#win-false")
        await _until(lambda: any(a["type"] == "referee.penalty" for a in ctl.state.actions))
        assert asked == ["判 东 张伟 诈和？"]
        ruled = ctl.state.actions[-1]
        assert ruled["code"] == "false_win" and ruled["by_wind"] == {"E": -30, "S": 10, "W": 10, "N": 10}

        # play goes on: E (in turn) discards, S, then W adds the fourth 5p to its pung
        await table.wait_for_function(f"window.__lastSeq >= {ctl.state.seq}")
        assert await table.input_value(f"{FORM} select[name=seat]") == "E"
        # the read ruled 诈和 is no more a win awaiting the referee, on the Table, Win and Public pages
        assert "已判诈和/错和，本盘停和" in await table.inner_text("#win-banner")
        assert "待裁判确认" not in await table.inner_text("#win-banner")
        await win.wait_for_function(f"window.__lastSeq >= {ctl.state.seq}")
        assert await win.inner_text('[data-testid="win-status"]') == "已判诈和/错和，本盘停和"
        # 和牌方 is no more E: a seat put out of winning cannot be picked (the form kept the false winner), and it
        # still discards, so it stays a 点炮方
        await win.wait_for_function(f"document.querySelector('{WIN} select[name=seat_wind]').value !== 'E'")
        assert await win.is_disabled(f"{WIN} select[name=seat_wind] option[value=E]")
        assert not await win.is_disabled(f"{WIN} select[name=discarder] option[value=E]")
        public = await _open(browser, svc, "/public")
        assert "已判诈和/错和，本盘停和" in await public.inner_text("#win-banner")
        # and the Win form is the next winner's: E's tiles and its read's 点炮方 are gone
        assert await win.input_value(f"{WIN} input[name=concealed]") == ""
        assert await win.input_value(f"{WIN} input[name=win_tile]") == ""
        for tile in ("7z", "1s"):
            await _keyed(table, tile)
        assert "西家加杠 五筒" in await _keyed(table, "w5p", "added")

        # N robs the kong: 方式 抢杠和, 点炮方 the konger, N's flowers from the record
        await win.wait_for_function(f"window.__lastSeq >= {ctl.state.seq}")
        await win.select_option(f"{WIN} select[name=seat_wind]", "N")
        assert await _win_form(win) == {"seat_wind": "N", "discarder": "W", "win": "rob_kong", "melds": ""}
        assert await win.inner_text(f"{WIN} select[name=win] option[value=rob_kong]") == "抢杠和"  # 国标's word
        assert await win.input_value(f"{WIN} input[name=flowers]") == "5f 6f"
        await _fill_win(win, "123456789m 34p 99s", "5p")
        read = await _read(win, svc, "N")
        assert read["result"]["valid"], read["result"]
        assert read["result"]["total"] == 30
        fans = await win.inner_text("#fans")
        assert "抢杠和" in fans and "花牌" in fans and "和绝张" not in fans, fans
        await win.click("#win-confirm")
        await win.wait_for_selector('#wins-list li[data-seat="N"]')
        assert await win.inner_text('#wins-list li[data-seat="N"]') == "北 陈杰 30 番 · 东 -8 · 南 -8 · 西 -38 · 北 +54"
        # the 加杠 never stood: W's meld is its pung again
        assert [m["type"] for m in ctl.state.hand["melds"]["W"]] == ["pung"]
        await table.wait_for_function(f"window.__lastSeq >= {ctl.state.seq}")
        assert await table.locator("[data-seat=W] .meld").count() == 1
        assert await table.locator("[data-seat=W] .meld .tile").count() == 3

        # the hand is over: 结束本盘, the score sheet with the 诈和 and the 标准分
        table.once("dialog", lambda dialog: pytest.fail(f"asked: {dialog.message}"))
        await table.click("#end-hand")
        await _until(lambda: bool(ctl.state.hands) and ctl.state.hands[-1]["result"] == "win")
        sheet = await _open(browser, svc, "/scoresheet", token=REFEREE)
        assert [await sheet.inner_text(f'[data-testid="total-{p}"]') for p in "1234"] == ["-38", "2", "-28", "64"]
        assert [await sheet.inner_text(f'[data-testid="tp-{p}"]') for p in "1234"] == ["0", "2", "1", "4"]
        assert "暂定" in await sheet.inner_text("#sheet-foot")

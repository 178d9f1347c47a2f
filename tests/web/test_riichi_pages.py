"""Four 日本麻将 hands kept by the pages alone, in Debian's Chromium (Playwright): the operator keys each on the
Table page (录入牌局, 立直 included), the referee reads and confirms each win and the 流局's 查叫 on the Win
page, and the score sheet page adds them up. No API call by hand: the simulated table's dice buttons are the
players' presses. The service is real (a simulated table on a real pty, uvicorn on a loopback port, SQLite).

The session (chairs 1 张伟, 2 李娜, 3 王芳, 4 陈杰; every hand at most four of a tile):
1. 东1局 (张伟 deals): E 9m, S 1z 立直, W 9p, N 2z, E 8m, S 1p, W 9s 立直, N 5p: W 荣和 with 234m 678m 345s
   66s 34p, 立直 一发 平和 断幺九 宝牌1 (indicator 5m) = 满贯 8000 from N, and both 立直棒.
2. 东2局 (李娜 deals): E 1m, S 9s, W 1p, N 9m: E 自摸 7m with 234m 456p 678s 22s 56m (门前清自摸和 平和 断幺九,
   20 符 3 番: 1300 all). The dealer keeps the deal: 1 本场.
3. 东2局 1本场: E 1z, S 2z, W 3z 立直, N 4z, 流局: W 听牌 (123m 456p 789s 55s 23s), three 不听 pay 1000 each.
   The dealer was not ready: the deal passes, 2 本场, W's stick stays on the table.
4. 东3局 2本场 (王芳 deals): E 6s: N 荣和 with 234m 567p 345s 66s 78s (平和 断幺九 2000 + 本场 600), and the
   stick carried over the 流局.
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


async def _current(svc: TableService, *pages: Any) -> None:
    """Each page shows the service's last event."""
    for page in pages:
        await page.wait_for_function(f"window.__lastSeq >= {svc.controller.state.seq}")


async def _deal(table: Any, svc: TableService, hand_no: int) -> None:
    """开始新一盘 on the Table page, the players' dice, 配牌完成: 座位 on the dealer for its first discard."""
    ctl = svc.controller
    await table.click("#start-hand")
    await _until(lambda: ctl.state.phase == "walls_raised" and ctl.state.hand["hand_no"] == hand_no)
    await _throw_all(svc)
    await table.wait_for_selector(f"{FORM}:not([hidden])")
    await table.click(f"{FORM} [data-play=deal_done]")
    await _until(lambda: ctl.state.hand["turn"] is not None)
    await table.wait_for_function(f"document.querySelector('{FORM} select[name=seat]').value === 'E'", timeout=5000)


async def _held(page: Any) -> dict[str, int]:
    """The points each seat's panel shows, by wind."""
    return {w: int(await page.inner_text(f'[data-testid="score-{w}"]')) for w in "ESWN"}


async def _end(table: Any, svc: TableService, hand_no: int) -> None:
    """结束本盘, until the hand is on the service's list of hands ended."""
    await table.click("#end-hand")
    await _until(lambda: bool(svc.controller.state.hands) and svc.controller.state.hands[-1]["hand_no"] == hand_no)
    await _current(svc, table)


async def test_a_riichi_session_is_kept_by_the_pages_alone(tmp_path: Path, browser: Any) -> None:
    """立直 sticks, 一发, 宝牌, a dealer's 自摸 (连庄), a 流局 with 不听罚符 and a stick carried to the next
    winner with 本场, as the referee sees them: held points per seat (4 × 25000 less the sticks on the table),
    供托 and 本场 beside the hand's number, the next hand's Win form free of the last hand's 宝牌指示牌,
    the 查叫 in riichi's words, and the score sheet adding up."""
    async with _running(_config(ruleset="riichi"), tmp_path / "own") as svc:
        table = await _open(browser, svc, "/", token=OPERATOR)
        asked: list[str] = []

        async def answer(dialog: Any) -> None:
            asked.append(dialog.message)
            await dialog.accept()

        table.on("dialog", answer)
        win = await _open(browser, svc, "/win", token=REFEREE)

        # 1. S declares 立直: its stick leaves its points at once, 供托 1 beside the hand's number
        await _deal(table, svc, 1)
        assert await _held(table) == {"E": 25000, "S": 25000, "W": 25000, "N": 25000}
        assert "title" in await table.eval_on_selector('[data-testid="score-E"]', "e => e.outerHTML")
        await _keyed(table, "9m")
        await _keyed(table, "1z")
        assert "南家立直 ✓ 已记录" in await _keyed(table, "", "riichi")
        await _current(svc, table, win)
        assert await table.inner_text('[data-testid="riichi-S"]') == "立直"
        assert await _held(table) == {"E": 25000, "S": 24000, "W": 25000, "N": 25000}
        assert (await table.inner_text("[data-testid=hand-no]")).endswith("第 1 盘 · 供托 1")
        for tile in ("9p", "2z", "8m", "1p", "9s"):  # S discards again: its 一发 is gone
            await _keyed(table, tile)
        assert "西家立直 ✓ 已记录" in await _keyed(table, "", "riichi")
        await _keyed(table, "5p")
        await _current(svc, table, win)
        assert "供托 2" in await win.inner_text("[data-testid=hand-no]")
        # W rons N's 5p in its 一发 turn; the referee types the 宝牌指示牌 turned up (5m: 宝牌 6m)
        # the record's 立直 and 一发 are shown ticked for the seat picked: S has discarded since its 立直, W not
        ticks = f"[...document.querySelectorAll('{WIN} input[name=riichi], {WIN} input[name=ippatsu]')].map(e => e.checked)"
        await win.select_option(f"{WIN} select[name=seat_wind]", "S")
        assert await win.evaluate(ticks) == [True, False]
        await win.select_option(f"{WIN} select[name=seat_wind]", "W")
        assert await win.evaluate(ticks) == [True, True]
        assert await win.is_disabled(f"{WIN} input[name=ippatsu]")  # the record's: not the referee's to untick
        assert await _win_form(win) == {"seat_wind": "W", "discarder": "N", "win": "discard", "melds": ""}
        await _fill_win(win, "234m 678m 345s 66s 34p", "5p", dora="5m")
        await _read_and_confirm(win, svc, "W")
        assert await win.inner_text('[data-testid="win-count"]') == "30符 · 满贯"
        fans = (await win.inner_text("#fans")).split()
        assert [fans[i] for i in range(0, len(fans), 3)] == ["立直", "一发", "平和", "断幺九", "宝牌"], fans
        assert await win.inner_text('#wins-list li[data-seat="W"]') == "西 王芳 5 番 · 西 +8000 · 北 -8000 · 供托 +2000"
        await _end(table, svc, 1)
        assert asked == []  # a hand won is ended without a question
        # W took 8000 and both sticks: nothing on the table, 4 × 25000 held
        assert await _held(table) == {"E": 25000, "S": 24000, "W": 34000, "N": 17000}
        assert "供托" not in await table.inner_text("[data-testid=hand-no]")

        # 2. 李娜 deals. The Win form is the new hand's: the last hand's indicator is not offered as this one's
        await _deal(table, svc, 2)
        await _current(svc, win)
        assert await win.input_value(f"{WIN} input[name=dora]") == ""
        assert await win.evaluate(ticks) == [False, False] and not await win.is_disabled(f"{WIN} input[name=riichi]")
        for tile in ("1m", "9s", "1p", "9m"):
            await _keyed(table, tile)
        await _current(svc, win)
        await win.select_option(f"{WIN} select[name=seat_wind]", "E")
        await win.select_option(f"{WIN} select[name=win]", "self_draw")
        await _fill_win(win, "234m 456p 678s 22s 56m", "7m")
        await win.fill(f"{WIN} input[name=dora]", "1z")  # 宝牌 南: none in the hand
        await _read_and_confirm(win, svc, "E")
        assert await win.inner_text('[data-testid="win-count"]') == "20符"  # 平和 自摸
        assert await win.inner_text('#wins-list li[data-seat="E"]') == "东 李娜 3 番 · 东 +3900 · 南 -1300 · 西 -1300 · 北 -1300"
        await _end(table, svc, 2)
        assert await _held(table) == {"E": 27900, "S": 32700, "W": 15700, "N": 23700}

        # 3. the dealer won: 李娜 deals again, 1 本场. W (陈杰) declares; nobody wins: 流局, asked first
        await _deal(table, svc, 3)
        assert (await table.inner_text("[data-testid=hand-no]")).endswith("第 3 盘 · 1本场")
        assert await table.inner_text('[data-seat="E"] .name') == "李娜"
        for tile in ("1z", "2z", "3z"):
            await _keyed(table, tile)
        await _keyed(table, "", "riichi")
        await _keyed(table, "4z")
        await _current(svc, table)
        assert (await table.inner_text("[data-testid=hand-no]")).endswith("第 3 盘 · 1本场 · 供托 1")
        await _end(table, svc, 3)
        assert len(asked) == 1 and "记为荒牌" in asked[0], asked
        # 查叫: W shows its ready hand, the three 不听 show nothing; in riichi's words, 3000 shared
        await _current(svc, win)
        await win.wait_for_selector("#exhaustive-section:not([hidden])")
        await win.fill("#exhaustive-form input[name=W]", "123m 456p 789s 55s 23s")
        await win.click("#exhaustive-submit")
        await win.wait_for_selector('[data-testid="exhaustive-summary"] h3')
        summary = await win.inner_text('[data-testid="exhaustive-summary"]')
        assert "听牌：西 · 不听：东、南、北" in summary, summary
        assert "东 -1000 · 南 -1000 · 西 +3000 · 北 -1000" in summary, summary
        assert "花猪" not in summary and "退税" not in summary and "有叫" not in summary, summary
        await _current(svc, table)
        held = await _held(table)
        assert held == {"E": 26900, "S": 31700, "W": 17700, "N": 22700}
        assert sum(held.values()) == 4 * 25000 - 1000  # W's stick is on the table
        assert (await table.inner_text("[data-testid=hand-no]")).endswith("· 供托 1")

        # 4. the dealer was not ready: 王芳 deals, 2 本场, the stick still on the table. N rons E's 6s
        await _deal(table, svc, 4)
        assert (await table.inner_text("[data-testid=hand-no]")).endswith("第 4 盘 · 2本场 · 供托 1")
        assert await table.inner_text('[data-seat="E"] .name') == "王芳"
        await _keyed(table, "6s")
        await _current(svc, win)
        await win.select_option(f"{WIN} select[name=seat_wind]", "N")
        assert await win.input_value(f"{WIN} input[name=dora]") == ""
        await _fill_win(win, "234m 567p 345s 66s 78s", "6s", dora="9p")
        await _read_and_confirm(win, svc, "N")
        # 2 番 at 2600 is 40 符, or 30 符 and 2 本场: the page says which
        assert await win.inner_text('[data-testid="win-count"]') == "30符 · 2本场 +600"
        # and the stick carried over the 流局, taken: on the winner's line as on the panels (it was not there)
        assert await win.inner_text('#wins-list li[data-seat="N"]') == "北 李娜 2 番 · 东 -2600 · 北 +2600 · 供托 +1000"
        await _end(table, svc, 4)
        held = await _held(table)
        assert held == {"E": 29100, "S": 17700, "W": 22700, "N": 30500} and sum(held.values()) == 4 * 25000
        assert "供托" not in await table.inner_text("[data-testid=hand-no]")

        # the score sheet: each hand's points, the sticks in them, the totals from 0 and the points held
        sheet = await _open(browser, svc, "/scoresheet", token=REFEREE)
        rows = sheet.locator("#sheet-body tr")
        assert await rows.count() == 4
        results = [await rows.nth(i).locator("td").nth(3).inner_text() for i in range(4)]
        assert results == ["和牌 · 王芳", "和牌 · 李娜", "荒牌", "和牌 · 李娜"]
        hand1 = rows.nth(0).locator("td")
        assert (await hand1.nth(6).inner_text()).startswith("-1000 (立直 -1000)")
        assert (await hand1.nth(7).inner_text()).startswith("+9000 (立直 +1000)")
        hand3 = rows.nth(2).locator("td")
        assert (await hand3.nth(8).inner_text()).startswith("+2000 (立直 -1000) (查叫 +3000)")
        hand4 = rows.nth(3).locator("td")
        assert (await hand4.nth(6).inner_text()).startswith("+3600 (立直 +1000)")
        totals = [int(await sheet.inner_text(f'[data-testid="total-{p}"]')) for p in "1234"]
        assert totals == [-2300, 5500, 4100, -7300] and sum(totals) == 0
        assert "持点（起点 25000）" in await sheet.inner_text("#sheet-foot")
        assert [int(await sheet.inner_text(f'[data-testid="held-{p}"]')) for p in "1234"] == [22700, 30500, 29100, 17700]
        assert not await sheet.is_visible('[data-testid="riichi-pot"]')  # no stick left on the table


async def test_a_ron_on_the_riichi_declaration_tile_puts_no_stick_down(tmp_path: Path, browser: Any) -> None:
    """立直宣言牌放铳: S declares 立直 with 1z and W rons that very tile (111z 场风, 40 符 1 番: 1300). The 立直 never
    stood: S pays the ron alone, no stick goes to W (WRC, JPML, 天凤). Before, S paid 1000 more and W took it."""
    async with _running(_config(ruleset="riichi"), tmp_path / "own") as svc:
        table = await _open(browser, svc, "/", token=OPERATOR)
        win = await _open(browser, svc, "/win", token=REFEREE)
        await _deal(table, svc, 1)
        await _keyed(table, "9m")
        await _keyed(table, "1z")
        await _keyed(table, "", "riichi")
        await _current(svc, table)
        assert await _held(table) == {"E": 25000, "S": 24000, "W": 25000, "N": 25000}  # put down at once
        await _current(svc, win)
        await win.select_option(f"{WIN} select[name=seat_wind]", "W")
        assert await _win_form(win) == {"seat_wind": "W", "discarder": "S", "win": "discard", "melds": ""}
        await _fill_win(win, "234m 567p 345s 11z 99s", "1z")
        await _read_and_confirm(win, svc, "W")
        assert await win.inner_text('#wins-list li[data-seat="W"]') == "西 王芳 1 番 · 南 -1300 · 西 +1300"
        # S's panel says its 立直 did not stand (it said 立直 still, beside a sheet with no stick from it)
        await _current(svc, table)
        assert await table.inner_text('[data-testid="riichi-S"]') == "立直不成立"
        await _end(table, svc, 1)
        assert await _held(table) == {"E": 25000, "S": 23700, "W": 26300, "N": 25000}
        sheet = await _open(browser, svc, "/scoresheet", token=REFEREE)
        hand1 = sheet.locator("#sheet-body tr[data-hand='1'] td")
        assert [await hand1.nth(i).inner_text() for i in (6, 7)] == ["-1300\n-1300", "+1300\n1300"]


async def test_a_player_below_zero_ends_the_session_on_the_pages_where_the_ruleset_busts(
        tmp_path: Path, browser: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """飛び (a venue's riichi with `[match] bust = true`): 李娜 deals in a 国士无双 of the dealer (48000) and holds
    −23000; the Table page says who was knocked out and that the session is over, and 开始新一盘 is refused so."""
    import httpx

    from table_controller.rules.ruleset import ENV_DIR, PACKAGED
    from test_browser import _auth

    folder = tmp_path / "rulesets"
    folder.mkdir()
    text = (PACKAGED / "riichi.toml").read_text(encoding="utf-8")
    assert text.count("\nbust = false\n") == 1
    (folder / "riichi.toml").write_text(text.replace("\nbust = false\n", "\nbust = true\n"), encoding="utf-8")
    monkeypatch.setenv(ENV_DIR, str(folder))
    async with _running(_config(ruleset="riichi"), tmp_path / "own") as svc:
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{svc.port}") as http:
            async def post(path: str, token: str = OPERATOR, **body: Any) -> Any:
                r = await http.post(path, json=body, headers=_auth(token))
                return r

            assert (await post("/api/hand/start")).status_code == 200
            await _until(lambda: svc.controller.state.phase == "walls_raised")
            await _throw_all(svc)
            for play in ({"type": "deal_done"}, {"type": "discard", "seat": "E", "tile": "9p"},
                         {"type": "discard", "seat": "S", "tile": "7z"}):
                assert (await post("/api/play", **play)).status_code == 200
            read = await post("/api/referee/win", REFEREE, hand={
                "seat_wind": "E", "concealed": "1m 9m 1p 9p 1s 9s 1z 1z 2z 3z 4z 5z 6z".split(), "win_tile": "7z",
                "win": "discard", "discarder": "S"})
            assert read.status_code == 200, read.text
            assert (await post("/api/referee/win/confirm", REFEREE)).status_code == 200
            assert (await post("/api/hand/end", result="win")).status_code == 200
            table = await _open(browser, svc, "/", token=OPERATOR)
            await table.wait_for_selector("#next-notice:not([hidden])")
            assert await table.inner_text("#next-notice") == \
                "李娜（-23000点）点数为负，被击飞，比赛结束。裁判在成绩表页开始新一轮。"
            refused = await post("/api/hand/start")
            assert refused.status_code == 409 and "李娜（-23000点）点数为负，被击飞" in refused.text, refused.text
            await table.close()

"""The pages as the referee's guide (docs/referee-guide.zh.md) walks them, in Debian's Chromium against the
running service: what a referee reads on them is in words, and says what to do."""

from __future__ import annotations

import asyncio
import dataclasses
import re
from typing import Any

import pytest

from table_controller.service import TableService
from test_browser import REFEREE, _open, _until, _win_form
from test_browser import browser, service  # noqa: F401  (the browser tests' fixtures, per module)

pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="module")]

#: An event's type as the log keeps it ("controller.configured"): never a line a referee reads.
EVENT_TYPE = re.compile(r"[a-z_]+(\.[a-z_]+)+")


async def test_the_event_logs_first_line_names_the_tables_setting_in_words(service: TableService,
                                                                           browser: Any) -> None:
    """The first line of every log is the table's setting; the Table page showed it as
    "controller.configured"."""
    page = await _open(browser, service, "/", token=REFEREE)
    lines = await page.locator("[data-testid=log] li").all_inner_texts()
    assert not [line for line in lines if EVENT_TYPE.fullmatch(line.strip())], lines
    first = lines[-1]  # newest first
    assert first.startswith("本桌设定："), lines
    assert "国标麻将" in first and "1号位 张伟" in first and "4号位 陈杰" in first, first


async def test_the_new_rounds_hint_says_the_round_first_throws_for_its_dealer(service: TableService,
                                                                            browser: Any) -> None:
    """开始新一轮's hint said the new round starts with 1号位 as East; the round throws for its first dealer
    (定庄) as the Table page then asks, and 1号位 deals only without a throw."""
    page = await _open(browser, service, "/scoresheet", token=REFEREE)
    form = page.locator("[data-testid=round-form]")
    await form.locator("[name=round]").fill("2")
    for chair, name in enumerate(["赵一", "钱二", "孙三", "李四"], start=1):
        await form.locator(f"[name=p{chair}]").fill(name)
    await form.locator("button[type=submit]").click()
    await page.wait_for_function("document.querySelector('[data-testid=action-msg]').textContent.startsWith('✓')")
    hint = await page.inner_text("#page-scoresheet [data-i18n='sheet.newRoundHint']")
    table = await _open(browser, service, "/", token=REFEREE)
    asked = await table.inner_text("[data-testid=break]")
    assert asked.startswith("定庄：请1号位掷骰"), asked
    assert "定庄" in hint and "不掷则1号位坐庄" in hint and "1号位坐东" not in hint, hint


async def test_a_table_link_that_drops_is_named_as_the_guide_names_it(service: TableService, browser: Any,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """The guide: 页面显示“牌桌连接中断”: check the cable. The badge said 未连接, which a referee took for the
    tablet's own connection (that one has its own words: N 秒没有收到服务的消息)."""
    assert service.sim is not None
    table = service.controller.table

    async def heard() -> None:
        last = table.health.last_heard
        await _until(lambda: table.health.last_heard != last, timeout=5.0)

    # the table's pace at a quarter, so the pull shows in a second, not in 3.5 s: heartbeats each 0.25 s (the
    # simulator's `Timings.heartbeat`), the link down after 1 s without one (the `Link`'s `silence_timeout`,
    # drivers.link.SILENCE_TIMEOUT at 1 s beats: under four beats). Each is set after a beat came at the pace
    # before it: the 1 s sleep begun before has ended, and the host's wait is counted again from the new 1 s.
    monkeypatch.setattr(service.sim, "timings", dataclasses.replace(service.sim.timings, heartbeat=0.25))
    page = await _open(browser, service, "/", token=REFEREE)
    assert await page.inner_text("[data-testid=link]") == "已连接"
    await heard()
    monkeypatch.setattr(table._link, "silence_timeout", 1.0)
    await heard()
    # down 0.75-1 s after the pull; plugged back at 2.5 s, the badge shows it down for 1.5 s at least
    service.sim.unplug(duration=2.5)
    await page.wait_for_function("document.querySelector('[data-testid=link]').classList.contains('down')",
                                 timeout=10000)
    said = await page.inner_text("[data-testid=link]")
    assert said.startswith("牌桌连接中断："), said
    await page.wait_for_function("document.querySelector('[data-testid=link]').textContent === '已连接'",
                                 timeout=15000)


async def test_a_win_read_without_its_winning_tile_is_asked_for_in_words(service: TableService, browser: Any) -> None:
    """和牌张 left empty: the Win page sent it and showed the scorer's "hand: win_tile: not a tile code: ''"
    after 读牌中有不是牌的代码, which told the referee nothing to type; a melds slip showed in the colour of the
    last success. Both now say what to type, as refusals, and nothing is recorded."""
    page = await _win_form(browser, service, "N", "discard", "1m 2m 3m 4m 5m 6m 7m 8m 9m 1p 1p 1p 2p", "", "E")
    await page.click("#win-read")
    await page.wait_for_selector("#action-msg.bad", timeout=5000)
    assert await page.inner_text("#action-msg") == "✗ 请填写和牌张，如 5s"
    await page.fill("#win-form input[name=win_tile]", "2x")
    await page.click("#win-read")
    await page.wait_for_function("document.querySelector('#action-msg').textContent.includes('看不懂：2x')")
    await page.fill("#win-form input[name=win_tile]", "2p")
    await page.fill("#win-form input[name=melds]", "碰 xx")
    await page.evaluate("document.querySelector('#action-msg').className = 'msg good'")  # as after a success
    await page.click("#win-read")
    await page.wait_for_function("document.querySelector('#action-msg').textContent.startsWith('✗ 副露看不懂')")
    assert await page.get_attribute("#action-msg", "class") == "msg bad"
    assert not [a for a in service.controller.state.actions if a["type"] == "referee.win_read"]


async def test_a_double_tap_on_a_button_says_it_was_not_recorded_again_in_chinese(service: TableService,
                                                                                 browser: Any) -> None:
    """开始比赛计时 tapped twice: recorded once, and the page says so as the guide quotes it (重复的操作，未再记录);
    it said "重复的操作, 未再记录", an English comma in a Chinese line."""
    page = await _open(browser, service, "/scoresheet", token=REFEREE)
    # both taps in one task: Playwright's dblclick is two round trips to the browser, and on a loaded machine
    # the first tap's answer hid the button (the clock runs) before the second landed (CI, once)
    await page.evaluate(_DOUBLE_TAP)
    await page.wait_for_function("document.querySelector('[data-testid=action-msg]').textContent.includes('未再记录')")
    assert (await page.inner_text("[data-testid=action-msg]")).startswith("✓ 已记录（重复的操作，未再记录） #")
    assert len([a for a in service.controller.state.actions if a["type"] == "referee.session_start"]) == 1


_DOUBLE_TAP = "() => { const b = document.getElementById('session-start'); b.click(); b.click(); }"


async def test_a_double_tap_whose_first_answer_comes_last_still_says_it_was_not_recorded_again(
        service: TableService, browser: Any) -> None:
    """The two taps' answers come on two connections, in either order. The first tap's answer coming after the
    repeat's said only ✓ 已记录 #N over 未再记录, as if the referee had tapped once; the second answer said
    for the key is the repeat, whichever the service replayed."""
    page = await _open(browser, service, "/scoresheet", token=REFEREE)
    replay_said = asyncio.Event()
    answers: list[str | None] = []

    async def first_answer_last(route: Any) -> None:
        response = await route.fetch()  # the repeat is held by the service until the first is done
        answers.append(response.headers.get("idempotent-replayed"))
        if response.headers.get("idempotent-replayed") != "true":
            await replay_said.wait()
            await route.fulfill(response=response)
        else:
            await route.fulfill(response=response)
            await page.wait_for_function("window.__said >= 1")
            replay_said.set()

    await page.evaluate("""() => { window.__said = 0;
        new MutationObserver(() => { window.__said += 1; })
            .observe(document.querySelector('[data-testid=action-msg]'), { childList: true }); }""")
    await page.route("**/api/referee/session/start", first_answer_last)
    await page.evaluate(_DOUBLE_TAP)
    await page.wait_for_function("window.__said >= 2")
    assert sorted(answers, key=str) == [None, "true"]
    assert (await page.inner_text("[data-testid=action-msg]")).startswith("✓ 已记录（重复的操作，未再记录） #")
    assert len([a for a in service.controller.state.actions if a["type"] == "referee.session_start"]) == 1


async def test_a_ruling_pressed_without_the_referees_login_says_how_to_log_in(service: TableService,
                                                                              browser: Any) -> None:
    """The Penalties page's forms are in front of everyone; pressed without the referee's credential the page
    said only 需要裁判权限 (whose? where?). It says to log in with the referee's credential at the top."""
    page = await _open(browser, service, "/penalties")
    await page.select_option("#penalty-code", "late_5")
    await page.click("#penalty-submit")
    await page.wait_for_selector("#action-msg.bad")
    assert (await page.inner_text("#action-msg")).startswith("✗ 需要裁判权限：请在页面上方用裁判员凭证登录")
    assert not [a for a in service.controller.state.actions if a["type"] == "referee.penalty"]


async def test_the_score_sheets_table_points_say_provisional_then_final_in_chinese_brackets(
        service: TableService, browser: Any) -> None:
    """The guide: 标准分由“暂定”变为最终 at 结束比赛. The footer read "标准分 (暂定)", English brackets in a
    Chinese line; it reads 标准分（暂定）, then 标准分（最终）."""
    page = await _open(browser, service, "/scoresheet", token=REFEREE)
    label = "#sheet-foot tr:nth-child(2) th:first-child"  # the footer's 标准分 row
    assert await page.inner_text(label) == "标准分（暂定）"
    await page.click("#session-start")
    await page.wait_for_function("document.getElementById('session-start').hidden")
    await page.click("#session-end")
    await page.wait_for_function(f"document.querySelector('{label}').textContent === '标准分（最终）'")


async def test_a_fault_without_a_place_shows_no_empty_brackets(service: TableService, browser: Any) -> None:
    """The guide: faults show in 故障 with what to do. A fault the table names no place for read
    "电机故障（）：…", an empty bracket where the place goes; now "电机故障：…"."""
    page = await _open(browser, service, "/", token=REFEREE)
    assert service.sim is not None
    service.sim.raise_fault("motor", where="")
    await page.wait_for_function("document.querySelector('#faults').innerText.includes('电机故障')", timeout=5000)
    fault = await page.inner_text("#faults")
    assert fault.startswith("电机故障：") and len(fault) > len("电机故障："), fault
    service.sim.clear_fault("motor")

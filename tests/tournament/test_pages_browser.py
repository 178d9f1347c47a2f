"""The hub's standings page and the table's health line in Debian's Chromium (Playwright), every part real."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from tournament_helpers import Broker, start_tables, until

from table_controller.config import parse_config
from table_controller.scoresheet import compute
from table_controller.service import TableService
from table_controller.tournament.web import HubService
from tests.browsers import CHROMIUM, CHROMIUM_ARGS

# quick_standings: each test waits on the hub's page following its tables
pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="module"), pytest.mark.usefixtures("quick_standings")]


@pytest_asyncio.fixture(loop_scope="module")
async def browser(chromium: Any) -> AsyncIterator[Any]:
    """The file's Chromium for one test: each page it opens has its own context (no storage shared, as
    in a browser of its own), closed after the test."""
    before = set(chromium.contexts)
    try:
        yield chromium
    finally:
        for context in chromium.contexts:
            if context not in before:
                await context.close()


@contextlib.asynccontextmanager
async def hub_page(browser: Any, hub: HubService) -> AsyncIterator[Any]:
    """Debian's Chromium on the hub's standings page."""
    page = await browser.new_page()
    await page.goto(f"http://127.0.0.1:{hub.bound_port}/")
    yield page


async def as_organiser(page: Any, selector: str, credential: str) -> None:
    """`selector` clicked, and the organiser's credential typed into the page's dialog when it asks (#cred)."""
    await page.click(selector)
    await page.wait_for_selector("#cred[open]", timeout=5000)
    await page.fill("#cred-token", credential)
    await page.press("#cred-token", "Enter")


@contextlib.asynccontextmanager
async def hub_page_alone(hub: HubService) -> AsyncIterator[Any]:
    """`hub_page` for a test in another file (its own event loop): a Chromium of its own, closed after."""
    from playwright.async_api import async_playwright

    async with async_playwright() as pw:
        launched = await pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            async with hub_page(launched, hub) as page:
                yield page
        finally:
            await launched.close()


async def test_standings_page_and_the_tables_health_line(tmp_path: Path, broker: Broker, browser: Any,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    from table_controller.web import app as web_app

    # the table's health every 0.5 s instead of 2 (tests/web's `quick_health`; the page reads the interval from
    # the messages): the broker's loss shows on the health line within 0.5 s, the same words, not up to 2 s after
    monkeypatch.setattr(web_app, "HEALTH_EVERY_S", 0.5)
    hub = HubService(broker.url, "cup", tmp_path / "hub", port=0)
    await hub.start()
    table = TableService(parse_config({
        "table": {"link": "sim://", "sim_speed": 1000.0, "name": "一号桌"},
        "players": [{"position": i + 1, "name": n} for i, n in enumerate(["张伟", "李娜", "王芳", "陈杰"])],
        "display": {"port": 0, "operator_token": "op", "referee_token": "ref"},
        "tournament": {"broker": broker.url, "name": "cup", "table_id": "t1"},
    }, source="test"), tmp_path / "t1")
    await table.start()
    try:
        await table.controller.wait_linked(10)
        table.controller.referee_action("referee.penalty", {"seat": "S", "code": "exposed_other", "amount": 15,
                                                            "victim": "W"}, by="referee")
        sheet = compute(table.controller.state)
        await until(lambda: hub.hub.tables.get("t1") is not None and hub.hub.tables["t1"].state is not None
                    and hub.hub.tables["t1"].state["totals"] == sheet["totals"], 10, "the hub to have the penalty")
        page = await browser.new_page()
        await page.goto(f"http://127.0.0.1:{hub.bound_port}/")
        await page.wait_for_selector('[data-player="王芳"]', timeout=5000)
        first = await page.inner_text("[data-testid=standings] tbody tr")
        assert "王芳" in first and "15" in first and first.strip().startswith("1")
        assert "排名" in await page.title() and "一号桌" in await page.inner_text("[data-testid=tables]")
        # the next round's seating, proposed from these standings: the four at one table
        await page.wait_for_selector('[data-testid=pairings] tr[data-table="t1"]', timeout=5000)
        assert "第 2 轮编排" in await page.inner_text("#pair-title")
        row = await page.inner_text('[data-testid=pairings] tr[data-table="t1"]')
        assert all(n in row for n in ("张伟", "李娜", "王芳", "陈杰")) and "再次相遇 6 对" in row
        # a jam at the table: the hub's page says which table needs the chief referee, and stops once cleared
        assert not await page.is_visible("[data-testid=attention]")
        table.sim.raise_fault("jam", where="S")
        await page.wait_for_selector("[data-testid=attention]:not([hidden])", timeout=10000)
        attention = await page.inner_text("[data-testid=attention]")
        assert "需要裁判长处理" in attention and "一号桌" in attention and "卡牌" in attention
        assert "卡牌" in await page.inner_text("[data-testid=alerts-t1]")
        table.sim.clear_fault("jam")
        await page.wait_for_selector("[data-testid=attention]", state="hidden", timeout=10000)
        # a player's appeal waits for the arbitration committee: the hub says so until decided
        table.controller.referee_action("referee.appeal", {"position": 2, "text": "我没有亮牌"}, by="referee")
        await page.wait_for_selector("[data-testid=attention]:not([hidden])", timeout=10000)
        assert "申诉待仲裁委员会裁决 1 件" in await page.inner_text("[data-testid=alerts-t1]")
        appeal = table.controller.state.actions[-1]["seq"]
        table.controller.referee_action("referee.appeal_ruling", {"appeal": appeal, "upheld": True,
                                                                  "note": "判罚有误"}, by="referee")
        await page.wait_for_selector("[data-testid=attention]", state="hidden", timeout=10000)
        # a hand played to the end: the players' statistics count it (技术统计)
        await table.controller.start_hand(by="operator")
        await table.controller.end_hand(by="operator")
        await page.wait_for_selector('[data-testid=stats] tr[data-stats="王芳"]', timeout=10000)
        row = await page.inner_text('[data-testid=stats] tr[data-stats="王芳"]')
        assert row.split()[:3] == ["王芳", "1", "0"] and "技术统计" in await page.inner_text("#stats-title")
        # the table's session clock at the hub: running, then frozen while the referee pauses it
        table.controller.referee_action("referee.session_start", {"minutes": 30}, by="referee")
        await page.wait_for_function(
            "/^(29:[0-5][0-9]|30:00)$/.test(document.querySelector('[data-testid=clock-t1]').innerText)",
            timeout=10000)
        # a kiosk whose clock is five hours behind the hub's: the time left is counted against the hub's
        # `at`, not the screen's clock (it showed 5:29:xx)
        # (waited for: a fetch already under way when the clock moved answers with the old offset first)
        await page.evaluate("async () => { Date.now = ((n) => () => n() - 5 * 3600 * 1000)(Date.now);"
                            " await poll(); clocks(); }")
        await page.wait_for_function(
            "/^(29:[0-5][0-9]|30:00)$/.test(document.querySelector('[data-testid=clock-t1]').innerText)",
            timeout=10000)
        # and NTP steps it an hour forward between two fetches (a live ping comes each 20 s): the clocks read on
        # (they counted from the screen's clock offset at the last fetch: 时间到 until the next one)
        await page.evaluate("() => { Date.now = ((n) => () => n() + 3600 * 1000)(Date.now); clocks(); }")
        assert re.match(r"^(29:[0-5][0-9]|30:00)$", await page.inner_text("[data-testid=clock-t1]"))
        table.controller.referee_action("referee.clock_pause", {"reason": "卡牌"}, by="referee")
        await page.wait_for_function(
            "document.querySelector('[data-testid=clock-t1]').innerText.startsWith('⏸')", timeout=10000)
        await page.click("#lang")
        assert "standings" in await page.title()

        await page.goto(f"http://127.0.0.1:{table.port}/")
        line = page.locator("[data-testid=tournament-health]")
        await line.wait_for(timeout=8000)
        assert "赛事连线正常" in await line.inner_text()
        broker.stop()
        await page.wait_for_function(
            "document.querySelector('[data-testid=tournament-health]').textContent.includes('中断')",
            timeout=15000)
        assert await line.get_attribute("class") == "bad"
    finally:
        await table.stop()
        await hub.stop()


async def test_the_organiser_publishes_round_2s_seating_and_the_referee_keys_it_from_the_table(
        tmp_path: Path, broker: Broker, browser: Any) -> None:
    """Round 1 is played at two tables; the organiser publishes round 2's seating from the hub's
    page (with the organiser's credential); each table receives its four players, and the referee
    fills the new-round form with them on the score sheet page and starts the round."""
    import httpx

    hub = HubService(broker.url, "cup", tmp_path / "hub", port=0, organizer_token="org-secret-1")
    await hub.start()
    tables = await start_tables(broker.url, tmp_path, {"t1": ["张伟", "李娜", "王芳", "陈杰"],
                                                      "t2": ["赵强", "孙丽", "周敏", "吴刚"]}, "ref-pin-77")
    t1, t2 = tables
    try:
        for svc in tables:
            await svc.controller.wait_linked(10)
        t1.controller.referee_action("referee.penalty", {"seat": "S", "code": "exposed_other", "amount": 15,
                                                         "victim": "W"}, by="referee")
        t2.controller.referee_action("referee.penalty", {"seat": "E", "code": "exposed_other", "amount": 10,
                                                         "victim": "N"}, by="referee")
        await until(lambda: all(hub.hub.tables.get(t) is not None and hub.hub.tables[t].state is not None
                                and hub.hub.tables[t].state["seq"] == svc.controller.state.seq
                                for t, svc in (("t1", t1), ("t2", t2))), 10, "the hub to have both tables")
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{hub.bound_port}") as http:
            wrong = await http.post("/api/pairings/publish", headers={"Authorization": "Bearer nope"})
        assert wrong.status_code == 401 and t1.controller.state.seating_offer is None
        async with hub_page(browser, hub) as page:
            await page.wait_for_selector('[data-testid=pairings] tr[data-table="t1"]', timeout=5000)
            page.on("dialog", lambda d: asyncio.ensure_future(d.accept()))  # round 1 still being played: publish anyway
            await as_organiser(page, "#publish", "org-secret-1")
            await page.wait_for_function("document.querySelector('#published').textContent.includes('已发布第 2 轮')",
                                         timeout=5000)
            await until(lambda: all(svc.controller.state.seating_offer for svc in tables), 10,
                        "both tables to receive their seating")
            offer = t1.controller.state.seating_offer
            proposal = hub.hub.published()
            mine = next(t for t in proposal["tables"] if t["table_id"] == "t1")
            assert offer["round"] == 2 and offer["players"] == mine["players"]
            assert "赛事发布第 2 轮编排" in t1.controller.state.log[-1]["text"]

            await page.goto(f"http://127.0.0.1:{t1.port}/scoresheet")
            await page.fill("#token", "ref-pin-77")
            await page.click("#login button[type=submit]")
            await page.wait_for_selector('[data-testid="seating-offer"]:not([hidden])', timeout=5000)
            assert "第 2 轮" in await page.inner_text('[data-testid="seating-offer"]')
            await page.click("#seating-fill")
            await page.click('[data-testid="round-form"] button[type=submit]')
            await until(lambda: t1.controller.state.round == 2, 5, "round 2 to start at t1")
            assert {str(k): v for k, v in t1.controller.state.players.items()} == offer["players"]
            await page.wait_for_selector('[data-testid="seating-offer"][hidden]', state="attached", timeout=5000)
    finally:
        for svc in tables:
            await svc.stop()
        await hub.stop()


async def test_a_table_never_heard_from_is_flagged_on_the_hubs_page(
        tmp_path: Path, broker: Broker, browser: Any) -> None:
    """The venue's tables (`--tables`) are rows from the start; one not heard from says so in its
    row and in 需要裁判长处理, without a link to records it does not have, until it reports."""
    import json

    hub = HubService(broker.url, "cup", tmp_path / "hub", port=0, expected=["t01", "t02"])
    await hub.start()
    try:
        async with hub_page(browser, hub) as page:
            await page.wait_for_selector("[data-testid=attention]:not([hidden])", timeout=5000)
            attention = await page.inner_text("[data-testid=attention]")
            assert "t01" in attention and "t02" in attention and "尚未收到本桌任何消息" in attention
            assert await page.locator("[data-testid=records-t01]").count() == 0
            assert "尚无打完的牌局" in await page.inner_text("[data-testid=stats]")  # not a bare heading
            state = {"v": 1, "tournament": "cup", "table_id": "t01", "seq": 3, "round": 1, "at": 1.0,
                     "table_name": "一号桌", "ruleset": "mcr", "players": {"1": "甲", "2": "乙", "3": "丙", "4": "丁"},
                     "player_ids": {}, "totals": {"1": 0, "2": 0, "3": 0, "4": 0},
                     "table_points": {"1": 1, "2": 1, "3": 1, "4": 1}, "final": False, "hand_no": 1,
                     "hands_played": 0, "phase": "playing", "phase_zh": "对局中"}
            assert hub.hub.handle("mahjong/cup/t01/state", json.dumps(state).encode()) == "state"
            await page.wait_for_selector("[data-testid=records-t01]", timeout=5000)
            assert await page.inner_text("[data-testid=alerts-t01]") == ""
            # its name stays on one line beside the others' long alerts
            assert (await page.locator("[data-testid=records-t01]").bounding_box())["height"] < 40
            await page.wait_for_selector("#publish", state="visible", timeout=5000)  # round 2 can be seated now
            assert (await page.locator("#publish").bounding_box())["x"] >= 16  # inside the page's margin
            attention = await page.inner_text("[data-testid=attention]")
            assert "一号桌" not in attention and "t02" in attention
    finally:
        await hub.stop()


async def _three_rounds(broker: Broker) -> None:
    """Eight registered players, three rounds at two tables, as the tables' standings over the broker."""
    import aiomqtt

    from table_controller.tournament.wire import RecordMsg, StateMsg, Topics, encode

    names = ["欧阳娜娜", "司马光明", "上官婉儿", "诸葛亮亮", "王伟", "李娜", "张敏", "刘洋"]
    async with aiomqtt.Client("127.0.0.1", broker.port, identifier="test-rounds") as client:
        for number in (1, 2, 3):
            for k, table_id in enumerate(("t01", "t02")):
                seats = [(names[(4 * k + i + number) % 8], f"A{(4 * k + i + number) % 8 + 1:03d}") for i in range(4)]
                msg = StateMsg(v=1, tournament="cup", table_id=table_id, seq=100 * number, round=number, at=1.0,
                               table_name=f"{k + 1}号桌", ruleset="mcr",
                               players={str(i + 1): s[0] for i, s in enumerate(seats)},
                               player_ids={str(i + 1): s[1] for i, s in enumerate(seats)},
                               totals={"1": 120, "2": 35, "3": -45, "4": -110},
                               table_points={"1": 4, "2": 2, "3": 1, "4": 0}, final=number < 3,
                               hand_no=16 if number < 3 else 5, hands_played=16 if number < 3 else 4,
                               phase="closed" if number < 3 else ("playing", "walls_raised")[k],
                               phase_zh="本轮结束" if number < 3 else ("对局中", "牌墙已升起")[k])
                await client.publish(Topics("mahjong", "cup", table_id).state, encode(msg), qos=1)
        # one hand's record: 司马光明 (t01's chair 1 in round 1) wins by 自摸 with 清一色
        seats = {w: {"chair": i + 1, "player_no": i + 1, "player": names[i + 1]} for i, w in enumerate("ESWN")}
        win = {"seat": "E", "win_kind": "self_draw", "total": 26, "payments": {},
               "fans": [{"name": "清一色", "name_en": "Full Flush", "value": 24, "count": 1},
                        {"name": "自摸", "name_en": "Self-Drawn", "value": 1, "count": 1}]}
        record = {"view": "public", "hand_no": 1, "round": 1, "seats": seats, "wins": [win], "result": "win",
                  "lines": [], "ruleset": "mcr", "table_name": "1号桌", "points": {}}
        await client.publish(Topics("mahjong", "cup", "t01").records, encode(RecordMsg(
            v=1, tournament="cup", table_id="t01", seq=50, round=1, hand_no=1, record=record)), qos=1)


@contextlib.asynccontextmanager
async def _hub_after_three_rounds(tmp_path: Path, broker: Broker, browser: Any,
                                  **options: Any) -> AsyncIterator[tuple[Any, Any]]:
    """A hub of tables t01 and t02 that has every standing of `_three_rounds`, and the test's Chromium:
    (the hub, the browser); the hub stopped after."""
    hub = HubService(broker.url, "cup", tmp_path / "hub", port=0, expected=["t01", "t02"], **options)
    await hub.start()
    try:
        await until(lambda: hub.hub.connected, 5, "the hub to connect")
        await _three_rounds(broker)
        await until(lambda: sum(len(t.states) for t in hub.hub.tables.values()) == 6, 5, "every round's standing")
        yield hub, browser
    finally:
        await hub.stop()


async def test_the_standings_fit_a_phone(tmp_path: Path, broker: Broker, browser: Any) -> None:
    """On a phone (390×844) the standings were 635 px wide: the rounds' column squeezed the names to
    one character a line (欧/阳/娜/娜) and the page scrolled sideways. Now the standings fit, a
    name and each round's entry stay on one line, and the wide tables below scroll in their own box."""
    async with _hub_after_three_rounds(tmp_path, broker, browser) as (hub, browser):
        for lang in ("", "?lang=en"):
            page = await browser.new_page(viewport={"width": 390, "height": 844})
            await page.goto(f"http://127.0.0.1:{hub.bound_port}/{lang}")
            await page.wait_for_selector('[data-player="欧阳娜娜"]', timeout=5000)
            await page.wait_for_selector("[data-stats], [data-testid=stats] td", timeout=5000)
            width = await page.evaluate("document.documentElement.scrollWidth")
            assert width <= 390, f"the page is {width} px wide on a 390 px phone{lang}"
            lines = await page.evaluate("""() => {
              const lines = (node) => { const r = document.createRange(); r.selectNodeContents(node);
                return new Set([...r.getClientRects()].map((x) => Math.round(x.top))).size; };
              const rows = [...document.querySelectorAll("[data-testid=standings] tbody tr")];
              return rows.map((tr) => [lines(tr.children[1].firstChild),
                Math.max(...[...tr.querySelectorAll(".rnd")].map(lines))]); }""")
            assert len(lines) == 8 and all(x == [1, 1] for x in lines), lines
            await page.close()


async def test_the_standings_fit_a_tablet_in_both_languages_and_keep_the_language_chosen(
        tmp_path: Path, broker: Broker, browser: Any) -> None:
    """On a tablet held upright (768×1024) the English page was 807 px wide: the tables' list (Session clock,
    Needs attention, one line each) ran past the screen and the page scrolled sideways; the wide tables now
    scroll in their own box there as on a phone. And English chosen with the button went back to Chinese at
    a reload (a phone's, a kiosk's after a power cut): the choice is kept in the address and the browser."""
    async with _hub_after_three_rounds(tmp_path, broker, browser) as (hub, browser):
        page = await browser.new_page(viewport={"width": 768, "height": 1024}, has_touch=True, is_mobile=True)
        for lang in ("", "?lang=en"):
            await page.goto(f"http://127.0.0.1:{hub.bound_port}/{lang}")
            await page.wait_for_selector('[data-stats="司马光明"]', timeout=5000)
            await page.wait_for_selector('[data-testid=tables] tr[data-table="t02"]', timeout=5000)
            width = await page.evaluate("document.documentElement.scrollWidth")
            assert width <= 768, f"the page is {width} px wide on a 768 px tablet{lang}"
        await page.goto(f"http://127.0.0.1:{hub.bound_port}/")
        await page.wait_for_selector('[data-stats="司马光明"]', timeout=5000)
        await page.click("#lang")
        assert await page.evaluate("document.documentElement.lang") == "en"
        await page.reload()
        await page.wait_for_selector('[data-stats="司马光明"]', timeout=5000)
        assert await page.evaluate("document.documentElement.lang") == "en"
        assert await page.inner_text("#lang") == "中文"
        await page.goto(f"http://127.0.0.1:{hub.bound_port}/?kiosk=30")  # a new visit: the browser's choice
        await page.wait_for_selector('[data-stats="司马光明"]', timeout=5000)
        assert await page.evaluate("document.documentElement.lang") == "en"
        await page.click("#lang")
        await page.reload()
        await page.wait_for_selector('[data-stats="司马光明"]', timeout=5000)
        assert await page.evaluate("[document.documentElement.lang, location.search]") == ["zh-CN", "?kiosk=30"]
        await page.goto(f"http://127.0.0.1:{hub.bound_port}/?lang=en")  # the address says it: a kiosk set up so
        await page.wait_for_selector('[data-stats="司马光明"]', timeout=5000)
        assert await page.evaluate("document.documentElement.lang") == "en"
        await page.close()


async def test_the_english_page_has_no_chinese_punctuation_nor_fan_names(
        tmp_path: Path, broker: Broker, browser: Any) -> None:
    """In English the rounds were joined with 、 and marked （provisional）, the biggest win's fans were
    the Chinese names (清一色、自摸) and a table's phase its id (walls_raised): the English page now reads
    in English, the Chinese one as before."""
    hub = HubService(broker.url, "cup", tmp_path / "hub", port=0, expected=["t01", "t02"])
    await hub.start()
    try:
        await until(lambda: hub.hub.connected, 5, "the hub to connect")
        await _three_rounds(broker)
        await until(lambda: sum(len(t.states) for t in hub.hub.tables.values()) == 6
                    and hub.hub.tables["t01"].records(), 5, "every round's standing and the record")
        page = await browser.new_page(viewport={"width": 1920, "height": 1080})
        await page.goto(f"http://127.0.0.1:{hub.bound_port}/?lang=en")
        await page.wait_for_selector('[data-stats="司马光明"]', timeout=5000)
        rounds = await page.inner_text('[data-player="司马光明"] td:last-child')
        assert rounds == "R1 1号桌 4, R2 2号桌 0, R3 2号桌 1 (provisional)", rounds
        best = await page.inner_text('[data-stats="司马光明"] td:last-child')
        assert "Full Flush, Self-Drawn" in best and "清一色" not in best, best
        assert "walls raised" in await page.inner_text('[data-testid=tables] tr[data-table="t02"]')
        await page.click("#lang")
        rounds = await page.inner_text('[data-player="司马光明"] td:last-child')
        assert rounds == "第1轮 1号桌 4、第2轮 2号桌 0、第3轮 2号桌 1（暂定）", rounds
        assert "清一色、自摸" in await page.inner_text('[data-stats="司马光明"] td:last-child')
    finally:
        await hub.stop()


async def test_the_organisers_credential_is_asked_in_a_password_field_each_time_and_kept_nowhere(
        tmp_path: Path, broker: Broker, browser: Any, caplog: pytest.LogCaptureFixture) -> None:
    """The standings page is the players' kiosk too. The credential was asked with the browser's `prompt()`: shown
    as typed on a screen people stand around, nothing a password manager could fill, no label for a screen reader.
    Now the page's own dialog asks, a password field labelled 组织者凭证 that a password manager may fill; a wrong
    one is said there, the field empty for another try, and posts nothing; the right one publishes and is gone (in
    no address, storage, field, page or log line) so the next publish asks again, and Escape then posts nothing
    and gives the focus back to 发布到各桌."""
    secret, wrong = "org-9-secret", "org-8-wrong"
    caplog.set_level(logging.DEBUG)
    async with _hub_after_three_rounds(tmp_path, broker, browser, organizer_token=secret) as (hub, browser):
        page = await browser.new_page()
        page.on("dialog", lambda d: asyncio.ensure_future(d.accept()))  # round 3 still being played: publish anyway
        await page.goto(f"http://127.0.0.1:{hub.bound_port}/")
        await page.wait_for_selector("#publish", state="visible", timeout=5000)
        await page.click("#publish")
        await page.wait_for_selector("#cred[open]", timeout=5000)
        field = await page.evaluate("""() => { const f = document.activeElement;
          return [f.id, f.type, f.autocomplete, f.labels[0].textContent, f.name, $('cred-what').textContent]; }""")
        assert field == ["cred-token", "password", "current-password", "组织者凭证", "", "发布第 4 轮编排到各桌"], field
        await page.keyboard.type(wrong)
        await page.keyboard.press("Enter")
        await page.wait_for_function("$('cred-error').textContent.includes('组织者凭证错误')", timeout=5000)
        assert await page.evaluate("[$('cred').open, document.activeElement.id, $('cred-token').value]") \
            == [True, "cred-token", ""]
        assert hub.hub.published() is None
        await page.keyboard.type(secret)
        await page.keyboard.press("Enter")
        await page.wait_for_function("$('published').textContent.includes('已发布第 4 轮')", timeout=5000)
        assert await page.evaluate("[$('cred').open, document.activeElement.id]") == [False, "publish"]
        first = hub.hub.published()
        assert first is not None and first["round"] == 4
        kept = await page.evaluate("""() => [location.href, JSON.stringify({ ...sessionStorage }),
          JSON.stringify({ ...localStorage }), document.documentElement.outerHTML,
          [...document.querySelectorAll('input')].map((i) => i.value).join(' '),
          performance.getEntries().map((e) => e.name).join(' ')]""")
        assert not [k for k in kept if secret in k or wrong in k]
        await page.click("#publish")
        await page.wait_for_selector("#cred[open]", timeout=5000)
        assert await page.input_value("#cred-token") == ""  # asked again, nothing filled in
        await page.keyboard.press("Escape")  # someone at the kiosk, without the credential
        await page.wait_for_selector("#cred", state="hidden", timeout=5000)
        assert await page.evaluate("document.activeElement.id") == "publish"
        await asyncio.sleep(0.5)
        assert hub.hub.published() == first  # nothing posted again
    logged = [r.getMessage() + repr(r.__dict__) for r in caplog.records]
    assert any("/api/pairings/publish" in line for line in logged), "the hub's requests are logged, and read here"
    assert not [line for line in logged if secret in line or wrong in line]


async def test_a_tv_kiosk_turns_the_page_through_a_halls_standings(
        tmp_path: Path, broker: Broker, browser: Any) -> None:
    """Forty players at ten tables: a 1920×1080 TV showed ranks 1 to 18 and nobody could scroll it.
    With ?kiosk the page turns every S seconds and comes back to the top; without, it stays put."""
    import aiomqtt
    from table_controller.tournament.wire import StateMsg, Topics, encode

    hub = HubService(broker.url, "cup", tmp_path / "hub", port=0)
    await hub.start()
    try:
        await until(lambda: hub.hub.connected, 5, "the hub to connect")
        async with aiomqtt.Client("127.0.0.1", broker.port, identifier="test-hall") as client:
            for k in range(10):
                table_id = f"t{k + 1:02d}"
                msg = StateMsg(v=1, tournament="cup", table_id=table_id, seq=9, round=1, at=1.0,
                               table_name=f"{k + 1}号桌", ruleset="mcr",
                               players={str(i + 1): f"选手{4 * k + i + 1}" for i in range(4)},
                               totals={"1": 30 + k, "2": 10, "3": -10, "4": -30 - k},
                               table_points={"1": 4, "2": 2, "3": 1, "4": 0}, final=True, hand_no=16,
                               hands_played=16, phase="closed", phase_zh="本轮结束")
                await client.publish(Topics("mahjong", "cup", table_id).state, encode(msg), qos=1)
        await until(lambda: len(hub.hub.tables) == 10, 5, "ten tables")
        page = await browser.new_page(viewport={"width": 1920, "height": 1080})
        await page.goto(f"http://127.0.0.1:{hub.bound_port}/")
        # laid out, not only attached: under load the first render may not have placed it yet
        await page.wait_for_selector('[data-player="选手40"]', state="visible", timeout=10000)
        # the last rank is below the screen (read in the page at once: the standings are drawn
        # again as updates come, and a row found first may be gone when its box is asked for)
        await page.wait_for_function(
            "(document.querySelector('[data-player=\"选手40\"]')?.getBoundingClientRect().top ?? 0) > 1080")
        # a kiosk beside it, on the same standings: the page that is not one is watched while the kiosk turns
        # (at 0.5 s a screen, down and back to the top: 1 s at least; it slept 1.5 s on its own before). A turn
        # came while the last one's smooth scroll was under way and went on from where that had got to: short
        # of the bottom each time, the page never came back to the top
        watched = asyncio.get_running_loop().time()
        kiosk = await browser.new_page(viewport={"width": 1920, "height": 1080})
        await kiosk.goto(f"http://127.0.0.1:{hub.bound_port}/?kiosk=0.5")
        await kiosk.wait_for_selector('[data-player="选手40"]', state="attached", timeout=5000)
        await kiosk.wait_for_function("window.scrollY > 500", timeout=10000)
        await kiosk.wait_for_function("window.scrollY === 0", timeout=20000)  # back to the top
        assert asyncio.get_running_loop().time() - watched >= 1.0
        assert await page.evaluate("window.scrollY") == 0  # a page that is not a kiosk stays put
    finally:
        await hub.stop()


async def test_the_organiser_takes_a_broken_table_out_and_a_player_out_of_the_seating_from_the_page(
        tmp_path: Path, broker: Broker, browser: Any) -> None:
    """t1's board jams for good in round 1 (a real simulated table); t2 has finished (its standing sent
    over the broker). From the hub's page, with the organiser's credential: t1's round is ended with
    the scores so far, t1 is taken out of service (the banner lets it be, its row says why), and the
    next round is seated at t2 alone, the other four sitting out; A05 withdraws and is shown so."""
    import json

    import aiomqtt

    listed = [{"id": f"A0{i}", "name": n} for i, n in enumerate("张伟 李娜 王芳 陈杰 赵强 孙丽 周敏 吴刚".split(), 1)]
    hub = HubService(broker.url, "cup", tmp_path / "hub", port=0, organizer_token="org-secret-1",
                     registered=listed, expected=["t1", "t2"])
    await hub.start()
    table = TableService(parse_config({
        "table": {"link": "sim://", "sim_speed": 1000.0, "name": "一号桌"},
        "players": [{"position": i + 1, "name": p["name"], "id": p["id"]} for i, p in enumerate(listed[:4])],
        "display": {"port": 0, "operator_token": "op", "referee_token": "ref"},
        "tournament": {"broker": broker.url, "name": "cup", "table_id": "t1"},
    }, source="test"), tmp_path / "t1")
    await table.start()
    t2 = {"v": 1, "tournament": "cup", "table_id": "t2", "seq": 40, "round": 1, "at": 1.0, "table_name": "二号桌",
          "ruleset": "mcr", "players": {str(i + 1): p["name"] for i, p in enumerate(listed[4:])},
          "player_ids": {str(i + 1): p["id"] for i, p in enumerate(listed[4:])},
          "totals": {"1": 30, "2": 10, "3": -10, "4": -30}, "table_points": {"1": 4, "2": 2, "3": 1, "4": 0},
          "final": True, "hand_no": None, "hands_played": 16, "phase": "idle", "phase_zh": "空闲"}
    try:
        await table.controller.wait_linked(10)
        async with aiomqtt.Client("127.0.0.1", broker.port, identifier="test-t2") as client:
            await client.publish("mahjong/cup/t2/state", json.dumps(t2).encode(), qos=1, retain=True)
        table.controller.referee_action("referee.penalty", {"seat": "S", "code": "exposed_other", "amount": 15,
                                                            "victim": "W"}, by="referee")
        table.sim.raise_fault("jam", where="S")  # and it stays: the board is broken
        await until(lambda: all(hub.hub.tables.get(t) is not None and hub.hub.tables[t].state is not None
                                for t in ("t1", "t2")) and hub.hub.tables["t1"].alerts, 10, "both tables at the hub")
        async with hub_page(browser, hub) as page:
            await page.wait_for_selector("[data-testid=attention]:not([hidden])", timeout=10000)
            assert "卡牌" in await page.inner_text("[data-testid=attention]")
            await page.click("#org-title")  # open the organiser's section
            await page.wait_for_selector('#org-table option[value="t1"]', state="attached", timeout=5000)
            await page.select_option("#org-table", "t1")
            await page.fill("#org-reason", "升降台故障，无法修复")
            await as_organiser(page, 'button[data-action="round_end"]', "org-secret-1")
            await page.wait_for_function("document.querySelector('[data-testid=organiser-result]')"
                                         ".textContent.includes('已记录')", timeout=5000)
            await page.wait_for_function("document.querySelector('[data-testid=tables] tr[data-table=\"t1\"]').textContent"
                                         ".includes('组织者按现有成绩结束')", timeout=5000)
            await page.select_option("#org-table", "t1")
            await page.fill("#org-reason", "升降台故障")
            await as_organiser(page, 'button[data-action="table_out"]', "org-secret-1")
            await page.wait_for_selector("[data-testid=out-t1]", timeout=5000)
            assert "停用：升降台故障" in await page.inner_text("[data-testid=out-t1]")
            assert "卡牌" in await page.inner_text("[data-testid=alerts-t1]")  # still said in its row
            await page.wait_for_selector("[data-testid=attention]", state="hidden", timeout=5000)
            await page.wait_for_function("document.querySelector('[data-testid=pairings]').textContent"
                                         ".includes('停用的桌：一号桌')", timeout=5000)
            rows = await page.locator("[data-testid=pairings] tr[data-table]").evaluate_all(
                "rs => rs.map(r => r.dataset.table)")
            assert rows == ["t2"] and "轮空" in await page.inner_text("[data-testid=pairings]")
            # the round's scores so far count, final: 李娜's 15 points are there
            li = await page.inner_text('[data-testid=standings] tr[data-player="李娜"]')
            assert "15" in li and "暂定" not in li
            await page.select_option("#org-player", "id:A05")
            await page.fill("#org-reason", "退赛")
            await as_organiser(page, 'button[data-action="player_out"]', "org-secret-1")
            await page.wait_for_selector('tr[data-player="赵强"] [data-testid=out]', timeout=5000)
            assert "不参加编排：退赛" in await page.inner_text('tr[data-player="赵强"]')
            log_text = await page.inner_text("[data-testid=organiser-log]")
            assert log_text.count("\n") == 2 and "停用此桌" in log_text and "赵强" in log_text
            # each table by its name, as the rest of the page (it said "停用此桌：t1"): no id on the page's words
            assert "停用此桌（不参加编排）：一号桌" in log_text and "结束本轮：一号桌 第1轮" in log_text and "t1" not in log_text
            # a stand-in (陪打) for the seating, by name
            await page.fill("#org-name", "替补甲")
            await as_organiser(page, 'button[data-action="stand_in"]', "org-secret-1")
            await page.wait_for_function("document.querySelector('[data-testid=pairings]').textContent"
                                         ".includes('陪打补位：替补甲')", timeout=5000)
        assert [d["action"] for d in hub.hub.decisions()] == ["round_end", "table_out", "player_out", "stand_in"]
        assert "赵强" not in {s["name"] for t in hub.hub.pairings()["tables"] for s in t["seats"].values()}
    finally:
        await table.stop()
        await hub.stop()


async def test_a_reason_or_name_with_dollar_signs_is_shown_as_typed(tmp_path: Path, browser: Any) -> None:
    """The page put a name or a reason into its words with `String.replace`, which reads "$&", "$'" and "$$" in
    the text put in as patterns: a reason "押金$$" read "押金$", one with "$&" showed "{r}" in its place, "$'"
    the rest of the sentence. Now each is shown as the organiser typed it, in the seating's notes, on the table's
    row and in the decisions' list."""
    hub = HubService("mqtt://127.0.0.1:9", "cup", tmp_path / "hub", port=0, organizer_token="org-secret-1",
                     registered=[{"id": f"A0{i}", "name": n} for i, n in enumerate("甲乙丙丁戊", 1)], expected=["t1"])
    await hub.start()
    reason = "押金$$5 与 $& 及 $' 和 $`"
    try:
        async with hub_page(browser, hub) as page:
            await page.click("#org-title")
            await page.wait_for_selector('#org-player option[value="id:A02"]', state="attached", timeout=5000)
            await page.select_option("#org-player", "id:A02")
            await page.fill("#org-reason", reason)
            await as_organiser(page, 'button[data-action="player_out"]', "org-secret-1")
            await page.wait_for_function("document.querySelector('[data-testid=pairings]').textContent"
                                         ".includes('不参加编排：乙')", timeout=5000)
            assert f"不参加编排：乙（{reason}）" in await page.inner_text("[data-testid=pairings]")
            await page.select_option("#org-table", "t1")
            await page.fill("#org-reason", reason)
            await as_organiser(page, 'button[data-action="table_out"]', "org-secret-1")
            await page.wait_for_selector("[data-testid=out-t1]", timeout=5000)
            assert await page.inner_text("[data-testid=out-t1]") == f"停用：{reason}"
            log_text = await page.inner_text("[data-testid=organiser-log]")
            assert log_text.count(reason) == 2, log_text
        assert [d["data"]["reason"] for d in hub.hub.decisions()] == [reason, reason]
    finally:
        await hub.stop()


async def test_the_page_asks_again_with_the_etag_and_the_hub_answers_304_until_a_change(tmp_path: Path,
                                                                                       browser: Any) -> None:
    """Every phone and screen in the hall fetched the statistics, the seating, the published seating and the
    organiser's decisions whole at each change of the hub, though they change at a hand's end at most. The
    page asks them again with the ETag it holds (no-cache) and the hub answers 304 while they are what the
    page shows; the statistics of a hand that came after are on the page at the next change."""
    import hubday

    hub = HubService("mqtt://127.0.0.1:9", hubday.TOURNAMENT, tmp_path / "hub", port=0,
                     registered=hubday.players(4), expected=hubday.table_ids(4))
    await hub.start()
    assert hub.hub is not None
    day = list(hubday.day(4, 1, 2, events=2))
    last_record = max(k for k, (_, _, kind) in enumerate(day) if kind == "record")
    for topic, payload, _ in day[:last_record]:
        hub.hub.handle(topic, payload)
    try:
        async with hub_page(browser, hub) as page:
            answered = hub._served.server.config.app.state.polled.answered  # (name, status) → count
            await page.wait_for_selector("[data-stats]", timeout=10000)
            before = {p["name"]: p["hands"] for p in hub.hub.stats()["players"]}
            await until(lambda: answered["organiser", 200], 10, "the page's first fetches")
            answered.clear()
            hub.hub.handle(*day[0][:2])  # a duplicate event: the hub changes (its counters), the statistics not
            # organiser is the last of a round of fetches: the first 304 may end a round begun before
            # the clear, the second ends a whole round after it
            await until(lambda: answered["organiser", 304] >= 2, 20, "the page to ask again, twice")
            assert answered["stats", 304] and answered["pairings", 304] and answered["published", 304], answered
            assert not answered["stats", 200], answered
            assert answered["standings None", 200] and not answered["standings None", 304]  # its time: afresh
            # the last hand's record: the next fetch has it, and the page shows it
            answered.clear()
            hub.hub.handle(*day[last_record][:2])
            await until(lambda: answered["stats", 200], 10, "the new statistics")
            after = {p["name"]: p["hands"] for p in hub.hub.stats()["players"]}
            assert after != before
            name, hands = next((n, h) for n, h in after.items() if h != before.get(n))
            cell = f'[data-stats="{name}"] td:nth-child(2)'
            for _ in range(100):
                if await page.inner_text(cell) == str(hands):
                    break
                await asyncio.sleep(0.05)
            assert await page.inner_text(cell) == str(hands), (await page.inner_text(cell), hands)
    finally:
        await hub.stop()

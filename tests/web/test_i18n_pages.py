"""The pages in each language, in Debian's Chromium (Playwright): what the English page kept in Chinese, and the Chinese
page in codes, found by walking every page in both languages through a hand (the audit of 2026-12). Names, the log's
lines and a hand record's lines (the service's Chinese), the ruleset's own texts (rule text, fan book) stay as given.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from table_controller.service import TableService
from test_browser import OPERATOR, REFEREE, _auth, _http, _open, _populate, _start_hand, _throw_all, _until
from test_browser import browser, service  # noqa: F401  (the browser tests' fixtures, per module)

pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="module")]

CJK = re.compile(r"[\u3000-\u303f\u4e00-\u9fff\uff00-\uffef]")


async def _english(page: Any) -> None:
    await page.click("#lang")
    await page.wait_for_function("document.documentElement.lang === 'en'")


async def test_the_english_pages_name_their_controls_lists_and_options_in_english(service: TableService,
                                                                                 browser: Any) -> None:
    """Before, on the English page: the tab's title, the credential's and the wall's names, 判诈和's amount, the
    substitute form's chairs (1号位), a seat's 停和 tooltip (the ruling's Chinese name), the penalty catalogue's
    amounts (0、5、10、20), the signature lines' "：", 更正牌谱's 本盘尚无可更正的行牌 and the replay's 第 1 盘 (the
    last two until the page was opened again); on the Chinese page a wall stack's tooltip said its code (E01t)."""
    async with _http(service) as http:
        await _start_hand(service, http)
        r = await http.post("/api/referee/penalty", json={"seat": "S", "code": "wrong_count"}, headers=_auth(REFEREE))
        assert r.status_code == 200, r.text
    table = await _open(browser, service, "/", token=REFEREE)
    assert await table.get_attribute('#wall [data-pos="E01t"]', "title") == "东家第 1 墩上"
    assert await table.get_attribute('#seats [data-seat="S"] .stopped', "title") == "牌张数目错误（相公）"
    await _english(table)
    assert await table.title() == "Automatic mahjong table · referee display"
    assert await table.get_attribute('#wall [data-pos="E01t"]', "title") == "E wall stack 1 top"
    assert await table.get_attribute('#seats [data-seat="S"] .stopped', "title") == "Wrong number of tiles"
    named = {sel: await table.get_attribute(sel, "aria-label") for sel in ("#nav", "#token", "#wall", "#false-amount")}
    assert named == {"#nav": "pages", "#token": "token / PIN", "#wall": "the wall", "#false-amount": "False win Pts"}
    chairs = await table.eval_on_selector_all("#substitute-form select[name=position] option", "els => els.map(e => e.textContent)")
    assert chairs == ["chair 1 张伟", "chair 2 李娜", "chair 3 王芳", "chair 4 陈杰"]
    await table.click("#lang")  # back to Chinese: the language is the browser's, for the pages opened next

    penalties = await _open(browser, service, "/penalties", token=REFEREE)
    assert await penalties.inner_text("#correct-target option") == "本盘尚无可更正的行牌"
    await _english(penalties)
    assert await penalties.inner_text("#correct-target option") == "No play to correct in this hand"
    escalation = await penalties.inner_text('#penalty-code option[value="empty_claim"]')
    assert escalation == "Called pung/kong without it: 0, 5, 10, 20, and so on"
    await penalties.click("#lang")

    async with _http(service) as http:  # a play, so that hand 1 has a record to replay
        await _throw_all(service)
        r = await http.post("/api/play", json={"type": "deal_done"}, headers=_auth(OPERATOR))
        assert r.status_code == 200, r.text
    replay = await _open(browser, service, "/replay?hand=1", token=REFEREE)
    await replay.wait_for_selector("#replay-hand option", state="attached")
    assert await replay.inner_text("#replay-hand option") == "第 1 盘"
    await _english(replay)
    assert await replay.inner_text("#replay-hand option") == "Hand 1"

    sheet = await _open(browser, service, "/scoresheet")  # in English, as the browser last chose
    await sheet.wait_for_function("document.querySelector('#signatures').textContent.includes('signature')")
    signed = await sheet.evaluate("document.querySelector('#signatures').textContent")
    assert "Player's signature: " in signed and "Referee's signature: " in signed and "：" not in signed


async def test_a_table_link_down_says_why_in_english_on_the_english_page(service: TableService, browser: Any) -> None:
    """The badge said "table link down：牌桌无响应（超过3.5秒未收到数据）" on the English page."""
    page = await _open(browser, service, "/public")
    await _english(page)
    service.sim.unplug(6.0)
    await _until(lambda: not service.controller.state.link["up"], timeout=15)
    await page.wait_for_function("document.querySelector('#link').textContent.startsWith('table link down: ')")
    said = await page.inner_text("#link")
    assert not CJK.search(said), said
    assert said == "table link down: " + service.controller.state.link["reason_en"]
    await page.click("#lang")
    await page.wait_for_function("document.querySelector('#link').textContent.startsWith('牌桌连接中断：')")


def _faces_and_names(svc: TableService) -> re.Pattern[str]:
    """What may stay Chinese on an English page: a tile's face (九筒, 东: the tiles are drawn so) and a name."""
    from table_controller.tiles import tile_name

    words = [tile_name(f"{r}{s}") for s in "mps" for r in range(1, 10)] + [tile_name(f"{r}z") for r in range(1, 8)]
    words += [tile_name(f"{r}f") for r in range(1, 9)] + list(svc.controller.state.players.values())
    words.append(svc.controller.state.table_name)
    return re.compile("|".join(sorted(map(re.escape, words), key=len, reverse=True)))


async def test_the_english_pages_log_and_the_overlays_last_play_read_in_english(service: TableService,
                                                                               browser: Any) -> None:
    """The log's lines were the service's Chinese on the English pages (东家打出 九筒, 裁判：南家 …), and so was the
    English overlay's last play, the one line a broadcast's viewers read; an overlay could not be made English at
    all (OBS shows no button: the page hides it). Each line now comes in both languages (`text`, `text_en`), the
    overlay takes `?lang=en`, and the choice stays over a reload. The English lines name no concealed tile either."""
    frames: list[str] = []
    async with _http(service) as http:
        await _populate(service, http)  # discards, a pung, a flower, a concealed kong of 7s, a penalty, a win read
    allowed = _faces_and_names(service)
    table = await _open(browser, service, "/")
    await _english(table)
    await table.reload()  # the choice is the browser's: kept
    await table.wait_for_function(f"window.__lastSeq >= {service.controller.state.seq}")
    assert await table.evaluate("document.documentElement.lang") == "en"
    log = await table.inner_text("#log")
    assert "W concealed kong" in log and "N pungs 白 白 白" in log and "S discards 白" in log, log
    assert "E discards 九筒" in log and "E flower 梅" in log and "referee: S Late pung (over 3 s) (warning)" in log, log
    assert not CJK.search(allowed.sub("", log)), log
    await table.click("#lang")  # back to Chinese for the pages opened next

    overlay = await browser.new_page()
    await overlay.set_viewport_size({"width": 1920, "height": 1080})
    overlay.on("websocket", lambda ws: ws.on("framereceived", lambda payload: frames.append(payload)))
    await overlay.goto(f"http://127.0.0.1:{service.port}/overlay?lang=en")
    await overlay.wait_for_function(f"window.__lastSeq >= {service.controller.state.seq}")
    shown = await overlay.evaluate("document.body.innerText")
    assert await overlay.inner_text("[data-testid=ov-last]") == "read: N wins", shown
    assert " round · Hand " in await overlay.inner_text("#ov-info"), shown  # not "E round Hand 1"
    assert not CJK.search(allowed.sub("", shown)), shown
    async with _http(service) as http:  # a discard after the page is up: its line comes pushed, in English
        r = await http.post("/api/referee/undo", json={"reason": "读错了"}, headers=_auth(REFEREE))
        assert r.status_code == 200, r.text
        r = await http.post("/api/play", json={"type": "discard", "seat": "N", "tile": "6m"}, headers=_auth(OPERATOR))
        assert r.status_code == 200, r.text
    await overlay.wait_for_function("document.querySelector('[data-testid=ov-last]').textContent === 'N discards 六万'")
    assert "七条" not in "".join(frames) and "7s" not in "".join(frames)  # the concealed kong's faces: in no language
    assert await table.evaluate("document.documentElement.lang") == "zh-CN"  # the address chose the overlay's alone

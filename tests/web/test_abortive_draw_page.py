"""途中流局 keyed on the Table page of a riichi table: a button per abortive draw (九种九牌流局, 四风连打流局,
...), the one the record shows marked; the service refuses one the record does not show, in words, and
after one it accepts the same dealer deals again."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from table_controller.config import parse_config
from table_controller.service import TableService
from test_browser import OPERATOR, _auth, _http, _start_hand, _throw_all, _until

pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="module")]


@pytest_asyncio.fixture(loop_scope="module")
async def riichi_table(tmp_path: Path) -> Any:
    config = parse_config({"table": {"link": "sim://", "sim_seed": 11, "sim_speed": 100.0},
                           "rules": {"ruleset": "riichi"}, "display": {"port": 0, "operator_token": OPERATOR}},
                          source="test")
    svc = TableService(config, tmp_path / "riichi")
    await svc.start()
    await svc.controller.wait_linked(10)
    yield svc
    await svc.stop()


async def test_four_winds_marked_refused_early_then_pressed_and_the_dealer_deals_again(riichi_table: TableService,
                                                                                     chromium: Any) -> None:
    svc = riichi_table
    hand = lambda: svc.controller.state.hand  # noqa: E731
    async with _http(svc) as http:
        async def play(**body: Any) -> None:
            r = await http.post("/api/play", json=body, headers=_auth(OPERATOR))
            assert r.status_code == 200, r.text

        async def end(**body: Any) -> Any:
            return await http.post("/api/hand/end", json={"result": "abortive", **body}, headers=_auth(OPERATOR))

        await _start_hand(svc, http)
        await _throw_all(svc)
        dealer = hand()["dealer_position"]
        await play(type="deal_done")
        for seat in "ESW":
            await play(type="discard", seat=seat, tile="1z")
        r = await end(abortive="four_winds")  # N has not discarded yet: the record does not show it
        assert r.status_code == 422 and r.json()["detail"].startswith("四风连打"), r.text
        r = await end(abortive="nine_terminals", seat="E")  # E has discarded: past its first draw
        assert r.status_code == 422 and "九种九牌只能在东家第一次摸牌时" in r.json()["detail"], r.text
        r = await end(abortive="nine_terminals", seat="N", tiles=["1m", "9m", "1p", "9p", "2m", "3m", "4m", "5m",
                                                                   "6m", "7m", "8m", "2p", "3p", "4p"])
        assert r.status_code == 422 and "幺九牌只有4种" in r.json()["detail"], r.text
        assert not hand().get("ended")  # nothing refused ended the hand
        await play(type="discard", seat="N", tile="1z")
    assert hand()["abortive_shown"] == ["four_winds"]

    page = await (await chromium.new_context(viewport={"width": 1280, "height": 800})).new_page()
    await page.goto(f"http://127.0.0.1:{svc.port}/")
    await page.fill("#token", OPERATOR)
    await page.click("#login button[type=submit]")
    await page.wait_for_function("document.body?.dataset.role === 'operator'")
    button = "[data-testid=abortive-keys] [data-testid=abortive-four_winds]"
    await page.wait_for_selector(f"{button}.shown")
    names = await page.locator("[data-testid=abortive-keys] button").all_text_contents()
    assert names == ["九种九牌流局", "四风连打流局", "四家立直流局", "四杠散了流局"]
    asked: list[str] = []

    async def answer(dialog: Any) -> None:
        asked.append(dialog.message)
        await dialog.accept()

    page.on("dialog", lambda d: asyncio.ensure_future(answer(d)))
    await page.click(button)
    await _until(lambda: bool(hand().get("ended")))
    assert asked and "四风连打流局" in asked[0] and "本场加一" in asked[0]
    ended = svc.controller.state.hands[-1]
    assert (ended["result"], ended["abortive"]) == ("abortive", "four_winds")
    await page.wait_for_selector(button, state="hidden")  # the hand is over: no abortive draw to key
    async with _http(svc) as http:
        await _start_hand(svc, http)
    assert hand()["hand_no"] == 2 and hand()["dealer_position"] == dealer  # 连庄 after 途中流局
    assert hand()["honba"] == 1  # 本场 +1, shown beside the hand's number
    await page.wait_for_function("document.querySelector('[data-testid=hand-no]').textContent.includes('1本场')")

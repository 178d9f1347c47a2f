"""The Table page's 录入骰子 form in a real Chromium against the service on the simulated table (a real pty), its real
SQLite log: the form offers a keyed throw only when the API takes one, and says what the table reported otherwise.

Before, the form was shown and enabled while the walls were still built under the table, and pressing it got the
API's 409 (牌墙尚未升起…): the page offered what the table refused. It is shown disabled now, with the API's own
words (`dice_refused`, from `state.dice_refusal`, the function `POST /api/dice` refuses with), and enabled once the
walls are up. A keyed throw the board then reports with other faces stands, and the page says so (#dice-dispute)."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any, Callable

import httpx
import pytest

from drivers.messages import SEATS as SIDES
from table_controller.controller import side_of_wind

from keyed_hand import served_page  # type: ignore[import-not-found]

pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="module")]

OPERATOR, REFEREE = "op-dice-form-1", "ref-dice-form-2"
OP = {"Authorization": f"Bearer {OPERATOR}"}
#: The table of this test: the simulator at its pace, the credentials of its pages
SETTINGS: dict[str, Any] = {"table": {"link": "sim://", "sim_seed": 3, "sim_speed": 50.0},
              "rules": {"ruleset": "jingji"},
              "display": {"port": 0, "operator_token": OPERATOR, "referee_token": REFEREE}}
DICE = 0x92  # protocol.md §7: the board's `dice` event
FORM = '[data-testid="dice-form"]'


async def _until(check: Callable[[], Any], what: str, timeout: float = 15.0) -> None:
    end = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < end, f"timed out waiting for {what}"
        await asyncio.sleep(0.02)


async def test_the_dice_form_is_disabled_saying_why_while_the_walls_are_not_up(tmp_path: Path, chromium: Any) -> None:
    """竞技 (one throw), the mechanism at fifty times its pace: the build paused by a sensor fault holds the table in
    `building`. The form is shown disabled with the refusal the API gives (the same words, Chinese first); once the
    fault clears and the walls rise it is enabled, and the throw keyed there breaks the wall. The board's late
    report of that throw, read as other faces, is not counted and the page tells the operator."""
    async with served_page(tmp_path, chromium, SETTINGS, OPERATOR, "operator") as (svc, page):
        c, sim = svc.controller, svc.sim
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{svc.port}") as http:
            r = await http.post("/api/hand/start", headers=OP)
            assert r.status_code == 200, r.text
            await _until(lambda: c.state.phase == "building", "the build")
            sim.raise_fault("sensor")  # the build pauses until it clears
            await _until(lambda: "7" in c.state.faults, "the fault")
            await page.wait_for_function(f"window.__lastSeq >= {c.state.seq}")
            assert c.state.phase == "building"
            await page.wait_for_selector(f"{FORM}:not([hidden])")
            assert await page.is_disabled(f"{FORM} button[type=submit]")
            assert await page.is_disabled(f"{FORM} input[name=dice]")
            hint = await page.text_content("#dice-hint")
            assert hint == "牌墙尚未升起（牌桌：砌牌中）：牌墙升起后再由东家掷骰、录入", hint
            r = await http.post("/api/dice", json={"seat": "E", "dice": [3, 4]}, headers=OP)  # the API: the same words
            assert r.status_code == 409 and r.json()["detail"].startswith(hint + " / the walls are not up"), r.text

            sim.clear_fault("sensor")
            await _until(lambda: c.state.phase == "walls_raised", "the walls")
            await page.wait_for_function(f"window.__lastSeq >= {c.state.seq}")
            assert await page.is_enabled(f"{FORM} button[type=submit]")
            assert "牌墙" not in (await page.text_content("#dice-hint") or "")
            await page.fill(f"{FORM} input[name=dice]", "3 4")
            await page.click(f"{FORM} button[type=submit]")
            await _until(lambda: c.state.hand and c.state.hand["deal"] is not None, "the keyed break")
            hand = c.state.hand
            assert hand["throws"] == [{"seat": "E", "side": side_of_wind("E", hand["dealer_position"]),
                                       "dice": [3, 4], "keyed": True}]
            assert await page.text_content("#dice-dispute") == ""

            dealer = side_of_wind("E", hand["dealer_position"])
            sim.newer_event(DICE, bytes([SIDES.index(dealer), 2, 5, 2]))  # the board read that throw as 5 and 2
            await _until(lambda: c.state.hand.get("dice_dispute"), "the board's report")
            await page.wait_for_function(f"window.__lastSeq >= {c.state.seq}")
            told = await page.text_content("#dice-dispute")
            assert told == "牌桌所报东家掷骰（5、2）与录入（3、4）不符：以录入为准，牌桌所报不计；请核对桌上的骰子", told
            assert c.state.hand["deal"]["dice"] == [3, 4]
        await page.close()

"""A chattering button (按键抖动或卡住, `chatter.py`) told to a referee who does not see the screen: real Chromium on the
service over the simulator's real pty. The notice is listed with the table's faults (#faults, no live region); it is
said by the page's alarm (#alarm, role=alert) as a table fault is, once, its climbing count not read again."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from drivers.messages import SEATS as SIDES

from keyed_hand import served_page  # type: ignore[import-not-found]
from test_accessibility import LISTEN  # type: ignore[import-not-found]  # each text a live region says

pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="module")]

REFEREE = "ref-chatter-said-4"
BUTTON, START = 0x93, 1  # protocol.md §7: the board's `button` event, 开始键
#: The table of this test: the simulator at its pace, the credentials of its pages
SETTINGS: dict[str, Any] = {"table": {"link": "sim://", "sim_seed": 2, "sim_speed": 1000.0},
              "display": {"port": 0, "operator_token": "op-chatter-said-5", "referee_token": REFEREE}}


async def test_a_chattering_button_is_said_once_as_a_table_fault_is(tmp_path: Path, chromium: Any) -> None:
    """北's start button reports itself 60 times in a burst: the referee's Table page lists the notice with its count
    and its alarm says 按键抖动或卡住（4号位开始键）… once. Before, `announceFaults` said the table's faults only: the
    notice was shown, never said."""
    async with served_page(tmp_path, chromium, SETTINGS, REFEREE, "referee") as (svc, page):
        c, sim = svc.controller, svc.sim
        await page.wait_for_function(f"window.__lastSeq >= {c.state.seq}")
        await page.evaluate(LISTEN)
        for _ in range(60):
            sim.newer_event(BUTTON, bytes([SIDES.index("N"), START]))
        await page.wait_for_function("[...document.querySelectorAll('#faults li')].some((li) => "
                                     "li.textContent.includes('已连续触发 60 次'))", timeout=15000)
        await page.wait_for_timeout(300)
        said = await page.evaluate("window.__said")
        chatter = [(region, text) for region, text in said if "按键抖动或卡住" in text]
        assert len(chatter) == 1 and chatter[0][0] == "alarm" and "4号位开始键" in chatter[0][1], said

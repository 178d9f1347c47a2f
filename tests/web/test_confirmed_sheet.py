"""The Score sheet page in Chromium after the venue edited a fan's value: the confirmed hand keeps its
points, and the referee (only) sees what today's rules would make of it (`settlements.py`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from table_controller.config import parse_config
from table_controller.rules.ruleset import ENV_DIR
from table_controller.service import TableService
from tests.controller.test_confirmed_settlement import PAIRS, _controller, _dealt, _venue
from test_browser import OPERATOR, REFEREE, _open
from test_browser import browser  # noqa: F401  (the browser tests' fixtures, per module)

pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="module")]


async def test_the_referees_sheet_marks_a_confirmed_win_todays_rules_score_otherwise(
        browser: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV_DIR, str(_venue(tmp_path / "rulesets", 2)))
    c = _controller(tmp_path / "data")
    try:
        _dealt(c)
        c.accept("operator", "play.discard", {"seat": "S", "tile": "7p"})
        c.referee_action("referee.win_read", {"hand": PAIRS}, by="referee")
        c.referee_action("referee.win_confirm", {}, by="referee")  # 七对 2 番: 东 +4, 南 -4
    finally:
        c.store.close()
    monkeypatch.setenv(ENV_DIR, str(_venue(tmp_path / "rulesets-edited", 1)))  # the venue's 七对 is 1 番 now
    config = parse_config({"table": {"link": "sim://", "sim_speed": 1000.0}, "rules": {"ruleset": "sichuan"},
                           "display": {"port": 0, "operator_token": OPERATOR, "referee_token": REFEREE}}, source="test")
    svc = TableService(config, tmp_path / "data")
    await svc.start()
    try:
        page = await _open(browser, svc, "/scoresheet", token=REFEREE)
        mark = page.locator("[data-testid=rescored-1]")
        await mark.wait_for()
        assert (await mark.inner_text()).strip() == "⚠ 现行规则：1"
        assert "裁判长" in (await mark.get_attribute("title") or "")
        row = page.locator("#sheet-body tr[data-hand='1']")
        assert "+4" in await row.inner_text() and "-4" in await row.inner_text()  # as confirmed, not +2
        assert await page.inner_text("[data-testid=total-1]") == "4"
        viewer = await _open(browser, svc, "/scoresheet")  # the public and the printed sheet: the record only
        await viewer.locator("#sheet-body tr[data-hand='1']").wait_for()
        assert not await viewer.locator("[data-testid=rescored-1]").is_visible()
    finally:
        await svc.stop()

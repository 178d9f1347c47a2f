"""The Table page's wall marks the 留牌 where it stands now (walls.md: the 海底 "moves as replacement tiles are
taken from the tail", and the reserve with it), in Debian's Chromium (Playwright) against a real service."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from test_browser import OPERATOR, _auth, _config, _http, _open, _running, _throw_all, _until
from test_browser import browser  # noqa: F401  (the browser tests' fixtures, per module)

pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="module")]


async def _after(svc: Any, *plays: dict[str, Any]) -> None:
    """The hand started, the walls up, the dice thrown, and `plays` keyed by the operator."""
    ctl = svc.controller
    async with _http(svc) as http:
        r = await http.post("/api/hand/start", headers=_auth(OPERATOR))
        assert r.status_code == 200, r.text
        await _until(lambda: ctl.state.phase == "walls_raised")
        await _throw_all(svc)
        for body in plays:
            r = await http.post("/api/play", json=body, headers=_auth(OPERATOR))
            assert r.status_code == 200, r.text


async def test_the_reserve_marked_moves_with_the_haidi_after_a_flower(tmp_path: Path, browser: Any) -> None:
    """海南 keeps 15 tiles back. E's opening 补花 takes the first tail tile: the page marks 15 tiles of 留牌 from the
    tile after the new 海底, the old 海底 among them, and not the replacement taken. Before, it marked the deal's 15:
    the old 海底 stood unmarked between the 海底 and the 留牌, the replacement drawn still marked 留牌."""
    async with _running(_config(ruleset="hainan"), tmp_path / "own") as svc:
        ctl = svc.controller
        await _after(svc, {"type": "deal_done"}, {"type": "flower", "seat": "E", "tile": "1f"})
        table = await _open(browser, svc, "/", token=OPERATOR)
        hand = ctl.state.hand
        now, deal = hand["wall_now"], hand["deal"]
        assert now["tail_drawn"] == 1 and len(now["dead"]) == 15 and now["dead"] != deal["dead"]
        await table.wait_for_selector("[data-pos].dead")
        marked = await table.eval_on_selector_all("[data-pos].dead", "els => els.map(e => e.dataset.pos)")
        assert sorted(marked) == sorted(now["dead"])
        assert deal["last_live"] in marked and deal["tail"][0] not in marked
        assert await table.eval_on_selector_all("[data-pos].last", "els => els.map(e => e.dataset.pos)") == [
            now["last_live"]]


async def test_the_kong_indicator_is_marked_after_a_kong(tmp_path: Path, browser: Any) -> None:
    """riichi: each kong turns up one more 宝牌指示牌 beside the first (the 4th tail stack's top, `kan_step`); the
    page marks both. Before, it marked the deal's first only."""
    async with _running(_config(ruleset="riichi"), tmp_path / "own") as svc:
        ctl = svc.controller
        await _after(svc, {"type": "deal_done"}, {"type": "kong", "seat": "E", "tiles": ["1m"] * 4, "concealed": True})
        table = await _open(browser, svc, "/", token=OPERATOR)
        now = ctl.state.hand["wall_now"]
        assert now["tail_drawn"] == 1 and len(now["indicators"]["dora"]) == 2
        await table.wait_for_selector("[data-pos].indicator")
        marked = await table.eval_on_selector_all("[data-pos].indicator", "els => els.map(e => e.dataset.pos)")
        assert sorted(marked) == sorted(now["indicators"]["dora"])

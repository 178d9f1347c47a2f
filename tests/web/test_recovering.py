"""A long log folded at start (after an upgrade its snapshot is of other code): the display is up
at once and says 正在恢复记录 while the fold runs in a worker thread; actions are refused with the
reason and nothing is lost; then the page gets the whole record. Real service, HTTP and sockets."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets

from table_controller import snapshot
from table_controller.config import parse_config
from table_controller.service import TableService
from table_controller.state import fold
from tests.browsers import CHROMIUM, CHROMIUM_ARGS

REFEREE = "ref-recover-1"


async def _up(service: TableService, task: asyncio.Task[Any]) -> str:
    while service.port is None:
        assert not task.done(), task
        await asyncio.sleep(0.005)
    return f"127.0.0.1:{service.port}"


async def test_the_display_says_it_recovers_the_record_while_the_log_is_folded(long_log: Path, tmp_path: Path) -> None:
    (tmp_path / "events.sqlite3").write_bytes(long_log.read_bytes())  # no snapshot: folded whole
    config = parse_config({"table": {"link": "sim://", "sim_speed": 1000.0},
                           "display": {"port": 0, "operator_token": "op", "referee_token": REFEREE}}, source="test")
    service = TableService(config, tmp_path)
    starting = asyncio.create_task(service.start())
    try:
        host = await _up(service, starting)
        async with httpx.AsyncClient(base_url=f"http://{host}", timeout=30) as http, \
                websockets.connect(f"ws://{host}/ws", max_size=None) as ws:
            health = (await http.get("/api/health")).json()
            state = await http.get("/api/state")
            penalty = await http.post("/api/referee/penalty", headers={"Authorization": f"Bearer {REFEREE}"},
                                      json={"seat": "E", "code": "warning"})
            page = await http.get("/")
            first = json.loads(await ws.recv())
            assert not starting.done(), "the fold ended before the display was asked: make the log longer"
            assert health["recovering"] is not None and health["recovering"]["total"] > 15_000
            assert health["health"]["log"]["message"].startswith("正在恢复记录")
            assert state.status_code == 503 and state.json()["detail"].startswith("正在恢复记录")
            assert penalty.status_code == 503 and "本操作未执行" in penalty.json()["detail"]
            assert page.status_code == 200 and "<html" in page.text.lower()
            assert first["type"] == "health" and first["health"]["log"]["message"].startswith("正在恢复记录")
            # the same socket then gets the whole record, once it is folded
            while first["type"] == "health":
                first = json.loads(await asyncio.wait_for(ws.recv(), 60))
            await starting
            assert first["type"] == "snapshot"
            assert service.controller is not None
            events = service.store.since(0) if service.store is not None else []
            assert first["seq"] >= len(events) - 5  # the table's link events may follow the fold at once
            assert service.controller.state == fold(events)
            assert not any(e.type == "referee.penalty" for e in events)  # refused, not half done
            after = (await http.get("/api/health")).json()
            assert after["recovering"] is None and "正在恢复记录" not in json.dumps(after, ensure_ascii=False)
            ok = await http.post("/api/referee/penalty", headers={"Authorization": f"Bearer {REFEREE}"},
                                 json={"seat": "E", "code": "warning"})
            assert ok.status_code == 200
        # the long fold is kept at once: a power cut now does not fold the whole log again
        row = service.store.get_snapshot() if service.store is not None else None
        assert row is not None and row[1] == snapshot.code_version() and row[0] >= len(events) - 50
    finally:
        if not starting.done():
            starting.cancel()
        await service.stop()


@pytest.mark.browser
async def test_the_page_shows_the_recovery_then_the_table(long_log: Path, tmp_path: Path) -> None:
    """In Chromium: the page loads during the fold, its badge says 正在恢复记录 with the count, and
    the table's own state replaces it once the record is read."""
    from playwright.async_api import async_playwright

    (tmp_path / "events.sqlite3").write_bytes(long_log.read_bytes())
    config = parse_config({"table": {"link": "sim://", "sim_speed": 1000.0},
                           "display": {"port": 0, "operator_token": "op", "referee_token": REFEREE}}, source="test")
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        service = TableService(config, tmp_path)
        starting = asyncio.create_task(service.start())
        try:
            host = await _up(service, starting)
            page = await browser.new_page()
            await page.goto(f"http://{host}/")
            badge = page.locator("[data-testid=link]")
            await page.wait_for_function(
                "document.querySelector('[data-testid=link]').dataset.recovering === '1'", timeout=30_000)
            said = await badge.text_content()
            assert not starting.done(), "the fold ended before the page was drawn: make the log longer"
            assert said is not None and said.startswith("正在恢复记录") and "条事件" in said
            await starting
            await page.wait_for_function(
                "document.querySelector('[data-testid=link]').dataset.recovering === undefined"
                " && window.__lastSeq !== undefined", timeout=30_000)
            assert "正在恢复记录" not in (await badge.text_content() or "")
            assert await page.evaluate("window.__lastSeq") >= service.controller.folded_at_start - 5
        finally:
            if not starting.done():
                starting.cancel()
            await service.stop()
            await browser.close()

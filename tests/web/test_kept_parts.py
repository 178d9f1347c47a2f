"""A socket's event messages leave out the parts of the state that grow with the day (the score
sheet, the ended hands) while the socket already holds them as they are (`kept`); the page keeps
its own, and what it shows is the whole state. Real app, SQLite log, sockets and Chromium."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from table_controller.config import parse_config
from table_controller.controller import Controller
from table_controller.projection import public_view
from table_controller.service import TableService
from table_controller.store import EventStore
from table_controller.web.app import BIG, create_app
from table_controller.web.auth import Credentials
from tablesim.session import write_session
from tests.browsers import CHROMIUM, CHROMIUM_ARGS

REFEREE = "ref-kept-7"
STATUS = {"ok": True, "code": "ok", "message": "摄像头正常", "message_en": "camera OK", "problem": ""}


async def _no_table(url: str) -> Any:
    raise ConnectionRefusedError(url)


def _next_event(ws: Any) -> dict[str, Any]:
    while True:
        msg = ws.receive_json()
        if msg["type"] == "event":
            return msg


def test_a_socket_is_sent_the_big_parts_only_when_they_changed(tmp_path: Path) -> None:
    store = EventStore(tmp_path / "events.sqlite3")
    write_session(store, "mcr", 3, seed=8)
    controller = Controller(parse_config({"table": {"link": "socket://127.0.0.1:9"}}, "test"), store, _no_table)
    with TestClient(create_app(controller, Credentials(referee=REFEREE, operator="op"))) as http:
        with http.websocket_connect("/ws") as ws:
            held = ws.receive_json()
            assert held["type"] == "snapshot" and len(held["state"]["hands"]) == 3
            page = dict(held["state"])
            for step, (source, type_, data) in enumerate([
                    ("camera", "camera.status", STATUS),  # the sheet and the hands as they were: kept
                    ("referee", "referee.penalty", {"seat": "E", "code": "warning", "by": "referee"}),
                    ("camera", "camera.status", {**STATUS, "code": "dark", "ok": False})]):
                controller.accept(source, type_, data)
                msg = _next_event(ws)
                changed = type_ == "referee.penalty"  # a ruling: the sheet's row changes
                if changed:
                    assert "kept" not in msg and all(k in msg["state"] for k in BIG), step
                else:
                    assert msg["kept"] == list(BIG) and not any(k in msg["state"] for k in BIG), step
                for k in msg.get("kept", []):  # as the page does (app.js, onMessage)
                    msg["state"][k] = page[k]
                page = msg["state"]
                whole = http.get("/api/state").json()
                assert {k: v for k, v in page.items() if k != "now"} == {k: v for k, v in whole.items() if k != "now"}
        with http.websocket_connect(f"/ws?since={controller.state.seq - 1}") as again:  # a reconnect: whole
            msg = _next_event(again)
            assert "kept" not in msg and all(k in msg["state"] for k in BIG)
    store.close()


def test_the_broadcast_feed_keeps_the_big_parts_too_and_shares_the_live_score_sheets(tmp_path: Path) -> None:
    """`/ws?delay=S`: the same `kept` as the live sockets; its states' sheets are those the live views
    computed seconds before (a broadcast viewer no longer computes the day's sheet per event)."""
    store = EventStore(tmp_path / "events.sqlite3")
    write_session(store, "mcr", 3, seed=8)
    controller = Controller(parse_config({"table": {"link": "socket://127.0.0.1:9"}}, "test"), store, _no_table)
    with TestClient(create_app(controller, Credentials(referee=REFEREE, operator="op"))) as http:
        with http.websocket_connect("/ws?delay=0.2") as ws:
            page = ws.receive_json()["state"]
            for source, type_, data in [("camera", "camera.status", STATUS),
                                        ("referee", "referee.penalty", {"seat": "W", "code": "warning", "by": "r"}),
                                        ("camera", "camera.status", {**STATUS, "code": "again"})]:
                ev = controller.accept(source, type_, data)
                live = public_view(controller.state)
                msg: dict[str, Any] = {"seq": 0}
                while msg["seq"] < ev.seq:  # (the log's last stamps lie within the delay: they come first)
                    msg = _next_event(ws)
                    for k in msg.get("kept", []):
                        msg["state"][k] = page[k]
                    page = msg["state"]
                assert ("kept" in msg) == (type_ != "referee.penalty")
                assert json.loads(json.dumps(page)) == json.loads(json.dumps(live))
                assert public_view(controller.state)["scoresheet"] is live["scoresheet"]
    store.close()


@pytest.mark.browser
async def test_the_page_shows_the_score_sheet_after_messages_that_kept_it(tmp_path: Path) -> None:
    from playwright.async_api import async_playwright

    store = EventStore(tmp_path / "events.sqlite3")
    write_session(store, "mcr", 3, seed=8)
    store.close()
    config = parse_config({"table": {"link": "sim://", "sim_speed": 1000.0},
                           "display": {"port": 0, "operator_token": "op", "referee_token": REFEREE}}, source="test")
    service = TableService(config, tmp_path)
    await service.start()
    try:
        async with async_playwright() as pw:
            browser = await pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            page = await browser.new_page()
            await page.goto(f"http://127.0.0.1:{service.port}/scoresheet")
            await page.wait_for_function("window.__lastSeq !== undefined && state && state.scoresheet")
            ctl = service.controller
            assert ctl is not None
            for i in range(3):  # events that keep the sheet, then one that changes it, then more that keep it
                ctl.accept("camera", "camera.status", {**STATUS, "code": f"ok{i}"})
            ctl.accept("referee", "referee.penalty", {"seat": "S", "code": "warning", "by": "referee"})
            for i in range(3):
                ctl.accept("camera", "camera.status", {**STATUS, "code": f"again{i}"})
                await asyncio.sleep(0.05)
            await page.wait_for_function(f"window.__lastSeq >= {ctl.state.seq}")
            shown = await page.evaluate("JSON.stringify([state.scoresheet, state.hands])")
            whole = public_view(ctl.state)
            assert json.loads(shown) == json.loads(json.dumps([whole["scoresheet"], whole["hands"]]))
            assert whole["scoresheet"]["rows"][-1]["penalty_count"] == 1  # the page has the changed sheet
            rows = await page.locator("#sheet-body tr").count()
            assert rows >= 3
            await browser.close()
    finally:
        await service.stop()


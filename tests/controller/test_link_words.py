"""The link's reason on the referee's display: the driver says a code (`unplugged`, `silent`), and
the display showed it as it came: "连接断开：unplugged", where the API promises words in Chinese
(`LinkState.reason`). A real simulator on a pty, pulled out and put back; the state over HTTP."""

from __future__ import annotations

import asyncio
from pathlib import Path

import httpx
import pytest

import drivers.table
from drivers.clock import SystemClock
from drivers.names import LINK_REASONS
from table_controller.config import parse_config
from table_controller.service import TableService
from tablesim import SimTable


async def test_an_unplugged_table_is_said_in_words_on_the_display_and_in_its_log(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The host gives the table up after 2 s of silence instead of 3.5 (still twice the 1 s between heartbeats):
    # the sim, put back after 1.5 s, waits for the host's RESET and stays silent, so it is given up as before
    # (put back first, then found silent), 1.5 s sooner.
    monkeypatch.setattr(drivers.table, "SILENCE_TIMEOUT", 2.0)
    sim = SimTable(seed=4, clock=SystemClock())
    pty = await sim.serve_pty()
    config = parse_config({"table": {"link": pty}, "display": {"port": 0, "operator_token": "op",
                                                              "referee_token": "ref-words"}}, source="test")
    service = TableService(config, tmp_path)
    await service.start()
    try:
        await service.controller.wait_linked(10)
        sim.unplug(1.5)
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{service.port}") as http:
            for _ in range(100):
                state = (await http.get("/api/state")).json()
                if not state["link"]["up"]:
                    break
                await asyncio.sleep(0.05)
            code = state["link"].get("code")
            assert code in ("silent", "unplugged"), state["link"]  # a pty pulled out: the host hears nothing
            assert state["link"] == {"up": False, "reason": LINK_REASONS[code][0], "reason_en": LINK_REASONS[code][1],
                                     "code": code}  # the English page's words beside the Chinese
            lines = [e["text"] for e in state["log"] if e["type"] == "link.down"]
            assert lines[-1] == f"牌桌连接中断：{LINK_REASONS[code][0]}"
            await service.controller.wait_linked(10)
            for _ in range(100):
                if (await http.get("/api/state")).json()["link"]["up"]:
                    break
                await asyncio.sleep(0.05)
        downs = [e.data for e in service.store.since(0) if e.type == "link.down"]
        assert downs[-1] == {"reason": code}  # the record keeps the driver's code
    finally:
        await service.stop()
        await sim.close()

"""Request bodies are capped before anything reads them (`web/limits.py`): an unauthenticated
client on the venue's Wi-Fi cannot make the Pi hold hundreds of megabytes (300 MB took the service
from 58 to 366 MB before). Real HTTP against a running service."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest_asyncio

from table_controller.config import parse_config
from table_controller.service import TableService
from table_controller.web.limits import MAX_BODY

REFEREE = "ref-limit"


@pytest_asyncio.fixture
async def service(tmp_path: Path) -> AsyncIterator[TableService]:
    config = parse_config({"table": {"link": "sim://", "sim_seed": 2, "sim_speed": 100.0},
                           "display": {"port": 0, "operator_token": "op", "referee_token": REFEREE}}, source="test")
    svc = TableService(config, tmp_path)
    await svc.start()
    try:
        yield svc
    finally:
        await svc.stop()


async def test_a_declared_huge_body_is_refused_unread(service: TableService) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", service.port)
    writer.write(b"POST /api/referee/penalty HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n"
                 b"Content-Length: 300000000\r\n\r\n[1,")  # 300 MB announced, three bytes sent
    await writer.drain()
    head = await asyncio.wait_for(reader.read(200), 5)
    writer.close()
    assert head.startswith(b"HTTP/1.1 413")


async def test_a_huge_body_without_a_length_is_stopped_at_the_cap_and_the_service_goes_on(service: TableService) -> None:
    sent = 0

    async def body() -> AsyncIterator[bytes]:
        nonlocal sent
        for _ in range(40):  # 8 MB in 200 KB chunks, chunked (no Content-Length)
            sent += 200_000
            yield b" " * 200_000

    auth = {"Authorization": f"Bearer {REFEREE}", "Content-Type": "application/json"}
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{service.port}", timeout=20) as http:
        r = await http.post("/api/referee/penalty", content=body(), headers=auth)
        assert r.status_code == 413 and "过大" in r.json()["detail"] and str(MAX_BODY) in r.json()["detail"]
        assert not service.controller.state.actions  # nothing was done
        ok = await http.post("/api/referee/penalty", json={"seat": "S", "code": "late_5"}, headers=auth)
        assert ok.status_code == 200, ok.text  # an ordinary request on the same service works
        assert (await http.get("/api/health")).status_code == 200


def test_the_hub_caps_bodies_too(tmp_path: Path) -> None:
    from fastapi.testclient import TestClient

    from table_controller.tournament.hub import Hub
    from table_controller.tournament.web import create_hub_app

    hub = Hub("mqtt://127.0.0.1:1", "cup", tmp_path, organizer_token="org-secret-1")
    try:
        with TestClient(create_hub_app(hub)) as client:
            r = client.post("/api/pairings/publish", content=b"x" * (MAX_BODY + 1),
                            headers={"Authorization": "Bearer org-secret-1", "Content-Type": "application/json"})
            assert r.status_code == 413
    finally:
        hub.close()


async def test_a_huge_socket_message_closes_that_socket_only(service: TableService) -> None:
    """A page's socket carries one small message (the referee's credential); one of 1 MB is refused
    (close 1009, "message too big") and the service goes on serving everyone else."""
    import websockets

    async with websockets.connect(f"ws://127.0.0.1:{service.port}/ws/referee", max_size=None) as ws:
        await ws.send("x" * 1_000_000)
        try:
            await asyncio.wait_for(ws.recv(), 5)
        except websockets.ConnectionClosed as closed:
            assert closed.rcvd is not None and closed.rcvd.code == 1009
        else:
            raise AssertionError("the socket stayed open")
    async with websockets.connect(f"ws://127.0.0.1:{service.port}/ws") as ws:
        import json

        assert json.loads(await ws.recv())["type"] == "snapshot"

"""A real Mosquitto per test, on a free loopback port, that a test may stop and start again."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import aiomqtt
import pytest
from tournament_helpers import MOSQUITTO, Broker, Wire


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[Broker]:
    if not Path(MOSQUITTO).exists():
        pytest.fail("mosquitto is not installed (Debian package `mosquitto`, listed in apt-packages.txt)")
    b = Broker(tmp_path)
    b.start()
    try:
        yield b
    finally:
        b.stop()


@pytest.fixture
async def wire(broker: Broker) -> AsyncIterator[Wire]:
    w = Wire()
    ready = asyncio.Event()

    async def listen() -> None:
        async with aiomqtt.Client("127.0.0.1", broker.port, identifier="test-wire") as client:
            w.client = client
            await client.subscribe("#", qos=1)
            ready.set()
            async for m in client.messages:
                payload = m.payload if isinstance(m.payload, bytes) else str(m.payload).encode()
                w.messages.append((str(m.topic), payload, bool(m.retain)))

    task = asyncio.create_task(listen())
    await asyncio.wait_for(ready.wait(), 5)
    try:
        yield w
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)


@pytest.fixture
def quick_standings(monkeypatch: pytest.MonkeyPatch) -> None:
    """The tables in this process send their standing at most every 0.1 s (`publisher.POLL_S`, 0.5 s in
    service): a test that waits for the hub to show each change waited up to 0.5 s for each; what is sent is
    the same."""
    import table_controller.tournament.publisher as publisher

    monkeypatch.setattr(publisher, "POLL_S", 0.1)

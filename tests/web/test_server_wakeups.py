"""An idle table wakes its Pi only for what happens: the display's server is not a 10 Hz poll.

uvicorn's own main loop sleeps 0.1 s and looks whether it should stop: ten wakeups a second of the
event loop's thread on an idle table (13 a second in all with a page open: `bench/footprint.py`).
The wakeups are counted as the kernel counts them: the loop thread's voluntary context switches
while it waits, with a real server on a real port.
"""

from __future__ import annotations

import asyncio
import email.utils
import time
from pathlib import Path

import httpx
from fastapi import FastAPI

from table_controller.web.serve import serve, stop_tasks


def switches() -> int:
    """This thread's voluntary context switches so far (each a sleep it woke from)."""
    text = Path("/proc/thread-self/status").read_text()
    return int(next(line.split()[1] for line in text.splitlines() if line.startswith("voluntary_ctxt_switches")))


async def wakeups_while_idle(seconds: float) -> int:
    before = switches()
    await asyncio.sleep(seconds)
    return switches() - before


async def test_an_idle_display_server_does_not_wake_the_loop_ten_times_a_second() -> None:
    app = FastAPI()

    @app.get("/")
    def root() -> dict[str, bool]:
        return {"ok": True}

    served = await serve(app, "127.0.0.1", 0, name="http", what="the test's server")
    try:
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{served.port}") as http:
            await asyncio.sleep(0.2)
            idle = await wakeups_while_idle(2.0)
            # the loop's own sleep, the Date header's second: a few, not twenty
            assert idle <= 6, f"{idle} wakeups in 2 s of an idle server"
            await asyncio.sleep(1.1)
            answer = await http.get("/")
            assert answer.json() == {"ok": True}
            date = email.utils.parsedate_to_datetime(answer.headers["date"]).timestamp()
            assert abs(date - time.time()) <= 2.0  # the Date header still follows the clock, to the second
    finally:
        t0 = time.perf_counter()
        await stop_tasks([served.task], served)
        stopped = time.perf_counter() - t0
    assert served.task.done() and stopped < 0.5  # a stop is seen at once, not at the next tick


async def _refused(port: int) -> bool:
    try:
        _, writer = await asyncio.open_connection("127.0.0.1", port)
    except OSError:
        return True
    writer.close()
    return False


async def test_a_stop_closes_the_port_with_or_without_connections_open() -> None:
    """With none open the stop skips uvicorn's 0.1 s for connections to hear it (serve.py `shutdown`); with a
    kept-alive connection open it is uvicorn's own: the connection is closed too, the port either way."""
    app = FastAPI()

    @app.get("/")
    def root() -> dict[str, bool]:
        return {"ok": True}

    alone = await serve(app, "127.0.0.1", 0, name="http", what="the test's server")
    await stop_tasks([alone.task], alone)
    assert alone.task.done() and alone.task.exception() is None and await _refused(alone.port)

    held = await serve(app, "127.0.0.1", 0, name="http", what="the test's server")
    reader, writer = await asyncio.open_connection("127.0.0.1", held.port)
    writer.write(b"GET / HTTP/1.1\r\nHost: t\r\n\r\n")
    await writer.drain()
    assert b"200 OK" in await reader.readuntil(b"\r\n\r\n")
    assert held.server.server_state.connections  # kept alive after its answer
    await stop_tasks([held.task], held)
    assert held.task.done() and await _refused(held.port)
    await reader.read(65536)  # the answer's body, then the close the server sent
    assert reader.at_eof()
    writer.close()

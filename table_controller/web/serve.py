"""Serve a FastAPI app with uvicorn inside the caller's event loop, and take it down again.

The table's display and the tournament hub's page both run beside other tasks in one loop; this
is the one place that knows how to start uvicorn there, notice a port that is taken, and stop it.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

#: How long a task gets to finish after it is told to stop (seconds).
STOP_TIMEOUT_S = 5.0


#: Bytes one WebSocket message from a page may have.
WS_MAX_MESSAGE = 1 << 16


@dataclass
class Served:
    """A running uvicorn server: its task and the port it actually bound (for port 0)."""

    server: Any
    task: asyncio.Task[Any]
    port: int


async def serve(app: Any, host: str, port: int, name: str, what: str, **options: Any) -> Served:
    """Start `app` on host:port; raise OSError (naming `what`) if it cannot listen."""
    import uvicorn

    # a page sends one small message on its socket (the referee's credential): a 16 MiB frame
    # (uvicorn's default cap) per connection is memory a stranger could take; 64 KiB is plenty
    options.setdefault("ws_max_size", WS_MAX_MESSAGE)
    server = uvicorn.Server(uvicorn.Config(app, host=host, port=port, log_config=None, lifespan="off", **options))
    task = asyncio.create_task(server.serve(), name=name)
    while not server.started:
        if task.done():  # e.g. the port is taken: say so instead of hanging
            task.result()
            raise OSError(f"{what} did not start on {host}:{port}")
        await asyncio.sleep(0.02)
    return Served(server, task, int(server.servers[0].sockets[0].getsockname()[1]))


async def stop_tasks(tasks: list[asyncio.Task[Any]], served: Served | None) -> None:
    """Let the server finish its connections, cancel the other tasks, wait for all of them."""
    if served is not None:
        served.server.should_exit = True
    for task in tasks:
        if served is None or task is not served.task:
            task.cancel()
    for task in tasks:
        try:
            await asyncio.wait_for(task, STOP_TIMEOUT_S)
        except (asyncio.CancelledError, asyncio.TimeoutError, Exception):
            pass
    tasks.clear()

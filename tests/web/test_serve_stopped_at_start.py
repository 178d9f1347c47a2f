"""A stop that comes as the display starts (systemd's stop, a test's SIGTERM the moment health answers).

uvicorn handles SIGTERM itself while it serves and closes its sockets; `serve` read the bound port from them
after seeing the server started, and a stop in between crashed the start with IndexError (a traceback and
exit 1 on a clean clone's CI). Now the start finishes and the stop goes on."""

from __future__ import annotations

import asyncio
from typing import Any

from table_controller.web import serve as serve_mod


async def test_a_server_stopped_as_it_started_still_starts_and_stops(monkeypatch: Any) -> None:
    base = serve_mod._quiet_server()

    class StoppedAtOnce(base):  # type: ignore[misc, valid-type]
        async def startup(self, sockets: Any = None) -> None:
            await super().startup(sockets=sockets)
            for server in self.servers:  # what uvicorn's shutdown does on a SIGTERM, before `serve` looks
                server.close()

    monkeypatch.setattr(serve_mod, "_quiet_server", lambda: StoppedAtOnce)

    async def app(scope: Any, receive: Any, send: Any) -> None:
        raise AssertionError("nothing is asked of it")

    served = await serve_mod.serve(app, "127.0.0.1", 0, "test-display", "the display")
    assert served.port == 0  # no socket left to read the bound port from: the one asked for
    served.server.should_exit = True
    await asyncio.wait_for(served.task, 10)

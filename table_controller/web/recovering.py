"""While the log is folded at start, the display answers: its pages load, sockets and /api/health
say how far the fold is (正在恢复记录), and everything that needs the state answers 503.

A log folded whole after an upgrade (its snapshot of other code: `snapshot.py`) took 3 s here for
40,000 events, 15-25 s on a Pi, and the display did not answer at all meanwhile: a referee saw a
page that would not load and could not tell a slow start from a dead service.
"""

from __future__ import annotations

import json
from typing import Any

from table_controller.controller import RECOVERING_ZH, Controller
from table_controller.web.limits import Receive, Scope, Send

#: Paths that answer while recovering: the service's health (it says how far the fold is).
ANSWERING = ("/api/health",)
#: Seconds between two progress messages on a socket that waits for the fold.
PROGRESS_EVERY_S = 0.5


class WhileRecovering:
    """Answer 503 (in the referee's words first) to every `/api/` request but the health while
    `controller.recovering`; pages and static files are served as always."""

    def __init__(self, app: Any, controller: Controller) -> None:
        self.app = app
        self.controller = controller

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = str(scope.get("path", ""))
        if (scope["type"] != "http" or self.controller.recovering is None or not path.startswith("/api/")
                or path in ANSWERING):
            await self.app(scope, receive, send)
            return
        body = json.dumps({"detail": RECOVERING_ZH, "recovering": self.controller.recovering},
                          ensure_ascii=False).encode()
        await send({"type": "http.response.start", "status": 503,
                    "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                                (b"retry-after", b"1")]})
        await send({"type": "http.response.body", "body": body})

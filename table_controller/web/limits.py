"""A cap on request bodies, before anything reads them.

FastAPI reads a request's whole body before the credential is checked, so anyone on the venue's
Wi-Fi could post a few hundred megabytes to any endpoint and the Pi would hold them in memory (300
MB took the service from 58 to 366 MB; a few such requests and the kernel kills it mid-match). The
largest real body (a win's hand, a seating, a penalty) is a few kilobytes. This ASGI middleware
answers 413 to a declared length over the cap without reading the body, and stops a body sent
without a length (chunked) as soon as it passes the cap.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

#: Bytes a request body may have: a hundred times the largest real one.
MAX_BODY = 1 << 20

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]


class _TooLarge(Exception):
    pass


class BodyLimit:
    """Refuse request bodies over `max_bytes` with 413 and a message that says the limit."""

    def __init__(self, app: Callable[[Scope, Receive, Send], Awaitable[None]], max_bytes: int = MAX_BODY) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope.get("headers") or []).get(b"content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > self.max_bytes):
            await self._refuse(send)
            return
        seen = 0
        over = started = False

        async def counted() -> Message:
            nonlocal seen, over
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.max_bytes:
                    over = True
                    raise _TooLarge  # FastAPI turns it into its own 400 "error parsing the body"...
            return message

        async def watched(message: Message) -> None:
            nonlocal started
            if over:  # ... which goes out as the 413 that says why
                if message["type"] == "http.response.start" and not started:
                    started = True
                    await self._refuse(send)
                return
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, counted, watched)
        except _TooLarge:
            if not started:
                await self._refuse(send)

    async def _refuse(self, send: Send) -> None:
        body = json.dumps({"detail": f"请求内容过大（上限 {self.max_bytes // 1024} KB） / request body over "
                                     f"{self.max_bytes} bytes"}, ensure_ascii=False).encode()
        await send({"type": "http.response.start", "status": 413,
                    "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]})
        await send({"type": "http.response.body", "body": body})

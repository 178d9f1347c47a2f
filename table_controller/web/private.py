"""No browser or proxy keeps a private answer: `Cache-Control: no-store` on what a credential was shown for.

The referee's reads carry concealed tiles (`GET /api/referee/state`: the win as read; `GET /api/referee/hands/N/
record`: the hands read at a win and at 查叫), and the Penalties page asks for the hand's referee record at every
play. They went out with no `Cache-Control`, which lets a browser write them to its disk cache: on a tablet
shared with the players, the hands as read stayed in the profile after 退出. Every answer under
`/api/referee/` or `/api/requests/`, and every answer to a request that carried a credential
(`Authorization`), now says `no-store` (the camera's pictures said it already).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]

#: Paths whose answers are a credential holder's, whatever the request carried.
PRIVATE_PATHS = ("/api/referee/", "/api/requests/")
NO_STORE = b"no-store"


def private(scope: Scope) -> bool:
    """Whether the answer to this request is for the credential holder only."""
    if str(scope.get("path", "")).startswith(PRIVATE_PATHS):
        return True
    return any(name.lower() == b"authorization" for name, _ in scope.get("headers") or ())


class NoStore:
    """Answers to private requests (`private`) go out with `Cache-Control: no-store`, replacing any other."""

    def __init__(self, app: Callable[[Scope, Receive, Send], Awaitable[None]]) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not private(scope):
            await self.app(scope, receive, send)
            return

        async def sending(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = [(k, v) for k, v in message.get("headers") or () if k.lower() != b"cache-control"]
                message = {**message, "headers": [*headers, (b"cache-control", NO_STORE)]}
            await send(message)

        await self.app(scope, receive, sending)

"""An action sent twice is done once: the referee's double tap, or a retry after a lost answer.

On a tablet over the venue's Wi-Fi the same POST often arrives twice: a finger taps twice, or the
answer is lost and the referee presses again not knowing whether it landed. Before, each arrival was
a new action: two penalties, two undos (the second undoing a ruling nobody meant to touch). The page
sends an `Idempotency-Key` header with every action and the same key when it repeats one; this ASGI
middleware answers a repeat with the first answer (header `Idempotent-Replayed: true`) instead of
acting again, and holds a repeat that arrives while the first is still running until it is done.

Only successful answers are kept: a refused or failed action changed nothing, so its repeat is
judged afresh. Keys are scoped by the credential, kept for `KEEP_S` seconds and at most `KEEP` of
them, in memory. A key reused for a different request is refused (422).

Across a restart: the key is also kept in the log with the event the action made, in the same
transaction (`store.REQUEST`, table `requests`). A service that died after writing the event and
before answering (a power cut, kill -9) lost the answer; the page asks again under the same key and
the restarted service answers from the log (`recorded`) instead of acting again. Before, the
repeat acted again: a penalty recorded twice.

Asked without acting: `GET /api/requests/{key}` (same credential) answers whether the action under that
key was done: 200 with its answer, or 404 when it never arrived (or was refused). A 404 also gives the
key up: the request itself, still on its way over a slow link, is refused when it lands (409,
`GIVEN_UP`) instead of acting after the page told the referee it was not recorded. Before, a page that
lost an answer could only send the action again to learn its fate, which did it if it had not arrived,
possibly minutes later on a state that had moved on.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, MutableMapping
from dataclasses import dataclass
from typing import Any

from table_controller.store import REQUEST

KEY_HEADER = b"idempotency-key"
REPLAYED_HEADER = b"idempotent-replayed"
#: Answers kept for repeats: a retry comes within seconds, a referee's second look within minutes.
KEEP = 1000
KEEP_S = 600.0
MAX_KEY = 128
#: A key that is none: empty, too long, not ASCII (it said only the English after the slash).
BAD_KEY = f"Idempotency-Key 须为 1 至 {MAX_KEY} 个 ASCII 字符 / Idempotency-Key: 1 to {MAX_KEY} ASCII characters"
#: A key sent again with another request.
REUSED = "Idempotency-Key 已用于另一个请求 / key already used for a different request"
#: The path a page asks on, without acting, whether a key's action was done.
ASK_PATH = "/api/requests/"
#: Actions whose body is a secret (a PIN change: the old PIN and the new): never fingerprinted into the log,
#: where a SHA-256 of two 6-digit PINs is 10^12 guesses away for whoever holds a copy. Acted on as sent.
UNKEPT = frozenset({"/api/referee/credential"})
#: A request arriving after the page was told it had not.
GIVEN_UP = ("这个操作到达得太晚：页面已核对为未记录，没有记录 / arrived after the page was told it was not recorded: "
            "not recorded")
NOT_DONE = "没有收到这个操作：未记录 / no such action arrived: nothing was recorded"

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]


@dataclass(frozen=True)
class _Answer:
    fingerprint: bytes
    status: int
    headers: list[tuple[bytes, bytes]]
    body: bytes
    at: float


class Replays:
    """Answer a repeated `Idempotency-Key` POST with its first successful answer."""

    def __init__(self, app: App, keep: int = KEEP, keep_s: float = KEEP_S,
                 clock: Callable[[], float] = time.monotonic,
                 recorded: Callable[[str], tuple[str, int, str] | None] | None = None) -> None:
        self.app = app
        #: slot -> (fingerprint, seq, type) of an action the log holds (`EventStore.request_done`)
        self.recorded = recorded
        self.keep, self.keep_s, self.clock = keep, keep_s, clock
        self._answers: OrderedDict[bytes, _Answer] = OrderedDict()
        self._running: dict[bytes, asyncio.Event] = {}
        self._given_up: OrderedDict[bytes, float] = OrderedDict()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["method"] == "GET" and scope["path"].startswith(ASK_PATH):
            await self._ask(scope, send)
            return
        if scope["type"] != "http" or scope["method"] != "POST" or scope["path"] in UNKEPT:
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers") or [])
        key = headers.get(KEY_HEADER)
        if key is None:
            await self.app(scope, receive, send)
            return
        if not key or len(key) > MAX_KEY or not key.isascii():
            await _answer(send, 400, BAD_KEY)
            return
        body = await _read(receive)
        auth = headers.get(b"authorization", b"")
        slot = hashlib.sha256(auth + b"\0" + key).digest()
        fingerprint = hashlib.sha256(b"\0".join([scope["path"].encode(), scope.get("query_string", b""),
                                                  body])).digest()
        while slot in self._running:  # the first of a double tap is still running: wait for its answer
            await self._running[slot].wait()
        self._expire()
        if slot in self._given_up:
            await _answer(send, 409, GIVEN_UP)
            return
        prior = self._answers.get(slot)
        if prior is not None:
            if prior.fingerprint != fingerprint:
                await _answer(send, 422, REUSED)
                return
            await send({"type": "http.response.start", "status": prior.status,
                        "headers": [*prior.headers, (REPLAYED_HEADER, b"true")]})
            await send({"type": "http.response.body", "body": prior.body})
            return
        done = self.recorded(slot.hex()) if self.recorded is not None else None
        if done is not None:  # done before a restart that lost its answer: answered from the log
            if done[0] != fingerprint.hex():
                await _answer(send, 422, REUSED)
                return
            await send({"type": "http.response.start", "status": 200,
                        "headers": [(b"content-type", b"application/json"), (REPLAYED_HEADER, b"true")]})
            await send({"type": "http.response.body", "body": json.dumps({"seq": done[1], "type": done[2]}).encode()})
            return
        running = self._running[slot] = asyncio.Event()
        start: Message = {}
        parts: list[bytes] = []

        delivered = False

        async def replay_body() -> Message:  # the body once, then the client's own (a disconnect)
            nonlocal delivered
            if delivered:
                return await receive()
            delivered = True
            return {"type": "http.request", "body": body, "more_body": False}

        async def keep(message: Message) -> None:
            if message["type"] == "http.response.start":
                start.update(message)
            elif message["type"] == "http.response.body":
                parts.append(message.get("body", b""))
            await send(message)

        request = REQUEST.set((slot.hex(), fingerprint.hex()))  # kept with the action's event
        try:
            await self.app(scope, replay_body, keep)
            status = int(start.get("status", 500))
            if 200 <= status < 300:
                self._answers[slot] = _Answer(fingerprint, status, list(start.get("headers", [])),
                                              b"".join(parts), self.clock())
                while len(self._answers) > self.keep:
                    self._answers.popitem(last=False)
        finally:
            REQUEST.reset(request)
            del self._running[slot]
            running.set()

    async def _ask(self, scope: Scope, send: Send) -> None:
        """Whether the action sent under a key was done (its answer), or not (404, and the key given up)."""
        key = scope["path"][len(ASK_PATH):].encode()
        if not key or len(key) > MAX_KEY or not key.isascii():
            await _answer(send, 400, BAD_KEY)
            return
        auth = dict(scope.get("headers") or []).get(b"authorization", b"")
        slot = hashlib.sha256(auth + b"\0" + key).digest()
        while slot in self._running:  # it is being done now: its answer is the one to give
            await self._running[slot].wait()
        self._expire()
        prior = self._answers.get(slot)
        if prior is not None:
            await send({"type": "http.response.start", "status": prior.status,
                        "headers": [*prior.headers, (REPLAYED_HEADER, b"true")]})
            await send({"type": "http.response.body", "body": prior.body})
            return
        done = self.recorded(slot.hex()) if self.recorded is not None else None
        if done is not None:
            await send({"type": "http.response.start", "status": 200,
                        "headers": [(b"content-type", b"application/json"), (REPLAYED_HEADER, b"true")]})
            await send({"type": "http.response.body", "body": json.dumps({"seq": done[1], "type": done[2]}).encode()})
            return
        self._given_up[slot] = self.clock()
        while len(self._given_up) > self.keep:
            self._given_up.popitem(last=False)
        await _answer(send, 404, NOT_DONE)

    def _expire(self) -> None:
        now = self.clock()
        while self._answers:
            oldest = next(iter(self._answers.values()))
            if now - oldest.at <= self.keep_s:
                break
            self._answers.popitem(last=False)
        while self._given_up and now - next(iter(self._given_up.values())) > self.keep_s:
            self._given_up.popitem(last=False)


async def _read(receive: Receive) -> bytes:
    """The whole request body (already capped by `limits.BodyLimit`, which sits outside)."""
    parts = []
    while True:
        message = await receive()
        if message["type"] != "http.request":
            break
        parts.append(message.get("body", b""))
        if not message.get("more_body"):
            break
    return b"".join(parts)


async def _answer(send: Send, status: int, detail: str) -> None:
    body = json.dumps({"detail": detail}, ensure_ascii=False).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})

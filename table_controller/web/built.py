"""Records built from the log once per log position, one build at a time, for every client that asks
(and the hub's archive, once per hub version).

A round's records, or all of them, are built from the whole log in a worker thread (half a second at
400 hands here, a Pi 5-8x that). Each request built its own: a spectator's laptop asking for
`/api/records?all=true` from 16 connections at once kept as many threads building, and while they
held the interpreter the service's loop (the table's link, every page and socket) stalled up to 0.6 s
here (a Pi: seconds, past the link's 3.5 s silence timeout). Now what was built at the current log
position is answered again, requests for the same build wait for the one running, and the public's
builds run one at a time; the referee's (authenticated) do not queue behind them.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any

#: Builds kept (bodies of a few MB at most each: a long day's records as JSON).
KEPT = 8


class OnceBuilt:
    """Bodies built off the loop, kept by (what, log position); see the module's docstring."""

    def __init__(self, kept: int = KEPT) -> None:
        self.kept = kept
        self._done: OrderedDict[Hashable, bytes] = OrderedDict()
        self._running: dict[Hashable, asyncio.Task[bytes]] = {}
        self._public: asyncio.Semaphore | None = None

    async def get(self, key: Hashable, build: Callable[..., bytes], queued: bool = True,
                  prepare: Callable[[], Any] | None = None) -> bytes:
        """The body for `key` (which must name what it is built from: the log position, the hub's version):
        kept, being built, or built now in a worker thread; `prepare`, where given, runs on the loop
        first (what only the loop may read, such as the hub's SQLite files) and `build` takes what it
        returns. `queued`: wait for the other public builds first. A build's error reaches every request
        waiting for it, and nothing is kept; a request that goes away leaves the build to the others."""
        if key in self._done:
            self._done.move_to_end(key)
            return self._done[key]
        task = self._running.get(key)
        if task is None:
            task = self._running[key] = asyncio.ensure_future(self._run(key, build, queued, prepare))

            def finished(t: asyncio.Task[bytes]) -> None:
                self._running.pop(key, None)
                if not t.cancelled():
                    t.exception()  # retrieved: every request that waited has it already

            task.add_done_callback(finished)
        return await asyncio.shield(task)

    async def _run(self, key: Hashable, build: Callable[..., bytes], queued: bool,
                   prepare: Callable[[], Any] | None) -> bytes:
        if queued:
            if self._public is None:
                self._public = asyncio.Semaphore(1)
            async with self._public:
                body = await self._build(build, prepare)
        else:
            body = await self._build(build, prepare)
        self._done[key] = body
        while len(self._done) > self.kept:
            self._done.popitem(last=False)
        return body

    async def _build(self, build: Callable[..., bytes], prepare: Callable[[], Any] | None) -> bytes:
        if prepare is None:
            return await asyncio.to_thread(build)
        return await asyncio.to_thread(build, prepare())

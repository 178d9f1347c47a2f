"""A socket's handler cancelled (the server stopping; a referee's session ended) ends cancelled, its
sender with it. It used to swallow the cancellation and return: the ASGI server's cancel scope (anyio,
which knows its own cancellation by its message) then met a bare CancelledError from a later waiter and
let it escape (a flake seen once in CI as a referee socket closed)."""

from __future__ import annotations

import asyncio

import anyio
import pytest

from table_controller.web.app import _until_closed


class _Quiet:
    """A client that sends nothing and stays connected (what a page does between its actions)."""

    async def receive(self) -> dict[str, str]:
        await asyncio.Event().wait()
        return {"type": "websocket.disconnect"}


async def _sending(started: asyncio.Event, stopped: list[str]) -> None:
    started.set()
    try:
        await asyncio.sleep(60)  # waits for the next event to send
    except asyncio.CancelledError:
        stopped.append("sender")
        raise


async def test_a_cancelled_handler_ends_cancelled_and_its_sender_with_it() -> None:
    started, stopped = asyncio.Event(), []
    task = asyncio.create_task(_until_closed(_Quiet(), _sending(started, stopped)))
    await started.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert task.cancelled() and stopped == ["sender"]


async def test_the_servers_cancel_scope_takes_its_own_cancellation_back() -> None:
    started, stopped = asyncio.Event(), []
    scopes: list[anyio.CancelScope] = []

    async def handler() -> str:
        with anyio.CancelScope() as scope:  # as uvicorn and the TestClient run a handler
            scopes.append(scope)
            await _until_closed(_Quiet(), _sending(started, stopped))
            return "returned"  # not reached: the scope ends the handler
        return "cancelled"

    task = asyncio.create_task(handler())
    await started.wait()
    scopes[0].cancel()
    assert await task == "cancelled"
    assert scopes[0].cancelled_caught and stopped == ["sender"]

"""Serve a FastAPI app with uvicorn inside the caller's event loop, and take it down again.

The table's display and the tournament hub's page both run beside other tasks in one loop; this
is the one place that knows how to start uvicorn there, notice a port that is taken, and stop it.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

from table_controller.supervise import end_tasks

#: How long a task gets to finish after it is told to stop (seconds).
STOP_TIMEOUT_S = 5.0


#: Bytes one WebSocket message from a page may have.
WS_MAX_MESSAGE = 1 << 16
#: Connections served at once (pages, sockets, API calls); more are answered 503 and closed.
MAX_CONNECTIONS = 400
#: The tournament hub's: a national event's hall has 200-300 phones and 10 screens on its page, each a live
#: socket and a connection or two for its fetches (600-900); at 400 the rest were answered 503.
HUB_MAX_CONNECTIONS = 2000
#: Seconds a new connection has to send a whole request head before it is closed: longer than a
#: browser keeps a connection it opened ahead and never used (Chromium: 10 s), so the browser always
#: lets go first and never sends a request into a socket this side is closing.
FIRST_REQUEST_S = 60.0
#: Connections one client address may hold open (a referee's tablet uses a few; a broadcast PC ten).
MAX_PER_CLIENT = 64
#: A page's socket is pinged this often (seconds; the table's display: `TableService`) and dropped when its
#: pong is later than WS_PONG_S: a tablet asleep, a peer gone, a client that never reads.
WS_PING_S = 10.0
WS_PONG_S = 20.0


@dataclass
class Served:
    """A running uvicorn server: its task and the port it actually bound (for port 0)."""

    server: Any
    task: asyncio.Task[Any]
    port: int


async def serve(app: Any, host: str, port: int, name: str, what: str, per_address: int | None = None,
                what_zh: str = "显示页面", **options: Any) -> Served:
    """Start `app` on host:port; raise OSError (naming `what`, Chinese first: `what_zh`) if it cannot
    listen. `per_address`: the connections one client address may hold (`MAX_PER_CLIENT` when None)."""
    import uvicorn

    # a page sends one small message on its socket (the referee's credential): a 16 MiB frame
    # (uvicorn's default cap) per connection is memory a stranger could take; 64 KiB is plenty
    options.setdefault("ws_max_size", WS_MAX_MESSAGE)
    # connections past this many get 503 and are closed at once, and one that has not sent a
    # whole request head within FIRST_REQUEST_S is closed: uvicorn holds a silent connection for
    # good, and 1,100 of them (a few lines of script on the venue's Wi-Fi) used up the service's
    # 1,024 file descriptors: the display answered nobody, and the log, the camera and the table's
    # port could not open anything new
    options.setdefault("limit_concurrency", MAX_CONNECTIONS)
    options.setdefault("http", _deadline_protocol(per_address))
    options.setdefault("ws_ping_timeout", WS_PONG_S)
    options.setdefault("ws", _unread_socket_protocol())
    _raise_open_files_limit()
    server = _quiet_server()(uvicorn.Config(app, host=host, port=port, log_config=None, lifespan="off", **options))
    task = asyncio.create_task(_serve(server), name=name)
    while not server.started:
        if task.done():  # e.g. the port is taken: say so instead of hanging
            task.result()
            raise OSError(_why_not(host, port, what, what_zh))
        await asyncio.sleep(0.02)
    sockets = server.servers[0].sockets if server.servers else ()
    # a stop that came as it started (uvicorn's own SIGTERM handler, while this looked) closed its sockets: the
    # stop goes on (the signal is raised again for the service); there is no port left to read
    return Served(server, task, int(sockets[0].getsockname()[1]) if sockets else port)


async def _serve(server: Any) -> None:
    """uvicorn ends a server that cannot listen with `sys.exit(3)`: in a task of this loop that
    SystemExit ended the whole process at once, with only uvicorn's log line (a second `tablectl run`
    on a taken port exited 3, its simulator and log left unclosed). Here the task just ends, and
    `serve` says why."""
    try:
        await server.serve()
    except SystemExit:
        return


def _quiet_server() -> type:
    """uvicorn's server, woken by its stop instead of looking for it ten times a second.

    uvicorn's `main_loop` sleeps 0.1 s and calls `on_tick` (the Date header once a second, `should_exit`
    every time): ten wakeups a second of an idle table's Pi, three quarters of all its wakeups with a
    page open. Here `should_exit` is an event the loop waits on, and `on_tick` runs once a second (the
    Date header stays to the second); a stop (ours, or uvicorn's own signal handler) is seen at once."""
    import time

    import uvicorn

    class QuietServer(uvicorn.Server):  # type: ignore[misc]
        def __init__(self, config: Any) -> None:
            self._exit = asyncio.Event()
            self._loop: asyncio.AbstractEventLoop | None = None
            super().__init__(config)

        @property  # type: ignore[override]
        def should_exit(self) -> bool:
            return self._exit.is_set()

        @should_exit.setter
        def should_exit(self, value: bool) -> None:
            if not value:
                self._exit.clear()
            elif self._loop is not None and not self._loop.is_closed():
                # from uvicorn's signal handler too, which may run in the middle of the loop's own work
                self._loop.call_soon_threadsafe(self._exit.set)
            else:
                self._exit.set()

        async def main_loop(self) -> None:
            self._loop = asyncio.get_running_loop()
            ticks = 0
            while not await self.on_tick(ticks):
                ticks += 10  # a multiple of ten: `on_tick` refreshes the Date header on each
                try:  # until the next whole second (the Date header's), or the stop
                    await asyncio.wait_for(self._exit.wait(), 1.0 - time.time() % 1.0)
                except asyncio.TimeoutError:
                    pass

        async def shutdown(self, sockets: list[Any] | None = None) -> None:
            """uvicorn's shutdown tells each open connection to close and then sleeps 0.1 s for them to hear
            it: with none open, that sleep is all a stop costs (a restart, `tablectl` at the end of a day, each
            of the suite's services). Connections open, or requests still running: uvicorn's own, unchanged."""
            if self.server_state.connections or self.server_state.tasks:
                await super().shutdown(sockets=sockets)
                return
            for server in self.servers:
                server.close()
            for sock in sockets or []:
                sock.close()
            for server in self.servers:
                await server.wait_closed()
            if not self.force_exit:
                await self.lifespan.shutdown()

    return QuietServer


def _why_not(host: str, port: int, what: str, what_zh: str) -> str:
    """Why host:port cannot be listened on, as the system says it (uvicorn only logs it), Chinese first:
    a second `tablectl demo` on a port in use said it in English, 端口被占用 halfway along."""
    import os
    import socket

    head_zh, head_en = f"{what_zh}无法在 {host}:{port} 启动", f"{what} did not start on {host}:{port}"
    try:
        with socket.create_server((host, port)):
            return f"{head_zh} / {head_en}"
    except OSError as exc:
        from table_controller.web.addresses import bind_advice_parts

        zh, en = bind_advice_parts(host, port, exc.errno)
        return f"{head_zh}：{zh} / {head_en}: {os.strerror(exc.errno) if exc.errno else exc}; {en}"


def _deadline_protocol(per_address: int | None = None) -> type:
    """uvicorn's HTTP protocol (httptools where installed, else h11) with a deadline for the first
    request's head and at most `per_address` connections an address (`MAX_PER_CLIENT` when None, read
    at each connection); a connection upgraded to a WebSocket is no longer this protocol's and stays."""
    try:
        from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol as base
    except ImportError:  # httptools is optional
        from uvicorn.protocols.http.h11_impl import H11Protocol as base

    open_by_client: dict[str, int] = {}

    class FirstRequestDeadline(base):  # type: ignore[misc, valid-type]
        def connection_made(self, transport: Any) -> None:
            super().connection_made(transport)
            self._peer = str((transport.get_extra_info("peername") or ("?",))[0])
            open_by_client[self._peer] = open_by_client.get(self._peer, 0) + 1
            self._head_deadline = self.loop.call_later(FIRST_REQUEST_S, self._no_request_head)
            most = MAX_PER_CLIENT if per_address is None else per_address
            if open_by_client[self._peer] > most:  # one machine holding hundreds: not a page
                transport.close()

        def _no_request_head(self) -> None:
            # closing first: a TLS transport closed twice has let go of its protocol, and asking it
            # for one raised in the loop (seen in CI when the display stopped with pages open)
            if self.cycle is None and not self.transport.is_closing() and self.transport.get_protocol() is self:
                self.transport.close()

        def handle_websocket_upgrade(self, *args: Any) -> None:
            """The connection is the WebSocket protocol's from now on, and its close is that protocol's
            `connection_lost`, never this one's: before, a page's socket stayed counted against its address
            for good, and after MAX_PER_CLIENT of them over a day (an overlay reloaded, a Wi-Fi dropping)
            every connection from that machine was closed at once until a restart."""
            super().handle_websocket_upgrade(*args)
            self._head_deadline.cancel()
            ws = self.transport.get_protocol()
            if ws is self:
                return
            lost = ws.connection_lost

            def connection_lost(exc: Exception | None) -> None:
                self._let_go()
                lost(exc)

            ws.connection_lost = connection_lost

        def _let_go(self) -> None:
            if getattr(self, "_counted", True):
                self._counted = False
                left = open_by_client.get(self._peer, 1) - 1
                if left > 0:
                    open_by_client[self._peer] = left
                else:
                    open_by_client.pop(self._peer, None)

        def connection_lost(self, exc: Exception | None) -> None:
            self._head_deadline.cancel()
            self._let_go()
            super().connection_lost(exc)

    return FirstRequestDeadline


def _unread_socket_protocol() -> Any:
    """uvicorn's WebSocket protocol, whose socket that missed its pong is dropped, not only closed.

    A client that never reads (a stranger's script; a peer that keeps TCP's window shut) let the messages
    pile up in the socket's write buffer; at the pong's deadline uvicorn closed the transport, which waits
    for that buffer to be sent first: for good. The page's sender stayed blocked and subscribed, its
    connection counted against the address and the server's cap (a socket 2.8 MB behind was still open
    minutes after its deadline). Now the transport is aborted there: the socket and all it held go."""
    try:
        from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol as base
    except ImportError:  # websockets not installed: uvicorn's choice stands
        return "auto"

    class UnreadSocketDropped(base):  # type: ignore[misc, valid-type]
        def keepalive_timeout(self) -> None:
            super().keepalive_timeout()
            if self.transport.get_write_buffer_size():  # the close frame is behind what was never read
                self.transport.abort()

    return UnreadSocketDropped


def _raise_open_files_limit() -> None:
    """Take the soft limit of open files up to the hard one (1,024 by default under systemd; the
    hard limit is far higher): the display's connections, the log, the camera and the port share it."""
    try:
        import resource

        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        want = 1 << 16 if hard == resource.RLIM_INFINITY else min(hard, 1 << 16)
        if want > soft:
            resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
    except (ImportError, ValueError, OSError):
        pass  # not POSIX, or not allowed: the connection cap still holds


async def stop_tasks(tasks: list[asyncio.Task[Any]], served: Served | None) -> None:
    """Let the server finish its connections (`STOP_TIMEOUT_S`, then cancelled), cancel the other tasks, wait for
    all of them; a cancellation of the caller meanwhile is raised once they have ended (`supervise.end_tasks`)."""
    if served is not None:
        served.server.should_exit = True
    for task in tasks:
        if served is None or task is not served.task:
            task.cancel()
    try:
        await end_tasks(tasks, grace_s=STOP_TIMEOUT_S)
    finally:
        tasks.clear()

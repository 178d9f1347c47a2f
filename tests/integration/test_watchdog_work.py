"""The watchdog's ping means the table is served, not only that the loop turns (`supervise.Supervisor.alive`).

Before, a table link held for good on a future nobody completes (here: the port's close after the cable went, which
never returns) left the table unrecorded while the loop turned: WATCHDOG=1 went on every 30 s, STATUS= said
等待牌桌, and a table plugged back in was never linked again. And a display that listened but answered nobody pinged
on. Here the real service runs in this process on a real pty simulator and a real display, its runner as systemd
starts it (a real datagram socket as `$NOTIFY_SOCKET`, pings every 0.05 s); the link's stalls are timed on an
injected clock (`TableService.steady_clock`), stepped past `supervise.STUCK_S`. A table simply gone (the simulator
closed, its pty removed) is waited for and never restarted over and over: its driver's tries are its life.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import socket
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from drivers.clock import SystemClock
from table_controller import supervise
from table_controller.config import parse_config
from table_controller.notify import table_status
from table_controller.runner import serve_until_signalled
from table_controller.service import TableService
from table_controller.store import StoreError
from tablesim.sim import SimTable


class Steady:
    """The injected clock the link's stalls are timed on: it moves only when the test steps it."""

    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


class Notified:
    """What the service sent to the notify socket, read as it comes."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.messages: list[dict[str, str]] = []

    async def until(self, done: Callable[[dict[str, str]], bool], timeout: float = 10.0) -> dict[str, str]:
        loop = asyncio.get_running_loop()
        async with asyncio.timeout(timeout):
            while True:
                data = await loop.sock_recv(self.sock, 4096)
                fields = dict(line.split("=", 1) for line in data.decode("utf-8").splitlines())
                self.messages.append(fields)
                if done(fields):
                    return fields

    async def pings(self, count: int) -> None:
        for _ in range(count):
            await self.until(lambda f: f.get("WATCHDOG") == "1")

    async def no_ping_for(self, seconds: float) -> None:
        """Nothing but status lines for `seconds`: 10 pings' worth of time at this test's pace."""
        try:
            await self.until(lambda f: f.get("WATCHDOG") == "1", timeout=seconds)
        except TimeoutError:
            return
        raise AssertionError(f"pinged on: {self.messages[-5:]}")


def _config() -> Any:
    return parse_config({"table": {"link": "sim://", "sim_speed": 1000},
                         "display": {"host": "127.0.0.1", "port": 0, "operator_token": "op-watch-1",
                                     "referee_token": "ref-watch-1"}}, source="test")


class Running:
    """The service under its runner, as `tablectl run` runs it under systemd (pings every 0.05 s)."""

    def __init__(self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        self.steady = Steady()
        self.service = TableService(_config(), tmp_path, steady_clock=self.steady)
        path = tmp_path / "notify"
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(str(path))
        self.sock.setblocking(False)
        self.heard = Notified(self.sock)
        monkeypatch.setenv("NOTIFY_SOCKET", str(path))
        monkeypatch.setenv("WATCHDOG_USEC", "100000")
        monkeypatch.delenv("WATCHDOG_PID", raising=False)
        self.task: asyncio.Task[int] | None = None

    async def __aenter__(self) -> Running:
        service = self.service

        def status() -> str:
            return "正在启动 / starting" if service.controller is None else table_status(service.controller.health_report())

        self.task = asyncio.create_task(serve_until_signalled(service, lambda: None, (OSError, StoreError),
                                                              status=status))
        await self.heard.until(lambda f: f.get("READY") == "1", timeout=20)
        assert service.controller is not None
        await service.controller.wait_linked(10)
        await self.heard.pings(3)
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self.task is not None
        if not self.task.done():
            import signal

            signal.raise_signal(signal.SIGTERM)  # the runner's own stop, as systemctl stop
            await asyncio.wait_for(self.task, 20)
        self.sock.close()

    async def exit_code(self) -> int:
        assert self.task is not None
        return await asyncio.wait_for(self.task, 20)


def _hold_number(pty: str) -> int:
    """The pty's number kept from the next pty made on this machine while its table is unplugged.

    Its master's close (the simulator's) removes `/dev/pts/N` at once, but the kernel gives N to the next pty made
    by anyone: another test's simulator, whose port this table's driver, trying its path again, then took and
    linked to (its reconnects stopped; the other test's controller, finding its port taken, never linked). A slave
    end held open keeps N in use while the path is gone; closed once the service is stopped."""
    return os.open(pty, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)


@contextlib.asynccontextmanager
async def _linked(tmp_path: Path, steady: "Steady") -> AsyncIterator[tuple[TableService, Any]]:
    """The service on the simulator's pty (no display), its link stalls timed on `steady`, linked; stopped after."""
    service = TableService(_config(), tmp_path, serve_http=False, steady_clock=steady)
    await service.start()
    try:
        controller = service.controller
        assert controller is not None
        await controller.wait_linked(10)
        yield service, controller
    finally:
        await service.stop()


async def _until(check: Callable[[], Any], seconds: float = 10.0) -> None:
    async with asyncio.timeout(seconds):
        while not check():
            await asyncio.sleep(0.01)


async def test_a_link_held_on_a_close_that_never_returns_stops_the_pings_and_says_where(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    """The cable goes (the simulator's pty closed under the driver) and the port's close never returns: the driver
    neither hears the table nor tries it again. While less than `STUCK_S` has passed the pings go on (the same as a
    table being waited for); past it, the pings stop for good, the journal's critical line names the link and where
    it is held, Chinese first, and the service exits 1 for systemd to start it again."""
    async with Running(tmp_path, monkeypatch) as running:
        service = running.service
        assert service.controller is not None and service.sim is not None
        table = service.controller.table
        never: asyncio.Future[None] = asyncio.get_running_loop().create_future()

        async def never_closes() -> None:
            await never  # a USB adaptor's close blocked in its driver: nobody will complete it

        table._transport.close = never_closes  # the port's own close, as the driver calls it
        await service.sim.close()  # the table's end of the pty goes: the host's read fails
        await _until(lambda: not service.controller.state.link.get("up"))
        await _until(lambda: table.link_task is not None and "never_closes" in supervise.held_at(table.link_task))
        await running.heard.pings(3)  # not yet: a table can be waited for this long honestly
        running.steady.t += supervise.STUCK_S - 1
        await running.heard.pings(3)
        assert not never.done()
        with caplog.at_level(logging.CRITICAL, logger="table_controller.runner"):
            running.steady.t += 2
            await running.heard.no_ping_for(0.5)
            assert await running.exit_code() == 1
        critical = [r.getMessage() for r in caplog.records if r.levelno == logging.CRITICAL]
        assert len(critical) == 1, critical
        line = critical[0]
        assert line.startswith("牌桌服务中断：牌桌连接已停止（卡住：牌桌驱动 "), line
        assert "既未收到牌桌的帧，也未重新连接，停在 drivers/api.py:" in line, line
        assert "BaseTable._drop_transport → integration/test_watchdog_work.py:" in line and "never_closes）" in line, line
        assert line.index("never_closes") < line.index(" / the table is no longer served: the table link stopped (stuck: "
                                                       "the table driver neither heard the table"), line
        status = [f["STATUS"] for f in running.heard.messages if "STATUS" in f]
        assert any(s.startswith("牌桌服务中断，正在退出以便重启：牌桌连接已停止（卡住：") for s in status), status


async def test_a_table_unplugged_is_waited_for_and_never_restarted(tmp_path: Path) -> None:
    """The same cable gone without the wedge: the driver tries the port again every few seconds (it is gone), and
    each try is life. Looked at (as before a ping) once per try, `STUCK_S` and more apart: never stuck, STATUS=
    says 等待牌桌: a table switched off for the lunch break is not restarted every minute."""
    steady = Steady()
    service = TableService(_config(), tmp_path, serve_http=False, steady_clock=steady)
    await service.start()
    other = SimTable(seed=1, clock=SystemClock())
    number: int | None = None
    try:
        controller = service.controller
        assert controller is not None and service.sim is not None
        await controller.wait_linked(10)
        table = controller.table
        number = _hold_number(controller.config.table.link)
        await service.sim.close()
        await _until(lambda: not controller.state.link.get("up"))
        # another table's pty made meanwhile (another test's, on another worker) is not the one unplugged
        assert await other.serve_pty() != controller.config.table.link
        for _ in range(4):
            tried = table.health.reconnects
            await _until(lambda: table.health.reconnects > tried)
            assert service.supervisor.check(), service.supervisor.why()
            steady.t += supervise.STUCK_S + 5
        assert not service.supervisor.ended and not controller.state.link.get("up")
        assert table_status(controller.health_report()).startswith("等待牌桌"), table_status(controller.health_report())
    finally:
        await service.stop()
        await other.close()
        if number is not None:
            os.close(number)


async def test_a_display_that_listens_but_answers_nobody_stops_the_pings(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    """The display's port still accepts connections, but its app holds every request (a lock never let go): the
    socket check saw a listening server and pinged on. Its own health check over loopback gets no answer now: the
    pings stop, the critical line says so, exit 1."""
    monkeypatch.setattr(supervise, "ANSWER_S", 0.2, raising=False)
    async with Running(tmp_path, monkeypatch) as running:
        server = running.service._served.server
        held: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        app = server.config.loaded_app

        async def holding(scope: dict[str, Any], receive: Any, send: Any) -> None:
            if scope["type"] == "http":
                await held  # every new request waits on what never comes
            await app(scope, receive, send)

        server.config.loaded_app = holding  # each new connection's protocol takes the app from here
        with caplog.at_level(logging.CRITICAL, logger="table_controller.runner"):
            await running.heard.no_ping_for(0.5)
            held.set_result(None)  # the requests held go through: the stop does not wait on them
            assert await running.exit_code() == 1
        critical = [r.getMessage() for r in caplog.records if r.levelno == logging.CRITICAL]
        assert critical and critical[0].startswith("牌桌服务中断：显示页面已停止（/api/health 0.2 秒内无应答）"), critical
        assert "the display server stopped (/api/health: no answer within 0.2 s)" in critical[0]


async def test_a_link_loop_held_while_connecting_is_stuck_and_a_quiet_linked_table_is_not(
        tmp_path: Path) -> None:
    """The controller's own link loop held in its connect (an opener that never returns; `open_table` bounds its own
    at 10 s) is stuck past `STUCK_S`; a linked table with nothing waiting for the loop is not, however long."""
    steady = Steady()
    async with _linked(tmp_path, steady) as (service, controller):
        for _ in range(3):  # linked: the board's heartbeats taken as they come
            beats = controller.table.health.frames_received
            await _until(lambda: controller.table.health.frames_received > beats and not controller.table.events_waiting())
            assert service.supervisor.check()
            steady.t += supervise.STUCK_S + 1
    never: asyncio.Future[Any] = asyncio.get_running_loop().create_future()

    async def never_opens(url: str) -> Any:
        return await never

    async with _linked(tmp_path, steady) as (service, controller):
        controller._open_table = never_opens
        await controller.table.close()  # the events end: the loop opens the table again, and is held there
        await _until(lambda: controller.table is None and "never_opens" in supervise.held_at(controller.tasks[0]))
        assert service.supervisor.check()
        steady.t += supervise.STUCK_S
        assert not service.supervisor.check()
        zh, en = service.supervisor.why()
        assert zh.startswith(f"牌桌连接已停止（卡住：{supervise.STUCK_S:.0f} 秒未完成连接牌桌，停在 "), zh
        assert "Controller._link_loop → integration/test_watchdog_work.py:" in zh and "never_opens）" in zh and en.startswith("the table link stopped (stuck: trying to connect"), en


async def test_a_display_over_https_answers_each_pings_health_check_without_loading_a_ca_store(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, self_signed: tuple[Path, Path]) -> None:
    """Over https (`[display] tls_cert`) the check before each ping is a TLS connection to the service itself, whose
    certificate is not checked (its own, for whatever name): no CA store is needed. Each check made
    `ssl.create_default_context()`, which read and parsed the system's CA bundle (22 ms of CPU here, 5-8x that on a
    Pi, every 30 s) to check nothing. The real service answers over TLS, plain http to it does not, and no check
    loads a CA store (each OpenSSL load called through, counted)."""
    import ssl

    cert, key = self_signed
    config = parse_config({"table": {"link": "sim://", "sim_speed": 1000},
                           "display": {"host": "127.0.0.1", "port": 0, "operator_token": "op-watch-1",
                                       "referee_token": "ref-watch-1", "tls_cert": str(cert), "tls_key": str(key)}},
                          source="test")
    service = TableService(config, tmp_path)
    await service.start()
    try:
        server = service._served.server
        loaded: list[str] = []
        for name in ("set_default_verify_paths", "load_verify_locations", "load_default_certs"):
            def counted(self: ssl.SSLContext, *args: Any, _real: Any = getattr(ssl.SSLContext, name),
                        _name: str = name, **kwargs: Any) -> Any:
                loaded.append(_name)
                return _real(self, *args, **kwargs)

            monkeypatch.setattr(ssl.SSLContext, name, counted)
        for _ in range(3):
            assert await service.supervisor.alive()  # the service's own check: over TLS, answered
            assert await supervise.answers_health(server, tls=True) is None
        assert loaded == []
        plain = await supervise.answers_health(server, tls=False, timeout_s=2.0)  # the check really goes over TLS
        assert plain is not None and plain[1].startswith("/api/health: "), plain
    finally:
        await service.stop()

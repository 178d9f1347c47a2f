"""The table's service and the hub speak systemd's notify protocol (`table_controller/notify.py`), heard
here on a real unix datagram socket given as `$NOTIFY_SOCKET` to a real `tablectl` process, as systemd
gives it: READY=1 once the display answers, STATUS= lines, WATCHDOG=1 at half of `$WATCHDOG_USEC` from
the event loop itself (so a loop held by a blocking call stops them), STOPPING=1 at SIGTERM.

Before, the units were Type=simple without a watchdog: a hung loop was never restarted. The loop is held
here the way a blocking call holds it: the process's main thread, which runs the loop, sleeps in a
SIGUSR1 handler installed before `tablectl`'s own `main` (`_WRAPPER`); every other thread runs on. The status is looked at every 0.05 s instead of 5 (`notify.STATUS_EVERY_S`).

A loop that turns while a part the table is not served without has ended (`table_controller/supervise.py`) pinged
on: here the display's (the hub page's) listening socket is closed under its server (SIGUSR2 in `_WRAPPER`), and the
service says so and exits 1; a part ending by design (the camera without its model) changes nothing; a part's
exception is logged with its traceback as it ends (real tasks, in this process)."""

from __future__ import annotations

import asyncio
import gc
import json
import logging
import os
import re
import signal
import socket
import struct
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest

from table_controller.notify import Notifier, table_status
from table_controller.store import EventStore
from table_controller.supervise import Supervisor

ROOT = Path(__file__).resolve().parents[2]
#: `tablectl` as systemd starts it, with the test's levers: a shorter status period, SIGUSR1 holding the main
#: thread (the event loop's) for $TEST_BLOCK_S, as a blocking call or a deadlock would, and SIGUSR2 closing the
#: listening sockets of the server run by the task named $TEST_CLOSE_TASK ("http", "hub-http") under it.
_WRAPPER = """
import os, signal, sys, time
from table_controller import notify
notify.STATUS_EVERY_S = 0.05
signal.signal(signal.SIGUSR1, lambda *_: time.sleep(float(os.environ.get("TEST_BLOCK_S", "0"))))
def close_listening(*_):
    import asyncio
    for task in asyncio.all_tasks():
        if task.get_name() == os.environ.get("TEST_CLOSE_TASK"):
            for server in task.get_coro().cr_frame.f_locals["server"].servers:
                server.close()
signal.signal(signal.SIGUSR2, close_listening)
from table_controller.cli import main
sys.exit(main(sys.argv[1:]))
"""


#: Linux's SO_TIMESTAMPNS (asm-generic; Python names it not): each datagram stamped by the kernel as it is sent.
SO_TIMESTAMPNS = 35
_TIMESPEC = struct.Struct("@ll")


class Heard:
    """What a process sent to the notify socket: each datagram's fields, with when it was sent.

    When is the kernel's stamp (`SO_TIMESTAMPNS`), on `time.monotonic()`'s scale: the time this test reads a datagram
    is not the service's. On a loaded machine the test read two pings queued meanwhile 35 µs apart, and their gaps'
    mean (0.24 s) failed the service's 0.3 s cadence."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.messages: list[tuple[float, dict[str, str]]] = []
        sock.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)

    def _receive(self) -> tuple[float, bytes]:
        """One datagram and when it was sent; its stamp moved from the wall clock to the monotonic one."""
        data, ancillary, _, _ = self.sock.recvmsg(4096, socket.CMSG_SPACE(_TIMESPEC.size))
        stamps = [item for level, kind, item in ancillary if level == socket.SOL_SOCKET and kind == SO_TIMESTAMPNS]
        assert stamps, f"no kernel stamp on {data!r}"
        sec, nsec = _TIMESPEC.unpack(stamps[0][:_TIMESPEC.size])
        return sec + nsec / 1e9 - (time.time() - time.monotonic()), data

    def until(self, done: Callable[[dict[str, str]], bool], timeout: float,
              proc: subprocess.Popen[str] | None = None) -> dict[str, str]:
        """Read datagrams until one satisfies `done` (returned); fails if the process ends or time runs out."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            assert left > 0, f"not heard in {timeout} s: {self.messages}"
            self.sock.settimeout(min(left, 0.2))
            try:
                sent, data = self._receive()
            except TimeoutError:
                assert proc is None or proc.poll() is None, f"ended with {proc.returncode}: {self.messages}"
                continue
            fields = dict(line.split("=", 1) for line in data.decode("utf-8").splitlines())
            self.messages.append((sent, fields))
            if done(fields):
                return fields

    def heard_or_until(self, done: Callable[[dict[str, str]], bool], timeout: float,
                       proc: subprocess.Popen[str]) -> dict[str, str]:
        """The first message already heard that satisfies `done`, else the next one."""
        return next((f for _, f in self.messages if done(f)), None) or self.until(done, timeout, proc)

    def pings(self, after: float = 0.0) -> list[float]:
        return [at for at, f in self.messages if f.get("WATCHDOG") == "1" and at > after]

    def statuses(self) -> list[str]:
        return [f["STATUS"] for _, f in self.messages if "STATUS" in f]


def _stopping(fields: dict[str, str]) -> bool:
    return fields.get("STOPPING") == "1"


def _ready(fields: dict[str, str]) -> bool:
    return fields.get("READY") == "1"


@pytest.fixture
def notify_socket(tmp_path: Path) -> Iterator[tuple[str, socket.socket]]:
    """A unix datagram socket where systemd's would be, by path."""
    path = tmp_path / "notify"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(str(path))
    yield str(path), sock
    sock.close()


def _start(args: list[str], tmp_path: Path, notify: str, watchdog_usec: int | None, **env: str) -> subprocess.Popen[str]:
    environ = {**os.environ, "NOTIFY_SOCKET": notify, "PYTHONPATH": f"{ROOT}:{ROOT / 'hardware-sim'}", **env}
    environ.pop("WATCHDOG_PID", None)
    if watchdog_usec is not None:
        environ["WATCHDOG_USEC"] = str(watchdog_usec)
    out = open(tmp_path / "stdout.txt", "w", encoding="utf-8")  # noqa: SIM115 (the child's, closed with it)
    try:
        return subprocess.Popen([sys.executable, "-c", _WRAPPER, *args], cwd="/", env=environ, stdout=out,
                                stderr=subprocess.STDOUT, text=True)
    finally:
        out.close()


def _printed_url(tmp_path: Path, label: str) -> str:
    text = (tmp_path / "stdout.txt").read_text(encoding="utf-8")
    m = re.search(label + r": (https?://\S+)", text)
    assert m, text
    return m.group(1).replace("0.0.0.0", "127.0.0.1")


def _table_config(tmp_path: Path, extra: str = "") -> Path:
    config = tmp_path / "table.toml"
    config.write_text(f'[table]\nlink = "sim://"\nsim_speed = 1000.0\n[display]\nport = 0\noperator_token = "op-notify-1"\n'
                      f'referee_token = "ref-notify-1"\n[storage]\ndata_dir = "{tmp_path / "data"}"\n{extra}',
                      encoding="utf-8")
    return config


def _end(proc: subprocess.Popen[str]) -> int:
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
    try:
        return proc.wait(timeout=20)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_heard_times_each_message_when_it_was_sent_not_when_this_test_read_it(
        notify_socket: tuple[str, socket.socket]) -> None:
    """The cadence asserted below is the service's: two pings 0.3 s apart, read together a second late (this test
    starved of the CPU), are still 0.3 s apart."""
    address, sock = notify_socket
    heard = Heard(sock)
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as service:
        first = time.monotonic()
        service.sendto(b"WATCHDOG=1", address)
        time.sleep(0.3)
        service.sendto(b"WATCHDOG=1", address)
        time.sleep(1.0)
        read_at = time.monotonic()
        for _ in range(2):
            heard.until(lambda f: f.get("WATCHDOG") == "1", 5)
    pings = heard.pings()
    assert pings[1] - pings[0] > 0.29 and pings[1] < read_at - 0.99, [p - first for p in pings]


def test_ready_once_the_display_answers_then_pings_at_half_the_watchdog_and_stopping_at_sigterm(
        tmp_path: Path, notify_socket: tuple[str, socket.socket]) -> None:
    address, sock = notify_socket
    heard = Heard(sock)
    stick = tmp_path / "stick" / "mahjong"  # the mirror's stick, not in: the status says so
    proc = _start(["run", "--config", str(_table_config(tmp_path, f'mirror_dir = "{stick}"\n'))], tmp_path, address,
                  watchdog_usec=600_000)
    try:
        ready = heard.until(_ready, 30, proc)
        # up means up: the display answers at once, the log is open and folded
        url = _printed_url(tmp_path, "display")
        health = httpx.get(url + "api/health", timeout=5)
        assert health.status_code == 200 and health.json()["recovering"] is None
        assert (tmp_path / "data" / "events.sqlite3").is_file()
        assert ready["STATUS"], ready  # a status with it: systemctl shows it at once
        assert not any(_ready(f) for _, f in heard.messages[:-1]), "READY twice"
        # the technician's line: the simulated table links, the missing stick is named; Chinese first
        status = heard.heard_or_until(lambda f: "牌桌已连接" in f.get("STATUS", ""), 10, proc)["STATUS"]
        assert status.index("牌桌已连接") < status.index(" / ") < status.index("table linked")
        assert "备份盘未插入" in status and str(stick) in status
        ready_at = next(at for at, f in heard.messages if _ready(f))
        while len(heard.pings(ready_at)) < 6:
            heard.until(lambda f: f.get("WATCHDOG") == "1", 5, proc)
        pings = heard.pings(ready_at)
        gaps = [b - a for a, b in zip(pings, pings[1:])]
        # every 0.3 s (half of 0.6): never as late as the watchdog itself
        assert all(g < 0.6 for g in gaps) and 0.25 < sum(gaps) / len(gaps) < 0.45, gaps
        proc.send_signal(signal.SIGTERM)
        heard.until(_stopping, 10, proc)
        assert proc.wait(timeout=20) == 0
    finally:
        _end(proc)


def test_a_held_event_loop_stops_the_pings_and_the_watchdogs_abort_names_the_call(tmp_path: Path) -> None:
    """The loop's thread held (a blocking call): no WATCHDOG=1 for twice the watchdog (0.4 s here), the process
    alive all along, so systemd ends it as it does (SIGABRT) and restarts it; the journal then has every thread's
    stack, the call that held the loop first. An abstract socket ('@name')."""
    name = f"mahjong-notify-test-{os.getpid()}-{time.monotonic_ns()}"
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
        sock.bind("\0" + name)
        heard = Heard(sock)
        proc = _start(["run", "--config", str(_table_config(tmp_path))], tmp_path, "@" + name,
                      watchdog_usec=400_000, TEST_BLOCK_S="60")
        try:
            heard.until(_ready, 30, proc)
            for _ in range(3):
                heard.until(lambda f: f.get("WATCHDOG") == "1", 5, proc)
            held_at = time.monotonic()
            proc.send_signal(signal.SIGUSR1)
            with pytest.raises(AssertionError, match="not heard in"):
                heard.until(lambda f: False, 0.8, proc)  # everything it sends meanwhile, for 0.8 s
            assert not heard.pings(held_at + 0.1), heard.messages[-4:]  # (one may have been on its way)
            assert proc.poll() is None  # alive: only its loop is held
            proc.send_signal(signal.SIGABRT)  # systemd's WatchdogSignal=
            assert proc.wait(timeout=20) == -signal.SIGABRT
            said = (tmp_path / "stdout.txt").read_text(encoding="utf-8")
            assert "Fatal Python error: Aborted" in said, said[-2000:]
            stack = said[said.index("Current thread"):]
            assert 'File "<string>", line 5 in <lambda>' in stack and "run_forever" in stack, stack
        finally:
            _end(proc)


def test_a_start_that_fails_says_why_and_is_never_ready(tmp_path: Path, notify_socket: tuple[str, socket.socket]) -> None:
    """The display's port held by another program: the start fails (exit 1, systemd's start limit counts it),
    and `systemctl status` says why, not READY."""
    address, sock = notify_socket
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        config = _table_config(tmp_path)
        config.write_text(config.read_text(encoding="utf-8").replace("port = 0", f"port = {port}"), encoding="utf-8")
        proc = _start(["run", "--config", str(config)], tmp_path, address, watchdog_usec=600_000)
        assert proc.wait(timeout=30) == 1
    sock.settimeout(0)
    said: list[str] = []
    while True:
        try:
            said.append(sock.recv(4096).decode("utf-8"))
        except BlockingIOError:
            break
    assert not any("READY=1" in m or "WATCHDOG=1" in m for m in said), said
    assert "STATUS=无法启动 / cannot start" in said[-1] and str(port) in said[-1], said


def test_the_fold_at_start_is_said_and_extends_the_start(tmp_path: Path, notify_socket: tuple[str, socket.socket]) -> None:
    """A long log folded whole (after an upgrade): before READY, STATUS says 正在恢复记录 n / N and each step
    asks systemd for more start-up time (EXTEND_TIMEOUT_USEC), so TimeoutStartSec bounds a start that stops
    moving, not a long one that moves."""
    address, sock = notify_socket
    data = tmp_path / "data"
    store = EventStore(data / "events.sqlite3")
    rows = [(n, 1_800_000_000.0 + n, "referee", "referee.note", json.dumps({"text": f"第 {n} 条"}, ensure_ascii=False))
            for n in range(1, 5_001)]
    store.restore(rows, None)  # in one transaction; no snapshot: folded whole
    store.close()
    heard = Heard(sock)
    proc = _start(["run", "--config", str(_table_config(tmp_path))], tmp_path, address, watchdog_usec=600_000)
    try:
        heard.until(_ready, 60, proc)
        before = [f for _, f in heard.messages if not _ready(f)]
        folding = [f for f in before if f.get("STATUS", "").startswith("正在恢复记录")]
        assert folding, before
        assert all("EXTEND_TIMEOUT_USEC" in f and int(f["EXTEND_TIMEOUT_USEC"]) > 0 for f in folding), folding
        assert not any(f.get("WATCHDOG") for f in before)
    finally:
        _end(proc)


def test_the_hub_is_ready_once_its_page_answers_and_says_its_broker(tmp_path: Path,
                                                                   notify_socket: tuple[str, socket.socket]) -> None:
    address, sock = notify_socket
    heard = Heard(sock)
    proc = _start(["hub", "--broker", "mqtt://127.0.0.1:1", "--tournament", "spring-cup", "--port", "0",
                   "--data-dir", str(tmp_path / "hub")], tmp_path, address, watchdog_usec=600_000)
    try:
        heard.until(_ready, 30, proc)
        assert httpx.get(_printed_url(tmp_path, "standings") + "api/standings", timeout=5).status_code == 200
        heard.heard_or_until(lambda f: "等待赛事服务器" in f.get("STATUS", ""), 10, proc)  # nothing listens on port 1
        heard.until(lambda f: f.get("WATCHDOG") == "1", 5, proc)
        proc.send_signal(signal.SIGTERM)
        heard.until(_stopping, 10, proc)
        assert proc.wait(timeout=20) == 0
    finally:
        _end(proc)


def test_without_a_notify_socket_nothing_is_sent() -> None:
    """A laptop, the demo, the tests: no $NOTIFY_SOCKET, nothing to tell and no watchdog."""
    quiet = Notifier.from_environ({"WATCHDOG_USEC": "600000"})
    assert not quiet.enabled and quiet.ping_s is None and not quiet.send("READY=1")
    # a watchdog asked of another process (WATCHDOG_PID) is not ours to feed
    assert Notifier.from_environ({"NOTIFY_SOCKET": "/run/x", "WATCHDOG_USEC": "600000",
                                  "WATCHDOG_PID": str(os.getpid() + 1)}).ping_s is None
    assert Notifier.from_environ({"NOTIFY_SOCKET": "@x", "WATCHDOG_USEC": "600000"}).ping_s == 0.3


def _logged(tmp_path: Path, level: str) -> list[dict[str, object]]:
    """The process's JSON log lines of `level` (stdout and stderr, as the journal has them)."""
    lines = (tmp_path / "stdout.txt").read_text(encoding="utf-8").splitlines()
    return [entry for entry in (json.loads(line) for line in lines if line.startswith("{")) if entry["level"] == level]


@pytest.mark.parametrize("which", ["table", "hub"])
def test_a_server_that_stops_listening_is_said_stops_the_pings_and_exits_for_a_restart(
        which: str, tmp_path: Path, notify_socket: tuple[str, socket.socket]) -> None:
    """The display's (the hub page's) listening socket closed under its server while the loop turns: the page
    answered nobody, and the watchdog, proving only that the loop turned, pinged on. Now the check before each
    ping finds it: the journal says it, Chinese first, STATUS= too, the pings stop, and the service stops in
    order and exits 1 (`Restart=on-failure` starts it again), the log left whole."""
    address, sock = notify_socket
    heard = Heard(sock)
    if which == "table":
        args, task, label = ["run", "--config", str(_table_config(tmp_path))], "http", "display"
        said_zh, part_zh = "牌桌服务中断：", "显示页面已停止（不再监听端口）"
    else:
        args = ["hub", "--broker", "mqtt://127.0.0.1:1", "--tournament", "spring-cup", "--port", "0",
                "--data-dir", str(tmp_path / "hub")]
        task, label, said_zh, part_zh = "hub-http", "standings", "汇总服务中断：", "汇总服务页面已停止（不再监听端口）"
    proc = _start(args, tmp_path, address, watchdog_usec=600_000, TEST_CLOSE_TASK=task)
    try:
        heard.until(_ready, 30, proc)
        url = _printed_url(tmp_path, label)
        assert httpx.get(url, timeout=5).status_code == 200
        for _ in range(2):
            heard.until(lambda f: f.get("WATCHDOG") == "1", 5, proc)
        proc.send_signal(signal.SIGUSR2)
        ended = heard.until(lambda f: said_zh in f.get("STATUS", "") or "中断，正在退出" in f.get("STATUS", ""), 5, proc)
        assert proc.wait(timeout=20) == 1
        status = ended["STATUS"]
        assert part_zh in status and status.index(part_zh) < status.index(" / ") < status.index("no longer listening"), status
        ended_at = next(at for at, f in heard.messages if f is ended)
        assert not heard.pings(ended_at), heard.messages[-4:]  # the pings stopped with it
        assert not any(_stopping(f) for _, f in heard.messages)  # a failure, not systemctl stop
        with pytest.raises(httpx.ConnectError):
            httpx.get(url, timeout=2)
        critical = _logged(tmp_path, "critical")
        assert len(critical) == 1 and str(critical[0]["msg"]).startswith(said_zh + part_zh), critical
        assert "systemd" in str(critical[0]["msg"])
    finally:
        _end(proc)
    if which == "table":  # stopped in order: the log whole, free for the next start
        store = EventStore(tmp_path / "data" / "events.sqlite3")
        try:
            assert store.since(0)
        finally:
            store.close()


def test_a_camera_without_its_model_ends_as_designed_and_the_table_is_still_served(
        tmp_path: Path, notify_socket: tuple[str, socket.socket]) -> None:
    """The camera's loop returns at once when its model is missing (识牌模型不可用, said by its own status): the
    table plays on, so the service neither exits nor stops pinging, and says no part stopped."""
    address, sock = notify_socket
    heard = Heard(sock)
    config = _table_config(tmp_path, f'[camera]\nsource = "http://127.0.0.1:9/none"\nmodel = "{tmp_path / "none.onnx"}"\n')
    proc = _start(["run", "--config", str(config)], tmp_path, address, watchdog_usec=600_000)
    try:
        heard.until(_ready, 30, proc)
        seen = heard.heard_or_until(lambda f: "识牌模型不可用" in f.get("STATUS", ""), 10, proc)
        seen_at = next(at for at, f in heard.messages if f is seen)
        while len(heard.pings(seen_at)) < 3:
            heard.until(lambda f: f.get("WATCHDOG") == "1", 5, proc)
        assert proc.poll() is None
        assert not any("已停止" in s or "中断" in s for s in heard.statuses()), heard.statuses()
        assert not _logged(tmp_path, "critical")
        proc.send_signal(signal.SIGTERM)
        heard.until(_stopping, 10, proc)
        assert proc.wait(timeout=20) == 0
    finally:
        _end(proc)


async def _ended(task: asyncio.Task[object]) -> None:
    await asyncio.wait([task])
    await asyncio.sleep(0)  # its done callbacks


async def _crash(message: str) -> None:
    await asyncio.sleep(0)
    raise RuntimeError(message)


async def test_a_part_that_dies_is_logged_with_its_traceback_at_once_and_the_table_runs_on_saying_so(
        caplog: pytest.LogCaptureFixture) -> None:
    """A part the table plays on without (here the clock check) dying of an exception: before, nothing was said
    until the garbage collector's "Task exception was never retrieved", if ever, and the health panel and
    STATUS= showed all well. Now its traceback is logged the moment it ends, and the health report (the referee's
    panel, `systemctl status`) says it stopped, Chinese first; the service is not failed."""
    supervisor = Supervisor("牌桌服务", "the table")
    task = asyncio.create_task(_crash("clock unreadable"), name="clock-watch")
    supervisor.watch(task)
    with caplog.at_level(logging.INFO):
        await _ended(task)
    died = [r for r in caplog.records if r.levelno == logging.ERROR and r.exc_info]
    assert len(died) == 1 and died[0].getMessage().startswith("时钟检查异常结束 / the clock check ended with an error")
    assert "_crash" in logging.Formatter().formatException(died[0].exc_info)  # the traceback names where
    assert not supervisor.failed.is_set()
    health = supervisor.health()
    assert not health["ok"] and health["message"].startswith("已停止：时钟检查（RuntimeError: clock unreadable）")
    status = table_status({"link": {"up": True}, "tasks": health})
    assert status.index("时钟检查") < status.index(" / ") < status.index("the clock check"), status
    del task
    caplog.clear()
    gc.collect()
    assert not [r for r in caplog.records if "never retrieved" in r.getMessage()]


async def test_an_essential_part_that_ends_fails_the_service_and_an_end_asked_for_does_not(
        caplog: pytest.LogCaptureFixture) -> None:
    """The table's link loop ending (an exception or a return) fails the service (the runner exits for a
    restart); a server told to stop by the signal (uvicorn's own handler, before the runner hears it), a part
    cancelled by the stop, and the camera's return without a model (its status says why) do not."""
    supervisor = Supervisor("牌桌服务", "the table")
    told = [False]
    server = asyncio.create_task(asyncio.sleep(0), name="http")
    supervisor.watch(server, stopped=lambda: told[0])
    camera = asyncio.create_task(asyncio.sleep(0), name="camera")
    supervisor.watch(camera)
    config = asyncio.create_task(asyncio.sleep(60), name="config-watch")
    supervisor.watch(config)
    told[0] = True
    config.cancel()
    for task in (server, camera, config):
        await _ended(task)
    assert not supervisor.failed.is_set() and not supervisor.ended and supervisor.health()["ok"]
    link = asyncio.create_task(_crash("bug"), name="table-link")
    supervisor.watch(link)
    with caplog.at_level(logging.ERROR):
        await _ended(link)
    assert supervisor.failed.is_set() and not supervisor.check()
    assert supervisor.why() == ("牌桌连接已停止（RuntimeError: bug）", "the table link stopped (RuntimeError: bug)")
    assert supervisor.health()["ok"]  # said by the runner, not as a part the table runs on without
    assert [r.exc_info is not None for r in caplog.records] == [True]

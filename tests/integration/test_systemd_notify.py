"""The table's service and the hub speak systemd's notify protocol (`table_controller/notify.py`), heard
here on a real unix datagram socket given as `$NOTIFY_SOCKET` to a real `tablectl` process, as systemd
gives it: READY=1 once the display answers, STATUS= lines, WATCHDOG=1 at half of `$WATCHDOG_USEC` from
the event loop itself (so a loop held by a blocking call stops them), STOPPING=1 at SIGTERM.

Before, the units were Type=simple without a watchdog: a hung loop was never restarted. The loop is held
here the way a blocking call holds it: the process's main thread, which runs the loop, sleeps in a
SIGUSR1 handler installed before `tablectl`'s own `main` (`_WRAPPER`); every other thread runs on. The status is looked at every 0.05 s instead of 5 (`notify.STATUS_EVERY_S`)."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest

from table_controller.notify import Notifier
from table_controller.store import EventStore

ROOT = Path(__file__).resolve().parents[2]
#: `tablectl` as systemd starts it, with the test's two levers: a shorter status period, and SIGUSR1 holding
#: the main thread (the event loop's) for $TEST_BLOCK_S, as a blocking call or a deadlock would.
_WRAPPER = """
import os, signal, sys, time
from table_controller import notify
notify.STATUS_EVERY_S = 0.05
signal.signal(signal.SIGUSR1, lambda *_: time.sleep(float(os.environ.get("TEST_BLOCK_S", "0"))))
from table_controller.cli import main
sys.exit(main(sys.argv[1:]))
"""


class Heard:
    """What a process sent to the notify socket: each datagram's fields, with when it came."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.messages: list[tuple[float, dict[str, str]]] = []

    def until(self, done: Callable[[dict[str, str]], bool], timeout: float, proc: subprocess.Popen[str]) -> dict[str, str]:
        """Read datagrams until one satisfies `done` (returned); fails if the process ends or time runs out."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            assert left > 0, f"not heard in {timeout} s: {self.messages}"
            self.sock.settimeout(min(left, 0.2))
            try:
                data = self.sock.recv(4096)
            except TimeoutError:
                assert proc.poll() is None, f"ended with {proc.returncode}: {self.messages}"
                continue
            fields = dict(line.split("=", 1) for line in data.decode("utf-8").splitlines())
            self.messages.append((time.monotonic(), fields))
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

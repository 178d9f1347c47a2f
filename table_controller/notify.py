"""systemd's notify protocol (sd_notify(3)), spoken by the table's service and the hub themselves.

Why: the units are `Type=notify` with `WatchdogSec=` (`deploy.py`). Without it a hung event loop (a
blocking call, a deadlock) was never restarted: the display and the record stopped and nobody was
told. Now the loop itself sends `WATCHDOG=1` at half of `$WATCHDOG_USEC`, so a loop that stops turning
stops the pings and systemd restarts the service; `READY=1` says the service is really up (the log
open, folded, the page listening), `STATUS=` is the line a technician reads in `systemctl status`
(Chinese first), `STOPPING=1` a clean stop. A datagram to `$NOTIFY_SOCKET` (a path, or an abstract
socket's name after '@'), no library. Without `$NOTIFY_SOCKET` (a laptop, the demo, the tests)
every call does nothing and no task is started.
"""

from __future__ import annotations

import asyncio
import logging
import os
import socket
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

log = logging.getLogger("table_controller.notify")

#: How often the status line is looked at (sent only when it changed): the technician's `systemctl status`
#: is at most this far behind, and an idle Pi wakes for it only under systemd.
STATUS_EVERY_S = 5.0
#: While the service starts, each change of its status (the fold's progress: 已读 n / N) asks systemd for
#: this much more time (EXTEND_TIMEOUT_USEC): a long log folded on a slow Pi is not killed as long as it
#: moves on, while a start that hangs still meets `TimeoutStartSec`.
EXTEND_START_S = 60.0


def _address(value: str) -> str | None:
    """The socket's address as `socket` takes it: a path, or an abstract name ('@' becomes NUL)."""
    if value.startswith("@"):
        return "\0" + value[1:]
    if value.startswith("/"):
        return value
    return None  # (vsock: addresses are systemd 253+, not bookworm's 252) nothing we can reach


def watchdog_interval(environ: Mapping[str, str], pid: int) -> float | None:
    """Seconds between pings (half of `$WATCHDOG_USEC`, as sd_watchdog_enabled(3) advises), or None when
    systemd asks for none or asks another process (`$WATCHDOG_PID`)."""
    owner = environ.get("WATCHDOG_PID", "")
    if owner and owner != str(pid):
        return None
    try:
        usec = int(environ.get("WATCHDOG_USEC", ""))
    except ValueError:
        return None
    return usec / 2e6 if usec > 0 else None


class Notifier:
    """What systemd is told. `from_environ()` without `$NOTIFY_SOCKET`: `enabled` is False, nothing is sent."""

    def __init__(self, address: str | None, ping_s: float | None) -> None:
        self.address = address
        #: seconds between WATCHDOG=1, None when systemd watches nothing
        self.ping_s = ping_s if address else None
        self._sock: socket.socket | None = None
        self._status = ""
        self._failed = False

    @classmethod
    def from_environ(cls, environ: Mapping[str, str] | None = None) -> Notifier:
        env = os.environ if environ is None else environ
        address = _address(env.get("NOTIFY_SOCKET", ""))
        return cls(address, watchdog_interval(env, os.getpid()))

    @property
    def enabled(self) -> bool:
        return self.address is not None

    def send(self, *lines: str) -> bool:
        """One datagram of `KEY=value` lines; False if not sent (no socket, or systemd not there)."""
        if self.address is None:
            return False
        try:
            if self._sock is None:
                self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC)
                self._sock.setblocking(False)  # never the loop's wait: a full queue drops this one
            self._sock.sendto("\n".join(lines).encode("utf-8"), self.address)
        except OSError as exc:
            if not self._failed:  # once: the service goes on, systemd will say what it missed
                log.warning("systemd's notify socket refused a message", extra={"error": str(exc)})
                self._failed = True
            return False
        return True

    def status(self, text: str, *also: str) -> bool:
        """STATUS=text (and the lines `also`, in the same datagram), only when it differs from the last one
        sent; whether it was sent."""
        text = " ".join(text.split())  # one line: systemd shows the first line only
        if text == self._status or not self.send(f"STATUS={text}", *also):
            return False
        self._status = text
        return True

    def ready(self, text: str) -> None:
        self._status = " ".join(text.split())
        self.send("READY=1", f"STATUS={self._status}")

    def stopping(self) -> None:
        self.send("STOPPING=1", "STATUS=正在停止 / stopping")

    def close(self) -> None:
        if self._sock is not None:
            self._sock.close()
            self._sock = None

    async def watchdog(self, alive: Callable[[], Awaitable[bool]] | None = None) -> None:
        """WATCHDOG=1 from the event loop itself every `ping_s`: a loop held by a blocking call or a deadlock
        sends nothing, and systemd restarts the service once `WatchdogSec=` passes without one. `alive`
        (`supervise.Supervisor.alive`: the parts do their work, the display answers): awaited before each ping;
        once False, the pings stop for good. The time it takes comes off the wait to the next ping."""
        if self.ping_s is None:
            return
        loop = asyncio.get_running_loop()
        while True:
            asked = loop.time()
            if alive is not None and not await alive():
                return
            self.send("WATCHDOG=1")
            await asyncio.sleep(max(0.0, self.ping_s - (loop.time() - asked)))

    async def follow(self, status: Callable[[], str], every_s: float | None = None,
                     extend_s: float | None = None) -> None:
        """Send `status()` when it changes, looked at every `every_s` (`STATUS_EVERY_S`); with `extend_s` (while
        starting) each change also asks for `extend_s` more seconds of start-up."""
        every_s = STATUS_EVERY_S if every_s is None else every_s
        while True:
            text = said(status)
            self.status(text, *([f"EXTEND_TIMEOUT_USEC={int(extend_s * 1e6)}"] if extend_s is not None else []))
            await asyncio.sleep(every_s)


def said(status: Callable[[], str]) -> str:
    """`status()`, or why it could not be had: a broken part of the health report is news, never fatal."""
    try:
        return status()
    except Exception as exc:
        return f"状态未知 / status unknown: {type(exc).__name__}: {exc}"


def _parts(report: Mapping[str, Any]) -> tuple[list[str], list[str]]:
    zh: list[str] = []
    en: list[str] = []
    log_health = report.get("log") or {}
    if log_health.get("recovering"):
        return [str(log_health.get("message", ""))], [str(log_health.get("message_en", ""))]
    link = report.get("link") or {}
    if link.get("up"):
        zh.append("牌桌已连接")
        en.append("table linked")
    else:
        reason, reason_en = link.get("reason") or "", link.get("reason_en") or link.get("reason") or ""
        zh.append(f"等待牌桌（{reason}）" if reason else "等待牌桌")
        en.append(f"waiting for the table ({reason_en})" if reason_en else "waiting for the table")
    if not log_health.get("ok", True):
        waiting = log_health.get("waiting", 0)
        zh.append(f"存储卡已满或只读，事件记录无法写入（{waiting} 条等待）")
        en.append(f"the log cannot be written, card full or read-only ({waiting} waiting)")
    mirror = report.get("mirror")
    if mirror and (mirror.get("error") or mirror.get("refused") or not mirror.get("present", True)):
        zh.append(str(mirror.get("message", "")))
        en.append(str(mirror.get("message_en", "")))
    for name in ("camera", "tournament", "tasks"):
        part = report.get(name)
        if part and not part.get("ok", True):
            zh.append(str(part.get("message", "")))
            en.append(str(part.get("message_en", "")))
    return zh, en


def table_status(report: Mapping[str, Any]) -> str:
    """The table's line for `systemctl status`, from its health report (`Controller.health_report`): the
    table linked or waited for, and whatever is wrong with the log, the mirror stick, the camera, the
    tournament link, and the parts that stopped (`supervise.Supervisor.health`); Chinese first."""
    zh, en = _parts(report)
    return "；".join(p for p in zh if p) + " / " + "; ".join(p for p in en if p)


def hub_status(health: Mapping[str, Any], tables: int) -> str:
    """The hub's line for `systemctl status`: its broker connected or waited for, the tables heard from."""
    if health.get("connected"):
        return f"赛事服务器已连接 · {tables} 张牌桌 / broker connected · {tables} tables"
    error = health.get("error") or ""
    return (f"等待赛事服务器（{error}）/ waiting for the broker ({error})" if error
            else "正在连接赛事服务器 / connecting to the broker")

"""The service's long-running tasks, and what each one's end means.

Why: systemd's watchdog (`notify.py`) proves only that the event loop turns. A loop that turns while the display's
server has ended, or while the table's link loop died of a bug, still pinged: the table was no longer served (no
page, nothing recorded) and nobody was told, and a task that died of an exception said nothing until the garbage
collector's "Task exception was never retrieved", if ever. Each task is named here (`PARTS`, by its asyncio name):

- essential: its end while the service runs means the table (or the hub) is no longer served: the display's or the
  hub page's server (also when its listening socket is closed under it: `serving`), the table's link loop (nothing
  the table does is recorded; after a restart the board replays what the record lacks), the hub's link to its
  broker (the standings frozen; its session is kept at the broker). The service then says so in the
  journal (Chinese first), in STATUS=, stops pinging the watchdog and exits 1 (`runner.serve_until_signalled`):
  systemd starts it again 3 s later (`Restart=on-failure`), instead of 60 s of a watchdog timeout ending it with
  SIGABRT (a stack of a loop that was fine); stopped in order, its log closed and its snapshot kept; and a table
  run by hand stops too, saying why, instead of running on without a page.
- not essential: the table plays on without it, so it is reported (the journal, STATUS=, the referee's health
  panel) and the service runs on: the camera, the tournament link, the mirror stick, the config watch, the clock
  check, 报时, the log's retry of refused writes (the next event logged writes those held first), the demo's
  players. A restart for them would stop the table for the length of a restart each time
  (and a part that dies again at once would use up systemd's start limit: no table for five minutes).
- `may_return`: an end by return is the part's design, said by its own status: the camera without a model
  (识牌模型不可用) returns at once.

A part can also stop doing its work without ending: the table's link loop held for good on a future nobody completes
(a port's close that never returns, a wait on a table the driver no longer feeds) left the table unrecorded while the
loop turned and the pings went on, STATUS= saying 等待牌桌. Such a part is asked whether it is `stuck` (the link:
`Controller.link_stuck`, no sign of life for `STUCK_S` where its work is waiting: frames, a reconnection tried, an
event taken); a server is asked whether it answers its own health check (`answers_health`: the display's `/api/health`
over loopback). Both before each ping (`alive`); a stuck part is an end as any other, named where it was held
(`held_at`). A table simply unplugged is no hang: its driver tries again every few seconds, which is life.

Every task's exception is logged with its traceback the moment it ends, essential or not, during a stop too.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import ssl
from collections.abc import Awaitable, Callable, Hashable, Iterable
from dataclasses import dataclass
from pathlib import PurePath
from typing import Any

log = logging.getLogger("table_controller.supervise")

#: A part with work waiting that shows no sign of life this long is stuck. Above the longest honest gap of the table
#: link (a table that does not answer: 5 s of back-off, 3 s of RESETs, 3 s each for identify and status, a remote
#: host's 5 s connect; 1 s between heartbeats while linked), below `WatchdogSec=` (60 s) less a ping (30 s), so that
#: the service says why itself before systemd's SIGABRT would.
STUCK_S = 25.0
#: How long the display has to answer its own health check (`answers_health`), each of two tries.
ANSWER_S = 5.0


@dataclass(frozen=True)
class Part:
    """A long-running task: what stops with it (Chinese, English), whether the service is served without it."""

    zh: str
    en: str
    essential: bool
    may_return: bool = False


#: The tasks by their asyncio names (`TableService`, `Controller.start`, `HubService`).
PARTS: dict[str, Part] = {
    "http": Part("显示页面", "the display server", essential=True),
    "table-link": Part("牌桌连接", "the table link", essential=True),
    # not essential: the next event logged writes the held ones first (`Controller.accept`, `offer`); a restart
    # would lose what the camera held in memory
    "log-retry": Part("事件记录重试", "the log's retry of refused writes", essential=False),
    "clock-watch": Part("时钟检查", "the clock check", essential=False),
    "session-announce": Part("报时", "the session clock's announcements", essential=False),
    "camera": Part("摄像头", "the camera", essential=False, may_return=True),
    "tournament": Part("赛事上报", "the tournament link", essential=False),
    "mirror": Part("备份盘复制", "the mirror copy", essential=False),
    "config-watch": Part("配置文件监视", "the config file watch", essential=False),
    "demo": Part("演示对局", "the demo's players", essential=False),
    "hub-http": Part("汇总服务页面", "the hub's page", essential=True),
    "hub-mqtt": Part("赛事服务器连接", "the hub's broker link", essential=True),
}


@dataclass(frozen=True)
class Ended:
    name: str
    part: Part
    #: what ended it: the exception, "返回 / returned", or the listening socket closed
    why_zh: str
    why_en: str


def _exception_words(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__


class Progress:
    """A part's sign of life, sampled: the same `mark` (its counters) for `STUCK_S` on `clock` is a stall. Sampled
    only when looked at (before each ping): nothing wakes an idle Pi for it."""

    def __init__(self, clock: Callable[[], float], stuck_s: float | None = None) -> None:
        self.clock = clock
        self.stuck_s = STUCK_S if stuck_s is None else stuck_s
        self._mark: Hashable = None
        self._since: float | None = None

    def idle(self) -> None:
        """Nothing is waiting for the part: no stall counts until there is again."""
        self._since = None

    def stalled(self, mark: Hashable) -> float | None:
        """Seconds without a change of `mark` once they reach `stuck_s`, else None."""
        now = self.clock()
        if self._since is None or mark != self._mark:
            self._mark, self._since = mark, now
            return None
        quiet = now - self._since
        return quiet if quiet >= self.stuck_s else None


def held_at(task: asyncio.Task[Any] | None) -> str:
    """Where a suspended task waits: its innermost coroutine's file, line and function and the one that called it,
    down its chain of awaits (`get_stack` gives only the outermost frame)."""
    if task is None or task.done():
        return ""
    frames: list[str] = []
    step = task.get_coro()
    for _ in range(64):
        frame = getattr(step, "cr_frame", None) or getattr(step, "gi_frame", None) or getattr(step, "ag_frame", None)
        if frame is not None:
            path = PurePath(frame.f_code.co_filename)
            frames.append(f"{path.parent.name}/{path.name}:{frame.f_lineno} {frame.f_code.co_qualname}")
        step = (getattr(step, "cr_await", None) or getattr(step, "gi_yieldfrom", None)
                or getattr(step, "ag_await", None))
        if step is None:
            break
    return " → ".join(frames[-2:])


async def end_tasks(tasks: Iterable[asyncio.Future[Any]], grace_s: float | None = None) -> None:
    """Wait until each of `tasks` has ended: those still running after `grace_s` (at once without it) cancelled,
    whatever each ends with kept to it (and retrieved: the supervisor logs a part's exception where it ends). A
    cancellation of the caller meanwhile cancels the rest at once and is raised once they have all ended. Why not
    `await task` in `try/except CancelledError`: that cannot tell the task's cancellation from the caller's, and
    swallowed the caller's, which then ran on as if never cancelled (a stop awaited in the tournament demo's
    table restart)."""
    ending = set(tasks)
    pending = set(ending)
    interrupted: asyncio.CancelledError | None = None
    if grace_s is not None and pending:
        try:
            _, pending = await asyncio.wait(pending, timeout=grace_s)
        except asyncio.CancelledError as exc:
            interrupted = exc
    for task in pending:
        task.cancel()
    while pending:
        try:
            _, pending = await asyncio.wait(pending)
        except asyncio.CancelledError as exc:  # the caller's: its tasks were cancelled already and are ending
            interrupted = exc
    for task in ending:
        if not task.cancelled():
            task.exception()  # retrieved: not "Task exception was never retrieved" when the task is collected
    if interrupted is not None:
        raise interrupted


async def finish(stop: Awaitable[None]) -> None:
    """Run `stop` to its end even when the caller is cancelled meanwhile, then raise that cancellation: a stop cut
    off halfway left the table's link, its log or the display's socket open, and the caller's cancellation is
    honoured all the same, once, rather than swallowed."""
    running = asyncio.ensure_future(stop)
    interrupted: asyncio.CancelledError | None = None
    while not running.done():
        try:
            await asyncio.wait([running])
        except asyncio.CancelledError as exc:
            interrupted = exc
    if interrupted is not None:
        failed = None if running.cancelled() else running.exception()
        raise interrupted from failed
    running.result()


class Supervisor:
    """Watches the tasks given to it (`watch`); `failed` is set once an essential one has ended while the service
    runs, `ended` lists every unexpected end. `what_zh` / `what_en`: the service (牌桌服务 / the table)."""

    def __init__(self, what_zh: str, what_en: str) -> None:
        self.what_zh = what_zh
        self.what_en = what_en
        self.ended: list[Ended] = []
        self.failed = asyncio.Event()
        #: set by the service's stop: what ends then ends on purpose (an exception is still logged)
        self.stopping = False
        self._serving: dict[str, tuple[Callable[[], bool], Callable[[], bool]]] = {}
        self._stuck: dict[str, Callable[[], tuple[str, str] | None]] = {}
        self._answers: dict[str, tuple[Callable[[], Awaitable[tuple[str, str] | None]], Callable[[], bool]]] = {}

    def watch(self, task: asyncio.Task[Any], serving: Callable[[], bool] | None = None,
              stopped: Callable[[], bool] | None = None,
              stuck: Callable[[], tuple[str, str] | None] | None = None,
              answers: Callable[[], Awaitable[tuple[str, str] | None]] | None = None) -> None:
        """Watch `task` (its name is its `PARTS` key). `stopped`: whether it was told to stop by other means
        than ours (uvicorn's own SIGTERM handler ends the server before the runner hears the signal); `serving`:
        whether it still does its work while it runs (a server's listening sockets), looked at by `check`;
        `stuck`: why it no longer does its work though it runs (Chinese, English), or None, looked at by `check`;
        `answers`: a server's own health check over loopback, why it did not answer or None, awaited by `alive`."""
        name = task.get_name()
        part = PARTS[name]
        told = stopped or (lambda: False)
        if serving is not None:
            self._serving[name] = (serving, told)
        if stuck is not None:
            self._stuck[name] = stuck
        if answers is not None:
            self._answers[name] = (answers, told)
        task.add_done_callback(lambda t: self._done(t, name, part, told))

    def _done(self, task: asyncio.Task[Any], name: str, part: Part, stopped: Callable[[], bool]) -> None:
        if task.cancelled():
            return  # the service's stop
        exc = task.exception()  # retrieved here: never "Task exception was never retrieved" at collection
        on_purpose = self.stopping or stopped()
        if exc is not None:
            log.error(f"{part.zh}异常结束 / {part.en} ended with an error: {_exception_words(exc)}",
                      exc_info=(type(exc), exc, exc.__traceback__),
                      extra={"task": name, "essential": part.essential, "stopping": on_purpose})
        if on_purpose:
            return
        if exc is None and part.may_return:
            log.info(f"{part.zh}已结束，原因见其状态 / {part.en} ended, its status says why", extra={"task": name})
            return
        words = (_exception_words(exc),) * 2 if exc is not None else ("意外返回", "returned")
        self._end(Ended(name, part, *words))

    def _end(self, ended: Ended) -> None:
        if any(e.name == ended.name for e in self.ended):
            return
        self.ended.append(ended)
        part = ended.part
        if part.essential:
            self.failed.set()  # the runner says it (log, STATUS) and exits
        else:
            log.error(f"{part.zh}已停止（{ended.why_zh}），{self.what_zh}继续运行 / {part.en} stopped ({ended.why_en}); "
                      f"{self.what_en} runs on", extra={"task": ended.name})

    def check(self) -> bool:
        """Whether every watched server still listens (its sockets closed under it: an end, as its task's) and no
        part says it is stuck; False once an essential part has ended."""
        if not self.stopping:
            for name, (serving, stopped) in self._serving.items():
                if not stopped() and not serving():
                    self._end(Ended(name, PARTS[name], "不再监听端口", "no longer listening"))
            for name, stuck in self._stuck.items():
                why = stuck()
                if why is not None:
                    self._end(Ended(name, PARTS[name], *why))
        return not self.failed.is_set()

    async def alive(self) -> bool:
        """`check`, then each server's own health check: whether the service does its work, not only whether its
        loop turns. Asked before each watchdog ping (`notify.Notifier.watchdog`)."""
        if not self.check():
            return False
        for name, (answers, stopped) in self._answers.items():
            if self.stopping or stopped():
                continue
            why = await answers()
            if why is not None and not self.stopping and not stopped():
                self._end(Ended(name, PARTS[name], *why))
        return not self.failed.is_set()

    def why(self) -> tuple[str, str]:
        """The essential parts that ended, and why (Chinese, English)."""
        ended = [e for e in self.ended if e.part.essential]
        return ("；".join(f"{e.part.zh}已停止（{e.why_zh}）" for e in ended),
                "; ".join(f"{e.part.en} stopped ({e.why_en})" for e in ended))

    def health(self) -> dict[str, Any]:
        """The health panel's line (and STATUS='s, `notify.table_status`): the parts stopped that the service runs
        on without."""
        ended = [e for e in self.ended if not e.part.essential]
        if not ended:
            return {"ok": True, "message": "后台任务正常", "message_en": "background tasks running"}
        return {"ok": False, "stopped": [e.name for e in ended],
                "message": "已停止：" + "、".join(f"{e.part.zh}（{e.why_zh}）" for e in ended) + "，请重启服务",
                "message_en": "stopped: " + ", ".join(f"{e.part.en} ({e.why_en})" for e in ended)
                + "; restart the service"}


def listening(server: Any) -> bool:
    """Whether a uvicorn server's listening sockets all still accept connections."""
    servers = getattr(server, "servers", None) or []
    return bool(servers) and all(s.is_serving() for s in servers)


def told_to_exit(server: Any) -> Callable[[], bool]:
    """A uvicorn server was told to stop (its own SIGINT/SIGTERM handler, or our stop)."""
    return lambda: bool(server.should_exit)


@functools.cache
def _asking_itself() -> ssl.SSLContext:
    """The TLS context the service asks its own display with: its own certificate, for whatever name, is not
    checked, so no CA store is loaded. `ssl.create_default_context()` read and parsed the system's CA bundle at
    every ping to check nothing (22 ms of CPU here, a Pi 5-8x that, every 30 s). Made once."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    return context


async def answers_health(server: Any, tls: bool, timeout_s: float | None = None) -> tuple[str, str] | None:
    """Whether a uvicorn server answers `GET /api/health` (200) on its own listening address (a wildcard one over
    loopback), two tries of `ANSWER_S`; why not (Chinese, English), or None. A server can listen while its
    requests go unanswered (the app held on a lock, a middleware waiting for good): only an answer says it
    serves."""
    timeout_s = ANSWER_S if timeout_s is None else timeout_s
    sockets = [sock for s in getattr(server, "servers", None) or [] for sock in s.sockets]
    if not sockets:
        return None  # not listening: `check`'s to say
    name = sockets[0].getsockname()
    host = {"0.0.0.0": "127.0.0.1", "::": "::1"}.get(name[0], name[0])
    context = _asking_itself() if tls else None
    why = ("", "")
    for _ in range(2):
        writer = None
        try:
            async with asyncio.timeout(timeout_s):
                reader, writer = await asyncio.open_connection(host, name[1], ssl=context)
                writer.write(b"GET /api/health HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
                await writer.drain()
                status = (await reader.readline()).split()
            if len(status) >= 2 and status[1] == b"200":
                return None
            said = status[1].decode("ascii", "replace") if len(status) >= 2 else ""
            why = (f"回答 {said}", f"answered {said}") if said else ("连接被关闭", "closed without an answer")
        except TimeoutError:
            why = (f"{timeout_s:g} 秒内无应答", f"no answer within {timeout_s:g} s")
        except OSError as exc:
            why = (f"无法连接：{exc}", f"cannot connect: {exc}")
        finally:
            if writer is not None:
                writer.close()
    return f"/api/health {why[0]}", f"/api/health: {why[1]}"

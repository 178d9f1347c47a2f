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

Every task's exception is logged with its traceback the moment it ends, essential or not, during a stop too.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

log = logging.getLogger("table_controller.supervise")


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

    def watch(self, task: asyncio.Task[Any], serving: Callable[[], bool] | None = None,
              stopped: Callable[[], bool] | None = None) -> None:
        """Watch `task` (its name is its `PARTS` key). `stopped`: whether it was told to stop by other means
        than ours (uvicorn's own SIGTERM handler ends the server before the runner hears the signal); `serving`:
        whether it still does its work while it runs (a server's listening sockets), looked at by `check`."""
        name = task.get_name()
        part = PARTS[name]
        told = stopped or (lambda: False)
        if serving is not None:
            self._serving[name] = (serving, told)
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
        """Whether every watched server still listens (its sockets closed under it: an end, as its task's);
        False once an essential part has ended. Looked at before each watchdog ping."""
        if not self.stopping:
            for name, (serving, stopped) in self._serving.items():
                if not stopped() and not serving():
                    self._end(Ended(name, PARTS[name], "不再监听端口", "no longer listening"))
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

"""Run a `TableService` in the foreground until Ctrl-C or SIGTERM (systemd's stop)."""

from __future__ import annotations

import asyncio
import faulthandler
import logging
import signal
import sys
import webbrowser
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from table_controller.config import TableConfig
from table_controller.deploy import CONFIG_ERROR_EXIT
from table_controller.logs import setup_logging
from table_controller.notify import EXTEND_START_S, Notifier, said, table_status
from table_controller.service import TableService
from table_controller.state import UnknownRuleset
from table_controller.store import LogTooNew, StoreError
from table_controller.supervise import Supervisor
from table_controller.web.addresses import WILDCARD, phone_urls

log = logging.getLogger("table_controller.runner")


def stop_on_signals(stop: Callable[[], None]) -> None:
    """Call `stop` on SIGINT or SIGTERM (Ctrl-C, systemd's stop), whatever the process inherited: a
    parent that ignores SIGINT (or runs its children with it blocked, as a test runner's worker may)
    left the disposition and the mask to its children, and a Ctrl-C or a stop then did nothing."""
    loop = asyncio.get_running_loop()
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT, signal.SIGTERM})
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop)


async def serve_until_signalled(service: Any, started: Callable[[], None], errors: tuple[type[BaseException], ...],
                                name: str = "tablectl", settings: Mapping[str, str] | None = None,
                                status: Callable[[], str] | None = None) -> int:
    """Start `service`, call `started`, run until SIGINT/SIGTERM (systemd's stop), stop it; 1 if it cannot start.
    `settings`: a config setting named in the refusal -> what the user typed for it (the demo's options: it has
    no config file, and "change [display].port" named nothing it takes). Under systemd (`$NOTIFY_SOCKET`,
    `notify.py`): `status()` is its STATUS= line (the start's progress too, each change asking for more start-up
    time), READY=1 once started, WATCHDOG=1 from this loop, STOPPING=1 at the stop. A service with a `supervisor`
    (`supervise.py`): an essential part that ends (its display's server, its table link ...) is said in the journal
    and STATUS=, the pings stop, the service is stopped and 1 returned, for systemd to start it again."""
    stop = asyncio.Event()
    stop_on_signals(stop.set)
    notifier = Notifier.from_environ()
    supervisor: Supervisor | None = getattr(service, "supervisor", None)

    def status_of() -> str:
        return said(status) if status is not None else ""

    following: list[asyncio.Task[None]] = []
    if notifier.enabled:
        following.append(asyncio.create_task(notifier.follow(status_of, extend_s=EXTEND_START_S), name="notify-start"))
    try:
        try:
            await service.start()
        finally:
            await _cancel(following)
    except errors as exc:
        message = str(exc)
        for setting, option in (settings or {}).items():
            message = message.replace(setting, option)
        # 中文 / English as the rest: a refusal said Chinese first already (a port in use) goes after 无法启动 as it is
        from table_controller.cli import HAN

        print(f"{name}: 无法启动：{message}" if HAN.search(message.split(" / ", 1)[0])
              else f"{name}: 无法启动 / cannot start: {message}", file=sys.stderr)
        notifier.status(f"无法启动 / cannot start: {message}")
        await service.stop()
        notifier.close()
        # a log of a newer version, or of a ruleset not here, stays so however often systemd restarts the service
        return CONFIG_ERROR_EXIT if isinstance(exc, (LogTooNew, UnknownRuleset)) else 1
    started()
    if notifier.enabled:  # the log open and folded, the page listening: up
        if notifier.ping_s is not None:
            # systemd ends a service its watchdog found hung with SIGABRT: every thread's Python stack goes to the
            # journal first, so the call that held the loop is named (it died without a word)
            faulthandler.enable(all_threads=True)
        notifier.ready(status_of())
        following += [asyncio.create_task(notifier.watchdog(supervisor.alive if supervisor else None),
                                          name="notify-watchdog"),
                      asyncio.create_task(notifier.follow(status_of), name="notify-status")]
    failed = supervisor.failed if supervisor is not None else asyncio.Event()
    waits = [asyncio.ensure_future(stop.wait()), asyncio.ensure_future(failed.wait())]
    try:
        await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for waiting in waits:
            waiting.cancel()
    if supervisor is not None and failed.is_set() and not stop.is_set():
        return await _failed(service, supervisor, notifier, following, name)
    log.info("stopping")
    notifier.stopping()
    await _cancel(following)
    await service.stop()
    notifier.close()
    return 0


async def _failed(service: Any, supervisor: Supervisor, notifier: Notifier, following: list[asyncio.Task[None]],
                  name: str) -> int:
    """An essential part ended: the journal and STATUS= say which and why (Chinese first), the watchdog's pings
    stop first (a stop that hangs is then ended by the watchdog), the service is stopped in order (its log
    closed, its snapshot kept), and 1: systemd's `Restart=on-failure` starts it again in `RestartSec=`. Exiting
    rather than only stopping the pings: a minute sooner, without a SIGABRT's stack of a loop that was fine in
    the journal, and a table run by hand stops too instead of running on without its page."""
    zh, en = supervisor.why()
    message = (f"{supervisor.what_zh}中断：{zh}；服务退出，由 systemd 重新启动 / {supervisor.what_en} is no longer "
               f"served: {en}; exiting for systemd to start it again")
    log.critical(message)
    print(f"{name}: {message}", file=sys.stderr, flush=True)
    await _cancel(following)
    notifier.status(f"{supervisor.what_zh}中断，正在退出以便重启：{zh} / not served, exiting to be restarted: {en}")
    await service.stop()
    notifier.close()
    return 1


async def _cancel(tasks: list[asyncio.Task[None]]) -> None:
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    tasks.clear()


def run_service(config: TableConfig, data_dir: Path, verbose: int = 0, open_browser: bool = False,
                name: str = "tablectl", settings: Mapping[str, str] | None = None) -> int:
    setup_logging(config.log.level, verbose)

    async def main() -> int:
        service = TableService(config, data_dir)

        def started() -> None:
            url = service.url
            print(f"显示 / display: {url}   事件记录 / event log: {data_dir / 'events.sqlite3'}", flush=True)
            if config.display.host in WILDCARD:  # 0.0.0.0 is no address a phone can open
                scheme = "https" if config.display.tls_cert else "http"
                phones = phone_urls(config.display.host, service.port or config.display.port, scheme)
                print(f"手机访问 / phones on the LAN: {' '.join(phones) or '尚无局域网地址 / no LAN address yet'}",
                      flush=True)
            made = service.generated  # the credentials made up at start; a configured one is never printed
            names = (("operator_token", "操作员凭证", "operator"), ("referee_token", "裁判凭证", "referee"))
            shown = [f"{zh} / {en} token: {made[key]}" for key, zh, en in names if key in made]
            if shown:
                print("   ".join(shown), flush=True)
            for weak in service.weak:  # a player who guesses it is a referee: the config's owner must hear it
                print(f"凭证太弱 / weak credential: {weak}; 请在配置中更换 / change it in the config", flush=True)
            if open_browser:
                try:
                    webbrowser.open(url)
                except webbrowser.Error:
                    log.info("no browser to open", extra={"url": url})

        def status() -> str:
            if service.controller is None:
                return "正在启动 / starting"
            return table_status(service.controller.health_report())

        return await serve_until_signalled(service, started, (OSError, StoreError, UnknownRuleset), name=name,
                                           settings=settings, status=status)

    return asyncio.run(main())

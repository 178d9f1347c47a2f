"""Fixtures shared across test folders."""

from __future__ import annotations

import functools
import os
import tempfile
from pathlib import Path
from collections.abc import AsyncIterator
from typing import Any, Iterator

import pytest
import pytest_asyncio

from table_controller.config import parse_config
from table_controller.controller import Controller
from table_controller.store import EventStore
from tests.browsers import CHROMIUM, CHROMIUM_ARGS


#: Files whose few tests run long (a whole day, a played session, every page): `make test`'s `--dist loadfile`
#: hands files out by their number of tests, most first, so these came last and one worker ran the last of them
#: alone (test_day: 40-55 s) while the other had nothing left. They are handed out first, longest first (the
#: slowest files of a run beside other work, 35-112 s each: a cameras' played hands, a bench, a browser's pages
#: on bad Wi-Fi), so that the files of short tests fill in at the end; only the order moves.
LONG_FILES = ("tests/tournament/test_day.py", "tests/web/test_riichi_pages.py", "tests/integration/test_camera_in_service.py",
              "tests/vision/test_vision_setup.py", "tests/web/test_wifi.py", "tests/vision/test_vision_bump.py",
              "tests/security/test_concealed_tiles.py", "tests/web/test_long_records.py",
              "tests/tournament/test_tournament_demo.py", "tests/integration/test_cli_processes.py",
              "tests/vision/test_vision_learn.py", "tests/web/test_small_screens.py",
              "tests/tournament/test_pages_browser.py", "tests/web/test_keying.py",
              "tests/vision/test_vision_camera_faults.py", "tests/vision/test_bench_camera_long_faults.py",
              "tests/web/test_xss.py", "tests/web/test_recovering.py", "tests/web/test_overlay.py",
              "tests/web/test_mcr_referee_pages.py", "tests/web/test_blood_battle_pages.py",
              "tests/web/test_tuidaohu_pages.py")


#: Where the suite's temporary files go when the caller set no TMPDIR: a memory-backed tmpfs. The event log commits
#: each event with `synchronous=FULL`, so on a VM's disk every event cost an fsync (10.7 ms against 0.18 ms on
#: tmpfs, measured): a played round of the tournament demo spent 40% of its time in them. A test kills processes,
#: never the power, so the fsync proves nothing there; the syscalls themselves still happen (test_publisher_syncs).
MEMORY_TMP = Path("/dev/shm")
#: Below this much free room the tmpfs is left alone (the suite's files, a few hundred MiB, go to the disk).
MEMORY_TMP_FREE = 2 << 30


def memory_tmp(mounts: str, candidate: Path = MEMORY_TMP) -> Path | None:
    """`candidate` when `mounts` (/proc/mounts' text) shows it a tmpfs this user can write with room to spare."""
    on_tmpfs = any(f"{parts[1]} {parts[2]}" == f"{candidate} tmpfs"
                   for parts in (line.split() for line in mounts.splitlines()) if len(parts) >= 3)
    if not on_tmpfs or not os.access(candidate, os.W_OK | os.X_OK):
        return None
    stat = os.statvfs(candidate)
    return candidate if stat.f_bavail * stat.f_frsize >= MEMORY_TMP_FREE else None


def _use_memory_tmp() -> None:
    """Point TMPDIR (pytest's `tmp_path`, `tempfile`, and every process a test starts) at `memory_tmp`."""
    if os.environ.get("TMPDIR"):
        return  # the caller chose
    try:
        mounts = Path("/proc/mounts").read_text()
    except OSError:
        return
    chosen = memory_tmp(mounts)
    if chosen is not None:
        os.environ["TMPDIR"] = str(chosen)
        tempfile.tempdir = None  # gettempdir() reads TMPDIR again


_use_memory_tmp()  # at import: before pytest (and xdist, for its workers) picks the base of `tmp_path`


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """xdist's `loadfile` scheduler with `LONG_FILES` at the head of its queue (other modes: xdist's own)."""
    if config.getvalue("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadFileScheduling

    class LongFilesFirst(LoadFileScheduling):  # type: ignore[misc]
        def _assign_work_unit(self, node: Any) -> None:
            for path in reversed(LONG_FILES):
                if path in self.workqueue:
                    self.workqueue.move_to_end(path, last=False)
            super()._assign_work_unit(node)

    return LongFilesFirst(config, log)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--fuzz-long", action="store_true", default=False,
                     help="tests/security/test_api_fuzz.py: thousands of random bad requests per service, not 100")


async def _no_table(url: str) -> Any:
    raise ConnectionRefusedError(f"nothing at {url}")


@pytest.fixture
def self_signed(tmp_path: Path) -> tuple[Path, Path]:
    """A self-signed certificate for 127.0.0.1 (its own CA) and its key, as `openssl` makes one:
    for the display's and the hub's https."""
    import subprocess

    cert, key = tmp_path / "self-signed.pem", tmp_path / "self-signed.key"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                    "-keyout", str(key), "-out", str(cert), "-days", "2", "-subj", "/CN=127.0.0.1",
                    "-addext", "subjectAltName=IP:127.0.0.1"], check=True, capture_output=True)
    return cert, key


@pytest.fixture
def sichuan_table(tmp_path: Path) -> Iterator[Controller]:
    """A controller on a real SQLite log with a 四川血战 hand started (chair 1 deals, so each wind
    sits at its own side) and its dice thrown, no table linked."""
    cfg = parse_config({"table": {"link": "socket://127.0.0.1:9"}, "rules": {"ruleset": "sichuan"}}, "test")
    store = EventStore(tmp_path / "events.sqlite3")
    controller = Controller(cfg, store, _no_table)
    controller.accept("operator", "operator.hand_start", {"hand_no": 1, "ruleset": "sichuan", "dealer_position": 1,
                                                          "prevalent_wind": "E", "seats": {"E": 1, "S": 2, "W": 3, "N": 4}})
    controller.accept("table", "table.dice", {"seat": "E", "wind": "E", "dice": [3, 4]})  # the break: play may begin
    yield controller
    store.close()


@pytest.fixture
def offline_client(tmp_path: Path) -> Any:
    """Make a TestClient on a controller with a real SQLite log, no table linked and hand 1 started
    under `ruleset` (`hand_start`: more of the event's data; `dice`: a table throw after it), with
    the given referee and operator credentials; `client.controller` is the controller."""
    from fastapi.testclient import TestClient

    from table_controller.web.app import create_app
    from table_controller.web.auth import Credentials

    def make(ruleset: str, referee: str, operator: str, dice: list[int] | None = None, **hand_start: Any) -> Any:
        cfg = parse_config({"table": {"link": "socket://127.0.0.1:9"}, "rules": {"ruleset": ruleset}}, "test")
        controller = Controller(cfg, EventStore(tmp_path / "events.sqlite3"), _no_table)
        controller.accept("operator", "operator.hand_start",
                          {"hand_no": 1, "ruleset": ruleset, "dealer_position": 1, **hand_start})
        if dice:
            controller.accept("table", "table.dice", {"seat": "E", "wind": "E", "dice": dice})
        client = TestClient(create_app(controller, Credentials(referee=referee, operator=operator)))
        client.controller = controller  # type: ignore[attr-defined]
        return client

    return make


#: What a test does to a page that waits on the page's frames: Playwright's visible-and-stable check before a click,
#: its `raf` polling of a wait, a screenshot (`front_before_acting`)
FRAME_BOUND = ("click", "dblclick", "tap", "hover", "check", "uncheck", "set_checked", "fill", "type", "press",
               "press_sequentially", "select_option", "wait_for_function", "wait_for_selector", "wait_for",
               "screenshot", "focus")


def front_before_acting() -> None:
    """Bring a page to the front before a test acts on it, when another page of its context was in front.

    Chromium draws a tab behind another in the same window about once a second once it has been behind ~10 s,
    and every action on it waited for the frames Playwright's checks need: 1-2 s a click (the 立直 session keyed
    on the Table page and read on the Win page: 48 s, 23 of them in such waits; `--disable-frame-rate-limit`
    ends the wait too but makes every `raf` poll spin, test_browser +38 CPU-seconds). A person at a tablet acts
    on the page in front: so does a test now."""
    try:
        from playwright.async_api import Error, Locator, Page
    except ImportError:  # a machine with the service only: no browser tests to run
        return
    if getattr(Page.click, "fronts", False):
        return

    async def fronted(page: Any) -> None:
        context = page.context
        if getattr(context, "front_page", None) is not page and not page.is_closed():
            try:
                await page.bring_to_front()
            except Error:
                return  # closing with its context: the action itself says so
            context.front_page = page

    def wrap(cls: Any, name: str, page_of: Any) -> None:
        original = getattr(cls, name, None)
        if original is None:
            return

        @functools.wraps(original)
        async def acting(self: Any, *args: Any, **kwargs: Any) -> Any:
            await fronted(page_of(self))
            return await original(self, *args, **kwargs)

        acting.fronts = True  # type: ignore[attr-defined]
        setattr(cls, name, acting)

    for name in FRAME_BOUND:
        wrap(Page, name, lambda page: page)
        wrap(Locator, name, lambda locator: locator.page)


front_before_acting()


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def chromium() -> AsyncIterator[Any]:
    """Debian's Chromium, launched once for the test file (each test opens its own context or page)."""
    from playwright.async_api import async_playwright

    async with async_playwright() as pw:
        launched = await pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield launched
        finally:
            await launched.close()


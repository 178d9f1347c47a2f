"""Assemble and run one table: event log, controller, display server, and the simulator for `sim://`.

This is the only place that knows how the parts fit; `tablectl demo` and `tablectl run` and the
integration tests all go through `TableService`.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from table_controller.config import TableConfig
from table_controller.controller import Controller
from table_controller.store import EventStore, WriterLock
from table_controller.supervise import Supervisor, answers_health, finish, listening, told_to_exit
from table_controller.web.auth import Credentials, weak_credentials

log = logging.getLogger("table_controller.service")

SIM_URL = "sim://"
#: In the data directory: what the camera learnt from the referee's rulings, for a table without
#: an enrollment file (`[camera] enrollment`).
LEARNED_TILES = "camera-learned.npz"
#: The demo camera's most frames a second (`demo_camera_fps`).
DEMO_CAMERA_MAX_FPS = 10.0


def demo_camera_fps(period_s: float) -> float:
    """The demo camera's frames a second: a frame for each read of the service (`[camera] period_s`), so a
    read never waits for the next frame, 4 at least (the felt stays live between slow reads) and at most
    `DEMO_CAMERA_MAX_FPS` (each frame is rendered: ~70 ms of a core)."""
    return min(DEMO_CAMERA_MAX_FPS, max(4.0, 1.0 / period_s))


@dataclass
class TableService:
    """One table's running parts; `start()` brings them up, `stop()` takes them down in order."""

    config: TableConfig
    data_dir: Path
    serve_http: bool = True
    sim: Any = None
    store: EventStore | None = None
    controller: Controller | None = None
    credentials: Credentials | None = None
    #: the credentials made up at start (`Credentials.generated`): the only ones printed or logged
    generated: dict[str, str] = field(default_factory=dict)
    #: the configured credentials guessed soon (`auth.weak_credentials`): key and why, never the value
    weak: list[str] = field(default_factory=list)
    port: int | None = None
    camera: Any = None
    #: the demo's felt and virtual camera (`[demo] camera`), None otherwise
    felt: Any = None
    _virtual_camera: Any = None
    publisher: Any = None
    #: the log's second copy on another device (`[storage] mirror_dir`), None otherwise
    mirror: Any = None
    #: the events' stamps' clock (a test's clock that steps, as NTP steps a Pi's); None: the system's, carried on
    #: across restarts in one boot (`stamps.py`)
    wall_clock: Any = None
    #: the clock the table link's stalls are timed on (`Controller.link_stuck`); None: `time.monotonic`
    steady_clock: Any = None
    _served: Any = None
    _writer: WriterLock | None = None
    _tasks: list[asyncio.Task[Any]] = field(default_factory=list)
    #: the stop under way or done (`stop`): a second stop waits for it, never closes the log twice
    _stop_run: asyncio.Future[None] | None = None
    #: the running parts' ends (`supervise.py`): an essential one's is the runner's cue to exit
    supervisor: Supervisor = field(default_factory=lambda: Supervisor("牌桌服务", "the table"))

    async def start(self) -> None:
        cfg = self.config
        self._stop_run = None
        self._writer = WriterLock(self.data_dir)
        self._writer.acquire()  # LogInUse when another service writes this log
        self.store = self._open_log(self.data_dir / "events.sqlite3")
        url = cfg.table.link
        if url == SIM_URL:
            from tablesim import SimTable
            from tablesim.physics import Timings

            from drivers.clock import SystemClock

            from table_controller.rules.ruleset import in_use

            rs = in_use(cfg.rules.ruleset)
            # The simulator builds the ruleset's own tile set (e.g. shiwan's tens) through the
            # rules engine, so its ground truth and the engine agree.
            # ... and a dice unit of the ruleset's (广东, 台湾: three dice), as a table maker fits one
            self.sim = SimTable(seed=cfg.table.sim_seed, clock=SystemClock(), dialect=cfg.table.dialect,
                                autopilot=cfg.demo.autoplay, timings=Timings.default().scaled(cfg.table.sim_speed),
                                ruleset=rs, tile_count=cfg.table.tile_count or rs.tiles,
                                dice=rs.dice_count if rs.dice_count in (2, 3) else 2)
            url = await self.sim.serve_pty()
            log.info("simulated table on a pseudo-terminal", extra={"pty": url})

        async def opener(u: str) -> Any:
            from drivers.clock import SystemClock
            from drivers.table import open_table

            options = {"baudrate": cfg.table.baud} if not u.startswith(("socket://", "loop://", "usb://")) else {}
            # resume where the record stops: the table replays only the events the log lacks
            return await open_table(u, clock=SystemClock(), dialect=cfg.table.dialect,
                                    resume=self.controller.table_resume(), **options)

        # the log is folded after the display is up (`Controller.recover`): it says 正在恢复记录 meanwhile
        self.controller = Controller(cfg, self.store, opener, wall_clock=self.wall_clock, fold_now=False,
                                     **({"steady": self.steady_clock} if self.steady_clock is not None else {}))
        # the controller links to the pty path (or the configured device), never to the sim object
        self.controller.config = cfg.model_copy(update={"table": cfg.table.model_copy(update={"link": url})})
        self.credentials = Credentials.from_display(cfg.display, lambda: secrets.token_urlsafe(9))
        self.generated = self.credentials.generated(cfg.display)
        if self.generated and cfg.demo.autoplay and not Path(cfg.source).is_file():
            # `tablectl demo`: no config file to keep them in, new ones each start as meant; a warning at
            # every demo's start, telling to set them in a config it has none of, read as a fault
            log.info("generated display credentials (the demo's, new at each start)", extra=self.generated)
        elif self.generated:  # only those made up now: a configured credential is never logged
            log.warning("generated display credentials (set them in the config to keep them)", extra=self.generated)
        self.weak = weak_credentials(cfg.display)  # said, not refused: a table that will not start is worse on the day
        if self.weak:
            log.warning("weak display credentials: change them in the config", extra={
                "weak": self.weak, "message_zh": "裁判/操作员凭证太弱，旁人容易猜中，请在配置中更换"})
        if self.serve_http:
            await self._start_http()
        await self.controller.recover()
        await self.controller.start()
        if cfg.demo.autoplay and cfg.demo.camera:
            self._start_camera(self._start_demo_camera())
        elif cfg.camera.source:
            self._start_camera(cfg.camera.source)
        if cfg.tournament.broker:
            self._start_tournament()
        if cfg.storage.mirror_dir:
            self._start_mirror()
        if cfg.source != "<defaults>" and Path(cfg.source).is_file():  # a PIN changed on the Pi holds at once
            from table_controller.config_watch import watch_credentials

            self._tasks.append(asyncio.create_task(
                watch_credentials(Path(cfg.source), self.credentials, self.controller, started=cfg),
                name="config-watch"))
        if cfg.demo.autoplay:
            from table_controller.demo import demo_loop

            self._tasks.append(asyncio.create_task(
                demo_loop(self.controller, self.sim, cfg.table.sim_seed, cfg.demo.turn_seconds, cfg.demo.hand_seconds,
                          felt=self.felt),
                name="demo"))
        self._watch()

    def _watch(self) -> None:
        """Every running part under the supervisor: the display's server also while its sockets listen."""
        assert self.controller is not None
        self.controller.health_sources["tasks"] = self.supervisor.health
        for task in [*self._tasks, *self.controller.tasks]:
            if self._served is not None and task is self._served.task:
                server = self._served.server
                self.supervisor.watch(task, serving=lambda: listening(server), stopped=told_to_exit(server),
                                      answers=lambda: answers_health(server, self.config.display_tls() is not None))
            elif task.get_name() == "table-link":
                self.supervisor.watch(task, stuck=self.controller.link_stuck)
            else:
                self.supervisor.watch(task)

    def _beside_config(self, path: str) -> str:
        """A relative path in the config file is relative to that file."""
        if path and self.config.source != "<defaults>" and not Path(path).is_absolute():
            return str(Path(self.config.source).parent / path)
        return path

    def _start_demo_camera(self) -> str:
        """The demo's camera: the players lay their plays on a simulated felt, rendered in the
        configured tile art and served as MJPEG like an IP camera; returns its URL."""
        from tablesim.felt import FeltCamera
        from tablesim.scenes.camera import VirtualCamera
        from vision.tileart import load_style

        self.felt = FeltCamera(load_style(self.config.demo.camera), seed=self.config.table.sim_seed)
        fps = demo_camera_fps(self.config.camera.period_s)
        self._virtual_camera = VirtualCamera(self.felt.frame, fps=fps).start()
        log.info("demo camera", extra={"url": self._virtual_camera.url, "style": self.config.demo.camera})
        return str(self._virtual_camera.url)

    def _start_camera(self, source: str) -> None:
        from table_controller.camera import CameraWatcher, vision_loop_factory

        assert self.controller is not None
        cam = self.config.camera
        enrollment, model = (self._beside_config(p) for p in (cam.enrollment, cam.model))
        self.camera = CameraWatcher(self.controller, vision_loop_factory(source, cam.corners, enrollment or None,
                                                                        cam.threshold, model, cam.learn,
                                                                        self.data_dir / LEARNED_TILES, cam.corners_size),
                                    period_s=cam.period_s, learn=cam.learn, record_play=cam.record_play)
        self.controller.health_sources["camera"] = self.camera.health
        self.controller.camera = self.camera
        self._tasks.append(asyncio.create_task(self.camera.run(), name="camera"))

    def _start_tournament(self) -> None:
        """Publish to the tournament's broker in the background: the table never waits for it."""
        from table_controller.tournament.publisher import TournamentPublisher

        assert self.controller is not None
        t = self.config.tournament
        self.publisher = TournamentPublisher(self.controller, t.broker, t.name, t.table_id, prefix=t.topic_prefix,
                                             username=t.username, password=t.password, ca_file=t.ca_file)
        self.controller.health_sources["tournament"] = self.publisher.health
        self._tasks.append(asyncio.create_task(self.publisher.run(), name="tournament"))

    def _open_log(self, path: Path) -> EventStore:
        """The table's log; a damaged one (a card that lost power mid-write) is kept aside and its
        readable events, with what the mirror holds of the rest, carried into a fresh one
        (`table_controller.salvage`): the service starts, and the first new event says what was lost."""
        import time

        from table_controller.salvage import behind_mirror, damage, finish, salvage
        from table_controller.store import refuse_newer

        if finish(path):  # a salvage cut short (the power cut again at start): its whole fresh log put in place
            log.warning("a salvage cut short finished: its fresh log put in place", extra={"path": str(path)})
        refuse_newer(path)  # a newer version's log is left as it is, not taken for damage and salvaged
        mirror = self.config.mirror_path()
        problem = (damage(path) or behind_mirror(path, mirror)) if path.exists() else None
        if problem is not None:  # the fresh log's first new event, controller.log_salvaged, says what was lost
            salvage(path, problem, time.time(), mirror)
        return EventStore(path)

    def _start_mirror(self) -> None:
        """Keep a second copy of the log on another device, in the background (`mirror.py`)."""
        from table_controller.mirror import LogMirror

        assert self.controller is not None and self.store is not None
        target = self.config.mirror_path()
        assert target is not None
        self.mirror = LogMirror(self.store, target)
        self.controller.health_sources["mirror"] = self.mirror.health
        self._tasks.append(asyncio.create_task(self.mirror.run(), name="mirror"))

    async def _start_http(self) -> None:
        from table_controller.web.app import create_app
        from table_controller.web import serve as serving
        from table_controller.web.serve import serve

        assert self.controller is not None
        cfg = self.config.display
        tls = self.config.display_tls()
        options = {"ssl_certfile": tls[0], "ssl_keyfile": tls[1]} if tls else {}
        self._served = await serve(create_app(self.controller, self.credentials), cfg.host, cfg.port,
                                   name="http", what="the display server",
                                   ws_ping_interval=serving.WS_PING_S, **options)
        self._tasks.append(self._served.task)
        self.port = self._served.port
        log.info("display serving", extra={"url": self.url})

    @property
    def url(self) -> str:
        """The display's address: https:// where the config gives a certificate."""
        scheme = "https" if self.config.display.tls_cert else "http"
        return f"{scheme}://{self.config.display.host}:{self.port}/"

    async def stop(self) -> None:
        """Done whole though the caller be cancelled meanwhile (the table's link, its log, the display's socket
        left open otherwise), whose cancellation is then raised (`supervise.finish`); once: a stop called again
        (the tournament demo's, of a table whose restart it cancelled mid-stop) waits for the first."""
        if self._stop_run is None:
            self._stop_run = asyncio.ensure_future(self._stop())
        await finish(self._stop_run)

    async def _stop(self) -> None:
        from table_controller.web.serve import stop_tasks

        self.supervisor.stopping = True
        await stop_tasks(self._tasks, self._served)
        if self.controller is not None:
            await self.controller.stop()
        if self.sim is not None:
            await self.sim.close()
        if self._virtual_camera is not None:
            self._virtual_camera.stop()
            self._virtual_camera = None
        if self.mirror is not None:  # the last events (the controller's stop logs some) go over too
            await asyncio.to_thread(self.mirror.sync)
            self.mirror.close()
        if self.store is not None:
            self.store.close()
        if self._writer is not None:
            self._writer.release()

"""`tablectl demo --tables N`: a whole tournament on one machine, as at a venue but simulated.

A Mosquitto broker on a loopback port (each table its own user, as a venue runs it), the hub
(standings, seating) and N simulated tables whose players play round after round. Round 1 is
seated by the draw from a registration list of 4·N players. The demo's organiser publishes each
next round's seating as soon as every table has finished the round (its sheet final: MCR's 16
hands). Each table's demo referee then starts the round with the players the hub sent it.
Everything is the real code path: the tables publish over MQTT, the hub proposes and posts the
seating, the tables log it and start the round.

Supervised as systemd supervises a venue's tables (`supervise.py`): one process holds them all, and a table whose
essential part ended (its display, its link) or is stuck (`Supervisor.alive`) was left as it was, said by nobody
(an end by return was not even logged), its page frozen and the tournament waiting for its round for good. The
demo now says it (critical, Chinese first, naming the table) and starts that table again on its log and its
address, as `Restart=on-failure` would, the other tables playing on; a table that fails again and again
(`RESTART_BURST` within `RESTART_WINDOW_S`, systemd's start limit) is left stopped, said so, and shown offline
on the hub's page. Restarted rather than only shown: the demo is a venue's day in small, and a venue's table
comes back by itself. The hub's own essential parts ending ends the demo (exit 1): its page is the demo's.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from table_controller.supervise import Supervisor, finish
from table_controller.tournament.broker_config import HUB_USER

log = logging.getLogger("table_controller.tournament.demo")

TOURNAMENT = "demo-cup"
#: What the demo's page and seating call it (the id is no one's word)
TITLE = "麻将比赛演示"
#: Registration names for the demo's players (surname + given name), enough for 16 tables.
SURNAMES = "王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘于蒋蔡余杜叶程苏魏吕丁任沈"
GIVEN = ("伟", "芳", "娜", "敏", "静", "强", "磊", "军", "洋", "勇", "艳", "杰", "涛", "明", "超", "霞")


#: How often each table is looked at (`Supervisor.alive`: its display answers, its link shows life), seconds.
TABLE_CHECK_S = 5.0
#: A table restarted this many times within `RESTART_WINDOW_S` is left stopped (the units' StartLimitBurst=5 in 120 s).
RESTART_BURST = 5
RESTART_WINDOW_S = 120.0


class TournamentDemoError(RuntimeError):
    """The demo cannot start (no Mosquitto, a port in use); the text says what to do."""


def demo_players(count: int) -> list[dict[str, str]]:
    """`count` registered players with numbers D001… and distinct Chinese names."""
    return [{"id": f"D{i + 1:03d}", "name": SURNAMES[i % len(SURNAMES)] + GIVEN[(i * 7) % len(GIVEN)]}
            for i in range(count)]


@dataclass
class TournamentDemo:
    """The broker, the hub and the tables; `start()` brings them up, `stop()` ends them."""

    tables: int
    data_dir: Path
    host: str = "127.0.0.1"
    port: int = 8080
    ruleset: str = "mcr"
    seed: int = 1
    speed: float = 6.0
    turn_seconds: float = 1.0
    hand_seconds: float = 20.0
    hub: Any = None
    services: list[Any] = field(default_factory=list)
    _broker: Any = None
    _organiser: asyncio.Task[None] | None = None
    _watching: asyncio.Task[None] | None = None
    #: the stop under way or done (`stop`)
    _stop_run: asyncio.Future[None] | None = None
    #: each table's restarts (monotonic times), by its place in `services`
    _restarts: dict[int, list[float]] = field(default_factory=dict)
    #: the tables left stopped after too many restarts, by their place in `services`
    given_up: set[int] = field(default_factory=set)
    #: the hub's parts (its page is the demo's): one ending ends the demo (`runner.serve_until_signalled`)
    supervisor: Supervisor = field(default_factory=lambda: Supervisor("演示赛事", "the tournament demo"))
    #: the organiser's credential for the hub's publish button (printed at the start: without it
    #: nobody could publish a seating by hand in the demo)
    organizer_token: str = field(default_factory=lambda: secrets.token_urlsafe(16))

    async def start(self) -> None:
        from table_controller.config import ConfigError, parse_config
        from table_controller.service import TableService
        from table_controller.tournament.pairing import propose, with_registered
        from table_controller.tournament.web import HubService

        if self.tables < 2:
            raise TournamentDemoError("a tournament demo needs at least 2 tables")
        players = demo_players(4 * self.tables)
        table_ids = [(f"t{k + 1:02d}", f"{k + 1}号桌") for k in range(self.tables)]
        files = self._start_broker([t for t, _ in table_ids])
        url = self._broker.url
        self.hub = HubService(url, TOURNAMENT, self.data_dir / "hub", host=self.host, port=self.port,
                              organizer_token=self.organizer_token, registered=players, username=HUB_USER,
                              password=files.password(HUB_USER), expected=[t for t, _ in table_ids],
                              names=dict(table_ids), title=TITLE, supervisor=self.supervisor)
        await self.hub.start()
        first = propose(with_registered([], players, TOURNAMENT), table_ids, 1, seed=TOURNAMENT).to_json()
        for k, t in enumerate(first["tables"]):
            try:
                config = parse_config({
                    "table": {"link": "sim://", "sim_seed": self.seed + k, "sim_speed": self.speed,
                              "name": t["table_name"]},
                    "rules": {"ruleset": self.ruleset},
                    "players": [{"position": int(c), "name": p["name"], "id": p["id"]} for c, p in t["seats"].items()],
                    "display": {"host": self.host, "port": 0},
                    "demo": {"autoplay": True, "hand_seconds": self.hand_seconds, "turn_seconds": self.turn_seconds},
                    "tournament": {"broker": url, "name": TOURNAMENT, "table_id": t["table_id"],
                                   "username": t["table_id"], "password": files.password(t["table_id"])},
                }, source="tablectl demo --tables")
            except ConfigError as exc:  # the broker and the hub are up: a traceback left Mosquitto running
                raise TournamentDemoError(str(exc)) from None
            service = TableService(config, self.data_dir / t["table_id"])
            await service.start()
            self.services.append(service)
        self._organiser = asyncio.create_task(self._organise(), name="demo-organiser")
        self._watching = asyncio.create_task(self._supervise(), name="demo-tables")

    async def _supervise(self) -> None:
        """Each table: an essential part ended (its supervisor says so at once) or found stuck or not answering
        (looked at every `TABLE_CHECK_S`): said and started again (`_restart`)."""
        while True:
            failing = [asyncio.ensure_future(s.supervisor.failed.wait()) for k, s in enumerate(self.services)
                       if k not in self.given_up]
            if not failing:
                return  # every table left stopped: nothing more to watch (the hub and its standings stay)
            try:
                await asyncio.wait(failing, timeout=TABLE_CHECK_S, return_when=asyncio.FIRST_COMPLETED)
            finally:
                for waiting in failing:
                    waiting.cancel()
            for k, service in enumerate(self.services):
                if k in self.given_up:
                    continue
                try:
                    served = await service.supervisor.alive()
                except Exception:  # a bug here must not leave every table unwatched
                    log.exception("demo table check failed")
                    continue
                if not served:
                    await self._restart(k)

    async def _restart(self, k: int) -> None:
        """Table `k` is no longer served: said (critical, Chinese first), stopped in order, and started again on its
        log and its address; left stopped after `RESTART_BURST` restarts within `RESTART_WINDOW_S`."""
        import time

        from table_controller.service import TableService

        old = self.services[k]
        name = old.config.table.name
        zh, en = old.supervisor.why()
        now = time.monotonic()
        restarts = self._restarts.setdefault(k, [])
        restarts[:] = [t for t in restarts if now - t < RESTART_WINDOW_S]
        if len(restarts) >= RESTART_BURST:
            self.given_up.add(k)
            self._say(f"{name}中断：{zh}；{RESTART_WINDOW_S:g} 秒内已重启 {len(restarts)} 次，不再重启，其余牌桌继续 / "
                      f"table {name} is no longer served: {en}; restarted {len(restarts)} times within "
                      f"{RESTART_WINDOW_S:g} s, left stopped, the other tables play on", name)
            await old.stop()  # its publisher's goodbye: the hub's page shows it offline
            return
        restarts.append(now)
        self._say(f"{name}中断：{zh}；正在重新启动该牌桌 / table {name} is no longer served: {en}; starting it again",
                  name)
        await old.stop()
        config = old.config.model_copy(update={"display": old.config.display.model_copy(
            update={"port": old.port or old.config.display.port})})  # the address its pages have open
        fresh = TableService(config, old.data_dir)
        try:
            await fresh.start()
        except asyncio.CancelledError:  # the demo stopping meanwhile: nothing of it left running
            await fresh.stop()
            raise
        except Exception as exc:
            self.given_up.add(k)
            self._say(f"{name}无法重新启动：{exc}，其余牌桌继续 / table {name} cannot start again: {exc}; the other "
                      "tables play on", name, exc_info=True)
            await fresh.stop()
            return
        self.services[k] = fresh

    def _start_broker(self, table_ids: list[str]) -> Any:
        """The broker as at a venue: each table its own user, allowed only its own topics
        (`broker_config`); returns the files, whose passwords the hub and the tables log in with."""
        from table_controller.tournament.broker import BrokerError, LocalBroker, free_port
        from table_controller.tournament.broker_config import write

        port = free_port()
        files = write(self.data_dir / "broker" / "users", f"mqtt://127.0.0.1:{port}", TOURNAMENT, table_ids)
        self._broker = LocalBroker(self.data_dir / "broker", auth=files, port=port, own_group=True)
        try:
            self._broker.start()
        except BrokerError as exc:
            raise TournamentDemoError(str(exc)) from None
        return files

    def round_over(self) -> int | None:
        """The round every table in service has finished (its sheet final at the hub), or None. A
        table the organiser took out of service (docs/tournament.md) stays at its last round: counted,
        no next round was ever published again."""
        hub = self.hub.hub
        standings = hub.standings()["tables"]
        playing = [t for t in standings if not t.get("out")]
        if len(standings) < self.tables or not playing or not all(t["final"] for t in playing):
            return None
        rounds = {t["round"] for t in playing}
        return rounds.pop() if len(rounds) == 1 else None

    async def _organise(self) -> None:
        """The organiser: once every table has finished a round, publish the next one's seating."""
        while True:
            await asyncio.sleep(1.0)
            try:
                done = self.round_over()
                published = self.hub.hub.published()
                if done is not None and (published is None or published["round"] <= done):
                    seating = self.hub.hub.publish_seating(done + 1)
                    log.info("demo organiser published a seating", extra={"round": seating["round"]})
            except Exception:  # a bug here must not stop the demo's tables
                log.exception("demo organiser failed; trying again")

    @staticmethod
    def _say(message: str, table: str, exc_info: bool = False) -> None:
        """The journal's critical line, and the demo's terminal: whoever runs it sees the table go and come back."""
        import sys

        log.critical(message, exc_info=exc_info, extra={"table": table})
        print(f"tablectl demo: {message}", file=sys.stderr, flush=True)

    async def stop(self) -> None:
        """The watch and the organiser first (a table's restart under way ends there: its stop done whole, no new
        table started), then the tables, the hub and the broker last. Done whole though the caller be cancelled
        meanwhile, whose cancellation is then raised (`supervise.finish`, as the tables' and the hub's own stops):
        a Ctrl-C again during the first table's stop left the other tables, the hub and Mosquitto running. Once: a
        stop called again waits for the first."""
        if self._stop_run is None:
            self._stop_run = asyncio.ensure_future(self._stop())
        await finish(self._stop_run)

    async def _stop(self) -> None:
        for task in (self._watching, self._organiser):
            if task is not None:
                task.cancel()
                await asyncio.gather(task, return_exceptions=True)
        for k, service in enumerate(self.services):
            if k not in self.given_up:
                await service.stop()
        if self.hub is not None:
            await self.hub.stop()
        if self._broker is not None:
            self._broker.stop()

    @property
    def urls(self) -> list[str]:
        return [f"http://{self.host}:{self.hub.bound_port}/"] + [s.url for s in self.services]

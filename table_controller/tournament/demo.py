"""`tablectl demo --tables N`: a whole tournament on one machine, as at a venue but simulated.

A Mosquitto broker on a loopback port (each table its own user, as a venue runs it), the hub
(standings, seating) and N simulated tables whose players play round after round. Round 1 is
seated by the draw from a registration list of 4·N players. The demo's organiser publishes each
next round's seating as soon as every table has finished the round (its sheet final: MCR's 16
hands). Each table's demo referee then starts the round with the players the hub sent it.
Everything is the real code path: the tables publish over MQTT, the hub proposes and posts the
seating, the tables log it and start the round.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from table_controller.tournament.broker_config import HUB_USER

log = logging.getLogger("table_controller.tournament.demo")

TOURNAMENT = "demo-cup"
#: What the demo's page and seating call it (the id is no one's word)
TITLE = "麻将比赛演示"
#: Registration names for the demo's players (surname + given name), enough for 16 tables.
SURNAMES = "王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘于蒋蔡余杜叶程苏魏吕丁任沈"
GIVEN = ("伟", "芳", "娜", "敏", "静", "强", "磊", "军", "洋", "勇", "艳", "杰", "涛", "明", "超", "霞")


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
                              names=dict(table_ids), title=TITLE)
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

    async def stop(self) -> None:
        if self._organiser is not None:
            self._organiser.cancel()
            await asyncio.gather(self._organiser, return_exceptions=True)
        for service in self.services:
            await service.stop()
        if self.hub is not None:
            await self.hub.stop()
        if self._broker is not None:
            self._broker.stop()

    @property
    def urls(self) -> list[str]:
        return [f"http://{self.host}:{self.hub.bound_port}/"] + [s.url for s in self.services]

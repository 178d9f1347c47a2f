"""Test helpers: a real Mosquitto on a free loopback port (stoppable, restartable), a raw wire tap, polling."""

from __future__ import annotations

import asyncio
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import aiomqtt

from table_controller.tournament.broker import MOSQUITTO, LocalBroker, free_port  # noqa: F401

# The broker the tournament demo runs, on a free loopback port (stoppable, restartable)
Broker = LocalBroker


class Wire:
    """A raw MQTT client subscribed to everything: what actually went over the broker."""

    def __init__(self) -> None:
        self.messages: list[tuple[str, bytes, bool]] = []
        self.client: aiomqtt.Client | None = None


async def until(predicate: Callable[[], Any], timeout: float = 10.0, what: str = "") -> Any:
    """Poll `predicate` until it is truthy; fail with `what` after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what or predicate}")
        await asyncio.sleep(0.05)


class ThrowawayCA:
    """A throwaway certificate authority (openssl) and a broker certificate it signed for
    127.0.0.1, as a tournament would make for its own broker."""

    def __init__(self, workdir: Path, name: str = "ca") -> None:
        workdir.mkdir(parents=True, exist_ok=True)
        self.ca, self.cert, self.key = workdir / f"{name}.pem", workdir / f"{name}-server.pem", workdir / f"{name}-server.key"
        ca_key, csr, ext = workdir / f"{name}.key", workdir / f"{name}.csr", workdir / f"{name}.ext"
        ext.write_text("subjectAltName=IP:127.0.0.1,DNS:localhost\n")
        ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        for cmd in (["req", "-x509", *ec, "-keyout", ca_key, "-out", self.ca, "-days", "2", "-subj", f"/CN=Test {name}"],
                    ["req", *ec, "-keyout", self.key, "-out", csr, "-subj", "/CN=127.0.0.1"],
                    ["x509", "-req", "-in", csr, "-CA", self.ca, "-CAkey", ca_key, "-CAcreateserial", "-out", self.cert,
                     "-days", "2", "-extfile", ext]):
            subprocess.run(["openssl", *map(str, cmd)], check=True, capture_output=True)


async def start_tables(broker_url: str, tmp_path: Path, players: dict[str, Any], referee_token: str = "ref") -> list[Any]:
    """Real tables of the built-in simulator (fast), one per table id with its four players' names, each
    publishing to the tournament `cup` at `broker_url`; started, in the order given."""
    from table_controller.config import parse_config
    from table_controller.service import TableService

    tables = []
    for table_id, names in players.items():
        svc = TableService(parse_config({
            "table": {"link": "sim://", "sim_speed": 1000.0, "name": f"{table_id}号桌"},
            "players": [{"position": i + 1, "name": n} for i, n in enumerate(names)],
            "display": {"port": 0, "operator_token": "op", "referee_token": referee_token},
            "tournament": {"broker": broker_url, "name": "cup", "table_id": table_id},
        }, source="test"), tmp_path / table_id)
        await svc.start()
        tables.append(svc)
    return tables

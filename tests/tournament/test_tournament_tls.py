"""A tournament over TLS (mqtts://): a real Mosquitto with a certificate from a throwaway CA, a real
table and hub that check it, and what happens when the certificate is not the one they trust.

At a venue the broker is reached over a shared network; TLS keeps the tables' events from being
read or forged on the way, and the CA file keeps a table from talking to a broker posing as the
tournament's.
"""

from __future__ import annotations

import ssl
from pathlib import Path
from typing import Any

import aiomqtt
import pytest
from tournament_helpers import Broker, ThrowawayCA, until

from table_controller.config import ConfigError, parse_config
from table_controller.service import TableService
from table_controller.tournament.web import HubService
from table_controller.tournament.wire import DEFAULT_TLS_PORT, WireError, check_ca_file, parse_broker, tls_context

TOURNAMENT = "cup"


@pytest.fixture
def tls_broker(tmp_path: Path):  # type: ignore[no-untyped-def]
    ca = ThrowawayCA(tmp_path / "pki")
    b = Broker(tmp_path, tls=ca)
    b.start()
    try:
        yield b, ca
    finally:
        b.stop()


def _config(broker: str, ca_file: str) -> Any:
    return parse_config({
        "table": {"link": "sim://", "sim_seed": 1, "sim_speed": 100.0, "name": "1号桌"},
        "players": [{"position": i + 1, "name": n} for i, n in enumerate(["甲", "乙", "丙", "丁"])],
        "display": {"port": 0, "operator_token": "op", "referee_token": "ref"},
        "tournament": {"broker": broker, "name": TOURNAMENT, "table_id": "t1", "ca_file": ca_file},
    }, source="test")


def _penalty(service: TableService, seat: str, victim: str, amount: int) -> None:
    service.controller.referee_action("referee.penalty", {"seat": seat, "code": "exposed_other", "amount": amount,
                                                          "victim": victim}, by="referee")


async def test_table_and_hub_talk_over_tls_and_a_plain_client_is_turned_away(tmp_path: Path, tls_broker) -> None:  # type: ignore[no-untyped-def]
    broker, ca = tls_broker
    hub = HubService(broker.url, TOURNAMENT, tmp_path / "hub", port=0, ca_file=str(ca.ca))
    await hub.start()
    table = TableService(_config(broker.url, str(ca.ca)), tmp_path / "t1")
    await table.start()
    try:
        await table.controller.wait_linked(10)
        await until(lambda: hub.hub.connected, 10, "the hub to connect over TLS")
        _penalty(table, "S", "W", 15)
        logged = [ev.seq for ev in table.store.since(0)]
        await until(lambda: "t1" in hub.hub.tables and [e["seq"] for e in hub.hub.tables["t1"].events(0, 10**6)]
                    [:len(logged)] == logged, 10, "the hub to hold the table's events")
        assert table.publisher.health()["connected"] and table.publisher.tls is not None

        # the listener speaks TLS only: a client without it never gets a session. It is given 0.5 s (was 2, all
        # waited out: the listener holds the plain bytes as the start of a TLS record): a plain listener gives a
        # plain client its session and takes its message in 1-16 ms here, on the loaded machine
        with pytest.raises(aiomqtt.MqttError):
            async with aiomqtt.Client("127.0.0.1", broker.port, identifier="plain", timeout=0.5) as client:
                await client.publish(f"mahjong/{TOURNAMENT}/t1/events", b"forged", qos=1)
        assert hub.hub.malformed == 0
    finally:
        await table.stop()
        await hub.stop()


async def test_a_broker_with_a_certificate_from_another_ca_is_refused_and_the_table_plays_on(
        tmp_path: Path, tls_broker) -> None:  # type: ignore[no-untyped-def]
    broker, _ = tls_broker
    stranger = ThrowawayCA(tmp_path / "other", name="other")
    table = TableService(_config(broker.url, str(stranger.ca)), tmp_path / "t1")
    await table.start()
    try:
        await table.controller.wait_linked(10)
        await until(lambda: "certificate" in table.publisher.health()["error"].lower(), 15,
                    "the publisher to refuse the broker's certificate")
        _penalty(table, "E", "N", 20)  # the table plays on and keeps its log for later
        health = table.controller.health_report()["tournament"]
        assert health["connected"] is False and health["backlog"] >= 1 and "中断" in health["message"]
    finally:
        await table.stop()


def test_broker_urls_and_ca_files_are_checked_when_read(tmp_path: Path) -> None:
    assert parse_broker("mqtts://broker.local") == ("broker.local", DEFAULT_TLS_PORT, True)
    assert parse_broker("mqtt://10.0.0.2:1884") == ("10.0.0.2", 1884, False)
    with pytest.raises(WireError, match="mqtts://"):
        parse_broker("https://broker.local")
    assert isinstance(tls_context(), ssl.SSLContext)  # no file: the system's CAs
    bad = tmp_path / "ca.pem"
    bad.write_text("not a certificate\n")
    with pytest.raises(WireError, match="ca.pem"):
        check_ca_file("mqtts://broker.local", str(bad))
    ca = ThrowawayCA(tmp_path / "pki")
    with pytest.raises(WireError, match="mqtts://"):
        check_ca_file("mqtt://broker.local", str(ca.ca))  # a CA file with a plain broker is a mistake
    assert _config("mqtts://127.0.0.1:8883", str(ca.ca)).tournament.ca_file == str(ca.ca)
    for broker, ca_file, what in (("mqtts://127.0.0.1", str(tmp_path / "missing.pem"), "missing.pem"),
                                  ("mqtt://127.0.0.1", str(ca.ca), "mqtts://")):
        with pytest.raises(ConfigError, match=what):
            _config(broker, ca_file)

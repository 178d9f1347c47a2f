"""Each table its own broker user (`tablectl broker-config`): a real Mosquitto on the generated
password file and access list. A table reaches the hub; with its password nobody can write another
table's results or a seating, nor read another table's topics; without a password nobody connects."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import socket
import ssl
import stat
import subprocess
import tomllib
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiomqtt
import pytest
from tournament_helpers import MOSQUITTO, Broker, until

from table_controller.cli import main as tablectl
from table_controller.config import parse_config
from table_controller.service import TableService
from table_controller.tournament import broker_config
from table_controller.tournament.broker import free_port
from table_controller.tournament.web import HubService
from table_controller.tournament.wire import SeatingMsg, WireError, encode

TOURNAMENT = "cup"


def _event(table_id: str, seq: int = 1) -> bytes:
    return json.dumps({"v": 1, "tournament": TOURNAMENT, "table_id": table_id, "seq": seq, "prev": seq - 1,
                       "at": 1.0, "source": "operator", "type": "operator.note", "data": {"text": "伪造"}}).encode()


def _seating(table_id: str, names: str) -> bytes:
    return encode(SeatingMsg(v=1, tournament=TOURNAMENT, table_id=table_id, round=2, at=1.0, table_name="1号桌",
                             players={str(i + 1): n for i, n in enumerate(names)}))


def test_table_ids_from_a_count_or_a_list() -> None:
    assert broker_config.table_ids("3") == ["t01", "t02", "t03"]
    assert broker_config.table_ids("t1, final") == ["t1", "final"]
    for bad, why in (("0", "between 1 and 999"), ("t1,t1", "twice"), ("t1,hub", "hub"), ("a b", "table id"),
                     (",", "number of tables")):
        with pytest.raises(WireError, match=why):
            broker_config.table_ids(bad)


def test_broker_config_takes_the_hubs_form_of_the_tables_with_their_names(tmp_path: Path, capsys: Any) -> None:
    """`--tables t01=一号桌,t02=二号桌,t03`, as `tablectl hub` takes it: it was refused ("use 1-64 ASCII
    letters"), so the organiser typed the list twice; the users are the ids, and the hub's line keeps the names."""
    out = tmp_path / "venue"
    assert tablectl(["broker-config", "--broker", "mqtt://10.0.0.2:1883", "--tournament", TOURNAMENT,
                     "--tables", "t01=一号桌,t02=二号 桌,t03", "--out", str(out)]) == 0
    said = capsys.readouterr().out
    assert "--tables 't01=一号桌,t02=二号 桌,t03'" in said and "t01 一号桌, t02 二号 桌" in said, said
    assert sorted(p.name for p in (out / "tables").iterdir()) == ["t01.toml", "t02.toml", "t03.toml"]
    assert [line.split(":")[0] for line in (out / "mosquitto" / "passwd").read_text().splitlines()] == \
        ["hub", "t01", "t02", "t03"]


def test_files_are_private_and_a_second_run_keeps_every_password(tmp_path: Path, capsys: Any) -> None:
    out = tmp_path / "venue"
    assert tablectl(["broker-config", "--broker", "mqtt://10.0.0.2:1883", "--tournament", TOURNAMENT,
                     "--tables", "2", "--out", str(out)]) == 0
    files = broker_config.BrokerFiles(out, ("t01", "t02"), ())
    first = {user: files.password(user) for user in ("hub", "t01", "t02")}
    env = (out / "hub.env").read_text()
    for path in (files.passwd, files.table_config("t01"), out / "hub.env"):
        assert stat.S_IMODE(os.stat(path).st_mode) == 0o600, path
    section = tomllib.loads(files.table_config("t02").read_text())["tournament"]
    assert section == {"broker": "mqtt://10.0.0.2:1883", "name": TOURNAMENT, "table_id": "t02", "username": "t02",
                       "password": first["t02"]}
    parse_config({"tournament": section}, source="t02.toml")  # a table's config takes it as it is
    assert "listener 1883 0.0.0.0" in files.conf.read_text() and "allow_anonymous false" in files.conf.read_text()
    assert first["t01"] not in files.passwd.read_text()  # hashes only
    # a table added later: the others' passwords and the organiser's credential stay as given out
    assert tablectl(["broker-config", "--broker", "mqtt://10.0.0.2:1883", "--tournament", TOURNAMENT,
                     "--tables", "t03", "--out", str(out)]) == 0
    assert "new users: t03" in capsys.readouterr().out
    assert {user: files.password(user) for user in first} == first and files.password("t03") not in first.values()
    assert [line.split(":")[0] for line in files.passwd.read_text().splitlines()] == ["hub", "t01", "t02", "t03"]
    assert (out / "hub.env").read_text() == env
    # a TLS listener needs an mqtts:// broker
    assert tablectl(["broker-config", "--broker", "mqtt://10.0.0.2", "--tournament", TOURNAMENT, "--tables", "1",
                     "--tls-dir", "/etc/mosquitto/certs", "--out", str(out)]) == 2
    assert "mqtts://" in capsys.readouterr().err
    # and an mqtts:// broker a TLS listener: before, its conf had `listener 8883` speaking plain MQTT,
    # which every table (connecting with TLS) failed to reach
    tls_out = tmp_path / "tls-venue"
    assert tablectl(["broker-config", "--broker", "mqtts://10.0.0.2:8883", "--tournament", TOURNAMENT, "--tables", "1",
                     "--out", str(tls_out)]) == 2
    assert "needs --tls-dir" in capsys.readouterr().err and not tls_out.exists()


@dataclass
class Venue:
    """A broker from broker-config's files, the hub and table t01 as their users (t02's password unused)."""
    port: int
    files: Any
    broker: Broker
    table: TableService
    hub: HubService


@contextlib.asynccontextmanager
async def _venue(tmp_path: Path) -> AsyncIterator[Venue]:
    """The venue's broker started; the hub and t01 built (each test starts them); all stopped after."""
    if not Path(MOSQUITTO).exists():
        pytest.fail("mosquitto is not installed (Debian package `mosquitto`, listed in apt-packages.txt)")
    port = free_port()
    url = f"mqtt://127.0.0.1:{port}"
    files = broker_config.write(tmp_path / "venue", url, TOURNAMENT, ["t01", "t02"])
    broker = Broker(tmp_path / "broker", auth=files, port=port)
    broker.start()
    section = tomllib.loads(files.table_config("t01").read_text())["tournament"]
    table = TableService(parse_config({
        "table": {"link": "sim://", "sim_speed": 100.0, "name": "1号桌"},
        "display": {"port": 0, "operator_token": "op", "referee_token": "ref"},
        "tournament": section}, source="t01.toml"), tmp_path / "t01")
    hub = HubService(url, TOURNAMENT, tmp_path / "hub", port=0, username="hub", password=files.password("hub"))
    try:
        yield Venue(port, files, broker, table, hub)
    finally:
        await table.stop()
        await hub.stop()
        broker.stop()


async def test_each_table_writes_only_its_own_topics(tmp_path: Path) -> None:
    async with _venue(tmp_path) as v:
        port, files, table, hub = v.port, v.files, v.table, v.hub
        seen: list[tuple[str, bytes]] = []
        await hub.start()
        await table.start()
        await until(lambda: hub.hub.tables.get("t01") and hub.hub.tables["t01"].state, 10, "t01 at the hub")
        # its word that it is connected passes the access list too (and so will its will)
        await until(lambda: hub.hub.tables["t01"].online_reason == "connected", 5, "t01 online at the hub")

        async with aiomqtt.Client("127.0.0.1", port, username="hub", password=files.password("hub"),
                                  identifier="tap") as tap, \
                aiomqtt.Client("127.0.0.1", port, username="t02", password=files.password("t02"),
                               identifier="forger") as forger:
            await tap.subscribe(f"mahjong/{TOURNAMENT}/#", qos=1)
            with contextlib.suppress(aiomqtt.MqttError):  # refused, or granted and never delivered
                await forger.subscribe(f"mahjong/{TOURNAMENT}/t01/#", qos=1)
            stolen: list[str] = []

            async def read(client: aiomqtt.Client, into: list[Any]) -> None:
                async for m in client.messages:
                    into.append((str(m.topic), bytes(m.payload) if isinstance(m.payload, bytes) else b""))

            readers = [asyncio.create_task(read(tap, seen)), asyncio.create_task(read(forger, stolen))]
            held = [e["seq"] for e in hub.hub.tables["t01"].events(0, 10000)]
            # t02's password: t01's results, a seating for t01 and for itself, another table's replay
            for topic, payload in ((f"mahjong/{TOURNAMENT}/t01/events", _event("t01", held[-1] + 1)),
                                   (f"mahjong/{TOURNAMENT}/t01/state", b"{}"),
                                   (f"mahjong/{TOURNAMENT}/t01/seating", _seating("t01", "伪甲伪乙伪丙伪丁"[::2])),
                                   (f"mahjong/{TOURNAMENT}/t02/seating", _seating("t02", "甲乙丙丁")),
                                   (f"mahjong/{TOURNAMENT}/t01/online", json.dumps(
                                       {"v": 1, "tournament": TOURNAMENT, "table_id": "t01", "online": False,
                                        "reason": "lost", "at": 0.0}).encode()),
                                   (f"mahjong/{TOURNAMENT}/everyone", b"x")):
                await forger.publish(topic, payload, qos=1)
            await forger.publish(f"mahjong/{TOURNAMENT}/t02/events", _event("t02"), qos=1)  # its own: goes through
            await until(lambda: any(t.endswith("/t02/events") for t, _ in seen), 5, "t02's own event")
            # the hub's user may post a seating; the table takes it
            await tap.publish(f"mahjong/{TOURNAMENT}/t01/seating", _seating("t01", "戊己庚辛"), qos=1, retain=True)
            await until(lambda: table.controller.state.seating_offer, 5, "the hub's seating at t01")
            # t01's play goes out and the hub files it; t02's user reads none of it
            table.controller.referee_action("referee.penalty", {"seat": "E", "code": "exposed_other", "amount": 5,
                                                                "victim": "S"}, by="referee")
            await until(lambda: len(hub.hub.tables["t01"].events(0, 10000)) > len(held), 5, "t01's penalty")
            await until(lambda: sum(t.endswith("/t01/events") for t, _ in seen) >= 1, 5, "t01's events at the tap")
            await asyncio.sleep(0.3)
            for task in readers:
                task.cancel()
            await asyncio.gather(*readers, return_exceptions=True)

        forged = [t for t, p in seen if "伪".encode() in p or t.endswith("/t01/state") and p == b"{}"
                  or t.endswith("/everyone") or t.endswith("/t02/seating")]
        assert forged == [] and stolen == []
        assert not any(t.endswith("/t01/online") and b'"lost"' in p for t, p in seen)
        assert hub.hub.tables["t01"].online_reason == "connected" and not hub.hub.tables["t01"].alerts
        assert table.controller.state.seating_offer["players"] == {"1": "戊", "2": "己", "3": "庚", "4": "辛"}
        assert [e["seq"] for e in hub.hub.tables["t01"].events(0, 10000)] == [ev.seq for ev in table.store.since(0)]
        assert hub.hub.conflicts == 0 and hub.hub.tables["t01"].state["table_name"] == "1号桌"

        # nobody connects without a password, or with another's
        for user, pw in ((None, None), ("t01", files.password("t02")), ("hub", "guess")):
            with pytest.raises(aiomqtt.MqttError):
                async with aiomqtt.Client("127.0.0.1", port, username=user, password=pw, identifier="stranger"):
                    pass


async def test_a_user_name_other_than_the_table_id_is_warned_of(tmp_path: Path, caplog: Any) -> None:
    """Such a broker drops what the table sends without telling it; the log says so at start."""
    table = TableService(parse_config({
        "table": {"link": "sim://", "sim_speed": 100.0},
        "display": {"port": 0, "operator_token": "op", "referee_token": "ref"},
        "tournament": {"broker": f"mqtt://127.0.0.1:{free_port()}", "name": TOURNAMENT, "table_id": "t01",
                       "username": "tables", "password": "x"}}, source="test"), tmp_path / "t01")
    with caplog.at_level("WARNING", logger="table_controller.tournament"):
        await table.start()
        await table.stop()
    warned = [r for r in caplog.records if "not the table id" in r.getMessage()]
    assert len(warned) == 1 and warned[0].username == "tables"


async def test_the_generated_mosquitto_conf_itself_serves_tls_to_the_tables_users(tmp_path: Path) -> None:
    """The files a venue installs, as written: Mosquitto started on `tournament.conf` (TLS from
    `--tls-dir`, the password file and access list where `install_dir` says), a table connecting
    over mqtts:// with its section's user, CA and password; a wrong password refused."""
    import shutil

    from tournament_helpers import ThrowawayCA

    if not Path(MOSQUITTO).exists():
        pytest.fail("mosquitto is not installed (Debian package `mosquitto`, listed in apt-packages.txt)")
    ca = ThrowawayCA(tmp_path / "pki")
    certs = tmp_path / "certs"
    certs.mkdir()
    for src, name in ((ca.ca, "ca.pem"), (ca.cert, "broker.pem"), (ca.key, "broker.key")):
        shutil.copy(src, certs / name)
    port = free_port()
    venue = tmp_path / "venue"
    files = broker_config.write(venue, f"mqtts://127.0.0.1:{port}", TOURNAMENT, ["t01"], ca_file=str(ca.ca),
                                tls_dir=str(certs), install_dir=str(venue / "mosquitto"), host="127.0.0.1")
    conf = files.conf.read_text()
    assert f"listener {port} 127.0.0.1" in conf and f"cafile {certs}/ca.pem" in conf
    run_conf = tmp_path / "run.conf"  # as installed; root (this test) keeps its own user to read the tmp dir
    run_conf.write_text(conf + "user root\n")
    log = (tmp_path / "mosquitto.log").open("wb")
    proc = subprocess.Popen([MOSQUITTO, "-c", str(run_conf)], stdout=log, stderr=subprocess.STDOUT)
    try:
        for _ in range(100):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                await asyncio.sleep(0.05)
        section = tomllib.loads(files.table_config("t01").read_text())["tournament"]
        assert section["ca_file"] == str(ca.ca) and section["broker"].startswith("mqtts://")
        tls = ssl.create_default_context(cafile=section["ca_file"])
        async with aiomqtt.Client("127.0.0.1", port, username="t01", password=section["password"], tls_context=tls,
                                  identifier="t01-tls") as client:
            await client.publish(f"mahjong/{TOURNAMENT}/t01/events", b"{}", qos=1)
        with pytest.raises(aiomqtt.MqttError):
            async with aiomqtt.Client("127.0.0.1", port, username="t01", password="wrong", tls_context=tls,
                                      identifier="t01-bad"):
                pass
    finally:
        proc.terminate()
        proc.wait(10)
        log.close()


async def test_one_tables_credential_cannot_push_a_huge_message_through_the_broker(tmp_path: Path) -> None:
    """The broker takes packets up to `broker_config.MAX_PACKET` (1 MiB; a round's standing is tens of
    KB): a 2 MB publish on a table's own topic gets that client disconnected and reaches no one."""
    if not Path(MOSQUITTO).exists():
        pytest.fail("mosquitto is not installed (Debian package `mosquitto`, listed in apt-packages.txt)")
    port = free_port()
    files = broker_config.write(tmp_path / "venue", f"mqtt://127.0.0.1:{port}", TOURNAMENT, ["t01"])
    assert f"max_packet_size {broker_config.MAX_PACKET}" in files.conf.read_text()  # the venue's broker too
    broker = Broker(tmp_path / "broker", auth=files, port=port)
    broker.start()
    got: list[int] = []
    try:
        async with aiomqtt.Client("127.0.0.1", port, username="hub", password=files.password("hub"),
                                  identifier="tap") as tap:
            await tap.subscribe(f"mahjong/{TOURNAMENT}/t01/events", qos=1)

            async def read() -> None:
                async for m in tap.messages:
                    got.append(len(m.payload) if isinstance(m.payload, bytes) else 0)

            reader = asyncio.create_task(read())
            topic = f"mahjong/{TOURNAMENT}/t01/events"
            async with aiomqtt.Client("127.0.0.1", port, username="t01", password=files.password("t01"),
                                      identifier="t01") as table:
                await table.publish(topic, b"x" * 100_000, qos=1)  # large but fair: goes through
            await until(lambda: got == [100_000], 5, "the fair message")
            with pytest.raises(aiomqtt.MqttError, match="Disconnected"):
                async with aiomqtt.Client("127.0.0.1", port, username="t01", password=files.password("t01"),
                                          identifier="t01-big") as table:
                    # aiomqtt's publish hears of the broker's hang-up only at its own timeout (it waited the
                    # 5 s out): the client's message stream says so at once, and a broker that took the
                    # message (and kept the client) leaves it silent until `wait_for` fails the test
                    sending = asyncio.create_task(table.publish(topic, b"x" * 2_000_000, qos=1, timeout=5))
                    try:
                        await asyncio.wait_for(anext(aiter(table.messages)), 5)
                    finally:
                        sending.cancel()
                        await asyncio.gather(sending, return_exceptions=True)
            await asyncio.sleep(0.5)
            reader.cancel()
            await asyncio.gather(reader, return_exceptions=True)
        assert got == [100_000]
    finally:
        broker.stop()


async def test_one_tables_password_cannot_throw_the_hub_or_another_table_off_the_broker(tmp_path: Path) -> None:
    """Mosquitto gives a client id to whoever connects with it last, whatever its user. The ids were
    `hub-<tournament>` and `table-<tournament>-<table id>`: with t02's password anyone could take them,
    and the hub went off the broker (its standings froze) and t01 with it (its will said "lost"). Each
    id now ends with a digest of its user's password: the ids anyone could write down take nothing."""
    async with _venue(tmp_path) as v:
        port, files, broker, table, hub = v.port, v.files, v.broker, v.table, v.hub
        await hub.start()
        await table.start()
        await until(lambda: hub.hub.tables.get("t01") and hub.hub.tables["t01"].online_reason == "connected", 10,
                    "t01 online at the hub")
        publisher = table.publisher
        assert publisher is not None and hub.hub.connected
        # the same ids at every start (the hub's persistent session waits under its own), never the bare ones
        assert hub.hub.client_id.startswith(f"hub-{TOURNAMENT}-") and len(hub.hub.client_id) == len("hub-cup-") + 12
        assert publisher.client_id.startswith(f"table-{TOURNAMENT}-t01-")
        down: list[str] = []

        async def watch() -> None:
            while True:
                if not hub.hub.connected:
                    down.append("hub")
                if not publisher.connected or hub.hub.tables["t01"].online_reason != "connected":
                    down.append("t01")
                await asyncio.sleep(0.01)

        watching = asyncio.create_task(watch())
        for identifier in (f"hub-{TOURNAMENT}", f"table-{TOURNAMENT}-t01") * 3:
            async with aiomqtt.Client("127.0.0.1", port, username="t02", password=files.password("t02"),
                                      identifier=identifier, clean_session=True):
                await asyncio.sleep(0.2)
        await asyncio.sleep(0.5)
        watching.cancel()
        await asyncio.gather(watching, return_exceptions=True)
        assert not down, sorted(set(down))  # who was thrown off the broker
        assert "closing old connection" not in broker.log.read_text(errors="replace")
        assert publisher.reconnects == 0 and not hub.hub.tables["t01"].alerts

"""`tablectl hub` as an operator runs it: a real process, a real broker, SIGTERM to stop."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from tournament_helpers import Broker, free_port

from table_controller.commands.hub import check, parse
from table_controller.config import REPO_ROOT
from table_controller.tournament.wire import WireError


@contextlib.contextmanager
def _hub(broker: Broker, port: int, data: Path, *more: str,
         env: dict[str, str] | None = None) -> Iterator[list[str]]:
    """`tablectl hub` as a process (`env` added to this one's): what it printed up to the standings'
    address; on leaving, it must stop cleanly on SIGTERM (exit 0)."""
    proc = subprocess.Popen([sys.executable, "-m", "table_controller.cli", "hub", "--broker", broker.url,
                             "--tournament", "cup", "--port", str(port), "--data-dir", str(data), *more],
                            cwd=REPO_ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            env={**os.environ, **(env or {})})
    try:
        assert proc.stdout is not None
        deadline, lines = time.monotonic() + 20, []
        while time.monotonic() < deadline:
            line = proc.stdout.readline()
            lines.append(line)
            if "standings:" in line or not line:
                break
        yield lines
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(10) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(5)


def test_hub_command_serves_standings_and_stops_cleanly(tmp_path: Path, broker: Broker) -> None:
    port = free_port()
    with _hub(broker, port, tmp_path / "hub") as lines:
        assert any(f":{port}/" in x for x in lines), lines
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/standings", timeout=5) as r:
            body = json.load(r)
        assert body["tournament"] == "cup" and body["players"] == [] and body["tables"] == []
    assert (tmp_path / "hub" / "cup" / "hub.sqlite3").exists()


def test_a_common_organiser_credential_is_said_at_start_without_showing_it(tmp_path: Path, broker: Broker) -> None:
    """The organiser's credential publishes every table's seating; 123456 started the hub without a word."""
    from table_controller.tournament import ORGANIZER_ENV
    for token, weak in (("123456", True), ("cup-org-5Tq8x", False)):
        with _hub(broker, free_port(), tmp_path / token, env={ORGANIZER_ENV: token}) as lines:
            assert any("standings:" in x for x in lines), lines
        said = [x for x in lines if x.startswith("凭证太弱")]
        assert bool(said) == weak and all(ORGANIZER_ENV in x and token not in x for x in said), lines


def test_hub_command_refuses_a_bad_broker_url() -> None:
    out = subprocess.run([sys.executable, "-m", "table_controller.cli", "hub", "--broker", "tcp://x:1",
                          "--tournament", "cup"], cwd=REPO_ROOT, capture_output=True, text=True, timeout=30)
    assert out.returncode == 2 and "mqtt://HOST:PORT" in out.stderr


@pytest.mark.parametrize("port", ["99999", "-1"])
def test_a_port_out_of_range_is_refused_before_anything_starts(port: str, capsys: pytest.CaptureFixture[str]) -> None:
    """`hub --port 99999` was a traceback from the page's bind, and `install-service --hub` wrote a unit
    that failed so at every start."""
    from table_controller.deploy import DeployError, hub_files

    argv = ["--broker", "mqtt://127.0.0.1:1883", "--tournament", "cup", f"--port={port}"]
    with pytest.raises(SystemExit) as exit_:
        parse(argv)
    assert exit_.value.code == 2 and "0..65535" in capsys.readouterr().err
    with pytest.raises(DeployError):
        hub_files(argv, Path("/usr/bin/tablectl"), "pi")


def test_hub_page_over_https_and_a_half_given_certificate_refused(tmp_path: Path, broker: Broker,
                                                                  self_signed: tuple[Path, Path]) -> None:
    """`--tls-cert` / `--tls-key`: the standings page (and the organiser's publish) over https."""
    import ssl

    cert, key = self_signed
    half = subprocess.run([sys.executable, "-m", "table_controller.cli", "hub", "--broker", broker.url,
                           "--tournament", "cup", "--tls-cert", str(cert)], cwd=REPO_ROOT, capture_output=True,
                          text=True, timeout=30)
    assert half.returncode == 2 and "go together" in half.stderr
    port = free_port()
    with _hub(broker, port, tmp_path / "hub", "--tls-cert", str(cert), "--tls-key", str(key)) as lines:
        assert any(f"https://127.0.0.1:{port}/" in x for x in lines), lines
        trusted = ssl.create_default_context(cafile=str(cert))
        with urllib.request.urlopen(f"https://127.0.0.1:{port}/api/standings", timeout=5, context=trusted) as r:
            assert json.load(r)["tournament"] == "cup"


async def test_a_hub_killed_outright_comes_back_with_everything(tmp_path: Path, broker: Broker) -> None:
    """SIGKILL the hub (a power cut at the organiser's desk) while a table plays on: restarted on the
    same files, it holds every event the table logged, once, and the table's current standing."""
    import asyncio
    import urllib.error

    from table_controller.config import parse_config
    from table_controller.service import TableService

    table = TableService(parse_config({
        "table": {"link": "sim://", "sim_speed": 100.0},
        "display": {"port": 0, "operator_token": "op", "referee_token": "ref"},
        "tournament": {"broker": broker.url, "name": "cup", "table_id": "t1"}}, source="test"), tmp_path / "t1")
    port = free_port()
    args = [sys.executable, "-m", "table_controller.cli", "hub", "--broker", broker.url, "--tournament", "cup",
            "--port", str(port), "--data-dir", str(tmp_path / "hub")]

    def standing() -> dict:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/standings", timeout=2) as r:
            return json.load(r)

    async def until(check, what: str, timeout: float = 20.0):  # type: ignore[no-untyped-def]
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                if got := check():
                    return got
            except (urllib.error.URLError, ConnectionError, KeyError, IndexError):
                pass
            await asyncio.sleep(0.1)
        raise AssertionError(f"timed out: {what}")

    def penalty(seat: str, victim: str) -> None:
        table.controller.referee_action("referee.penalty", {"seat": seat, "code": "exposed_other", "amount": 5,
                                                            "victim": victim}, by="referee")

    # The hub on the broker first, its session (kept while it is away) there before the table's first event:
    # the table's opening events went out before anyone listened, and the restarted hub waited out its gap
    # grace and a replay (~3 s) for them; here what the table logs while the hub is dead waits at the broker.
    hub = subprocess.Popen(args, cwd=REPO_ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        await until(lambda: standing()["hub"]["connected"], "the hub on the broker")
        await table.start()
        try:
            await table.controller.wait_linked(10)
            penalty("S", "W")
            await until(lambda: standing()["tables"][0]["seq"] == table.controller.state.seq, "the hub in step")
            hub.send_signal(signal.SIGKILL)
            hub.wait(10)
            for seat, victim in (("E", "N"), ("W", "S"), ("N", "E")):
                penalty(seat, victim)  # the table plays on while the hub is dead
            hub = subprocess.Popen(args, cwd=REPO_ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            last = table.controller.state.seq
            st = await until(lambda: (s := standing())["tables"][0]["seq"] == last
                             and s["tables"][0]["complete"] and s, "the restarted hub caught up", 30)
            from table_controller.scoresheet import compute

            assert st["tables"][0]["events"] == len(table.store.since(0))  # every event, once
            totals = compute(table.controller.state)["totals"]
            assert {p["name"]: p["points"] for p in st["players"]} == {
                table.controller.state.players[int(pos)]: v for pos, v in totals.items()}
        finally:
            await table.stop()
    finally:
        if hub.poll() is None:
            hub.send_signal(signal.SIGTERM)
            try:
                hub.wait(10)
            except subprocess.TimeoutExpired:
                hub.kill()


def test_hub_command_lists_the_venues_tables_and_refuses_a_bad_list(tmp_path: Path, broker: Broker) -> None:
    port = free_port()
    with _hub(broker, port, tmp_path / "hub", "--tables", "2") as lines:
        assert any(f":{port}/" in x for x in lines), lines
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/standings", timeout=5) as r:
            tables = json.load(r)["tables"]
        assert [(t["table_id"], t["heard"], t["alerts"][0]["kind"]) for t in tables] == \
            [("t01", False, "unheard"), ("t02", False, "unheard")]
    for spec, says in (("0", "between 1 and 999"), ("t01,t01", "given twice"), ("t01,hub", "hub's user name")):
        out = subprocess.run([sys.executable, "-m", "table_controller.cli", "hub", "--broker", broker.url,
                              "--tournament", "cup", "--tables", spec], cwd=REPO_ROOT, capture_output=True, text=True,
                             timeout=30)
        assert out.returncode == 2 and says in out.stderr, (spec, out.stderr)


def test_hub_command_takes_the_tables_names_and_keeps_them_when_started_again(tmp_path: Path, broker: Broker) -> None:
    """`--tables t01=一号桌,t02=二号桌,t03`: the first seating, posted before any table is on, says 一号桌
    (it said t01: `--tables` could not carry a name); started again without them, the hub keeps them.
    A name typed with a Chinese comma, left empty or given twice is refused before anything starts."""
    players = tmp_path / "players.csv"
    players.write_text("id,name\n" + "".join(f"A{i:02d},选手{i}\n" for i in range(1, 13)), encoding="utf-8")
    port = free_port()
    with _hub(broker, port, tmp_path / "hub", "--tables", "t01=一号桌, t02=二号桌,t03", "--players", str(players),
              "--title", "2026 春季杯"):
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/pairings?format=text", timeout=5) as r:
            text = r.read().decode("utf-8")
        assert text.startswith("2026 春季杯 · 第 1 轮编排"), text  # it said "cup · 第 1 轮编排"
        assert [line.split("：")[0] for line in text.splitlines()[2:5]] == ["一号桌", "二号桌", "t03"], text
    with _hub(broker, port, tmp_path / "hub"):
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/standings", timeout=5) as r:
            body = json.load(r)
        assert [(t["table_id"], t["table_name"]) for t in body["tables"]] == [("t01", "一号桌"), ("t02", "二号桌")]
        assert body["title"] == "2026 春季杯"
    for spec, says in (("t01=一号桌，t02=二号桌", "半角逗号"), ("t01=", "缺少桌名"), ("t01=甲,t02=甲", "桌名重复：甲"),
                       ("t01=" + "桌" * 41, "1 至 40 个字")):
        # the command's own check (`tablectl hub` exits 2 with it, as above; install-service --hub refuses)
        with pytest.raises(WireError, match=says):
            check(parse(["--broker", broker.url, "--tournament", "cup", "--tables", spec]))
    for title in ("杯" * 61, "春季杯\n第二行"):
        with pytest.raises(WireError, match="赛事名称须为"):
            check(parse(["--broker", broker.url, "--tournament", "cup", "--title", title]))

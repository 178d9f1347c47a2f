"""`tablectl hub` as an operator runs it: a real process, a real broker, SIGTERM to stop."""

from __future__ import annotations

import contextlib
import json
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

from tournament_helpers import Broker, free_port

from table_controller.config import REPO_ROOT


@contextlib.contextmanager
def _hub(broker: Broker, port: int, data: Path, *more: str) -> Iterator[list[str]]:
    """`tablectl hub` as a process: what it printed up to the standings' address; on leaving, it
    must stop cleanly on SIGTERM (exit 0)."""
    proc = subprocess.Popen([sys.executable, "-m", "table_controller.cli", "hub", "--broker", broker.url,
                             "--tournament", "cup", "--port", str(port), "--data-dir", str(data), *more],
                            cwd=REPO_ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
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


def test_hub_command_refuses_a_bad_broker_url() -> None:
    out = subprocess.run([sys.executable, "-m", "table_controller.cli", "hub", "--broker", "tcp://x:1",
                          "--tournament", "cup"], cwd=REPO_ROOT, capture_output=True, text=True, timeout=30)
    assert out.returncode == 2 and "mqtt://HOST:PORT" in out.stderr


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

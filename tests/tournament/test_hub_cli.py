"""`tablectl hub` as an operator runs it: a real process, a real broker, SIGTERM to stop."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from tournament_helpers import Broker, free_port

from table_controller.config import REPO_ROOT


def test_hub_command_serves_standings_and_stops_cleanly(tmp_path: Path, broker: Broker) -> None:
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "table_controller.cli", "hub", "--broker", broker.url,
                             "--tournament", "cup", "--port", str(port), "--data-dir", str(tmp_path / "hub")],
                            cwd=REPO_ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        assert proc.stdout is not None
        deadline = time.monotonic() + 20
        lines = []
        while time.monotonic() < deadline:
            line = proc.stdout.readline()
            lines.append(line)
            if "standings:" in line or not line:
                break
        assert any(f":{port}/" in x for x in lines), lines
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/standings", timeout=5) as r:
            body = json.load(r)
        assert body["tournament"] == "cup" and body["players"] == [] and body["tables"] == []
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(10) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(5)
    assert (tmp_path / "hub" / "cup" / "hub.sqlite3").exists()


def test_hub_command_refuses_a_bad_broker_url() -> None:
    out = subprocess.run([sys.executable, "-m", "table_controller.cli", "hub", "--broker", "tcp://x:1",
                          "--tournament", "cup"], cwd=REPO_ROOT, capture_output=True, text=True, timeout=30)
    assert out.returncode == 2 and "mqtt://HOST:PORT" in out.stderr

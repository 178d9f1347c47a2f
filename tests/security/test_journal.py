"""The journal holds no concealed tile: `tablectl run` as a real process on the simulator, its demo
players playing 血流成河 (wins read, a concealed kong), every line it writes to stdout (what systemd keeps
in the journal) read back. Before, each event's line carried its data: a win's hand as read and a
concealed kong's faces, for whoever reads `journalctl` on the Pi."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
from test_concealed_tiles import _leaks, _secrets

from table_controller.tournament.broker import free_port as _free_port

TABLECTL = [sys.executable, "-m", "table_controller.cli"]
#: 血流成河, seed 13: within three hands wins are read and a concealed kong is made (test_concealed_tiles)
RULESET, SEED, HANDS = "xueliu", 13, 3


def test_the_journal_names_each_event_without_its_concealed_tiles(tmp_path: Path) -> None:
    port = _free_port()
    config = tmp_path / "table.toml"
    config.write_text(
        f'[table]\nlink = "sim://"\nsim_seed = {SEED}\nsim_speed = 200.0\n[rules]\nruleset = "{RULESET}"\n'
        f'[display]\nport = {port}\nreferee_token = "ref-journal-4051"\noperator_token = "op-journal-4052"\n'
        '[demo]\nautoplay = true\nhand_seconds = 0\nturn_seconds = 0\n[storage]\ndata_dir = "record"\n',
        encoding="utf-8")
    ctl = subprocess.Popen(TABLECTL + ["run", "--config", str(config)], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True, cwd=tmp_path)
    written: list[str] = []  # read as it comes: a full pipe would stop the service
    reader = threading.Thread(target=lambda: written.extend(ctl.stdout or ()), daemon=True)
    reader.start()
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(f"http://127.0.0.1:{port}/api/state").json().get("hands_played", 0) >= HANDS:
                    break
            except (httpx.HTTPError, ValueError):
                pass
            assert time.monotonic() < deadline and ctl.poll() is None, "the demo did not play its hands in time"
            time.sleep(0.1)
    finally:
        ctl.send_signal(signal.SIGTERM)
        ctl.wait(timeout=20)
        reader.join(10)
    out = "".join(written)
    assert ctl.returncode == 0, out[-2000:]
    hands, kongs = _secrets(tmp_path / "record" / "events.sqlite3")
    assert hands and kongs, "the session read no win or made no concealed kong: the check would see nothing"
    lines = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    events = [line for line in lines if line.get("msg") == "event"]
    assert len(events) > 100
    types = {e["type"] for e in events}
    assert {"referee.win_read", "play.kong"} <= types, types
    leaks = [leak for line in lines for leak in _leaks(f"journal {line.get('msg')}", line, hands, kongs)]
    kong_faces = [e for e in events if e["type"] == "play.kong" and "tiles" in json.dumps(e)]
    assert not leaks and not kong_faces, (leaks[:5], kong_faces[:3])
    # each event named: what, which, where in the hand, who
    win = next(e for e in events if e["type"] == "referee.win_read")
    assert isinstance(win["seq"], int) and isinstance(win["hand"], int) and win["seat"] in "ESWN", win
    assert all("data" not in e for e in events), events[0]

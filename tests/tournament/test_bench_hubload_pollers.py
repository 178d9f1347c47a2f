"""bench/hubload.py measured four pages and no hall of phones polling the standings, and a fetch made before
a table was heard of (its row [None, None]) stopped it with a TypeError once the day was fed. `--pollers N`
polls from N addresses of its own (the hub holds 64 connections an address: one address refused most), and
the bench ends with its figures whatever a page saw first."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_bench_measures_pollers_from_their_own_addresses() -> None:
    env = {**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{ROOT / 'hardware-sim'}"}
    done = subprocess.run([sys.executable, str(ROOT / "bench" / "hubload.py"), "--tables", "6", "--rounds", "2",
                           "--hands", "1", "--events", "4", "--rate", "300", "--pollers", "80", "--poll-s", "0.5"],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["standings_exact"] and out["pollers"] == 80
    # every poll answered: 80 from one address were 64 at most, the rest closed (RemoteProtocolError)
    assert out["poll_fetches"] >= 80 and set(out["poll_answers"]) == {"200"}, out["poll_answers"]
    assert out["poll_kib_per_s"] > 0 and out["standings_fetch_cpu_ms"]["same"] > 0
    assert "pollers every 0.5 s" in done.stdout and "hub:" in done.stderr  # the figures and the progress bar

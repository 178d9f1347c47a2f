"""bench/camera_bump.py ends with one JSON line, as every bench does (docs/architecture.md's benchmarks row):
it printed each style's figures as indented JSON before its table, so nothing read its last line as figures."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_camera_bump_ends_with_its_figures_on_one_json_line() -> None:
    env = {**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{ROOT / 'hardware-sim'}"}
    done = subprocess.run([sys.executable, str(ROOT / "bench" / "camera_bump.py"), "--frames", "1",
                           "--styles", "xmahjongg-dorothys", "--knocks", "0,24"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=100)
    assert done.returncode == 0, done.stderr[-2000:]
    last = done.stdout.strip().splitlines()[-1]
    assert last.startswith("JSON ")
    figures = json.loads(last.removeprefix("JSON "))["xmahjongg-dorothys"]
    assert figures["knock_24px"]["seen"] == 1.0  # a 24 px knock is seen (the table printed above says so too)
    assert "  24: 1.00 /" in done.stdout

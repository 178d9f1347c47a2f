"""bench/day.py's `--camera`: `none` is no camera, as its help says, and a style that does not start the
virtual camera stops the bench. Before, `none` was taken for a tile style, the camera's process died on it,
and the bench printed "camera on" figures of a watcher that never had a picture."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SMALL = ["--hands", "2", "--sockets", "1", "--feed", "5", "--rate", "50"]


def _day(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{ROOT / 'hardware-sim'}"}
    return subprocess.run([sys.executable, str(ROOT / "bench" / "day.py"), *SMALL, *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=100)


def test_camera_none_is_no_camera() -> None:
    done = _day("--camera", "none")
    assert done.returncode == 0, done.stderr[-2000:]
    result = json.loads(done.stdout.splitlines()[-1].removeprefix("JSON "))
    assert "camera" not in result  # no figures "with the camera" of a camera that was never there
    assert "unknown tile style" not in done.stderr
    assert "camera on" not in done.stdout


def test_a_camera_that_does_not_start_stops_the_bench() -> None:
    done = _day("--camera", "no-such-style")
    assert done.returncode != 0
    assert "the virtual camera did not start (--camera 'no-such-style')" in done.stderr
    assert "camera on" not in done.stdout

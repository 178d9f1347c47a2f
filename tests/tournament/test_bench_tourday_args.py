"""bench/tourday.py with `--hands 1` set up the whole venue (broker, hub, four tables), played a round
and then failed with a traceback on the day's substitute (409 本轮比赛已结束，没有下一盘可换人): the
substitute joins a round for its next hand. It now refuses a round under two hands at once."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_a_round_of_one_hand_is_refused_before_the_day_starts() -> None:
    env = {**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{ROOT / 'hardware-sim'}"}
    done = subprocess.run([sys.executable, str(ROOT / "bench" / "tourday.py"), "--hands", "1"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=30)
    assert done.returncode == 2  # argparse's refusal, not a day that failed
    assert "--hands must be 2 or more" in done.stderr
    assert "Traceback" not in done.stderr
    assert "venue up" not in done.stderr  # nothing was started

"""The quick benches run whole at a tiny size, as `make bench` runs them at theirs: to the end, a progress bar on
stderr, the last line of stdout their figures as JSON (strict: no NaN), nothing left behind in the temporary
folder. Before: bench/broadcast.py and bench/display.py left the day's logs and the service's data directory in
/tmp at every run (bench/page_long.py too), bench/footprint.py `--paced 0` stopped on a division by zero after
its other figures, and bench/display.py with browsers only wrote NaN for the sockets' figures."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _bench(name: str, *args: str, tmp: Path) -> tuple[dict[str, Any], str]:
    """Run bench/NAME.py with `args`, its temporary files under `tmp`; its figures and its stderr."""
    tmp.mkdir(exist_ok=True)
    env = {**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{ROOT / 'hardware-sim'}", "TMPDIR": str(tmp)}
    done = subprocess.run([sys.executable, str(ROOT / "bench" / f"{name}.py"), *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=100)
    assert done.returncode == 0, done.stderr[-3000:]
    last = done.stdout.strip().splitlines()[-1].removeprefix("JSON ")

    def strict(word: str) -> None:
        raise AssertionError(f"{name}: {word} in its JSON line")

    return json.loads(last, parse_constant=strict), done.stderr


def _load(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"bench_{name}", ROOT / "bench" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize(("name", "args", "bar"), [
    ("deal", ["--iterations", "3", "--ruleset", "mcr"], "rulesets:"),
    ("scoring", ["--seconds", "0.01"], "measurements:"),
    ("pairing", ["--players", "16", "--rounds", "3", "--tournaments", "1"], "tournaments:"),
    ("replay", ["--hands", "2"], "hands logged:"),
    ("mirror", ["--hands", "2", "--follow", "3"], "events followed:"),
    ("chatter", ["--rate", "50", "--seconds", "1", "--modes", "raw"], "modes:"),
])
def test_a_quick_bench_runs_to_its_figures(name: str, args: list[str], bar: str, tmp_path: Path) -> None:
    figures, stderr = _bench(name, *args, tmp=tmp_path / "tmp")
    assert bar in stderr and "100%" in stderr  # the progress bar, to its end
    assert figures
    assert not list((tmp_path / "tmp").iterdir())


def test_the_broadcast_bench_delivers_everything_and_leaves_nothing_in_tmp(tmp_path: Path) -> None:
    figures, stderr = _bench("broadcast", "--hands", "2", "--viewers", "2", "--feed", "3", "--rate", "50",
                             "--delay", "0.2", tmp=tmp_path / "tmp")
    for run in ("live", "delayed"):
        assert figures["runs"][run]["delivered"] == figures["runs"][run]["sent"] == 6
    assert "live, 2 viewers:" in stderr and "delayed, 2 viewers:" in stderr  # a bar for each feed
    assert not list((tmp_path / "tmp").iterdir())  # the day's logs were left in /tmp (broadcast-bench-*)


def test_the_display_bench_leaves_nothing_in_tmp(tmp_path: Path) -> None:
    figures, stderr = _bench("display", "--clients", "2", "--browsers", "0", "--events", "3", "--rate", "50",
                             tmp=tmp_path / "tmp")
    assert figures["missing"] == 0 and figures["deliveries"] == 6
    assert "events:" in stderr
    assert not list((tmp_path / "tmp").iterdir())  # the service's data directory was left (bench-display-*)


def test_footprint_without_paced_hands_skips_them(tmp_path: Path) -> None:
    footprint = _load("footprint")
    assert footprint.measure_paced(tmp_path, 0) == {}  # it started a service and divided by the 0 hands played
    with pytest.raises(SystemExit):  # its figures are per hand and of the first start: refused before starting
        footprint.main(["--hands", "0"])


def test_the_footprints_notify_socket_counts_what_the_service_tells_systemd(tmp_path: Path) -> None:
    """`footprint.py --watchdog`: the service's own `Notifier` (as `tablectl run` speaks to systemd) is heard on the
    bench's socket, its pings and status lines counted apart; a negative watchdog is refused before starting."""
    from table_controller.notify import Notifier

    footprint = _load("footprint")
    heard = footprint.NotifySocket(tmp_path / "notify", 60.0)
    try:
        assert heard.env() == {"NOTIFY_SOCKET": str(tmp_path / "notify"), "WATCHDOG_USEC": "60000000"}
        notifier = Notifier.from_environ({**heard.env(), "WATCHDOG_PID": ""})
        assert notifier.ping_s == 30.0
        notifier.ready("牌桌已连接")
        for _ in range(3):
            notifier.send("WATCHDOG=1")
        notifier.status("等待牌桌")
        notifier.close()
        deadline = time.monotonic() + 5
        while heard.snapshot().get("STATUS", 0) < 2 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert heard.snapshot() == {"READY": 1, "STATUS": 2, "WATCHDOG": 3}
    finally:
        heard.close()
    with pytest.raises(SystemExit):
        footprint.main(["--watchdog", "-1"])


def test_the_scoring_bench_refuses_a_hand_the_rules_no_longer_take(monkeypatch: pytest.MonkeyPatch) -> None:
    scoring = _load("scoring")
    monkeypatch.setattr(scoring, "HANDS", {"mcr": [{"seat_wind": "E", "concealed": "1234567m1234p13s",
                                                    "win_tile": "5s", "win": "self_draw"}]})
    monkeypatch.setattr(sys, "argv", ["scoring.py", "--seconds", "0.01"])
    with pytest.raises(SystemExit, match="is not a win now"):  # not the refusal's speed printed as hands/s
        scoring.main()

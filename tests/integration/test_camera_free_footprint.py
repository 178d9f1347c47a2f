"""A table without a camera carries none of the camera's weight: `tablectl run` as systemd starts it,
linked to its table and serving its display, has not loaded OpenCV, numpy or ONNX Runtime (tens of
megabytes and most of a second of a Pi 3's start, `bench/footprint.py`). Read from the kernel's map of
the real process, where every extension module it loaded is a shared object."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx

from table_controller.tournament.broker import free_port as _free_port

CAMERA_LIBRARIES = ("cv2", "numpy", "onnxruntime")


def test_a_table_without_a_camera_loads_no_camera_library(tmp_path: Path) -> None:
    port = _free_port()
    config = tmp_path / "table.toml"
    config.write_text(f'[table]\nlink = "sim://"\nsim_speed = 100.0\n[display]\nport = {port}\n'
                      f'referee_token = "ref-light"\noperator_token = "op-light"\n[storage]\n'
                      f'data_dir = "{tmp_path / "data"}"\n', encoding="utf-8")
    proc = subprocess.Popen([sys.executable, "-m", "table_controller.cli", "run", "--config", str(config)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 30
        linked = False
        while time.monotonic() < deadline and not linked:
            assert proc.poll() is None, proc.stderr.read().decode() if proc.stderr else ""
            try:
                linked = bool(httpx.get(f"http://127.0.0.1:{port}/api/health", timeout=2).json()["link"]["up"])
            except httpx.HTTPError:
                pass
            time.sleep(0.05)
        assert linked, "the table never linked"
        maps = Path(f"/proc/{proc.pid}/maps").read_text()
        assert "_sqlite3" in maps  # the map shows the extension modules it did load (the log's)
        loaded = [name for name in CAMERA_LIBRARIES if f"/{name}/" in maps or f"/{name}." in maps]
        assert loaded == [], f"a table without a camera loaded {loaded}"
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(30)

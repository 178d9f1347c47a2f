"""The display on the venue's LAN: with `host = "0.0.0.0"` the service says which address a phone
opens (it printed only http://0.0.0.0:PORT/), and that address serves the page; an address that is
not the Pi's is named as such by `check` and `run` (they said "another service there? change the
port")."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path

import httpx

from table_controller.tournament.broker import free_port
from table_controller.web.addresses import lan_addresses

TABLECTL = [sys.executable, "-m", "table_controller.cli"]
#: TEST-NET-1 (RFC 5737): never an address of this machine.
NOT_OURS = "192.0.2.77"


def _config(tmp_path: Path, host: str, port: int) -> Path:
    config = tmp_path / "table.toml"
    config.write_text(f'[table]\nlink = "sim://"\n[display]\nhost = "{host}"\nport = {port}\n'
                      f'[storage]\ndata_dir = "data"\n', encoding="utf-8")
    return config


def test_a_display_on_every_interface_names_the_address_a_phone_opens(tmp_path: Path) -> None:
    # port 0: the service binds a free one and says which (a port found free beforehand could be taken by any
    # connection on the machine before the service bound it: "the service ended" in 1 of 5 runs with 3 workers)
    proc = subprocess.Popen(TABLECTL + ["run", "--config", str(_config(tmp_path, "0.0.0.0", 0))],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        assert proc.stdout is not None
        said: list[str] = []
        while not said or not said[-1].startswith("显示 / display: http://0.0.0.0"):
            said.append(proc.stdout.readline())
            assert said[-1], f"the service ended before it served: {said}"
        port = int(said[-1].split()[3].rsplit(":", 1)[1].strip("/"))
        assert port > 0, said[-1]
        line = proc.stdout.readline()  # the next line says where phones go
        assert line.startswith("手机访问 / phones on the LAN: "), line
        urls = line.split(": ", 1)[1].split()
        ours = [a for a in lan_addresses() if a != NOT_OURS]
        if not ours:  # a machine with no LAN: it says so rather than print 0.0.0.0
            assert "no LAN address yet" in line
            return
        assert urls == [f"http://{a}:{port}/" for a in ours]
        page = httpx.get(urls[0], timeout=10)  # what a phone on the LAN gets
        assert page.status_code == 200 and "<html" in page.text.lower()
        assert httpx.get(f"{urls[0]}api/health", timeout=10).json()["ok"] is True
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=20)
    assert proc.returncode == 0


def test_an_address_that_is_not_the_pis_is_named_so_by_check_and_run(tmp_path: Path) -> None:
    config = _config(tmp_path, NOT_OURS, free_port())
    check = subprocess.run(TABLECTL + ["check", "--config", str(config), "--no-table", "--json"],
                           capture_output=True, text=True, timeout=60)
    found = {f["what"]: f for f in json.loads(check.stdout)["findings"]}["显示端口 / display port"]
    assert check.returncode == 1 and found["level"] == "fail"
    assert f"this Pi has no address {NOT_OURS}" in found["detail"] and '"0.0.0.0"' in found["detail"]
    assert "another service" not in found["detail"]
    run = subprocess.run(TABLECTL + ["run", "--config", str(config)], capture_output=True, text=True, timeout=60)
    assert run.returncode == 1
    assert f"本机没有地址 {NOT_OURS}" in run.stderr and "Traceback" not in run.stderr

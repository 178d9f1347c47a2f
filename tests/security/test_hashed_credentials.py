"""A table.toml that holds hashes, not PINs: `tablectl pin` makes the line (PIN on stdin, never argv), a real
`tablectl run` reads the file, and the PIN logs in over real HTTP and on the referee's socket while the
hash itself does not. Before, every credential sat in table.toml as itself, for whoever got a copy of it."""

from __future__ import annotations

import asyncio
import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import websockets

from table_controller.tournament.broker import free_port as _free_port

TABLECTL = [sys.executable, "-m", "table_controller.cli"]
REFEREE, NAMED, OPERATOR = "ref-venue-7Qx9", "wang-li-5521", "op-plain-8804"


def _pin_line(pin: str, *args: str) -> str:
    made = subprocess.run(TABLECTL + ["pin", *args], input=pin + "\n", capture_output=True, text=True, timeout=30)
    assert made.returncode == 0, made.stderr
    assert pin not in made.stdout + made.stderr
    return made.stdout.strip()


def _up(port: int, ctl: subprocess.Popen[str]) -> None:
    deadline = time.monotonic() + 30
    while True:
        try:
            health = httpx.get(f"http://127.0.0.1:{port}/api/health")
            # up once the log is folded: while it is (under load, an empty one too) every other route answers 503
            if health.status_code == 200 and health.json().get("recovering") is None:
                return
        except httpx.HTTPError:
            pass
        assert time.monotonic() < deadline and ctl.poll() is None, "the display did not come up"
        time.sleep(0.1)


def test_hashed_credentials_in_the_config_log_in_with_the_pin_never_with_the_hash(tmp_path: Path) -> None:
    referee_line = _pin_line(REFEREE)
    named_line = _pin_line(NAMED, "--referee", "王立")
    assert referee_line.startswith('referee_token = "scrypt$') and named_line.startswith('token = "scrypt$')
    port = _free_port()
    config = tmp_path / "table.toml"
    config.write_text(f'[display]\nport = {port}\n{referee_line}\noperator_token = "{OPERATOR}"\n'
                      f'[[display.referees]]\nname = "王立"\n{named_line}\n[storage]\ndata_dir = "record"\n',
                      encoding="utf-8")
    assert REFEREE not in config.read_text() and NAMED not in config.read_text()
    ctl = subprocess.Popen(TABLECTL + ["run", "--config", str(config)], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True, cwd=tmp_path)
    base = f"http://127.0.0.1:{port}"
    try:
        _up(port, ctl)

        def whoami(token: str) -> httpx.Response:
            return httpx.get(f"{base}/api/whoami", headers={"Authorization": f"Bearer {token}"})

        assert whoami(REFEREE).json() == {"role": "referee", "role_zh": "裁判", "name": ""}
        assert whoami(NAMED).json()["name"] == "王立"
        assert whoami(NAMED).json()["name"] == "王立"  # the second time from the remembered check
        assert whoami(OPERATOR).json()["role"] == "operator"  # a plain one beside them still holds
        hash_value = referee_line.split('"')[1]
        assert whoami(hash_value).status_code == 401  # the file's copy is no credential

        async def socket_role(token: str) -> dict[str, object]:
            async with websockets.connect(f"ws://127.0.0.1:{port}/ws/referee") as ws:
                await ws.send(json.dumps({"token": token}))
                return json.loads(await asyncio.wait_for(ws.recv(), 10))

        assert asyncio.run(socket_role(NAMED))["type"] != "error"
        # each token is checked against each hash once: before, the operator's every request (and a named
        # referee's, against the other hash) paid scrypt again for the hashes it is not, 50-200 ms each
        with httpx.Client(base_url=base) as http:
            started = time.perf_counter()
            for token in [OPERATOR, NAMED] * 20:
                assert http.get("/api/whoami", headers={"Authorization": f"Bearer {token}"}).status_code == 200
            took = time.perf_counter() - started
        # scrypt again at each: at least 3 s (60 checks of 50 ms and more); remembered, 0.2 s idle, 1.6 s seen
        # with the suite and four other jobs on two cores
        assert took < 2.5, f"40 requests took {took:.2f} s"
    finally:
        ctl.send_signal(signal.SIGTERM)
        out, _ = ctl.communicate(timeout=20)
    assert ctl.returncode == 0, out
    assert REFEREE not in out and NAMED not in out and "凭证太弱" not in out


def test_a_hash_pasted_short_stops_the_start_naming_the_key_and_a_weak_pin_gets_no_hash(tmp_path: Path) -> None:
    line = _pin_line(REFEREE)
    config = tmp_path / "table.toml"
    config.write_text(f'[display]\nport = {_free_port()}\n{line[:-12]}"\n', encoding="utf-8")
    ran = subprocess.run(TABLECTL + ["run", "--config", str(config)], capture_output=True, text=True, timeout=30,
                         cwd=tmp_path)
    assert ran.returncode == 2, ran.stdout + ran.stderr
    assert "display.referee_token" in ran.stderr and "tablectl pin" in ran.stderr and "scrypt$" not in ran.stderr
    weak = subprocess.run(TABLECTL + ["pin"], input="123456\n", capture_output=True, text=True, timeout=30)
    assert weak.returncode == 2 and "凭证太弱" in weak.stderr and "scrypt" not in weak.stdout

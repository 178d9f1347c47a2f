"""Which credentials a running table shows: `tablectl run` as a real process, its stdout and JSON log
lines read whole. Only a credential the service made up at start is printed (README: "credentials it
generates are printed at start-up"); one the venue set in the config stays in the config file."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from table_controller.tournament.broker import free_port as _free_port

TABLECTL = [sys.executable, "-m", "table_controller.cli"]
REFEREE = "ref-venue-7Qx9"  # set in the config: never on the console or in the journal


def test_a_configured_referee_credential_is_never_printed_or_logged_only_the_generated_one(tmp_path: Path) -> None:
    port = _free_port()
    config = tmp_path / "table.toml"
    config.write_text(f'[display]\nport = {port}\nreferee_token = "{REFEREE}"\n[storage]\ndata_dir = "record"\n',
                      encoding="utf-8")
    ctl = subprocess.Popen(TABLECTL + ["run", "--config", str(config), "-vv"], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True, cwd=tmp_path)
    try:
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 30
        while True:
            try:
                health = httpx.get(f"{base}/api/health")
                # up once the log is folded: while it is, every other route answers 503 (CI: KeyError 'role')
                if health.status_code == 200 and health.json().get("recovering") is None:
                    break
            except httpx.HTTPError:
                pass
            assert time.monotonic() < deadline and ctl.poll() is None, "the display did not come up"
            time.sleep(0.1)
        # the credential in use, on the API and the referee's socket: still nothing of it in the logs
        me = httpx.get(f"{base}/api/whoami", headers={"Authorization": f"Bearer {REFEREE}"}).json()
        assert me["role"] == "referee"
        assert httpx.get(f"{base}/api/whoami", headers={"Authorization": "Bearer wrong-guess"}).status_code == 401
    finally:
        ctl.send_signal(signal.SIGTERM)
        out, _ = ctl.communicate(timeout=20)
    assert ctl.returncode == 0, out
    assert REFEREE not in out, [line for line in out.splitlines() if REFEREE in line]
    assert "wrong-guess" not in out
    # the operator's credential was made up: printed once, and logged
    printed = [line for line in out.splitlines() if "operator token:" in line]
    assert len(printed) == 1 and "referee token" not in printed[0], printed
    made = printed[0].split("operator token:")[1].split()[0]
    assert len(made) >= 12 and made in out.split(printed[0], 1)[0] + out.split(printed[0], 1)[1]  # the log line too
    assert "凭证太弱" not in out and "weak display credentials" not in out  # neither the venue's nor the made-up one


def test_a_common_pin_is_said_at_start_without_showing_it(tmp_path: Path) -> None:
    """A referee_token of Password1 (or 123456) started the table without a word: the first guess of a player
    at the next table, and the referee's view with it. Said on the console and in the journal; the table runs."""
    port = _free_port()
    config = tmp_path / "table.toml"
    config.write_text(f'[display]\nport = {port}\nreferee_token = "Password1"\noperator_token = "op-venue-5531"\n'
                      '[storage]\ndata_dir = "record"\n', encoding="utf-8")
    ctl = subprocess.Popen(TABLECTL + ["run", "--config", str(config)], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True, cwd=tmp_path)
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                health = httpx.get(f"http://127.0.0.1:{port}/api/health")
                if health.status_code == 200 and health.json().get("recovering") is None:
                    break
            except httpx.HTTPError:
                pass
            assert time.monotonic() < deadline and ctl.poll() is None, "the display did not come up"
            time.sleep(0.1)
    finally:
        ctl.send_signal(signal.SIGTERM)
        out, _ = ctl.communicate(timeout=20)
    assert ctl.returncode == 0, out
    said = [line for line in out.splitlines() if line.startswith("凭证太弱 / weak credential:")]
    assert len(said) == 1 and "[display] referee_token: 常见密码" in said[0], out
    assert "weak display credentials" in out  # the journal's line, for whoever reads it later
    assert "Password1" not in out and "op-venue-5531" not in out


SHORT = ('[display]\noperator_token = "op-pin-5530"\n[[display.referees]]\nname = "李敏"\ntoken = "li-77"\n'
         '[tournament]\nbroker = "mqtt://127.0.0.1:1883"\nname = "cup"\ntable_id = "t1"\n'
         'password = "broker-pw-9102"\nca_file = "missing.pem"\n')
TWICE = ('[display]\nreferee_token = "same-pin-4821"\noperator_token = "op-pin-5530"\n'
         '[[display.referees]]\nname = "王立"\ntoken = "same-pin-4821"\n')


@pytest.mark.parametrize("text, says", [(SHORT, ["display.referees.0.token", "at least 6", "tournament.ca_file"]),
                                        (TWICE, ["'display'", "must differ"])], ids=["short-pin", "same-twice"])
def test_a_config_error_names_the_credential_but_never_shows_it(tmp_path: Path, text: str, says: list[str]) -> None:
    """Refused at start (the service's journal) and by `tablectl check`: before, the message echoed a
    short PIN, and for two equal credentials the whole [display] section, every token in it."""
    config = tmp_path / "table.toml"
    config.write_text(text, encoding="utf-8")
    for command in ("run", "check"):
        proc = subprocess.run(TABLECTL + [command, "--config", str(config)], capture_output=True, text=True,
                              timeout=60, cwd=tmp_path)
        said = proc.stdout + proc.stderr
        assert proc.returncode == 2, said
        assert all(s in said for s in says), said  # what is wrong, and where, still said
        for secret in ("same-pin-4821", "op-pin-5530", "li-77", "broker-pw-9102"):
            assert secret not in said, (command, secret, said)

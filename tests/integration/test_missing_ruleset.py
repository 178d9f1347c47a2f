"""A log whose hands were played under a house ruleset, opened where that ruleset cannot be found:
the venue removed or renamed the file, or a command was run by hand (or under sudo) without the
$TABLECTL_RULESETS_DIR the service has. The fold raised a bare KeyError: `run` died with a
traceback (exit 1, so systemd restarted it every 3 s), `record` too, and `check` said ready."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from table_controller.rules.ruleset import ENV_DIR
from table_controller.store import EventStore
from table_controller.tournament.broker import free_port
from tablesim.session import write_session

ROOT = Path(__file__).resolve().parents[2]
TABLECTL = [sys.executable, "-m", "table_controller.cli"]


@pytest.fixture
def club_log(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Two hands of the venue's `mcr_club`, from its own folder, in a table's data directory."""
    folder = tmp_path / "venue-rulesets"
    folder.mkdir()
    shutil.copy(ROOT / "config" / "house-ruleset.example.toml", folder / "mcr_club.toml")
    monkeypatch.setenv(ENV_DIR, str(folder))
    store = EventStore(tmp_path / "data" / "events.sqlite3")
    write_session(store, "mcr_club", hands=2, seed=3)
    store.close()
    monkeypatch.delenv(ENV_DIR)
    return folder


def test_a_log_of_a_ruleset_not_here_is_named_by_run_check_and_record(tmp_path: Path, club_log: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != ENV_DIR}
    config = tmp_path / "table.toml"
    config.write_text(f'[table]\nlink = "sim://"\n[display]\nport = {free_port()}\n[storage]\ndata_dir = "data"\n',
                      encoding="utf-8")
    said = f"the log's hands were played under ruleset 'mcr_club'"
    run = subprocess.run(TABLECTL + ["run", "--config", str(config)], capture_output=True, text=True, timeout=60,
                         env=env)
    assert run.returncode == 2, run.stderr  # the unit's RestartPreventExitStatus: restarting cannot help
    assert "Traceback" not in run.stderr and said in run.stderr and f"set {ENV_DIR}" in run.stderr
    assert "记录中的对局使用规则 'mcr_club'" in run.stderr
    check = subprocess.run(TABLECTL + ["check", "--config", str(config), "--no-table", "--json"],
                           capture_output=True, text=True, timeout=60, env=env)
    found = {f["what"]: f for f in json.loads(check.stdout)["findings"]}["事件记录 / event log"]
    assert check.returncode == 1 and found["level"] == "fail" and said in found["detail"]
    record = subprocess.run(TABLECTL + ["record", "--data-dir", str(tmp_path / "data"), "--hand", "1"],
                            capture_output=True, text=True, timeout=60, env=env)
    assert record.returncode == 2 and "Traceback" not in record.stderr and said in record.stderr
    # with the venue's folder, as the service has it, the same log reads
    record = subprocess.run(TABLECTL + ["record", "--data-dir", str(tmp_path / "data"), "--hand", "1"],
                            capture_output=True, text=True, timeout=60, env={**env, ENV_DIR: str(club_log)})
    assert record.returncode == 0 and "俱乐部规则" in record.stdout

"""`tablectl sim` and `tablectl probe` as a user runs them: a real process, a real port."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from table_controller.cli import main

ROOT = Path(__file__).resolve().parents[2]


def start_sim(*args: str, preexec_fn: Callable[[], None] | None = None) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen([sys.executable, "-m", "table_controller.cli", "sim", *args],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=preexec_fn)
    assert proc.stdout is not None
    url = proc.stdout.readline().strip()
    assert url, proc.stderr.read() if proc.stderr else "no output"
    return proc, url


def stop(proc: subprocess.Popen[str], sig: signal.Signals = signal.SIGINT) -> None:
    proc.send_signal(sig)
    try:
        proc.wait(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        for stream in (proc.stdout, proc.stderr):
            if stream:
                stream.close()


@pytest.mark.parametrize("where", [["--tcp", "0"], ["--pty"]])
def test_probe_a_running_sim_prints_identity_as_json(where: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    proc, url = start_sim(*where, "--seed", "42")
    try:
        assert url.startswith("socket://127.0.0.1:") if where[0] == "--tcp" else os.path.exists(url)
        assert main(["probe", url, "--json"]) == 0
        out = json.loads(capsys.readouterr().out)
        assert out["ok"] and out["serial"] == "SIM-000042" and out["protocol_version"] == 1
        assert out["capabilities"]["wall_lengths"]["108"] == [14, 13, 14, 13]
        assert out["status"]["phase"] == "idle"
    finally:
        stop(proc)
    assert proc.returncode == 0


def test_probe_of_a_remote_control_table_reports_what_it_lacks(capsys: pytest.CaptureFixture[str]) -> None:
    proc, url = start_sim("--pty", "--dialect", "remote-control")
    try:
        assert main(["probe", url, "--json", "--dialect", "remote-control"]) == 0
        out = json.loads(capsys.readouterr().out)
        assert out["dialect"] == "remote-control" and out["capabilities"]["dice"] == 0
        assert out["status"]["code"] == "unsupported"
    finally:
        stop(proc)


def test_probe_of_nothing_fails_with_exit_1(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["probe", "socket://127.0.0.1:1", "--json", "--timeout", "1"]) == 1
    out = json.loads(capsys.readouterr().out)
    assert out["ok"] is False and "127.0.0.1:1" in out["error"]


def test_sim_rejects_a_bad_fault_spec(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["sim", "--faults", "ber=often"]) == 2
    assert "not a number" in capsys.readouterr().err


@pytest.mark.parametrize("port", ["99999", "-5", "http"])
def test_sim_port_out_of_range_is_named(port: str, capsys: pytest.CaptureFixture[str]) -> None:
    """`sim --tcp 99999` (or -5) was a traceback from the socket's bind (OverflowError)."""
    with pytest.raises(SystemExit) as exit_:
        main(["sim", f"--tcp={port}"])
    assert exit_.value.code == 2 and "0..65535" in capsys.readouterr().err


def test_sim_on_a_port_in_use_says_so_without_a_traceback() -> None:
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        out = subprocess.run([sys.executable, "-m", "table_controller.cli", "sim", "--tcp", str(port)], cwd=ROOT,
                             capture_output=True, text=True, timeout=60)
    assert out.returncode == 2 and f"cannot serve on 127.0.0.1:{port}" in out.stderr
    assert "Traceback" not in out.stderr


@pytest.mark.parametrize("argv, words", [
    (["sim", "--faults", "ber=2"], "0..1"), (["sim", "--faults", "drop=nan"], "must be a number"),
    (["sim", "--speed", "nan"], "above 0"), (["sim", "--speed", "0"], "above 0"),
    (["probe", "loop://", "--timeout", "-1"], "above 0"), (["probe", "loop://", "--timeout", "nan"], "above 0"),
])
def test_a_rate_a_speed_or_a_timeout_out_of_range_is_named(argv: list[str], words: str,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    """Before: `--faults ber=2` and `--speed nan` ran, `probe --timeout -1` said "(still, after -1 s)"."""
    try:
        code = main(argv)
    except SystemExit as exit_:
        code = exit_.code
    assert code == 2 and words in capsys.readouterr().err


def test_sim_help_lists_the_fault_keys(capsys: pytest.CaptureFixture[str]) -> None:
    from tablesim.faults import FaultPlan

    with pytest.raises(SystemExit):
        main(["sim", "--help"])
    text = capsys.readouterr().out
    assert "fault ID" in text
    for key in FaultPlan.HELP:  # every key --faults takes (unplug_on was missing)
        assert f"  {key}=" in text, key


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_the_sim_stops_on_ctrl_c_or_a_stop_whatever_its_parent_left_it(sig: signal.Signals) -> None:
    """A parent that ignores SIGINT, or starts its children with signals blocked (a test runner's
    worker did, in CI), left the sim deaf to Ctrl-C: it ran on until killed. It now stops on SIGINT
    and SIGTERM alike, closing its port (`runner.stop_on_signals`, shared with the service)."""
    def deaf() -> None:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})

    proc, url = start_sim("--tcp", "0", preexec_fn=deaf)
    assert url.startswith("socket://127.0.0.1:")
    stop(proc, sig)  # within 10 s, or it fails
    assert proc.returncode == 0

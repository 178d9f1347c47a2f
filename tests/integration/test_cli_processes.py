"""`tablectl sim`, `tablectl run --config` and `tablectl demo` as real processes, the way a table
maker and an operator start them: a simulator on a pseudo-terminal, the controller linked to it
by its device path from a config file, JSON log lines on stdout, a clean stop on SIGTERM."""

from __future__ import annotations

import json
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from table_controller.store import WriterLock
from table_controller.tournament.broker import free_port as _free_port

TABLECTL = [sys.executable, "-m", "table_controller.cli"]


def _wait(predicate, timeout: float, what: str) -> Any:
    deadline = time.monotonic() + timeout
    last: Any = None
    while time.monotonic() < deadline:
        try:
            last = predicate()
            if last:
                return last
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}; last: {last!r}")


def _state(base: str) -> Any:
    """The public state; a 503 (the service still folding its log at start: 正在恢复记录) is waited out."""
    answer = httpx.get(f"{base}/api/state")
    answer.raise_for_status()
    return answer.json()


def _stop(proc: subprocess.Popen[str]) -> tuple[int, str]:
    proc.send_signal(signal.SIGTERM)
    try:
        out, _ = proc.communicate(timeout=15)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, _ = proc.communicate()
    return proc.returncode, out


def test_run_with_a_config_file_links_to_a_simulator_on_a_pty(tmp_path: Path) -> None:
    sim = subprocess.Popen(TABLECTL + ["sim", "--pty", "--speed", "100", "--autopilot", "--seed", "5"],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    ctl = None
    try:
        assert sim.stdout is not None
        pty = sim.stdout.readline().strip()
        assert pty.startswith("/dev/pts/"), pty
        port = _free_port()
        config = tmp_path / "table.toml"
        config.write_text(f"""
[table]
name = "测试桌"
link = "{pty}"

[rules]
ruleset = "jingji"

[display]
port = {port}
operator_token = "op-123"
referee_token = "ref-456"

[storage]
data_dir = "record"
""", encoding="utf-8")
        ctl = subprocess.Popen(TABLECTL + ["run", "--config", str(config)], stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True, cwd=tmp_path)
        base = f"http://127.0.0.1:{port}"
        _wait(lambda: httpx.get(f"{base}/api/health").json()["link"]["up"], 20, "the link to come up")
        r = httpx.post(f"{base}/api/hand/start", headers={"Authorization": "Bearer op-123"})
        assert r.status_code == 200, r.text
        # jingji: one press of the machine's dice (the simulator's autopilot presses the dealer's button)
        state = _wait(lambda: (s := _state(base))["hand"] and s["hand"]["deal"] and s,
                      30, "the deal plan")
        assert state["table_name"] == "测试桌"
        assert state["hand"]["deal"]["ruleset"] == "jingji"
        assert len(state["hand"]["throws"]) == 1
        code, out = _stop(ctl)
        ctl = None
        assert code == 0, out
        records = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
        assert records and all({"ts", "level", "logger", "msg"} <= set(r) for r in records)
        assert any(r.get("type") == "table.dice" for r in records)
        assert (tmp_path / "record" / "events.sqlite3").is_file()  # relative to the config file
    finally:
        if ctl is not None:
            _stop(ctl)
        _stop(sim)


def test_run_refuses_a_wrong_config_naming_file_and_key(tmp_path: Path) -> None:
    config = tmp_path / "bad.toml"
    config.write_text('[rules]\nruleset = "klondike"\n[display]\ncolour = "red"\n', encoding="utf-8")
    proc = subprocess.run(TABLECTL + ["run", "--config", str(config)], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    assert str(config) in proc.stderr and "rules.ruleset" in proc.stderr and "display.colour" in proc.stderr


def test_run_on_a_display_port_already_taken_says_so_and_stops_cleanly(tmp_path: Path) -> None:
    """uvicorn's `sys.exit(3)` used to end the process from inside the loop: exit 3, nothing on
    stderr, only uvicorn's JSON log line, and the log and simulator never closed."""
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        config = tmp_path / "table.toml"
        config.write_text(f'[display]\nport = {port}\n[storage]\ndata_dir = "record"\n', encoding="utf-8")
        proc = subprocess.run(TABLECTL + ["run", "--config", str(config)], capture_output=True, text=True,
                              timeout=60, cwd=tmp_path)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert f"the display server did not start on 127.0.0.1:{port}: Address already in use" in proc.stderr
    assert "Traceback" not in proc.stderr
    # stopped in order: the display is tried before the log is folded and anything is logged, so the
    # log is left as it was, and the data directory is free for the next start
    with sqlite3.connect(tmp_path / "record" / "events.sqlite3") as db:
        assert db.execute("SELECT count(*) FROM events").fetchone() == (0,)
    assert WriterLock.holder(tmp_path / "record") is None


def test_a_second_demo_on_a_port_in_use_says_so_in_chinese_first_naming_its_option(tmp_path: Path) -> None:
    """`make demo` twice, or on a port another program holds: the refusal was English, 端口被占用 halfway
    along, and told to change [display].port, a setting the demo has no file for. It says first, in
    Chinese, that the port is taken and to stop the other or pick another with --port."""
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        proc = subprocess.run(TABLECTL + ["demo", "--no-browser", "--port", str(port), "--data-dir", str(tmp_path)],
                              capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    said = proc.stderr.strip().splitlines()[-1]
    assert said.startswith(f"tablectl demo: 无法启动：显示页面无法在 127.0.0.1:{port} 启动：端口 {port} 已被占用"), said
    zh, en = said.split(" / ", 1)
    assert "--port" in zh and "--port" in en and "[display]" not in said
    assert f"the display server did not start on 127.0.0.1:{port}: Address already in use" in en
    assert "Traceback" not in proc.stderr


def test_verbose_after_the_command_raises_the_log_level(tmp_path: Path) -> None:
    """`tablectl run --config t.toml -vv`, as one types it: before, only `tablectl -vv run ...` was
    understood, and this exited 2 ("unrecognized arguments: -vv")."""
    port = _free_port()
    config = tmp_path / "table.toml"
    config.write_text(f'[display]\nport = {port}\n[storage]\ndata_dir = "record"\n', encoding="utf-8")
    ctl = subprocess.Popen(TABLECTL + ["run", "--config", str(config), "-vv"], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True, cwd=tmp_path)
    try:
        _wait(lambda: ctl.poll() is not None or httpx.get(f"http://127.0.0.1:{port}/api/health").json()["link"]["up"],
              30, "the link to come up")
        assert ctl.poll() is None, ctl.communicate()[0]
    finally:
        code, out = _stop(ctl)
    assert code == 0, out
    assert any(json.loads(line)["level"] == "debug" for line in out.splitlines() if line.startswith("{"))


@pytest.mark.parametrize("args", [["--version"], ["--help"], ["demo", "--help"], ["run", "--help"]])
def test_help_and_version(args: list[str]) -> None:
    proc = subprocess.run(TABLECTL + args, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0
    assert proc.stdout.strip()


def test_ctrl_c_while_the_command_line_is_read_ends_quietly() -> None:
    """Ctrl-C in the first moments of a command, while its parser loads every ruleset for its help (`score`; before
    `cli.named_command`, every command's parsers were built, `make demo`'s too): a traceback of the import it fell in
    (and exit -2). It ends as a Ctrl-C later does: 130, nothing said. The SIGINT is sent by the process to itself
    as the parser opens a ruleset's file (an audit hook)."""
    script = ("import os, signal, sys\n"
              # a terminal's Ctrl-C: the test's worker process (xdist) ignores SIGINT, and a child inherits that
              "signal.signal(signal.SIGINT, signal.default_int_handler)\n"
              "sent = []\n"
              "sys.addaudithook(lambda event, args: event == 'open' and str(args[0]).endswith('.toml') and not sent"
              " and (sent.append(1) or os.kill(os.getpid(), signal.SIGINT)))\n"
              "from table_controller.cli import main\n"
              "sys.exit(main(['score', '--help']))\n")
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 130, proc.stderr
    assert "Traceback" not in proc.stderr and "KeyboardInterrupt" not in proc.stderr
    assert "usage:" not in proc.stdout  # stopped before it went on to the help


def test_demo_plays_hands_on_its_own(tmp_path: Path) -> None:
    port = _free_port()
    demo = subprocess.Popen(TABLECTL + ["demo", "--no-browser", "--port", str(port), "--data-dir", str(tmp_path),
                                        "--speed", "100", "--hand-seconds", "0.2", "--turn-seconds", "0"],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env={**os.environ})
    try:
        base = f"http://127.0.0.1:{port}"
        # mcr, two throws (the second asked for by the controller), then the next hand starts by itself
        _wait(lambda: (s := _state(base))["hand"] and s["hand"]["hand_no"] >= 2
              and s["hands_played"] >= 1, 60, "two autoplayed hands")
        events = httpx.get(f"{base}/api/events?since=0&limit=5000").json()
        dice = [e for e in events if e["type"] == "table.dice"]
        assert len(dice) >= 2
        # the simulated players played the first hand out: discards in turn, then 荒牌
        first_end = next(e for e in events if e["type"] == "operator.hand_end")
        discards = [e for e in events if e["type"] == "play.discard" and e["seq"] < first_end["seq"]]
        assert len(discards) > 4 and all(e["source"] == "demo" for e in discards)
        # in turn: E first, then counter-clockwise, except that a pung takes the turn to the claimer
        play = [e for e in events if e["type"] in ("play.discard", "play.claim") and e["seq"] < first_end["seq"]]
        assert play[0]["data"]["seat"] == "E"
        for before, after in zip(play, play[1:]):
            if after["type"] == "play.discard":
                follows = before["data"]["seat"] if before["type"] == "play.claim" else \
                    "ESWN"[("ESWN".index(before["data"]["seat"]) + 1) % 4]
                assert after["data"]["seat"] == follows
        # to 荒牌, or to a player's win that the demo, standing in for the referee, read and confirmed
        confirms = [e for e in events if e["type"] == "referee.win_confirm" and e["seq"] < first_end["seq"]]
        if first_end["data"]["result"] == "win":
            assert len(confirms) == 1 and confirms[0]["source"] == "demo"
        else:
            assert first_end["data"]["result"] == "draw" and not confirms and len(discards) > 40
        # the players keep the ruleset's rules: nothing they play is refused, no hand is stopped (中止)
        assert not [e for e in events if e["type"] == "controller.rejected"]
        assert "abandoned" not in [e["data"].get("result") for e in events if e["type"] == "operator.hand_end"]
    finally:
        code, out = _stop(demo)
    assert code == 0, out
    # what a first user reads: no warning or error (the generated credentials were one at every start,
    # telling to set them in a config the demo has none of), no refusal the demo met, no traceback
    logged = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    assert [r for r in logged if r["level"] not in ("info", "debug")] == [], out
    assert not [r for r in logged if r["logger"] == "table_controller.demo"], out
    assert "Traceback" not in out
    assert any(r["msg"].startswith("generated display credentials") for r in logged)  # still in the log, as info
    assert "裁判凭证 / referee token: " in out


def test_a_table_killed_mid_hand_restarts_with_every_event_it_had_shown(tmp_path: Path) -> None:
    """SIGKILL (a power cut, the kernel's OOM killer) in the middle of a hand: the log opens clean,
    holds every event the display had already shown, and the table starts again from it (the
    state folded back, numbers going on without a gap or a repeat)."""
    import sqlite3

    port = _free_port()
    args = TABLECTL + ["demo", "--no-browser", "--port", str(port), "--data-dir", str(tmp_path),
                       "--speed", "100", "--hand-seconds", "0.2", "--turn-seconds", "0.01"]
    base = f"http://127.0.0.1:{port}"
    demo = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, text=True)
    try:
        shown = _wait(lambda: (s := _state(base))["hands_played"] >= 1 and s["hand"]
                      and not s["hand"].get("ended") and s["seq"] > 100 and s, 90, "a hand under way")
        demo.send_signal(signal.SIGKILL)
        demo.wait(10)
    finally:
        if demo.poll() is None:
            demo.kill()
            demo.wait(10)
    db = sqlite3.connect(tmp_path / "events.sqlite3")
    assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    seqs = [r[0] for r in db.execute("SELECT seq FROM events ORDER BY seq")]
    db.close()
    assert seqs == list(range(1, len(seqs) + 1)) and seqs[-1] >= shown["seq"]  # nothing shown was lost
    again = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        state = _wait(lambda: (s := _state(base))["seq"] > seqs[-1] + 20 and s, 90,
                      "the restarted table going on")
        assert state["hands_played"] >= shown["hands_played"]
    finally:
        code, out = _stop(again)
    assert code == 0, out
    db = sqlite3.connect(tmp_path / "events.sqlite3")
    rows = db.execute("SELECT seq, type, data FROM events ORDER BY seq").fetchall()
    db.close()
    assert [r[0] for r in rows] == list(range(1, len(rows) + 1))  # numbers go on: no gap, no repeat
    after = [(t, json.loads(d)) for seq, t, d in rows if seq > seqs[-1]]
    # the restarted simulator is idle: the log learns it from the table (resync), then the open hand
    # is closed and the next one is played from a fresh shuffle
    assert after[0][0] == "link.up" and after[1] == ("table.phase", {"phase": "idle", "resync": True})
    assert ("operator.hand_end", "abandoned") in [(t, d.get("result")) for t, d in after]
    assert any(t == "table.dice" for t, _ in after) and any(t == "play.discard" for t, _ in after)

"""`tablectl check` (开赛前检查) against real parts: a simulator's board on a pty, SQLite logs, a
Mosquitto broker with one user per table, a port already taken."""

from __future__ import annotations

import json
import re
import secrets
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from table_controller.config import parse_config
from table_controller.preflight import run_checks
from table_controller.store import EventStore
from table_controller.tournament import broker_config
from table_controller.tournament.broker import MOSQUITTO, LocalBroker, free_port

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def board() -> str:
    sim = subprocess.Popen([sys.executable, "-m", "table_controller.cli", "sim", "--pty", "--seed", "8"], cwd=ROOT,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert sim.stdout is not None
    path = sim.stdout.readline().strip()
    yield path
    sim.send_signal(signal.SIGINT)
    sim.wait(10)
    for stream in (sim.stdout, sim.stderr):
        if stream:
            stream.close()


def _levels(findings: list) -> dict[str, str]:
    return {f.what.split(" / ")[1]: f.level for f in findings}


def test_a_table_ready_for_the_match_and_one_that_is_not(tmp_path: Path, board: str) -> None:
    if not Path(MOSQUITTO).exists():
        pytest.fail("mosquitto is not installed (Debian package `mosquitto`, listed in apt-packages.txt)")
    port = free_port()
    files = broker_config.write(tmp_path / "venue", f"mqtt://127.0.0.1:{port}", "cup", ["t01"])
    broker = LocalBroker(tmp_path / "broker", auth=files, port=port)
    broker.start()
    try:
        data, stick = tmp_path / "data", tmp_path / "usb"
        stick.mkdir()
        store = EventStore(data / "events.sqlite3")
        store.append("referee", "referee.note", {"text": "开赛"}, at=1.0)
        store.close()
        section = {"broker": f"mqtt://127.0.0.1:{port}", "name": "cup", "table_id": "t01", "username": "t01",
                   "password": files.password("t01")}
        good = parse_config({"table": {"link": board}, "storage": {"data_dir": str(data), "mirror_dir": str(stick)},
                             "display": {"port": free_port()}, "tournament": section}, source=str(tmp_path / "t.toml"))
        found = run_checks(good)
        levels = _levels(found)
        assert [levels[k] for k in ("config", "event log", "log mirror", "table board", "tournament broker",
                                    "display port")] == ["ok"] * 6, [f.to_json() for f in found]
        assert "SIM-000008" in next(f.detail for f in found if "board" in f.what)
        assert "holds 1 events" in next(f.detail for f in found if "event log" in f.what)

        # another table's log on the stick, a wrong password, the port taken, the board unplugged
        other = EventStore(stick / "events.sqlite3")
        other.append("referee", "referee.note", {"text": "别桌"}, at=2.0)
        other.close()
        with socket.socket() as taken:
            taken.bind(("127.0.0.1", 0))
            taken.listen()
            bad = parse_config({"table": {"link": str(tmp_path / "ttyUSB9")},
                                "storage": {"data_dir": str(data), "mirror_dir": str(stick)},
                                "display": {"port": taken.getsockname()[1]},
                                "tournament": {**section, "password": "wrong"}}, source=str(tmp_path / "t.toml"))
            found = run_checks(bad)
        levels = _levels(found)
        assert [levels[k] for k in ("log mirror", "table board", "tournament broker", "display port")] == ["fail"] * 4
        details = " ".join(f.detail for f in found)
        assert "another table's log" in details and "is the cable in" in details and "another service there" in details
    finally:
        broker.stop()


def test_the_command_says_ready_or_not_and_refuses_a_wrong_config(tmp_path: Path) -> None:
    config = tmp_path / "t.toml"
    config.write_text(f'[table]\nlink = "sim://"\n[storage]\ndata_dir = "data"\n[display]\nport = {free_port()}\n',
                      encoding="utf-8")
    out = subprocess.run([sys.executable, "-m", "table_controller.cli", "check", "--config", str(config), "--json"],
                         cwd=ROOT, capture_output=True, text=True, timeout=60)
    body = json.loads(out.stdout)
    assert out.returncode == 0 and body["ok"], body
    assert {f["what"].split(" / ")[1] for f in body["findings"]} >= {"config", "event log", "table board", "clock"}
    config.write_text('[table]\nlink = "sim://"\n[rules]\nruleset = "klondike"\n', encoding="utf-8")
    wrong = subprocess.run([sys.executable, "-m", "table_controller.cli", "check", "--config", str(config)],
                           cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert wrong.returncode == 2 and "klondike" in wrong.stderr


def test_a_damaged_log_is_flagged_with_what_the_next_start_will_do(tmp_path: Path) -> None:
    import random

    data = tmp_path / "data"
    store = EventStore(data / "events.sqlite3")
    store.restore([(i + 1, 1.0 + i, "referee", "referee.note", f'{{"text": "记{i}"}}') for i in range(2000)], None)
    store.close()
    log = data / "events.sqlite3"
    pages = log.stat().st_size // 4096
    with log.open("r+b") as f:  # a page of noise in the middle, as a failing card leaves it
        f.seek((pages // 2) * 4096)
        f.write(random.Random(3).randbytes(4096))
    config = parse_config({"table": {"link": "/dev/null-no-board"}, "storage": {"data_dir": str(data)},
                           "display": {"port": free_port()}}, source=str(tmp_path / "t.toml"))
    found = {f.what.split(" / ")[1]: f for f in run_checks(config)}
    assert found["event log"].level == "warn"
    assert "damaged" in found["event log"].detail and "events.damaged-" in found["event log"].detail


def test_a_kernel_port_name_is_flagged_with_its_stable_name(tmp_path: Path) -> None:
    """/dev/ttyUSB0 follows the plugging order; the check names the by-id link of the same device."""
    from table_controller.preflight import unstable_port

    dev, by_id = tmp_path / "ttyUSB0", tmp_path / "by-id"
    dev.write_text("")
    by_id.mkdir()
    (by_id / "usb-FTDI_FT232R_A50285BI-if00-port0").symlink_to(dev)
    (by_id / "usb-other-if00-port0").symlink_to(tmp_path / "ttyUSB1")
    hint = unstable_port(str(dev), by_id)
    assert hint is not None and "usb-FTDI_FT232R_A50285BI-if00-port0" in hint and "usb-other" not in hint
    assert unstable_port(str(by_id / "usb-FTDI_FT232R_A50285BI-if00-port0"), by_id) is None
    assert unstable_port("/dev/pts/3", by_id) is None
    assert "/dev/serial/by-id/" in (unstable_port(str(tmp_path / "ttyACM2"), tmp_path / "none") or "")


def test_the_check_while_the_service_holds_the_port_says_so(tmp_path: Path, board: str) -> None:
    from drivers.transport import _serial_for_url
    from table_controller.preflight import check_table

    held = _serial_for_url(board, 115200)  # as the running service holds it
    try:
        finding = check_table(parse_config({"table": {"link": board}}, source=str(tmp_path / "t.toml")))
    finally:
        held.close()
    assert finding.level == "warn" and "in use" in finding.detail


def test_a_short_pin_and_a_config_others_can_read_are_named(tmp_path: Path, self_signed: tuple[Path, Path]) -> None:
    """A 4-digit referee PIN, a config holding the broker's password at mode 644 and a TLS key others can read
    passed the check without a word (the PIN is guessed in a day from one phone, 5 tries a minute)."""
    from table_controller.preflight import check_secrets
    config = tmp_path / "t.toml"
    config.write_text("", encoding="utf-8")
    config.chmod(0o644)
    weak = parse_config({"display": {"referee_token": "1234", "operator_token": "op-long-enough"}}, source=str(config))
    found = check_secrets(weak)
    assert found.level == "warn"
    assert "referee_token: 只有 4 个字符" in found.detail and "operator_token" not in found.detail
    assert f"chmod 600 {config}" in found.detail
    config.chmod(0o600)
    assert check_secrets(parse_config({"display": {"referee_token": "ref-123456"}}, source=str(config))).level == "ok"
    assert check_secrets(parse_config({}, source=str(config))).level == "ok"  # random credentials at start
    cert, key = self_signed
    key.chmod(0o644)
    tls = parse_config({"display": {"tls_cert": str(cert), "tls_key": str(key)}}, source=str(config))
    assert check_secrets(tls).level == "warn" and f"chmod 600 {key}" in check_secrets(tls).detail


def test_a_common_pin_is_named_by_the_check_and_a_made_up_one_passes(tmp_path: Path) -> None:
    """123456, 000000, 121212 and "password" passed the check without a word: long enough, and guessed at once.
    The credential itself is never shown, only where it is set and why."""
    from table_controller.preflight import check_secrets
    from table_controller.web.auth import weakness
    config = tmp_path / "t.toml"
    config.write_text("", encoding="utf-8")
    config.chmod(0o600)
    for pin in ("123456", "000000", "654321", "121212", "123123", "Password", "abcdefg", "888888888"):
        found = check_secrets(parse_config({"display": {"referee_token": pin, "operator_token": "op-long-enough"}},
                                           source=str(config)))
        assert found.level == "warn" and "[display] referee_token: " in found.detail, (pin, found)
        assert pin not in found.detail and "operator_token" not in found.detail, (pin, found.detail)
    named = parse_config({"display": {"referees": [{"name": "王立", "token": "111111"},
                                                   {"name": "李敏", "token": "li-min-4827"}]}}, source=str(config))
    found = check_secrets(named)
    assert found.level == "warn" and "王立" in found.detail and "李敏" not in found.detail, found.detail
    for pin in ("ref-123456", "482913", "wang-li-07"):  # a PIN nobody tries first passes
        assert weakness(pin) is None, pin
    # the credentials a demo or an empty [display] makes up at start (12 random URL-safe characters) always pass
    assert all(weakness(secrets.token_urlsafe(9)) is None for _ in range(2000))


def test_a_camera_that_takes_the_connection_and_sends_nothing_fails_in_seconds(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A network camera rebooting (or a wrong port that answers nothing) held `tablectl check` for
    OpenCV's 30 s; it is opened with the service's read timeout now (vision.camera.open_capture, whose
    default `READ_TIMEOUT_S` test_vision_camera_cli checks). Here that timeout is 1 s instead of 5: the
    check still goes through the real OpenCV open and read, and a check that opened the camera without
    it still takes OpenCV's 30 s, far beyond the bound."""
    import functools
    import time

    import vision.camera
    from table_controller.preflight import check_camera

    READ_TIMEOUT_S = 1.0
    monkeypatch.setattr(vision.camera, "open_capture",
                        functools.partial(vision.camera.open_capture, timeout_s=READ_TIMEOUT_S))

    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(4)
        url = f"http://127.0.0.1:{silent.getsockname()[1]}/stream.mjpg"
        config = parse_config({"table": {"link": "sim://"}, "camera": {"source": url}}, source="test")
        started = time.monotonic()
        finding = check_camera(config)
        took = time.monotonic() - started
    assert finding is not None and finding.level == "fail" and "no picture" in finding.detail
    assert took < READ_TIMEOUT_S * 2 + 3, took


def test_the_check_beside_the_running_service_does_not_fail_its_display_port(tmp_path: Path) -> None:
    """With the unit enabled, the service runs from boot: `tablectl check` failed the display port
    ("Address already in use ... another service there?") and said not ready, every time. The
    port held by the service of this data directory is now a warning naming it; a port held by
    something else still fails."""
    port = free_port()
    config = tmp_path / "t.toml"
    config.write_text(f'[table]\nlink = "sim://"\n[storage]\ndata_dir = "data"\n[display]\nport = {port}\n',
                      encoding="utf-8")
    service = subprocess.Popen([sys.executable, "-m", "table_controller.cli", "run", "--config", str(config)],
                               cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        assert service.stdout is not None
        while not service.stdout.readline().startswith("显示 / display"):
            assert service.poll() is None, "the service did not start"
        out = subprocess.run([sys.executable, "-m", "table_controller.cli", "check", "--config", str(config), "--json"],
                             cwd=ROOT, capture_output=True, text=True, timeout=60)
    finally:
        service.send_signal(signal.SIGTERM)
        service.communicate(timeout=20)
    found = {f["what"]: f for f in json.loads(out.stdout)["findings"]}["显示端口 / display port"]
    assert out.returncode == 0, out.stdout
    assert found["level"] == "warn" and f"in use by this table's service (pid {service.pid})" in found["detail"]
    with socket.create_server(("127.0.0.1", port)):  # something else on the port, the service stopped
        other = run_checks(parse_config({"table": {"link": "sim://"}, "storage": {"data_dir": "data"},
                                         "display": {"port": port}}, source=str(config)), probe_table=False)
    detail = next(f for f in other if f.what == "显示端口 / display port")
    assert detail.level == "fail" and "another service there?" in detail.detail


def test_damaged_logs_kept_aside_are_named_until_copied_off(tmp_path: Path) -> None:
    """A start that found the log damaged keeps it aside (events.damaged-<time>.sqlite3) and never removes
    it: on a Pi's SD card they piled up without a word. The check names them, with their size."""
    from table_controller.preflight import check_storage

    data = tmp_path / "data"
    store = EventStore(data / "events.sqlite3")
    store.append("referee", "referee.note", {"text": "开赛"}, at=1.0)
    store.close()
    config = parse_config({"storage": {"data_dir": str(data)}}, source=str(tmp_path / "t.toml"))
    assert check_storage(config)[0].level == "ok"
    (data / "events.damaged-20261201T031500.sqlite3").write_bytes(b"\0" * 300_000)
    (data / "events.damaged-20261201T031500.sqlite3-wal").write_bytes(b"\0" * 200_000)
    found = check_storage(config)[0]
    assert found.level == "warn" and "1 damaged log(s) kept aside (0.5 MB" in found.detail
    assert "events.damaged-20261201T031500.sqlite3 the newest" in found.detail and "the log holds 1 events" in found.detail


def test_a_mirror_copy_moved_aside_is_named_until_copied_off(tmp_path: Path) -> None:
    """The mirror moves an unreadable copy on the stick aside (events.corrupt-<time>.sqlite3) and copies
    afresh; the check named only the data directory's damaged logs, so the stick's piled up unseen."""
    from table_controller.mirror import MIRROR_FILE, LogMirror
    from table_controller.preflight import check_storage

    data, stick = tmp_path / "data", tmp_path / "usb"
    stick.mkdir()
    store = EventStore(data / "events.sqlite3")
    store.append("referee", "referee.note", {"text": "开赛"}, at=1.0)
    config = parse_config({"storage": {"data_dir": str(data), "mirror_dir": str(stick)}},
                          source=str(tmp_path / "t.toml"))
    (stick / MIRROR_FILE).write_bytes(b"SQLite format 3\x00" + b"\xde\xad" * 600)  # a stick pulled mid-write
    mirror = LogMirror(store, stick, wall_clock=lambda: 1234.0)
    assert mirror.sync() == 1
    mirror.close()
    store.close()
    found = {f.what: f for f in check_storage(config)}["记录备份 / log mirror"]
    assert found.level == "warn" and "1 damaged log(s) kept aside" in found.detail
    assert "events.corrupt-1234.sqlite3 the newest" in found.detail and "1 events copied" in found.detail
    (stick / "events.corrupt-1234.sqlite3").unlink()
    assert {f.what: f for f in check_storage(config)}["记录备份 / log mirror"].level == "ok"


def test_the_mirror_check_reads_the_log_without_writing_it(tmp_path: Path) -> None:
    """The check compares the stick's copy with the log, and opened the log as the service does (an `EventStore`:
    its tables, WAL mode, a checkpoint at close), so `tablectl check` rewrote the table's log it promises only to
    read. The log's bytes are the same after it now."""
    import hashlib

    from table_controller.mirror import LogMirror
    from table_controller.preflight import check_storage

    data, stick = tmp_path / "data", tmp_path / "usb"
    stick.mkdir()
    store = EventStore(data / "events.sqlite3")
    store.append("referee", "referee.note", {"text": "开赛"}, at=1.0)
    mirror = LogMirror(store, stick)
    assert mirror.sync() == 1
    mirror.close()
    store.close()
    log = data / "events.sqlite3"
    before = hashlib.sha256(log.read_bytes()).hexdigest()
    config = parse_config({"storage": {"data_dir": str(data), "mirror_dir": str(stick)}},
                          source=str(tmp_path / "t.toml"))
    found = {f.what: f for f in check_storage(config)}["记录备份 / log mirror"]
    assert found.level == "ok" and "1 events copied" in found.detail
    assert hashlib.sha256(log.read_bytes()).hexdigest() == before


def test_a_usb_board_not_on_the_bus_is_named_without_the_serial_hints(tmp_path: Path) -> None:
    """The real libusb, no such device here. It said "no answer (…); check the cable, the baud rate and
    [table].dialect": a USB board has no baud rate, and the port never opened to answer."""
    import usb.backend.libusb1

    from table_controller.preflight import check_table

    if usb.backend.libusb1.get_backend() is None:
        pytest.skip("libusb-1.0-0 is not installed here")
    finding = check_table(parse_config({"table": {"link": "usb://1a86:0001"}}, source=str(tmp_path / "t.toml")),
                          timeout=0.5)
    assert finding.level == "fail"
    assert finding.detail.startswith("找不到 USB 设备 1a86:0001") and "no USB device 1a86:0001 plugged in" in finding.detail
    assert "baud" not in finding.detail and "no answer" not in finding.detail


def _chinese_first(detail: str) -> bool:
    """Chinese up to the first " / " (after the path or address the line is of), English after it."""
    zh, _, en = detail.partition(" / ")
    return bool(re.search(r"[\u4e00-\u9fff]", zh)) and bool(re.search(r"[A-Za-z]{3,}", en))


def test_every_line_of_the_check_is_said_chinese_first(tmp_path: Path, board: str,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    """The labels were "事件记录 / event log", the details English ("writable, 81593 MB free; no log yet"),
    some with a Chinese tail: the venue's technician read the check in English. Each line now says it
    中文 / English, the English as it was after it; ready or not too."""
    from table_controller.cli import main

    data, stick = tmp_path / "data", tmp_path / "usb"
    stick.mkdir()
    store = EventStore(data / "events.sqlite3")
    store.append("referee", "referee.note", {"text": "开赛"}, at=1.0)
    store.close()
    (data / "events.damaged-20261201T031500.sqlite3").write_bytes(b"\0" * 1000)
    config = tmp_path / "t.toml"
    config.write_text(f'[table]\nlink = "{board}"\n[storage]\ndata_dir = "{data}"\nmirror_dir = "{stick}"\n'
                      f'[display]\nhost = "0.0.0.0"\nport = {free_port()}\nreferee_token = "1234"\n'
                      f'[camera]\nsource = "{tmp_path / "gone.mjpg"}"\n'
                      f'[tournament]\nbroker = "mqtt://127.0.0.1:{free_port()}"\nname = "cup"\ntable_id = "t01"\n'
                      'username = "judge"\npassword = "x"\n', encoding="utf-8")
    config.chmod(0o644)
    ready = parse_config({"table": {"link": "sim://"}, "storage": {"data_dir": str(data), "mirror_dir": str(stick)},
                          "display": {"port": free_port()}}, source=str(tmp_path / "none.toml"))
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        wrong = parse_config({"table": {"link": str(tmp_path / "ttyUSB9")},
                              "storage": {"data_dir": str(tmp_path / "other"), "mirror_dir": str(tmp_path / "no-usb")},
                              "display": {"port": taken.getsockname()[1]}}, source=str(tmp_path / "none.toml"))
        found = run_checks(ready) + run_checks(wrong, probe_table=True)
    assert main(["check", "--config", str(config)]) == 1
    printed = capsys.readouterr().out.splitlines()
    lines = [f"{f.what}: {f.detail}" for f in found] + [line[2:] for line in printed[:-1]]
    assert len(lines) >= 20 and {"camera", "tournament broker", "log mirror", "clock"} <= {
        line.split(": ")[0].split(" / ")[1] for line in lines}
    wrong_lines = [line for line in lines if not _chinese_first(line.split(": ", 1)[1])]
    assert not wrong_lines, "\n".join(wrong_lines)
    assert printed[-1] == "未就绪：2 项需处理 / not ready: 2 to put right", printed

"""`tablectl install-service`: the unit a Pi boots the table with. The unit is checked by systemd's
own parser, and its ExecStart line is run the way systemd runs it (from /, with the unit's
environment) to show that the controller starts, serves, stops cleanly on SIGTERM, and exits
with the status the unit tells systemd not to restart on when the config is wrong."""

from __future__ import annotations

import getpass
import os
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from table_controller.deploy import CONFIG_ERROR_EXIT, RETRY_AFTER_S, START_TIMEOUT_S, WATCHDOG_S
from table_controller.tournament.broker import free_port as _free_port

TABLECTL = [sys.executable, "-m", "table_controller.cli"]


def _unit(text: str) -> dict[str, list[str]]:
    keys: dict[str, list[str]] = {}
    for line in text.splitlines():
        if "=" in line and not line.startswith(("#", "[")):
            k, v = line.split("=", 1)
            keys.setdefault(k, []).append(v)
    return keys


def _install(tmp_path: Path, config_text: str) -> tuple[Path, subprocess.CompletedProcess[str]]:
    config = tmp_path / "etc" / "table.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(config_text, encoding="utf-8")
    proc = subprocess.run(TABLECTL + ["install-service", "--config", str(config), "--root", str(tmp_path / "root"),
                                      "--user", getpass.getuser()], capture_output=True, text=True, timeout=60)
    return config, proc


def _serve_then_stop(unit: dict[str, list[str]], url: str, tmp_path: Path) -> int:
    """Run the unit's ExecStart as systemd does (from /, with its environment, a notify socket and the
    unit's watchdog: Type=notify, WatchdogSec=) until `url` answers, then stop it as systemd does (SIGTERM,
    TimeoutStopSec); its exit status. On the way it must have said READY=1, WATCHDOG=1 and STOPPING=1."""
    notify = tmp_path / "notify"
    env = {**os.environ, **dict(e.split("=", 1) for e in unit["Environment"]), "NOTIFY_SOCKET": str(notify),
           "WATCHDOG_USEC": str(int(unit["WatchdogSec"][0]) * 1_000_000)}
    mask = int(unit["UMask"][0], 8)
    heard: list[str] = []
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
        sock.bind(str(notify))
        sock.settimeout(0.2)

        def hear() -> None:
            try:
                heard.extend(sock.recv(4096).decode("utf-8").splitlines())
            except TimeoutError:
                pass

        proc = subprocess.Popen(shlex.split(unit["ExecStart"][0]), cwd="/", env=env, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True, preexec_fn=lambda: os.umask(mask))
        try:
            deadline = time.monotonic() + 30
            while not ("READY=1" in heard and "WATCHDOG=1" in heard):
                hear()
                assert time.monotonic() < deadline and proc.poll() is None, f"not ready: {heard}"
            assert httpx.get(url, timeout=2).status_code == 200  # ready: it answers
            proc.send_signal(signal.SIGTERM)
            proc.communicate(timeout=float(unit["TimeoutStopSec"][0]))
            hear()
            assert "STOPPING=1" in heard, heard
            return proc.returncode
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.communicate()


def _watched(unit: dict[str, list[str]], name: str, retry: Path) -> None:
    """The unit as systemd must run it: it says when it is up and that its loop turns (Type=notify,
    WatchdogSec=); a burst of failed starts stops it, and its retry unit starts it again minutes later."""
    assert unit["Type"] == ["notify"] and unit["NotifyAccess"] == ["main"]
    assert unit["WatchdogSec"] == [str(WATCHDOG_S)] and unit["TimeoutStartSec"] == [str(START_TIMEOUT_S)]
    assert unit["Restart"] == ["on-failure"] and unit["RestartSec"] == ["3"]
    assert unit["StartLimitBurst"] == ["5"] and unit["StartLimitIntervalSec"] == ["120"]
    assert unit["OnFailure"] == [f"{name}-retry.service"]
    assert not {"RestartSteps", "RestartMaxDelaySec"} & set(unit)  # systemd 254's: bookworm's 252 ignores them
    again = _unit(retry.read_text(encoding="utf-8"))
    assert again["PartOf"] == [f"{name}.service"]  # `systemctl stop` of the table stops the wait too
    # only after the start limit (a config refused, exit 2, stays stopped), and after RETRY_AFTER_S
    assert again["ExecCondition"] == [f"/bin/sh -c 'test \"$$(systemctl show -P Result {name}.service)\" = "
                                      "start-limit-hit'"]
    assert again["ExecStart"] == [f"/bin/sh -c 'sleep {RETRY_AFTER_S} && systemctl reset-failed {name}.service && "
                                  f"systemctl start --no-block {name}.service'"]
    if shutil.which("systemd-analyze"):
        check = subprocess.run(["systemd-analyze", "verify", str(retry)], capture_output=True, text=True, timeout=60)
        assert check.returncode == 0 and retry.name not in check.stderr, check.stderr


def test_the_unit_passes_systemd_and_its_command_runs_the_table(tmp_path: Path) -> None:
    port = _free_port()
    config, proc = _install(tmp_path, f'[table]\nname = "9号桌"\nlink = "sim://"\n[display]\nport = {port}\n'
                                      '[storage]\ndata_dir = "../var/mahjong"\n')
    assert proc.returncode == 0, proc.stderr
    unit_path = tmp_path / "root" / "etc/systemd/system/mahjong-table.service"
    assert f"wrote {unit_path}" in proc.stdout
    data = (tmp_path / "var" / "mahjong").resolve()
    assert f"mkdir -p {data}" in proc.stdout and "systemctl daemon-reload && systemctl enable --now mahjong-table" in proc.stdout
    assert not (tmp_path / "root" / "etc/udev").exists()  # a sim:// (or serial) table needs no udev rule
    text = unit_path.read_text(encoding="utf-8")
    unit = _unit(text)
    # the config's folder too: a PIN changed on the referee page is written there (a new file renamed over the
    # old); without it, ProtectSystem=strict refused every change on the Pi (配置文件无法写入)
    assert unit["ReadWritePaths"] == [f"{data} {config.parent}"]
    assert unit["RestartPreventExitStatus"] == [str(CONFIG_ERROR_EXIT)]
    assert "9号桌" in unit["Description"][0]

    if shutil.which("systemd-analyze"):
        check = subprocess.run(["systemd-analyze", "verify", str(unit_path)], capture_output=True, text=True, timeout=60)
        assert check.returncode == 0 and "mahjong-table.service" not in check.stderr, check.stderr

    # ExecStart as systemd runs it: from /, with the unit's environment (the data directory exists first)
    data.mkdir(parents=True)
    _watched(unit, "mahjong-table", unit_path.with_name("mahjong-table-retry.service"))
    assert f"wrote {unit_path.with_name('mahjong-table-retry.service')}" in proc.stdout
    assert _serve_then_stop(unit, f"http://127.0.0.1:{port}/api/health", tmp_path) == 0
    assert (data / "events.sqlite3").is_file()  # the event log went where ReadWritePaths lets it write
    # every tile of every hand is in it: no other account on the Pi reads it (it was 0644)
    assert (data / "events.sqlite3").stat().st_mode & 0o777 == 0o640
    assert all(f.stat().st_mode & 0o007 == 0 for f in data.iterdir()), "readable by all"

    # the config goes wrong later: the command exits with the status the unit does not restart on
    config.write_text('[rules]\nruleset = "klondike"\n', encoding="utf-8")
    bad = subprocess.run(shlex.split(unit["ExecStart"][0]), cwd="/", capture_output=True, text=True, timeout=60)
    assert bad.returncode == CONFIG_ERROR_EXIT and "rules.ruleset" in bad.stderr


def test_a_usb_table_with_a_camera_gets_its_groups_and_a_udev_rule(tmp_path: Path) -> None:
    config, proc = _install(tmp_path, '[table]\nlink = "usb://1A86:7523"\n[camera]\nsource = "0"\n'
                                      'enrollment = "tiles/table.npz"\n[display]\nport = 80\n'
                                      '[storage]\nmirror_dir = "/media/usb/mahjong"\n')
    assert proc.returncode == 0, proc.stderr
    unit = _unit((tmp_path / "root" / "etc/systemd/system/mahjong-table.service").read_text(encoding="utf-8"))
    assert unit["SupplementaryGroups"] == ["plugdev video"]
    # the log's mirror on a stick may be out when the table starts: "-" lets systemd start without it
    assert unit["ReadWritePaths"] == [f"{config.parent / 'data'} {config.parent / 'tiles'} {config.parent} "
                                      "-/media/usb/mahjong"]
    assert unit["AmbientCapabilities"] == ["CAP_NET_BIND_SERVICE"]  # port 80
    assert "Wants" not in unit  # a USB table with a USB camera starts without waiting for the network
    rule = (tmp_path / "root" / "etc/udev/rules.d/60-mahjong-table.rules").read_text(encoding="utf-8")
    assert 'ATTR{idVendor}=="1a86", ATTR{idProduct}=="7523"' in rule and 'GROUP="plugdev"' in rule
    assert "udevadm control --reload" in proc.stdout


@pytest.mark.parametrize(("config_text", "args", "message"), [
    ('[rules]\nruleset = "klondike"\n', [], "rules.ruleset"),
    ('[table]\nlink = "sim://"\n', ["--user", "Bad User"], "not a valid login name"),
    ('[table]\nlink = "sim://"\n', ["--unit", "../etc/passwd"], "unit name"),
])
def test_refuses_a_bad_config_user_or_unit_and_writes_nothing(tmp_path: Path, config_text: str, args: list[str],
                                                              message: str) -> None:
    config = tmp_path / "table.toml"
    config.write_text(config_text, encoding="utf-8")
    proc = subprocess.run(TABLECTL + ["install-service", "--config", str(config), "--root", str(tmp_path / "root"), *args],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and message in proc.stderr
    assert not (tmp_path / "root").exists()


def test_serial_link_gets_dialout_and_print_writes_nothing(tmp_path: Path) -> None:
    config = tmp_path / "table.toml"
    config.write_text('[table]\nlink = "/dev/serial/by-id/usb-FTDI_FT232R-if00-port0"\n', encoding="utf-8")
    proc = subprocess.run(TABLECTL + ["install-service", "--config", str(config), "--root", str(tmp_path / "root"),
                                      "--print", "--user", "pi"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert "SupplementaryGroups=dialout\n" in proc.stdout and "User=pi\n" in proc.stdout
    assert "udev" not in proc.stdout and not (tmp_path / "root").exists()


def test_the_hubs_unit_passes_systemd_and_its_command_serves_the_standings(tmp_path: Path) -> None:
    """The tournament's hub as a service: its arguments after `--`, the data directory made
    absolute, the broker password from an optional environment file; the command runs from /
    and serves the standings (the broker may come later: the hub waits for it)."""
    port = _free_port()
    root = tmp_path / "root"
    proc = subprocess.run(TABLECTL + ["install-service", "--hub", "--root", str(root), "--user", getpass.getuser(), "--",
                                      "--broker", "mqtt://127.0.0.1:1", "--tournament", "spring-cup",
                                      "--port", str(port), "--data-dir", "hub-data"],
                          capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    unit_path = root / "etc/systemd/system/mahjong-hub.service"
    unit = _unit(unit_path.read_text(encoding="utf-8"))
    data = tmp_path / "hub-data"
    assert unit["ReadWritePaths"] == [str(data)] and unit["EnvironmentFile"] == ["-/etc/mahjong-hub.env"]
    assert f"--data-dir {data}" in unit["ExecStart"][0] and "spring-cup" in unit["Description"][0]
    # the broker on this machine: its unit first at boot (ordering only, nothing started with it)
    assert unit["After"] == ["network-online.target", "mosquitto.service"] and "mosquitto" not in unit["Wants"][0]
    assert "mahjong-hub" in proc.stdout and f"mkdir -p {data}" in proc.stdout
    if shutil.which("systemd-analyze"):
        check = subprocess.run(["systemd-analyze", "verify", str(unit_path)], capture_output=True, text=True, timeout=60)
        assert check.returncode == 0 and "mahjong-hub.service" not in check.stderr, check.stderr
    data.mkdir()
    _watched(unit, "mahjong-hub", unit_path.with_name("mahjong-hub-retry.service"))
    assert _serve_then_stop(unit, f"http://127.0.0.1:{port}/api/standings", tmp_path) == 0
    assert (data / "spring-cup").is_dir()  # it kept its files where ReadWritePaths lets it write
    kept = [f for f in (data / "spring-cup").rglob("*") if f.is_file()]
    assert kept and all(f.stat().st_mode & 0o007 == 0 for f in kept), "readable by all"


@pytest.mark.parametrize(("args", "message"), [
    (["--hub", "--", "--broker", "ftp://x", "--tournament", "cup"], "mqtt://"),
    (["--hub", "--", "--tournament", "cup"], "hub's arguments are wrong"),
    (["--hub", "--config", "table.toml", "--", "--broker", "mqtt://h", "--tournament", "cup"], "drop --config"),
    ([], "give the table's --config"),
    (["--hub", "--", "--broker", "mqtt://h", "--tournament", "cup", "--max-per-address", "0"], "1 至 2000"),
])
def test_the_hub_unit_refuses_wrong_arguments_and_writes_nothing(tmp_path: Path, args: list[str], message: str) -> None:
    proc = subprocess.run(TABLECTL + ["install-service", "--root", str(tmp_path / "root"), *args],
                          capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert proc.returncode == 2 and message in proc.stderr
    assert not (tmp_path / "root").exists()


def test_a_table_with_an_ip_camera_waits_for_the_network(tmp_path: Path) -> None:
    config = tmp_path / "table.toml"
    config.write_text('[table]\nlink = "/dev/ttyUSB0"\n[camera]\nsource = "rtsp://10.0.0.9/stream"\n', encoding="utf-8")
    proc = subprocess.run(TABLECTL + ["install-service", "--config", str(config), "--print", "--user", "pi"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    unit = _unit(proc.stdout)
    assert unit["After"] == ["network-online.target"] and unit["SupplementaryGroups"] == ["dialout"]


def test_the_hubs_unit_names_a_relative_ca_file_by_its_absolute_path(tmp_path: Path) -> None:
    """systemd starts the hub in /: a `--ca-file` given relative to where the unit was made must
    reach the unit as an absolute path, or the TLS hub cannot find its CA after a reboot. The
    registration list and the venue's tables reach it too (the unit dropped them)."""
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                    "-keyout", "ca.key", "-out", "ca.pem", "-days", "2", "-subj", "/CN=Test CA"],
                   cwd=tmp_path, check=True, capture_output=True)
    (tmp_path / "players.csv").write_text("id,name\nA01,甲\n", encoding="utf-8")
    proc = subprocess.run(TABLECTL + ["install-service", "--hub", "--print", "--user", "pi", "--",
                                      "--broker", "mqtts://10.0.0.2", "--tournament", "cup", "--ca-file", "ca.pem",
                                      "--players", "players.csv", "--tables", "t01=一号桌,t02=二号 桌,final",
                                      "--title", "2026 春季杯", "--max-per-address", "800"],
                          capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    unit = _unit(proc.stdout)
    assert unit["After"] == ["network-online.target", "mosquitto.service"]  # the broker may be this machine's
    argv = shlex.split(unit["ExecStart"][0])
    assert argv[argv.index("--ca-file") + 1] == str(tmp_path / "ca.pem")
    assert argv[argv.index("--players") + 1] == str(tmp_path / "players.csv")
    # the tables' names and the tournament's title, with a space, reach the unit whole
    assert argv[argv.index("--tables") + 1] == "t01=一号桌,t02=二号 桌,final"
    assert argv[argv.index("--title") + 1] == "2026 春季杯"
    assert argv[argv.index("--max-per-address") + 1] == "800"  # a hall behind one NAT'd address, after a reboot too


@pytest.mark.parametrize("host, waits", [("192.168.1.20", True), ("0.0.0.0", False), ("127.0.0.1", False)])
def test_a_display_on_one_lan_address_waits_for_the_network(tmp_path: Path, host: str, waits: bool) -> None:
    """A display bound to the Pi's LAN address cannot start before that address exists ("Cannot
    assign requested address", exit 1): the unit started it with the network and restarted it in a
    loop until DHCP answered. 0.0.0.0 (every interface) and loopback bind at once, without waiting."""
    config = tmp_path / "table.toml"
    config.write_text(f'[table]\nlink = "/dev/ttyUSB0"\n[display]\nhost = "{host}"\n', encoding="utf-8")
    proc = subprocess.run(TABLECTL + ["install-service", "--config", str(config), "--print", "--user", "pi"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    unit = _unit(proc.stdout)
    assert unit.get("After") == (["network-online.target"] if waits else None)
    assert unit.get("Wants") == (["network-online.target"] if waits else None)


def test_a_config_or_data_directory_under_tmp_is_warned_of(tmp_path: Path) -> None:
    """The unit's /tmp is private (PrivateTmp=yes): a config or a data directory under /tmp (a
    technician's first try) is not what the service sees, and a log written there goes at each stop.
    It was written without a word; now each such path is named (the unit is still written)."""
    config = Path("/tmp") / f"ops-unit-{os.getpid()}" / "table.toml"
    config.parent.mkdir(exist_ok=True)
    try:
        config.write_text('[table]\nlink = "/dev/ttyUSB0"\n[storage]\ndata_dir = "data"\n', encoding="utf-8")
        proc = subprocess.run(TABLECTL + ["install-service", "--config", str(config), "--print", "--user", "pi"],
                              capture_output=True, text=True, timeout=60)
    finally:
        shutil.rmtree(config.parent)
    assert proc.returncode == 0, proc.stderr
    warned = [line for line in proc.stderr.splitlines() if "is under /tmp" in line]
    assert [w.split(" / warning: ")[1].split(" is under")[0] for w in warned] == [str(config), str(config.parent / "data")]
    assert "PrivateTmp=yes" in proc.stdout
    from table_controller.deploy import private_tmp_paths

    assert private_tmp_paths([Path("/home/pi/table.toml"), Path("/tmpdata/log"), Path("/var/tmp")]) == [Path("/var/tmp")]


def test_a_title_with_percent_or_dollar_reaches_the_hub_as_written(tmp_path: Path) -> None:
    """systemd expands `%` specifiers and `$VAR` in ExecStart (doubling them makes them literal): a
    title "100% 满意 $HOME 杯" reached the hub as "100<spec> 满意 /root 杯" or the unit failed to load."""
    title = "100% 满意 $HOME 杯 %n"
    proc = subprocess.run(TABLECTL + ["install-service", "--hub", "--print", "--user", "pi", "--",
                                      "--broker", "mqtt://10.0.0.2", "--tournament", "cup", "--title", title],
                          capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    line = _unit(proc.stdout)["ExecStart"][0]
    # no lone % or $ is left for systemd to expand; undoing its doubling gives the title back
    stripped = line.replace("%%", "").replace("$$", "")
    assert "%" not in stripped and "$" not in stripped
    argv = [w.replace("%%", "%").replace("$$", "$") for w in shlex.split(line)]
    assert argv[argv.index("--title") + 1] == title


@pytest.mark.parametrize("source", ["0", "/dev/video2", "/dev/v4l/by-id/usb-046d_C920_ABC-video-index0",
                                    "/dev/v4l/by-path/platform-xhci-hcd.0-usb-0:1.2:1.0-video-index0"])
def test_a_local_camera_by_any_of_its_names_gets_group_video(tmp_path: Path, source: str) -> None:
    """A camera named by /dev/v4l/by-id/... (the name that survives a replug, as /dev/serial/by-id is
    for the board) is /dev/videoN, group video: the unit left the group out, and the camera showed
    nothing under the service while `tablectl check`, run by a user in group video, passed."""
    config = tmp_path / "table.toml"
    config.write_text(f'[table]\nlink = "sim://"\n[camera]\nsource = "{source}"\n', encoding="utf-8")
    proc = subprocess.run(TABLECTL + ["install-service", "--config", str(config), "--print", "--user", "pi"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert _unit(proc.stdout)["SupplementaryGroups"] == ["video"]


def _mirror_rw(tmp_path: Path, fstab: str, made: list[str], mirror: str = "/media/usb/mahjong") -> str:
    """The unit's ReadWritePaths for the stick's folder, written for a system root holding `fstab`
    and the folders `made`."""
    root = tmp_path / "root"
    for folder in made:
        (root / folder.lstrip("/")).mkdir(parents=True, exist_ok=True)
    (root / "etc").mkdir(parents=True, exist_ok=True)
    (root / "etc/fstab").write_text(fstab, encoding="utf-8")
    config = tmp_path / "table.toml"
    config.write_text(f'[table]\nlink = "sim://"\n[storage]\nmirror_dir = "{mirror}"\n', encoding="utf-8")
    proc = subprocess.run(TABLECTL + ["install-service", "--config", str(config), "--print", "--user", "pi",
                                      "--root", str(root)], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    # a stick right under / can only be pinned: said, with what to do (it was written without a word)
    assert ("mounts at /usb, right under /" in proc.stderr) == mirror.startswith("/usb/"), proc.stderr
    return _unit(proc.stdout)["ReadWritePaths"][0].split()[-1]


@pytest.mark.parametrize(("fstab", "made", "mirror", "writable"), [
    # the stick in fstab (nofail): the folder holding its mount point, never the stick
    ("# the stick\nUUID=1234-ABCD /media/usb vfat nofail,uid=pi 0 0\n", ["/media/usb"], "/media/usb/mahjong", "-/media"),
    ("UUID=1234-ABCD /mnt/stick\\040one vfat nofail 0 0\n", [], "/mnt/stick one/mahjong", "-/mnt"),
    # mounted by udisks (/media/USER/LABEL, made at mount): not in fstab, the folder holding the label's
    ("", ["/media/pi"], "/media/pi/STICK/mahjong", "-/media"),
    # nothing known of the system (an image not set up): as before, the folder itself
    ("", [], "/media/usb/mahjong", "-/media/usb/mahjong"),
    # a stick mounted at a top folder: never the whole system writable
    ("/dev/sda1 /usb vfat nofail 0 0\n", [], "/usb/mahjong", "-/usb"),
])
def test_the_mirror_sticks_writable_folder_is_the_one_holding_its_mount_point(
        tmp_path: Path, fstab: str, made: list[str], mirror: str, writable: str) -> None:
    """systemd makes each ReadWritePaths entry a mount of its own in the service's namespace: one on
    the stick (its folder, or its mount point) pinned the stick that was in at the start, and one put
    back after being pulled was mounted beneath it: the service went on writing to the stick that was
    gone and the copy never caught up (`test_a_stick_put_back_reaches_the_service`)."""
    assert _mirror_rw(tmp_path, fstab, made, mirror) == writable


def _can_unshare() -> bool:
    return os.geteuid() == 0 and shutil.which("unshare") is not None and \
        subprocess.run(["unshare", "-m", "true"], capture_output=True).returncode == 0


@pytest.mark.skipif(not _can_unshare(), reason="needs root and unshare (mount namespaces)")
def test_a_stick_put_back_reaches_the_service(tmp_path: Path) -> None:
    """The service's mount namespace as systemd makes it (a slave of the host's; every mount read-only,
    each ReadWritePaths entry bound onto itself and writable), on the unit's own ReadWritePaths: the
    stick in at the start, pulled and another put back, and the service sees and writes the new one."""
    base = tmp_path / "sys"
    rw = _mirror_rw(tmp_path, f"UUID=1 {base}/media/usb vfat nofail 0 0\n", [], f"{base}/media/usb/mahjong")
    writable = rw.lstrip("-")
    (base / "media").mkdir(parents=True)
    media, usb, mirror = base / "media", base / "media/usb", base / "media/usb/mahjong"

    def sh(cmd: str) -> None:
        subprocess.run(["sh", "-ec", cmd], check=True, capture_output=True, timeout=30)

    def plug(name: str) -> None:
        sh(f"mount -t tmpfs {name} {usb} && mkdir {mirror} && echo {name} > {mirror}/id")

    sh(f"mount -t tmpfs card {media} && mount --make-rshared {media} && mkdir {usb}")
    try:
        plug("stick1")
        service = subprocess.Popen(["unshare", "-m", "--propagation", "slave", "sh", "-ec", f"""
            mount --rbind {writable} {writable}
            for m in $(awk '{{print $5}}' /proc/self/mountinfo | grep '^{media}'); do
              case $m in {writable}|{writable}/*) mount -o remount,bind,rw $m ;; *) mount -o remount,bind,ro $m ;; esac
            done
            cat {mirror}/id; read go; cat {mirror}/id; touch {mirror}/written"""],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        assert service.stdout is not None and service.stdout.readline().strip() == "stick1"
        # the stick pulled: a umount refused as busy (exit 32) under load, twice in the whole suite, passing alone
        # each time; a stick pulled out is gone whatever holds it, as the lazy umount leaves it
        sh(f"umount {usb} || (sleep 0.5 && umount {usb}) || umount -l {usb}")
        plug("stick2")
        out, err = service.communicate("go\n", timeout=30)
        assert service.returncode == 0, err
        assert out.strip() == "stick2"  # it was stick1, the stick pulled out
        assert (mirror / "written").is_file()
    finally:
        subprocess.run(["umount", "-R", str(media)], capture_output=True)


@pytest.mark.parametrize("broker, after", [("mqtt://localhost", ["network-online.target", "mosquitto.service"]),
                                           ("mqtt://10.0.0.2", ["network-online.target", "mosquitto.service"]),
                                           ("", [])])
def test_a_table_with_a_broker_starts_after_mosquitto(tmp_path: Path, broker: str, after: list[str]) -> None:
    """One Pi running the table and the tournament's broker (named by loopback or by its LAN address):
    at boot the controller's first connection came before mosquitto listened (refused, retried); its unit
    now orders itself after mosquitto's, which changes nothing where mosquitto is not installed."""
    config = tmp_path / "table.toml"
    config.write_text(f'[table]\nlink = "/dev/ttyUSB0"\n[tournament]\nbroker = "{broker}"\n'
                      'name = "cup"\ntable_id = "t01"\n', encoding="utf-8")
    proc = subprocess.run(TABLECTL + ["install-service", "--config", str(config), "--print", "--user", "pi"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert _unit(proc.stdout).get("After", []) == after

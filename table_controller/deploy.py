"""The files that make a Raspberry Pi run one table's controller at boot: a systemd unit and,
for a table on USB, a udev rule.

Why generated, not copied: what the service needs from the system follows from the table's
config. A serial link needs the `dialout` group, a camera on /dev/video* (or /dev/v4l/by-id/...) the
`video` group, a `usb://VID:PID` link a udev rule that lets the `plugdev` group open that one device,
the event log and the camera's enrollment file writable directories under an otherwise read-only
system, and a display port under 1024 the capability to bind it. Pure but for the mount points it
reads (`stick_mount_points`): `unit_files` returns text, the command (`tablectl install-service`) writes it.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from table_controller.config import TableConfig

#: Exit status of `tablectl run` for a config it refuses: restarting cannot help, so systemd must not.
CONFIG_ERROR_EXIT = 2
#: `WatchdogSec=`: how long the event loop may go without a turn (`notify.Notifier.watchdog` pings at half of it)
#: before systemd takes it for hung and restarts the service. The slowest honest stalls measured here (2 shared
#: cores, busy) were 0.26-0.56 s while a 500-hand log (47,945 events) was folded whole at start, 0.27 s while a
#: long day's records were built after it, and 1.4-3.3 s when 100 delayed broadcast sockets came back at once
#: after a restart (docs/display.md "Latency"); a hub under 400 polling phones 1.5 s. A Pi is 5-8x slower: up
#: to 26 s. A minute is more than twice that, and a hung table is restarted within one, not never.
WATCHDOG_S = 60
#: `TimeoutStartSec=`: how long a start may go without a word. The whole fold of a long log (after an upgrade:
#: the 500-hand log 7.8-11.8 s here, 40-95 s on a Pi; a season's far more) is not bounded by it: each step of
#: its progress (正在恢复记录 n / N) asks systemd for `notify.EXTEND_START_S` more. What it bounds is said by
#: nothing: the imports, a damaged log's salvage before the fold (the same log 1.2 s here, ~10 s on a Pi), the
#: display's start (1.4-4.9 s here). Three minutes cover those on a Pi's slowest card several times over.
START_TIMEOUT_S = 180
#: The start limit: `START_BURST` starts within `START_INTERVAL_S`, each `RESTART_S` after the last ended,
#: then no more (systemd's start-limit-hit). A start that keeps failing (a card left full, the port or the log
#: held by another program) was restarted every 3-6 s forever: a Python start each time, the journal filling.
START_BURST = 5
START_INTERVAL_S = 120
RESTART_S = 3
#: After the start limit, the `<unit>-retry.service` beside it starts the table again this much later (and
#: again after each burst), so a table whose card was cleared comes back by itself. bookworm's systemd 252
#: has no growing back-off (`RestartSteps=`, `RestartMaxDelaySec=` are 254's).
RETRY_AFTER_S = 300
DEFAULT_UNIT = "mahjong-table"
HUB_UNIT = "mahjong-hub"
UNIT_NAME = re.compile(r"^[A-Za-z0-9_.@-]{1,64}$")
USB_LINK = re.compile(r"^usb://([0-9A-Fa-f]{4}):([0-9A-Fa-f]{4})(?:/.*)?$")


class DeployError(ValueError):
    """The unit cannot be written as asked (a bad name, a config path that is not absolute)."""


@dataclass(frozen=True)
class UnitFile:
    """One file to install: its path under the system root and its text."""

    path: str
    text: str
    #: What to run once it is in place ("": nothing of its own, the unit that names it is enough).
    then: str


def needed_groups(config: TableConfig) -> list[str]:
    """The supplementary groups the service needs for the devices the config names."""
    groups = []
    link = config.table.link
    if link.startswith("/dev/"):
        groups.append("dialout")  # /dev/ttyUSB*, /dev/ttyAMA*, /dev/serial/by-id/...: group dialout on Debian
    if USB_LINK.match(link):
        groups.append("plugdev")  # the udev rule below gives that group the table's USB device
    source = config.camera.source
    if source.isdigit() or source.startswith(("/dev/video", "/dev/v4l/")):
        groups.append("video")  # /dev/v4l/by-id/... (a name that survives a replug) is a link to /dev/videoN
    return groups


def writable_dirs(config: TableConfig) -> list[Path]:
    """Directories the service writes: the event log's, and the enrollment file's (the camera
    saves what the referee's rulings teach it there)."""
    dirs = [config.data_path()]
    enrollment = config.camera.enrollment
    if config.camera.source and enrollment and config.camera.learn:
        path = Path(enrollment)
        if not path.is_absolute():
            path = Path(config.source).parent / path
        dirs.append(path.resolve().parent)
    return list(dict.fromkeys(dirs))  # the enrollment may live beside the log


def optional_writable_dirs(config: TableConfig, mount_points: list[Path] | None = None,
                           root: Path = Path("/")) -> list[Path]:
    """Directories the service writes when they are there: the log's mirror on a USB stick
    (`[storage] mirror_dir`), absent while the stick is out. systemd would refuse to start the
    unit for a missing `ReadWritePaths`; with "-" it skips it (mount the stick at boot, `nofail`).

    Not the mirror's folder itself but the folder that holds the stick's mount point (`/media` for
    a stick on /media/usb): systemd makes a ReadWritePaths entry a mount of its own in the service's
    namespace, and one on the stick pinned the stick that was in at the start. Pulled and put back,
    the host mounted the new one beneath it, and the service went on writing to the old one (gone:
    the copy never caught up, docs/display.md "The stick out"). A folder on the card holds no stick,
    and a stick mounted under it later reaches the service, writable (`mount_points`: the system's
    mounts and fstab's, `stick_mount_points`)."""
    mirror = config.mirror_path()
    if mirror is None:
        return []
    if mount_points is None:
        mount_points = stick_mount_points(root)
    return [_mirror_writable(mirror, mount_points, root)]


def _stick_of(mirror: Path, mount_points: list[Path]) -> Path | None:
    """The mount point the mirror lies on (the deepest holding it), None when none is known."""
    on = [m for m in mount_points if m != Path("/") and (m == mirror or m in mirror.parents)]
    return max(on, key=lambda m: len(m.parts)) if on else None


def stick_at_top(config: TableConfig, mount_points: list[Path] | None = None, root: Path = Path("/")) -> Path | None:
    """The stick's mount point when it lies right under / (`/usb`): the unit can then only make the mount
    point itself writable (never the whole system), which pins the stick in at the start, so one pulled and
    put back does not reach the service. None where the stick mounts elsewhere or is not known."""
    mirror = config.mirror_path()
    if mirror is None:
        return None
    stick = _stick_of(mirror, stick_mount_points(root) if mount_points is None else mount_points)
    return stick if stick is not None and stick.parent == Path("/") else None


def _mirror_writable(mirror: Path, mount_points: list[Path], root: Path) -> Path:
    stick = _stick_of(mirror, mount_points)
    if stick is not None:  # the stick's mount point is known (mounted now, or in fstab): the folder holding it
        return stick.parent if stick.parent != Path("/") else stick  # never the whole system writable (stick_at_top)
    there = mirror
    while there != Path("/") and not (root / there.relative_to("/")).exists():
        there = there.parent
    if there == mirror:  # there, on no mount of its own: on the card, nothing to pin
        return mirror
    # not there now, and no mount point known for it: the stick's is the first folder there (an empty
    # mount point) or is made when it is mounted (udisks: /media/USER/LABEL); the folder holding that
    for folder in (there.parent, there):
        if folder != Path("/"):
            return folder
    return mirror


def _unescape_mount(field: str) -> Path:
    """fstab's and mountinfo's octal escapes (a space is \\040)."""
    return Path(re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), field))


def stick_mount_points(root: Path = Path("/")) -> list[Path]:
    """Mount points the system has (this one's, when `root` is it) or will have at boot (`root`'s fstab)."""
    points: list[Path] = []
    sources = [(root / "etc/fstab", 1)] + ([(Path("/proc/self/mountinfo"), 4)] if root == Path("/") else [])
    for source, column in sources:
        try:
            lines = source.read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            if len(fields) > column and not fields[0].startswith("#") and fields[column].startswith("/"):
                points.append(_unescape_mount(fields[column]))
    return points


def _quote(path: Path | str) -> str:
    """A systemd command-line word: plain when it can be, else double-quoted, with systemd's
    specifiers (%) and variables ($) doubled: a title "100%满意" or a name with "$" reached the
    process expanded (or the unit failed to load)."""
    s = str(path)
    if re.fullmatch(r"[A-Za-z0-9_./:@+=-]+", s):
        return s
    s = s.replace("\\", "\\\\").replace('"', '\\"').replace("%", "%%").replace("$", "$$")
    return '"' + s + '"'


def _unit(name: str, description: str, exec_start: list[str], user: str, groups: list[str], writable: list[Path],
          port: int, network: bool, extra: list[str] = (), optional: list[Path] = (), after: list[str] = ()) -> str:
    """One service unit, `name`: the command as `user`, restarted when it dies or hangs but not when its
    configuration is wrong, and after a burst of failed starts only by `retry_unit` minutes later,
    read-only but for `writable`, logging to the journal; started after the units `after` names when
    they start at the same boot."""
    lines = [
        "# Written by `tablectl install-service`; run it again after changing what it was made from.",
        "[Unit]",
        f"Description={description}",
        "Documentation=file://" + str(Path(__file__).resolve().parent.parent / "README.md"),
    ]
    if network:
        lines += ["Wants=network-online.target", "After=network-online.target"]
    if after:
        lines.append("After=" + " ".join(after))
    lines += [
        # a start that keeps failing (a card left full) is stopped after a burst, and tried again later by
        # the retry unit (`retry_unit`): not every 3 s forever, and not never
        f"StartLimitIntervalSec={START_INTERVAL_S}",
        f"StartLimitBurst={START_BURST}",
        f"OnFailure={name}-retry.service",
    ]
    # the service says itself when it is up (READY=1: the log folded, the display listening), what it is
    # doing (STATUS=, `systemctl status`) and that its event loop turns (WATCHDOG=1): `notify.py`
    lines += ["", "[Service]", "Type=notify", "NotifyAccess=main", f"User={user}"]
    if groups:
        lines.append("SupplementaryGroups=" + " ".join(groups))
    lines += [
        "ExecStart=" + " ".join(_quote(w) for w in exec_start),
        *extra,
        # A table that lost its board, its camera or its broker keeps running and reconnects (the
        # hub its broker); the process ends only when it cannot start (port taken: retry) or its
        # configuration is wrong (do not), or is ended by systemd when its loop stops turning (restart).
        f"WatchdogSec={WATCHDOG_S}",
        f"TimeoutStartSec={START_TIMEOUT_S}",
        "Restart=on-failure",
        f"RestartSec={RESTART_S}",
        f"RestartPreventExitStatus={CONFIG_ERROR_EXIT}",
        "TimeoutStopSec=20",
        "Environment=PYTHONUNBUFFERED=1",
        # JSON lines on stdout go to the journal: `journalctl -u <unit> -o cat`
        "StandardOutput=journal",
        "StandardError=journal",
        # the log holds every tile of every hand (concealed ones too) and the hub's the players' records:
        # what the service writes is for its own user and group, not for every account on the Pi
        "UMask=0027",
        "NoNewPrivileges=yes",
        "PrivateTmp=yes",
        "ProtectSystem=strict",
        "ProtectHome=read-only",
        "ReadWritePaths=" + " ".join([_quote(d) for d in writable] + [_quote(f"-{d}") for d in optional]),
    ]
    if port < 1024:
        lines.append("AmbientCapabilities=CAP_NET_BIND_SERVICE")
    lines += ["", "[Install]", "WantedBy=multi-user.target", ""]
    return "\n".join(lines)


def retry_unit(name: str) -> str:
    """`<name>-retry.service`, started by systemd when `name` fails for good (OnFailure=): only if that was the
    start limit (a burst of failed starts; never a config refused with exit 2, which stays stopped), it waits
    `RETRY_AFTER_S` and starts `name` again, so a table whose card was cleared comes back by itself. A stop of
    `name` (`systemctl stop`) stops the wait too (PartOf=): a technician's stop stays a stop."""
    unit = f"{name}.service"  # (`_check_names`: letters, digits, - _ . @: nothing the shell or systemd expands)
    return "\n".join([
        "# Written by `tablectl install-service`; run it again after changing what it was made from.",
        "[Unit]",
        f"Description=在 {name} 多次启动失败后过 {RETRY_AFTER_S // 60} 分钟重试 (start {name} again later)",
        f"PartOf={name}.service",
        "",
        "[Service]",
        "Type=simple",  # not oneshot: a start job waiting for minutes would hold systemd's boot unfinished
        f"ExecCondition=/bin/sh -c 'test \"$$(systemctl show -P Result {unit})\" = start-limit-hit'",
        f"ExecStart=/bin/sh -c 'sleep {RETRY_AFTER_S} && systemctl reset-failed {unit} && "
        f"systemctl start --no-block {unit}'",
        "",
    ])


def _absolute(*paths: Path) -> None:
    if not all(p.is_absolute() for p in paths):
        raise DeployError("配置文件和 tablectl 须为绝对路径（systemd 不在此目录启动） / the config file and tablectl must be "
                          "absolute paths (systemd does not start in this directory)")


def service_unit(config: TableConfig, config_path: Path, tablectl: Path, user: str,
                 mount_points: list[Path] | None = None, root: Path = Path("/"), name: str = DEFAULT_UNIT) -> str:
    """The systemd service `name` running `tablectl run --config config_path` as `user`; the config's folder is
    writable too: a referee's PIN changed on the page is written there (a new file renamed over the old)."""
    _absolute(config_path, tablectl)
    return _unit(name, f"自动麻将机控制器 {config.table.name} (mahjong table controller)",
                 [str(tablectl), "run", "--config", str(config_path)], user, needed_groups(config),
                 list(dict.fromkeys([*writable_dirs(config), config_path.parent])), config.display.port,
                 network=_on_network(config), extra=_rulesets_env(),
                 optional=optional_writable_dirs(config, mount_points, root),
                 after=broker_units(config.tournament.broker))


def broker_units(broker: str) -> list[str]:
    """With a broker, mosquitto's unit first when it starts at the same boot (`make hub` installs it on
    the hub's machine, which the hub and a table there may name by its LAN address, not by 127.0.0.1):
    the service's first connection then finds it listening instead of being refused and retried. Only
    an ordering (After=): a broker on another machine, stopped or never installed here, changes nothing."""
    return ["mosquitto.service"] if broker else []


def _rulesets_env() -> list[str]:
    """The venue's rulesets folder the config was checked against ($TABLECTL_RULESETS_DIR): without it
    the service would not find a house ruleset at boot, and would stop for good on a config error."""
    from table_controller.rules.ruleset import ENV_DIR

    folder = os.environ.get(ENV_DIR)
    return [f"Environment={_quote(f'{ENV_DIR}={Path(folder).resolve()}')}"] if folder else []


#: Display addresses that can be bound before the network is up (loopback, every interface).
BOUND_WITHOUT_NETWORK = ("", "127.0.0.1", "localhost", "::1", "0.0.0.0", "::")


def _on_network(config: TableConfig) -> bool:
    """Whether the table needs the network up first: a tournament broker, an IP camera, a table on TCP,
    a display bound to one of the Pi's LAN addresses (it does not exist before the network is up)."""
    return bool(config.tournament.broker) or "://" in config.camera.source or \
        config.table.link.startswith(("socket://", "rfc2217://")) or config.display.host not in BOUND_WITHOUT_NETWORK


#: The hub's unit reads the broker password from this file (`TABLECTL_HUB_PASSWORD=...`, mode 600), if it exists.
HUB_ENV_FILE = "/etc/mahjong-hub.env"


def hub_unit(hub_args: list[str], tablectl: Path, user: str, name: str = HUB_UNIT) -> tuple[str, Path]:
    """The systemd service running `tablectl hub HUB_ARGS` as `user` (the data directory made
    absolute); returns the unit and the data directory it writes."""
    from table_controller.commands.hub import check, parse
    from table_controller.tournament.wire import WireError

    _absolute(tablectl)
    try:
        args = parse(hub_args)
    except SystemExit:
        raise DeployError("汇总服务的参数有误（见上）；`tablectl hub --help` 列出各参数 / the hub's arguments are wrong "
                          "(above); `tablectl hub --help` lists them") from None
    try:
        check(args)
    except WireError as exc:
        raise DeployError(str(exc)) from None
    data = args.data_dir.resolve()
    # the command as parsed, each option spelled out, its paths absolute (systemd starts it in /)
    argv = ["--broker", args.broker, "--tournament", args.tournament, "--port", str(args.port), "--host", args.host,
            "--topic-prefix", args.topic_prefix, "--substitute-credit", args.substitute_credit]
    absolute = {name: value and str(Path(value).resolve()) for name, value in
                (("--ca-file", args.ca_file), ("--tls-cert", args.tls_cert), ("--tls-key", args.tls_key),
                 ("--players", args.players))}
    # every option the hub takes: a unit that dropped --players or --tables lost the registration
    # list or the venue's tables at each boot
    for option, value in (("--username", args.username), *absolute.items(), ("--client-id", args.client_id),
                          ("--tables", args.tables), ("--title", args.title),
                          ("--max-per-address", str(args.max_per_address or ""))):
        if value:
            argv += [option, value]
    unit = _unit(name, f"麻将比赛排名 {args.tournament} (tournament hub)", [str(tablectl), "hub", *argv, "--data-dir", str(data)],
                 user, [], [data], args.port, network=True, extra=[f"EnvironmentFile=-{HUB_ENV_FILE}"],
                 after=broker_units(args.broker))
    return unit, data


#: The unit's /tmp and /var/tmp are its own (PrivateTmp=yes): empty at start, removed at stop.
PRIVATE_TMP = (Path("/tmp"), Path("/var/tmp"))


def private_tmp_paths(paths: list[Path]) -> list[Path]:
    """Of the paths the service reads or writes, those under /tmp or /var/tmp: under the unit it sees
    an empty private /tmp there (a config not found, a log written into a directory removed at stop)."""
    return [p for p in paths if any(p == t or t in p.parents for t in PRIVATE_TMP)]


def udev_rule(config: TableConfig) -> str | None:
    """For a `usb://VID:PID` table: let group plugdev open exactly that device; None otherwise
    (serial adapters already belong to dialout)."""
    m = USB_LINK.match(config.table.link)
    if not m:
        return None
    vid, pid = m.group(1).lower(), m.group(2).lower()
    return ("# Written by `tablectl install-service`: the table's controller board, for the controller's user.\n"
            f'SUBSYSTEM=="usb", ATTR{{idVendor}}=="{vid}", ATTR{{idProduct}}=="{pid}", MODE="0660", GROUP="plugdev", '
            'TAG+="uaccess"\n')


def _check_names(unit: str, user: str) -> None:
    if not UNIT_NAME.match(unit):
        raise DeployError(f"服务名 {unit!r} 只能用字母、数字和 - _ . @（至多 64 个） / unit name {unit!r}: use letters, "
                          "digits, '-', '_', '.' or '@' (at most 64)")
    if not user or not re.fullmatch(r"[a-z_][a-z0-9_-]{0,31}\$?", user):
        raise DeployError(f"用户 {user!r} 不是有效的登录名 / user {user!r} is not a valid login name")


def hub_files(hub_args: list[str], tablectl: Path, user: str, unit: str = HUB_UNIT) -> tuple[list[UnitFile], Path]:
    """The hub's unit file (and the data directory to create), as `unit_files` for a table."""
    _check_names(unit, user)
    text, data = hub_unit(hub_args, tablectl, user, unit)
    return [UnitFile(f"etc/systemd/system/{unit}.service", text,
                     f"systemctl daemon-reload && systemctl enable --now {unit}"),
            UnitFile(f"etc/systemd/system/{unit}-retry.service", retry_unit(unit), "")], data


def unit_files(config: TableConfig, config_path: Path, tablectl: Path, user: str,
               unit: str = DEFAULT_UNIT, mount_points: list[Path] | None = None,
               root: Path = Path("/")) -> list[UnitFile]:
    """Every file to install, with its path under the system root and what to run after."""
    _check_names(unit, user)
    text = service_unit(config, config_path, tablectl, user, mount_points, root, unit)
    files = [UnitFile(f"etc/systemd/system/{unit}.service", text,
                      f"systemctl daemon-reload && systemctl enable --now {unit}"),
             UnitFile(f"etc/systemd/system/{unit}-retry.service", retry_unit(unit), "")]
    rule = udev_rule(config)
    if rule:
        files.append(UnitFile(f"etc/udev/rules.d/60-{unit}.rules", rule,
                              "udevadm control --reload && udevadm trigger --subsystem-match=usb"))
    return files

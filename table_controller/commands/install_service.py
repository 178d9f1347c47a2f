"""`tablectl install-service --config FILE`: make the Pi start this table's controller at boot."""

from __future__ import annotations

import argparse
import getpass
import os
import shlex
import sys
from pathlib import Path


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "install-service",
        help="写入开机运行本桌控制程序的 systemd 服务（及 udev 规则） / write the systemd unit (and udev rule) that "
        "runs this table's controller at boot",
        description="写入 /etc/systemd/system/<unit>.service，以 USER 身份运行 `tablectl run --config FILE`，"
        "带上配置中设备所需的用户组（dialout、video、plugdev），数据目录可写，其余只读；usb://VID:PID 的牌桌另写一条 udev "
        "规则。最后打印启用服务的命令。--print 只显示文件不写入；--root 写到另一个根目录下（挂载在别处的 SD 卡镜像）。 / "
        "Write /etc/systemd/system/<unit>.service running `tablectl run --config FILE` as USER, with "
        "the groups the config's devices need (dialout, video, plugdev), its data directory writable and "
        "everything else read-only; a usb://VID:PID table also gets a udev rule. Prints the commands to "
        "enable it; <unit>-retry.service beside it starts the unit again 5 minutes after a burst of failed starts "
        "(a card left full). --print shows the files without writing; --root writes under another root (an SD card "
        "image mounted elsewhere).",
    )
    p.add_argument("--config", type=Path, help="本桌的 TOML 配置文件 / the table's TOML file")
    p.add_argument("--hub", action="store_true",
                   help="安装赛事汇总服务（hub）而非牌桌：其参数写在 `--` 之后；赛事服务器密码写入 /etc/mahjong-hub.env "
                        "（TABLECTL_HUB_PASSWORD=...） / "
                        "instead of a table, the tournament's hub: its arguments follow `--`, e.g. "
                        "`install-service --hub -- --broker mqtt://10.0.0.2 --tournament spring-cup --host 0.0.0.0`; "
                        "the broker password goes in /etc/mahjong-hub.env as TABLECTL_HUB_PASSWORD=...")
    p.add_argument("hub_args", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)
    p.add_argument("--user", default=os.environ.get("SUDO_USER") or getpass.getuser(),
                   help="运行服务的账户（默认：执行 sudo 的用户，否则为当前用户） / the account the service runs as (default: the "
                        "one who ran sudo, else you)")
    p.add_argument("--unit", default="",
                   help="服务名（默认 mahjong-table，--hub 时为 mahjong-hub） / unit name (default mahjong-table, or "
                   "mahjong-hub with --hub)")
    p.add_argument("--root", type=Path, default=Path("/"),
                   help="写入的系统根目录（默认 /） / system root to write under (default /)")
    p.add_argument("--print", action="store_true", dest="show",
                   help="只打印文件，不写入 / print the files instead of writing them")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from table_controller.cli import fail
    from table_controller.config import ConfigError, load_config
    from table_controller.deploy import (DEFAULT_UNIT, HUB_UNIT, DeployError, hub_files, private_tmp_paths,
                                         stick_at_top, unit_files, writable_dirs)

    tablectl = Path(sys.argv[0]).resolve() if Path(sys.argv[0]).name == "tablectl" else Path(sys.executable).parent / "tablectl"
    hub_args = args.hub_args[1:] if args.hub_args[:1] == ["--"] else args.hub_args
    try:
        if args.hub:
            if args.config is not None:
                raise DeployError("--hub 安装的是赛事汇总服务，它没有牌桌配置：请去掉 --config / --hub installs the "
                                  "tournament's hub, which has no table config: drop --config")
            files, data = hub_files(hub_args, tablectl, args.user, args.unit or HUB_UNIT)
            dirs = [data]
        else:
            if args.config is None or hub_args:
                raise DeployError("请给出本桌的 --config（或 --hub，汇总服务的参数写在 -- 之后） / give the table's --config "
                                  "(or --hub, with the hub's arguments after --)")
            config = load_config(args.config.resolve())
            files = unit_files(config, args.config.resolve(), tablectl, args.user, args.unit or DEFAULT_UNIT,
                               root=args.root.resolve())
            dirs = writable_dirs(config)
            top = stick_at_top(config, root=args.root.resolve())
            if top is not None:
                print(f"tablectl install-service: 注意：备份U盘挂载在 {top}，直接位于 / 之下：服务只能让这个挂载点可写，"
                      f"拔出再插上的U盘到不了服务；请挂载在某个目录之下（如 /media{top}）后再运行一次 / warning: the "
                      f"mirror's stick mounts at {top}, right under /: the unit can only make that mount point writable, "
                      "which holds on to the stick in at the start, so a stick pulled and put back would not reach the "
                      f"service; mount it under a folder (e.g. /media{top}) and run this again", file=sys.stderr)
    except (ConfigError, DeployError) as exc:
        return fail("install-service", "配置有误" if isinstance(exc, ConfigError) else "无法安装", exc)
    for path in private_tmp_paths(([] if args.hub else [args.config.resolve()]) + dirs):
        print(f"tablectl install-service: 注意：{path} 在 /tmp 之下，服务看不到（它的 /tmp 是自己的，每次启动和停止都清空）："
              "配置会找不到，记录会丢失；请移到别处（如 /home/用户/table）后再运行一次 / warning: "
              f"{path} is under /tmp, which the service does not see (its /tmp is private, emptied at each start and "
              "stop): the config would not be found, the log would be lost; move it elsewhere (e.g. /home/USER/table) "
              "and run this again", file=sys.stderr)
    for f in files:
        target = args.root / f.path
        if args.show:
            print(f"# {target}\n{f.text}")
            continue
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(f.text, encoding="utf-8")
        except OSError as exc:
            return fail("install-service", f"无法写入 {target}（{exc.strerror}）：请用 sudo 运行",
                        f"cannot write {target}: {exc.strerror} (run it with sudo)", 1)
        print(f"已写入 / wrote {target}")
    if not args.show:
        # systemd refuses to start a unit whose ReadWritePaths do not exist
        made = " ".join(shlex.quote(str(d)) for d in dirs)
        print("然后以 root 身份执行 / then, as root:")
        print(f"  mkdir -p {made} && chown {shlex.quote(args.user)} {made}")
        for f in files:
            if f.then:
                print(f"  {f.then}")
        print(f"日志 / logs: journalctl -u {Path(files[0].path).stem} -o cat")
    return 0

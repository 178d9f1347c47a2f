"""`tablectl run --config FILE`: run the controller for a real table (or sim:// from the config)."""

from __future__ import annotations

import argparse
from pathlib import Path


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "run",
        help="按配置文件运行本桌的控制程序和显示 / run the controller and display for the table described in a "
        "config file",
        description="连接配置中 [table].link 指定的牌桌（串口、socket://、usb://VID:PID 或 sim://），"
        "在 [storage].data_dir 下保存事件记录，并提供显示页面。所有配置项见 config/table.example.toml。 / "
        "Link to the table named by [table].link in the config (serial device, socket://, "
        "usb://VID:PID or sim://), keep the event log under [storage].data_dir and serve the display. "
        "See config/table.example.toml for every key.",
    )
    p.add_argument("--config", type=Path, required=True, help="本桌的 TOML 配置文件 / the table's TOML file")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from table_controller.config import ConfigError, load_config
    from table_controller.runner import run_service

    try:
        config = load_config(args.config)
    except ConfigError as exc:
        from table_controller.cli import fail

        return fail("run", "配置有误", exc)
    return run_service(config, config.data_path(), verbose=args.verbose, open_browser=False)

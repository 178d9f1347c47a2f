"""`tablectl pin`: a credential's hashed line for table.toml, the PIN read from the keyboard, never argv;
with `--config`, written into the file, which a running service takes at once (`config_watch`)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "pin",
        help="把裁判（或操作员）的 PIN 转成写入 table.toml 的哈希行 / make a referee's (or the operator's) PIN into "
        "the hashed line to put in table.toml",
        description="两次询问新 PIN（标准输入不是终端时读取一行；切勿作为参数给出，`ps` 和 shell 历史会显示它），拒绝很快会被"
        "猜中的 PIN，并打印要粘贴到配置中的一行：scrypt 哈希，而非 PIN 本身（docs/display.md）。服务两种形式都接受。"
        "加 --config 时直接写入该文件（原子写入，文件其余部分不变），运行中的服务一秒内改用新 PIN：旧 PIN 失效，"
        "用它登录的裁判页面全部退出。 / "
        "Asks for the new PIN twice (or reads one line from standard input when it is not a "
        "terminal: never give it as an argument, where `ps` and the shell's history show it), refuses a PIN "
        "guessed soon, and prints the line to paste into the config: the scrypt hash, never the PIN "
        "(docs/display.md). The service takes either form. With --config the line is written into the file "
        "(atomically, the rest of the file as it was) and a running service uses the new PIN within a second: "
        "the old one stops working and every referee page logged in with it is logged out.",
    )
    p.add_argument("--config", type=Path,
                   help="写入本桌的 TOML 配置文件，而不是打印 / write it into this table's TOML file instead of printing it")
    who = p.add_mutually_exclusive_group()
    who.add_argument("--referee", metavar="NAME", default="",
                     help="指定姓名的裁判（[[display.referees]] name = NAME）；默认：[display] referee_token / a named "
                          "referee's ([[display.referees]] name = NAME); default: [display] referee_token")
    who.add_argument("--operator", action="store_true",
                     help="操作员的 PIN：[display] operator_token / the operator's: [display] operator_token")
    p.set_defaults(func=run)


def key_of(args: argparse.Namespace) -> str:
    """The config key the PIN is for, as a TOML line's key."""
    return "token" if args.referee else "operator_token" if args.operator else "referee_token"


def read_new_pin() -> str:
    """The new PIN: typed twice unseen at a terminal, or one line of standard input; `ValueError`
    (Chinese first) for two that differ or a PIN guessed soon."""
    from table_controller.web.auth import weakness

    if sys.stdin.isatty():
        import getpass

        pin = getpass.getpass("新凭证 / new PIN: ")
        if getpass.getpass("再输入一次 / again: ") != pin:
            raise ValueError("两次输入不一致，凭证未更改 / the two entries differ; nothing changed")
    else:
        pin = sys.stdin.readline().rstrip("\r\n")
    if not pin:
        raise ValueError("凭证为空 / no PIN given")
    why = weakness(pin)
    if why:
        raise ValueError(f"凭证太弱：{why}")
    return pin


def run(args: argparse.Namespace) -> int:
    from table_controller.web.hashed import hash_credential

    try:
        pin = read_new_pin()
    except ValueError as exc:
        print(f"tablectl pin: {exc}", file=sys.stderr)
        return 2
    if args.config is None:
        where = f"[[display.referees]] name = \"{args.referee}\"" if args.referee else "[display]"
        print(f"# {where}", file=sys.stderr)
        print(f'{key_of(args)} = "{hash_credential(pin)}"')
        return 0
    return _write(args, pin, hash_credential(pin))


def _write(args: argparse.Namespace, pin: str, stored: str) -> int:
    """Write the hashed PIN into `--config`: refused (the file as it was) for a PIN in use there already."""
    from table_controller.config import ConfigError, load_config
    from table_controller.credential_file import CredentialFileError, label, write_credential
    from table_controller.web.auth import Credentials

    key = ("token", args.referee) if args.referee else (key_of(args), "")
    try:
        config = load_config(args.config)
    except ConfigError as exc:
        from table_controller.cli import fail

        return fail("pin", "配置有误，凭证未更改", exc)
    if Credentials.from_display(config.display, lambda: "").find(pin) is not None:
        print("tablectl pin: 新凭证与现有凭证相同（须与原凭证及其他凭证都不同），凭证未更改 / the new PIN is one in "
              "use; nothing changed", file=sys.stderr)
        return 2
    try:
        write_credential(args.config, key, stored)
    except CredentialFileError as exc:
        print(f"tablectl pin: {exc}", file=sys.stderr)
        return 1
    print(f"已写入 {args.config}：{label(key)}；运行中的服务 1 秒内改用新凭证，旧凭证即失效 / written: a running "
          "service takes the new PIN within a second, and the old one stops working")
    return 0

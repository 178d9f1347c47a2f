"""`tablectl pin`: a credential's hashed line for table.toml, the PIN read from the keyboard, never argv."""

from __future__ import annotations

import argparse
import sys


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "pin",
        help="make a referee's (or the operator's) PIN into the hashed line to put in table.toml",
        description="Asks for the new PIN twice (or reads one line from standard input when it is not a "
        "terminal: never give it as an argument, where `ps` and the shell's history show it), refuses a PIN "
        "guessed soon, and prints the line to paste into the config: the scrypt hash, never the PIN "
        "(docs/display.md). The service takes either form.",
    )
    who = p.add_mutually_exclusive_group()
    who.add_argument("--referee", metavar="NAME", default="",
                     help="a named referee's ([[display.referees]] name = NAME); default: [display] referee_token")
    who.add_argument("--operator", action="store_true", help="[display] operator_token")
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
    where = f"[[display.referees]] name = \"{args.referee}\"" if args.referee else "[display]"
    print(f"# {where}", file=sys.stderr)
    print(f'{key_of(args)} = "{hash_credential(pin)}"')
    return 0

"""`tablectl`: the one command-line entry point.

Each sub-command lives in its own module under `table_controller.commands` and exposes
`register(subparsers)`, which adds its parser and sets `func(args) -> int`. Modules import
their heavy dependencies inside `func`, so `tablectl --help` stays fast on a Pi.
"""

from __future__ import annotations

import argparse
import importlib
import os
import select
import signal
import sys

from table_controller import __version__

#: Sub-commands in the order `--help` lists them.
COMMANDS: tuple[str, ...] = ("demo", "run", "check", "install-service", "sim", "probe", "conform", "deal", "score",
                             "waits", "record", "vision", "hub", "broker-config", "pin")


VERBOSE_HELP = "more log output (-v info, -vv debug); overrides the config's log level"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tablectl",
        description="Controller for automatic mahjong tables (自动麻将机).",
        epilog="Run `tablectl COMMAND --help` for a command's options.",
    )
    parser.add_argument("--version", action="version", version=f"tablectl {__version__}")
    parser.add_argument("-v", "--verbose", action="count", default=0, help=VERBOSE_HELP)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS:
        try:
            module = importlib.import_module(f"table_controller.commands.{name.replace('-', '_')}")
        except ModuleNotFoundError as exc:  # a command still being built must not break the others
            if exc.name != f"table_controller.commands.{name.replace('-', '_')}":
                raise
            continue
        module.register(sub)
        # after the command too (`tablectl run --config t.toml -v`, as one types it); SUPPRESS keeps
        # a -v given before the command when none follows it
        sub.choices[name].add_argument("-v", "--verbose", action="count", default=argparse.SUPPRESS,
                                       help=VERBOSE_HELP)
    return parser


def main(argv: list[str] | None = None) -> int:
    try:
        # the parsers too: they load every ruleset for their help, the first moments of `make demo`, and a
        # Ctrl-C then printed a traceback of whatever import it fell in
        parser = build_parser()
        args = parser.parse_args(argv)
        if not getattr(args, "func", None):
            parser.print_help()
            return 2
        code = int(args.func(args) or 0)
        sys.stdout.flush()  # here, not at exit, where a reader gone is only "Exception ignored" (exit 120)
        return code
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        if not _stdout_reader_gone():
            raise
        # `tablectl deal --list | head -3`: the reader has what it wanted, which is no error worth a
        # traceback; what is still buffered (the interpreter flushes it at exit) goes nowhere
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 128 + signal.SIGPIPE  # as the shell reports a program SIGPIPE stopped


def _stdout_reader_gone() -> bool:
    """Whether standard output is a pipe nobody reads any more (not a socket of the command's own)."""
    try:
        poller = select.poll()
        poller.register(sys.stdout.fileno(), select.POLLOUT)
        return any(event & select.POLLERR for _, event in poller.poll(0))
    except (AttributeError, OSError, ValueError):  # no poll(), or no file descriptor behind stdout
        return False


if __name__ == "__main__":
    sys.exit(main())

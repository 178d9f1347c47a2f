"""`tablectl`: the one command-line entry point.

Each sub-command lives in its own module under `table_controller.commands` and exposes
`register(subparsers)`, which adds its parser and sets `func(args) -> int`. Modules import
their heavy dependencies inside `func`, so `tablectl --help` stays fast on a Pi.
"""

from __future__ import annotations

import argparse
import importlib
import os
import re
import select
import signal
import sys
from typing import NoReturn

from table_controller import __version__

#: Sub-commands in the order `--help` lists them.
COMMANDS: tuple[str, ...] = ("demo", "run", "check", "install-service", "sim", "probe", "conform", "deal", "score",
                             "waits", "record", "vision", "hub", "broker-config", "pin")


VERBOSE_HELP = "更多日志（-v 信息，-vv 调试），优先于配置的日志级别 / more log output (-v info, -vv debug); overrides the " \
    "config's log level"

#: argparse's own words for a wrong command line (Python 3.11's, and the later ones'), Chinese first: a
#: technician at the table read "the following arguments are required" or "invalid choice" in English only.
#: Each pattern's groups go into the Chinese; what is not matched keeps argparse's words after 参数有误.
USAGE_ERRORS: tuple[tuple[str, str], ...] = (
    (r"the following arguments are required: (.+)", "缺少必需的参数：{0}"),
    (r"unrecognized arguments: (.+)", "无法识别的参数：{0}"),
    (r"one of the arguments (.+) is required", "须给出以下参数之一：{0}"),
    (r"not allowed with argument (.+)", "不能与参数 {0} 同时使用"),
    (r"invalid choice: (.+?) \(choose from (.+)\)", "无效的选择 {0}（可选：{1}）"),
    (r"invalid int value: (.+)", "须为整数，不是 {0}"),
    (r"invalid float value: (.+)", "须为数字，不是 {0}"),
    (r"invalid \S+ value: (.+)", "无效的值 {0}"),
    (r"expected one argument", "须跟一个值"),
    (r"expected at most one argument", "最多跟一个值"),
    (r"expected at least one argument", "须跟至少一个值"),
    (r"expected (\d+) arguments?", "须跟 {0} 个值"),
    (r"ambiguous option: (\S+) could match (.+)", "选项 {0} 不明确，可能是 {1}"),
    (r"ignored explicit argument (.+)", "此选项不取值：{0}"),
)


def usage_error(message: str) -> str:
    """argparse's `message` for a wrong command line, "中文 / English" as the commands' own errors are:
    "参数 --seat：无效的选择 'X'（可选：'E', 'S', 'W', 'N'） / argument --seat: invalid choice: ...". A type's own
    message, already "中文 / English" (`commands.tcp_port`), is split at its " / " around the argument's name."""
    argument, said = None, message
    named = re.fullmatch(r"argument (.+?): (.*)", message, flags=re.S)
    if named:
        argument, said = named.groups()
    if re.search(r"[\u4e00-\u9fff]", said) and " / " in said:
        zh, en = said.split(" / ", 1)
        return f"参数 {argument}：{zh} / argument {argument}: {en}" if argument else message
    for pattern, chinese in USAGE_ERRORS:
        found = re.fullmatch(pattern, said, flags=re.S)
        if found:
            zh = chinese.format(*found.groups())
            break
    else:
        zh = "参数有误"
    return f"{'参数 ' + argument + '：' if argument else ''}{zh} / {message}"


HAN = re.compile(r"[\u4e00-\u9fff]")


def chinese_first(zh: str, message: str) -> str:
    """`message` as "中文 / English": as it is where it says its Chinese first already (after a path or address it
    is of, as `preflight._said` puts them), else after `zh`, its gist. A deeper module's error (a ruleset's, the
    link's, a picture's) is English, and `tablectl`'s own words around it were: the technician read it so."""
    if HAN.search(message.split(" / ", 1)[0]):
        return message
    return f"{zh} / {message}"


def fail(command: str, zh: str, message: object, code: int = 2) -> int:
    """Say `message` on standard error as `tablectl COMMAND: 中文 / English` (`chinese_first`), and return `code`."""
    print(f"tablectl {command}: {chinese_first(zh, str(message))}", file=sys.stderr)
    return code


class Parser(argparse.ArgumentParser):
    """`tablectl`'s parsers (its sub-commands' too: argparse makes them of the parser's class): the help's
    own lines and a wrong command line's error said Chinese first, as the rest of `tablectl` says things."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self._positionals.title = "位置参数 / positional arguments"
        self._optionals.title = "选项 / options"
        for action in self._actions:
            if isinstance(action, argparse._HelpAction):
                action.help = "显示本帮助并退出 / show this help message and exit"

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        self.exit(2, f"{self.prog}: 错误 / error: {usage_error(message)}\n")


def named_command(argv: list[str]) -> str | None:
    """The sub-command `argv` runs when only `-v`s come before it (`tablectl -v vision read ...`), else None
    (`tablectl`, `tablectl --help vision`, a misspelt command: these need every command's parser)."""
    for arg in argv:
        if arg in COMMANDS:
            return arg
        if not re.fullmatch(r"-v+|--verbose", arg):
            return None
    return None


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """`tablectl`'s parser with every command's, or with `only`'s alone: a command's parser can cost (`score`
    loads every ruleset to list them, 0.2 CPU-seconds of each `tablectl` process on a PC, more on a Pi) and
    one command run needs no other's."""
    parser = Parser(
        prog="tablectl",
        description="自动麻将机控制程序 / Controller for automatic mahjong tables.",
        epilog="各命令的选项见 `tablectl 命令 --help` / Run `tablectl COMMAND --help` for a command's options.",
    )
    parser.add_argument("--version", action="version", version=f"tablectl {__version__}",
                        help="显示版本并退出 / show the version and exit")
    parser.add_argument("-v", "--verbose", action="count", default=0, help=VERBOSE_HELP)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", title="命令 / commands")
    for name in COMMANDS if only is None else (only,):
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
        parser = build_parser(named_command(sys.argv[1:] if argv is None else argv))
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

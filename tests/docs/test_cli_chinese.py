"""Every `tablectl` command's help is read Chinese first, English after ("中文 / English"), as the rest of the
command says things, and a wrong command line is answered so too.

Before, `run`, `install-service`, `probe`, `conform` and `pin` had no Chinese in their `--help` at all, and most
other commands' options were English only: the venue technician and the table maker read the table's own words
in English. The parsers are walked (sub-commands of sub-commands too), so a new command or option without its
Chinese fails here.
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Iterator

import pytest

from table_controller.cli import COMMANDS, build_parser, main

HAN = re.compile(r"[\u4e00-\u9fff]")
ENGLISH = re.compile(r"[A-Za-z]{3,}")


def _parsers(parser: argparse.ArgumentParser, path: str = "tablectl") -> Iterator[tuple[str, argparse.ArgumentParser]]:
    yield path, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, child in action.choices.items():
                yield from _parsers(child, f"{path} {name}")


def _texts() -> Iterator[tuple[str, str]]:
    """(where, text) for each command's description, its line in its parent's list and each option's help."""
    for path, parser in _parsers(build_parser()):
        yield f"{path}: description", parser.description or ""
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for listed in action._choices_actions:
                    yield f"{path} {listed.dest}: its line in {path} --help", listed.help or ""
            elif action.help != argparse.SUPPRESS:
                yield f"{path} {'/'.join(action.option_strings) or action.dest}: help", action.help or ""


def _chinese_first(text: str) -> bool:
    """Chinese up to the first " / " or line break, English after it."""
    parts = re.split(r" / |\n", text, maxsplit=1)
    return len(parts) == 2 and bool(HAN.search(parts[0])) and bool(ENGLISH.search(parts[1]))


def test_every_commands_help_is_chinese_first_then_english() -> None:
    texts = list(_texts())
    walked = {where.split(":")[0] for where, _ in texts if where.endswith(": description")}
    # every command, and the camera's actions under `vision`
    assert {f"tablectl {c}" for c in COMMANDS} | {"tablectl vision enroll", "tablectl vision grab"} <= walked
    assert len(texts) > 200
    wrong = [f"{where}: {text[:70]!r}" for where, text in texts if not _chinese_first(text)]
    assert not wrong, "help without its Chinese first (中文 / English):\n" + "\n".join(wrong)


def test_a_command_added_without_chinese_is_caught() -> None:
    """The walk sees a new command's description and options (else the test above could pass on anything)."""
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    added = sub.add_parser("new", help="新命令 / a new command", description="新命令 / a new command")
    added.add_argument("--flag", help="a flag said in English only")
    assert not _chinese_first(added._actions[-1].help or "")
    assert _chinese_first(added.description or "")
    assert _chinese_first(added._actions[0].help or "")  # -h, --help: the parser's own, said in Chinese too


@pytest.mark.parametrize(("argv", "chinese", "english"), [
    (["check"], "缺少必需的参数：--config", "the following arguments are required: --config"),
    (["waits", "123m", "--seat", "X"], "参数 --seat：无效的选择 'X'", "argument --seat: invalid choice: 'X'"),
    (["dael"], "参数 COMMAND：无效的选择 'dael'", "argument COMMAND: invalid choice: 'dael'"),
    (["record", "--hand", "three"], "参数 --hand：须为整数，不是 'three'", "argument --hand: invalid int value: 'three'"),
    (["deal", "--dice"], "参数 --dice：须跟一个值", "argument --dice: expected one argument"),
    (["check", "--config", "t.toml", "--bogus"], "无法识别的参数：--bogus", "unrecognized arguments: --bogus"),
    (["pin", "--referee", "李娜", "--operator"], "参数 --operator：不能与参数 --referee 同时使用",
     "argument --operator: not allowed with argument --referee"),
    # a type's own words, already "中文 / English": the argument named on both sides
    (["hub", "--broker", "mqtt://h", "--tournament", "t", "--port", "99999"], "参数 --port：端口须为 0 至 65535 的整数",
     "argument --port: a port is a whole number"),
], ids=lambda v: " ".join(v) if isinstance(v, list) else "")
def test_a_wrong_command_line_is_answered_chinese_first(argv: list[str], chinese: str, english: str,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    """argparse's own words ("the following arguments are required", "invalid choice") were English only."""
    with pytest.raises(SystemExit) as exit_:
        main(argv)
    said = capsys.readouterr().err.strip().splitlines()[-1]
    assert exit_.value.code == 2
    assert re.match(r"tablectl( [\w-]+)?: 错误 / error: ", said), said
    assert chinese in said and english in said and said.index(chinese) < said.index(english), said


def test_words_argparse_has_not_said_before_keep_theirs_after_a_chinese_head() -> None:
    from table_controller.cli import usage_error

    assert usage_error("argument --x: something new") == "参数 --x：参数有误 / argument --x: something new"
    assert usage_error("something new") == "参数有误 / something new"


def test_a_command_run_builds_its_own_parser_alone_and_its_help_and_errors_are_the_same() -> None:
    """Every `tablectl` process built every command's parser, `score`'s loading each ruleset to list them: 0.2 of
    the 0.47 CPU-seconds of a `tablectl vision read` (the camera's set-up tests start ~50). A command named first
    (after `-v`s only) is parsed by its own parser alone; anything else by them all."""
    import subprocess
    import sys

    from table_controller.cli import named_command

    assert named_command(["vision", "read", "x.jpg"]) == named_command(["-vv", "--verbose", "vision"]) == "vision"
    assert named_command(["-h", "vision"]) is named_command(["--version"]) is named_command(["dael"]) is None
    assert named_command(["--config", "run"]) is named_command([]) is None
    alone = build_parser("vision")
    assert set(next(a for a in alone._actions if isinstance(a, argparse._SubParsersAction)).choices) == {"vision"}
    assert alone.format_usage() == build_parser().format_usage()
    probe = ("import sys; from table_controller.cli import main; code = main(sys.argv[1:]); "
             "print(code, 'table_controller.scoring' in sys.modules)")
    ran = subprocess.run([sys.executable, "-c", probe, "-v", "vision", "read", "/nonexistent.jpg"],
                         capture_output=True, text=True, timeout=60)
    assert ran.stdout.split() == ["1", "False"], (ran.stdout, ran.stderr)  # no ruleset read for `vision`
    assert "图片无法读取" in ran.stderr
    helped = subprocess.run([sys.executable, "-m", "table_controller.cli", "score", "--help"],
                            capture_output=True, text=True, timeout=60)
    assert helped.returncode == 0 and "mcr" in helped.stdout and "sichuan" in helped.stdout  # its own still listed
    listed = subprocess.run([sys.executable, "-m", "table_controller.cli", "--help"], capture_output=True, text=True,
                            timeout=60)
    assert all(f"    {name}" in listed.stdout for name in COMMANDS), listed.stdout

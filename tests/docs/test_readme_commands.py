"""The README's shell blocks are what a newcomer types on a table's Pi: each command must be one the project
has (a `make` target, a `tablectl` line its parser takes, the unit `install-service` writes), and the README
must say how to set a table up from nothing, update it, and bring it back after a power cut or a dead card.

Before, the real table's block began with `.venv/bin/tablectl`, which a fresh copy of the repository does not
have, and no page said how to update the software or what to put back from the mirror stick after a dead card.
"""

from __future__ import annotations

import io
import re
import shlex
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

from table_controller.cli import build_parser
from table_controller.deploy import DEFAULT_UNIT
from table_controller.mirror import MIRROR_FILE

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
#: What makes `.venv` on a fresh copy (Makefile: each target sets itself up).
SETS_UP = ("make setup", "make pi", "make hub", "make demo", "make test", "scripts/bootstrap.sh")


def _shell_lines() -> list[str]:
    """Each command line of the README's ```sh blocks, its comment left out, continuation lines joined."""
    out: list[str] = []
    for block in re.findall(r"```sh\n(.*?)```", README.read_text(encoding="utf-8"), flags=re.S):
        for line in re.sub(r"\\\n\s*", " ", block).splitlines():
            line = re.sub(r"\s+#.*$", "", line).strip()
            if line and not line.startswith("#"):
                out.append(line)
    return out


def _section(lead: str) -> str:
    text = README.read_text(encoding="utf-8")
    start = text.index(f"- **{lead}")
    end = text.find("\n- **", start + 1)
    return text[start:end if end > 0 else len(text)]


def test_every_command_of_the_readme_is_the_projects() -> None:
    targets = set(re.findall(r"^([\w-]+):", (ROOT / "Makefile").read_text(encoding="utf-8"), flags=re.M))
    parser, wrong = build_parser(), []
    lines = _shell_lines()
    assert len(lines) >= 5
    for line in lines:
        for command in (c.strip() for c in re.split(r"&&|;", line)):
            words = shlex.split(command)
            words = words[1:] if words[0] == "sudo" else words
            words = words[1:] if words and "=" in words[0] else words  # VAR=value before the command
            if words[0] == "make" and not set(words[1:2]) <= targets:
                wrong.append(f"{command}: no such make target")
            elif words[0].endswith("tablectl"):
                err = io.StringIO()
                try:
                    with redirect_stderr(err), redirect_stdout(io.StringIO()):
                        parser.parse_args(words[1:])
                except SystemExit as exc:
                    if exc.code:
                        wrong.append(f"{command}: {err.getvalue().strip().splitlines()[-1]}")
            elif words[0] == "systemctl" and words[-1] not in (DEFAULT_UNIT, "daemon-reload"):
                wrong.append(f"{command}: install-service writes {DEFAULT_UNIT}.service")
    assert not wrong, wrong


def test_the_venv_is_made_before_the_readme_uses_it() -> None:
    """On a fresh copy `.venv/bin/tablectl` is there only once a set-up step has run."""
    lines = _shell_lines()
    first = next(i for i, line in enumerate(lines) if ".venv/bin/" in line)
    assert any(step in line for line in lines[:first] for step in SETS_UP), lines[:first + 1]
    real = README.read_text(encoding="utf-8").split("## Pointing it at a real table")[1]
    block = re.search(r"```sh\n(.*?)```", real, flags=re.S)
    # a table's Pi is set up with only what it runs on (`make pi`), not the tests' Chromium, fonts and tile art
    assert block and block.group(1).lstrip().startswith("make pi"), "the real table's block starts from set-up"


def test_the_readme_says_how_to_set_up_update_and_recover_a_table() -> None:
    new_pi, update, power, card = (_section(lead) for lead in ("A new Pi", "An update", "A power cut",
                                                                "A dead SD card"))
    assert "make pi" in new_pi and "make hub" in new_pi and "install-service" in new_pi
    assert "make pi" in update
    assert "git pull" in update and f"restart {DEFAULT_UNIT}" in update and "tablectl check" in update
    assert f"journalctl -u {DEFAULT_UNIT}" in power
    assert f"`{MIRROR_FILE}`" in card and "mirror_dir" in card and "data_dir" in card

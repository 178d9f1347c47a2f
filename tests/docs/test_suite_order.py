"""The suite's own set-up (tests/conftest.py): the files handed out first under `--dist loadfile` are there, and
its temporary files lie on memory where the machine has a tmpfs."""

from __future__ import annotations

import ast
import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _long_files() -> list[str]:
    """`LONG_FILES` as tests/conftest.py writes it (read, not imported: each test folder has a `conftest`)."""
    tree = ast.parse((ROOT / "tests" / "conftest.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "LONG_FILES" for t in node.targets):
            return list(ast.literal_eval(node.value))
    raise AssertionError("tests/conftest.py has no LONG_FILES")


def test_the_long_files_handed_out_first_exist() -> None:
    """A file renamed or split and left in `LONG_FILES` would go back to the end of the queue unnoticed."""
    files = _long_files()
    missing = [path for path in files if not (ROOT / path).is_file()]
    assert files and not missing, f"tests/conftest.py LONG_FILES names files that are gone: {missing}"


def test_the_suites_files_lie_on_memory_where_the_machine_has_a_tmpfs(tmp_path: Path) -> None:
    """On a VM's disk every event the log commits costs an fsync (10.7 ms; 0.18 ms on tmpfs): the suite's
    `tmp_path`, where its logs live, goes to /dev/shm (tests/conftest.py `_use_memory_tmp`) unless the caller
    set TMPDIR."""
    shm = Path("/dev/shm")
    mounts = Path("/proc/mounts").read_text() if Path("/proc/mounts").is_file() else ""
    if not any(line.split()[1:3] == [str(shm), "tmpfs"] for line in mounts.splitlines()):
        pytest.skip("this machine has no tmpfs at /dev/shm")
    if os.environ.get("TMPDIR") not in (None, str(shm)):
        pytest.skip(f"the caller set TMPDIR={os.environ['TMPDIR']}")
    assert os.stat(tmp_path).st_dev == os.stat(shm).st_dev, f"{tmp_path} is not on the tmpfs at {shm}"

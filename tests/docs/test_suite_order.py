"""The suite's own order (tests/conftest.py): the files handed out first under `--dist loadfile` are there."""

from __future__ import annotations

import ast
from pathlib import Path

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

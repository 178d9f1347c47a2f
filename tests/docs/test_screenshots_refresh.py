"""docs/display.md gives the one command that refreshes the screenshots the README links: it must run every
test that writes one of them.

Before, it ran `-k screenshots`, which left out the camera's picture (written by the referee page's camera
test): refreshed by it on 1 December, camera.png stayed as the page looked the day before. Read from the
files (AST), running nothing.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SHOTS = ROOT / "docs" / "screenshots"


def _command() -> tuple[str, list[str]]:
    """The test file and the `-k` words (`a or b`) of the refresh command in docs/display.md."""
    text = (ROOT / "docs" / "display.md").read_text(encoding="utf-8")
    m = re.search(r"`SCREENSHOTS_DIR=docs/screenshots \S*pytest (\S+\.py) -k (\"[^\"]+\"|\S+)`", text)
    assert m, "docs/display.md has no screenshot refresh command"
    return m.group(1), [w.strip() for w in m.group(2).strip('"').split(" or ")]


def _writers() -> dict[str, list[str]]:
    """Each picture's stem → the tests (`file::name`) that write it under SCREENSHOTS_DIR: a test reading
    the variable and naming the picture (`"camera.png"`, or `"table"` in its table of pages)."""
    out: dict[str, list[str]] = {}
    stems = {p.stem for p in SHOTS.glob("*.png")}
    for path in sorted((ROOT / "tests").rglob("test_*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) or not node.name.startswith("test"):
                continue
            consts = {c.value for c in ast.walk(node) if isinstance(c, ast.Constant) and isinstance(c.value, str)}
            if "SCREENSHOTS_DIR" not in consts:
                continue
            for stem in stems & {c.removesuffix(".png") for c in consts}:
                out.setdefault(stem, []).append(f"{path.relative_to(ROOT).as_posix()}::{node.name}")
    return out


def test_the_refresh_command_runs_every_test_that_writes_a_screenshot() -> None:
    file, words = _command()
    writers = _writers()
    pictures = sorted(p.stem for p in SHOTS.glob("*.png"))
    assert len(pictures) >= 9
    orphans = [p for p in pictures if p not in writers]
    assert not orphans, f"pictures in docs/screenshots no test writes: {orphans}"
    missed = [f"{stem}.png ({', '.join(tests)})" for stem, tests in writers.items()
              if not any(t.split("::")[0] == file and any(w in t.split("::")[1] for w in words) for t in tests)]
    assert not missed, f"docs/display.md's refresh command ({file} -k {' or '.join(words)}) leaves out: {missed}"

"""One concept, one place: the glossary's seat names are written in one module, the others import them.

A second copy of a table that players read (东 南 西 北) drifts: one day one of them says 東, or a
seat's name on the score sheet differs from the one on the Table page. Read from the files (AST),
importing nothing, so a copy is found wherever it is written.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CODE_DIRS = ("drivers", "table_controller", "vision", "hardware-sim/tablesim", "bench")

SEAT_WORDS = frozenset("东南西北")
TILE_CODE = re.compile(r"\d+[mpszf]")
#: Where the glossary's names are written (its one module).
HOME = "table_controller/tiles.py"


def _files() -> Iterator[tuple[str, ast.AST]]:
    for d in CODE_DIRS:
        for path in sorted((ROOT / d).rglob("*.py")):
            if "__pycache__" not in path.parts:
                yield path.relative_to(ROOT).as_posix(), ast.parse(path.read_text(encoding="utf-8"))


def _strings(node: ast.AST) -> list[str]:
    """The string constants a literal table holds: a dict's values, a tuple's, a list's or a set's items."""
    items = node.values if isinstance(node, ast.Dict) else node.elts if isinstance(
        node, (ast.Tuple, ast.List, ast.Set)) else []
    return [i.value for i in items if isinstance(i, ast.Constant) and isinstance(i.value, str)]


def _copies(words: frozenset[str], suffix: str = "", skip: Callable[[ast.AST], bool] = lambda _: False) -> list[str]:
    """Places outside `HOME` that write three or more of `words` (each alone or with `suffix`) as one table."""
    found = []
    for rel, tree in _files():
        if rel == HOME:
            continue
        for node in ast.walk(tree):
            if skip(node):
                continue
            hits = {s.removesuffix(suffix) if suffix else s for s in _strings(node)} & words
            if len(hits) >= 3:
                found.append(f"{rel}:{node.lineno}")
    return found


def _by_tile_code(node: ast.AST) -> bool:
    """A table keyed by tile codes (`"1z": "东"`): tile names, not seat names."""
    return isinstance(node, ast.Dict) and bool(node.keys) and all(
        isinstance(k, ast.Constant) and isinstance(k.value, str) and TILE_CODE.fullmatch(k.value) for k in node.keys)


def test_seat_names_are_written_once() -> None:
    """东 南 西 北 for E S W N live in `tiles.SEAT_NAMES`; state, the score sheet, the rules' picture, the
    riichi yaku names, the controller's refusals and the camera's felt sides import them."""
    copies = _copies(SEAT_WORDS, skip=_by_tile_code) + _copies(SEAT_WORDS, suffix="家", skip=_by_tile_code)
    assert not copies, f"seat names written again (import table_controller.tiles.SEAT_NAMES): {copies}"

"""One concept, one place: seat names, tile names, wall positions and 标准分 are written in one module each
(the glossary's), the others import them (docs/architecture.md, "One concept in two places").

A second copy of a table that players read (东 南 西 北) drifts: one day one of them says 東, or a seat's name
on the score sheet differs from the one on the Table page. The copies are found by their content, in the files'
syntax trees, wherever they are written; where two parts must agree (the simulator's walls and the rules
engine's), the test compares what they build.
"""

from __future__ import annotations

import ast
import functools
import re
from collections.abc import Callable, Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CODE_DIRS = ("drivers", "table_controller", "vision", "hardware-sim/tablesim", "bench")

SEAT_WORDS = frozenset("东南西北")
HONOUR_WORDS = frozenset("东南西北白发中")
FLOWER_WORDS = frozenset("春夏秋冬梅兰菊竹")
NUMERALS = "一二三四五六七八九"
#: Not names but the glyphs a tile maker prints (東 or 东, 萬, 發, 伍 for 五), drawn by the scene renderer and
#: learnt by the reader: what a face looks like, not what players call it.
GLYPHS = "vision/drawn.py"
TILE_CODE = re.compile(r"\d+[mpszf]")
#: Where the glossary's names are written (its one module).
HOME = "table_controller/tiles.py"


@functools.cache
def _parsed() -> tuple[tuple[str, ast.AST], ...]:
    """Each code file's syntax tree, parsed once for all the tests here (they only read the trees): parsed
    again for each of the seven searches it was 15 of the module's 18 s."""
    return tuple((path.relative_to(ROOT).as_posix(), ast.parse(path.read_text(encoding="utf-8")))
                 for d in CODE_DIRS for path in sorted((ROOT / d).rglob("*.py")) if "__pycache__" not in path.parts)


def _files() -> Iterator[tuple[str, ast.AST]]:
    yield from _parsed()


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


def test_tile_names_are_written_once() -> None:
    """一万 .. 九条, 东 .. 中, 春 .. 竹 live in `tiles.tile_name`; the reader's CLI (`vision.kinds.chinese_name`)
    names a kind through it, and the rules engine has no wrapper of its own."""
    copies = [c for c in _copies(FLOWER_WORDS) + _copies(HONOUR_WORDS, skip=lambda n: not _by_tile_code(n))
              if not c.startswith(GLYPHS)]
    copies += [f"{rel}:{node.lineno}" for rel, tree in _files() if rel not in (HOME, GLYPHS)
               for node in ast.walk(tree)
               if isinstance(node, ast.Constant) and isinstance(node.value, str) and NUMERALS[:3] in node.value]
    assert not copies, f"tile names written again (import table_controller.tiles.tile_name): {copies}"


def test_the_readers_names_are_the_tables() -> None:
    """Every kind the reader knows is named as the table names it; a kind it does not know is refused."""
    import pytest

    from table_controller.tiles import tile_name
    from vision.kinds import KINDS, chinese_name

    assert [chinese_name(k) for k in KINDS] == [tile_name(k) for k in KINDS]
    assert chinese_name("1z") == "东" and chinese_name("6z") == "发" and chinese_name("back") == "牌背"
    for unknown in ("10m", "8z", "东"):
        with pytest.raises(ValueError, match="unknown tile kind"):
            chinese_name(unknown)


def _position_fstrings(tree: ast.AST) -> list[int]:
    """Lines of f-strings that write a position the walls.md way: `{wall}{stack:02d}{layer}`."""
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            parts = node.values
            for a, b, c in zip(parts, parts[1:], parts[2:]):
                spec = b.format_spec if isinstance(b, ast.FormattedValue) else None
                two_digits = isinstance(spec, ast.JoinedStr) and [
                    v.value for v in spec.values if isinstance(v, ast.Constant)] == ["02d"]
                if two_digits and isinstance(a, ast.FormattedValue) and isinstance(c, ast.FormattedValue):
                    out.append(node.lineno)
    return out


def test_wall_positions_are_named_once() -> None:
    """`W07t` is written by `rules.geometry.position_name`; the simulator's walls take the rules engine's
    `all_positions`, so the table the simulator builds and the plan the engine deals name the same tiles."""
    copies = [f"{rel}:{line}" for rel, tree in _files() if rel != "table_controller/rules/geometry.py"
              for line in _position_fstrings(tree)]
    assert not copies, f"tile positions written again (use rules.geometry.position_name / all_positions): {copies}"


def test_the_simulators_walls_are_the_rules_engines() -> None:
    """Each tile-count setting builds, from the same seed, the wall the rules engine builds for a ruleset of that
    count: the same tiles at the same positions (walls.md's default lengths)."""
    import random

    from table_controller.rules import all_positions, load_ruleset, physical_wall, tile_set
    from tablesim.physics import WALL_LENGTHS, arrange
    from tablesim.physics import tile_set as sim_tile_set

    for count, ruleset in ((144, "mcr"), (136, "riichi"), (108, "sichuan")):
        rs = load_ruleset(ruleset)
        assert rs.wall_lengths == WALL_LENGTHS[count]
        assert sim_tile_set(count) == tile_set(rs)
        for seed in (1, 7):
            wall = arrange(count, random.Random(seed))
            assert wall == physical_wall(rs, None, random.Random(seed))
            assert list(wall) == all_positions(WALL_LENGTHS[count])


def test_table_points_are_computed_once() -> None:
    """标准分 by place, ties sharing, is `scoring.points.table_points` with the ranks `TABLE_POINTS` or the
    ruleset's (`table_point_ranks`); the score sheet and the hand machine's sessions call it, none keeps a wrapper
    or a 4/2/1/0 of its own."""
    home = "table_controller/scoring/points.py"
    copies = []
    for rel, tree in _files():
        if rel == home or rel.startswith("bench/"):
            continue
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and "table_point" in node.name:
                copies.append(f"{rel}:{node.lineno} def {node.name}")
            elif isinstance(node, (ast.Tuple, ast.List)) and [
                    e.value for e in node.elts if isinstance(e, ast.Constant)] == [4, 2, 1, 0]:
                copies.append(f"{rel}:{node.lineno} (4, 2, 1, 0)")
    assert not copies, f"标准分 computed or ranked again (use scoring.points): {copies}"


def test_table_points_share_ties_whatever_they_are_keyed_by() -> None:
    from table_controller.hand.match import MatchRules, next_hand, start
    from table_controller.scoring.points import TABLE_POINTS, table_point_ranks, table_points

    by_seat = table_points({"E": 30, "S": 30, "W": -10, "N": -50})
    by_chair = table_points({"1": 30, "2": 30, "3": -10, "4": -50})
    assert by_seat == {"E": 3, "S": 3, "W": 1, "N": 0} and list(by_chair.values()) == list(by_seat.values())
    assert table_points({1: 0, 2: 0, 3: 0, 4: 0}) == {1: 1.75, 2: 1.75, 3: 1.75, 4: 1.75}
    m = start(MatchRules.for_ruleset("mcr"))
    m, _ = next_hand(m, ["E"], {"E": 24, "S": -8, "W": -8, "N": -8})
    assert table_points(m.player_scores) == {1: 4, 2: 1, 3: 1, 4: 1}
    assert table_point_ranks("mcr") == TABLE_POINTS == (4, 2, 1, 0)
    assert table_point_ranks("hefei") == TABLE_POINTS  # a ruleset the engine does not score

"""Every event type the service logs has its row in docs/display.md's Events table ("the log is the record").

The log is what a referee, a technician or the hub reads back (`tablectl record`, the event log's lines, the
hub's alerts); a type with no row is one a newcomer greps for and does not find. Before, the table's own
events (`table.phase`, `table.fault_raised` ..., the hub's alerts among them), `link.up` / `link.restored`,
`controller.rejected` and `controller.configured` had none. The types are read from the code (AST): a string
`source.name` given to a call (`offer`, `accept`, `referee_act` ...) or compared with one (the fold).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TYPE = re.compile(r"(table|link|controller|camera|operator|referee|play|tournament)\.[a-z_]+")
#: Not modules of the service: the command line's options name config keys (`table.sim_seed`).
SKIP = ("table_controller/commands/", "table_controller/config.py")
#: Logged under a name the code builds: the camera's tracker events (`camera.tile_{event}`).
BUILT = {"camera.tile_appeared", "camera.tile_disappeared", "camera.tile_turned"}


def _logged() -> set[str]:
    out = set(BUILT)
    for path in (ROOT / "table_controller").rglob("*.py"):
        if path.relative_to(ROOT).as_posix().startswith(SKIP):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call):
                if isinstance(node.func, ast.Attribute) and node.func.attr in ("startswith", "endswith"):
                    continue  # a prefix (`operator.hand`), not a type
                values = list(node.args)
            elif isinstance(node, ast.Compare):
                values = [node.left, *node.comparators]
            else:
                continue
            for v in values:
                for e in v.elts if isinstance(v, (ast.Tuple, ast.Set, ast.List)) else [v]:
                    if isinstance(e, ast.Constant) and isinstance(e.value, str) and TYPE.fullmatch(e.value):
                        out.add(e.value)
    return out


def _documented() -> set[str]:
    """The types the Events table's first column names: `a.b_c` / `_d` / `e` are a.b_c, a.b_d and a.e."""
    text = (ROOT / "docs" / "display.md").read_text(encoding="utf-8")
    start = text.index("## Events (the log is the record)")
    out: set[str] = set()
    for line in text[start:text.index("\n## ", start + 1)].splitlines():
        if not line.startswith("| `"):
            continue
        last = ""
        for word in re.findall(r"`([\w.*]+)`", re.sub(r"\([^)]*\)", "", line.split(" | ")[0])):  # not (source `x`)
            if TYPE.fullmatch(word):
                last = word
            elif last and word.startswith("_"):
                last = last[:last.rindex("_")] + word
            elif last and re.fullmatch(r"[a-z_]+", word):
                last = last[:last.index(".") + 1] + word
            else:
                continue
            out.add(last)
    return out


def test_the_events_table_reads_as_the_code_logs() -> None:
    logged, documented = _logged(), _documented()
    assert {"referee.penalty", "table.phase", "camera.tile_turned", "play.riichi"} <= logged and len(logged) > 40
    assert {"referee.session_end", "camera.tile_disappeared", "play.discard"} <= documented
    missing = sorted(logged - documented)
    assert not missing, f"event types the service logs with no row in docs/display.md's Events table: {missing}"
    gone = sorted(documented - logged)
    assert not gone, f"rows of docs/display.md's Events table the code no longer logs: {gone}"

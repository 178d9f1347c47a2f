"""Every line `tablectl check` can print is named where a technician reads what the check covers: its
`--help` and the README's paragraph on it.

A line added to the check and not to those texts is one a venue does not know it has: the credentials
line (a guessable PIN, a config readable by other users) was printed for sessions while the help and the
README listed only the log, stick, board, camera, broker, port and clock. The lines are read from
`preflight.py` (AST), so a new one fails here until it is named.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from table_controller.cli import build_parser

ROOT = Path(__file__).resolve().parents[2]
PREFLIGHT = ROOT / "table_controller" / "preflight.py"

#: Each line's label (as `preflight.py` writes it) → the word the texts name it by. `recorded {en}` is
#: the lines of settled payments (`settlements.KINDS`: 查叫, penalties, kongs, 追牌).
NAMED_BY = {
    "配置 / config": "config",
    "事件记录 / event log": "log",
    "记录备份 / log mirror": "mirror",
    "凭证 / credentials": "credentials",
    "牌桌控制板 / table board": "board",
    "摄像头 / camera": "camera",
    "赛事服务器 / tournament broker": "broker",
    "显示端口 / display port": "port",
    "系统时钟 / clock": "clock",
    "已确认和牌 / confirmed wins": "confirmed wins",
    "已记录的结算 / recorded settlements": "payments",
    "已记录的{zh} / recorded {en}": "payments",
}


def _labels() -> set[str]:
    """The labels of `Finding`s: a `Finding("…", …)`'s first argument or a `what = "…"`, f-strings as written."""
    def text(node: ast.AST) -> str | None:
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return node.value
        if isinstance(node, ast.JoinedStr):
            return "".join(v.value if isinstance(v, ast.Constant) else "{" + ast.unparse(v.value) + "}"
                           for v in node.values)
        return None

    out: set[str] = set()
    for node in ast.walk(ast.parse(PREFLIGHT.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "Finding" and node.args:
            label = text(node.args[0])
        elif isinstance(node, ast.Assign) and [getattr(t, "id", "") for t in node.targets] == ["what"]:
            label = text(node.value)
        else:
            continue
        if label is not None:
            out.add(label)
    return out


def _help() -> str:
    sub = next(a for a in build_parser()._actions if a.dest == "command")
    return " ".join((sub.choices["check"].description or "").split())


def _readme() -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    start = text.index("`tablectl check` (开赛前检查)")
    return " ".join(text[start:text.index("\n\n", start)].split())


def test_every_line_of_the_check_has_its_name() -> None:
    labels = _labels()
    assert "凭证 / credentials" in labels and len(labels) >= 10
    unnamed = labels - set(NAMED_BY)
    assert not unnamed, f"lines of tablectl check with no name here (add them to NAMED_BY): {unnamed}"


def test_the_help_and_the_readme_name_every_line_of_the_check() -> None:
    missing = [f"{where}: {word}" for where, text in (("tablectl check --help", _help()), ("README.md", _readme()))
               for word in sorted(set(NAMED_BY.values())) if not re.search(rf"\b{word}\b", text)]
    assert not missing, f"lines tablectl check prints that these texts do not name: {missing}"

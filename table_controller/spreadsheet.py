"""CSV for spreadsheet programs: the score sheet and the standings are opened in Excel or WPS by
referees and organisers, and a player's name comes from a table's keyboard or over MQTT.

A text cell that begins with `=`, `+`, `-`, `@`, a tab or a carriage return is read by those programs as
a formula (`=HYPERLINK(...)`, `=cmd|...`): such a cell is written with a leading apostrophe, which they
show as text. Numbers are written as numbers (a negative score stays a number).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Sequence
from typing import Any

#: What makes a spreadsheet read a cell as a formula.
FORMULA_START: tuple[str, ...] = ("=", "+", "-", "@", "\t", "\r")


def cell(value: Any) -> Any:
    """`value` as a spreadsheet must read it: text that would start a formula gets an apostrophe."""
    if isinstance(value, str) and value.startswith(FORMULA_START):
        return "'" + value
    return value


def to_csv(rows: Iterable[Sequence[Any]]) -> str:
    """The rows as CSV, UTF-8 with a BOM (so spreadsheet programs read the Chinese), every cell
    through `cell`."""
    out = io.StringIO()
    w = csv.writer(out)
    for row in rows:
        w.writerow([cell(v) for v in row])
    return "\ufeff" + out.getvalue()

"""The pages the display serves are the pages the docs name: docs/display.md's table of pages (name, path) holds
every path of `web.app.PAGES`, and docs/architecture.md's picture of the whole names each page in the browser.

Before, the picture's browser line listed six pages (Table, Win, Penalties, Score sheet, Public, Replay) and not
the broadcast's Overlay, served by the same app.js since the broadcast came in.
"""

from __future__ import annotations

import re
from pathlib import Path

from table_controller.web.app import PAGES

ROOT = Path(__file__).resolve().parents[2]


def _page_table() -> dict[str, str]:
    """docs/display.md's pages: path → English name (`| Table 牌桌 | `/` | ...`)."""
    text = (ROOT / "docs" / "display.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| ([A-Z][A-Za-z ]+?) [^|]*\| `(/[a-z]*)", text, flags=re.M)
    return {path: name for name, path in rows}


def test_the_page_table_has_every_page_the_display_serves() -> None:
    table = _page_table()
    assert set(table) == set(PAGES), f"docs/display.md's pages {sorted(table)} against the served {sorted(PAGES)}"


def test_the_architecture_picture_names_every_page() -> None:
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    line = next(line for line in text.splitlines() if "browser: web/static/app.js" in line)
    missing = [name for name in _page_table().values() if name not in line]
    assert not missing, f"pages docs/architecture.md's picture leaves out: {missing}"

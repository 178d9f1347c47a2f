"""The rule language (`rules/language.py`): each key a ruleset's other tables may hold is listed in docs/rules.md,
each listed key is one of it, each is read by the code, and the shipped files hold no other."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from table_controller.rules.language import KEYS
from table_controller.rules.ruleset import NAME_TABLES, OWN_SECTIONS, PACKAGED

ROOT = Path(__file__).resolve().parents[2]


def _documented() -> dict[str, set[str]]:
    text = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    section = text.split("### The rule language", 1)[1].split("\n### ", 1)[0]
    rows = re.findall(r"^\| `\[([a-z_.]+)\]` \| (.+) \|$", section, re.M)
    return {table: set(re.findall(r"`([^`\[\]]+)`", keys.split(" (")[0] if "(`[[" in keys else keys))
            for table, keys in rows}


def test_every_key_of_the_language_is_documented_and_every_documented_key_is_of_it() -> None:
    documented = _documented()
    assert set(documented) == set(KEYS)
    for table, keys in KEYS.items():
        assert documented[table] == set(keys), table


def test_every_key_of_the_language_is_read_by_the_code() -> None:
    code = "\n".join(p.read_text(encoding="utf-8") for p in (ROOT / "table_controller").rglob("*.py")
                     if p.name != "language.py")
    unread = [f"[{t}] {k}" for t, keys in KEYS.items() for k in keys if f'"{k}"' not in code]
    assert not unread


def test_the_shipped_files_hold_no_key_outside_it() -> None:
    def walk(prefix: str, table: dict[str, object], out: list[str]) -> None:
        for key, value in table.items():
            name = f"{prefix}.{key}" if prefix else key
            if prefix in NAME_TABLES or any(prefix.startswith(n + ".") for n in NAME_TABLES):
                continue
            if prefix and key not in KEYS.get(prefix, ()):
                out.append(name)
            if isinstance(value, dict):
                walk(name, value, out)

    stray: list[str] = []
    for file in sorted(PACKAGED.glob("*.toml")):
        data = tomllib.loads(file.read_text(encoding="utf-8"))
        for section, table in data.items():
            if section not in OWN_SECTIONS and isinstance(table, dict):
                walk(section, table, stray)
    assert not stray

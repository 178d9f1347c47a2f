"""docs/rules.md "Ruleset files" names every ruleset the repository ships (config/rulesets/<id>.toml).

It said "one file per ruleset id of the glossary, plus `jipinghu`" after `hebei` and `neimeng` were added, so a
newcomer counting the files found two it did not account for.
"""

from __future__ import annotations

import re
from pathlib import Path

from table_controller.rules import ruleset_ids

ROOT = Path(__file__).resolve().parents[2]


def test_the_ruleset_files_section_names_every_ruleset() -> None:
    text = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    start = text.index("## Ruleset files")
    para = text[start:text.index("\n\n", text.index("\n\n", start) + 2)]  # the heading and its first paragraph
    named = set(re.findall(r"`([a-z]+)`", para))
    missing = sorted(set(ruleset_ids()) - named)
    assert not missing, f"rulesets docs/rules.md 'Ruleset files' does not name: {missing}"

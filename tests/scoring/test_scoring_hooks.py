"""Kong payments, 荒牌 settlement and 诈和 are the scoring module's (`pay_kong`, `settle_draw`, `pay_false_win`),
not branches on family ids in shared code: every ruleset answers as it did, and a venue's copy of a shipped
ruleset under its own id pays as the original."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.scoring.hooks_cases import run_all

RECORDED = Path(__file__).parent / "data" / "hooks_recorded.json"


@pytest.mark.parametrize("part", ["kong", "exhaustive", "false_win"])
def test_every_ruleset_answers_as_recorded_on_the_branching_code(part: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The answers were recorded before the dispatch moved into the modules (`hooks_cases.py` says how)."""
    monkeypatch.delenv("TABLECTL_RULESETS_DIR", raising=False)
    recorded = json.loads(RECORDED.read_text(encoding="utf-8"))
    now = json.loads(json.dumps(run_all()))  # tuples and the like as the record has them
    assert sorted(now) == sorted(recorded)
    for ruleset in recorded:
        assert now[ruleset][part] == recorded[ruleset][part], ruleset

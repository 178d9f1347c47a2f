"""The per-ruleset caches (the penalty catalogue, the timers, the hand's flow, the deal plan, the scoring tables) are
the ruleset file's as this process read it from its folder ($TABLECTL_RULESETS_DIR): a venue's copy of a shipped
ruleset keeps the shipped id. Keyed by the id alone, a second folder's copy in the same process (a pytest worker, a
tool beside the service) got the first one's penalties, timers and flow; and every part, read when first asked for,
came from the file as it was at that moment: a file edited while the service ran gave the Penalties page the new
catalogue and the turn timers the old. Now every part comes from one read of the file per folder
(`rules.ruleset.in_use`): an edit waits for the restart, whole."""

from __future__ import annotations

from pathlib import Path

import pytest

from table_controller.penalties import catalogue
from table_controller.referee import flow_of
from table_controller.rules import deal_plan, load_ruleset
from table_controller.rules.ruleset import ENV_DIR, PACKAGED
from table_controller.scoring.config import scoring
from table_controller.state import hand_plan
from table_controller.timers import timer_rules

#: What a venue changes in its copy of mcr.toml: each line appears once in the shipped file.
EDITS = {
    'count = "both_totals"': 'count = "second_total"',     # [break]: the deal plan
    "multiple_winners = false": "multiple_winners = true",  # [flow]
    "amount = 10\nstops_win = true": "amount = 30\nstops_win = true",  # [penalties] 诈和
    "claim_s = 3\n": "claim_s = 5\n",                       # [timers]
    "min_fan = 8 ": "min_fan = 6 ",                         # [scoring]
}
HAND = {"ruleset": "mcr", "throws": [{"dice": [3, 4]}, {"dice": [2, 5]}], "wall_lengths": {}}


def _copy(folder: Path, edits: dict[str, str]) -> Path:
    """`folder` holding the shipped mcr.toml with `edits` made (old text → new)."""
    folder.mkdir(exist_ok=True)
    text = (PACKAGED / "mcr.toml").read_text(encoding="utf-8")
    for old, new in edits.items():
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    (folder / "mcr.toml").write_text(text, encoding="utf-8")
    return folder


def _parts() -> tuple[int | None, float | None, bool, int, int]:
    """What the running table reads of mcr: 诈和's amount, the claim window, 一炮多响, the break's stack, min_fan."""
    return (catalogue("mcr").get("false_win").amount, timer_rules("mcr").claim_s, flow_of("mcr").multiple_winners,
            hand_plan(HAND).break_stack, int(scoring("mcr")["min_fan"]))


def test_a_venue_copy_in_another_folder_is_read_as_its_own_file_in_the_same_process(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The shipped mcr first (as every other test of the worker may have read it), then a venue's copy with the
    same id in its own folder: each part is the copy's. Before, the catalogue, the timers, the flow and the deal plan
    were the shipped file's (keyed by the id), only [scoring] the copy's: 30 points of 诈和 charged as 10."""
    monkeypatch.delenv(ENV_DIR, raising=False)
    shipped = _parts()
    assert shipped == (10, 3, False, shipped[3], 8)
    venue = _copy(tmp_path / "venue", EDITS)
    monkeypatch.setenv(ENV_DIR, str(venue))
    copy_plan = deal_plan(load_ruleset("mcr", venue), dice=(3, 4), dice2=(2, 5))
    assert copy_plan.break_stack != shipped[3]  # the edit moves the break: the plan tells the two files apart
    assert _parts() == (30, 5, True, copy_plan.break_stack, 6)
    monkeypatch.delenv(ENV_DIR)
    assert _parts() == shipped  # and back: each folder its own


def test_an_edit_in_place_after_one_part_was_read_leaves_every_part_as_read(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The venue's file read once (the turn timers, asked for by the first page), then edited in place: the
    catalogue, the flow, the deal and the scoring asked for afterwards are the file as read, not as edited. Before,
    each part was the file as it was when that part was first asked for: [scoring]'s min_fan was the edit's 6."""
    venue = _copy(tmp_path / "venue", {})
    monkeypatch.setenv(ENV_DIR, str(venue))
    assert timer_rules("mcr").claim_s == 3
    read = deal_plan(load_ruleset("mcr", venue), dice=(3, 4), dice2=(2, 5)).break_stack
    _copy(venue, EDITS)
    assert _parts() == (10, 3, False, read, 8)


"""Which module scores a ruleset is said by its file (`[scoring] engine`, default its own id), not by
lists of ids in the code: a new regional ruleset is its TOML file plus, at most, one scoring module."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

from table_controller.rules import ruleset_ids
from table_controller.rules.ruleset import PACKAGED
from table_controller.scoring import ScoringError, referee_scored, score_json, scored_rulesets
from table_controller.scoring.rulesets import module_for

HAND = {"seat_wind": "S", "prevalent_wind": "E", "concealed": "123m456m789m11p23p", "win_tile": "4p",
        "win": "discard", "discarder": "E"}


def _venue_copy(folder: Path, base: str, new_id: str, engine: str | None) -> None:
    """A venue's own ruleset: a full copy of a shipped file under another id (no `extends`)."""
    text = (PACKAGED / f"{base}.toml").read_text(encoding="utf-8")
    text = re.sub(r'(?m)^id = ".*"$', f'id = "{new_id}"', text)
    text = re.sub(r'(?m)^engine = .*\n', "", text)  # with its comment
    if engine is not None:
        text = text.replace("[scoring]\n", f'[scoring]\nengine = "{engine}"\n', 1)
    (folder / f"{new_id}.toml").write_text(text, encoding="utf-8")


def test_the_scored_rulesets_are_the_files_with_a_scoring_table() -> None:
    with_table = {r for r in ruleset_ids() if "scoring" in tomllib.loads((PACKAGED / f"{r}.toml").read_text("utf-8"))}
    assert set(scored_rulesets()) == with_table
    assert {"mcr", "jingji", "sichuan", "xueliu", "tuidaohu", "jipinghu", "nanning", "riichi"} <= with_table
    assert module_for("xueliu").__name__.endswith(".sichuan")
    assert module_for("jipinghu").__name__.endswith(".guangdong")


def test_a_venues_own_ruleset_file_names_the_module_that_scores_it(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """Before, a file not in the code's list of ids was never scored: it fell to the referee (needs_points)."""
    _venue_copy(tmp_path, "sichuan", "chengdu", "sichuan")
    _venue_copy(tmp_path, "sichuan", "deyang", "sichaun")
    monkeypatch.setenv("TABLECTL_RULESETS_DIR", str(tmp_path))
    own = score_json({**HAND, "concealed": "123m456m789m11p23p"}, "chengdu")
    monkeypatch.delenv("TABLECTL_RULESETS_DIR")
    shipped = score_json(HAND, "sichuan")
    monkeypatch.setenv("TABLECTL_RULESETS_DIR", str(tmp_path))
    assert own["valid"] and not referee_scored("chengdu")
    assert (own["fans"], own["payments"]) == (shipped["fans"], shipped["payments"])
    with pytest.raises(ScoringError, match="engine of 'deyang' names no scoring module: 'sichaun'.*sichuan"):
        score_json(HAND, "deyang")


def test_tablectl_score_help_names_every_scored_ruleset(capsys: pytest.CaptureFixture[str]) -> None:
    from table_controller.cli import main

    with pytest.raises(SystemExit):
        main(["score", "--help"])
    said = " ".join(capsys.readouterr().out.split())
    assert all(r in said for r in scored_rulesets()), said


@pytest.mark.parametrize("base", ["nanning", "mcr", "riichi", "sichuan"])
def test_the_fan_table_is_the_scoring_modules_whatever_the_rulesets_id(base: str, tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """The Win page's fan table asked `family == "nanning"` (and "mcr", "riichi") for the tables without one
    value per element: a ruleset scored by such a module under its own id raised KeyError 'fans'."""
    from table_controller.scoring.catalog import fan_table

    shipped = fan_table(base)
    _venue_copy(tmp_path, base, f"{base}_venue", base)
    monkeypatch.setenv("TABLECTL_RULESETS_DIR", str(tmp_path))
    assert fan_table(f"{base}_venue") == shipped and len(shipped) >= 3


def test_a_copy_of_nanning_under_a_new_id_is_told_to_name_its_engine(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """docs/rules.md "Adding a regional ruleset" says to copy nanning.toml and change its id: the copy's engine is
    then its id, which no module is. The refusal listed every module of the package (`config`, `points`, `waits`
    ...) as engines to choose and said nothing of `[scoring] engine`."""
    from table_controller.scoring import check_tables
    from table_controller.scoring.config import engines

    text = (PACKAGED / "nanning.toml").read_text(encoding="utf-8")
    (tmp_path / "liuzhou.toml").write_text(text.replace('id = "nanning"', 'id = "liuzhou"'), encoding="utf-8")
    monkeypatch.setenv("TABLECTL_RULESETS_DIR", str(tmp_path))
    assert set(engines()) == {"guangdong", "hebei", "jingji", "manual", "mcr", "nanning", "riichi", "sichuan"}
    with pytest.raises(ScoringError) as err:
        check_tables("liuzhou")
    said = str(err.value)
    assert said.index("计分模块") < said.index("engine of")
    assert "liuzhou.toml" in said and "no engine" in said and "scoring/liuzhou.py" in said
    assert "nanning" in said and "points" not in said.split("one of:")[1]

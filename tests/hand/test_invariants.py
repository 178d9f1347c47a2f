"""Invariants of whole hands and sessions under every ruleset, whatever the rule reading (what each
check is: `invariants.py` for the pure hand machine, `live_games.py` for the live table). Fixed seeds,
a few seconds; `bench/invariants.py` plays many more and prints the figures."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from table_controller.rules import ruleset_ids

from .invariants import MACHINE, Audited, full_set, play
from .live_games import LiveGame, play_session


@pytest.mark.parametrize("ruleset", MACHINE)
def test_the_hand_machine_keeps_every_tile_the_sizes_the_wall_and_the_scorer(ruleset: str) -> None:
    seen: Counter[str] = Counter()
    for seed in range(5):
        seen.update(play(ruleset, seed).counts)
    assert seen["Discard"] > 200 and seen["诈和"] > 0, seen  # whole hands, the false declarations refused


def test_every_scored_ruleset_is_played_by_the_harnesses() -> None:
    """The machine's rulesets were a list of ids here (and in test_random_hands, test_properties): 河北, added as
    a file and a scoring module, was never played until each list was edited."""
    from table_controller.scoring import scored_rulesets

    from .test_random_hands import SCORED

    assert set(MACHINE) == set(SCORED) == set(scored_rulesets())
    assert "hebei" in MACHINE


def test_the_machine_checks_bite() -> None:
    """A tile lost from a hand, or a draw off the plan's order, is caught."""
    table = Audited("mcr", 3)
    while table.state.phase != "discard" or table.state.opening is not None:
        table.step()
    table.state.seats[table.state.turn].concealed.pop()
    with pytest.raises(AssertionError, match="missing"):
        table._tiles("a tile lost")
    with pytest.raises(AssertionError, match="holds 13"):
        table._sizes("a tile lost")
    assert sum(full_set("mcr").values()) == 144 and sum(full_set("sichuan").values()) == 108
    assert sum(full_set("shiwan").values()) == 136 and full_set("nanjing")["5z"] == 4


@pytest.mark.parametrize("ruleset", ruleset_ids())
def test_live_sessions_keep_every_tile_the_fold_the_undo_and_the_sheet(ruleset: str, tmp_path: Path) -> None:
    game = play_session(ruleset, 1, tmp_path / "events.sqlite3", 3)
    assert game.counts["hands"] >= 1 and game.counts["play.discard"] > 50, game.counts
    assert game.counts["referee.win_confirm"] + game.counts["荒牌"] >= game.counts["hands"], game.counts


def test_the_live_checks_bite(tmp_path: Path) -> None:
    """A record that lost a discard, or a log that folds otherwise, is caught."""
    game = LiveGame("mcr", 2, tmp_path / "events.sqlite3")
    assert game.play_hand()
    game.live.state.hand["discards"]["E"].pop()  # type: ignore[index]
    with pytest.raises(AssertionError, match="folds to another state"):
        game._hand_end()


@pytest.mark.parametrize("ruleset,seed", [("sichuan", 0), ("xueliu", 1)])
def test_blood_battle_wins_undone_after_play_went_on_and_confirmed_again_leave_the_hand_as_it_was(
        ruleset: str, seed: int, tmp_path: Path) -> None:
    """Found by this fuzz: the undo put the wall's count and the turn back to the win's moment."""
    game = LiveGame(ruleset, seed, tmp_path / "events.sqlite3", late_undo=0.5)
    for _ in range(3):
        game.play_hand()
    assert game.counts["late undo+redo"] > 0, game.counts

"""The rule language's words (an option whose value is one of a few names): a house file's misspelt one is refused
when a table's config is read, naming the key and the words allowed. Before, `tablectl check` passed them and the
table played another rule: `next_dealer = "first_winer"` passed the deal to the next chair, `continue_after_win =
"blood_rivers"` played 血战 in some parts and 血流 in others, a misspelt `abortive_draws` kind was dropped,
`riichi_leftover = "frist"` kept the sticks on the table, and 竞技's `hanging_swap` / `non_winning_end` stopped the
match at its first 全求独钓 win or at the kong that would end the 局."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from table_controller.config import ConfigError, parse_config
from table_controller.rules import load_ruleset
from table_controller.rules.ruleset import RulesetError
from table_controller.scoring import ScoringError, check_tables


def _venue(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, base: str, body: str) -> str:
    """A house file `club` extending `base` with `body`, in a venue's rulesets folder of its own."""
    folder = tmp_path / "rulesets"
    folder.mkdir()
    (folder / "club.toml").write_text(f'extends = "{base}"\nid = "club"\nname_zh = "俱乐部"\nname_en = "club"\n{body}\n',
                                      encoding="utf-8")
    monkeypatch.setenv("TABLECTL_RULESETS_DIR", str(folder))
    return "club"


@pytest.mark.parametrize("base, body, error", [
    ("sichuan", '[match]\nnext_dealer = "first_winer"', "[match] next_dealer must be one of rotate, first_winner"),
    ("shanghai", '[match]\nnext_dealer = "winner"', "[match] next_dealer must be one of rotate, first_winner"),
    ("riichi", '[match]\nrounds = ["East", "South"]', "[match] rounds must list the rounds' winds, each one of E, S"),
    ("riichi", '[match]\nrounds = "ES"', "[match] rounds must list the rounds' winds"),
    ("riichi", '[match]\nbust = "yes"', "[match] bust must be true or false"),
    ("riichi", '[match]\nlast_dealer_stop = "agari"', "[match] last_dealer_stop must be one of none, win, win_or_ready"),
    ("sichuan", '[flow]\ncontinue_after_win = "blood_rivers"',
     "[flow] continue_after_win must be one of end, blood_battle, blood_river"),
    ("riichi", '[flow]\nabortive_draws = ["nine_terminal", "four_winds"]',
     "[flow] abortive_draws lists ['nine_terminal']: the kinds are nine_terminals"),
    ("riichi", '[scoring]\nriichi_leftover = "frist"', '[scoring] riichi_leftover of club must be "first" or "table"'),
    ("jingji", '[scoring.baofu]\nhanging_swap = "rang"', "[scoring.baofu] hanging_swap of club is ends or range"),
    ("jingji", '[scoring.non_winning_end]\nkong = "voided"', "[scoring.non_winning_end] kong of club is hold or void"),
])
def test_a_misspelt_word_is_refused_when_the_table_is_configured(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                 base: str, body: str, error: str) -> None:
    club = _venue(tmp_path, monkeypatch, base, body)
    with pytest.raises(ScoringError) as err:
        check_tables(club)
    assert error in str(err.value)
    with pytest.raises(ConfigError, match="rules.ruleset"):
        parse_config({"rules": {"ruleset": club}}, source="t.toml")
    if body.startswith(("[flow]", "[match]")):  # the hand's and the session's words: every tool reading the file
        with pytest.raises(RulesetError, match=re.escape(error)):  # (tablectl deal, score, waits took them)
            load_ruleset(club)


@pytest.mark.parametrize("base, body", [
    ("sichuan", '[match]\nnext_dealer = "rotate"\n[flow]\ncontinue_after_win = "blood_river"'),
    ("xueliu", '[flow]\ncontinue_after_win = "end"'),
    ("riichi", '[match]\nrounds = ["E"]\nbust = true\nlast_dealer_stop = "win_or_ready"'),  # 东风战, 天凤's
    ("riichi", '[scoring]\nriichi_leftover = "table"\n[flow]\nmultiple_winners = true\nabortive_draws = '
               '["nine_terminals", "four_winds", "four_riichi", "four_kongs", "three_rons"]'),
    ("jingji", '[scoring.baofu]\nhanging_swap = "range"\n[scoring.non_winning_end]\nkong = "void"'),
    ("shanghai", '[match]\nnext_dealer = "rotate"'),
])
def test_every_word_the_docs_give_is_taken(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, base: str,
                                           body: str) -> None:
    check_tables(_venue(tmp_path, monkeypatch, base, body))


@pytest.mark.parametrize("ruleset", ["mcr", "jingji", "sichuan", "xueliu", "tuidaohu", "jipinghu", "riichi",
                                     "nanning", "hebei", "shanghai", "hainan", "neimeng"])
def test_the_shipped_rulesets_say_only_known_words(ruleset: str) -> None:
    check_tables(ruleset)


@pytest.mark.parametrize("base, body, error", [
    # the live record took chows (its [flow] allowed them) that the scorer refuses in every win (bad_meld)
    ("sichuan", "[flow]\nno_chow = false", ""),
    ("xueliu", "[flow]\nno_chow = false", ""),
    ("nanning", "[flow]\nno_chow = false", ""),
    # 起和 below 0 fans, or a part of one, loaded and let every hand win (or none)
    ("mcr", "[scoring]\nmin_fan = -3", "[scoring] min_fan 须为不小于 0 的整数，不是 -3"),
    ("jipinghu", "[scoring]\nmin_fan = -1", "不是 -1"),
])
def test_a_rule_the_scorer_cannot_keep_is_refused_when_the_table_is_configured(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, base: str, body: str, error: str) -> None:
    club = _venue(tmp_path, monkeypatch, base, body)
    with pytest.raises(ScoringError) as err:
        check_tables(club)
    said = str(err.value)
    assert err.value.code == "bad_ruleset_table"
    assert ("不能吃牌，[flow] no_chow 须为 true" in said) if "no_chow" in body else error in said


@pytest.mark.parametrize("base, body", [("sichuan", "[flow]\nno_chow = true"), ("mcr", "[scoring]\nmin_fan = 0"),
                                        ("jipinghu", "[scoring]\nmin_fan = 3")])
def test_the_same_rules_kept_as_the_scorer_can_are_taken(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, base: str,
                                                         body: str) -> None:
    check_tables(_venue(tmp_path, monkeypatch, base, body))


@pytest.mark.parametrize("base, body, unread", [
    ("mcr", '[scoring.fans]\n"清一色" = 30', "[scoring.fans]"),  # 国标's fans are pymahjonggb's
    ("riichi", '[scoring.fans]\n"立直" = 2', "[scoring.fans]"),
    ("nanning", '[scoring.fans]\n"清一色" = 3', "[scoring.fans]"),  # 南宁 counts by patterns and ways
    ("hebei", '[scoring.fans]\n"和牌" = 5', "[scoring.fans]"),  # 和牌 is worth the 基点
    ("sichuan", '[scoring.patterns]\n"清一色" = { self_draw = 6 }', "[scoring.patterns]"),
])
def test_a_fan_table_the_scorer_never_reads_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, base: str,
                                                       body: str, unread: str) -> None:
    """It loaded without a word and changed nothing: a venue's 清一色 = 30 under 国标 scored 24 as before."""
    club = _venue(tmp_path, monkeypatch, base, body)
    with pytest.raises(ScoringError) as err:
        check_tables(club)
    assert err.value.code == "bad_ruleset_table" and f"{unread} 不起作用" in str(err.value)


@pytest.mark.parametrize("base, body", [("sichuan", '[scoring.fans]\n"清一色" = 3'),
                                        ("nanning", '[scoring.patterns]\n"清一色" = { self_draw = 6, discard = 9 }'),
                                        ("tuidaohu", '[scoring.excludes]\n"清一色" = ["碰碰胡"]')])
def test_a_fan_table_the_scorer_reads_is_taken(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, base: str,
                                               body: str) -> None:
    check_tables(_venue(tmp_path, monkeypatch, base, body))

"""House rulesets (`extends`): a venue's variant of a ruleset is a TOML file of what it changes,
merged over its base, played and scored as the base's family with its own tables."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from table_controller.config import ConfigError, parse_config
from table_controller.rules import RulesetError, load_ruleset, ruleset_ids
from table_controller.scoring import referee_scored, score_json, win_options
from table_controller.scoring.catalog import fan_table
from table_controller.scoring.config import family, match

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "config" / "house-ruleset.example.toml"
# 五门齐 6 + 幺九刻 1 = 7 fans: short of MCR's 8, enough for the club's 6
SEVEN_FANS = {"seat_wind": "S", "prevalent_wind": "E", "concealed": "67s66z", "win_tile": "8s", "win": "discard",
              "discarder": "E", "melds": [{"type": "chi", "tiles": "234m", "from": "E"},
                                          {"type": "chi", "tiles": "456p", "from": "E"},
                                          {"type": "pung", "tiles": "333z", "from": "W"}]}


@pytest.fixture
def venue(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A venue's rulesets folder holding only its house ruleset (the example, as shipped)."""
    shutil.copy(EXAMPLE, tmp_path / "mcr_club.toml")
    monkeypatch.setenv("TABLECTL_RULESETS_DIR", str(tmp_path))
    return tmp_path


def _write(folder: Path, name: str, text: str) -> None:
    (folder / f"{name}.toml").write_text(text, encoding="utf-8")


def test_the_example_plays_mcr_with_the_clubs_changes(venue: Path) -> None:
    club, mcr = load_ruleset("mcr_club"), load_ruleset("mcr", REPO / "config" / "rulesets")
    assert (club.extends, club.family, club.name_zh) == ("mcr", "mcr", "国标麻将（俱乐部规则：六番起和，不换位）")
    # the table's procedures are MCR's: the same wall, dice and deal
    assert (club.tiles, club.wall_lengths, club.dice_count, club.deal) == (mcr.tiles, mcr.wall_lengths,
                                                                           mcr.dice_count, mcr.deal)
    # a table merges key by key: the minimum changes, MCR's other scoring keys stay
    assert club.sections["scoring"]["min_fan"] == 6 and mcr.sections["scoring"]["min_fan"] == 8
    assert {k: v for k, v in club.sections["scoring"].items() if k != "min_fan"} == \
        {k: v for k, v in mcr.sections["scoring"].items() if k != "min_fan"}
    assert list(match("mcr_club")["seat_swap_before_round"]) == [] and match("mcr_club")["hands_per_session"] == 16
    assert family("mcr_club") == "mcr" and not referee_scored("mcr_club")
    # scored as MCR, with the club's minimum
    out = score_json(SEVEN_FANS, "mcr_club")
    assert out["valid"] is True and out["total"] == 7
    assert win_options("mcr_club") == win_options("mcr")
    assert fan_table("mcr_club")[0] == {"name": "起和", "value": 6, "rule": "和牌须够6番, 花牌不计 (fans: pymahjonggb)"}
    # the packaged MCR is untouched
    monkey_dir = REPO / "config" / "rulesets"
    assert load_ruleset("mcr", monkey_dir).sections["scoring"]["min_fan"] == 8


def test_mcr_itself_still_refuses_seven_fans() -> None:
    out = score_json(SEVEN_FANS, "mcr")
    assert out["valid"] is False and out["reason"] == "below_minimum"


def test_the_clubs_session_keeps_its_chairs(venue: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from table_controller.hand.match import MatchRules, next_hand, start

    def seating_after(ruleset: str, hands: int) -> tuple[int, ...]:
        state = start(MatchRules.for_ruleset(ruleset))
        for _ in range(hands):
            state, _notes = next_hand(state, [])
        return state.seating

    assert seating_after("mcr_club", 12) == (1, 2, 3, 4)
    monkeypatch.delenv("TABLECTL_RULESETS_DIR")  # MCR itself (packaged) swaps before the West round
    assert seating_after("mcr", 12) == (2, 1, 4, 3)


def test_a_table_config_takes_the_house_ruleset(venue: Path) -> None:
    assert ruleset_ids() == ("mcr_club",)
    assert parse_config({"rules": {"ruleset": "mcr_club"}}, source="t.toml").rules.ruleset == "mcr_club"
    with pytest.raises(ConfigError, match="mcr_club"):
        parse_config({"rules": {"ruleset": "mcr_clup"}}, source="t.toml")


def test_a_chain_of_house_rulesets_and_a_base_beside_it(tmp_path: Path) -> None:
    _write(tmp_path, "a", 'extends = "sichuan"\nid = "a"\nname_zh = "甲"\nname_en = "A"\n[scoring]\nmax_fan = 3\n')
    _write(tmp_path, "b", 'extends = "a"\nid = "b"\nname_zh = "乙"\nname_en = "B"\n[dice]\ncount = 1\n')
    b = load_ruleset("b", tmp_path)
    assert (b.extends, b.family, b.name_en, b.dice_count, b.tiles) == ("a", "sichuan", "B", 1, 108)
    assert b.sections["scoring"]["max_fan"] == 3 and b.sections["flow"] == load_ruleset("sichuan").sections["flow"]


@pytest.mark.parametrize("files, error", [
    ({"x": 'extends = "mcrr"\nid = "x"\nname_zh = "x"\nname_en = "x"\n'}, "extends 'mcrr', which is no ruleset"),
    ({"x": 'extends = "y"\nid = "x"\nname_zh = "x"\nname_en = "x"\n',
      "y": 'extends = "x"\nid = "y"\nname_zh = "y"\nname_en = "y"\n'}, "comes back to it (x → y → x)"),
    ({"x": 'extends = "mcr"\nid = "x"\n'}, "name_zh is required: a house ruleset needs a name of its own"),
    ({"x": 'extends = 3\nid = "x"\nname_zh = "x"\nname_en = "x"\n'}, "extends must name a ruleset id"),
    ({"x": 'extends = "mcr"\nid = "x"\nname_zh = "x"\nname_en = "x"\n[dice]\ncout = 1\n'}, "cout"),
    ({"x": 'extends = "mcr"\nid = "z"\nname_zh = "x"\nname_en = "x"\n'}, "the file is named x.toml"),
])
def test_a_wrong_house_ruleset_is_refused_with_the_reason(tmp_path: Path, files: dict[str, str], error: str) -> None:
    for name, text in files.items():
        _write(tmp_path, name, text)
    with pytest.raises(RulesetError) as err:
        load_ruleset("x", tmp_path)
    assert error in str(err.value)


def test_a_table_config_naming_a_broken_house_ruleset_is_refused_with_the_files_error(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Named when the config is read (`tablectl run` exits 2 with it), not a crash at start."""
    _write(tmp_path, "club2", 'extends = "mcr"\nid = "club2"\nname_zh = "二"\nname_en = "2"\n[dice]\ncout = 1\n')
    monkeypatch.setenv("TABLECTL_RULESETS_DIR", str(tmp_path))
    with pytest.raises(ConfigError, match=r"club2\.toml: \[dice\] has unknown key 'cout'"):
        parse_config({"rules": {"ruleset": "club2"}}, source="t.toml")

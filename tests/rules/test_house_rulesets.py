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
    _write(tmp_path, "a", 'extends = "sichuan"\nid = "a"\nname_zh = "甲"\nname_en = "A"\n[scoring]\ncap_fan = 3\n')
    _write(tmp_path, "b", 'extends = "a"\nid = "b"\nname_zh = "乙"\nname_en = "B"\n[dice]\ncount = 1\n')
    b = load_ruleset("b", tmp_path)
    assert (b.extends, b.family, b.name_en, b.dice_count, b.tiles) == ("a", "sichuan", "B", 1, 108)
    assert b.sections["scoring"]["cap_fan"] == 3 and b.sections["flow"] == load_ruleset("sichuan").sections["flow"]


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


# --- a venue's own variants (audit: house rulesets written from the docs alone) ---------------

# 清一色 2 番, 自摸, no 根: 成都 pays base × 2^2 = 4 from each, plus the base (自摸加底)
FLUSH_SELF_DRAWN = {"seat_wind": "E", "concealed": "1112345678999m", "win_tile": "5m", "win": "self_draw"}
# 七对 + 清一色 = 4 番 on a discard: capped at 3 番 the discarder pays 8, at 4 番 16
FLUSH_PAIRS = {"seat_wind": "E", "concealed": "1122334455667m", "win_tile": "7m", "win": "discard", "discarder": "S"}


def _house(folder: Path, name: str, base: str, body: str) -> None:
    _write(folder, name, f'extends = "{base}"\nid = "{name}"\nname_zh = "{name}"\nname_en = "{name}"\n{body}')


def test_a_sichuan_house_ruleset_caps_at_three_and_adds_a_fan_on_self_draw(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """自摸加番 was read as no bonus at all: any `self_draw` but "add_base" silently paid nothing."""
    _house(tmp_path, "chengdu3", "sichuan", '[scoring]\ncap_fan = 3\nself_draw = "add_fan"\n')
    monkeypatch.setenv("TABLECTL_RULESETS_DIR", str(tmp_path))
    out = score_json(FLUSH_SELF_DRAWN, "chengdu3")
    assert [f["name"] for f in out["fans"]] == ["清一色", "自摸"] and out["total"] == 3
    assert out["payments"] == {"E": 24, "S": -8, "W": -8, "N": -8}
    capped = score_json(FLUSH_PAIRS, "chengdu3")
    assert (capped["points"], capped["capped"]) == (8, True)
    monkeypatch.delenv("TABLECTL_RULESETS_DIR")
    assert score_json(FLUSH_SELF_DRAWN, "sichuan")["payments"] == {"E": 15, "S": -5, "W": -5, "N": -5}
    assert score_json(FLUSH_PAIRS, "sichuan")["points"] == 16


def test_a_self_draw_rule_the_scorer_lacks_is_refused_not_ignored(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Refused when the file is read (`tablectl check`, the service's start), not at the match's first
    自摸; the scorer still refuses one it is handed."""
    from table_controller.config import ConfigError, parse_config
    from table_controller.scoring import ScoringError
    from table_controller.scoring.sichuan import self_draw_rule

    _house(tmp_path, "chengdu_x", "sichuan", '[scoring]\nself_draw = "double"\n')
    monkeypatch.setenv("TABLECTL_RULESETS_DIR", str(tmp_path))
    said = r"chengdu_x.toml: \[scoring\] self_draw must be one of add_base, add_fan, none, not 'double'"
    with pytest.raises(RulesetError, match=said):
        load_ruleset("chengdu_x")
    with pytest.raises(ConfigError, match="self_draw must be one of"):
        parse_config({"rules": {"ruleset": "chengdu_x"}}, source="table.toml")
    with pytest.raises(ScoringError, match=r"chengdu_x: \[scoring\] self_draw is one of add_base, add_fan, none"):
        self_draw_rule({"id": "chengdu_x", "self_draw": "double"})


@pytest.mark.parametrize("body, error", [
    ("[scoring]\nmin_fans = 6\n", "[scoring] has unknown key 'min_fans': mcr has no such key"),
    ("[scoring]\nmin_fans = 6\n", "did you mean 'min_fan'?"),
    ('[scoring]\nmin_fan = "6"\n', "[scoring] min_fan must be an integer as in mcr, not '6'"),
    ("[match]\nseat_swap_before_round = false\n", "[match] seat_swap_before_round must be a string as in mcr"),
    ("[flow]\nmultiple_winner = true\n", "[flow] has unknown key 'multiple_winner'"),
    ('[scoring]\ntable_points = ["4", "2", "1", "0"]\n', "[scoring] table_points must be numbers, 标准分 by place"),
    ("[scoring]\ntable_points = [4, 2, true, 0]\n", "[scoring] table_points must be numbers"),
])
def test_a_misspelt_or_mistyped_key_in_a_raw_table_is_refused(tmp_path: Path, body: str, error: str) -> None:
    """`[scoring]`, `[match]` and `[flow]` are read with defaults: before, `min_fans = 6` or `cap_fan = "3"`
    loaded, and the table played its base's rule (8 番起和) while showing the house name."""
    _house(tmp_path, "club", "mcr", body)
    with pytest.raises(RulesetError) as err:
        load_ruleset("club", tmp_path)
    assert error in str(err.value) and str(tmp_path / "club.toml") in str(err.value)


def test_a_table_config_naming_a_misspelt_house_ruleset_does_not_start(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _house(tmp_path, "chengdu3", "sichuan", "[scoring]\nmax_fan = 3\n")
    monkeypatch.setenv("TABLECTL_RULESETS_DIR", str(tmp_path))
    with pytest.raises(ConfigError, match=r"chengdu3\.toml: \[scoring\] has unknown key 'max_fan'.*'cap_fan'"):
        parse_config({"rules": {"ruleset": "chengdu3"}}, source="t.toml")


def test_a_house_verdict_names_the_house_ruleset(venue: Path) -> None:
    """MCR (and 竞技, 南宁, 日麻) named their family in the result, so a club's hands read as plain MCR."""
    assert score_json(SEVEN_FANS, "mcr_club")["ruleset"] == "mcr_club"
    assert score_json({**SEVEN_FANS, "concealed": "67s67z"}, "mcr_club")["ruleset"] == "mcr_club"


@pytest.mark.parametrize("base, body, error", [
    ("mcr", "[tiles]\ntotal = 136\nflowers = 0\n[wall]\nlengths = { E = 17, S = 17, W = 17, N = 17 }\n",
     "[flow] tiles = 144 contradicts [tiles] total = 136; set both"),
    ("tuidaohu", "[hand_end]\ntiles = 2\n", "[flow] horses = 4 contradicts [hand_end] tiles = 2; set both"),
    ("tuidaohu", "[flow]\nhorses = 2\n", "[flow] horses = 2 contradicts [hand_end] tiles = 4; set both"),
    ("tuidaohu", "[flow]\nno_chow = false\n", "[scoring] no_chow = true contradicts [flow] no_chow = false; set both"),
    ("tuidaohu", "[scoring]\nno_chow = false\n", "[scoring] no_chow = false contradicts [flow] no_chow = true; set both"),
    ("jipinghu", "[flow]\nno_chow = true\n", "[scoring] no_chow = false contradicts [flow] no_chow = true; set both"),
])
def test_a_house_change_that_contradicts_a_repeated_key_is_refused(tmp_path: Path, base: str, body: str,
                                                                   error: str) -> None:
    """Before, MCR without flowers kept flowers in the hand's flow (`[flow] tiles` 144), and 两马 in
    `[hand_end]` left `[flow] horses` at 4; a 推倒胡 club allowing 吃 in `[flow]` only had the live record take chows
    and the scorer refuse every win holding one (`bad_meld`)."""
    _house(tmp_path, "club", base, body)
    with pytest.raises(RulesetError) as err:
        load_ruleset("club", tmp_path)
    assert error in str(err.value) and "club.toml" in str(err.value)


def test_house_rulesets_that_change_both_load(tmp_path: Path) -> None:
    _house(tmp_path, "mcr_six", "mcr", "[tiles]\ntotal = 136\nflowers = 0\n[wall]\n"
           "lengths = { E = 17, S = 17, W = 17, N = 17 }\n[scoring]\nmin_fan = 6\n[flow]\ntiles = 136\n")
    _house(tmp_path, "tdh2", "tuidaohu", "[scoring]\nwildcard = false\n[hand_end]\ntiles = 2\n[flow]\nhorses = 2\n")
    _house(tmp_path, "tdh_chow", "tuidaohu", "[scoring]\nno_chow = false\n[flow]\nno_chow = false\n")
    assert load_ruleset("tdh_chow", tmp_path).sections["flow"]["no_chow"] is False
    assert load_ruleset("mcr_six", tmp_path).tiles == 136
    assert load_ruleset("tdh2", tmp_path).hand_end.tiles == 2  # type: ignore[union-attr]


def test_the_service_unit_finds_the_venues_rulesets_folder(venue: Path, tmp_path: Path) -> None:
    """`tablectl install-service` checked the config against $TABLECTL_RULESETS_DIR but wrote a unit
    without it: the service at boot found no `mcr_club` and stopped for good (a config error)."""
    from table_controller.deploy import service_unit

    config = parse_config({"rules": {"ruleset": "mcr_club"}}, source="t.toml")
    unit = service_unit(config, tmp_path / "table.toml", Path("/usr/bin/tablectl"), "pi")
    assert f"Environment=TABLECTL_RULESETS_DIR={venue}" in unit.splitlines()


def test_a_house_file_may_set_a_key_its_base_lacks_but_the_rule_language_has(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The check for misspelt keys took its base's keys as the whole language: a 四川 house file's
    `[match] hands_per_session` (国标 has it) and 国标's documented `replay_abandoned` (a default, in no
    shipped file) were refused as unknown. A typo is still refused."""
    _house(tmp_path, "chengdu16", "sichuan", "[match]\nhands_per_session = 16\n")
    _house(tmp_path, "mcr_void", "mcr", "[match]\nreplay_abandoned = false\n")
    _house(tmp_path, "chengdu_typo", "sichuan", "[match]\nhands_per_sesion = 16\n")
    monkeypatch.setenv("TABLECTL_RULESETS_DIR", str(tmp_path))
    assert load_ruleset("chengdu16").sections["match"]["hands_per_session"] == 16
    assert load_ruleset("mcr_void").sections["match"]["replay_abandoned"] is False
    with pytest.raises(RulesetError, match="unknown key 'hands_per_sesion'.*did you mean 'hands_per_session'"):
        load_ruleset("chengdu_typo")


def test_a_riichi_house_file_sets_the_local_rules_riichi_toml_documents(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """riichi.toml shows its local rules commented out (uma, return_points, nagashi_mangan, held_wait_ready,
    noten_riichi; docs/rules.md, docs/scoring.md "a venue's `[scoring]`"): no shipped file sets them, so a
    venue's house file extending riichi was refused ("riichi has no such key") and only an edited copy of
    riichi.toml could use them. Their values are still checked, and a typo still refused."""
    _house(tmp_path, "mleague", "riichi", "[scoring]\numa = [30, 10, -10, -30]\nreturn_points = 30000\n"
           'nagashi_mangan = true\nheld_wait_ready = false\nnoten_riichi = "mangan"\n')
    _house(tmp_path, "bad_uma", "riichi", "[scoring]\numa = [30, 10, -10, -20]\n")
    _house(tmp_path, "typo", "riichi", "[scoring]\nnagashi_mangen = true\n")
    monkeypatch.setenv("TABLECTL_RULESETS_DIR", str(tmp_path))
    table = load_ruleset("mleague").sections["scoring"]
    assert (table["uma"], table["return_points"], table["noten_riichi"]) == ([30, 10, -10, -30], 30000, "mangan")
    assert parse_config({"rules": {"ruleset": "mleague"}}, source="t.toml").rules.ruleset == "mleague"
    with pytest.raises(ConfigError, match="uma"):
        parse_config({"rules": {"ruleset": "bad_uma"}}, source="t.toml")
    with pytest.raises(RulesetError, match="unknown key 'nagashi_mangen'.*did you mean 'nagashi_mangan'"):
        load_ruleset("typo")


@pytest.mark.parametrize("body, error", [
    ("[scorring]\ncap_fan = 3\n", "unknown table [scorring]: no ruleset has it; did you mean [scoring]?"),
    ("[scoring.kong]\nrainn = 3\n", "[scoring.kong] has unknown key 'rainn': sichuan has no such key"),
    ('[scoring.kong]\n"暗杠" = "2"\n', "[scoring.kong] 暗杠 must be an integer as in sichuan"),
    ("[scoring.kongs]\n\"直杠\" = 2\n", "[scoring] has unknown key 'kongs'"),
    ("[timers]\ndiscard_secs = 10\n", "[timers] has unknown key 'discard_secs'"),
])
def test_a_misspelt_table_or_a_key_in_a_nested_table_is_refused(tmp_path: Path, body: str, error: str) -> None:
    """Only the first level of a raw table was checked: `[scorring] cap_fan = 3` (a table no ruleset has),
    `[scoring.kong] rainn = 3` and a string for a number in a nested table loaded, and the table played
    its base's rule under the house name."""
    _house(tmp_path, "chengdu_t", "sichuan", body)
    with pytest.raises(RulesetError) as err:
        load_ruleset("chengdu_t", tmp_path)
    assert error in str(err.value) and "chengdu_t.toml" in str(err.value)


def test_nested_tables_and_tables_the_base_lacks_load_when_the_rule_language_has_them(tmp_path: Path) -> None:
    _house(tmp_path, "chengdu_k", "sichuan", '[scoring.kong]\n"暗杠" = 3\n[timers]\n')
    assert load_ruleset("chengdu_k", tmp_path).sections["scoring"]["kong"]["暗杠"] == 3


def test_a_fan_name_the_scorer_does_not_know_is_refused_when_the_config_is_read(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Found only at the match's first win (a ScoringError in the middle of a hand); now `tablectl run`
    and `check` refuse the config. A fan the scorer knows but the base's file leaves out is allowed."""
    _house(tmp_path, "chengdu_f", "sichuan", '[scoring.fans]\n"清一sè" = 2\n')
    _house(tmp_path, "tdh_f", "tuidaohu", '[scoring.excludes]\n"大三元" = ["碰碰胡", "混一色x"]\n')
    _house(tmp_path, "chengdu_ok", "sichuan", '[scoring.fans]\n"清一色" = 3\n')
    monkeypatch.setenv("TABLECTL_RULESETS_DIR", str(tmp_path))
    with pytest.raises(ConfigError, match="names fans this engine does not know: 清一sè"):
        parse_config({"rules": {"ruleset": "chengdu_f"}}, source="t.toml")
    with pytest.raises(ConfigError, match="does not know: 混一色x"):
        parse_config({"rules": {"ruleset": "tdh_f"}}, source="t.toml")
    assert parse_config({"rules": {"ruleset": "chengdu_ok"}}, source="t.toml").rules.ruleset == "chengdu_ok"
    assert score_json(FLUSH_PAIRS, "chengdu_ok")["total"] == 5  # 七对 2 + 清一色 3


def test_scoring_a_broken_house_ruleset_names_the_files_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`tablectl score --ruleset club` on a house file with bad TOML said "no scoring for ruleset 'club'"."""
    from table_controller.scoring import ScoringError

    _write(tmp_path, "club", 'extends = "sichuan"\nid = "club"\nname_zh = "x"\nname_en = "x"\n[scoring.fans]\n清 = 2\n')
    monkeypatch.setenv("TABLECTL_RULESETS_DIR", str(tmp_path))
    with pytest.raises(ScoringError, match=r"club\.toml: not valid TOML"):
        score_json(FLUSH_PAIRS, "club")
    with pytest.raises(ScoringError, match="no scoring for ruleset 'nosuch'"):
        score_json(FLUSH_PAIRS, "nosuch")


def test_a_house_rulesets_table_points_rank_its_score_sheet(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A club's own 标准分 by place (`[scoring] table_points`) is what its sessions are ranked by, ties sharing."""
    from table_controller.scoring.points import table_point_ranks, table_points

    _house(tmp_path, "club_tp", "mcr", "[scoring]\ntable_points = [3, 1.5, 0.5, 0]\n")
    monkeypatch.setenv("TABLECTL_RULESETS_DIR", str(tmp_path))
    ranks = table_point_ranks("club_tp")
    assert ranks == (3, 1.5, 0.5, 0)
    assert table_points({"1": 10, "2": 10, "3": 0, "4": -20}, ranks) == {"1": 2.25, "2": 2.25, "3": 0.5, "4": 0}


def test_a_house_file_saved_by_a_windows_editor_is_read_or_named_with_what_to_do(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A house file saved as GBK ("ANSI" on a Chinese Windows) in the venue's folder raised UnicodeDecodeError
    from every `tablectl` command, `run` and `--help` included (each lists the rulesets it scores); a UTF-8 file
    with Notepad's byte-order mark was "not valid TOML"."""
    from table_controller.cli import build_parser

    text = 'extends = "mcr"\nid = "{0}"\nname_zh = "国标俱乐部"\nname_en = "club"\n'
    (tmp_path / "club_gbk.toml").write_bytes(text.format("club_gbk").encode("gbk"))
    (tmp_path / "club_bom.toml").write_bytes(text.format("club_bom").encode("utf-8-sig"))
    monkeypatch.setenv("TABLECTL_RULESETS_DIR", str(tmp_path))
    assert load_ruleset("club_bom").name_zh == "国标俱乐部"
    build_parser()
    with pytest.raises(ConfigError) as err:
        parse_config({"rules": {"ruleset": "club_gbk"}}, source="t.toml")
    assert "club_gbk.toml: line 3 is not UTF-8 text" in str(err.value) and "请以 UTF-8 编码保存" in str(err.value)


@pytest.mark.parametrize("base, body, error", [
    ("sichuan", '[scoring.fans]\n"清一色" = "lots"\n', "[scoring.fans] 清一色 in club_v.toml must be a whole number"),
    ("sichuan", '[scoring.fans]\n"清一色" = 2.5\n', "[scoring.fans] 清一色 in club_v.toml must be a whole number"),
    ("sichuan", '[scoring.fans]\n"清一色" = true\n', "[scoring.fans] 清一色 in club_v.toml must be a whole number"),
    ("sichuan", '[scoring.fans]\n"清一色" = -2\n', "(0 or more), not -2"),
    ("tuidaohu", '[scoring.excludes]\n"大三元" = 3\n', "[scoring.excludes] 大三元 in club_v.toml must be a list"),
    ("nanning", '[scoring.ways]\n"抢杠" = { discard = "nine" }\n', "[scoring.ways] 抢杠 in club_v.toml must be a table"),
])
def test_a_fan_value_that_is_no_whole_number_is_refused_when_the_config_is_read(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, base: str, body: str, error: str) -> None:
    """Only the names of a house file's fans were checked: `"清一色" = "lots"` passed `tablectl check` and
    raised ValueError at the match's first win (a traceback from `tablectl score`), 2.5 was cut to 2 and
    `true` counted 1 fan without a word."""
    from table_controller.scoring import ScoringError

    _house(tmp_path, "club_v", base, body)
    monkeypatch.setenv("TABLECTL_RULESETS_DIR", str(tmp_path))
    with pytest.raises(ConfigError) as err:
        parse_config({"rules": {"ruleset": "club_v"}}, source="t.toml")
    assert error in str(err.value)
    if base == "sichuan":
        with pytest.raises(ScoringError, match="must be a whole number"):
            score_json(FLUSH_PAIRS, "club_v")

"""The ruleset loader: every file loads; bad files are refused with the file, key and what is allowed."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from table_controller.rules import RulesetError, load_ruleset, ruleset_ids, rulesets_dir

REPO_RULESETS = Path(__file__).resolve().parents[2] / "config" / "rulesets"


#: A ruleset with every section of this loader and nothing else, so the tests stay independent of
#: what other parts of the controller add to the real files (`[scoring]`, `[timers]`, ...).
MINI = """\
id = "mini"
name_zh = "测试"
name_en = "Test"
source = "walls.md mcr row"

[tiles]
total = 144
suits = ["m", "p", "s"]
ranks = 9
winds = true
dragons = true
flowers = 8

[wall]
lengths = { E = 18, S = 18, W = 18, N = 18 }
replacement_order = "top_first"
reserve = 14
max_replacements = 4

[dice]
count = 2
throws = 2

[break]
wall = "second_thrower"
count = "both_totals"
mode = "leave"

[deal]
rounds = 3
stacks_per_grab = 2
finish = [
    { seat = "E", stack = 0, layer = "top" },
    { seat = "E", stack = 2, layer = "top" },
    { seat = "S", stack = 0, layer = "bottom" },
    { seat = "W", stack = 1, layer = "top" },
    { seat = "N", stack = 1, layer = "bottom" },
]

[indicators.dora]
name_zh = "宝牌指示牌"
from = "tail"
stack = 3
layer = "top"
kan_step = 1
honours_next = { "1z" = "2z", "2z" = "3z", "3z" = "4z", "4z" = "1z", "5z" = "6z", "6z" = "7z", "7z" = "5z" }
"""


@pytest.fixture()
def tmp_rulesets(tmp_path: Path) -> Path:
    (tmp_path / "mini.toml").write_text(MINI, encoding="utf-8")
    shutil.copy(REPO_RULESETS / "riichi.toml", tmp_path / "riichi.toml")
    return tmp_path


def _edit(directory: Path, rid: str, old: str, new: str) -> None:
    path = directory / f"{rid}.toml"
    text = path.read_text(encoding="utf-8")
    assert old in text, old
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


@pytest.mark.parametrize("rid", ruleset_ids())
def test_every_ruleset_loads_with_names(rid: str) -> None:
    rs = load_ruleset(rid)
    assert rs.id == rid and rs.name_zh and rs.name_en and rs.source
    assert rs.tiles in (108, 136, 144)
    assert 2 * sum(rs.wall_lengths) == rs.tiles


def test_walls_md_table_values() -> None:
    # walls.md "The procedures": tiles, dice and throws per ruleset.
    expect = {"mcr": (144, 2, 2), "jingji": (144, 2, 1), "shiwan": (136, 2, 1), "nanjing": (144, 2, 2),
              "hefei": (108, 2, 1), "guangdong": (144, 3, 1), "tuidaohu": (136, 2, 1), "hainan": (144, 2, 1),
              "sichuan": (108, 2, 1), "riichi": (136, 2, 1), "taiwan": (144, 3, 1), "jipinghu": (136, 2, 1)}
    for rid, (tiles, dice, throws) in expect.items():
        rs = load_ruleset(rid)
        assert (rs.tiles, rs.dice_count, rs.throws) == (tiles, dice, throws), rid
    assert load_ruleset("sichuan").wall_lengths == (14, 13, 14, 13)  # walls.md: 108 → E 14, S 13, W 14, N 13


def test_unknown_id_lists_known_ids() -> None:
    with pytest.raises(RulesetError) as err:
        load_ruleset("mahjong-soul")
    assert err.value.code == "unknown_ruleset"
    assert "mcr" in str(err.value) and "sichuan" in str(err.value)
    with pytest.raises(RulesetError):
        load_ruleset("../config/rulesets/mcr")


def test_default_dir_is_found_from_the_package(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("TABLECTL_RULESETS_DIR", raising=False)
    monkeypatch.chdir(tmp_path)  # not the repository: the loader must not depend on the cwd
    assert rulesets_dir() == REPO_RULESETS
    assert load_ruleset("mcr").path == REPO_RULESETS / "mcr.toml"


def test_env_and_argument_override(tmp_rulesets: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TABLECTL_RULESETS_DIR", str(tmp_rulesets))
    assert ruleset_ids() == ("mini", "riichi")
    assert load_ruleset("mini").tiles == 144
    with pytest.raises(RulesetError):
        load_ruleset("sichuan")
    assert "sichuan" in ruleset_ids(REPO_RULESETS)  # the argument wins over the variable
    assert load_ruleset("sichuan", REPO_RULESETS).tiles == 108


def test_other_teams_sections_are_kept_raw(tmp_rulesets: Path) -> None:
    (tmp_rulesets / "mini.toml").write_text(
        MINI + '\n[scoring]\nmin_fan = 8\n[timers]\ndiscard_s = 10\n[flow]\nno_chow = true\n'
        '[[penalties.items]]\ncode = "false_win"\nname_zh = "诈和"\namount = 30\n',
        encoding="utf-8")
    rs = load_ruleset("mini", tmp_rulesets)
    assert rs.sections["scoring"] == {"min_fan": 8}
    assert rs.sections["timers"]["discard_s"] == 10
    assert rs.sections["flow"] == {"no_chow": True}
    assert rs.sections["penalties"] == {"items": [{"code": "false_win", "name_zh": "诈和", "amount": 30}]}
    hash(rs)  # still usable as a key


@pytest.mark.parametrize("body, words", [
    ("[match]\ncontine_dealer = true\n", ["[match] has unknown key 'contine_dealer'", "did you mean 'continue_dealer'"]),
    ("[flow]\nmultipel_winners = true\n", ["[flow] has unknown key 'multipel_winners'",
                                             "did you mean 'multiple_winners'"]),
    ("[timers]\nturn_secnds = 20\n", ["[timers] has unknown key 'turn_secnds'"]),
    ("[scoring.kongs]\n\"暗杠\" = 2\n", ["[scoring] has unknown key 'kongs'", "did you mean 'kong'"]),
    ("[scorring]\nmin_fan = 8\n", ["unknown table [scorring]", "did you mean [scoring]"]),
])
def test_a_new_regional_files_misspelt_key_of_another_part_is_refused(
        tmp_rulesets: Path, body: str, words: list[str]) -> None:
    # a venue's own regional file (no `extends`) was held to nothing there: the typo loaded, `tablectl check`
    # said 可以开赛, and the table played the default (a [timers] typo made the display's state a 500)
    (tmp_rulesets / "mini.toml").write_text(MINI + "\n" + body, encoding="utf-8")
    with pytest.raises(RulesetError) as err:
        load_ruleset("mini", tmp_rulesets)
    assert "mini.toml" in str(err.value) and err.value.code == "ruleset_unknown_key"
    for word in words:
        assert word in str(err.value)


def test_a_file_beside_the_shipped_ones_is_held_to_the_language_too(tmp_path: Path) -> None:
    # the language was the shipped files' keys: a file added to config/rulesets/ made its own typo a key
    for rid in ("mcr", "sichuan"):
        shutil.copy(REPO_RULESETS / f"{rid}.toml", tmp_path / f"{rid}.toml")
    (tmp_path / "mini.toml").write_text(MINI + "\n[match]\ncontine_dealer = true\n", encoding="utf-8")
    with pytest.raises(RulesetError, match="contine_dealer"):
        load_ruleset("mini", tmp_path)
    assert load_ruleset("sichuan", tmp_path).id == "sichuan"


@pytest.mark.parametrize("section, old, new, words", [
    ("wall", "reserve = 14", "reserve = 14\nreservee = 3", ["[wall]", "'reservee'", "allowed keys", "reserve"]),
    ("dice", "count = 2\n", "count = 2\nsides = 6\n", ["[dice]", "'sides'", "throws"]),
    ("break", 'mode = "leave"', 'mode = "leave"\nfrom = "left"', ["[break]", "'from'", "mode"]),
    ("indicators", 'kan_step = 1', 'kan_step = 1\ncolour = "red"', ["[indicators.dora]", "'colour'"]),
    ("top", 'source = ', 'sorce = "x"\nsource = ', ["top level", "'sorce'", "name_zh"]),
])
def test_unknown_key_in_own_section_names_file_key_and_allowed(
        tmp_rulesets: Path, section: str, old: str, new: str, words: list[str]) -> None:
    _edit(tmp_rulesets, "mini", old, new)
    with pytest.raises(RulesetError) as err:
        load_ruleset("mini", tmp_rulesets)
    text = str(err.value)
    assert "mini.toml" in text
    for word in words:
        assert word in text
    assert err.value.code == "ruleset_unknown_key"


@pytest.mark.parametrize("old, new, words", [
    ('mode = "leave"', 'mode = "skip"', ["[break] mode", "'leave', 'start_at'"]),
    ("count = 2\n", "count = 7\n", ["[dice] count"]),
    ("total = 144", "total = 136", ["[tiles] total", "144"]),
    ("E = 18, S = 18", "E = 17, S = 18", ["[wall] lengths", "142"]),
    ("throws = 2", "throws = 1", ["[dice] throws", "must be 2"]),
    ('{ seat = "E", stack = 2, layer = "top" },', '{ seat = "E", stack = 3, layer = "top" },',
     ["[deal] finish", "no gap"]),
    ("[dice]", "[dic]", ["did you mean [dice]"]),
    ("name_zh = ", "name_zh = 3 #", ["name_zh", "must be a string"]),
    ("lengths = { E = 18, S = 18, W = 18, N = 18 }", "lengths = [18, 18, 18, 18]",
     ["[wall] lengths", "must be a table"]),
    ("winds = true", "winds = 1", ["[tiles] winds", "must be true or false"]),
    ('source = "walls.md mcr row"', 'source = "walls.md mcr row"\nhand_end = 4', ["hand_end must be a table"]),
    ("[break]", "[wall.extra]\n[break]", ["[wall] has unknown key 'extra'"]),
])
def test_bad_values_are_refused_clearly(tmp_rulesets: Path, old: str, new: str, words: list[str]) -> None:
    _edit(tmp_rulesets, "mini", old, new)
    with pytest.raises(RulesetError) as err:
        load_ruleset("mini", tmp_rulesets)
    for word in words:
        assert word in str(err.value)


def test_broken_toml_names_the_file(tmp_rulesets: Path) -> None:
    _edit(tmp_rulesets, "mini", "[dice]", "[dice")
    with pytest.raises(RulesetError, match=r"mini\.toml: not valid TOML") as err:
        load_ruleset("mini", tmp_rulesets)
    assert err.value.code == "ruleset_toml"


def test_a_new_procedure_is_just_a_new_file(tmp_rulesets: Path) -> None:
    # issue 2: "A new procedure is a new TOML file where its parts already exist": a 136-tile
    # table counting the smaller die from the sum's wall, leaving stacks (parts of hefei + mcr).
    text = (REPO_RULESETS / "tuidaohu.toml").read_text(encoding="utf-8")
    text = text.replace('id = "tuidaohu"', 'id = "house"').replace('count = "total"\nmode = "leave"',
                                                                 'count = "smaller_die"\nmode = "leave"')
    (tmp_rulesets / "house.toml").write_text(text, encoding="utf-8")
    from table_controller.rules import deal_plan

    plan = deal_plan(load_ruleset("house", tmp_rulesets), (2, 6))
    assert plan.first_dealt == "N03t"  # 8 → 上家 N, leave 2


@pytest.mark.parametrize("body, words", [
    ("session_minutes = -90", ["[timers] session_minutes", "须为大于 0 的数", "-90"]),
    ("claim_s = \"3\"", ["[timers] claim_s", "'3'"]),
    ("discard_s = 0", ["[timers] discard_s", "above 0"]),
    ("warnings_min = 15", ["[timers] warnings_min", "[15, 5]"]),
    ("warnings_min = [15, -5]", ["[timers] warnings_min"]),
    ("appeal_minutes = true", ["[timers] appeal_minutes"]),
])
def test_a_timer_no_clock_can_run_is_refused_chinese_first(tmp_rulesets: Path, body: str, words: list[str]) -> None:
    # a negative session showed the session over as it started; a string or a lone number made every state a 500
    (tmp_rulesets / "mini.toml").write_text(MINI + "\n[timers]\n" + body + "\n", encoding="utf-8")
    with pytest.raises(RulesetError) as err:
        load_ruleset("mini", tmp_rulesets)
    text = str(err.value)
    assert "mini.toml" in text
    assert text.index("须为") < text.index("must")
    for word in words:
        assert word in text


@pytest.mark.parametrize("old, new, words", [
    ("lengths = {", "lenghts = {", ["[wall] lengths: is required", "'lenghts'"]),
    ('replacement_order = "top_first"', 'replacment_order = "top_first"',
     ["[wall] has unknown key 'replacment_order'", "did you mean 'replacement_order'?"]),
    ("kan_step = 1", "kan_stp = 1", ["[indicators.dora] has unknown key 'kan_stp'", "did you mean 'kan_step'?"]),
    ("stacks_per_grab = 2", "stacks_per_grab = 2\nround = 3", ["did you mean 'rounds'?"]),
])
def test_a_misspelt_key_of_the_loaders_own_tables_is_answered_with_the_key_meant(
        tmp_rulesets: Path, old: str, new: str, words: list[str]) -> None:
    # `lenghts` was answered "[wall] lengths: is required", naming nothing the file holds; an unknown key listed
    # every allowed one without the one meant
    _edit(tmp_rulesets, "mini", old, new)
    with pytest.raises(RulesetError) as err:
        load_ruleset("mini", tmp_rulesets)
    for word in words:
        assert word in str(err.value)

"""河北麻将 (seed 004 "河北麻将简单规则（可吃碰牌）…十四张起胡，可以吃、碰数次…无补花，基点为1、2、3"):
a win of four sets and a pair pays the table's 基点 (1, 2 or 3), from the discarder or from each on 自摸."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from table_controller.rules import load_ruleset
from table_controller.scoring import ScoringError, check_tables, score_json
from table_controller.scoring.catalog import fan_table

ROOT = Path(__file__).resolve().parents[2]
#: 南 wins on 东's 4s: 123m 456p 789s 23s+4s, pair 东; a chow of 123m from 上家 东 in `CHOWED`.
HAND: dict[str, Any] = {"seat_wind": "S", "prevalent_wind": "E", "concealed": "123m456p789s11z23s", "win_tile": "4s",
                        "win": "discard", "discarder": "E"}
CHOWED = {**HAND, "concealed": "456p789s11z23s", "melds": [{"type": "chi", "tiles": "123m", "from": "E"}]}


def test_the_ruleset_file_is_136_tiles_without_flowers_dealt_14_and_13() -> None:
    rs = load_ruleset("hebei")
    assert (rs.tiles, rs.tile_spec.flowers, rs.dice_count, rs.throws) == (136, 0, 2, 1)
    assert rs.hand_sizes == {"E": 14, "S": 13, "W": 13, "N": 13} and rs.wall_lengths == (17, 17, 17, 17)


def test_a_discard_win_pays_the_base_from_the_discarder_a_self_draw_from_each() -> None:
    won = score_json(CHOWED, "hebei")  # 可以吃: a chow from 上家 is played
    assert won["valid"] and won["fans"] == [{"name": "和牌", "value": 1, "count": 1}]
    assert won["payments"] == {"E": -1, "S": 1, "W": 0, "N": 0}
    drawn = score_json({**HAND, "win": "self_draw", "discarder": None}, "hebei")
    assert drawn["payments"] == {"E": -1, "S": 3, "W": -1, "N": -1}
    robbed = score_json({**HAND, "win": "rob_kong", "discarder": "N"}, "hebei")
    assert robbed["payments"] == {"E": 0, "S": 1, "W": 0, "N": -1}


def test_only_four_sets_and_a_pair_win() -> None:
    pairs = score_json({**HAND, "concealed": "1122m3344p5566s7z", "win_tile": "7z"}, "hebei")
    assert (pairs["valid"], pairs["reason"]) == (False, "not_a_win") and pairs["message"].startswith("不是和牌")
    with pytest.raises(ScoringError, match="不是河北麻将的牌"):
        score_json({**HAND, "flowers": ["1f"]}, "hebei")  # 无补花


@pytest.mark.parametrize("base,paid", [(2, 2), (3, 3)])
def test_a_table_playing_for_two_or_three_changes_one_number(base: int, paid: int, tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "hebei_club.toml").write_text(
        f'id = "hebei_club"\nname_zh = "河北麻将（基点{base}）"\nname_en = "Hebei, base {base}"\nextends = "hebei"\n'
        f"[scoring]\nbase = {base}\n", encoding="utf-8")
    monkeypatch.setenv("TABLECTL_RULESETS_DIR", str(tmp_path))
    drawn = score_json({**HAND, "win": "self_draw", "discarder": None}, "hebei_club")
    assert drawn["payments"] == {"E": -paid, "S": 3 * paid, "W": -paid, "N": -paid}
    assert fan_table("hebei_club")[0]["value"] == paid


def test_a_base_the_seed_does_not_give_is_refused_in_chinese_first(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "hebei_five.toml").write_text(
        'id = "hebei_five"\nname_zh = "河北麻将（基点5）"\nname_en = "Hebei, base 5"\nextends = "hebei"\n'
        "[scoring]\nbase = 5\n", encoding="utf-8")
    monkeypatch.setenv("TABLECTL_RULESETS_DIR", str(tmp_path))
    for refused in (lambda: check_tables("hebei_five"), lambda: score_json(HAND, "hebei_five")):
        with pytest.raises(ScoringError, match="河北麻将的基点为1、2、3，不是 5 / "):  # when the table is configured
            refused()


def test_tablectl_score_and_the_fan_table(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "hardware-sim")])}
    env.pop("TABLECTL_RULESETS_DIR", None)
    run = subprocess.run([sys.executable, "-m", "table_controller.cli", "score", "--ruleset", "hebei", "--json"],
                         input=json.dumps(HAND), capture_output=True, text=True, env=env, timeout=60, check=False)
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["payments"] == {"E": -1, "S": 1, "W": 0, "N": 0}
    fans = subprocess.run([sys.executable, "-m", "table_controller.cli", "score", "--ruleset", "hebei", "--fans"],
                          capture_output=True, text=True, env=env, timeout=60, check=False)
    assert fans.returncode == 0 and "和牌" in fans.stdout and "基点为1、2、3" in fans.stdout, fans


def test_seven_pairs_is_no_shape_for_the_waits_nor_the_hand_machine() -> None:
    """十四张起胡 and no 七对: the waits' shape took the shared 七对 and 十三幺, so the hand machine paid a 七对 自摸
    (`tests/hand/invariants.play("hebei", 59)`) that the scorer calls 不是和牌, and the waits listed 七对's wait."""
    from table_controller.hand import Deal, FlowRules, SelfDrawWin, apply, new_hand
    from table_controller.rules import deal_plan
    from table_controller.scoring.hand import HandInput
    from table_controller.scoring.waits import completes, waits

    pairs = HandInput.from_json({**HAND, "concealed": "1122m3344p5566s7z", "win_tile": "7z"})
    assert not completes(pairs, "hebei") and completes(pairs, "sichuan")
    assert completes(HandInput.from_json(HAND), "hebei")
    ready = HandInput.from_json({**HAND, "concealed": "1122m3344p5566s7z", "win_tile": "1m"})
    assert waits(ready, "hebei") == []  # 7z completed seven pairs only
    state = new_hand(FlowRules.for_ruleset("hebei"), deal_plan(load_ruleset("hebei"), dice=(3, 4)).initial_state())
    state, _ = apply(state, Deal({"E": tuple("1m 1m 2m 2m 3p 3p 4p 4p 5s 5s 6s 6s 7z 7z".split()),
                                  **{x: ("back",) * 13 for x in "SWN"}}))
    _, notes = apply(state, SelfDrawWin("E"))  # 天和 on seven pairs: 诈和, as the scorer reads it
    assert [n["type"] for n in notes] == ["false_win"]

"""内蒙麻将 (seed 004: "内蒙麻将有136张牌。其规则包括以下几点：一是必须有碰或杠才可以，也可以自己手里有；二是必须要
开门，就是要吃上家的牌或者碰别人的牌；三是必须有幺九或箭刻"): three 门槛 a win must meet, each refused with its
reason in Chinese; the seed gives no points, so the referee gives them (裁判计分)."""

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
CHI = {"type": "chi", "tiles": "234m", "from": "E"}  # 南's 上家 is 东
#: 南 wins on 东's 9m: a chow claimed (开门), a pung of 白 in hand (有刻), 9m and 白 (幺九).
MEETS: dict[str, Any] = {"seat_wind": "S", "prevalent_wind": "E", "concealed": "234p678s9m555z", "win_tile": "9m",
                         "win": "discard", "discarder": "E", "melds": [CHI], "options": {"points": 4}}


def _score(**change: Any) -> dict[str, Any]:
    return score_json({**MEETS, **change}, "neimeng")


def test_the_ruleset_file_is_136_tiles_with_three_win_conditions() -> None:
    rs = load_ruleset("neimeng")
    assert (rs.tiles, rs.tile_spec.flowers, rs.dice_count, rs.throws) == (136, 0, 2, 1)
    assert rs.sections["win_conditions"]["require"] == ["有刻", "开门", "幺九或箭刻"]


def test_a_win_meeting_the_three_conditions_is_paid_the_referees_points() -> None:
    won = _score()
    assert won["valid"] and won["referee_scored"] and won["payments"] == {"E": -4, "S": 4, "W": 0, "N": 0}
    in_hand = _score(concealed="234p678s9m444p", melds=[{"type": "chi", "tiles": "123m", "from": "E"}])
    assert in_hand["valid"], in_hand  # 也可以自己手里有: a concealed pung counts
    pung_claimed = _score(concealed="234p678s9m", melds=[CHI, {"type": "pung", "tiles": "666p", "from": "N"}])
    assert pung_claimed["valid"], pung_claimed  # 9m is the 幺九
    dragons = _score(concealed="234p678s5m", win_tile="5m", melds=[CHI, {"type": "pung", "tiles": "777z", "from": "W"}])
    assert dragons["valid"], dragons  # 箭刻


@pytest.mark.parametrize("change,reason,says", [
    ({"concealed": "234p678s9m567p", "melds": [{"type": "chi", "tiles": "123m", "from": "E"}]},
     "no_pung", "不够和牌条件（有刻）：须有碰或杠"),
    ({"concealed": "1122m3344p5566s7z", "win_tile": "7z", "melds": []}, "no_pung", "不够和牌条件（有刻）"),  # 七对
    ({"concealed": "123m234p678s9m555z", "melds": []}, "not_opened", "不够和牌条件（开门）：须开门"),
    ({"concealed": "123m234p678s9m", "melds": [{"type": "kong", "tiles": "5555z", "concealed": True}]},
     "not_opened", "不够和牌条件（开门）"),  # a concealed kong does not open the hand
    ({"concealed": "234p678s5m", "win_tile": "5m", "melds": [CHI, {"type": "pung", "tiles": "666p", "from": "W"}]},
     "no_terminal", "不够和牌条件（幺九或箭刻）：须有幺九"),
])
def test_a_win_missing_one_condition_is_refused_with_its_reason_in_chinese(change: dict[str, Any], reason: str,
                                                                          says: str) -> None:
    refused = _score(**change)
    assert (refused["valid"], refused["reason"]) == (False, reason) and refused["message"].startswith(says), refused


def test_the_other_reading_of_yaojiu_is_one_name_in_a_house_file(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """幺九 read as the suits' 1 and 9 only: a pung of 东 no longer counts, a dragon pung still does."""
    (tmp_path / "neimeng_19.toml").write_text(
        'id = "neimeng_19"\nname_zh = "内蒙麻将（一九）"\nname_en = "Inner Mongolia, 1-9"\nextends = "neimeng"\n'
        '[win_conditions]\nrequire = ["有刻", "开门", "一九或箭刻"]\n', encoding="utf-8")
    winds = {**MEETS, "concealed": "234p678s5m111z", "win_tile": "5m"}
    assert score_json(winds, "neimeng")["valid"]  # 东 is a 幺九牌 (字牌)
    monkeypatch.setenv("TABLECTL_RULESETS_DIR", str(tmp_path))
    refused = score_json(winds, "neimeng_19")
    assert (refused["valid"], refused["reason"]) == (False, "no_terminal")
    assert score_json({**winds, "concealed": "234p678s5m777z"}, "neimeng_19")["valid"]


def test_a_condition_the_engine_does_not_know_is_refused_when_the_table_is_configured(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "neimeng_typo.toml").write_text(
        'id = "neimeng_typo"\nname_zh = "内蒙"\nname_en = "typo"\nextends = "neimeng"\n'
        '[win_conditions]\nrequire = ["有刻", "开们"]\n', encoding="utf-8")
    monkeypatch.setenv("TABLECTL_RULESETS_DIR", str(tmp_path))
    with pytest.raises(ScoringError, match="names no condition '开们'; did you mean '开门'"):
        check_tables("neimeng_typo")


def test_tablectl_score_and_the_fan_table_show_the_conditions() -> None:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "hardware-sim")])}
    env.pop("TABLECTL_RULESETS_DIR", None)
    closed = {**MEETS, "concealed": "123m234p678s9m555z", "melds": []}
    run = subprocess.run([sys.executable, "-m", "table_controller.cli", "score", "--ruleset", "neimeng", "--json"],
                         input=json.dumps(closed), capture_output=True, text=True, env=env, timeout=60, check=False)
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["reason"] == "not_opened"
    names = [row["name"] for row in fan_table("neimeng")]
    assert names == ["裁判计分", "门槛：有刻", "门槛：开门", "门槛：幺九或箭刻"]


def test_a_scored_ruleset_may_name_conditions_too(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The 门槛 are the file's, whoever gives the points: 河北 with 开门 refuses a concealed hand it paid before."""
    (tmp_path / "hebei_open.toml").write_text(
        'id = "hebei_open"\nname_zh = "河北麻将（开门）"\nname_en = "Hebei, opened"\nextends = "hebei"\n'
        '[win_conditions]\nrequire = ["开门"]\n', encoding="utf-8")
    closed = {**MEETS, "concealed": "123m234p678s9m555z", "melds": [], "options": {}}
    assert score_json(closed, "hebei")["valid"]
    monkeypatch.setenv("TABLECTL_RULESETS_DIR", str(tmp_path))
    refused = score_json(closed, "hebei_open")
    assert (refused["valid"], refused["reason"], refused["fans"][0]["name"]) == (False, "not_opened", "和牌")
    assert score_json(MEETS | {"options": {}}, "hebei_open")["valid"]


def test_tablectl_waits_lists_only_the_waits_a_win_would_accept(capsys: pytest.CaptureFixture[str]) -> None:
    """`tablectl waits` under 内蒙 listed every tile that made the shape (2s 3s 5s 6s here), though 3s and 6s
    (read 11s + 123s / 456s: no pung) are refused as no_pung when won; the 门槛 now go with the shape."""
    from table_controller.cli import main

    ready = ["456p345s1112s", "--ruleset", "neimeng", "--seat", "S", "--meld", "chi:789m:E", "--json"]
    assert main(["waits", *ready]) == 0
    listed = [w["tile"] for w in json.loads(capsys.readouterr().out)["waits"]]
    assert listed == ["2s", "5s"]
    hand = {**MEETS, "concealed": "456p345s1112s", "melds": [{"type": "chi", "tiles": "789m", "from": "E"}]}
    verdicts = {t: _score(**{**hand, "win_tile": t}) for t in ("2s", "3s", "5s", "6s")}
    assert [t for t, v in verdicts.items() if v["valid"]] == listed
    assert {verdicts[t]["reason"] for t in ("3s", "6s")} == {"no_pung"}
    assert main(["waits", "789m456p345s1112s", "--ruleset", "neimeng", "--json"]) == 0  # closed: no win at all
    out = json.loads(capsys.readouterr().out)
    assert (out["ready"], out["waits"]) == (False, [])
    assert main(["waits", *[("shanghai" if a == "neimeng" else a) for a in ready]]) == 0
    assert [w["tile"] for w in json.loads(capsys.readouterr().out)["waits"]] == ["2s", "3s", "5s", "6s"]  # no 门槛

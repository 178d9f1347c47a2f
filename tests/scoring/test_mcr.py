"""国标 MCR: published expected fans through the library wrapper, flags, minimum, payments."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings, strategies as st

from table_controller.scoring import ScoringError, mcr, score_json
from table_controller.scoring.hand import HandInput
from scoring.gbnotation import read_cases

CASES = read_cases(str(Path(__file__).parent / "data" / "mcr_published.txt"))


@pytest.mark.parametrize("text,data,expected", CASES, ids=[c[0] for c in CASES])
def test_published_fans(text: str, data: dict[str, Any], expected: list[list[str]]) -> None:
    fans = mcr.library_fans(HandInput.from_json(data))
    assert not isinstance(fans, str), fans
    names = sorted(f.name for f in fans for _ in range(f.count))
    assert names in expected


def _hand(**over: Any) -> dict[str, Any]:
    """A concealed 清一色 清龙: 1223434567899m completed by 9m (123 234 456 789 99 ...)."""
    data: dict[str, Any] = {"seat_wind": "E", "prevalent_wind": "E", "melds": [],
                            "concealed": "1223434567899m", "win_tile": "9m", "win": "self_draw"}
    data.update(over)
    return data


def _weak(**over: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "seat_wind": "S", "prevalent_wind": "E", "concealed": "67s66z", "win_tile": "8s",
        "win": "discard", "discarder": "E",
        "melds": [{"type": "chi", "tiles": "234m", "from": "E"}, {"type": "chi", "tiles": "456p", "from": "E"},
                  {"type": "pung", "tiles": "333z", "from": "W"}]}
    data.update(over)
    return data


def test_issue_example_self_drawn_pays_8_plus_f_each() -> None:
    out = score_json(_hand(), "mcr")
    assert out["valid"] is True
    f = out["total"]
    assert out["payments"] == {"E": 3 * (8 + f), "S": -(8 + f), "W": -(8 + f), "N": -(8 + f)}
    assert {"name": "清一色", "value": 24, "count": 1} in [
        {k: v for k, v in fan.items() if k != "name_en"} for fan in out["fans"]]


def test_discard_discarder_pays_8_plus_f_others_8() -> None:
    out = score_json(_hand(win="discard", discarder="W"), "mcr")
    f = out["total"]
    assert out["payments"] == {"E": 8 + f + 16, "S": -8, "W": -(8 + f), "N": -8}


def test_rob_kong_the_konger_pays() -> None:
    out = score_json(_weak(win="rob_kong", discarder="N"), "mcr")
    assert "抢杠和" in [f["name"] for f in out["fans"]] and out["total"] == 15
    assert out["payments"] == {"S": 23 + 16, "E": -8, "W": -8, "N": -23}
    with pytest.raises(ScoringError) as err:  # the robbed kong's three are with the konger
        score_json(_hand(win="rob_kong", discarder="N"), "mcr")
    assert err.value.code == "impossible_rob_kong"


def test_flowers_do_not_reach_the_minimum() -> None:
    # 五门齐 6 + 幺九刻 1 = 7: three flowers make 10 but the minimum counts without them.
    out = score_json(_weak(flowers=["1f", "2f", "3f"]), "mcr")
    assert out["valid"] is False and out["reason"] == "below_minimum"
    assert out["total"] == 10
    # the same hand on the 绝张 (three 8s seen on the table) adds 和绝张 4: it wins
    assert score_json(_weak(visible={"8s": 3}), "mcr")["total"] == 11


def test_not_a_win_is_a_verdict() -> None:
    out = score_json(_hand(win_tile="1p"), "mcr")
    assert out == {"valid": False, "ruleset": "mcr", "reason": "not_a_win", "message": "不是和牌"}


def test_table_flags_reach_the_library() -> None:
    last = score_json(_hand(last_tile=True), "mcr")
    assert "妙手回春" in [f["name"] for f in last["fans"]]
    prevalent = score_json({"seat_wind": "S", "prevalent_wind": "S", "concealed": "123456789m22z11p",
                            "melds": [], "win_tile": "2z", "win": "self_draw"}, "mcr")
    names = [f["name"] for f in prevalent["fans"]]
    assert "圈风刻" in names and "门风刻" in names


def test_false_win_penalty_and_table_points() -> None:
    from table_controller.scoring.points import table_points

    assert mcr.false_win("S") == {"E": 10, "S": -30, "W": 10, "N": 10}
    assert table_points({"E": 50, "S": 10, "W": -20, "N": -40}) == {"E": 4, "S": 2, "W": 1, "N": 0}
    # ties share the points of the places they hold: (4+2)/2 and (1+0)/2
    assert table_points({"E": 30, "S": 30, "W": -30, "N": -30}) == {"E": 3, "S": 3, "W": 0.5, "N": 0.5}


@settings(max_examples=25, deadline=None)
@given(st.sampled_from(CASES), st.randoms(use_true_random=False))
def test_tile_order_does_not_matter_and_payments_sum_to_zero(case: Any, rnd: Any) -> None:
    _, data, _ = case
    shuffled = dict(data, concealed=rnd.sample(data["concealed"], len(data["concealed"])))
    a, b = score_json(data, "mcr"), score_json(shuffled, "mcr")
    assert a == b
    if a["valid"]:
        assert sum(a["payments"].values()) == 0


def test_the_minimum_is_data(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """A table that plays a higher minimum edits its ruleset file, not the code."""
    source = Path(__file__).resolve().parents[2] / "config" / "rulesets" / "mcr.toml"
    text = source.read_text(encoding="utf-8")
    assert "min_fan = 8" in text
    (tmp_path / "mcr.toml").write_text(text.replace("min_fan = 8", "min_fan = 50"), encoding="utf-8")
    monkeypatch.setenv("TABLECTL_RULESETS_DIR", str(tmp_path))
    out = score_json(_hand(), "mcr")
    assert out["valid"] is False and out["reason"] == "below_minimum" and out["total"] == 46


def test_known_difference_with_the_published_data() -> None:
    """258m 2346 9p 14788s waiting on 3p: the 3p both fills 369p of the 组合龙 and the 2_4p chow.

    gb-mahjong-js publishes 组合龙 门前清 平和 (no 嵌张); pymahjonggb 1.4.0 also counts 嵌张 (1).
    The library is this project's reference, so the referee sees its answer; this test pins the
    difference so an upgrade that changes it is noticed.
    """
    from scoring.gbnotation import read_case

    fans = mcr.library_fans(HandInput.from_json(read_case("258m23469p14788s3p")))
    assert not isinstance(fans, str)
    assert sorted(f.name for f in fans) == sorted(["组合龙", "门前清", "平和", "嵌张"])

"""Hands on the boundary of a rule, each a defect once: the rule the code follows is named."""

from __future__ import annotations

from typing import Any

import pytest

from table_controller.scoring import ScoringError, score_json


def hand(concealed: str, win_tile: str, win: str = "self_draw", seat: str = "E", **over: Any) -> dict[str, Any]:
    data: dict[str, Any] = {"seat_wind": seat, "prevalent_wind": "E", "concealed": concealed, "melds": [],
                            "win_tile": win_tile, "win": win}
    if win in ("discard", "rob_kong"):
        data["discarder"] = "N" if seat != "N" else "W"
    data.update(over)
    return data


@pytest.mark.parametrize("ruleset", ["sichuan", "xueliu"])
def test_sichuan_refuses_a_chow_seed003(ruleset: str) -> None:
    # seed 003 成都麻将主要规则 "不能吃牌" ([flow] no_chow): a hand with a 吃 cannot exist, so it is
    # bad_meld, never scored (before: 清一色 + 根 ×2 = 4 番, paid 16).
    data = hand("2223334445m", "5m", "discard", melds=[{"type": "chi", "tiles": "123m", "from": "N"}])
    with pytest.raises(ScoringError) as err:
        score_json(data, ruleset)
    assert err.value.code == "bad_meld" and err.value.field == "melds"

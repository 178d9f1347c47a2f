"""Hands the referee or the camera may send that no scorer should meet as a crash: what a mutation
fuzzer of real winning hands (from random played hands, eleventh session) found. Each was a Python
error deep in a scorer, shown to the referee as "无法处理此操作: KeyError ..."; now each is named."""

from __future__ import annotations

from typing import Any

import pytest

from table_controller.scoring import ScoringError, score_json

PUNGS = [{"type": "pung", "tiles": ["5p"] * 3, "from": "E"}, {"type": "pung", "tiles": ["6p"] * 3, "from": "S"}]
OPEN = {"seat_wind": "N", "prevalent_wind": "E", "concealed": "1m 2m 3m 4m 5m 6m 7m".split(), "win_tile": "7m",
        "melds": PUNGS}
PLAIN = {"seat_wind": "N", "prevalent_wind": "E", "concealed": "1m 2m 3m 4m 5m 6m 7m 8m 9m 1p 1p 1p 2p".split(),
         "win_tile": "2p"}


def _error(hand: dict[str, Any], ruleset: str) -> ScoringError:
    with pytest.raises(ScoringError) as err:
        score_json(hand, ruleset)
    return err.value


@pytest.mark.parametrize("ruleset", ["mcr", "jingji", "tuidaohu", "jipinghu", "nanning", "riichi", "sichuan"])
def test_a_ten_is_not_a_tile_of_a_ruleset_without_tens(ruleset: str) -> None:
    hand = {**OPEN, "concealed": "1m 2m 3m 4m 5m 6m 10m".split(), "win_tile": "10m", "win": "self_draw"}
    err = _error(hand, ruleset)
    assert err.code == "bad_tile" and "十万" in str(err) and ruleset in str(err)


def test_an_honour_is_not_a_tile_of_sichuan() -> None:
    hand = {**OPEN, "concealed": "1m 2m 3m 4m 5m 6m 1z".split(), "win_tile": "1z", "win": "self_draw"}
    assert _error(hand, "sichuan").code == "bad_tile"


def test_a_non_dealers_first_turn_self_draw_is_not_nannings_discard_only_dihu() -> None:
    # 南宁 地胡 is { discard = 100 }: a self-drawn first-turn win scores as the hand it is (门清自摸 4 each)
    drawn = score_json({**PLAIN, "win": "self_draw", "options": {"first_turn": True}}, "nanning")
    assert drawn["valid"] and "地胡" not in [f["name"] for f in drawn["fans"]] and drawn["payments"]["E"] == -4
    won = score_json({**PLAIN, "win": "discard", "discarder": "E", "options": {"first_turn": True}}, "nanning")
    assert [f["name"] for f in won["fans"]] == ["地胡"] and won["payments"]["E"] == -100


@pytest.mark.parametrize("ruleset,options,field", [
    ("sichuan", {"missing_suit": ["m"]}, "options.missing_suit"),
    ("sichuan", {"missing_suit": "z"}, "options.missing_suit"),
    ("tuidaohu", {"horses": 3.5}, "options.horses"),
    ("tuidaohu", {"horses": ["5m", "x"]}, "options.horses[1]"),
    ("tuidaohu", {"wildcard": 5}, "options.wildcard"),
    ("mcr", {"first_turn": "yes"}, "options.first_turn"),
    ("nanning", {"sealed": ["E"]}, "options.sealed"),
])
def test_a_shared_option_of_the_wrong_type_is_named(ruleset: str, options: dict[str, Any], field: str) -> None:
    hand = {**OPEN, "win": "self_draw", "options": options}
    if ruleset == "sichuan":
        hand = {**hand, "concealed": "1m 2m 3m 4m 5m 6m 7m".split(),
                "melds": [{"type": "pung", "tiles": ["5p"] * 3, "from": "E"}, {"type": "pung", "tiles": ["6p"] * 3, "from": "S"}]}
    err = _error(hand, ruleset)
    assert err.code in ("bad_field", "bad_tile") and err.field == field


def test_horses_may_be_written_as_a_string_of_tiles() -> None:
    listed = score_json({**OPEN, "win": "self_draw", "options": {"horses": ["1m", "5p"]}}, "tuidaohu")
    written = score_json({**OPEN, "win": "self_draw", "options": {"horses": "1m 5p"}}, "tuidaohu")
    assert listed["valid"] and written["payments"] == listed["payments"]


def test_more_horses_than_the_table_turns_up_are_refused() -> None:
    """推倒胡 turns up `[hand_end] tiles` horses (4): a fifth keyed by a slip was scored as a horse and paid.
    Fewer stand (the wall ran short of them)."""
    err = _error({**OPEN, "win": "self_draw", "options": {"horses": "1m 5p 9s 2z 3m"}}, "tuidaohu")
    assert err.code == "bad_field" and err.field == "options.horses" and "买马 4 张，不是 5 张" in str(err)
    assert score_json({**OPEN, "win": "self_draw", "options": {"horses": "1m 5p 9s 2z"}}, "tuidaohu")["valid"]
    assert score_json({**OPEN, "win": "self_draw", "options": {"horses": "1m"}}, "tuidaohu")["valid"]


KONG_WIN = {"seat_wind": "S", "prevalent_wind": "E", "win": "kong_replacement", "win_tile": "5m",
            "melds": [{"type": "kong", "tiles": ["1m"] * 4, "concealed": True}],
            "concealed": "2m 3m 4m 5m 6m 7m 8m 8m 3m 4m".split()}


@pytest.mark.parametrize("ruleset", ["mcr", "jingji", "sichuan", "xueliu", "tuidaohu", "jipinghu", "nanning",
                                     "riichi", "guangdong"])
def test_kong_replacement_needs_a_kong_among_the_melds(ruleset: str) -> None:
    """杠上开花 was scored for a read with no kong (a camera read that lacked it, a keyed slip): the
    winning tile cannot be a kong's replacement then. Every ruleset refuses it, naming why; with the
    kong declared the same win scores 杠上开花 (riichi: 岭上开花; 广东: the referee's points)."""
    from table_controller.scoring import referee_scored

    if not referee_scored(ruleset):
        names = [f["name"] for f in score_json(KONG_WIN, ruleset)["fans"]]
        assert ("岭上开花" if ruleset == "riichi" else "杠上开花") in names, names
    no_kong = {**KONG_WIN, "melds": [], "concealed": ["1m", "1m", "1m", *KONG_WIN["concealed"]]}
    err = _error(no_kong, ruleset)
    assert err.code == "impossible_kong_replacement" and err.field == "win"
    assert str(err).startswith("win: 杠上开花须有杠")
    pung = {**no_kong, "melds": [{"type": "pung", "tiles": ["1m"] * 3, "from": "E"}],
            "concealed": KONG_WIN["concealed"]}
    assert _error(pung, ruleset).code == "impossible_kong_replacement"
    assert score_json({**no_kong, "win": "self_draw"}, ruleset)["valid"] or referee_scored(ruleset)

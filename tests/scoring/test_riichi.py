"""日本麻将 (riichi): yaku, han and fu from the `mahjong` library, the payments by who won how
(the standard point tables: 2 han 40 fu 2600; 跳满 6000/3000; 庄家满贯自摸 4000 all; 本场)."""

from __future__ import annotations

from typing import Any

import pytest

from table_controller.scoring import ScoringError, score_json
from table_controller.tiles import parse_tiles


def riichi(concealed: str, win_tile: str, seat: str = "S", **more: Any) -> dict[str, Any]:
    hand = {"seat_wind": seat, "prevalent_wind": "E", "concealed": parse_tiles(concealed), "win_tile": win_tile,
            "win": "discard", "discarder": "W", **more}
    return score_json(hand, "riichi")


def pays(r: dict[str, Any]) -> dict[str, int]:
    assert r["valid"], r
    return {w: v for w, v in r["payments"].items() if v}


HAND = "22444m333567p44s"  # 断幺九, 三暗刻 when self-drawn


def test_ron_tsumo_dealer_and_honba_follow_the_point_tables() -> None:
    r = riichi(HAND, "4s", options={"riichi": True, "honba": 1})
    assert [(f["name"], f["value"]) for f in r["fans"]] == [("立直", 1), ("断幺九", 1)] and (r["han"], r["fu"]) == (2, 40)
    assert pays(r) == {"W": -2900, "S": 2900}  # 2600 + 300 for one 本场
    r = riichi(HAND, "4s", win="self_draw", discarder=None, options={"riichi": True, "dora": ["1m"]})
    assert r["level"] == "haneman" and ("宝牌", 2) in [(f["name"], f["value"]) for f in r["fans"]]
    assert pays(r) == {"E": -6000, "W": -3000, "N": -3000, "S": 12000}  # the dealer pays double
    r = riichi(HAND, "4s", seat="E", win="self_draw", discarder=None, options={"riichi": True, "honba": 1})
    assert pays(r) == {"S": -4100, "W": -4100, "N": -4100, "E": 12300}  # 庄家满贯自摸 4000 all
    open_tanyao = {"melds": [{"type": "pung", "tiles": ["3p"] * 3, "from": "E"},
                             {"type": "chi", "tiles": ["4s", "5s", "6s"], "from": "E"}]}
    assert pays(riichi("234m 567p 8s", "8s", **open_tanyao)) == {"W": -1000, "S": 1000}  # 食断 1 han 30 fu


def test_no_yaku_no_win_and_yakuman() -> None:
    r = riichi("123m 456p 789s 35s 99m", "4s")
    assert not r["valid"] and r["reason"] == "no_yaku" and "无役" in r["message"]
    assert riichi("123m 456p 789s 35s 99m", "4s", options={"riichi": True})["valid"]
    assert riichi(HAND, "9s")["reason"] == "not_a_win"
    r = riichi("19m 19p 19s 1123456z", "7z", win="self_draw", discarder=None)
    assert r["fans"][0]["name"] == "国士无双" and pays(r) == {"E": -16000, "W": -8000, "N": -8000, "S": 32000}
    r = riichi("19m 19p 19s 1234567z", "1z", win="self_draw", discarder=None)  # 十三面: double yakuman
    assert r["fans"][0]["name"] == "国士无双十三面" and pays(r)["S"] == 64000


@pytest.mark.parametrize("options,field", [
    ({"dora": "3m"}, "options.dora"), ({"dora": ["1f"]}, "options.dora"), ({"honba": -1}, "options.honba"),
    ({"honba": True}, "options.honba"), ({"dora": ["4m", "4m"]}, "options.dora"),
])
def test_bad_options_name_the_field(options: dict[str, Any], field: str) -> None:
    with pytest.raises(ScoringError) as err:
        riichi(HAND, "4s", options=options)  # 4m: three in the hand, a fourth and fifth as indicators
    assert err.value.field == field


def test_no_flowers_in_riichi() -> None:
    with pytest.raises(ScoringError, match="flowers"):
        riichi(HAND, "4s", flowers=["1f"], options={"riichi": True})


DRAGONS = [{"type": "pung", "tiles": ["5z"] * 3, "from": "E"}, {"type": "pung", "tiles": ["6z"] * 3, "from": "N"},
           {"type": "pung", "tiles": ["7z"] * 3, "from": "W"}]


def test_pao_the_seat_that_fed_the_third_dragon_pays_daisangen() -> None:
    """包 (WRC, JPML, 天凤): W fed S's third dragon set. S's 大三元 by tsumo: W pays all 32000 (and the 本场);
    on N's discard N and W pay 16000 each, N the 本场; on W's own discard W pays it all, as without 包."""
    def won(**more: Any) -> dict[str, int]:
        return pays(riichi("234m 5p", "5p", melds=DRAGONS, **more))

    assert won(win="self_draw", discarder=None) == {"E": -16000, "W": -8000, "N": -8000, "S": 32000}
    assert won(win="self_draw", discarder=None, options={"pao": "W"}) == {"W": -32000, "S": 32000}
    assert won(win="self_draw", discarder=None, options={"pao": "W", "honba": 2}) == {"W": -32600, "S": 32600}
    assert won(discarder="N", options={"pao": "W", "honba": 1}) == {"W": -16000, "N": -16300, "S": 32300}
    assert won(discarder="W", options={"pao": "W"}) == {"W": -32000, "S": 32000}
    # not a 大三元: nobody is liable
    winds = DRAGONS[:2] + [{"type": "pung", "tiles": ["1z"] * 3, "from": "W"}]
    assert pays(riichi("234m 5p", "5p", melds=winds, discarder="N", options={"pao": "W"})) \
        == pays(riichi("234m 5p", "5p", melds=winds, discarder="N")) == {"N": -5200, "S": 5200}  # 3 han 40 fu
    with pytest.raises(ScoringError) as err:
        won(discarder="N", options={"pao": "S"})
    assert err.value.field == "options.pao"


CLOSED_CHUN_KONG = [{"type": "kong", "tiles": ["7z"] * 4, "concealed": True}]


def test_kong_replacement_and_robbed_kong_on_the_last_tile_win_without_haitei() -> None:
    """The live record marks a 岭上 draw that emptied the live wall `last_tile`: 岭上开花 then stands alone
    (海底 is the last live draw, never a dead-wall tile; 河底 a discard, never a robbed kong). Before, the
    library's refusal of 海底 with 岭上 was passed on as 不是和牌."""
    r = riichi("234m 567p 23s 99s", "4s", win="kong_replacement", discarder=None, last_tile=True,
               melds=CLOSED_CHUN_KONG)
    assert [f["name_en"] for f in r["fans"]] == ["Menzen Tsumo", "Rinshan Kaihou", "Yakuhai (chun)"], r
    r = riichi("234m 567p 23s 99s", "4s", win="rob_kong", last_tile=True, melds=CLOSED_CHUN_KONG)
    assert [f["name_en"] for f in r["fans"]] == ["Chankan", "Yakuhai (chun)"], r
    r = riichi("234m 567p 23s 99s", "4s", win="self_draw", discarder=None, last_tile=True, melds=CLOSED_CHUN_KONG)
    assert "Haitei Raoyue" in [f["name_en"] for f in r["fans"]]


def test_first_turn_scores_only_where_a_first_turn_yaku_can_be() -> None:
    """天和 / 地和 / 人和 need no meld and 人和 a seat other than the dealer: a dealer's ron in the first go-round,
    or a win after a 暗杠, is scored as any hand (before: refused as 不是和牌)."""
    r = riichi(HAND, "4s", seat="E", options={"first_turn": True})
    assert pays(r) == pays(riichi(HAND, "4s", seat="E")) == {"W": -2000, "E": 2000}  # 断幺九 1 han 40 fu
    r = riichi("234m 567p 23s 99s", "4s", win="self_draw", discarder=None, melds=CLOSED_CHUN_KONG,
               options={"first_turn": True})
    assert "Chiihou" not in [f["name_en"] for f in r["fans"]] and r["han"] == 2, r
    assert riichi(HAND, "4s", options={"first_turn": True})["fans"][0]["name_en"] == "Renhou"  # 人和: S on W's tile


@pytest.mark.parametrize("options,melds,field", [
    ({"riichi": True}, [{"type": "pung", "tiles": ["3p"] * 3, "from": "E"}], "options.riichi"),
    ({"double_riichi": True}, [{"type": "pung", "tiles": ["3p"] * 3, "from": "E"}], "options.double_riichi"),
    ({"ippatsu": True}, [], "options.ippatsu"),
    ({"riichi": "false"}, [], "options.riichi"),  # a string, read as true before: 立直 scored on a hand not in riichi
    ({"first_turn": 1}, [], "options.first_turn"),
])
def test_riichi_options_against_the_hand_name_the_option(options: dict[str, Any], melds: list[Any], field: str) -> None:
    """立直 on an open hand and 一发 without 立直 are keying slips: refused naming the option, not as 不是和牌
    with the library's English code."""
    concealed = HAND if not melds else "22444m567p44s"
    with pytest.raises(ScoringError) as err:
        riichi(concealed, "4s", melds=melds, options=options)
    assert err.value.field == field

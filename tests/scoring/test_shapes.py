"""Winning shapes: readings, waits (单钓 嵌张 边张), seven pairs, 十三幺, 十四不靠, 组合龙, 鬼牌."""

from __future__ import annotations

from table_controller.scoring.hand import HandInput
from table_controller.scoring.shapes import readings


def _hand(concealed: str, win: str, how: str = "self_draw") -> HandInput:
    data = {"seat_wind": "E", "concealed": concealed, "melds": [], "win_tile": win, "win": how}
    if how == "discard":
        data["discarder"] = "S"
    return HandInput.from_json(data)


def test_waits_of_each_reading() -> None:
    assert {r.wait for r in readings(_hand("123m456p789s13m55z", "2m"))} == {"closed"}
    assert {r.wait for r in readings(_hand("123m456p789s12m55z", "3m"))} == {"edge"}
    assert {r.wait for r in readings(_hand("123m456p789s23m55z", "4m"))} == {"sides"}
    assert {r.wait for r in readings(_hand("123m456p789s222m5z", "5z"))} == {"pair"}


def test_a_pung_completed_by_a_discard_is_exposed() -> None:
    [r] = readings(_hand("123m456p789s11m55z", "5z", "discard"))
    pung = next(g for g in r.groups if g.type == "pung")
    assert pung.kind == "5z" and not pung.concealed and r.wait == "pung"


def test_special_forms() -> None:
    assert [r.form for r in readings(_hand("1122334455667m", "7m"))].count("seven_pairs") == 1
    assert [r.form for r in readings(_hand("19m19p19s1234567z", "1z"))] == ["thirteen_orphans"]
    assert [r.form for r in readings(_hand("147m258p36s12345z", "9s"), knitted=True)] == ["knitted"]
    assert "knitted_straight" in [r.form for r in readings(_hand("147m258p369s1113z", "3z"), knitted=True)]
    assert readings(_hand("147m258p36s12345z", "9s")) == []  # only 竞技 admits 十四不靠


def test_jokers_fill_any_place() -> None:
    # 5z is the 鬼牌: with 89m it reads as 789m (the joker the low end), with 11z as a pung
    forms = readings(_hand("89m456p789s11z22z5z", "5z"), wildcard="5z")
    chows = {g.kind for r in forms for g in r.groups if g.type == "chow" and g.wild}
    pungs = {g.kind for r in forms for g in r.groups if g.type == "pung" and g.wild}
    assert "7m" in chows and {"1z", "2z"} <= pungs
    # two jokers make the pair of anything, and seven pairs with singles
    assert any(r.form == "seven_pairs" for r in readings(_hand("1122334455m67m5z", "5z"), wildcard="5z"))

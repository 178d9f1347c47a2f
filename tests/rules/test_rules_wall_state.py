"""WallState during a hand: draws, replacements, 海底, 荒牌, reserve, 后4张, indicators, hand-end tiles."""

from __future__ import annotations

import pytest

from table_controller.rules import RulesetError, WallError, deal_plan, load_ruleset, next_kind


def _plan(rid: str, dice: tuple[int, ...], dice2: tuple[int, ...] | None = None):
    return deal_plan(load_ruleset(rid), dice, dice2)


def test_draws_follow_live_order_and_stop_at_haidi() -> None:
    # walls.md: "The live wall is exhausted (荒牌) when no tile is left to draw".
    plan = _plan("jingji", (3, 4))
    state = plan.initial_state()
    assert state.next_draw == plan.live[0]
    pos, after = state.draw()
    assert pos == plan.live[0] and after.live_drawn == 1 and state.live_drawn == 0  # immutable
    for _ in range(len(plan.live) - 2):
        _, after = after.draw()
    assert after.is_last and after.next_draw == plan.last_live
    pos, after = after.draw()
    assert pos == plan.last_live and after.exhausted and after.remaining == 0
    with pytest.raises(WallError) as err:
        after.draw()
    assert err.value.code == "wall_exhausted"


def test_replacement_moves_the_haidi() -> None:
    # walls.md: "海底: the last drawable tile. Its position moves as replacement tiles are taken".
    # mcr 3+4 / 2+5: k = W15, tail W14t W14b W13t ..., 海底 W14b at first.
    state = _plan("mcr", (3, 4), (2, 5)).initial_state()
    assert state.last_live == "W14b"
    pos, state = state.replace()
    assert pos == "W14t" and state.last_live == "W14b"  # the bottom of the same stack is still standing
    pos, state = state.replace()
    assert pos == "W14b" and state.last_live == "W13b"
    assert state.tail_drawn == 2 and state.live_drawn == 0


def test_front_and_tail_share_the_meeting_stack() -> None:
    # The last stack: the front takes its top, so the tail must give its bottom, never the top again.
    plan = _plan("jingji", (3, 4))
    state = plan.initial_state()
    while state.remaining > 2:
        _, state = state.draw()
    last_top, last_bottom = plan.live[-2], plan.live[-1]
    pos, state = state.draw()
    assert pos == last_top
    assert state.next_replacement == last_bottom
    pos, state = state.replace()
    assert pos == last_bottom and state.remaining == 0 and state.next_replacement is None
    with pytest.raises(WallError) as err:
        state.replace()
    assert err.value.code == "tail_exhausted"


def test_hainan_exhausts_with_fifteen_standing() -> None:
    # walls.md hainan: "荒牌 when 15 tiles (七墩半) remain" (seed 004 海南麻将 (2)).
    state = _plan("hainan", (1, 1)).initial_state()
    while not state.exhausted:
        _, state = state.draw()
    assert state.remaining == 15 and state.live_left == 0
    # a flower drawn as the 海底 is still replaced from the tail
    pos, state = state.replace()
    assert pos == "S02t" and state.remaining == 14


def test_riichi_dead_wall_rinshan_and_kan_dora() -> None:
    # walls.md riichi: dead wall = the 7 tail stacks; the dora indicator is the top of the 3rd.
    # Each 岭上 draw shortens the live wall by one; the next 杠宝牌 is the next stack's top.
    plan = _plan("riichi", (3, 4))  # k = W08
    state = plan.initial_state()
    live_left = state.live_left
    assert live_left == 69 and state.indicator_positions() == {"dora": ("W05t",)}
    taken = []
    for _ in range(4):
        pos, state = state.replace()
        taken.append(pos)
    assert taken == ["W07t", "W07b", "W06t", "W06b"]
    assert state.live_left == live_left - 4
    assert state.indicator_positions()["dora"] == ("W05t", "W04t", "W03t", "W02t", "W01t")
    assert state.replacements_left == 0 and state.next_replacement is None
    with pytest.raises(WallError) as err:
        state.replace()
    assert err.value.code == "replacements_spent"
    # the dead wall keeps 14 tiles standing: 荒牌 comes 4 draws earlier, no indicator is ever drawn
    drawn = []
    while not state.exhausted:
        pos, state = state.draw()
        drawn.append(pos)
    assert len(drawn) == live_left - 4 and state.remaining == 14
    assert not {"W05t", "W04t", "W03t", "W02t", "W01t"} & set(drawn)


def test_sichuan_last_four_zone() -> None:
    # walls.md sichuan: "后4张必胡 on the last 4 live tiles".
    state = _plan("sichuan", (3, 3)).initial_state()
    zone_flags = []
    while not state.exhausted:
        zone_flags.append(state.in_last_zone)
        _, state = state.draw()
    assert zone_flags[-4:] == [True] * 4 and not any(zone_flags[:-4])
    assert not _plan("mcr", (1, 1), (1, 1)).initial_state().in_last_zone


def test_hand_end_tiles_follow_the_tail() -> None:
    # 买马 (walls.md tuidaohu): "the next N tiles of the tail"; after two replacements they move on.
    state = _plan("tuidaohu", (6, 6)).initial_state()  # k = N13
    assert state.hand_end_tiles() == ("N12t", "N12b", "N11t", "N11b")
    _, state = state.replace()
    assert state.hand_end_tiles() == ("N12b", "N11t", "N11b", "N10t")
    assert state.hand_end_tiles(2) == ("N12b", "N11t")
    with pytest.raises(WallError):
        _plan("mcr", (1, 1), (1, 1)).initial_state().hand_end_tiles()


def test_horse_seats_tuidaohu() -> None:
    # walls.md 买马: 1,5,9,东,中 → the winner; 2,6,南,发 → 下家; 3,7,西,白 → 对家; 4,8,北 → 上家.
    rule = load_ruleset("tuidaohu").hand_end
    assert rule is not None
    winner = "S"  # 下家 W, 对家 N, 上家 E
    groups = {
        "S": ["1s", "5m", "9p", "1z", "7z"],
        "W": ["2m", "6s", "2z", "6z"],
        "N": ["3m", "7p", "3z", "5z"],
        "E": ["4m", "8s", "4z"],
    }
    for seat, kinds in groups.items():
        assert [rule.seat_for(k, winner) for k in kinds] == [seat] * len(kinds), seat


def test_fishing_seed_example_nanning() -> None:
    # seed 004 南宁 钓鱼: "最后三张若为7条，红中，5万 ... 7条即逆时针数7，红中按照东南西北中发白的顺序，即逆时针数5，
    # 5万即逆时针数5", each counted from the previous winner (here E).
    rule = load_ruleset("nanning").hand_end
    assert rule is not None and rule.tiles == 3
    assert [rule.value(k) for k in ("7s", "7z", "5m")] == [7, 5, 5]
    assert [rule.seat_for(k, "E") for k in ("7s", "7z", "5m")] == ["W", "E", "E"]
    assert rule.seat_for("3f", "E") is None


def test_dora_cycle_riichi() -> None:
    # walls.md: "Dora = the next kind: 1–9 wrap, winds E→S→W→N→E, dragons 白→发→中→白".
    rule = load_ruleset("riichi").indicator("dora")
    assert rule is not None
    pairs = {"1m": "2m", "9m": "1m", "9s": "1s", "1z": "2z", "4z": "1z", "5z": "6z", "6z": "7z", "7z": "5z"}
    for shown, dora in pairs.items():
        assert rule.kinds(shown, 9) == {"next": dora}


def test_baida_cycle_fujian() -> None:
    # walls.md fujian: 活动百搭 = that kind, 带弟百搭 = the next kind, suits 9→1, honours
    # E→S→W→N→中→发→白→E (seed 003: "开九万则以一万为百搭，开北则以红中为白搭").
    rule = load_ruleset("fujian").indicator("baida")
    assert rule is not None
    assert rule.kinds("3m", 9) == {"same": "3m", "next": "4m"}
    assert rule.kinds("9m", 9) == {"same": "9m", "next": "1m"}
    assert rule.kinds("4z", 9)["next"] == "7z"
    assert [rule.kinds(k, 9)["next"] for k in ("7z", "6z", "5z")] == ["6z", "5z", "1z"]


def test_laizi_cycle_wuhan_never_red_dragon() -> None:
    # walls.md wuhan: 癞子 = the next kind, suits 9→1, honours E→S→W→N→发 (skipping 中), 中→发,
    # 发→白, 白→E. 红中 is never 癞子 (seed 004: 摸到"北"和"中"都是"发"作癞子).
    rs = load_ruleset("wuhan")
    rule = rs.indicator("laizi")
    assert rule is not None
    assert rule.kinds("5m", 9) == {"next": "6m"} and rule.kinds("9m", 9) == {"next": "1m"}
    assert rule.kinds("4z", 9) == {"next": "6z"} and rule.kinds("7z", 9) == {"next": "6z"}
    assert rule.kinds("6z", 9) == {"next": "5z"} and rule.kinds("5z", 9) == {"next": "1z"}
    wilds = {rs.indicator_kinds("laizi", k)["next"] for k in rs.tile_spec.kinds()}
    assert "7z" not in wilds
    with pytest.raises(RulesetError):
        rs.indicator_kinds("dora", "1m")


def test_next_kind_shiwan_wraps_at_ten() -> None:
    # 十万麻将 has tens (seed 000 范文四 二.1): a suit cycle there runs 1..10.
    assert next_kind("9m", 10, {}) == "10m"
    assert next_kind("10p", 10, {}) == "1p"
    assert next_kind("3f", 9, {"1z": "2z"}) is None


def test_state_json_for_the_display() -> None:
    state = _plan("riichi", (3, 4)).initial_state()
    data = state.to_json()
    assert data["next_draw"] == "S17b" and data["last_live"] == "N17b"
    assert data["indicators"] == {"dora": ["W05t"]}
    assert data["live_left"] == 69 and data["remaining"] == 83 and data["replacements_left"] == 4


def test_picture_follows_the_state() -> None:
    # After every live tile is drawn, no stack shows live ('#') any more and the next draw is gone.
    state = _plan("jingji", (3, 4)).initial_state()
    while not state.exhausted:
        _, state = state.draw()
    picture = state.render_text()
    wall_rows = [line for line in picture.splitlines() if line.startswith(("    ", "N", ))][:20]
    assert not any("#" in row or ">" in row for row in wall_rows)
    assert "next draw None" in picture


def test_state_after_counts_any_order() -> None:
    # riichi: all 69 live tiles drawn, then the 4 岭上 tiles — legal in that order only, yet the
    # counts rebuild the same wall; counts the wall cannot give are refused.
    plan = _plan("riichi", (3, 4))
    state = plan.initial_state()
    while not state.exhausted:
        _, state = state.draw()
    for _ in range(4):
        _, state = state.replace()
    rebuilt = plan.state_after(69, 4)
    assert rebuilt.to_json() == state.to_json() and rebuilt.remaining == 136 - 53 - 69 - 4
    assert plan.state_after() == plan.initial_state()
    for bad in ((70, 0), (0, 5), (-1, 0)):
        with pytest.raises(WallError):
            plan.state_after(*bad)


def test_sichuan_last_four_zone_holds_after_the_haidi_is_drawn() -> None:
    # walls.md sichuan: "后4张必胡 on the last 4 live tiles"; the 海底 is one of them, and the discard
    # made after drawing it is still played in the zone (before: the zone ended with the last draw).
    state = _plan("sichuan", (3, 3)).initial_state()
    while not state.exhausted:
        _, state = state.draw()
    assert state.live_left == 0 and state.in_last_zone
    assert state.to_json()["in_last_zone"] is True
    assert not _plan("mcr", (1, 1), (1, 1)).initial_state().in_last_zone

"""The hand state machine replaying whole hands: claims and priority, 抢杠, 一炮多响/截和, 漏和,
血战/血流 continuation, 后4张必胡, 定缺, 荒牌, and refusals naming the rule broken."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from table_controller import tiles as T
from table_controller.hand import (
    ChooseMissing, Claim, CloseWindow, Correct, Deal, Discard, Draw, Event, Flower, FlowRules, HandState,
    IllegalAction, Kong, Pass, Replace, SelfDrawWin, apply, event_from_json, new_hand,
)
from table_controller.rules import deal_plan, load_ruleset, ruleset_ids
from table_controller.scoring import score_json


@dataclass(frozen=True)
class FakeWall:
    """A wall of `live` tiles (a `Wall` of the hand's Protocol) with a last zone of `zone` tiles."""

    live: int
    zone: int = 0

    @property
    def exhausted(self) -> bool:
        return self.live == 0

    @property
    def is_last(self) -> bool:
        return self.live == 1

    @property
    def in_last_zone(self) -> bool:
        return 0 < self.zone and self.live <= self.zone

    def draw(self) -> tuple[str, FakeWall]:
        return f"L{self.live}", FakeWall(self.live - 1, self.zone)

    def replace(self) -> tuple[str, FakeWall]:
        """From the tail: the same tiles seen from the other end, so none once the last is drawn."""
        from table_controller.rules.errors import WallError

        if self.live == 0:
            raise WallError("no tile left for a replacement draw", code="tail_exhausted")
        return f"T{self.live}", FakeWall(self.live - 1, self.zone)


def hands(**by_seat: str) -> dict[str, tuple[str, ...]]:
    """Opening hands: the given tiles, the rest face down (`back`)."""
    out = {}
    for seat in T.SEATS:
        known = T.parse_tiles(by_seat.get(seat, ""))
        want = 14 if seat == "E" else 13
        out[seat] = tuple(known + [T.BACK] * (want - len(known)))
    return out


def play(state: HandState, *events: Event) -> tuple[HandState, list[dict[str, Any]]]:
    notes: list[dict[str, Any]] = []
    for event in events:
        state, more = apply(state, event)
        notes.extend(more)
    return state, notes


def wins(notes: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [n for n in notes if n["type"] == "win"]


def mcr_hand() -> HandState:
    plan = deal_plan(load_ruleset("mcr"), dice=(3, 4), dice2=(2, 5))
    return new_hand(FlowRules.for_ruleset("mcr"), plan.initial_state())


READY_5P = "123m456m789m11s46p"   # waits on 5p (嵌张), 清龙


def test_claim_priority_pung_over_chow_and_chow_only_from_previous() -> None:
    s, _ = play(mcr_hand(), Deal(hands(E="3p", S="12p", N="33p")), Discard("E", "3p"))
    with pytest.raises(IllegalAction) as err:
        apply(s, Claim("W", "chi", ("1p", "2p", "3p")))
    assert err.value.code == "chi_not_from_previous" and "上家" in err.value.rule
    s, notes = play(s, Claim("S", "chi", ("1p", "2p", "3p")), Claim("N", "pung"), Pass("W"))
    assert s.turn == "N" and s.phase == "discard"
    assert s.seats["N"].melds == [{"type": "pung", "tiles": ["3p"] * 3, "from": "E"}]
    assert s.seats["E"].discards == [] and [(n["type"], n.get("action")) for n in notes][-1] == ("claim", "pung")
    with pytest.raises(IllegalAction) as err:  # the window is closed once resolved
        apply(s, Claim("S", "chi", ("1p", "2p", "3p")))
    assert err.value.code == "window_closed"


def test_mcr_no_kong_between_a_chow_and_the_next_draw() -> None:
    """Seed 000 范文五/六 七、开杠: "吃牌时，手中有杠牌，不能开杠。只能在下一次自己抓进牌后才能开杠". S holds four 9s and
    chows E's 3p: no 暗杠 until it draws again. 竞技 (seed 004 says nothing of it) still allows it."""
    deal = Deal(hands(E="3p", S="12p9s9s9s9s"))
    s, _ = play(mcr_hand(), deal, Discard("E", "3p"), Claim("S", "chi", ("1p", "2p", "3p")),
                Pass("W"), Pass("N"))
    assert s.turn == "S" and s.phase == "discard"
    with pytest.raises(IllegalAction) as err:
        apply(s, Kong("S", "9s", "concealed"))
    assert err.value.code == "kong_after_chow" and "下一次自己抓进牌后" in err.value.rule
    s, _ = play(s, Discard("S", "1z"), Pass("W"), Pass("N"), Pass("E"), Draw("W", "2z"), Discard("W", "2z"),
                Pass("N"), Pass("E"), Pass("S"), Draw("N", "3z"), Discard("N", "3z"), Pass("E"), Pass("S"),
                Pass("W"), Draw("E", "4z"), Discard("E", "4z"), Pass("S"), Pass("W"), Pass("N"), Draw("S", "5z"))
    s, notes = play(s, Kong("S", "9s", "concealed"))  # drawn since: it stands
    assert notes[-1]["type"] == "kong" and notes[-1]["kind"] == "concealed"
    plan = deal_plan(load_ruleset("jingji"), dice=(3, 4))
    jj, _ = play(new_hand(FlowRules.for_ruleset("jingji"), plan.initial_state()), deal, Discard("E", "3p"),
                 Claim("S", "chi", ("1p", "2p", "3p")), Pass("W"), Pass("N"))
    jj, notes = play(jj, Kong("S", "9s", "concealed"))
    assert notes[-1]["type"] == "kong"


def test_rob_the_kong_through_the_real_wall() -> None:
    s, notes = play(
        mcr_hand(), Deal(hands(E="5p", S=READY_5P, W="55p")),
        Discard("E", "5p"), Pass("S"), Claim("W", "pung"), Pass("N"),   # MCR: no 漏和, S may pass
        Discard("W", "9s"), Pass("N"), Pass("E"), Pass("S"),
        Draw("N"), Discard("N", "8s"), Pass("E"), Pass("S"), Pass("W"),
        Draw("E"), Discard("E", "7s"), Pass("S"), Pass("W"), Pass("N"),
        Draw("S", "9p"), Discard("S", "9p"), Pass("W"), Pass("N"), Pass("E"),
        Draw("W", "5p"), Kong("W", "5p", "added"), Claim("S", "win"), Pass("N"), Pass("E"))
    [win] = wins(notes)
    assert win["win"] == "rob_kong" and win["discarder"] == "W" and s.phase == "ended"
    assert s.seats["W"].melds[0]["type"] == "pung"  # the robbed kong stays a pung
    scored = score_json(win["hand"], "mcr")
    assert scored["valid"] and "抢杠和" in [f["name"] for f in scored["fans"]]
    assert scored["payments"]["W"] == -(8 + scored["total"])


def test_added_kong_not_robbed_draws_a_replacement() -> None:
    s, notes = play(
        mcr_hand(), Deal(hands(E="5p", W="55p")),
        Discard("E", "5p"), Pass("S"), Claim("W", "pung"), Pass("N"),
        Discard("W", "9s"), Pass("N"), Pass("E"), Pass("S"),
        Draw("N"), Discard("N", "8s"), Pass("E"), Pass("S"), Pass("W"),
        Draw("E"), Discard("E", "7s"), Pass("S"), Pass("W"), Pass("N"),
        Draw("S"), Discard("S", "6s"), Pass("W"), Pass("N"), Pass("E"),
        Draw("W", "5p"), Kong("W", "5p", "added"), CloseWindow(), Replace("W", "1z"))
    assert s.seats["W"].melds[0] == {"type": "kong", "tiles": ["5p"] * 4, "from": "E"}
    assert s.phase == "discard" and s.turn == "W" and notes[-1]["type"] == "replace"
    s, notes = play(s, SelfDrawWin("W"))  # the hand is unknown: a declared win stands for the referee
    assert wins(notes)[0]["win"] == "kong_replacement"


@pytest.mark.parametrize("ruleset,winners", [("mcr", ["S"]), ("jingji", ["S", "W"]), ("sichuan", ["S", "W"])])
def test_one_discard_several_winners(ruleset: str, winners: list[str]) -> None:
    """MCR 截和: the first seat after the discarder; 竞技 and 四川 一炮多响: everyone who claims."""
    rules = FlowRules.for_ruleset(ruleset)
    ready_s, ready_w = ("123m456m789m11s46p", "123p456p789p11s46p") if ruleset != "sichuan" else (
        "123m456m789m11p46p", "123p456p789p22m46p")
    s, _ = play(new_hand(rules, FakeWall(40)), Deal(hands(E="5p", S=ready_s, W=ready_w)))
    if rules.missing_suit:
        s, _ = play(s, *(ChooseMissing(x, "s") for x in T.SEATS))
    s, notes = play(s, Discard("E", "5p"), Claim("W", "win"), Claim("S", "win"), Pass("N"))
    assert [w["seat"] for w in wins(notes)] == winners
    if len(winners) > 1:
        assert all(w["hand"]["options"]["horse_origin"] == "E" for w in wins(notes))
    for w in wins(notes):
        out = score_json(w["hand"], ruleset)
        assert out["valid"] and out["payments"]["E"] < 0 and sum(out["payments"].values()) == 0


def test_missed_win_locks_until_the_seat_moves_seed001() -> None:
    # 漏胡: A passes a win offered by 下家; 对家 or 上家 then discard the same tile: A cannot win it
    rules = FlowRules.for_ruleset("tuidaohu")
    s, notes = play(new_hand(rules, FakeWall(40)), Deal(hands(E="5p", S="5p", N="5p", W=READY_5P)),
                    Discard("E", "5p"), Pass("S"), Pass("W"), Pass("N"))
    assert {"type": "missed_win", "seat": "W", "tile": "5p"} in notes
    s, _ = play(s, Draw("S"), Discard("S", "5p"))
    with pytest.raises(IllegalAction) as err:
        apply(s, Claim("W", "win"))
    assert err.value.code == "missed_win" and "漏和" in err.value.rule
    s, _ = play(s, Pass("W"), Pass("N"), Pass("E"), Draw("W", "9s"), Discard("W", "9s"),
                Pass("N"), Pass("E"), Pass("S"), Draw("N"), Discard("N", "5p"))
    s, notes = play(s, Claim("W", "win"), Pass("E"), Pass("S"))  # W has moved: the lock is gone
    assert wins(notes)[0]["seat"] == "W" and s.phase == "ended"


def test_a_window_closed_on_a_seat_that_could_win_locks_it_as_a_pass_does() -> None:
    """漏胡 when the window closes (`CloseWindow`: the timer, the next seat drawing) with W ready on 东's 5p: the live
    record refuses W's win on 南's 5p then (any discard let go by since its own last discard, `referee.missed_win`);
    the machine locked W only on its own `Pass`, so paid it (parity tuidaohu seed 161)."""
    rules = FlowRules.for_ruleset("tuidaohu")
    s, notes = play(new_hand(rules, FakeWall(40)), Deal(hands(E="5p", S="5p", N="5p", W=READY_5P)),
                    Discard("E", "5p"), Pass("S"), CloseWindow())
    assert {"type": "missed_win", "seat": "W", "tile": "5p"} in notes
    s, _ = play(s, Draw("S"), Discard("S", "5p"))
    with pytest.raises(IllegalAction) as err:
        apply(s, Claim("W", "win"))
    assert err.value.code == "missed_win"


def test_blood_battle_goes_on_without_the_winner_seed000() -> None:
    rules = FlowRules.for_ruleset("sichuan")
    s, _ = play(new_hand(rules, FakeWall(40)), Deal(hands(S="123m456m789m11p46p")),
                *(ChooseMissing(x, "s") for x in T.SEATS),
                Discard("E", "5p"), Claim("S", "win"), Pass("W"), Pass("N"))
    assert s.phase == "draw" and s.turn == "W" and s.active() == ["E", "W", "N"]
    s, _ = play(s, Draw("W"), Discard("W", "5p"))
    with pytest.raises(IllegalAction):
        apply(s, Claim("S", "win"))  # S has left the hand
    s, notes = play(s, Pass("N"), Pass("E"))
    assert s.turn == "N" and s.phase == "draw"


def test_blood_river_wins_again_seed000() -> None:
    rules = FlowRules.for_ruleset("xueliu")
    s, _ = play(new_hand(rules, FakeWall(40)), Deal(hands(S="123m456m789m11p46p")),
                *(ChooseMissing(x, "s") for x in T.SEATS),
                Discard("E", "5p"), Claim("S", "win"), Pass("W"), Pass("N"),
                Draw("W"), Discard("W", "5p"), Claim("S", "win"), Pass("N"), Pass("E"))
    assert [w["seat"] for w in s.winners] == ["S", "S"] and s.phase == "draw" and s.turn == "W"


def test_last_four_must_win_and_missing_suit_first_seed003() -> None:
    rules = FlowRules.for_ruleset("sichuan")
    s, _ = play(new_hand(rules, FakeWall(3, zone=4)), Deal(hands(E="5p1s", S="123m456m789m11p46p")),
                *(ChooseMissing(x, "s") for x in T.SEATS))
    with pytest.raises(IllegalAction) as err:  # E holds 1s of its missing suit: it must go first
        apply(s, Discard("E", "5p"))
    assert err.value.code == "missing_suit_first"
    s, _ = play(s, Correct("E", "1s", "back"), Discard("E", "5p"))
    with pytest.raises(IllegalAction) as err:
        apply(s, Pass("S"))
    assert err.value.code == "must_win" and "后4张必胡" in err.value.rule


def test_no_claim_or_kong_of_the_missing_suit() -> None:
    """定缺 holds for the hand: a seat that named 条 neither pungs nor kongs a 条 (the live record refused
    them, `controller._holds_missing`; the machine took them: the two disagreed, tests/hand/test_parity.py)."""
    rules = FlowRules.for_ruleset("sichuan")
    s, _ = play(new_hand(rules, FakeWall(40)), Deal(hands(E="5p5s", S="5s5s5s7s7s7s")),
                *(ChooseMissing(x, "s") for x in T.SEATS))
    s, _ = play(s, Correct("E", "5s", "back"), Discard("E", "5p"), Pass("S"), Pass("W"), Pass("N"),
                Draw("S", "7s"))
    with pytest.raises(IllegalAction) as err:
        apply(s, Kong("S", "7s", "concealed"))
    assert err.value.code == "missing_suit_claim" and "定缺条" in err.value.rule
    s, _ = play(s, Discard("S", "7s"), Pass("W"), Pass("N"), Pass("E"), Draw("W", "1m"), Discard("W", "5s"))
    for claim in (Claim("S", "pung"), Claim("S", "kong")):
        with pytest.raises(IllegalAction) as err:
            apply(s, claim)
        assert err.value.code == "missing_suit_claim"
    pung_ok = new_hand(FlowRules.for_ruleset("sichuan"), FakeWall(40))  # a seat that gave up 万 pungs the 条
    s, _ = play(pung_ok, Deal(hands(E="5p5s", S="5s5s")), *(ChooseMissing(x, "m") for x in T.SEATS),
                Discard("E", "5s"), Claim("S", "pung"), Pass("W"), Pass("N"))
    assert s.seats["S"].melds[-1]["tiles"] == ["5s"] * 3


def test_last_four_must_win_on_the_discard_after_the_haidi() -> None:
    """walls.md sichuan: "后4张必胡 on the last 4 live tiles". The 海底 is the last of them: a ready seat
    may not let the discard made after it pass (before: the rules engine's zone ended with the draw
    of the 海底, so the seat passed and the hand went to 查叫)."""
    plan = deal_plan(load_ruleset("sichuan"), dice=(3, 3))
    one_left = plan.state_after(live_drawn=plan.initial_state().live_left - 1)
    s, _ = play(new_hand(FlowRules.for_ruleset("sichuan"), one_left),
                Deal(hands(E="9m", S="5p", W="123m456m789m11p46p")), *(ChooseMissing(x, "s") for x in T.SEATS),
                Discard("E", "9m"), Pass("S"), Pass("W"), Pass("N"), Draw("S"), Discard("S", "5p"))
    assert s.wall.exhausted and s.wall.in_last_zone
    with pytest.raises(IllegalAction) as err:
        apply(s, Pass("W"))
    assert err.value.code == "must_win"


def test_a_seat_barred_by_missed_win_may_pass_in_the_last_four() -> None:
    """A house 四川 with 漏和: a seat that let 5p go may not win on it until it draws; if 5p comes
    again in the last four tiles it must still be able to pass (before: 后4张必胡 refused the pass
    and 漏和 the win, so only the window's timeout could move the hand on)."""
    from dataclasses import replace

    rules = replace(FlowRules.for_ruleset("sichuan"), missed_win=True)
    s, _ = play(new_hand(rules, FakeWall(5, zone=4)), Deal(hands(S="123m456m789m11p34p", W="55p", N="5p")),
                *(ChooseMissing(x, "s") for x in T.SEATS), Discard("E", "5p"))
    s, notes = play(s, Pass("S"))
    assert notes[-1]["type"] == "missed_win" and "5p" in s.seats["S"].locked
    s, _ = play(s, Claim("W", "pung"), Pass("N"), Discard("W", "9m"), Pass("N"), Pass("E"), Pass("S"),
                Draw("N"), Discard("N", "5p"))
    assert s.wall.in_last_zone
    with pytest.raises(IllegalAction) as err:
        apply(s, Claim("S", "win"))
    assert err.value.code == "missed_win"
    s, _ = play(s, Pass("S"), Pass("E"), Pass("W"))
    assert s.phase == "draw" and s.turn == "E"


def test_exhaustive_draw_when_the_last_discard_passes() -> None:
    rules = FlowRules.for_ruleset("mcr")
    s, notes = play(new_hand(rules, FakeWall(1)), Deal(hands()), Discard("E", "1z"),
                    Pass("S"), Pass("W"), Pass("N"), Draw("S"))
    assert notes[-1]["last_tile"] is True
    s, notes = play(s, Discard("S", "2z"), CloseWindow())
    assert s.phase == "ended" and s.result == "exhaustive" and notes[-1]["type"] == "exhaustive_draw"
    with pytest.raises(IllegalAction) as err:
        apply(s, Draw("W"))
    assert err.value.code == "hand_over"


def test_self_drawn_last_tile_and_false_win() -> None:
    rules = FlowRules.for_ruleset("mcr")
    s, _ = play(new_hand(rules, FakeWall(1)), Deal(hands(S="123m456m789m11s46p")), Discard("E", "1z"),
                Pass("S"), Pass("W"), Pass("N"))
    bad, notes = play(s, Draw("S", "9p"), SelfDrawWin("S"))
    assert notes[-1]["type"] == "false_win" and bad.phase == "discard"  # 诈和: penalty, play goes on
    s, notes = play(s, Draw("S", "5p"), SelfDrawWin("S"))
    out = score_json(wins(notes)[0]["hand"], "mcr")
    assert "妙手回春" in [f["name"] for f in out["fans"]]


@pytest.mark.parametrize("event,code", [
    (Discard("S", "1m"), "out_of_turn"),
    (Draw("E"), "not_now"),
    (Claim("S", "win"), "window_closed"),
    (Discard("E", "1f"), "flower_discard"),
])
def test_refusals_name_the_rule(event: Event, code: str) -> None:
    s, _ = play(new_hand(FlowRules.for_ruleset("mcr"), FakeWall(40)), Deal(hands()))
    before = s
    with pytest.raises(IllegalAction) as err:
        apply(s, event)
    assert err.value.code == code and err.value.rule
    assert s is before and s.phase == "discard"  # the state is untouched


def test_fifth_copy_and_events_from_json() -> None:
    with pytest.raises(IllegalAction) as err:
        play(new_hand(FlowRules.for_ruleset("mcr"), FakeWall(40)), Deal(hands(E="1111m", S="1m")))
    assert err.value.code == "fifth_copy"
    event = event_from_json({"type": "claim", "seat": "S", "action": "chi", "tiles": "123p"})
    assert event == Claim("S", "chi", ("1p", "2p", "3p"))
    with pytest.raises(IllegalAction):
        event_from_json({"type": "teleport"})


def test_jingji_baofu_after_three_claims_from_one_feeder_seed004() -> None:
    # 下家从起初总计连续吃碰上家三次牌 ... 和牌方包括自摸和牌应由喂牌方一家付三倍分
    rules = FlowRules.for_ruleset("jingji")
    s, notes = play(
        new_hand(rules, FakeWall(60)), Deal(hands(E="3p6p9p", S="12p45p78p1z")),
        Discard("E", "3p"), Claim("S", "chi", ("1p", "2p", "3p")), Pass("W"), Pass("N"), Discard("S", "1z"),
        Pass("W"), Pass("N"), Pass("E"), Draw("W"), Discard("W", "9s"), Pass("N"), Pass("E"), Pass("S"),
        Draw("N"), Discard("N", "8s"), Pass("E"), Pass("S"), Pass("W"),
        Draw("E"), Discard("E", "6p"), Claim("S", "chi", ("4p", "5p", "6p")), Pass("W"), Pass("N"),
        Discard("S", "7s"), Pass("W"), Pass("N"), Pass("E"), Draw("W"), Discard("W", "6s"),
        Pass("N"), Pass("E"), Pass("S"), Draw("N"), Discard("N", "5s"), Pass("E"), Pass("S"), Pass("W"),
        Draw("E"), Discard("E", "9p"), Claim("S", "chi", ("7p", "8p", "9p")), Pass("W"), Pass("N"))
    assert {"type": "baofu", "claimer": "S", "feeder": "E"} in notes
    s, notes = play(s, Discard("S", "4s"), Pass("W"), Pass("N"), Pass("E"), Draw("W"), Discard("W", "3s"),
                    Pass("N"), Pass("E"), Pass("S"), Draw("N"), Discard("N", "2s"), Pass("E"), Pass("S"),
                    Pass("W"), Draw("E"), Discard("E", "1s"), Pass("S"), Pass("W"), Pass("N"),
                    Draw("S"), SelfDrawWin("S"))
    hand = wins(notes)[0]["hand"]
    assert hand["options"]["baofu"] == "E"


def test_nanning_seal_after_three_pungs_fed_to_one_seat_seed004() -> None:
    # 封胡: 放给同一个人碰三比以上，而放碰的人本局不能胡牌; B 胡牌则 A 付
    rules = FlowRules.for_ruleset("nanning")
    assert rules.seal_pungs == 3

    def round_to_e() -> tuple[Event, ...]:  # S discards, W and N draw and discard, E draws
        return (Discard("S", "9m"), CloseWindow(), Draw("W"), Discard("W", "9s"), CloseWindow(),
                Draw("N"), Discard("N", "8s"), CloseWindow(), Draw("E"))

    s, notes = play(new_hand(rules, FakeWall(60)), Deal(hands(E="1z5z9p", S="1z1z5z5z9p9p")),
                    Discard("E", "1z"), Claim("S", "pung"), CloseWindow(), *round_to_e(),
                    Discard("E", "5z"), Claim("S", "pung"), CloseWindow())
    assert not s.sealed and not [n for n in notes if n["type"] == "sealed"]
    s, notes = play(s, *round_to_e(), Discard("E", "9p"), Claim("S", "pung"), CloseWindow())
    assert {"type": "sealed", "seat": "E", "claimer": "S"} in notes and s.sealed_for("E") == "S"
    s, _ = play(s, Discard("S", "3m"))
    with pytest.raises(IllegalAction) as refused:
        apply(s, Claim("E", "win"))
    assert refused.value.code == "sealed"
    s, notes = play(s, CloseWindow(), Draw("W"), Discard("W", "4s"), CloseWindow(), Draw("N"), Discard("N", "4s"),
                    CloseWindow(), Draw("E"), Discard("E", "2s"), CloseWindow(), Draw("S"), SelfDrawWin("S"))
    assert wins(notes)[0]["hand"]["options"] == {"sealed": "E"}


def test_jingji_chase_four_same_discards_seed004() -> None:
    rules = FlowRules.for_ruleset("jingji")
    s, notes = play(new_hand(rules, FakeWall(60)), Deal(hands()),
                    Discard("E", "1z"), CloseWindow(), Draw("S"), Discard("S", "1z"), CloseWindow(),
                    Draw("W"), Discard("W", "1z"), CloseWindow(), Draw("N"), Discard("N", "1z"))
    assert {"type": "chase", "first": "E", "tile": "1z"} in notes


def test_discard_after_a_kong_is_kong_discard_win_seed001() -> None:
    rules = FlowRules.for_ruleset("tuidaohu")
    # a 混一色, not a 鸡胡 shape: 鸡胡 may not win on a discard, 杠上炮 included (seed 001 鸡只能自摸、抢杠胡)
    s, notes = play(new_hand(rules, FakeWall(60)), Deal(hands(E="1111s5m", S="123m456m789m11z46m")),
                    Kong("E", "1s", "concealed"), Replace("E", "9s"), Discard("E", "5m"),
                    Claim("S", "win"), Pass("W"), Pass("N"))
    hand = wins(notes)[0]["hand"]
    assert hand["options"] == {"after_kong": True}
    out = score_json(hand, "tuidaohu")
    assert "杠上炮" in [f["name"] for f in out["fans"]]


def test_opening_flowers_each_seat_then_the_dealer_plays() -> None:
    s, notes = play(new_hand(FlowRules.for_ruleset("mcr"), FakeWall(40)), Deal(hands(E="1f", W="5f")),
                    Flower("E", "1f"), Replace("E", "2m"), Flower("W", "5f"))
    with pytest.raises(IllegalAction):
        apply(s, Replace("E"))  # the replacement is W's
    s, notes = play(s, Replace("W", "8f"), Flower("W", "8f"), Replace("W", "3m"), Discard("E", "2m"))
    assert s.seats["W"].flowers == ["5f", "8f"] and s.seats["E"].flowers == ["1f"]
    assert s.phase == "claims"
    with pytest.raises(IllegalAction):  # 四川 plays without flowers
        play(new_hand(FlowRules.for_ruleset("sichuan"), FakeWall(40)), Deal(hands()), Flower("E", "1f"))


def test_opening_flowers_go_round_by_round_dealer_first() -> None:
    """walls.md: the opening flowers are replaced dealer first, then S, W, N; a replacement that is
    again a flower waits until that round is over; play starts when none is left (before: any
    order, and the dealer could discard with a seat's flower still in hand)."""
    s, _ = play(new_hand(FlowRules.for_ruleset("mcr"), FakeWall(40)), Deal(hands(E="1f", S="3f")))

    def refused(state: HandState, event: Event, code: str, *words: str) -> None:
        with pytest.raises(IllegalAction) as err:
            apply(state, event)
        assert err.value.code == code and all(w in err.value.rule for w in words), err.value.rule

    refused(s, Flower("S", "3f"), "flower_order", "先由东家补春")          # the dealer first
    s, _ = play(s, Flower("E", "1f"), Replace("E", "2f"))
    refused(s, Flower("E", "2f"), "flower_order", "先由南家补秋")          # E's replacement waits for S
    refused(s, Discard("E", "5m"), "opening_flowers", "南家还有秋")         # no play before 补花 is done
    refused(s, Kong("E", "5m", "concealed"), "opening_flowers")
    s, _ = play(s, Flower("S", "3f"), Replace("S", "4f"))
    refused(s, Flower("S", "4f"), "flower_order", "先由东家补夏")          # round 2: the dealer first again
    refused(s, Discard("E", "5m"), "opening_flowers", "东家还有夏")
    s, _ = play(s, Flower("E", "2f"), Replace("E", "5m"), Flower("S", "4f"), Replace("S", "6m"), Discard("E", "5m"))
    assert s.seats["E"].flowers == ["1f", "2f"] and s.seats["S"].flowers == ["3f", "4f"] and s.phase == "claims"
    # a tile the camera misread as a flower, corrected by the referee, is owed no more
    t, _ = play(new_hand(FlowRules.for_ruleset("mcr"), FakeWall(40)), Deal(hands(E="5m", N="8f")),
                Correct("N", "8f", "8m"), Discard("E", "5m"))
    assert t.phase == "claims"


@pytest.mark.parametrize("ruleset", ruleset_ids())
def test_the_machine_lays_out_the_tiles_the_live_record_takes_as_flowers(ruleset: str) -> None:
    """The bonus tiles are the ruleset's `[tiles]`, as the live record has them (`TileSpec.is_bonus`): the machine
    read `[flow] tiles` (144 when absent), so 福建 and 武汉 (136, no flowers) played with flowers, and took only
    real flowers, so 南京's 中发白 (seed 003 花牌) were discarded where the record lays them out."""
    from table_controller.scoring import ruleset_tiles

    rs, kinds = ruleset_tiles(ruleset)
    flow = FlowRules.for_ruleset(ruleset)
    for kind in T.all_kinds(flowers=True):
        assert flow.is_bonus(kind) == (kind in kinds and rs.tile_spec.is_bonus(kind)), (ruleset, kind)
    assert flow.flowers == any(rs.tile_spec.is_bonus(k) for k in kinds)


def test_nanjing_dragons_are_laid_out_and_replaced_not_discarded() -> None:
    def refused(state: HandState, event: Event, code: str, *words: str) -> None:
        with pytest.raises(IllegalAction) as err:
            apply(state, event)
        assert err.value.code == code and all(w in err.value.rule for w in words), err.value.rule

    flow = FlowRules.for_ruleset("nanjing")
    s = new_hand(flow, FakeWall(40))
    s, _ = play(s, Deal(hands(E="5m7z", S="6z")))
    refused(s, Discard("E", "5m"), "opening_flowers", "东家还有中")   # the dealt 中 first, as a flower
    refused(s, Discard("E", "7z"), "flower_discard")
    s, notes = play(s, Flower("E", "7z"), Replace("E", "2m"), Flower("S", "6z"), Replace("S", "3m"),
                    Discard("E", "5m"))
    assert s.seats["E"].flowers == ["7z"] and s.seats["S"].flowers == ["6z"] and s.phase == "claims"
    four = play(new_hand(flow, FakeWall(40)), Deal(hands(E="5m7z7z7z7z")))[0]
    refused(four, Kong("E", "7z", "concealed"), "flower_kong")  # the live record refuses it too (test_play_shapes)
    refused(play(new_hand(FlowRules.for_ruleset("wuhan"), FakeWall(40)), Deal(hands(E="1f")))[0],
            Flower("E", "1f"), "no_flowers")


def test_riichi_furiten_bars_a_ron_as_the_live_record_does() -> None:
    """振听 (`[flow] furiten`, `referee.furiten`): the machine took a ron the live record refuses. 东 waits on 一万 and
    四万: with 四万 among its own discards it may not ron (舍牌振听, 自摸 still wins); having let 一万 pass it may ron
    nothing until it draws (同巡振听)."""
    flow = FlowRules.for_ruleset("riichi")
    ready = "23m456p789p123s55z"

    def refused(state: HandState, event: Event, words: str) -> None:
        with pytest.raises(IllegalAction) as err:
            apply(state, event)
        assert err.value.code == "furiten" and words in err.value.rule, err.value.rule

    own, _ = play(new_hand(flow, FakeWall(40)), Deal(hands(E=ready + "4m")), Discard("E", "4m"), Pass("S"),
                  Pass("W"), Pass("N"), Draw("S", "1m"), Discard("S", "1m"))
    refused(own, Claim("E", "win"), "振听: 自己打过所听的四万")
    s, notes = play(new_hand(flow, FakeWall(40)), Deal(hands(E=ready + "9s")), Discard("E", "9s"), Pass("S"),
                    Pass("W"), Pass("N"), Draw("S", "1m"), Discard("S", "1m"), Pass("E"))
    assert ("furiten", "E") in [(n["type"], n.get("seat")) for n in notes]
    s, _ = play(s, Pass("W"), Pass("N"), Draw("W", "4m"), Discard("W", "4m"))
    refused(s, Claim("E", "win"), "同巡振听")
    s, _ = play(s, Pass("E"), Pass("S"), Pass("N"), Draw("N", "7z"), Discard("N", "7z"), Pass("E"), Pass("S"),
                Pass("W"), Draw("E", "9s"), Discard("E", "9s"), Pass("S"), Pass("W"), Pass("N"), Draw("S", "4m"),
                Discard("S", "4m"))
    s, notes = play(s, Claim("E", "win"), Pass("W"), Pass("N"))  # it drew since: the ron stands
    assert [w["seat"] for w in wins(notes)] == ["E"]
    _, notes = play(new_hand(FlowRules.for_ruleset("mcr"), FakeWall(40)), Deal(hands(E=ready + "4m")),
                    Discard("E", "4m"), Pass("S"), Pass("W"), Pass("N"), Draw("S", "1m"), Discard("S", "1m"),
                    Claim("E", "win"), Pass("W"), Pass("N"))
    assert [w["seat"] for w in wins(notes)] == ["E"]  # 国标 has no 振听


def test_a_flower_drawn_as_the_last_tile_ends_the_hand_without_a_replacement() -> None:
    """The 海底 is a flower: it is laid down, nothing is left to replace it, and the hand is 荒牌
    (before: the hand waited for good for a replacement the wall could not give)."""
    s, _ = play(new_hand(FlowRules.for_ruleset("mcr"), FakeWall(1)), Deal(hands()), Discard("E", "1z"),
                Pass("S"), Pass("W"), Pass("N"), Draw("S", "3f"))
    s, notes = play(s, Flower("S", "3f"))
    assert s.phase == "ended" and s.result == "exhaustive"
    assert [n["type"] for n in notes] == ["flower", "exhaustive_draw"] and s.seats["S"].flowers == ["3f"]


def test_no_kong_when_no_replacement_tile_is_left() -> None:
    """After the 海底 no tile is left to replace a kong: a concealed or added kong, or a kong
    claimed on the last discard, is refused with the rule (before: accepted, then stuck)."""
    s, _ = play(new_hand(FlowRules.for_ruleset("mcr"), FakeWall(1)), Deal(hands(S="1111m55p", W="999p")),
                Discard("E", "1z"), Pass("S"), Pass("W"), Pass("N"), Draw("S", "2z"))
    for event in (Kong("S", "1m", "concealed"), Kong("S", "5p", "added")):
        with pytest.raises(IllegalAction) as err:
            apply(s, event)
        assert err.value.code == "no_replacement" and "不能开杠" in err.value.rule
    s, _ = play(s, Discard("S", "9p"))
    with pytest.raises(IllegalAction) as err:
        apply(s, Claim("W", "kong"))
    assert err.value.code == "no_replacement"
    s, _ = play(s, Claim("W", "pung"), CloseWindow())  # a pung needs no replacement: it stands
    assert s.turn == "W" and s.phase == "discard"
    # with a tile left, the same kong is allowed
    t, _ = play(new_hand(FlowRules.for_ruleset("mcr"), FakeWall(5)), Deal(hands(E="1111m")),
                Kong("E", "1m", "concealed"))
    assert t.phase == "replace"


def test_no_draw_past_the_last_tile() -> None:
    s, _ = play(new_hand(FlowRules.for_ruleset("mcr"), FakeWall(0)), Deal(hands()))
    s.phase, s.turn = "draw", "S"
    with pytest.raises(IllegalAction) as err:
        apply(s, Draw("S"))
    assert err.value.code == "wall_exhausted"


@pytest.mark.parametrize("ruleset,dice,seed", [("jipinghu", (2, 3), 1), ("sichuan", (6, 6), 2),
                                               ("jingji", (3, 4), 3), ("mcr", (5, 2), 4)])
def test_whole_hand_on_a_physical_wall(ruleset: str, dice: tuple[int, int], seed: int) -> None:
    """Every tile known, dealt from a shuffled wall through the rules engine's WallState: 补花,
    draws and replacements from the right ends, discards, until 荒牌; no tile lost or invented."""
    from table_controller.rules import physical_wall

    rs = load_ruleset(ruleset)
    plan = deal_plan(rs, dice=dice, dice2=dice if ruleset == "mcr" else None)
    wall = physical_wall(rs, rng=seed)
    dealt = {x: tuple(wall[p] for p in plan.hands[x]) for x in T.SEATS}
    s = new_hand(FlowRules.for_ruleset(ruleset), plan.initial_state())
    s, _ = play(s, Deal(dealt))

    def replace_flowers(s: HandState, seats: list[str]) -> HandState:
        while any(T.is_flower(t) for x in seats for t in s.seats[x].concealed):
            for x in seats:
                for t in [t for t in s.seats[x].concealed if T.is_flower(t)]:
                    s, _ = play(s, Flower(x, t))
                    s, _ = play(s, Replace(x, wall[s.wall.next_replacement]))
        return s

    s = replace_flowers(s, list(T.SEATS))
    if s.rules.missing_suit:
        s, _ = play(s, *(ChooseMissing(x, "m") for x in T.SEATS))
    while s.phase != "ended":
        if s.phase == "draw":
            s, _ = play(s, Draw(s.turn, wall[s.wall.next_draw]))
            s = replace_flowers(s, [s.turn])
        elif s.phase == "discard":
            hand = s.seats[s.turn].concealed
            missing = [t for t in hand if s.seats[s.turn].missing_suit and T.suit(t) == "m"]
            s, _ = play(s, Discard(s.turn, missing[0] if missing else hand[-1]))
        else:
            s, _ = play(s, CloseWindow())
    assert s.result == "exhaustive" and s.wall.exhausted
    on_table = sum(len(x.concealed) + len(x.discards) + len(x.flowers) for x in s.seats.values())
    assert on_table == rs.tiles - s.wall.remaining
    assert all(len(x.concealed) == 13 for x in s.seats.values())


def test_a_false_win_claim_is_void_and_the_pung_goes_ahead() -> None:
    s, notes = play(new_hand(FlowRules.for_ruleset("mcr"), FakeWall(40)),
                    Deal(hands(E="5p", S="123m456m789m11s57p", W="55p")),
                    Discard("E", "5p"), Claim("S", "win"), Claim("W", "pung"), Pass("N"))
    assert {"type": "false_win", "seat": "S", "tile": "5p", "rule": "诈和: 手牌不成和, 罚分后继续"} in notes
    assert not wins(notes) and s.turn == "W" and s.seats["W"].melds[0]["type"] == "pung"


def test_exhaustive_draw_settles_flower_pigs_and_not_ready_in_sichuan_seed000() -> None:
    from table_controller.hand import ready_json
    from table_controller.scoring import exhaustive_settlement

    rules = FlowRules.for_ruleset("sichuan")
    s, _ = play(new_hand(rules, FakeWall(1)),
                Deal(hands(E="234567m12p123s456s", S="1112345678999m", W="12345678m13579p", N="22334455p11s246s")),
                *(ChooseMissing(x, m) for x, m in zip(T.SEATS, "sssm")),
                Discard("E", "6s"), CloseWindow(), Draw("S", "9s"), Discard("S", "9s"), CloseWindow())
    assert s.result == "exhaustive"
    out = exhaustive_settlement("sichuan", {x: ready_json(s, x) for x in s.active()})
    assert out is not None and out["flower_pigs"] == ["E"] and "S" in out["ready"]
    assert sum(out["payments"].values()) == 0 and out["payments"]["E"] < 0
    # 定缺: a seat still holding the suit it named is 花猪 too, with two suits only
    s.seats["W"].missing_suit = "p"
    out = exhaustive_settlement("sichuan", {x: ready_json(s, x) for x in s.active()})
    assert out is not None and out["flower_pigs"] == ["E", "W"]
    assert exhaustive_settlement("mcr", {}) is None


def melded_single(rules: FlowRules) -> HandState:
    """S shows four sets claimed from others and holds 5p and 9s, to discard (竞技 全求独钓)."""
    s, _ = play(new_hand(rules, FakeWall(60)), Deal(hands()))
    st = s.seats["S"]
    st.melds = [{"type": "chi", "tiles": ["1m", "2m", "3m"], "from": "E", "claimed": "1m"},
                {"type": "pung", "tiles": ["9p"] * 3, "from": "W"}, {"type": "pung", "tiles": ["3s"] * 3, "from": "N"},
                {"type": "chi", "tiles": ["7m", "8m", "9m"], "from": "E", "claimed": "9m"}]
    st.concealed = ["5p", "9s"]
    s.turn, s.phase = "S", "discard"
    return s


def test_jingji_hung_tile_of_a_melded_single_wait_goes_to_the_scorer_seed004() -> None:
    # 三十四 2(2) "当一家形成全求独钓，挂牌于牌墙上 ... 点炮，均为包牌，一家支付三家分"
    s, notes = play(melded_single(FlowRules.for_ruleset("jingji")), Discard("S", "9s"), CloseWindow())
    assert s.hanging == {"S": "5p"}
    s, notes = play(s, Draw("W"), Discard("W", "5p"), Claim("S", "win"), Pass("N"), Pass("E"))
    hand = wins(notes)[0]["hand"]
    assert hand["options"]["hanging"] == "5p"
    out = score_json(hand, "jingji")
    assert out["baofu"] == {"seat": "W", "rule": "全求独钓包付"} and out["payments"]["W"] == -3 * out["total"]


def test_jingji_swapped_hung_tile_is_a_plain_discard_seed004() -> None:
    # "挂牌方换牌后，点炮方不再包牌，仅处理为点炮": S draws 6p and lets the hung 5p go
    s, _ = play(melded_single(FlowRules.for_ruleset("jingji")), Discard("S", "9s"), CloseWindow(),
                Draw("W"), Discard("W", "1z"), CloseWindow(), Draw("N"), Discard("N", "2z"), CloseWindow(),
                Draw("E"), Discard("E", "3z"), CloseWindow(), Draw("S", "6p"), Discard("S", "5p"), CloseWindow())
    assert s.hanging == {"S": "5p"} and s.seats["S"].concealed == ["6p"]
    s, notes = play(s, Draw("W"), Discard("W", "6p"), Claim("S", "win"), Pass("N"), Pass("E"))
    out = score_json(wins(notes)[0]["hand"], "jingji")
    assert "baofu" not in out and out["payments"]["W"] == -2 * out["total"]


def test_hung_tile_only_where_the_ruleset_has_the_rule() -> None:
    s, _ = play(melded_single(FlowRules.for_ruleset("mcr")), Discard("S", "9s"), CloseWindow())
    assert s.hanging == {}


def test_jingji_double_marks_wins_kongs_and_chase_seed004() -> None:
    # 三十 倍打 "全面翻倍计分": the hand knows it from the session (MatchState.double)
    from table_controller.scoring import kong_payment

    rules = FlowRules.for_ruleset("jingji")
    s, notes = play(new_hand(rules, FakeWall(60), double=True), Deal(hands(E="1111s")),
                    Kong("E", "1s", "concealed"))
    kong = next(n for n in notes if n["type"] == "kong")
    assert kong["double"] is True
    assert kong_payment("jingji", kong) == {"E": 36, "S": -12, "W": -12, "N": -12}
    s, notes = play(new_hand(rules, FakeWall(60), double=True), Deal(hands(E="123456789m99s11z1p")),
                    Discard("E", "1p"), CloseWindow(), Draw("S"), Discard("S", "1p"), CloseWindow(),
                    Draw("W"), Discard("W", "1p"), CloseWindow(), Draw("N"), Discard("N", "1p"), CloseWindow(),
                    Draw("E", "1z"), SelfDrawWin("E"))
    assert {"type": "chase", "first": "E", "tile": "1p", "double": True} in notes
    hand = wins(notes)[0]["hand"]
    assert hand["options"]["double"] is True
    out = score_json(hand, "jingji")
    assert out["double"] is True and out["payments"]["S"] == -2 * out["total"]


def test_a_claimed_kong_gives_one_kong_note_and_one_claim_note() -> None:
    """A claimed kong's notes were two typed `kong` (its payment and the claim, the second without
    `kind`): a scorer paying every `kong` note failed on it or paid the kong twice."""
    from table_controller.scoring import kong_payment

    s, _ = play(new_hand(FlowRules.for_ruleset("tuidaohu"), FakeWall(60)), Deal(hands(E="5p", N="5p5p5p")))
    s, notes = play(s, Discard("E", "5p"), Claim("N", "kong"), Pass("S"), Pass("W"))
    kongs = [n for n in notes if n["type"] == "kong"]
    assert [n["kind"] for n in kongs] == ["exposed"] and kongs[0]["discarder"] == "E"
    assert [(n["action"], n["seat"], n["from"]) for n in notes if n["type"] == "claim"] == [("kong", "N", "E")]
    assert all(kong_payment("tuidaohu", n, ("E", "S", "W", "N")) is not None for n in kongs)


@pytest.mark.parametrize("ruleset, checked", [("sichuan", ["E", "N"]), ("xueliu", ["E", "S", "W", "N"])])
def test_a_win_on_the_walls_last_tile_leaves_the_seats_still_playing_to_the_check_seed000(
        ruleset: str, checked: list[str]) -> None:
    """血战/血流 play on "摸完最后一张牌" (seed 000): the wall's end checks the seats still playing (查叫,
    查花猪, 退税) whoever won its last tile. Before, a 海底 won ended the hand as a win only: no check."""
    rules = FlowRules.for_ruleset(ruleset)
    s, _ = play(new_hand(rules, FakeWall(1)), Deal(hands(S="123m456m789m11p46p", W="123m456m789m11p78p")),
                *(ChooseMissing(x, "s") for x in T.SEATS), Discard("E", "5p"), Claim("S", "win"), Pass("W"), Pass("N"))
    s, notes = play(s, Draw("W", "9p"), SelfDrawWin("W"))  # 海底
    assert s.result == "win" and wins(notes)[0]["hand"]["last_tile"] is True
    assert notes[-1] == {"type": "exhaustive_draw", "ready_check": checked}


def test_a_win_on_the_last_discard_in_blood_battle_leaves_the_other_two_to_the_check() -> None:
    rules = FlowRules.for_ruleset("sichuan")
    s, _ = play(new_hand(rules, FakeWall(1)), Deal(hands(S="123m456m789m11p46p", N="123m456m789m11p78p")),
                *(ChooseMissing(x, "s") for x in T.SEATS), Discard("E", "5p"), Claim("S", "win"), Pass("W"), Pass("N"))
    s, notes = play(s, Draw("W", "9p"), Discard("W", "9p"), Claim("N", "win"), Pass("E"))
    assert s.result == "win" and notes[-1] == {"type": "exhaustive_draw", "ready_check": ["E", "W"]}


def test_the_third_blood_battle_winner_on_the_last_tile_leaves_nobody_to_check() -> None:
    rules = FlowRules.for_ruleset("sichuan")
    s, _ = play(new_hand(rules, FakeWall(1)),
                Deal(hands(S="123m456m789m11p46p", W="123m456m789m22p46p", N="123m456m789m33p78p")),
                *(ChooseMissing(x, "s") for x in T.SEATS),
                Discard("E", "5p"), Claim("S", "win"), Claim("W", "win"), Pass("N"))
    assert s.active() == ["E", "N"]
    s, notes = play(s, Draw("N", "9p"), SelfDrawWin("N"))
    assert s.result == "win" and s.active() == ["E"] and notes[-1]["type"] == "hand_over"
    assert not [n for n in notes if n["type"] == "exhaustive_draw"]

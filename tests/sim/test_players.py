"""The demo table's simulated players: they play legally, in turn, from the physical wall, to 荒牌."""

import random
from typing import Any
from collections import Counter

import pytest

from table_controller.rules import deal_plan, load_ruleset, open_hands, physical_wall
from tablesim.players import choose_discard, play_hand, usefulness

SEATS = "ESWN"


def _seeded(rs: Any, plan: Any, seed: int, *args: Any, **kwargs: Any) -> list:
    """Every action of one hand played from the wall and the players' choices of `seed`."""
    return list(play_hand(plan, physical_wall(rs, None, random.Random(seed)), random.Random(seed), *args, **kwargs))


def _started(plan: Any) -> list:
    """Hand 1 started (chair 1 dealing) and the table's dice of `plan` thrown: the record's wall is the plan's."""
    from table_controller.rules import next_thrower
    from table_controller.store import Event

    ruleset = plan.ruleset.id
    throws = (plan.dice,) + ((plan.dice2,) if plan.dice2 is not None else ())
    events = [Event(1, 0.0, "operator", "operator.hand_start", {"hand_no": 1, "ruleset": ruleset, "dealer_position": 1})]
    for k, dice in enumerate(throws):
        seat = "E" if k == 0 else next_thrower(load_ruleset(ruleset), throws[:k])
        events.append(Event(len(events) + 1, 0.0, "table", "table.dice", {"seat": seat, "wind": seat, "dice": list(dice)}))
    return events


def _recorded(plan: Any, plays: list) -> list:
    """The live table's log of these players' plays (`_started` from `plan`), each play checked by the record
    (`controller._play_problem`) before it is logged."""
    from table_controller.controller import _play_problem
    from table_controller.state import apply, fold
    from table_controller.store import Event

    events = _started(plan)
    state = fold(events)  # then one event at a time, as the live table folds (not the whole log again per play)
    for a in plays:
        type_, data = a.event()
        assert _play_problem(state.hand, type_, data) is None, (type_, data)
        events.append(Event(len(events) + 1, float(len(events)), "demo", type_, {**data, "by": "demo"}))
        state = apply(state, events[-1])
    return events


def _confirmed(events: list, read: dict) -> Any:
    """The state after the referee reads `read` as the win; raises as the referee refuses to confirm it."""
    from table_controller.referee import validate
    from table_controller.state import fold
    from table_controller.store import Event

    events = events + [Event(len(events) + 1, float(len(events)), "demo", "referee.win_read",
                             {"hand": {**read, "prevalent_wind": "E"}, "by": "demo"})]
    state = fold(events)
    validate(state, "referee.win_confirm", {})
    return state


@pytest.mark.parametrize("ruleset,dice,dice2", [("mcr", (3, 4), (2, 5)), ("jingji", (6, 6), None),
                                                ("sichuan", (1, 2), None), ("riichi", (5, 5), None)])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_hand_is_played_in_turn_from_the_wall_to_the_last_tile(ruleset: str, dice, dice2, seed: int) -> None:
    rs = load_ruleset(ruleset)
    plan = deal_plan(rs, dice, dice2)
    wall = physical_wall(rs, None, random.Random(seed))
    actions = list(play_hand(plan, wall, random.Random(seed)))
    kinds = [a.type for a in actions]
    assert kinds.count("deal_done") == 1
    deal_done = kinds.index("deal_done")
    assert all(a.type == "flower" for a in actions[:deal_done])
    discards = [a for a in actions if a.type == "discard"]
    claims = [a for a in actions if a.type == "claim"]
    # turn order: E first, then counter-clockwise; a pung takes the turn to the claimer
    assert discards[0].seat == "E"
    play = [a for a in actions[deal_done:] if a.type in ("discard", "claim")]
    for before, after in zip(play, play[1:]):
        if after.type == "claim":
            assert before.type == "discard" and after.frm == before.seat != after.seat and after.tile == before.tile
        elif before.type == "claim":
            assert after.seat == before.seat  # the claimer discards next, without drawing
        else:
            assert after.seat == SEATS[(SEATS.index(before.seat) + 1) % 4]
    # every face-up tile came out of the wall: no tile invented, none shown twice
    shown = Counter(a.tile for a in actions if a.tile)
    assert all(n <= Counter(wall.values())[k] for k, n in shown.items())
    assert all(rs.tile_spec.is_bonus(a.tile) for a in actions if a.type == "flower")
    # the wall ran out: the dealer's first discard, then one per live draw
    opening = open_hands(plan, wall)
    state = opening.state
    draws = 0
    while not state.exhausted:
        _, state = state.draw()
        draws += 1
    flowers_in_play = sum(1 for a in actions[deal_done:] if a.type == "flower")
    kongs = sum(1 for a in actions if a.type == "kong" or a.kind == "kong")
    # each flower drawn in play and each kong is replaced from the tail, which leaves the live wall
    # one tile shorter; a claimer (a pung, or a kong with its replacement) discards without drawing
    assert len(discards) == 1 + draws - flowers_in_play - kongs + len(claims)


def test_the_least_useful_tile_goes_first() -> None:
    hand = ["1m", "2m", "3m", "5p", "5p", "7z", "9s", "9s", "9s", "4s", "5s", "6s", "1z", "2z"]
    assert usefulness("7z", hand) == 0 and usefulness("5p", hand) == 3
    assert choose_discard(hand, random.Random(0)) in {"7z", "1z", "2z"}


def test_players_pung_a_discard_they_hold_a_pair_of_and_the_record_takes_it() -> None:
    """Over a few hands the players pung; each pung is legal for the controller's record."""
    from table_controller.state import apply, fold
    from table_controller.store import Event
    from table_controller.controller import _play_problem

    rs = load_ruleset("mcr")
    plan = deal_plan(rs, (3, 4), (2, 5))
    claims = 0
    for seed in range(6):
        wall = physical_wall(rs, None, random.Random(seed))
        events = _started(plan)
        state = fold(events)
        for a in play_hand(plan, wall, random.Random(seed)):
            type_, data = a.event()
            assert _play_problem(state.hand, type_, data) is None, (seed, type_, data)
            events.append(Event(len(events) + 1, float(len(events)), "demo", type_, data))
            state = apply(state, events[-1])
            claims += type_ == "play.claim"
        melds = fold(events).hand["melds"]
        assert all(m["type"] in ("pung", "kong") and len(set(m["tiles"])) == 1 for ms in melds.values() for m in ms)
    assert claims >= 3


@pytest.mark.parametrize("ruleset,dice2", [("mcr", (2, 5)), ("sichuan", None), ("tuidaohu", None), ("riichi", None)])
def test_players_kong_every_way_each_kong_replaced_and_the_record_takes_it(ruleset: str, dice2: Any) -> None:
    """Players make the three kongs (暗杠 four in hand, 补杠 the fourth to their pung, 明杠 three and
    the discard); each passes the live table's checks, leaves its four tiles in the record and takes
    a replacement from the tail, as the record counts it (its wall picture: tiles left, next draw)."""
    from table_controller.state import fold

    rs = load_ruleset(ruleset)
    plan = deal_plan(rs, (3, 4), dice2)
    seen: Counter[str] = Counter()
    for seed in range(12):
        wall = physical_wall(rs, None, random.Random(seed))
        actions = list(play_hand(plan, wall, random.Random(seed)))
        events = _recorded(plan, actions)
        hand = fold(events).hand
        kongs = [a for a in actions if a.type == "kong" or a.kind == "kong"]
        seen.update(a.kind for a in kongs)
        melds = [m for ms in hand["melds"].values() for m in ms if m["type"] == "kong"]
        assert len(melds) == len(kongs) and all(len(m["tiles"]) == 4 for m in melds)
        assert sum(m.get("concealed", False) for m in melds) == sum(a.kind == "concealed" for a in kongs)
        flowers = sum(len(f) for f in hand["flowers"].values())  # 补花 at the deal too
        # a 海底 that is a flower ends the hand unreplaced: no tile stands (walls.md 荒牌)
        unreplaced = 1 if actions[-1].type == "flower" and not plan.ruleset.reserve else 0
        assert "error" not in hand["wall_now"], hand["wall_now"]
        assert hand["wall_now"]["tail_drawn"] == len(kongs) + flowers - unreplaced  # one replacement each
        assert hand["tiles_left"] == 0  # played to 荒牌: the record's count of the wall agrees
    assert set(seen) == {"concealed", "added", "kong"}, seen


@pytest.mark.parametrize("ruleset,dice2", [("mcr", (2, 5)), ("jingji", None), ("nanning", None)])
def test_with_a_judge_a_player_declares_a_win_the_scorer_and_the_record_accept(ruleset: str, dice2) -> None:
    """The demo's players lay down a complete hand when the rules say it wins; the read they lay
    down holds the tiles they hold, and the referee's checks confirm it from the record."""
    from table_controller.demo import win_judge
    from table_controller.referee import flow_of, validate
    from table_controller.scoring import score_json
    from table_controller.state import fold
    from table_controller.store import Event

    rs = load_ruleset(ruleset)
    plan = deal_plan(rs, (3, 4), dice2)
    judge = win_judge(ruleset, "E")
    wins = 0
    for seed in range(8):
        actions = _seeded(rs, plan, seed, judge, seal=flow_of(ruleset).seal_pungs)
        assert all(a.type != "win" for a in actions[:-1])  # a win ends the hand
        if actions[-1].type != "win":
            continue
        wins += 1
        win = actions[-1]
        read = {**win.hand, "prevalent_wind": "E"}
        assert len(read["concealed"]) + 3 * len(read["melds"]) == 13 and read["win_tile"] == win.tile
        assert score_json(read, ruleset)["valid"]
        events = _started(plan)
        for a in actions[:-1]:
            type_, data = a.event()
            events.append(Event(len(events) + 1, float(len(events)), "demo", type_, data))
        events.append(Event(len(events) + 1, float(len(events)), "demo", "referee.win_read", {"hand": read, "by": "demo"}))
        validate(fold(events), "referee.win_confirm", {})  # raises if the referee's checks refuse it
    assert wins >= 2


def test_in_blood_battle_winners_leave_the_others_play_on_and_the_draw_is_checked() -> None:
    """四川血战: a winner plays no more; at 荒牌 the seats still playing show their hands; the
    record takes every play, each win and the 查叫 through the referee's checks."""
    from table_controller.demo import win_judge
    from table_controller.referee import validate
    from table_controller.state import fold
    from table_controller.store import Event

    rs = load_ruleset("sichuan")
    plan = deal_plan(rs, (3, 4), None)
    judge = win_judge("sichuan", "E")
    several = checked = 0
    for seed in range(10):
        actions = _seeded(rs, plan, seed, judge, "blood_battle")
        events = _started(plan)

        def add(type_: str, data: dict) -> None:
            events.append(Event(len(events) + 1, float(len(events)), "demo", type_, {**data, "by": "demo"}))

        out: list[str] = []
        for a in actions:
            if a.type == "win":
                add("referee.win_read", {"hand": {**a.hand, "prevalent_wind": "E"}})
                validate(fold(events), "referee.win_confirm", {})
                add("referee.win_confirm", {})
                out.append(a.seat)
            elif a.type == "reveal":
                assert sorted(a.hand) == sorted(w for w in SEATS if w not in out)
                add("operator.hand_end", {"hand_no": 1, "result": "draw"})
                hands = {w: {"concealed": h["concealed"]} for w, h in a.hand.items()}
                validate(fold(events), "referee.exhaustive", {"hands": hands})
                checked += 1
            else:
                assert a.seat not in out  # a winner has left
                add(*a.event())
        several += len(out) >= 2
        assert len(out) <= 3 and (actions[-1].type == "reveal" or len(out) == 3)
    assert several >= 2 and checked >= 5


def test_in_blood_river_winners_play_on_with_their_hands_and_may_win_again() -> None:
    """血流成河: a winner sets the tile won on aside and plays on with the hand that won (it
    discards what it draws unless that wins again, and claims nothing); only 荒牌 ends the hand,
    and then all four show their hands for 查叫. Every play, every win and the 查叫 pass the live
    table's checks in turn."""
    from table_controller.controller import _play_problem
    from table_controller.demo import win_judge
    from table_controller.referee import validate
    from table_controller.state import fold
    from table_controller.store import Event

    rs = load_ruleset("xueliu")
    plan = deal_plan(rs, (3, 4), None)
    judge = win_judge("xueliu", "E")
    again = won_hands = 0
    for seed in range(10):
        actions = _seeded(rs, plan, seed, judge, "blood_river")
        events = _started(plan)

        def add(type_: str, data: dict) -> None:
            events.append(Event(len(events) + 1, float(len(events)), "demo", type_, {**data, "by": "demo"}))

        wins: list[str] = []
        hand_as_won: dict[str, list[str]] = {}
        for a in actions:
            if a.type == "win":
                add("referee.win_read", {"hand": {**a.hand, "prevalent_wind": "E"}})
                validate(fold(events), "referee.win_confirm", {})
                add("referee.win_confirm", {})
                if a.seat in hand_as_won:  # it won again with the hand it won with
                    assert sorted(a.hand["concealed"]) == hand_as_won[a.seat]
                hand_as_won[a.seat] = sorted(a.hand["concealed"])
                wins.append(a.seat)
            elif a.type == "reveal":
                assert sorted(a.hand) == sorted(SEATS)  # nobody left
                for seat, kept in hand_as_won.items():
                    assert sorted(a.hand[seat]["concealed"]) == kept
                add("operator.hand_end", {"hand_no": 1, "result": "draw"})
                validate(fold(events), "referee.exhaustive",
                         {"hands": {w: {"concealed": h["concealed"]} for w, h in a.hand.items()}})
            else:
                type_, data = a.event()
                if type_.startswith("play."):
                    assert _play_problem(fold(events).hand, type_, data) is None, (seed, a)
                if a.type == "claim":
                    assert a.seat not in wins  # a winner claims nothing
                add(type_, data)
        assert actions[-1].type == "reveal"  # wins never end it
        won_hands += bool(wins)
        again += len(wins) > len(set(wins))
    assert won_hands >= 5 and again >= 1


def test_play_hand_refuses_an_unknown_flow() -> None:
    rs = load_ruleset("sichuan")
    with pytest.raises(ValueError, match="after_win"):
        _seeded(rs, deal_plan(rs, (3, 4), None), 0, None, "marathon")


@pytest.mark.parametrize("seed", [7, 37, 68, 73, 127, 155])
def test_nanning_players_feeding_three_pungs_are_sealed_and_the_record_agrees(seed: int) -> None:
    """南宁 封胡: a player who fed one seat three pungs declares no win; when the fed seat wins,
    its read (and the record) name the sealed seat, who alone pays. Every play and the win pass the
    live table's checks."""
    from table_controller.demo import win_judge
    from table_controller.state import fold

    rs = load_ruleset("nanning")
    plan = deal_plan(rs, (3, 4), None)
    actions = _seeded(rs, plan, seed, win_judge("nanning", "E"), "end", seal=3, kongs=False)  # seeds chosen so
    events = _recorded(plan, actions[:-1])
    sealed = fold(events).hand.get("sealed", [])
    assert sealed  # each of these seeds has a seat feed another three pungs
    win = actions[-1]
    assert win.type == "win" and win.seat not in [f for f, _ in sealed]  # a sealed seat does not win
    state = _confirmed(events, win.hand)
    payer = next((f for f, c in sealed if c == win.seat), None)
    assert state.actions[-1]["hand"].get("options", {}).get("sealed") == payer
    pays = {w: v for w, v in state.actions[-1]["result"]["payments"].items() if v}
    if payer is not None:  # 自摸: the sealed seat alone; on a discard: the discarder and it (旅游)
        assert set(pays) == {win.seat, payer} | ({win.frm} if win.frm else set())


@pytest.mark.parametrize("ruleset,dice,dice2", [("taiwan", (3, 4, 5), None), ("shiwan", (3, 4), None),
                                                ("nanjing", (3, 4), (2, 5)), ("shanghai", (3, 4), None)])
def test_where_the_referee_scores_the_demo_players_win_with_the_demo_referees_points(ruleset: str, dice, dice2) -> None:
    """裁判计分 (rulesets with walls but no scoring here): the players still lay down winning
    shapes of the ruleset's hand size and tiles (16 in 台湾, ranks to 10 in 十万, 中发白 as flowers
    in 南京); with the demo referee's points every play and the win pass the live table's checks."""
    from table_controller.demo import DEMO_POINTS, win_judge, with_referee_options

    rs = load_ruleset(ruleset)
    plan = deal_plan(rs, dice, dice2)
    size = min(rs.hand_sizes.values())
    wins = 0
    for seed in range(6):
        actions = _seeded(rs, plan, seed, win_judge(ruleset, "E"))
        events = _recorded(plan, actions[:-1])
        if actions[-1].type != "win":
            continue
        wins += 1
        win = actions[-1]
        assert len(win.hand["concealed"]) + 3 * len(win.hand["melds"]) == size
        state = _confirmed(events, with_referee_options(ruleset, win.hand))
        paid = sorted(-v for v in state.actions[-1]["result"]["payments"].values() if v < 0)
        assert paid == ([DEMO_POINTS] * 3 if win.hand["win"] == "self_draw" else [DEMO_POINTS])
    assert wins >= 2


def test_the_demo_referee_turns_up_the_horses_and_the_dora_indicators_from_the_wall() -> None:
    """推倒胡 买马: the horses are the tiles standing next in the tail as the hand ends (walls.md),
    taken from the simulated wall after the draws the record counted; riichi: the 宝牌 indicator
    and one more after a kong; nothing under MCR."""
    from table_controller.demo import turned_up

    rs = load_ruleset("tuidaohu")
    plan = deal_plan(rs, (3, 4), None)
    wall = physical_wall(rs, None, random.Random(5))
    hand = {"ruleset": "tuidaohu", "wall_now": {"live_drawn": 10, "tail_drawn": 2}}
    positions = plan.state_after(live_drawn=10, tail_drawn=2).hand_end_tiles()
    assert len(positions) == 4 and positions != plan.state_after(live_drawn=10, tail_drawn=0).hand_end_tiles()
    assert turned_up(hand, plan, wall) == {"horses": [wall[p] for p in positions]}
    assert turned_up({**hand, "ruleset": "mcr"}, plan, wall) == {}
    assert turned_up({**hand, "wall_now": {"live_drawn": 500, "tail_drawn": 0}}, plan, wall) == {}
    rs = load_ruleset("riichi")
    plan = deal_plan(rs, (3, 4), None)
    wall = physical_wall(rs, None, random.Random(5))
    dora = turned_up({"ruleset": "riichi", "wall_now": {"live_drawn": 10, "tail_drawn": 1}}, plan, wall)["dora"]
    first = plan.state_after(live_drawn=10, tail_drawn=0).indicator_positions()["dora"]
    assert len(dora) == 2 and dora[0] == wall[first[0]]  # one kong: a second indicator


def test_riichi_demo_players_win_with_a_yaku_and_the_record_scores_it() -> None:
    """Riichi is scored (the `mahjong` library): the demo's players declare 立直 when their
    concealed hand is ready, win only with a yaku and never ron in 振听 (立直振听 included); every
    declaration and play passes the live table's checks, each win the referee's, paid by the point
    tables."""
    from table_controller.demo import ready_waits, win_judge

    rs = load_ruleset("riichi")
    plan = deal_plan(rs, (3, 4), None)
    judge = win_judge("riichi", "E")
    wins = declared = 0
    for seed in range(12):
        actions = _seeded(rs, plan, seed, judge, furiten=ready_waits("riichi"), riichi=True)
        events = _recorded(plan, actions[:-1])
        declared += sum(a.type == "riichi" for a in actions)
        if actions[-1].type != "win":
            continue
        wins += 1
        read = actions[-1].hand
        state = _confirmed(events, read)
        result = state.actions[-1]["result"]
        assert result["han"] >= 1 and result["payments"][read["seat_wind"]] >= 1000
        if read["seat_wind"] in state.hand["riichi"]:  # 立直 from the record, as the player declared it
            assert state.actions[-1]["hand"]["options"]["riichi"] is True
    assert wins >= 2 and declared >= 2


def test_a_riichi_player_blind_to_furiten_is_refused_by_the_referee_one_aware_of_it_plays_on() -> None:
    """Seed 22: a player who does not keep out of 振听 rons on a wait it let pass, and the live
    table's referee refuses it; the demo's players, who keep out of it, play on to a valid win."""
    from table_controller.demo import ready_waits, win_judge
    from table_controller.referee import RefereeError

    rs = load_ruleset("riichi")
    plan = deal_plan(rs, (3, 4), None)
    blind = _seeded(rs, plan, 22, win_judge("riichi", "E"), kongs=False)  # the seed was chosen without kongs
    with pytest.raises(RefereeError, match="振听"):
        _confirmed(_recorded(plan, blind[:-1]), blind[-1].hand)
    aware = _seeded(rs, plan, 22, win_judge("riichi", "E"), furiten=ready_waits("riichi"), kongs=False)
    assert aware[-1].type == "win" and len(aware) > len(blind)
    _confirmed(_recorded(plan, aware[:-1]), aware[-1].hand)


@pytest.mark.parametrize("seed", [78, 113])
def test_a_player_who_wins_on_a_kongs_added_tile_robs_it_and_the_record_agrees(seed: int) -> None:
    """抢杠和: E adds the fourth tile to its pung (补杠) and another seat wins on it. The read names
    the konger as the one who pays; the live table's referee confirms it from the record (the kong
    taken back), and MCR scores the 抢杠和 fan."""
    from table_controller.demo import win_judge

    rs = load_ruleset("mcr")
    plan = deal_plan(rs, (3, 4), (2, 5))
    actions = _seeded(rs, plan, seed, win_judge("mcr", "E"))
    win, kong = actions[-1], actions[-2]
    assert win.type == "win" and win.hand["win"] == "rob_kong"
    assert kong.type == "kong" and kong.kind == "added" and win.tile == kong.tile
    assert win.hand["discarder"] == kong.seat != win.seat
    from table_controller.state import fold
    from table_controller.store import Event

    events = _recorded(plan, actions[:-1])
    assert [m["type"] for m in fold(events).hand["melds"][kong.seat] if m["tiles"][0] == kong.tile] == ["kong"]
    read = _confirmed(events, win.hand)
    assert "抢杠和" in [f["name"] for f in read.actions[-1]["result"]["fans"]]
    events += [Event(len(events) + 1, 0.0, "demo", "referee.win_read", {"hand": {**win.hand, "prevalent_wind": "E"}}),
               Event(len(events) + 2, 0.0, "demo", "referee.win_confirm", {})]
    hand = fold(events).hand
    assert hand["winners"] == [win.seat]
    # the robbed kong never stood: a pung again, its replacement never drawn
    assert [m["type"] for m in hand["melds"][kong.seat] if m["tiles"][0] == kong.tile] == ["pung"]
    assert hand["wall_now"]["tail_drawn"] == fold(events[:-3]).hand["wall_now"]["tail_drawn"]


@pytest.mark.parametrize("ruleset,dice2", [("mcr", (2, 5)), ("jingji", None), ("riichi", None)])
def test_players_chow_from_the_seat_before_them_where_the_ruleset_allows_and_the_record_takes_it(
        ruleset: str, dice2: Any) -> None:
    """With `chows` the discarder's 下家 chows a discard that makes a run with two tiles it holds
    (when nobody pungs it): each chow is a run holding the discard, from the seat before, and
    passes the live table's checks; the claimer discards next."""
    rs = load_ruleset(ruleset)
    plan = deal_plan(rs, (3, 4), dice2)
    chows = 0
    for seed in range(6):
        actions = _seeded(rs, plan, seed, chows=True)
        _recorded(plan, actions)  # every play checked
        for i, a in enumerate(actions):
            if a.type == "claim" and a.kind == "chow":
                chows += 1
                assert a.tile in a.run and a.frm == SEATS[(SEATS.index(a.seat) - 1) % 4]
                ranks = sorted(int(t[:-1]) for t in a.run)
                assert len({t[-1] for t in a.run}) == 1 and ranks == list(range(ranks[0], ranks[0] + 3))
                assert next(b for b in actions[i + 1:] if b.type != "flower").seat == a.seat
    assert chows >= 6
    # the demo passes the ruleset's flow: 四川 has no chow
    from table_controller.referee import flow_of

    assert flow_of("sichuan").chow is False and flow_of("mcr").chow is True


@pytest.mark.parametrize("seed", [2, 10, 36])
def test_a_flower_drawn_as_the_haidi_in_hainan_is_replaced_from_the_tiles_kept_back(seed: int) -> None:
    """海南 keeps 15 tiles back; a replacement is drawn while any tile stands (docs/rules.md), so a
    flower drawn as the 海底 is replaced from them and its seat plays on. The simulated players
    stopped at the flower (they looked at 荒牌, not at the tiles standing): these seeds' hands ended
    on it. The record takes every play."""
    rs = load_ruleset("hainan")
    plan = deal_plan(rs, (3, 4), None)
    actions = list(play_hand(plan, physical_wall(rs, None, random.Random(seed)), random.Random(seed)))
    last_flower = max(i for i, a in enumerate(actions) if a.type == "flower")
    assert last_flower < len(actions) - 1 and actions[last_flower + 1].seat == actions[last_flower].seat
    _recorded(plan, actions)


@pytest.mark.parametrize("ruleset,seeds", [("mcr", (9, 10, 38)), ("jingji", (18, 20)), ("guangdong", (14, 17))])
def test_players_lay_the_opening_flowers_in_the_order_the_hand_machine_takes(ruleset: str, seeds: tuple) -> None:
    """Walls where a replacement is again a flower while a later seat still holds one: the players
    lay them round by round (walls.md), and the hand machine, fed every tile known, takes each
    flower and its replacement (before: each seat's flowers together, E's second before S's first)."""
    from table_controller.hand import Deal, Discard, Flower, FlowRules, Replace, apply, new_hand

    rs = load_ruleset(ruleset)
    plan = deal_plan(rs, (3, 4), (2, 5)) if rs.throws == 2 else deal_plan(rs, (3, 4, 2)[:rs.dice_count])
    for seed in seeds:
        wall = physical_wall(rs, None, random.Random(seed))
        opening = open_hands(plan, wall)
        laid = [(a.seat, a.tile) for a in play_hand(plan, wall, random.Random(seed)) if a.type == "flower"]
        by_seat = [(s, f) for s in SEATS for f in opening.flowers[s]]
        assert laid[:len(by_seat)] != by_seat and sorted(laid[:len(by_seat)]) == sorted(by_seat), seed
        state, _ = apply(new_hand(FlowRules.for_ruleset(ruleset), plan.initial_state()), Deal(opening.dealt))
        replacements = iter(opening.replacements)
        for seat, flower in laid[:len(by_seat)]:
            state, _ = apply(state, Flower(seat, flower))
            who, _, kind = next(replacements)
            assert who == seat, seed
            state, _ = apply(state, Replace(seat, kind))
        state, _ = apply(state, Discard("E", opening.hands["E"][0]))
        assert state.phase == "claims" and sorted(state.seats["E"].concealed) == sorted(opening.hands["E"][1:])

"""定缺 (四川, 血流) keyed into the live record: each seat names the suit it gives up; the record
refuses a claim or kong of it, shows it publicly, and a win read or a 查叫 ruling carries it to
the scorer, so a hand still holding that suit does not win and is 花猪 at 荒牌."""

from __future__ import annotations

import random
from typing import Any

import pytest

from table_controller.controller import _play_problem
from table_controller.referee import RefereeError, record_options, validate
from table_controller.rules import deal_plan, load_ruleset, physical_wall
from table_controller.state import fold
from table_controller.store import Event
from table_controller.tiles import parse_tiles
from tablesim.players import play_hand

OPERATOR, REFEREE = "op-missing-1357", "ref-missing-2468"


def _events(ruleset: str = "sichuan") -> list[Event]:
    """A hand started, its dice thrown (7 counts to W, who throws again where the ruleset has two throws)."""
    throws = [{"seat": "E", "wind": "E", "dice": [3, 4]}, {"seat": "W", "wind": "W", "dice": [2, 5]}]
    start = {"hand_no": 1, "ruleset": ruleset, "dealer_position": 1}
    events = [Event(1, 0.0, "operator", "operator.hand_start", start)]
    events += [Event(2 + i, 1.0 + i, "table", "table.dice", d)
               for i, d in enumerate(throws[:load_ruleset(ruleset).throws])]
    return [*events, Event(len(events) + 1, 3.0, "demo", "play.deal_done", {})]


def _add(events: list[Event], type_: str, data: dict) -> None:
    hand = fold(events).hand
    problem = _play_problem(hand, type_, data) if type_.startswith("play.") else None
    assert problem is None, (type_, data, problem)
    events.append(Event(len(events) + 1, float(len(events)), "demo", type_, {**data, "by": "demo"}))


def test_a_seat_names_its_missing_suit_and_may_not_claim_it() -> None:
    events = _events()
    assert fold(events).hand["missing_suit"] is True and fold(events).hand["missing"] == {}
    _add(events, "play.missing", {"seat": "E", "suit": "m"})
    _add(events, "play.missing", {"seat": "E", "suit": "p"})  # a mis-key, corrected before E plays
    _add(events, "play.missing", {"seat": "S", "suit": "s"})
    state = fold(events)
    assert state.hand["missing"] == {"E": "p", "S": "s"}
    assert state.log[-1]["text"] == "南家定缺：条"
    assert state.hand["turn"]["seat"] == "E" and state.hand.get("live_drawn", 0) == 0  # said, not played
    assert "m, p or s" in _play_problem(state.hand, "play.missing", {"seat": "W", "suit": "z"})
    _add(events, "play.discard", {"seat": "E", "tile": "3s"})
    hand = fold(events).hand
    assert "不能吃碰杠" in _play_problem(hand, "play.claim", {"seat": "S", "kind": "pung", "from": "E",
                                                             "tiles": ["3s"] * 3})
    _add(events, "play.claim", {"seat": "W", "kind": "pung", "from": "E", "tiles": ["3s"] * 3})
    hand = fold(events).hand
    assert "不能吃碰杠" in _play_problem(hand, "play.kong", {"seat": "E", "tiles": ["7p"] * 4, "concealed": True})
    _add(events, "play.discard", {"seat": "W", "tile": "1m"})
    # E has played: its 定缺 holds for the hand (naming the same suit again is harmless)
    assert "不可更改" in _play_problem(fold(events).hand, "play.missing", {"seat": "E", "suit": "m"})
    assert _play_problem(fold(events).hand, "play.missing", {"seat": "E", "suit": "p"}) is None


def test_no_missing_suit_where_the_ruleset_has_none() -> None:
    events = _events("mcr")
    assert fold(events).hand["missing_suit"] is False
    assert "不定缺" in _play_problem(fold(events).hand, "play.missing", {"seat": "E", "suit": "m"})


def _win_after_missing(suit: str) -> list[Event]:
    events = _events()
    _add(events, "play.missing", {"seat": "S", "suit": suit})
    _add(events, "play.discard", {"seat": "E", "tile": "4p"})
    hand = {"seat_wind": "S", "prevalent_wind": "E", "concealed": parse_tiles("11123456788m 23p"), "win_tile": "4p",
            "win": "discard", "discarder": "E"}
    assert record_options(fold(events).hand, hand) == {"missing_suit": suit}
    events.append(Event(len(events) + 1, 9.0, "referee", "referee.win_read", {"hand": hand, "by": "r"}))
    return events


def test_a_win_read_carries_the_keyed_missing_suit_and_a_hand_holding_it_does_not_win() -> None:
    state = fold(_win_after_missing("s"))
    read = state.actions[-1]
    assert read["hand"]["options"]["missing_suit"] == "s" and read["result"]["valid"]
    validate(state, "referee.win_confirm", {})
    # had S given up 筒, 2p 3p 4p could not win
    state = fold(_win_after_missing("p"))
    result = state.actions[-1]["result"]
    assert not result["valid"] and result["reason"] == "missing_suit_held"
    with pytest.raises(RefereeError):
        validate(state, "referee.win_confirm", {})


def test_at_a_draw_a_hand_holding_its_missing_suit_is_a_flower_pig() -> None:
    """查叫: E is ready with 万 and 筒, which is a win shape, but E named 筒: 花猪 pays the others."""
    events = _events()
    _add(events, "play.missing", {"seat": "E", "suit": "p"})
    events.append(Event(len(events) + 1, 5.0, "operator", "operator.hand_end", {"hand_no": 1, "result": "draw"}))
    hands = {"E": {"concealed": parse_tiles("1123466678m 789p")}, "S": {"concealed": parse_tiles("1123466678m 789s")},
             "W": {"concealed": parse_tiles("13579m 2468s 135s 9s")}, "N": {"concealed": parse_tiles("11223344556s 78s")}}
    events.append(Event(len(events) + 1, 6.0, "referee", "referee.exhaustive", {"hands": hands, "by": "r"}))
    ruling = fold(events).actions[-1]
    assert not ruling.get("error"), ruling.get("error")
    assert ruling["flower_pigs"] == ["E"] and "E" not in ruling["ready"] and "S" in ruling["ready"]
    assert ruling["hands"]["E"]["options"] == {"missing_suit": "p"}
    assert ruling["by_wind"]["E"] < 0


@pytest.mark.parametrize("ruleset,after_win", [("sichuan", "blood_battle"), ("xueliu", "blood_river")])
def test_the_demo_players_name_a_missing_suit_and_play_it_out_through_the_records_checks(ruleset: str,
                                                                                         after_win: str) -> None:
    """Each seat names the suit it holds fewest of, after the deal and before the first discard; it
    never claims that suit, and every play, every win (carrying the 定缺) and the 查叫 pass the live
    table's checks."""
    from table_controller.demo import win_judge

    rs = load_ruleset(ruleset)
    plan = deal_plan(rs, (3, 4), None)
    judge = win_judge(ruleset, "E")
    wins = 0
    for seed in range(6):
        actions = list(play_hand(plan, physical_wall(rs, None, random.Random(seed)), random.Random(seed), judge,
                                 after_win, missing=True))
        kinds = [a.type for a in actions]
        named = [a for a in actions if a.type == "missing"]
        assert [a.seat for a in named] == list("ESWN") and kinds.index("missing") == kinds.index("deal_done") + 1
        assert kinds.index("discard") > max(i for i, k in enumerate(kinds) if k == "missing")
        gone = {a.seat: a.suit for a in named}
        start = {"hand_no": 1, "ruleset": ruleset, "dealer_position": 1}
        events = [Event(1, 0.0, "operator", "operator.hand_start", start),
                  Event(2, 0.5, "table", "table.dice", {"seat": "E", "wind": "E", "dice": [3, 4]})]  # the plan's break
        for a in actions:
            if a.type == "win":
                assert a.hand["options"] == {"missing_suit": gone[a.seat]}
                assert all(t[-1] != gone[a.seat] for t in a.hand["concealed"] + [a.tile])
                _add(events, "referee.win_read", {"hand": {**a.hand, "prevalent_wind": "E"}})
                validate(fold(events), "referee.win_confirm", {})
                _add(events, "referee.win_confirm", {})
                wins += 1
            elif a.type == "reveal":
                _add(events, "operator.hand_end", {"hand_no": 1, "result": "draw"})
                hands = {w: {"concealed": h["concealed"]} for w, h in a.hand.items()}
                validate(fold(events), "referee.exhaustive", {"hands": hands})
            else:
                if a.type == "claim":
                    assert a.tile[-1] != gone[a.seat]
                _add(events, *a.event())
        assert fold(events).hand["missing"] == gone
    assert wins >= 3


def test_the_operator_keys_missing_suits_over_http_and_the_public_sees_them(offline_client: Any) -> None:
    c = offline_client("xueliu", REFEREE, OPERATOR, dice=[3, 4])
    op = {"Authorization": f"Bearer {OPERATOR}"}
    with c:
        assert c.post("/api/play", json={"type": "missing", "seat": "E", "suit": "m"}).status_code in (401, 403)
        for bad in ({"type": "missing", "seat": "E"}, {"type": "missing", "seat": "E", "suit": "z"},
                    {"type": "missing", "suit": "m"}):
            r = c.post("/api/play", json=bad, headers=op)
            assert r.status_code == 422 and r.json()["detail"], bad
        assert c.post("/api/play", json={"type": "deal_done"}, headers=op).status_code == 200
        for seat, suit in zip("ESWN", "mpsm"):
            r = c.post("/api/play", json={"type": "missing", "seat": seat, "suit": suit}, headers=op)
            assert r.status_code == 200, r.text
        public = c.get("/api/state").json()
        assert public["hand"]["missing"] == {"E": "m", "S": "p", "W": "s", "N": "m"}
        assert c.post("/api/play", json={"type": "discard", "seat": "E", "tile": "5m"}, headers=op).status_code == 200
        seq = c.controller.state.seq  # type: ignore[attr-defined]
        r = c.post("/api/play", json={"type": "claim", "kind": "pung", "seat": "N", "from": "E", "tiles": ["5m"] * 3},
                   headers=op)
        assert r.status_code == 409 and "定缺万" in r.json()["detail"]
        assert c.controller.state.seq == seq  # type: ignore[attr-defined]  # refused: nothing logged
        r = c.post("/api/play", json={"type": "missing", "seat": "E", "suit": "p"}, headers=op)
        assert r.status_code == 409 and "不可更改" in r.json()["detail"]


@pytest.mark.parametrize("ruleset,allowed", [("sichuan", False), ("xueliu", False), ("nanning", False),
                                             ("tuidaohu", False), ("mcr", True), ("jingji", True)])
def test_a_chow_is_refused_on_the_live_table_where_the_ruleset_has_none(ruleset: str, allowed: bool) -> None:
    """四川, 血流, 南宁 and 推倒胡 do not chow ([flow] no_chow). The pure hand machine refused a chow
    there, but the live record took one keyed or seen by the camera (until the twelfth session),
    and the score sheet then held a hand the rules do not allow."""
    events = _events(ruleset)
    if fold(events).hand["missing_suit"]:
        for seat, suit in (("E", "p"), ("S", "p"), ("W", "p"), ("N", "p")):
            _add(events, "play.missing", {"seat": seat, "suit": suit})
    _add(events, "play.discard", {"seat": "E", "tile": "3m"})
    problem = _play_problem(fold(events).hand, "play.claim",
                            {"seat": "S", "kind": "chow", "from": "E", "tiles": ["2m", "3m", "4m"]})
    assert (problem is None) == allowed, problem
    if not allowed:
        assert "不可以吃" in problem and "no chow" in problem
    assert _play_problem(fold(events).hand, "play.claim",
                         {"seat": "S", "kind": "pung", "from": "E", "tiles": ["3m"] * 3}) is None


@pytest.mark.parametrize("ruleset, must", [("sichuan", 4), ("xueliu", 4), ("mcr", 0)])
def test_the_last_four_tiles_say_the_must_win_rule_holds(ruleset: str, must: int) -> None:
    """后4张必胡 (四川, 血流): a ready hand must win on the last 4 tiles. The table cannot see who is ready, so it
    cannot force it; the display said nothing when the rule began to hold (the wall's state knew). The state's
    `wall_now.must_win` says it from when 4 live tiles stand to the hand's end, in those rulesets only."""
    events = _events(ruleset)
    seen: list[tuple[int, int | None]] = []
    kinds = [f"{n}{s}" for s in "mps" for n in range(1, 10)] * 4
    i = 0
    while True:  # each seat in turn draws and discards to the 海底 and the discard after it
        events.append(Event(len(events) + 1, float(len(events)), "demo", "play.discard",
                            {"seat": fold(events).hand["turn"]["seat"], "tile": kinds[i], "by": "demo"}))
        i += 1
        hand = fold(events).hand
        seen.append((hand["tiles_left"], hand["wall_now"].get("must_win")))
        if hand["tiles_left"] == 0 and hand.get("pending_draw"):
            break
    assert [left for left, flag in seen if flag] == ([4, 3, 2, 1, 0] if must else [])
    assert all(flag in (None, must) for _, flag in seen)

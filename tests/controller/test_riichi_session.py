"""A riichi session (半荘) as a riichi table plays it: the East and South rounds, the dealer keeping the deal on a
win and on a ready 流局 (连庄, 本场), and the session over once the South round's last dealer does not keep it
(オーラス); the sticks still on the table to the first, the points held adding up to the four starts. Keyed on a
live controller with a real SQLite log, as an operator and a referee key them."""

from __future__ import annotations

from pathlib import Path
import re
from dataclasses import replace
from typing import Any, Callable, Iterator

import pytest

from offline import offline_controller  # type: ignore[import-not-found]

from table_controller.controller import ActionError, Controller
from table_controller.hand.match import MatchRules, next_hand, start
from table_controller.projection import public_view
from table_controller.rules.ruleset import ENV_DIR, PACKAGED
from table_controller.scoresheet import compute
from table_controller.tiles import parse_tiles

#: 查叫 hands: E ready on 1p/4p, the others not ready (no tile five times over the four)
READY = parse_tiles("123456789m1123p")
NOTEN = {"S": parse_tiles("2468s2468p1357m9m"), "W": parse_tiles("1357s1357p2468m5z"),
         "N": parse_tiles("9s9s5s6z6z7z7z1z2z3z4z5z6z")}


@pytest.fixture
def table(tmp_path: Path) -> Iterator[Controller]:
    c = offline_controller(tmp_path, "riichi", {"1": "甲", "2": "乙", "3": "丙", "4": "丁"})
    yield c
    c.store.close()


def _start(c: Controller) -> dict[str, Any]:
    """The next hand as `start_hand` records it (its places from `Controller._coming`, refused once the session
    is over), the dice thrown and the tiles dealt."""
    places = c._coming()
    hand_no = c.state.hands_played + 1
    c.accept("operator", "operator.hand_start", {
        "hand_no": hand_no, "by": "op", "ruleset": "riichi", "dealer_position": places.dealer_position,
        "prevalent_wind": places.prevalent, "seats": places.seats(),
        **({"honba": places.honba} if places.honba else {})})
    while c.state.hand["deal"] is None and c.state.hand["next_thrower"]:
        seat = c.state.hand["next_thrower"]
        c.accept("table", "table.dice", {"seat": seat, "wind": seat, "dice": [3, 4]})
    c.record_play("play.deal_done", {}, by="op")
    return c.state.hand


def _draw(c: Controller, dealer_ready: bool, riichi: str | None = None) -> None:
    """A hand to 荒牌 (S declaring 立直 first where told), the 查叫 ruled: E ready or nobody."""
    _start(c)
    c.record_play("play.discard", {"seat": "E", "tile": "9p"}, by="op")
    c.record_play("play.discard", {"seat": "S", "tile": "1z"}, by="op")
    if riichi:
        c.record_play("play.riichi", {"seat": riichi}, by="op")
    c.accept("operator", "operator.hand_end", {"hand_no": c.state.hand["hand_no"], "result": "draw"})
    hands = {"E": READY if dealer_ready else parse_tiles("1357m2468p1357s1z"), **NOTEN}
    c.referee_action("referee.exhaustive", {"hands": {w: {"concealed": t} for w, t in hands.items()}}, by="ref")


def _dealer_ron(c: Controller) -> dict[str, Any]:
    """The dealer (E) wins 断幺九 on S's 4s."""
    _start(c)
    c.record_play("play.discard", {"seat": "E", "tile": "9p"}, by="op")
    c.record_play("play.discard", {"seat": "S", "tile": "4s"}, by="op")
    c.referee_action("referee.win_read", {"hand": {"seat_wind": "E", "concealed": parse_tiles("22444m333567p44s"),
                                                   "win_tile": "4s", "win": "discard", "discarder": "S"}}, by="ref")
    result = c.state.actions[-1]["result"]
    c.referee_action("referee.win_confirm", {}, by="ref")
    c.accept("operator", "operator.hand_end", {"hand_no": c.state.hand["hand_no"], "result": "win"})
    return result


def _held(c: Controller) -> dict[str, int]:
    sheet = compute(c.state)
    return {p: sheet["start_points"] + v for p, v in sheet["totals"].items()}


def test_the_hand_machine_plays_a_hanchan_to_the_souths_last_dealer() -> None:
    m = start(MatchRules.for_ruleset("riichi"))
    for _ in range(7):  # 东1 .. 南3, each dealer not ready at 荒牌
        m, notes = next_hand(m, [])
        assert not m.over
    assert (m.prevalent, m.dealer_position) == ("S", 4)  # 南4局, オーラス
    m, notes = next_hand(m, ["E"])  # the last dealer wins: 连庄, the session goes on
    assert not m.over and m.honba == 8  # 7 draws, then the dealer's win
    m, notes = next_hand(m, [], ready=["E"])  # ready at 流局: it goes on
    assert not m.over and m.honba == 9
    m, notes = next_hand(m, ["S"])  # another seat wins: the deal would pass, the 半荘 is over
    assert m.over and notes[-1] == {"type": "session_over", "hands": 10}


def test_a_hanchan_ends_when_the_souths_last_dealer_does_not_keep_the_deal(table: Controller) -> None:
    c = table
    _draw(c, dealer_ready=True, riichi="S")  # 东1: E ready (+3000), S's stick on the table; E deals again
    assert (c.state.hands[-1]["prevalent_wind"], c.state.hands[-1]["dealer_position"]) == ("E", 1)
    assert _held(c) == {"1": 28000, "2": 23000, "3": 24000, "4": 24000}
    for _ in range(7):  # 东1 1本场 .. 南3: the dealers not ready, the deal passes each hand
        _draw(c, dealer_ready=False)
    assert c._coming().prevalent == "S" and c._coming().dealer_position == 4 and c._coming().honba == 8
    result = _dealer_ron(c)  # 南4 8本场: chair 4 wins 2000 + 8 × 300, and the 供托 on the table
    assert result["payments"]["E"] == 2000 + 2400
    assert compute(c.state)["rows"][-1]["riichi_taken"] == {"4": 1000}
    places = c._coming()  # 连庄 in the last hand: the session goes on
    assert (places.prevalent, places.dealer_position, places.honba) == ("S", 4, 9)
    _draw(c, dealer_ready=False, riichi="S")  # the last dealer not ready: no hand after this one
    with pytest.raises(ActionError, match="比赛结束"):
        c._coming()
    sheet = compute(c.state)
    assert sheet["final"] and sheet["riichi_pot"] == 0  # S's stick of the last hand went to the first
    assert sheet["rows"][-1]["riichi_leftover"] == 1000
    held = _held(c)
    assert sum(held.values()) == 4 * 25000, held
    assert max(held, key=held.__getitem__) == "4" and sheet["table_points"]["4"] == 4


@pytest.fixture
def venue(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[..., None]]:
    """The shipped riichi file with its `[match]` lines `key = value` replaced, in use from now (a venue's copy)."""
    def set_(**values: str) -> None:
        text = (PACKAGED / "riichi.toml").read_text(encoding="utf-8")
        for key, value in values.items():
            line = re.search(rf"^{key} = .*$", text, re.M)
            assert line, key
            text = text.replace(line.group(0), f"{key} = {value}")
        folder = tmp_path / f"rulesets-{len(folders)}"  # a folder of its own, as a process started on it reads it
        folders.append(folder)
        folder.mkdir()
        (folder / "riichi.toml").write_text(text, encoding="utf-8")
        monkeypatch.setenv(ENV_DIR, str(folder))
    folders: list[Path] = []
    yield set_


def _kokushi(c: Controller) -> None:
    """The dealer (E) wins 国士无双 on S's 中: 48000 from S."""
    _start(c)
    c.record_play("play.discard", {"seat": "E", "tile": "9p"}, by="op")
    c.record_play("play.discard", {"seat": "S", "tile": "7z"}, by="op")
    c.referee_action("referee.win_read", {"hand": {"seat_wind": "E", "concealed": parse_tiles("19m19p19s1123456z"),
                                                   "win_tile": "7z", "win": "discard", "discarder": "S"}}, by="ref")
    c.referee_action("referee.win_confirm", {}, by="ref")
    c.accept("operator", "operator.hand_end", {"hand_no": c.state.hand["hand_no"], "result": "win"})


def test_without_bust_a_player_below_zero_plays_on(table: Controller) -> None:
    _kokushi(table)
    assert _held(table)["2"] == -23000
    assert table._coming().dealer_position == 1 and not compute(table.state)["final"]


def test_with_bust_a_player_below_zero_ends_the_session(venue: Callable[..., None], tmp_path: Path) -> None:
    """飛び ([match] bust = true, 天凤): 乙 (chair 2) at 25000 − 48000 ends the 半荘 in its first hand, the dealer's
    连庄 with it; the next hand is refused naming who, the page says so, the sheet is final."""
    venue(bust="true")
    c = offline_controller(tmp_path, "riichi", {"1": "甲", "2": "乙", "3": "丙", "4": "丁"})
    try:
        _kokushi(c)
        with pytest.raises(ActionError, match=r"乙（-23000点）点数为负，被击飞，比赛结束"):
            c._coming()
        assert public_view(c.state)["next_hand"]["busted"] == {"2": -23000}
        sheet = compute(c.state)
        assert sheet["final"] and sheet["table_points"]["2"] == 0
    finally:
        c.store.close()


def test_bust_counts_the_sticks_and_the_noten_payments_and_zero_plays_on(venue: Callable[..., None],
                                                                          tmp_path: Path) -> None:
    """Each starting at 2000: 乙's 立直 (1000) and its 不听罚符 (1000) leave it 0, and the session goes on; one more
    不听 hand takes it below 0 and ends it."""
    venue(bust="true", start_points="2000")
    c = offline_controller(tmp_path, "riichi")
    try:
        _draw(c, dealer_ready=True, riichi="S")
        assert _held(c) == {"1": 5000, "2": 0, "3": 1000, "4": 1000}
        assert not c._coming().over
        _draw(c, dealer_ready=True)
        assert _held(c)["2"] == -1000
        with pytest.raises(ActionError, match=r"2号位（-1000点）点数为负，被击飞"):
            c._coming()
    finally:
        c.store.close()


def test_the_hand_machine_busts_below_zero_not_at_it() -> None:
    rules = replace(MatchRules.for_ruleset("riichi"), bust=True)
    assert rules.start_points == 25000
    m, notes = next_hand(start(rules), ["S"], {"E": -25000, "S": 25000})  # E at 0
    assert not m.over
    w = m.player_of("W")
    m, notes = next_hand(m, ["S"], {"W": -26000, "S": 26000})  # W at -1000
    assert m.over and {"type": "bust", "players": {w: -1000}} in notes


@pytest.mark.parametrize("stop, outcome, over", [
    ("none", "win", False), ("win", "win", True), ("win", "ready", False), ("win_or_ready", "ready", True),
])
def test_the_last_dealer_first_ends_the_session_where_the_ruleset_stops_it(stop: str, outcome: str,
                                                                           over: bool) -> None:
    """アガリ止め / テンパイ止め (`[match] last_dealer_stop`): 南4局's dealer (chair 4) keeps the deal holding first
    place alone; never in an earlier hand, nor when another player stays ahead."""
    rules = replace(MatchRules.for_ruleset("riichi"), last_dealer_stop=stop)
    m = start(rules)
    for _ in range(3):
        m, _ = next_hand(m, [])
    ahead = {"E": 12000, "S": -4000, "W": -4000, "N": -4000}  # 东4局: chair 4 deals and takes the lead
    kept, _ = next_hand(m, ["E"], ahead)
    assert not kept.over and kept.dealer_position == 4  # East round: plays on
    for _ in range(4):
        kept, _ = next_hand(kept, [])
    assert (kept.prevalent, kept.dealer_position) == ("S", 4)
    winners, ready = (["E"], []) if outcome == "win" else ([], ["E"])
    last, notes = next_hand(kept, winners, {"E": 1000, "S": -1000} if winners else None, ready=ready)
    assert last.over is over and any(n["type"] == "last_dealer_stop" for n in notes) is over
    behind, _ = next_hand(replace(kept, scores=(0, 0, 30000, 0)), winners, ready=ready)  # chair 3 ahead
    assert not behind.over

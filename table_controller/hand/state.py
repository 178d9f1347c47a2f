"""The hand as a pure state machine: `apply(state, event) -> (state, notes)`, never mutating its input.

Turn order, claim windows and their priority (和 > 杠/碰 > 吃; 截和 or 一炮多响), 抢杠, 漏和, 振听,
replacement draws through the wall, 海底, 荒牌, 定缺, and play after a win (血战到底, 血流成河).
An illegal event raises `IllegalAction` with the rule it breaks; the state is then unchanged.

The live table does not run this machine: it folds its own play record (`table_controller.state._apply_play`,
checked by `controller._play_problem`). This one is the tests' reference and plays
`tests/hand/test_random_hands.py`'s hands; a rule of play changed here is not changed there.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Literal

from table_controller import tiles as T
from table_controller.hand import opening as O
from table_controller.hand.errors import IllegalAction
from table_controller.hand.events import (
    Claim, ChooseMissing, CloseWindow, Correct, Deal, Discard, Draw, Event, Flower, Kong, Pass,
    Replace, SelfDrawWin,
)
from table_controller.hand.rules import FlowRules
from table_controller.hand.wall import Wall

Phase = Literal["deal", "choose_missing", "draw", "discard", "replace", "claims", "rob_kong", "ended"]
_PRIORITY = {"win": 3, "kong": 2, "pung": 2, "chi": 1}
#: In a seat's `locked` (过胡不胡, `[flow] missed_win_any`): it passed a win and may win on no discard until it moves.
ANY_TILE = "*"


@dataclass
class SeatState:
    """One seat's tiles: concealed (`back` where unseen), declared melds, flowers, discards."""

    concealed: list[str] = field(default_factory=list)
    melds: list[dict[str, Any]] = field(default_factory=list)
    flowers: list[str] = field(default_factory=list)
    discards: list[str] = field(default_factory=list)
    won: int = 0
    missing_suit: str | None = None
    locked: set[str] = field(default_factory=set)  # 漏和: tiles it may not win on until it moves
    river: list[str] = field(default_factory=list)  # every tile it discarded, claimed ones too (舍牌振听)

    def clone(self) -> SeatState:
        return SeatState(list(self.concealed), [dict(m) for m in self.melds], list(self.flowers),
                         list(self.discards), self.won, self.missing_suit, set(self.locked), list(self.river))

    @property
    def known(self) -> bool:
        return T.BACK not in self.concealed

    def take(self, tile: str, count: int = 1) -> None:
        """Remove tiles from the concealed hand (a `back` stands for any unseen tile)."""
        for _ in range(count):
            if tile in self.concealed:
                self.concealed.remove(tile)
            elif T.BACK in self.concealed:
                self.concealed.remove(T.BACK)
            else:
                raise IllegalAction("tile_not_held", f"手中没有{T.tile_name(tile)} ({tile})")

    def holds(self, tile: str) -> int:
        return self.concealed.count(tile) + (self.concealed.count(T.BACK) if T.BACK != tile else 0)


@dataclass
class HandState:
    """Everything about the hand in play. Build with `new_hand(rules, wall)`."""

    rules: FlowRules
    wall: Wall
    seats: dict[str, SeatState] = field(default_factory=lambda: {s: SeatState() for s in T.SEATS})
    phase: Phase = "deal"
    turn: str = "E"
    last_discard: tuple[str, str] | None = None     # (seat, tile)
    claims: dict[str, Claim] = field(default_factory=dict)
    passed: set[str] = field(default_factory=set)
    pending_kong: tuple[str, str] | None = None      # 补杠 open to 抢杠: (seat, tile)
    after: str = "draw"                              # what the last tile in hand came from
    drew_last: bool = False                          # the seat in turn drew the 海底
    winners: list[dict[str, Any]] = field(default_factory=list)
    result: str | None = None                        # "win" | "exhaustive" when ended
    prevalent: str = "E"                             # 圈风
    feeds: dict[str, tuple[str, int]] = field(default_factory=dict)  # claimer → (feeder, claims in a row)
    bao: set[tuple[str, str]] = field(default_factory=set)            # 包付 pairs (claimer, feeder)
    run: list[tuple[str, str]] = field(default_factory=list)          # discards since the last claim
    after_kong_discard: bool = False                                   # the open discard follows a kong
    replacing: str | None = None                                       # the seat owed a replacement draw
    double: bool = False                      # 竞技 倍打: the dealer kept the deal (`MatchState.double`)
    hanging: dict[str, str] = field(default_factory=dict)  # 全求独钓: seat → the tile it first hung
    fed: dict[tuple[str, str], int] = field(default_factory=dict)  # 封胡: (feeder, claimer) → pungs fed
    sealed: set[tuple[str, str]] = field(default_factory=set)      # 封胡 pairs (feeder, claimer)
    opening: O.OpeningFlowers | None = None   # the opening 补花 until the dealer's first discard or kong
    followed: int = 0                         # 跟庄: go-arounds so far in which all three followed the dealer

    def clone(self) -> HandState:
        return replace(self, seats={s: st.clone() for s, st in self.seats.items()}, claims=dict(self.claims),
                       passed=set(self.passed), winners=[dict(w) for w in self.winners],
                       feeds=dict(self.feeds), bao=set(self.bao), run=list(self.run),
                       hanging=dict(self.hanging), fed=dict(self.fed), sealed=set(self.sealed))

    def sealed_for(self, seat: str) -> str | None:
        """南宁 封胡: the seat `seat` fed `seal_pungs` pungs, barring `seat` from winning; None if not sealed."""
        return next((claimer for feeder, claimer in sorted(self.sealed) if feeder == seat), None)

    def active(self) -> list[str]:
        """Seats still playing (血战: those who have not won)."""
        if self.rules.continue_after_win == "blood_battle":
            return [s for s in T.SEATS if not self.seats[s].won]
        return list(T.SEATS)

    def visible(self) -> Counter[str]:
        """Tiles face up on the table: discards not claimed, every seat's exposed melds, flowers."""
        seen: Counter[str] = Counter()
        for st in self.seats.values():
            seen.update(st.discards)
            for m in st.melds:
                if not m.get("concealed"):
                    seen.update(m["tiles"])
        return seen

    def hand_json(self, seat: str, win_tile: str, win: str, discarder: str | None = None) -> dict[str, Any]:
        """The scoring input (docs/scoring.md) for `seat` winning on `win_tile`."""
        st = self.seats[seat]
        concealed = list(st.concealed)
        if win in ("self_draw", "kong_replacement", "flower_replacement") and win_tile in concealed:
            concealed.remove(win_tile)
        seen = self.visible()
        for m in st.melds:
            if not m.get("concealed"):
                seen.subtract(m["tiles"])
        seen[win_tile] -= 1 if win == "discard" else 0
        data: dict[str, Any] = {
            "seat_wind": seat, "prevalent_wind": self.prevalent, "concealed": concealed, "win_tile": win_tile,
            "win": win, "melds": [dict(m) for m in st.melds], "flowers": list(st.flowers),
            "last_tile": self.wall.exhausted, "active": self.active(),
            "visible": {k: v for k, v in seen.items() if v > 0 and T.is_tile(k) and not T.is_flower(k)},
        }
        options: dict[str, Any] = {}
        if discarder:
            data["discarder"] = discarder
            if win == "discard" and self.after_kong_discard:
                options["after_kong"] = True  # 杠上炮
        if st.missing_suit:
            options["missing_suit"] = st.missing_suit
        if self.double:
            options["double"] = True            # 倍打: every payment doubles
        if seat in self.hanging:
            options["hanging"] = self.hanging[seat]  # 全求独钓 包付: the tile first hung
        for feeder, claimer in sorted(self.sealed):
            if seat == claimer:
                options["sealed"] = feeder      # 封胡: the seat that fed the winner pays for it
        for claimer, feeder in sorted(self.bao):
            if seat == claimer:
                options["baofu"] = feeder       # the feeder pays for the fed seat's win
            elif seat == feeder:
                options["baofu"] = claimer      # 互相包牌: and the other way round
        if options:
            data["options"] = options
        return data


def ready_json(state: HandState, seat: str) -> dict[str, Any]:
    """A seat's 13 tiles as the waits input (docs/scoring.md, no `win_tile`): for 查大叫 at 荒牌."""
    st = state.seats[seat]
    data: dict[str, Any] = {"seat_wind": seat, "prevalent_wind": state.prevalent,
                            "concealed": list(st.concealed), "melds": [dict(m) for m in st.melds],
                            "win": "discard"}
    if st.missing_suit:
        data["options"] = {"missing_suit": st.missing_suit}
    return data


def new_hand(rules: FlowRules, wall: Wall, prevalent: str = "E", double: bool = False) -> HandState:
    """A hand before the deal; `wall` is the wall after the opening deal (`plan.initial_state()`).

    `double`: 竞技 倍打 (`MatchState.double`): the hand's wins, kongs and 追牌 notes carry it so
    that their payments double (seed 004 三十八 7 "整体全面按照双倍计算所有得失分").
    """
    return HandState(rules=rules, wall=wall, prevalent=prevalent, double=double)


def _need(cond: bool, code: str, rule: str) -> None:
    if not cond:
        raise IllegalAction(code, rule)


def _check_seat(seat: str) -> None:
    _need(seat in T.SEATS, "bad_seat", f"没有这个座位: {seat!r} (E S W N)")


def _check_tile(tile: str, allow_back: bool = False) -> None:
    _need(T.is_tile(tile) or (allow_back and tile == T.BACK), "bad_tile", f"不是牌: {tile!r}")


def _completes(state: HandState, seat: str, tile: str, win: str, discarder: str | None) -> bool:
    """The seat's known hand wins on `tile` (shape only); unknown tiles: assume it may."""
    st = state.seats[seat]
    if not st.known:
        return True
    from table_controller.scoring.errors import ScoringError
    from table_controller.scoring.hand import HandInput
    from table_controller.scoring.waits import completes

    try:
        hand = HandInput.from_json(state.hand_json(seat, tile, win, discarder))
    except ScoringError:
        return False
    return completes(hand, state.rules.ruleset)


def _fifth_copy(state: HandState, tile: str) -> None:
    """No kind shows more than four times between the table and the known hands."""
    if tile == T.BACK:
        return
    seen = state.visible()[tile] + sum(st.concealed.count(tile) for st in state.seats.values())
    _need(seen <= 4, "fifth_copy", f"{T.tile_name(tile)}已有四张: 不可能有第五张 (摄像头或记录有误)")


def _next_active(state: HandState, seat: str) -> str:
    active = state.active()
    for k in range(1, 5):
        cand = T.seat_after(seat, k)
        if cand in active:
            return cand
    return seat


def apply(state: HandState, event: Event) -> tuple[HandState, list[dict[str, Any]]]:
    """The hand after `event`, and notes for the display and the scorer (wins, 荒牌, kongs, 诈和)."""
    s = state.clone()
    notes: list[dict[str, Any]] = []
    _need(s.phase != "ended" or isinstance(event, Correct), "hand_over", "本盘已结束")
    handler = _HANDLERS.get(type(event))
    if handler is None:
        raise IllegalAction("bad_event", f"unknown event {event!r}")
    handler(s, event, notes)
    return s, notes


# ---- handlers (mutate the clone) --------------------------------------------------------------

def _deal(s: HandState, e: Deal, notes: list[dict[str, Any]]) -> None:
    _need(s.phase == "deal", "already_dealt", "已经起牌")
    _need(set(e.hands) == set(T.SEATS), "bad_deal", "起牌须有东南西北四家")
    for seat, tiles in e.hands.items():
        want = 14 if seat == "E" else 13
        _need(len(tiles) == want, "bad_deal", f"{seat} 起牌应为{want}张, 不是{len(tiles)}张")
        for t in tiles:
            _check_tile(t, allow_back=True)
        s.seats[seat].concealed = list(tiles)
    for t in T.all_kinds(flowers=True):
        _fifth_copy(s, t)
    s.opening = O.start(e.hands, s.rules.extra_flowers) if s.rules.flowers else None
    s.turn = "E"
    s.phase = "choose_missing" if s.rules.missing_suit else "discard"


def _choose_missing(s: HandState, e: ChooseMissing, notes: list[dict[str, Any]]) -> None:
    _need(s.phase == "choose_missing", "not_now", "现在不是定缺的时候")
    _check_seat(e.seat)
    _need(e.suit in T.SUITS, "bad_suit", f"定缺须为万(m)筒(p)条(s)之一, 不是{e.suit!r}")
    s.seats[e.seat].missing_suit = e.suit
    if all(st.missing_suit for st in s.seats.values()):
        s.phase = "discard"


def _draw(s: HandState, e: Draw, notes: list[dict[str, Any]]) -> None:
    _need(s.phase == "draw", "not_now", "现在不该摸牌")
    _need(e.seat == s.turn, "out_of_turn", f"轮到{T.seat_name(s.turn)}家摸牌, 不是{T.seat_name(e.seat)}家")
    _check_tile(e.tile, allow_back=True)
    s.drew_last = s.wall.is_last
    pos = _take_from_wall(s, replacement=False)
    st = s.seats[e.seat]
    st.concealed.append(e.tile)
    st.locked.clear()  # 漏和 lasts until the seat moves again
    _fifth_copy(s, e.tile)
    s.after = "draw"
    s.after_kong_discard = False
    s.phase = "discard"  # a drawn flower is laid down with a Flower event before the discard
    notes.append({"type": "draw", "seat": e.seat, "position": pos, "last_tile": s.drew_last})


def _take_from_wall(s: HandState, replacement: bool) -> str:
    """Advance the wall; its own refusal (荒牌, no tail tile left) becomes an IllegalAction."""
    from table_controller.rules.errors import RulesError

    _need(replacement or not s.wall.exhausted, "wall_exhausted", "荒牌: 牌墙已没有可摸的牌")
    try:
        pos, s.wall = s.wall.replace() if replacement else s.wall.draw()
    except RulesError as exc:
        raise IllegalAction(exc.code, str(exc)) from None
    return pos


def _can_replace(s: HandState) -> bool:
    """A replacement tile can still be drawn from the tail (none after the 海底 in a wall without a
    reserve; riichi's four 岭上牌 spent)."""
    from table_controller.rules.errors import RulesError

    try:
        s.wall.replace()
    except RulesError:
        return False
    return True


def _exhaustive(s: HandState, notes: list[dict[str, Any]]) -> None:
    """荒牌: the hand ends without a winner; the seats still playing are checked (查叫)."""
    s.phase, s.result = "ended", "exhaustive"
    notes.append({"type": "exhaustive_draw", "ready_check": s.active()})


def _need_replacement(s: HandState) -> None:
    _need(_can_replace(s), "no_replacement", "牌墙已无牌可补: 不能开杠")


def _replace(s: HandState, e: Replace, notes: list[dict[str, Any]]) -> None:
    _need(s.phase == "replace", "not_now", "现在不该补牌")
    who = s.replacing or s.turn
    _need(e.seat == who, "out_of_turn", f"应由{T.seat_name(who)}家补牌")
    _check_tile(e.tile, allow_back=True)
    s.drew_last = s.wall.is_last
    pos = _take_from_wall(s, replacement=True)
    s.seats[e.seat].concealed.append(e.tile)
    _fifth_copy(s, e.tile)
    if s.opening is not None:
        s.opening = O.drew(s.opening, e.seat, e.tile)
    s.replacing = None
    s.phase = "discard"
    notes.append({"type": "replace", "seat": e.seat, "position": pos})


def _opening(s: HandState) -> bool:
    """Before the dealer's first discard: every seat lays down its dealt flowers (dealer first)."""
    return s.phase == "discard" and not any(st.discards or st.melds for st in s.seats.values())


def _flower(s: HandState, e: Flower, notes: list[dict[str, Any]]) -> None:
    _need(s.rules.flowers, "no_flowers", f"{s.rules.ruleset} 不用花牌")
    _check_seat(e.seat)
    _need(T.is_tile(e.tile) and s.rules.is_bonus(e.tile), "bad_tile", f"{e.tile} 不是花牌")
    opening = _opening(s) and s.turn == "E"
    _need(s.phase == "discard" and (e.seat == s.turn or opening), "not_now", "补花须在自己出牌前 (起牌后各家依次补花)")
    s.seats[e.seat].take(e.tile)
    if opening and s.opening is not None:
        s.opening = O.lay(s.opening, e.seat, e.tile)
    s.seats[e.seat].flowers.append(e.tile)
    if e.seat == s.turn:
        s.after = "flower"
    notes.append({"type": "flower", "seat": e.seat, "tile": e.tile})
    if not _can_replace(s):  # the 海底 was a flower: nothing left to replace it with, 荒牌
        _exhaustive(s, notes)
        return
    s.replacing = e.seat
    s.phase = "replace"


def _end_opening(s: HandState) -> None:
    """The dealer's first discard or kong ends the opening: every flower known dealt or replaced
    must be laid first (walls.md: 补花 before play)."""
    if s.opening is None:
        return
    left = O.pending(s.opening)
    if left:
        seat, tile = left[0]
        raise IllegalAction("opening_flowers", f"起牌补花未完: {T.seat_name(seat)}家还有{T.tile_name(tile)}未补")
    s.opening = None


def _discard(s: HandState, e: Discard, notes: list[dict[str, Any]]) -> None:
    _need(s.phase == "discard", "not_now", "现在不该出牌")
    _need(e.seat == s.turn, "out_of_turn", f"轮到{T.seat_name(s.turn)}家出牌, 不是{T.seat_name(e.seat)}家")
    _check_tile(e.tile)
    _need(not (T.is_flower(e.tile) or s.rules.is_bonus(e.tile)), "flower_discard", "花牌不能打出, 须补花")
    _end_opening(s)
    st = s.seats[e.seat]
    if st.missing_suit and T.suit(e.tile) != st.missing_suit:  # a known tile of the 缺门 goes first
        _need(not any(t != T.BACK and T.is_suited(t) and T.suit(t) == st.missing_suit for t in st.concealed),
              "missing_suit_first", f"定缺{st.missing_suit}: 须先打完缺门的牌")
    st.take(e.tile)
    st.discards.append(e.tile)
    st.river.append(e.tile)
    _fifth_copy(s, e.tile)
    _hang(s, e.seat)
    s.last_discard = (e.seat, e.tile)
    s.after_kong_discard = s.after == "kong"
    s.claims, s.passed = {}, set()
    s.phase = "claims"
    notes.append({"type": "discard", "seat": e.seat, "tile": e.tile})
    s.run.append((e.seat, e.tile))
    last4 = s.run[-4:]
    if (s.rules.chase and len(last4) == 4 and len({t for _, t in last4}) == 1
            and len({x for x, _ in last4}) == 4):
        notes.append(_doubled(s, {"type": "chase", "first": last4[0][0], "tile": e.tile}))  # 追牌现场汇
        s.run.clear()
    elif _followed(s, last4):
        s.followed += 1
        notes.append({"type": "follow", "first": "E", "tile": e.tile})  # 跟庄: the dealer pays each
    if not _eligible(s):
        _resolve(s, notes)


def _followed(s: HandState, last4: list[tuple[str, str]]) -> bool:
    """跟庄 (`[flow] follow_dealer`): S, W and N each discard the tile the dealer just discarded, nobody having
    called or konged this hand, in the first go-around or, where the ruleset repeats it, in each following one
    as long as every go-around before was followed too."""
    return (s.rules.follow_dealer > 0 and [x for x, _ in last4] == list(T.SEATS) and len({t for _, t in last4}) == 1
            and not any(st.melds for st in s.seats.values())
            and len(s.seats["E"].discards) == s.followed + 1 <= s.rules.follow_dealer)


def _doubled(s: HandState, note: dict[str, Any]) -> dict[str, Any]:
    """A payment note (kong, 追牌, 诈和) marked `double` under 倍打, for `scoring.kong_payment` & co."""
    if s.double:
        note["double"] = True
    return note


def _hang(s: HandState, seat: str) -> None:
    """全求独钓 (竞技 包付 2(2)): the first time a seat's discard leaves it one tile beside four
    claimed sets, that tile is the one it hangs ("挂牌"); a later swap keeps the first."""
    st = s.seats[seat]
    if (s.rules.baofu_hanging and seat not in s.hanging and len(st.concealed) == 1 and st.concealed[0] != T.BACK
            and len(st.melds) == 4 and all(not m.get("concealed") for m in st.melds)):
        s.hanging[seat] = st.concealed[0]


def _window(s: HandState) -> tuple[str, str]:
    """(seat, tile) the open window is about: the 补杠 open to 抢杠, else the last discard."""
    if s.phase == "rob_kong" and s.pending_kong is not None:
        return s.pending_kong
    if s.last_discard is None:
        raise IllegalAction("window_closed", "没有可以叫的牌")
    return s.last_discard


def _eligible(s: HandState) -> list[str]:
    """Seats that may still answer the open window."""
    owner, _ = _window(s)
    seats = [x for x in s.active() if x != owner]
    if s.rules.continue_after_win == "blood_battle":
        seats = [x for x in seats if not s.seats[x].won]
    return [x for x in seats if x not in s.claims and x not in s.passed]


def _claim(s: HandState, e: Claim, notes: list[dict[str, Any]]) -> None:
    _check_seat(e.seat)
    _need(s.phase in ("claims", "rob_kong"), "window_closed", "没有可以叫的牌: 叫牌须在出牌后、下家摸牌前")
    _need(e.seat in _eligible(s), "cannot_claim", f"{T.seat_name(e.seat)}家不能再叫这张牌")
    if s.phase == "rob_kong":
        _need(e.action == "win", "rob_only_win", "补杠时只能抢杠和")
    owner, tile = _window(s)
    st = s.seats[e.seat]
    if e.action != "win":
        _need_not_missing(st, tile)
    if e.action == "chi":
        _need(s.rules.chow, "no_chow", f"{s.rules.ruleset} 不可以吃")
        _need(e.seat == T.seat_after(owner), "chi_not_from_previous", "吃只能吃上家打出的牌")
        tiles = T.sort_tiles(e.tiles)
        ok = (len(tiles) == 3 and tile in tiles and all(T.is_suited(t) for t in tiles)
              and len({T.suit(t) for t in tiles}) == 1
              and [T.rank(t) for t in tiles] == list(range(T.rank(tiles[0]), T.rank(tiles[0]) + 3)))
        _need(ok, "bad_chow", f"吃须为含{tile}的同门顺子")
        rest = list(tiles)
        rest.remove(tile)
        for t in rest:
            _need(st.holds(t) >= 1, "tile_not_held", f"手中没有{T.tile_name(t)}")
    elif e.action in ("pung", "kong"):
        need = 2 if e.action == "pung" else 3
        _need(st.holds(tile) >= need, "tile_not_held", f"{e.action}须手中有{need}张{T.tile_name(tile)}")
        if e.action == "kong":
            _need_replacement(s)
    elif e.action == "win":
        _need_unsealed(s, e.seat)
        _need(tile not in st.locked, "missed_win", f"漏和: 放过了{T.tile_name(tile)}, 在自己摸牌前不能再和这张")
        refusal = furiten(s, e.seat, owner)
        _need(refusal is None, "furiten", refusal or "")
        _need(ANY_TILE not in st.locked, "missed_win", "过胡不胡: 放过了和牌, 在自己摸牌前不能点和")
    s.claims[e.seat] = e
    if not _eligible(s):
        _resolve(s, notes)


def furiten(s: HandState, seat: str, owner: str) -> str | None:
    """振听 (`[flow] furiten`, riichi), as the live record refuses a 荣和 or 抢杠 (`referee.furiten`): a kind that
    completes the seat's hand lies among its own discards, claimed ones too (舍牌振听), or it let a winning discard
    pass since it last moved (同巡振听, the lock `_pass` sets). Why, or None. Before, the machine had no 振听 and
    paid a riichi ron the live record refuses."""
    st = s.seats[seat]
    if not s.rules.furiten:
        return None
    if ANY_TILE in st.locked:
        return "同巡振听: 放过了所听的牌, 在自己摸牌前不能荣和"
    if not st.known:
        return None
    own = [k for k in T.sort_tiles(list(set(st.river))) if _completes(s, seat, k, "discard", owner)]
    if own:
        return f"振听: 自己打过所听的{'、'.join(T.tile_name(k) for k in own)}, 不能荣和"
    return None


def _pass(s: HandState, e: Pass, notes: list[dict[str, Any]]) -> None:
    _check_seat(e.seat)
    _need(s.phase in ("claims", "rob_kong"), "window_closed", "没有可以放过的牌")
    _need(e.seat in _eligible(s), "cannot_claim", f"{T.seat_name(e.seat)}家已经表态")
    _let_go(s, e.seat, notes, refuse=True)
    s.passed.add(e.seat)
    if not _eligible(s):
        _resolve(s, notes)


def _let_go(s: HandState, seat: str, notes: list[dict[str, Any]], refuse: bool) -> None:
    """`seat` lets the open window go without a claim: where it could have won, 漏和 and 同巡振听 lock it until it
    moves (a window closed on it, `CloseWindow`, too: the live record counts any discard let go by, and the
    machine locked a seat only on its own `Pass`, then paid it the win on that tile the record refuses as 漏和);
    `refuse`: 后N张必胡 refuses the pass."""
    owner, tile = _window(s)
    win = "rob_kong" if s.phase == "rob_kong" else "discard"
    locked = s.seats[seat].locked
    may = (not s.sealed_for(seat) and tile not in locked and ANY_TILE not in locked  # 漏和 and 封胡 forbid the win
           and furiten(s, seat, owner) is None)                                   # and 振听
    could = s.seats[seat].known and may and _completes(s, seat, tile, win, owner)
    if refuse and could and s.rules.must_win_last and s.wall.in_last_zone:
        raise IllegalAction("must_win", f"后{s.rules.must_win_last}张必胡: 听牌的牌出现时必须和")
    if could and s.rules.missed_win:
        locked.add(ANY_TILE if s.rules.missed_win_any else tile)
        notes.append({"type": "missed_win", "seat": seat, "tile": tile})
    if could and s.rules.furiten and win == "discard":  # 同巡振听: no ron on any tile until it moves
        locked.add(ANY_TILE)
        notes.append({"type": "furiten", "seat": seat, "tile": tile})


def _close(s: HandState, e: CloseWindow, notes: list[dict[str, Any]]) -> None:
    _need(s.phase in ("claims", "rob_kong"), "window_closed", "没有打开的叫牌窗口")
    for seat in _eligible(s):
        _let_go(s, seat, notes, refuse=False)
    s.passed.update(_eligible(s))
    _resolve(s, notes)


def _resolve(s: HandState, notes: list[dict[str, Any]]) -> None:
    """Close the window: 和 > 杠/碰 > 吃; wins by seat order from the discarder (截和 or 一炮多响)."""
    robbing = s.phase == "rob_kong"
    owner, tile = _window(s)
    order = [T.seat_after(owner, k) for k in (1, 2, 3)]
    how = "rob_kong" if robbing else "discard"
    wins = []
    for x in order:
        if x in s.claims and s.claims[x].action == "win":
            if _completes(s, x, tile, how, owner):
                wins.append(x)
            else:  # 诈和: the declared hand does not win; the claim is void, play goes on
                del s.claims[x]
                notes.append(_doubled(s, {"type": "false_win", "seat": x, "tile": tile,
                                          "rule": "诈和: 手牌不成和, 罚分后继续"}))
    if wins:
        if not s.rules.multiple_winners:
            wins = wins[:1]
        _win_on_discard(s, owner, tile, wins, how, notes)
        return
    if robbing:  # nobody robbed: the kong stands, the konger draws its replacement
        seat = owner
        s.pending_kong = None
        st = s.seats[seat]
        st.take(tile)
        pung = next(m for m in st.melds if m["type"] == "pung" and m["tiles"][0] == tile)
        pung["type"], pung["tiles"] = "kong", [tile] * 4
        s.turn, s.after, s.phase = seat, "kong", "replace"
        notes.append(_doubled(s, {"type": "kong", "seat": seat, "kind": "added", "tile": tile}))
        return
    best = max(s.claims.values(), key=lambda c: _PRIORITY[c.action], default=None)
    if best is None:
        if s.wall.exhausted:
            _exhaustive(s, notes)
            return
        s.turn, s.phase = _next_active(s, owner), "draw"
        return
    st = s.seats[best.seat]
    s.seats[owner].discards.pop()
    if best.action == "chi":
        rest = list(T.sort_tiles(best.tiles))
        rest.remove(tile)
        for t in rest:
            st.take(t)
        st.melds.append({"type": "chi", "tiles": T.sort_tiles(best.tiles), "from": owner, "claimed": tile})
        s.after, s.phase = "claim", "discard"
    elif best.action == "pung":
        st.take(tile, 2)
        st.melds.append({"type": "pung", "tiles": [tile] * 3, "from": owner})
        s.after, s.phase = "claim", "discard"
    else:
        st.take(tile, 3)
        st.melds.append({"type": "kong", "tiles": [tile] * 4, "from": owner})
        s.after, s.phase = "kong", "replace"
        notes.append(_doubled(s, {"type": "kong", "seat": best.seat, "kind": "exposed", "tile": tile,
                                  "discarder": owner}))
    st.locked.clear()
    s.turn = best.seat
    s.run.clear()
    # one note per claim, typed "claim": a claimed kong's payment note above is the only `kong` note
    # (typed "kong" too, a scorer counting `kong` notes paid a claimed kong twice or failed on its `kind`)
    notes.append({"type": "claim", "action": best.action, "seat": best.seat, "tile": tile, "from": owner})
    if s.rules.seal_pungs and best.action in ("pung", "kong"):
        fed = s.fed[(owner, best.seat)] = s.fed.get((owner, best.seat), 0) + 1
        if fed == s.rules.seal_pungs:
            s.sealed.add((owner, best.seat))
            notes.append({"type": "sealed", "seat": owner, "claimer": best.seat})
    if s.rules.baofu_claims:
        feeder, n = s.feeds.get(best.seat, (owner, 0))
        n = n + 1 if feeder == owner else 1
        s.feeds[best.seat] = (owner, n)
        if n >= s.rules.baofu_claims and (best.seat, owner) not in s.bao:
            s.bao.add((best.seat, owner))
            notes.append({"type": "baofu", "claimer": best.seat, "feeder": owner})


def _win_on_discard(s: HandState, owner: str, tile: str, wins: list[str], how: str,
                    notes: list[dict[str, Any]]) -> None:
    for seat in wins:
        hand = s.hand_json(seat, tile, how, owner)
        if len(wins) > 1:  # 一炮多响: 买马 counts from the discarder (seed 001)
            hand.setdefault("options", {})["horse_origin"] = owner
        s.winners.append({"seat": seat, "win": how, "tile": tile, "discarder": owner, "hand": hand})
        s.seats[seat].won += 1
        notes.append({"type": "win", "seat": seat, "win": how, "tile": tile, "discarder": owner, "hand": hand})
    if how == "discard":
        s.seats[owner].discards.pop()
    if how == "rob_kong":  # the robbed tile leaves the konger's hand; its pung stays a pung
        s.seats[owner].take(tile)
        s.pending_kong = None
    _after_win(s, wins[-1], notes)


def _after_win(s: HandState, last_winner: str, notes: list[dict[str, Any]]) -> None:
    """End the hand, or play on: 血战 without the winners, 血流 with everyone.

    A win on the wall's last tile (海底, or the last discard) where play goes on after a win ends the
    hand at the wall's end: the seats still playing (血战: two or more that have not won; 血流: all four)
    are checked as at 荒牌 (查叫, 查花猪, 退税: an `exhaustive_draw` note beside `hand_over`). Before, such
    a hand ended as a win only and they escaped the check (seed 000: 血战 goes on "摸完最后一张牌")."""
    mode = s.rules.continue_after_win
    if mode == "end" or len(s.active()) <= 1 or s.wall.exhausted:
        s.phase, s.result = "ended", "win"
        notes.append({"type": "hand_over", "winners": [w["seat"] for w in s.winners]})
        if mode != "end" and len(s.active()) > 1:  # the wall ran out with seats still playing
            notes.append({"type": "exhaustive_draw", "ready_check": s.active()})
        return
    s.turn, s.phase = _next_active(s, last_winner), "draw"


def _kong(s: HandState, e: Kong, notes: list[dict[str, Any]]) -> None:
    _need(s.phase == "discard" and e.seat == s.turn, "not_now", "开杠须在自己摸牌后、出牌前")
    _need(not just_chowed(s, e.seat), "kong_after_chow", "吃牌后不能开杠: 只能在下一次自己抓进牌后才能开杠")
    _check_tile(e.tile)
    _need(not s.rules.is_bonus(e.tile), "flower_kong", f"{T.tile_name(e.tile)}是花牌: 补花, 不开杠")
    _need_replacement(s)
    _end_opening(s)
    st = s.seats[e.seat]
    _need_not_missing(st, e.tile)
    if e.kind == "concealed":
        _need(st.holds(e.tile) >= 4, "tile_not_held", f"暗杠须手中有四张{T.tile_name(e.tile)}")
        st.take(e.tile, 4)
        st.melds.append({"type": "kong", "tiles": [e.tile] * 4, "concealed": True})
        s.after, s.phase = "kong", "replace"
        notes.append(_doubled(s, {"type": "kong", "seat": e.seat, "kind": "concealed", "tile": e.tile}))
        return
    pung = next((m for m in st.melds if m["type"] == "pung" and m["tiles"][0] == e.tile), None)
    _need(pung is not None, "no_pung", f"补杠须已碰出{T.tile_name(e.tile)}")
    _need(st.holds(e.tile) >= 1, "tile_not_held", f"手中没有第四张{T.tile_name(e.tile)}")
    # the fourth tile stays in hand while the others may rob it (抢杠)
    s.pending_kong = (e.seat, e.tile)
    s.claims, s.passed = {}, set()
    s.phase = "rob_kong"
    if not _eligible(s):
        _resolve(s, notes)


def just_chowed(s: HandState, seat: str) -> bool:
    """The seat in turn chowed and has drawn nothing since, where the ruleset allows it no kong then (国标, seed 000
    范文五/六 七、开杠 "吃牌时，手中有杠牌，不能开杠。只能在下一次自己抓进牌后才能开杠")."""
    st = s.seats[seat]
    return (not s.rules.kong_after_chow and s.after == "claim" and bool(st.melds)
            and st.melds[-1]["type"] == "chi")


def _need_not_missing(st: SeatState, tile: str) -> None:
    """定缺: a seat keeps nothing of the suit it gave up, so it claims and kongs none of it (as the live
    record refuses it: `controller._holds_missing`)."""
    gone = st.missing_suit
    _need(not (gone and T.is_suited(tile) and T.suit(tile) == gone), "missing_suit_claim",
          f"定缺{T.suit_name(gone or 'm')}: 不能吃碰杠{T.suit_name(gone or 'm')}")


def _need_unsealed(s: HandState, seat: str) -> None:
    claimer = s.sealed_for(seat)
    _need(claimer is None, "sealed",
          f"封胡: 已放给{T.seat_name(claimer or seat)}家碰{s.rules.seal_pungs}次, 本盘不能和牌")


def _self_draw(s: HandState, e: SelfDrawWin, notes: list[dict[str, Any]]) -> None:
    _need(s.phase == "discard" and e.seat == s.turn, "not_now", "自摸须在自己摸牌后、出牌前")
    _need_unsealed(s, e.seat)
    st = s.seats[e.seat]
    tile = st.concealed[-1]
    how = {"kong": "kong_replacement", "flower": "flower_replacement"}.get(s.after, "self_draw")
    if st.known and not _completes(s, e.seat, tile, how, None):
        notes.append(_doubled(s, {"type": "false_win", "seat": e.seat, "rule": "诈和: 手牌不成和, 罚分后继续"}))
        return
    hand = s.hand_json(e.seat, tile, how)
    hand["last_tile"] = s.drew_last
    st.won += 1
    s.winners.append({"seat": e.seat, "win": how, "tile": tile, "hand": hand})
    notes.append({"type": "win", "seat": e.seat, "win": how, "tile": tile, "hand": hand})
    if s.rules.continue_after_win != "end":
        st.take(tile)  # the winning tile is laid aside; the seat plays on (血流) or leaves (血战)
    _after_win(s, e.seat, notes)


def _correct(s: HandState, e: Correct, notes: list[dict[str, Any]]) -> None:
    _check_seat(e.seat)
    _check_tile(e.new, allow_back=True)
    s.seats[e.seat].take(e.old)
    s.seats[e.seat].concealed.append(e.new)
    if s.opening is not None:
        s.opening = O.corrected(s.opening, e.seat, e.old, e.new)
    _fifth_copy(s, e.new)
    notes.append({"type": "corrected", "seat": e.seat, "old": e.old, "new": e.new})


_HANDLERS: dict[type, Callable[[HandState, Any, list[dict[str, Any]]], None]] = {
    Deal: _deal, ChooseMissing: _choose_missing, Draw: _draw, Replace: _replace, Flower: _flower,
    Discard: _discard, Claim: _claim, Pass: _pass, CloseWindow: _close, Kong: _kong,
    SelfDrawWin: _self_draw, Correct: _correct,
}

"""Simulated players for the demo table: four people who play a hand from the physical wall.

They are not good players (they pung a discard when they hold a pair of it and kong when they
can: four alike in hand 暗杠, the fourth to their pung 补杠, three alike and the discard 明杠, and a
player who wins on a 补杠's tile robs it, 抢杠, where the first win ends the hand; with `chows`
the 下家 chows a discard now and then), yet they play legally and in turn, so a visitor sees discards pile up, melds laid out,
flowers and kongs replaced from the tail, the wall shrink to 海底, and the hand end in 荒牌 as a
real table would show it. Given a `judge` (does this hand win under the table's rules?), a player
whose hand is complete declares it, on its own draw or on a discard (the first seat after the
discarder; in 血战到底 every seat that wins on it, 一炮多响), and lays it down: the hand ends
there, or (血战到底) the winners leave it.
The wall comes from the simulator (`SimTable.wall`), the order of draws from the rules engine.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Generator, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from table_controller.rules import DealPlan, open_hands
from table_controller.state import next_playing
from table_controller.tiles import is_suited, rank, suit

SEATS = ("E", "S", "W", "N")


#: How often a player holding a pair of the discard pungs it (people do not take every pung).
PUNG_WILLINGNESS = 0.7
#: How often a player who may kong does (a kong pays under many rules, but it shows the hand).
KONG_WILLINGNESS = 0.8


@dataclass(frozen=True)
class PlayerAction:
    """What the players did that the table shows face up: a flower laid out, a discard, a pung."""

    type: str  # "flower", "deal_done", "missing" (定缺), "discard", "riichi", "claim", "kong", "win", "reveal" (hands at 荒牌)
    seat: str | None = None
    tile: str | None = None
    #: a claim: the seat whose discard it takes (a win on a discard: the discarder)
    frm: str | None = None
    #: a win: the hand laid down, as the scorer reads it (docs/scoring.md); a reveal: seat -> hand
    hand: dict[str, Any] = field(default_factory=dict, compare=False)
    #: 定缺: the suit the seat gives up (m, p or s)
    suit: str | None = None
    #: a claim: "pung" or "kong" (明杠); a kong from the hand: "concealed" (暗杠) or "added" (补杠)
    kind: str | None = None
    #: a chow: the run's three tiles, the claimed one among them
    run: tuple[str, ...] = ()

    def event(self) -> tuple[str, dict[str, object]]:
        """As the controller's `play.*` event."""
        if self.type == "claim":
            n = 4 if self.kind == "kong" else 3
            tiles = list(self.run) if self.kind == "chow" else [self.tile] * n
            return "play.claim", {"seat": self.seat, "kind": self.kind or "pung", "from": self.frm, "tiles": tiles}
        if self.type == "kong":
            return "play.kong", {"seat": self.seat, "tiles": [self.tile] * 4, "concealed": self.kind == "concealed",
                                 "added": self.kind == "added"}
        data: dict[str, object] = {}
        if self.type == "missing":
            return "play.missing", {"seat": self.seat, "suit": self.suit}
        if self.seat is not None:
            data["seat"] = self.seat
        if self.tile is not None:
            data["tile"] = self.tile
        return f"play.{self.type}", data


def usefulness(tile: str, hand: list[str]) -> int:
    """How much `tile` helps the hand: pairs and neighbours in its suit (a loose honour scores 0)."""
    score = 3 * (hand.count(tile) - 1)
    if is_suited(tile):
        for other in hand:
            if other != tile and is_suited(other) and suit(other) == suit(tile):
                gap = abs(rank(other) - rank(tile))
                score += 2 if gap == 1 else 1 if gap == 2 else 0
    return score


def choose_discard(hand: list[str], rng: random.Random, gone: str | None = None) -> str:
    """The least useful tile; ties broken by the player's whim (the seeded `rng`). With a 定缺
    suit `gone`, its tiles go first."""
    pool = [t for t in hand if is_suited(t) and suit(t) == gone] or hand
    scores = {t: usefulness(t, hand) for t in set(pool)}
    low = min(scores.values())
    return rng.choice(sorted(t for t, s in scores.items() if s == low))


def choose_missing(hand: list[str], rng: random.Random) -> str:
    """定缺: the suit the hand holds fewest of (ties by whim)."""
    held = {s: sum(1 for t in hand if is_suited(t) and suit(t) == s) for s in ("m", "p", "s")}
    low = min(held.values())
    return rng.choice([s for s, n in held.items() if n == low])


#: Whether a hand laid down wins under the table's rules (the scorer's JSON in, yes or no out).
Judge = Callable[[dict[str, Any]], bool]


#: The waits of a ready hand (a read whose `win_tile` is one candidate), for 振听.
Waits = Callable[[dict[str, Any]], set[str]]


#: What a win does to the hand (the ruleset's `[flow] continue_after_win`).
AFTER_WIN = ("end", "blood_battle", "blood_river")


def play_hand(plan: DealPlan, wall: Mapping[str, str], rng: random.Random,
              judge: Judge | None = None, after_win: str = "end", missing: bool = False,
              seal: int = 0, furiten: Waits | None = None, riichi: bool = False,
              kongs: bool = True, chows: bool = False, kong_after_chow: bool = True) -> Iterator[PlayerAction]:
    """The hand's face-up actions in order, until the live wall is exhausted (荒牌) or, with a
    `judge`, a player's win. `after_win`, as the ruleset's flow says:
    - "end": the first win ends the hand;
    - "blood_battle" (血战到底): a winner leaves and the others play on until three have won;
    - "blood_river" (血流成河): a winner sets the tile won on aside and plays on with its 13
      tiles, and may win again; only 荒牌 ends the hand.
    With `missing` (四川 定缺) each seat names the suit it holds fewest of after the deal, discards
    that suit first and claims none of it. With `seal` (南宁 封胡) a seat that fed one seat that
    many pungs does not declare a win this hand. With `furiten` (riichi 振听: the waits of a ready
    hand) a player does not win on a discard while a wait lies among its own discards or was let
    pass since its last discard. With `riichi` (and `furiten`, which gives the waits) a player
    whose concealed hand is ready after its discard declares 立直 (with four tiles or more left),
    then discards what it draws unless it wins, claims nothing, and every wait it lets pass since
    keeps it from a ron (立直振听). With `kongs` (the default) players kong as they can; without,
    they only pung (the hands of seeds chosen before players konged, and benchmarks kept comparable).
    With `chows` (the ruleset allows them: not 四川, 南宁, 推倒胡) the discarder's 下家 chows a discard
    that makes a run with two tiles it holds, when nobody pungs or kongs it; without `kong_after_chow` (国标: "吃牌时，
    手中有杠牌，不能开杠"), a seat that chowed makes no kong before its next draw.
    With a judge, a hand that reaches 荒牌 where wins do not end it ends with a `reveal` of the
    hands of the seats still playing (for 查叫). Several seats may win on one discard where play
    goes on after a win (一炮多响).

    `wall` is keyed by positions of this hand's winds (as `plan` is).
    """
    if after_win not in AFTER_WIN:
        raise ValueError(f"after_win must be one of {AFTER_WIN}, got {after_win!r}")
    play_on = after_win != "end"
    leave = after_win == "blood_battle"
    spec = plan.ruleset.tile_spec
    opening = open_hands(plan, wall)
    for seat, flower in opening.laid:  # 补花 round by round, dealer first (walls.md): laid out in that order
        yield PlayerAction("flower", seat, flower)
    yield PlayerAction("deal_done")
    hands = {seat: list(opening.hands[seat]) for seat in SEATS}
    gone: dict[str, str] = {}  # 定缺: seat -> the suit it gives up
    fed: dict[tuple[str, str], int] = {}  # 封胡: (feeder, claimer) -> pungs fed
    if missing:
        for seat in SEATS:
            gone[seat] = choose_missing(hands[seat], rng)
            yield PlayerAction("missing", seat, suit=gone[seat])
    melds: dict[str, list[dict[str, Any]]] = {seat: [] for seat in SEATS}
    flowers = {seat: list(opening.flowers[seat]) for seat in SEATS}
    out: list[str] = []  # 血战: the seats that won and left (血流: nobody leaves)
    locked: set[str] = set()  # 血流: winners keep their hand as it won (they discard what they draw, claim nothing)

    def sealed(seat: str) -> str | None:
        return next((c for (f, c), n in fed.items() if f == seat and n >= seal), None) if seal else None

    discarded: dict[str, set[str]] = {w: set() for w in SEATS}  # 振听: what each seat has discarded
    let_pass: dict[str, set[str]] = {w: set() for w in SEATS}  # ... and let pass since its last discard
    declared: set[str] = set()  # 立直

    def won(seat: str, tile: str, how: str, frm: str | None = None, last: bool = False) -> PlayerAction | None:
        if judge is None or sealed(seat):
            return None
        held = list(hands[seat])
        held.remove(tile)  # the tile won on is in the hand already (drawn, or taken for the look)
        read: dict[str, Any] = {"seat_wind": seat, "concealed": held, "win_tile": tile, "win": how,
                                "melds": [dict(m) for m in melds[seat]], "flowers": list(flowers[seat]),
                                "last_tile": last}
        if frm is not None:
            read["discarder"] = frm
        if seat in gone:
            read["options"] = {"missing_suit": gone[seat]}
        payer = next((f for (f, c), n in fed.items() if c == seat and seal and n >= seal), None)
        if payer:
            read["options"] = {"sealed": payer}
        if seat in declared:
            read["options"] = {**read.get("options", {}), "riichi": True}
        if not judge(read):
            return None
        if furiten is not None and how in ("discard", "rob_kong") \
                and furiten(read) & (discarded[seat] | let_pass[seat]):
            return None  # 振听: no ron (robbing a kong is one)
        return PlayerAction("win", seat, tile, frm=frm, hand=read)

    def reveal() -> PlayerAction:
        return PlayerAction("reveal", hand={w: {"concealed": list(hands[w]), "melds": [dict(m) for m in melds[w]],
                                                **({"options": {"missing_suit": gone[w]}} if w in gone else {})}
                                            for w in SEATS if w not in out})

    def can_replace() -> bool:
        """A kong needs a replacement tile: none on the 海底, none past riichi's four."""
        return not state.exhausted and state.replacements_left != 0

    def take(seat: str, tail: bool) -> Generator[PlayerAction, None, str | None]:
        """Draw for `seat` (`tail`: a kong's replacement), laying out each flower drawn and drawing
        its replacement; returns the tile, or None when no replacement is left (the hand ends)."""
        nonlocal state
        pos, state = state.replace() if tail else state.draw()
        kind = wall[pos]
        while spec.is_bonus(kind):
            yield PlayerAction("flower", seat, kind)
            flowers[seat].append(kind)
            # a replacement while any tile stands (docs/rules.md): a 海底 flower in 海南 is replaced
            # from the 15 kept back; with no tile standing it is laid out unreplaced
            if state.replacements_left == 0 or state.remaining == 0:
                return None
            pos, state = state.replace()
            kind = wall[pos]
        return kind

    def kong_from_hand(seat: str) -> tuple[str, str] | None:
        """(tile, "concealed" | "added") when the seat, in its turn, makes a kong from its hand."""
        if not kongs or seat in locked or not can_replace():
            return None
        for tile in sorted(set(hands[seat])):
            if suit(tile) == gone.get(seat):
                continue  # 定缺: the suit given up is discarded, never melded
            if hands[seat].count(tile) == 4 and rng.random() < KONG_WILLINGNESS:
                return tile, "concealed"
            if any(m["type"] == "pung" and m["tiles"][0] == tile for m in melds[seat]) \
                    and rng.random() < KONG_WILLINGNESS:
                return tile, "added"
        return None

    state = opening.state
    seat = "E"
    draw = False  # the dealer holds 14, a claimer the tile it took: neither draws first
    tail = False  # the draw is a kong's replacement (杠上开花 if it wins)
    chowed = False  # the seat in turn has just chowed (no draw)
    while True:
        drawn = None
        if draw:
            if state.exhausted and not tail:
                if judge is not None:
                    yield reveal()
                return
            kind = yield from take(seat, tail)
            if kind is None:
                return
            hands[seat].append(kind)
            win = won(seat, kind, "kong_replacement" if tail else "self_draw", last=state.exhausted)
            tail = False
            if win is not None:
                yield win
                if not play_on:
                    return
                hands[seat].remove(kind)  # 血流: the tile won on is set aside; 血战: the winner leaves
                locked.add(seat)
                if leave:
                    out.append(seat)
                    if len(out) >= 3:
                        return
                seat, draw = next_playing(seat, out), True
                continue
            drawn = kind
        kong = None if chowed and not kong_after_chow else kong_from_hand(seat)
        chowed = False
        if kong is not None:
            tile, how = kong
            if how == "concealed":
                for _ in range(4):
                    hands[seat].remove(tile)
                melds[seat].append({"type": "kong", "tiles": [tile] * 4, "concealed": True})
            else:  # the pung becomes a kong where it lies
                hands[seat].remove(tile)
                pung = next(m for m in melds[seat] if m["type"] == "pung" and m["tiles"][0] == tile)
                pung.update(type="kong", tiles=[tile] * 4)
            yield PlayerAction("kong", seat, tile, kind=how)
            if how == "added" and not play_on:  # 抢杠: a seat that wins on the tile added takes it
                for k in (1, 2, 3):
                    other = SEATS[(SEATS.index(seat) + k) % 4]
                    hands[other].append(tile)
                    win = won(other, tile, "rob_kong", frm=seat)
                    hands[other].remove(tile)
                    if win is not None:
                        yield win
                        return
            draw = tail = True
            continue
        tile = drawn if seat in locked and drawn is not None else choose_discard(hands[seat], rng, gone.get(seat))
        hands[seat].remove(tile)
        yield PlayerAction("discard", seat, tile)
        discarded[seat].add(tile)
        if seat not in declared:  # 立直振听: after riichi nothing let pass is forgotten
            let_pass[seat].clear()
        if riichi and furiten is not None and seat not in declared and seat not in locked and not melds[seat] \
                and state.live_left >= 4 and furiten({"seat_wind": seat, "concealed": list(hands[seat]), "win_tile": tile}):
            declared.add(seat)
            locked.add(seat)  # 立直: the hand stands as declared
            yield PlayerAction("riichi", seat)
        winners = []  # 血战/血流 一炮多响: every seat that wins on it; otherwise the first after the discarder
        for k in (1, 2, 3):
            other = SEATS[(SEATS.index(seat) + k) % 4]
            if other in out or (winners and not play_on) or (leave and len(out) + len(winners) >= 3):
                continue
            hands[other].append(tile)
            win = won(other, tile, "discard", frm=seat, last=state.exhausted)
            hands[other].remove(tile)
            if win is not None:
                winners.append(other)
                yield win
            else:
                let_pass[other].add(tile)
        if winners:
            if not play_on:
                return
            locked.update(winners)
            if leave:
                out.extend(winners)
                if len(out) >= 3:
                    return
            seat, draw = next_playing(winners[-1], out), True
            continue
        # the 海底 discard is not claimed; nor does a 血流 winner claim (its hand stays as it won)
        shunned = [w for w, g in gone.items() if suit(tile) == g]  # 定缺: nobody pungs the suit it gave up
        claim = _claim(hands, seat, tile, rng, [*out, *locked, *shunned], kongs and can_replace()) \
            if not state.exhausted else None
        run, nxt = None, next_playing(seat, out)
        if claim is None and chows and not state.exhausted and nxt not in [*locked, *shunned]:
            run = _chow(hands[nxt], tile, rng)  # a pung or kong comes first, then 吃 by 下家
        if run is not None:
            for t in run:
                if t != tile:
                    hands[nxt].remove(t)
            melds[nxt].append({"type": "chi", "tiles": list(run), "from": seat, "claimed": tile})
            yield PlayerAction("claim", nxt, tile, frm=seat, kind="chow", run=run)
            seat, draw, chowed = nxt, False, True
        elif claim is None:
            seat, draw = nxt, True
        else:
            claimer, how = claim
            size = 4 if how == "kong" else 3
            for _ in range(size - 1):
                hands[claimer].remove(tile)
            melds[claimer].append({"type": how, "tiles": [tile] * size, "from": seat})
            fed[(seat, claimer)] = fed.get((seat, claimer), 0) + 1
            yield PlayerAction("claim", claimer, tile, frm=seat, kind=how)
            # a pung: the claimer discards at once; a kong: it draws the replacement first
            seat, draw, tail = claimer, how == "kong", how == "kong"


#: How often the 下家 who can chow a discard does (a chow opens the hand, which costs fans).
CHOW_WILLINGNESS = 0.4


def _chow(hand: list[str], tile: str, rng: random.Random) -> tuple[str, ...] | None:
    """A run the discard makes with two tiles of `hand`, if the player wants it (lowest first)."""
    if not is_suited(tile):
        return None
    r, s = rank(tile), suit(tile)
    for low in (r - 2, r - 1, r):
        run = tuple(f"{low + k}{s}" for k in range(3))
        if low >= 1 and low + 2 <= 9 and all(t == tile or t in hand for t in run):
            return run if rng.random() < CHOW_WILLINGNESS else None
    return None


def _claim(hands: dict[str, list[str]], discarder: str, tile: str, rng: random.Random,
           out: Sequence[str] = (), kong: bool = True) -> tuple[str, str] | None:
    """(seat, "kong" | "pung"): the first seat after the discarder (still playing) holding three
    of `tile` (with `kong`: a replacement is left) or a pair that wants it, if any."""
    start = SEATS.index(discarder)
    for k in (1, 2, 3):
        seat = SEATS[(start + k) % 4]
        if seat in out:
            continue
        held = hands[seat].count(tile)
        if kong and held >= 3 and rng.random() < KONG_WILLINGNESS:
            return seat, "kong"
        if held >= 2 and rng.random() < PUNG_WILLINGNESS:
            return seat, "pung"
    return None

"""The camera keeps the play record: tiles it sees laid down become the hand's `play.*` events.

A tile that appears in a seat's discard pool, flower area or meld area is a discard, a flower or
part of a meld of the wind sitting at that side of the table this hand. The camera only fills in
what the record lacks: it compares the tiles *lying* in each area (tracks that appeared and have
not disappeared) with what the record holds there (a discard pool less its claimed tiles, the
flowers, the meld tiles). So a play an operator already keyed, a tile hidden by a hand for a
moment and found again, or the whole table seen afresh after a restart, is never recorded twice.

A tile the camera is unsure of holds back the tiles laid after it in its area until the referee
rules on it (`referee.camera_confirm`), so the record keeps the order of play; a reading the referee
rules no tile (`referee.camera_dismiss`: a coin, a glare spot) is let go, and its track passed over
while it lies there (`CameraRecord._set_aside`). Melds are recorded once their tiles are all there
and none was added in the last step (a hand laid down tile by
tile on a win is not taken for a claim): three alike or a run with the last discard from another
seat (碰 / 吃), four alike with it (明杠), four alike without it (a kong from the hand; with two or
more face down, 暗杠), two alike in the seat's turn that are not the open discard (暗杠 whose face-down
ends the detector cannot tell from the felt), one alike beside a pung (补杠). Three alike with no
open discard of them, when the seat whose turn it is shows nothing unread and its pool went
unwatched lately (a sleeve over it, the camera blind), took a discard the camera never saw: that
discard is recorded, then the pung. Tiles that make no meld wait for the referee.

A win: the winner lays the hand face up in front of them (its flower and meld areas). `laid_down`
lists what the camera sees there beyond the recorded melds and flowers, and `win_hand` makes the
scoring input from it and the record (melds, flowers, the discard won on, the tiles visible for
和绝张), for the referee to check, correct and confirm (`POST /api/referee/win/camera`).

No I/O: `see` takes the camera's events, `plays` says what to record in one area; the watcher
(`table_controller.camera`) records each through the same checks as keyed play.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from table_controller.controller import wind_of_side
from table_controller.referee import record_melds, visible_tiles
from table_controller.state import SEATS
from table_controller.tiles import BACK, is_flower

#: Areas of a seat that hold its laid-down tiles, in the order they are reconciled (a claim needs
#: the discard it takes already in the record); `centre` is not play.
AREAS = ("discard", "flower", "meld")
#: At the opening (nothing discarded or melded yet) the flowers come first: the opening 补花 is laid before the
#: dealer's first discard (walls.md), and the two seen in one step (laid within a camera period, or waiting
#: together for the dice) went in as the dealer's discard and then a flower of the seat in turn after its draw.
OPENING_AREAS = ("flower", "discard", "meld")
#: A step reconciles the pools again after the melds: a seat's discard seen with the meld it made just before (a
#: kong, then its discard after the replacement; a pung by 对家, then its discard) waits for that meld
#: (`CameraRecord._meld_coming`), and lands in this pass, in turn.
AGAIN = ("discard",)

Play = tuple[str, dict[str, Any]]
#: the part of an out-of-turn refusal that changes as play goes on (whose turn it is now)
_TURN_NOW = re.compile(r"，现在是.家|but [ESWN]'s")
#: A tile lost from view counts as found again if one appears within this many frame pixels of
#: it (half a tile at the usual 1.2-1.6 px/mm) within this many steps (a few seconds).
FOUND_PX = 16.0
LOST_STEPS = 20
#: A discard is inferred from a pung of it only if the discarder's pool went unwatched (something
#: over it, or the camera blind) within this many steps: a pool in plain view shows every discard.
UNWATCHED_STEPS = 20


def areas(hand: dict[str, Any] | None) -> tuple[str, ...]:
    """The areas in the order a step reconciles them: `OPENING_AREAS` before anything is discarded or melded."""
    laid = (hand.get("discards") or {}, hand.get("melds") or {}) if hand is not None else ({}, {})
    if hand is not None and not any(p for by_seat in laid for p in by_seat.values()):
        return OPENING_AREAS + AGAIN
    return AREAS + AGAIN


def in_turn(hand: dict[str, Any]) -> tuple[str, ...]:
    """The seats from the one whose turn it is round the table: the order their plays seen in one step were made
    (N's discard before E's). Before, E S W N whatever the turn: E's discard seen with N's was refused as out of
    turn, and the referee told so, a step before it was recorded."""
    seat = (hand.get("turn") or {}).get("seat")
    i = SEATS.index(seat) if seat in SEATS else 0
    return tuple(SEATS[i:] + SEATS[:i])


def _key(hand: dict[str, Any]) -> tuple[int, int]:
    return int(hand.get("round", 1)), int(hand.get("hand_no", 0))


@dataclass
class CameraRecord:
    """The tiles lying in each seat's areas this hand, as the camera sees them."""

    #: the hand watched, as (round, hand_no): hand numbers start again each round (轮次)
    hand_key: tuple[int, int] | None = None
    #: (area, wind) -> track -> kind, in the order the tiles appeared; None until sure
    lying: dict[tuple[str, str], dict[int, str | None]] = field(default_factory=dict)
    #: tracks already in the record (recorded by the camera, keyed, or seen before)
    accounted: set[int] = field(default_factory=set)
    #: areas where a tile appeared in the last `see`: a meld area is judged once it has settled
    changed: set[tuple[str, str]] = field(default_factory=set)
    #: tiles lost from view lately (a hand over them, a detection that failed for a few frames):
    #: (area, wind) -> [(where, kind, accounted, steps left, track)]; found again, they are not new
    lost: dict[tuple[str, str], list[tuple[tuple[float, float], str | None, bool, int, int]]] = field(
        default_factory=dict)
    #: tiles in the record that left their area unclaimed and have not come back (nudged out of the pool, knocked off
    #: the felt, hidden long): (area, wind) -> track -> kind. The record still holds them there, so they still count
    #: there: before, the seat's next discard was taken for one of them and never recorded, and the record stalled
    left: dict[tuple[str, str], dict[int, str | None]] = field(default_factory=dict)
    #: tiles of `left` a claim took (the claimed discard had left its pool first): put back if the claim is refused
    unleft: dict[int, tuple[tuple[str, str], str | None]] = field(default_factory=dict)
    #: pool tiles claimed into a meld: when they leave the pool they are gone, not lost
    claimed: set[int] = field(default_factory=set)
    #: the tracks behind each play of the last `plays` call (and a pool tile it claimed), so that
    #: a refused play can be offered again (`refused`)
    proposed: list[tuple[list[int], int | None, str | None]] = field(default_factory=list)
    #: per seat, how many of the record's claimed discards the camera has taken account of (its own
    #: claims and those keyed by the referee or won on), so that each claimed tile is gone, not lost
    claims_known: dict[str, int] = field(default_factory=dict)
    #: why each refused play (by its tracks) was refused last: the referee is told once, not each step
    refusals: dict[tuple[int, ...], set[str]] = field(default_factory=dict)
    #: discards laid sideways (a riichi player's 立直)
    turned: set[int] = field(default_factory=set)
    #: discards turned sideways after they were recorded upright: (wind, track), each a 立直 to
    #: record if it is still the seat's latest discard
    late_turns: list[tuple[str, int]] = field(default_factory=list)
    #: (area, wind) with something on it that is not a tile in the last `see`: left as it was
    frozen: set[tuple[str, str]] = field(default_factory=set)
    #: steps seen (calls of `see`), and per seat the last step its discard pool went unwatched
    step: int = 0
    unwatched_at: dict[str, int] = field(default_factory=dict)
    #: track -> the kind the camera recorded it as (a discard, a flower), so that a ruling that
    #: later names it otherwise (a ruling undone and made again) is told, not lost
    recorded_as: dict[int, str] = field(default_factory=dict)
    #: rulings that name a tile otherwise than the record holds it: (area, wind, recorded, ruled; None: no tile)
    overruled: list[tuple[str, str, str, str | None]] = field(default_factory=list)
    #: tracks the referee ruled no tile, while they lie there: track -> its (area, wind). Not counted, not waited
    #: on, their events passed over; gone, forgotten (a tile laid there later is a new one)
    dismissed: dict[int, tuple[str, str]] = field(default_factory=dict)

    def see(self, hand: dict[str, Any] | None, events: list[dict[str, Any]], occluded: tuple[str, ...] = (),
            blind: bool = False) -> None:
        """Take the camera's tile events (`camera.tile_*` data, with `event`) and the referee's
        rulings on unsure tiles (`{"event": "ruled", "zone", "kind", "track"}`), in order.
        `occluded`: zones with something on them that is not a tile (a hand, a cup): not
        reconciled until they are clear (what lies there cannot be counted). `blind`: the camera
        saw nothing usable this step (unplugged, dark, frozen): every pool went unwatched."""
        self.changed = set()
        self.frozen = set()
        self.step += 1
        if blind:
            self.unwatched_at.update(dict.fromkeys(SEATS, self.step))
        if hand is not None:
            for zone in occluded:
                area, _, side = zone.partition(":")
                if area in AREAS and side in SEATS:
                    key = (area, wind_of_side(side, int(hand.get("dealer_position", 1))))
                    self.frozen.add(key)
                    if area == "discard":
                        self.unwatched_at[key[1]] = self.step
        if hand is None:  # an ended hand is still watched: hands laid down at 荒牌 are read for 查叫
            return
        if _key(hand) != self.hand_key:
            self.hand_key, self.lying, self.accounted, self.lost = _key(hand), {}, set(), {}
            self.claimed, self.refusals, self.claims_known, self.turned = set(), {}, {}, set()
            self.late_turns, self.recorded_as, self.overruled = [], {}, []
            self.left, self.unleft, self.dismissed = {}, {}, {}
        self._sync_claims(hand)
        self.lost = {k: [(at, kind, acc, steps - 1, t) for at, kind, acc, steps, t in v if steps > 1]
                     for k, v in self.lost.items()}
        for ev in events:
            area, _, side = str(ev.get("zone", "")).partition(":")
            if area not in AREAS or side not in SEATS or not isinstance(ev.get("track"), int):
                continue
            key = (area, wind_of_side(side, int(hand.get("dealer_position", 1))))
            here = self.lying.setdefault(key, {})
            track = ev["track"]
            if ev.get("event") in ("dismissed", "undismissed") or track in self.dismissed:
                self._set_aside(key, ev)
            elif ev.get("event") == "disappeared":
                if track in here and ev.get("at") and track not in self.claimed:
                    self.lost.setdefault(key, []).append((tuple(ev["at"]), here[track], track in self.accounted,
                                                          LOST_STEPS, track))
                if track in here and track not in self.claimed and track in self.accounted:
                    self.left.setdefault(key, {})[track] = here[track]
                here.pop(track, None)
            elif ev.get("event") == "appeared" and track not in here:
                kind = None if ev.get("needs_referee") else str(ev.get("kind", ""))
                here[track] = kind
                if ev.get("sideways"):
                    self.turned.add(track)
                self.changed.add(key)
                gone = self.left.get(key, {})
                if track in self.claimed:  # the claimed tile went into its meld: what its track reads now is another
                    self._unclaimed_track(track)
                elif track in gone:  # the same track announced again (its vote changed): the tile in the record
                    del gone[track]
                elif self._found_again(key, ev.get("at"), kind) or self._back(key, kind):
                    self.accounted.add(track)
            elif ev.get("event") == "turned" and track in here and track not in self.turned:
                self.turned.add(track)
                if track in self.accounted:  # already recorded upright: the declaration comes late
                    self.late_turns.append((key[1], track))
            elif ev.get("event") == "appeared" and ev.get("ruled") or ev.get("event") == "ruled":
                if track in here:
                    here[track] = str(ev.get("kind", ""))
                    was = self.recorded_as.get(track)
                    if was is not None and was != here[track]:  # recorded already: the record keeps `was`
                        self.overruled.append((key[0], key[1], was, here[track]))
                        self.recorded_as[track] = here[track]  # told once

    def _set_aside(self, key: tuple[str, str], ev: dict[str, Any]) -> None:
        """A ruling that `ev`'s track is no tile (`dismissed`), its undo (`undismissed`: unsure again, if it
        still lies there), or an event of a track so ruled (passed over; its leaving ends the ruling). Before,
        the referee could only name a tile: a coin read as one held its pool back for the rest of the hand."""
        track, here = ev["track"], self.lying.setdefault(key, {})
        if ev["event"] == "dismissed":
            if track in here:
                self.dismissed[track] = key
            was = here.pop(track, None) or self.recorded_as.get(track)
            if track in self.recorded_as and was is not None:  # recorded already: the record keeps it
                self.overruled.append((key[0], key[1], was, None))
            for table in (self.accounted, self.turned, self.claimed):
                table.discard(track)
            self.recorded_as.pop(track, None)
            self.left.get(key, {}).pop(track, None)
            self.lost[key] = [x for x in self.lost.get(key, []) if x[4] != track]
        elif ev["event"] == "undismissed":
            if self.dismissed.pop(track, None) is not None:
                here[track] = None  # the question is open again: tiles laid from now on wait for its ruling
                self.changed.add(key)
        elif ev["event"] == "disappeared":
            self.dismissed.pop(track, None)

    def plays(self, hand: dict[str, Any] | None, area: str) -> list[Play]:
        """What to record in `area` of every seat so that the record holds what lies there."""
        if hand is None or hand.get("ended") or _key(hand) != self.hand_key:
            return []
        out: list[Play] = []
        self.proposed = []
        if self.frozen:  # a play under the hand may come before those in sight: the record waits
            return []
        if area == "discard":
            out += self._late_riichi(hand)
        gone = hand.get("out") or []  # 血战: the seats that won and left
        for wind in in_turn(hand):
            here = self.lying.get((area, wind))
            if not here or (area == "meld" and (area, wind) in self.changed):
                continue  # a meld area still being laid waits a step: a hand laid down is not a meld
            if wind in gone:
                continue  # a winner's tiles lie there as laid down, not played
            if area == "discard" and (self._meld_coming(hand, wind) or self._flower_coming(wind)):
                continue  # its meld or 补花 first (AGAIN): a kong or a flower, then its discard after the replacement
            new = self._new_tracks(here, _recorded_kinds(hand, area, wind), self.left.get((area, wind), {}))
            kinds = [here[t] for t in new]
            if area == "meld":
                meld = _meld(hand, wind, kinds) if None not in kinds else None
                missed = self._missed_discard(hand, wind, kinds) if meld is None and None not in kinds else None
                if missed is not None:  # the discard it took was never seen: recorded first, then the pung
                    frm, tile = missed
                    out.append(("play.discard", {"seat": frm, "tile": tile}))
                    self.proposed.append(([], None, None))
                    meld = ("play.claim", {"seat": wind, "kind": "pung", "from": frm, "tiles": [tile] * 3})
                    out.append(meld)
                    self.accounted.update(new)
                    self.claims_known[frm] = self.claims_known.get(frm, 0) + 1
                    self.proposed.append((list(new), None, frm))
                    continue
                if meld:
                    out.append(meld)
                    self.accounted.update(new)
                    taken, frm = None, None
                    if meld[0] == "play.claim":
                        frm = meld[1]["from"]
                        taken = self._claim(frm, hand["discards"][frm][-1]["tile"])
                        self.claims_known[frm] = self.claims_known.get(frm, 0) + 1
                    self.proposed.append((list(new), taken, frm))
                continue
            for track, kind in zip(new, kinds):
                if kind is None:
                    break  # the referee rules on it first: the record keeps the order of play
                self.accounted.add(track)
                if area == "flower" and is_flower(kind):
                    out.append(("play.flower", {"seat": wind, "tile": kind}))
                    self.proposed.append(([track], None, None))
                    self.recorded_as[track] = kind
                elif area == "discard" and kind != BACK and not is_flower(kind):
                    if hand.get("turn") is None and wind == "E" and not any(hand["discards"].values()) \
                            and not any(t == "play.deal_done" for t, _ in out):
                        out.append(("play.deal_done", {}))  # the dealer's first discard: the deal is over
                        self.proposed.append(([], None, None))
                    out.append(("play.discard", {"seat": wind, "tile": kind}))
                    self.proposed.append(([track], None, None))
                    self.recorded_as[track] = kind
                    if track in self.turned and hand.get("riichi_declarations") and wind not in (hand.get("riichi") or {}):
                        out.append(("play.riichi", {"seat": wind}))  # laid sideways: 立直 declared with it
                        self.proposed.append(([], None, None))
        return out

    def _meld_coming(self, hand: dict[str, Any], wind: str) -> bool:
        """Whether `wind`'s meld area holds tiles still being laid (a tile added in the last step), or new tiles
        that make a meld the record will take this step (`_meld`, `_missed_discard`) and has not refused before:
        its discards seen meanwhile were made after that meld. Before, the pools went first: a 暗杠 and the discard
        after its replacement seen together put the discard in first and the kong was refused as out of turn, to
        be recorded at the seat's next turn; a pung by 对家 and its discard, the discard refused once."""
        here = self.lying.get(("meld", wind))
        if not here:
            return False
        if ("meld", wind) in self.changed:
            return True
        new = self._new_tracks(here, _recorded_kinds(hand, "meld", wind), self.left.get(("meld", wind), {}))
        kinds = [here[t] for t in new]
        if not new or None in kinds or tuple(new) in self.refusals:
            return False
        return _meld(hand, wind, kinds) is not None or self._missed_discard(hand, wind, kinds) is not None

    def _flower_coming(self, wind: str) -> bool:
        """Whether `wind`'s flower area holds a flower the record lacks and has refused for nothing but the turn
        (`refused`): a 补花 is laid after the seat's draw and before its discard, so a discard seen in the same
        step waits for it (AGAIN). Before, the pools went first: the discard went in, then the flower after it
        (the record takes a flower from the seat that made the newest discard), or, when the seat's turn came
        in that step, the flower was refused and went in a round late, out of place."""
        here = self.lying.get(("flower", wind)) or {}
        return any(t not in self.accounted and k is not None and is_flower(k)
                   and all(why.startswith("未轮到") for why in self.refusals.get((t,), ()))
                   for t, k in here.items())

    def _late_riichi(self, hand: dict[str, Any]) -> list[Play]:
        """立直 shown by a discard turned sideways after the camera recorded it upright: recorded
        when the tile is still the seat's latest discard (turned at once, as a player corrects it);
        a tile turned later, after the seat played again, declares nothing."""
        out: list[Play] = []
        for wind, track in self.late_turns:
            pool = self.lying.get(("discard", wind), {})
            latest = next(reversed(pool), None) if pool else None
            discards = hand["discards"][wind]
            if (latest == track and discards and discards[-1].get("tile") == pool[track]
                    and hand.get("riichi_declarations") and wind not in (hand.get("riichi") or {})):
                out.append(("play.riichi", {"seat": wind}))
                self.proposed.append(([], None, None))
        self.late_turns = []
        return out

    def _missed_discard(self, hand: dict[str, Any], wind: str, kinds: list[str | None]) -> tuple[str, str] | None:
        """(seat, tile) when a pung laid by `wind` took a discard the camera never saw (a hand or a
        sleeve over the pool while it lay there, and gone into the pung by the time the pool was
        in view): three alike, no open discard of them, and the seat whose turn it is (who must
        have discarded it) showing nothing unread in its pool, which went unwatched lately
        (`UNWATCHED_STEPS`; a pool in view all along shows its discards: three alike there are a
        winner's concealed pung laid down first, fourteenth session's misfire). Both plays must
        pass the record's checks as they would stand, or nothing is inferred (the referee keys
        what happened)."""
        from table_controller.controller import _play_problem
        from table_controller.state import next_playing

        now = hand.get("turn") or {}
        turn = now.get("seat")
        if len(kinds) != 3 or len(set(kinds)) != 1 or kinds[0] in (None, BACK) or is_flower(str(kinds[0])):
            return None
        tile = str(kinds[0])
        if turn is None or turn == wind or now.get("kind") not in ("discard", "first_discard"):
            return None
        if self.step - self.unwatched_at.get(turn, -UNWATCHED_STEPS - 1) > UNWATCHED_STEPS:
            return None  # the pool was in view: a discard there would have been seen
        pool = self.lying.get(("discard", turn), {})
        if any(t not in self.accounted or k is None for t, k in pool.items()):
            return None  # the turn's seat has a tile in its pool not yet in the record: not missed
        discard = {"seat": turn, "tile": tile}
        if _play_problem(hand, "play.discard", discard):
            return None
        newest = max((int(d["seq"]) for pool in hand["discards"].values() for d in pool), default=0)
        after = {**hand, "discards": {**hand["discards"], turn: [*hand["discards"][turn],
                                                                  {"tile": tile, "seq": newest + 1, "claimed": False}]},
                 "turn": {"seat": next_playing(turn, hand.get("out") or ()), "kind": "discard"}, "pending_draw": True}
        if _play_problem(after, "play.claim", {"seat": wind, "kind": "pung", "from": turn, "tiles": [tile] * 3}):
            return None
        return turn, tile

    def refused(self, index: int, reason: str) -> bool:
        """The record refused play `index` of the last `plays` (out of turn, say: a claim the
        camera missed). Its tiles are offered again at every step, so once the referee keys what
        the camera missed, what was refused meanwhile is recorded without keying it too. True
        when this refusal is news (the referee is told once per play and reason; before the
        twelfth session an out-of-turn refusal was news again at each turn, four times a round,
        for a misread tile lying there the rest of the hand)."""
        tracks, taken, frm = self.proposed[index]
        self.accounted.difference_update(tracks)
        for track in tracks:
            self.recorded_as.pop(track, None)
        if taken is not None:
            self.claimed.discard(taken)
            if taken in self.unleft:  # the claimed tile had left its pool: it counts there again
                key, kind = self.unleft.pop(taken)
                self.left.setdefault(key, {})[taken] = kind
        if frm is not None:
            self.claims_known[frm] -= 1
        told = self.refusals.setdefault(tuple(tracks), set())
        why = _TURN_NOW.sub("", reason)  # "not E's turn", whoever has it now: the referee knows
        news = why not in told
        told.add(why)
        return news

    def taken(self, tracks: list[int]) -> bool:
        """Whether the play of `tracks`, refused in a pass of this step, was recorded by a later one (`AGAIN`): then
        its refusal was never news, and is forgotten so that a real one later is told. A play with no tracks of its
        own (a discard the camera never saw, put before its pung) cannot be told from another: False."""
        if not tracks or not set(tracks) <= self.accounted:
            return False
        self.refusals.pop(tuple(tracks), None)
        return True

    def _sync_claims(self, hand: dict[str, Any]) -> None:
        """Discards the record shows claimed that the camera did not claim itself (the referee
        keyed a claim the camera missed; a 血战 win took the tile): each is gone from its pool,
        so a later discard laid where it lay is new, not the claimed tile found again."""
        for wind in SEATS:
            taken = [d for d in hand["discards"][wind] if d.get("claimed")]
            for d in taken[self.claims_known.get(wind, 0):]:
                self._claim(wind, d["tile"])
            self.claims_known[wind] = len(taken)

    def _claim(self, frm: str, tile: str) -> int | None:
        """The newest `tile` in `frm`'s pool went into a meld: when it leaves the pool (or if it
        already has), it is not a tile lost from view, and a later discard where it lay is new.
        Returns the pool tile's track while it still lies there, or the one that left it."""
        key = ("discard", frm)
        pool = self.lying.get(key, {})
        track = next((t for t in reversed(list(pool)) if pool[t] == tile), None)
        if track is not None:
            self.claimed.add(track)
            return track
        lost = self.lost.get(key, [])
        i = next((i for i in range(len(lost) - 1, -1, -1) if lost[i][1] == tile), None)
        if i is not None:
            was = lost.pop(i)[4]
            if was in pool:  # its track, announced again, reads the seat's next discard laid where it lay
                self._unclaimed_track(was)
                self.overruled = [o for o in self.overruled if o[:3] != ("discard", frm, tile)]
                return None
        gone = self.left.get(key, {})
        track = next((t for t in reversed(list(gone)) if gone[t] in (tile, None)), None)
        if track is not None:  # it left before the claim was recorded: it left for the meld
            self.unleft[track] = (key, gone.pop(track))
        return track

    def _unclaimed_track(self, track: int) -> None:
        """The track of a claimed pool tile reads another tile where it lay: the seat's next discard, laid in the
        gap the claimed tile left at the row's end while a hand over the pool kept the camera following the old
        track, which then changed its vote. It is a new tile, not the claimed one (in its meld). Before, the record
        took it for the claimed tile, told the referee its kind was changed (改判) and never recorded the discard:
        the seat stayed in turn and every other seat's plays were refused until the referee keyed it."""
        self.claimed.discard(track)
        self.accounted.discard(track)
        self.recorded_as.pop(track, None)

    def _found_again(self, key: tuple[str, str], at: Any, kind: str | None) -> bool:
        """Whether a tile appearing at `at` is one lost there lately (same kind, or either
        unsure), already in the record; the lost one is then forgotten."""
        if not at:
            return False
        for i, (where, was, accounted, _, track) in enumerate(self.lost.get(key, [])):
            near = (where[0] - at[0]) ** 2 + (where[1] - at[1]) ** 2 <= FOUND_PX ** 2
            if near and (was == kind or was is None or kind is None):
                del self.lost[key][i]
                self.left.get(key, {}).pop(track, None)
                return accounted
        return False

    def _back(self, key: tuple[str, str], kind: str | None) -> bool:
        """Whether a tile appearing in an area is one of the record's that left it (`left`), back elsewhere or
        after long: of its kind. (A seat's discard of a kind it lost from its pool is taken for that tile back;
        the count cannot tell them apart, and a tile back is the likelier.)"""
        gone = self.left.get(key, {})
        track = next((t for t, k in gone.items() if k == kind), None) if kind is not None else None
        if track is None:
            return False
        del gone[track]
        self.lost[key] = [x for x in self.lost.get(key, []) if x[4] != track]
        return True

    def laid_down(self, hand: dict[str, Any] | None, wind: str) -> tuple[list[str], int]:
        """(tiles, unsure): the face-up tiles lying in front of `wind` (its flower and meld
        areas) that are not its recorded melds or flowers, and how many more lie there that the
        camera is not sure of (the referee rules on them, or corrects the read)."""
        if hand is None or _key(hand) != self.hand_key:
            return [], 0
        lying = [k for area in ("meld", "flower") for k in self.lying.get((area, wind), {}).values()]
        faces = Counter(k for k in lying if k is not None and k != BACK and not is_flower(k))
        faces -= Counter(t for m in hand["melds"][wind] for t in m.get("tiles", []))
        return sorted(faces.elements()), sum(1 for k in lying if k is None)

    def _new_tracks(self, here: dict[int, str | None], recorded: Counter[str],
                    left: dict[int, str | None]) -> list[int]:
        """The tiles lying here that the record lacks: as many as lie beyond what the record holds
        (`recorded`, its tiles by kind; those of it that `left` count as lying), taken from those not
        yet accounted for; the others are in it already. Which of them are new goes by kind first: a
        fresh tile of a kind the record holds here and no accounted tile stands for is an old one (a
        tile whose ruling is awaited may be too), the rest the newest. Before, the newest by the
        order they appeared, which for tiles first seen together (the camera back after being
        unplugged, a restart) is only the order the frame was read in: a keyed 5m was recorded
        again and the new 2z never."""
        excess = len(here) + len(left) - sum(recorded.values())
        fresh = [t for t in here if t not in self.accounted]
        if excess <= 0:
            new: list[int] = []
        elif excess >= len(fresh):
            new = fresh
        else:
            covered = [k for t, k in here.items() if t in self.accounted] + list(left.values())
            unmatched = recorded - Counter(k for k in covered if k is not None)
            rank: dict[int, int] = {}
            for t in fresh:
                kind = here[t]
                if kind is not None and unmatched[kind] > 0:
                    unmatched[kind] -= 1
                    rank[t] = 0  # the record holds it
                else:
                    rank[t] = 1 if kind is None else 2  # unsure: may be one the record holds
            old = set(sorted(fresh, key=lambda t: rank[t])[:len(fresh) - excess])  # stable: older first
            new = [t for t in fresh if t not in old]
        self.accounted.update(t for t in fresh if t not in new)
        return new


def _recorded_kinds(hand: dict[str, Any], area: str, wind: str) -> Counter[str]:
    """The tiles, by kind, the record says lie in `area` of `wind`."""
    if area == "discard":
        return Counter(str(d.get("tile")) for d in hand["discards"][wind] if not d.get("claimed"))
    if area == "flower":
        return Counter(str(t) for t in hand["flowers"][wind])
    return Counter(str(t) for m in hand["melds"][wind] for t in m.get("tiles", []))


def _last_discard(hand: dict[str, Any], won_too: bool = False) -> tuple[str, str] | None:
    """(seat, tile) of the newest discard if nobody has claimed it yet (`won_too`: or only won
    on, which another seat may win on as well: 一炮多响)."""
    newest: tuple[int, str] | None = None
    for seat, pool in hand["discards"].items():
        if pool and (newest is None or pool[-1]["seq"] > newest[0]):
            newest = (pool[-1]["seq"], seat)
    if newest is None:
        return None
    last = hand["discards"][newest[1]][-1]
    open_ = not last["claimed"] or (won_too and last.get("won_by"))
    return (newest[1], last["tile"]) if open_ else None


def _robbed_kong(hand: dict[str, Any], wind: str) -> tuple[str, str] | None:
    """(seat, tile) of the newest 补杠 by a seat other than `wind`, open to 抢杠 (`state._rob_kong`
    turns it back into a pung once the win is confirmed)."""
    newest: tuple[int, str, str] | None = None
    for seat, melds in (hand.get("melds") or {}).items():
        for m in melds:
            if seat != wind and m.get("type") == "kong" and m.get("added_seq") and m.get("tiles"):
                if newest is None or m["added_seq"] > newest[0]:
                    newest = (m["added_seq"], seat, m["tiles"][0])
    discarded = max((d["seq"] for pool in hand["discards"].values() for d in pool), default=0)
    return (newest[1], newest[2]) if newest and newest[0] > discarded else None  # a kong played on stands


def _is_run(tiles: list[str]) -> bool:
    if len({t[-1] for t in tiles}) != 1 or tiles[0][-1] not in "mps":
        return False
    ranks = sorted(int(t[0]) for t in tiles)
    return ranks == list(range(ranks[0], ranks[0] + len(ranks)))


def _meld(hand: dict[str, Any], wind: str, kinds: list[str | None]) -> Play | None:
    """The meld the new tiles in a seat's meld area make, once they make one."""
    tiles = [k for k in kinds if k is not None]
    faces = [t for t in tiles if t != BACK]
    last = _last_discard(hand)
    frm, taken = last if last is not None and last[0] != wind else (None, None)
    if len(tiles) == 1 and faces:  # a fourth tile beside a pung: 补杠 (or a claimed kong seen late)
        if any(m.get("type") == "pung" and m.get("tiles", [None])[0] == faces[0] for m in hand["melds"][wind]):
            return ("play.kong", {"seat": wind, "tiles": [faces[0]] * 4, "added": True})
    if len(tiles) == 3 and len(faces) == 3 and taken in faces:
        if len(set(faces)) == 1:
            return ("play.claim", {"seat": wind, "kind": "pung", "from": frm, "tiles": faces})
        if _is_run(faces):
            return ("play.claim", {"seat": wind, "kind": "chow", "from": frm, "tiles": sorted(faces)})
    if len(tiles) == 4 and faces and len(set(faces)) == 1:
        if len(faces) == 4 and taken == faces[0]:
            return ("play.claim", {"seat": wind, "kind": "kong", "from": frm, "tiles": faces})
        return ("play.kong", {"seat": wind, "tiles": [faces[0]] * 4, "concealed": len(faces) <= 2})
    turn = (hand.get("turn") or {}).get("seat")
    if len(tiles) == 2 and len(faces) == 2 and faces[0] == faces[1] and taken != faces[0] and turn == wind:
        # 暗杠 with its ends face down, where the backs are the felt's colour (green on green): the
        # detector finds the two faces only. A pair is no meld, and in the seat's own turn, not of
        # the open discard (a pung being laid), it is that kong. Before, such a kong was never seen.
        return ("play.kong", {"seat": wind, "tiles": [faces[0]] * 4, "concealed": True})
    return None


def _hand_size(hand: dict[str, Any]) -> int:
    """Tiles held before the win under the hand's ruleset (13; 台湾 16)."""
    from table_controller.scoring import ruleset_file

    rs = ruleset_file(str(hand.get("ruleset", "")))
    return min(rs.hand_sizes.values()) if rs is not None else 13  # an unknown ruleset: the usual 13


def drew_last(hand: dict[str, Any], win: str) -> bool:
    """Whether the win is on the 海底 (walls.md: "the last drawable tile"). The record counts a
    live draw only when the seat acts (`state._apply_play`), so a self-drawn winner's draw is
    still pending: it took the 海底 when one live tile stood before it."""
    left = hand.get("tiles_left")
    if left is None:
        return False
    if win == "self_draw" and hand.get("pending_draw"):
        return left == 1
    return left == 0


class WinReadError(ValueError):
    """The camera's view cannot make a win read (the message says what the referee must give)."""


def win_hand(hand: dict[str, Any], wind: str, laid: list[str], win: str = "discard",
             win_tile: str | None = None) -> dict[str, Any]:
    """The scoring input (docs/scoring.md) for `wind` winning with the tiles `laid` face up in
    front of it, the rest from the record: its melds and flowers, the discard won on (`win =
    "discard"`: the newest unclaimed discard, unless `win_tile` names another), the tiles seen
    outside the hand (和绝张), the wall's last tile (海底). The winning tile may lie among the
    laid tiles or not; a hand of the wrong size is still returned, for the scorer to say so."""
    last = _last_discard(hand, won_too=True)
    discarder = None
    if win == "rob_kong":  # 抢杠和: the tile another seat just added to its pung (补杠), not a discard
        robbed = _robbed_kong(hand, wind)
        if robbed is None or win_tile not in (None, robbed[1]):
            raise WinReadError("没有可抢的补杠：请先记录补杠，或指明和牌方式 / no added kong to rob: "
                               "record the kong first, or name how the hand was won")
        discarder, win_tile = robbed
    elif win == "discard":
        if win_tile is None:
            if last is None or last[0] == wind:
                raise WinReadError("没有可和的弃牌：请指明和牌张 / no discard to win on: name the winning tile")
            discarder, win_tile = last
        elif last is not None and last[1] == win_tile and last[0] != wind:
            discarder = last[0]
    elif win_tile is None:
        raise WinReadError("自摸须指明和牌张 / a self-drawn win needs the winning tile named")
    melds = record_melds(hand, wind)
    concealed = list(laid)
    if win_tile in concealed and len(concealed) == _hand_size(hand) + 1 - 3 * len(melds):
        concealed.remove(win_tile)  # laid with the hand: the scorer takes it apart
    out: dict[str, Any] = {
        "seat_wind": wind, "prevalent_wind": hand.get("prevalent_wind", "E"), "melds": melds,
        "concealed": concealed, "win_tile": win_tile, "win": win, "flowers": list(hand["flowers"][wind]),
        "last_tile": drew_last(hand, win),
    }
    if discarder is not None:
        out["discarder"] = discarder
    out["visible"] = visible_tiles(hand, out)
    return out

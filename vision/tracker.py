"""Voting over frames: turns per-frame readings into stable "tile appeared / disappeared in zone Z"
events for the controller, so one blurred frame or a hand passing over the felt changes nothing.

A tile is a track at a place on the plane; its kind is the vote of the frames that saw it there
(summed confidences). It is announced once seen in `confirm` frames, and retired once missing
for `forget` frames in a row. Tracks whose vote is split, or whose frames mostly read it under
the reader's threshold, are announced with `needs_referee`, for the referee page to confirm
instead of a guess.

A tile announced upright and then turned across its zone's seat for `confirm` frames in a row (a
riichi player who laid the 立直 discard upright and turned it at once) is announced again as
"turned", so the record can take the declaration it shows; a tile is announced turned once.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import cv2
import numpy as np

from vision.reader import TileReading


@dataclass(frozen=True)
class TileEvent:
    """What the controller receives. `event` is "appeared", "disappeared" or "turned" (an announced
    tile now lies across its zone's seat)."""

    event: str
    zone: str
    kind: str
    confidence: float
    seat: str
    track: int
    needs_referee: bool = False
    ruled: bool = False  # the kind is the referee's ruling, not the camera's vote
    #: the tile's centre in the frame (pixels): a tile lost for a moment and found again is
    #: a new track at the same place
    at: tuple[float, float] | None = None
    #: turned a quarter from the seat of its zone (most frames): a riichi player's 立直 discard
    sideways: bool = False

    def to_json(self) -> dict:
        d = {"event": self.event, "zone": self.zone, "kind": self.kind, "confidence": round(self.confidence, 4),
             "seat": self.seat, "track": self.track, "needs_referee": self.needs_referee}
        if self.ruled:
            d["ruled"] = True
        if self.at is not None:
            d["at"] = [round(self.at[0], 1), round(self.at[1], 1)]
        if self.sideways:
            d["sideways"] = True
        return d


def sideways(r: TileReading) -> bool:
    """Whether the tile lies across the seat of its zone (a zone with a seat: "discard:S")."""
    from vision.geometry import SEAT_ROTATION

    side = r.zone.partition(":")[2]
    return side in SEAT_ROTATION and (r.rotation - SEAT_ROTATION[side]) % 180 == 90


@dataclass
class _Track:
    id: int
    centre: np.ndarray
    zone: str
    seat: str
    votes: dict[str, float] = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=dict)
    accepted: dict[str, int] = field(default_factory=dict)
    seen: int = 0
    missing: int = 0
    announced: str | None = None
    last: TileReading | None = None
    ruled: str | None = None
    #: the referee ruled it no tile (a coin, a glare spot): followed, never announced again while it lies there
    dismissed: bool = False
    #: its zone was frozen since its last reading (something lay over it): what lies there now may be another tile
    covered: bool = False
    turned: int = 0  # frames that saw it lying across its zone's seat
    across: int = 0  # the latest frames in a row that saw it so
    announced_sideways: bool = False

    def add(self, r: TileReading) -> None:
        self.last = r
        self.turned += int(sideways(r))
        self.across = self.across + 1 if sideways(r) else 0
        self.votes[r.kind] = self.votes.get(r.kind, 0.0) + r.confidence
        self.counts[r.kind] = self.counts.get(r.kind, 0) + 1
        self.accepted[r.kind] = self.accepted.get(r.kind, 0) + int(r.accepted)

    def kind(self) -> tuple[str, float]:
        """The voted kind and its confidence: its share of the vote times its mean confidence;
        once the referee ruled, the ruled kind, sure."""
        if self.ruled is not None:
            return self.ruled, 1.0
        total = sum(self.votes.values())
        k = max(self.votes, key=self.votes.__getitem__)
        share = self.votes[k] / total if total else 0.0
        return k, share * self.votes[k] / self.counts[k]

    def sure(self, kind: str) -> bool:
        """Most frames read it above the reader's threshold."""
        return self.accepted.get(kind, 0) * 2 > self.counts.get(kind, 0)


class TileTracker:
    """Feed it each frame's readings with `update`; it returns the events that frame caused."""

    def __init__(self, confirm: int = 3, forget: int = 5, match_px: float = 18.0, referee_below: float = 0.8) -> None:
        self.confirm = confirm
        self.forget = forget
        self.match_px = match_px
        self.referee_below = referee_below
        self.tracks: list[_Track] = []
        self._next = 1

    def update(self, readings: list[TileReading], frozen: tuple[str, ...] | set[str] = ()) -> list[TileEvent]:
        """Vote one frame's readings in. Tracks in the `frozen` zones (something that is not a tile
        lies there: `TileReader.occluded`) are neither seen nor missed: a tile under a hand has not
        gone, and is there when the hand is."""
        events: list[TileEvent] = []
        centres = [np.mean(np.array(r.quad), axis=0) for r in readings]
        taken: set[int] = set()
        for t in self.tracks:
            best, dist = None, self.match_px
            for i, c in enumerate(centres):
                d = float(np.linalg.norm(c - t.centre))
                if i not in taken and d < dist:
                    best, dist = i, d
            if best is None:
                if t.zone not in frozen:
                    t.missing += 1
                else:
                    t.covered = True
                continue
            r = readings[best]
            if t.dismissed and t.covered and r.accepted and r.kind != t.announced:
                # ruled no tile, and once what covered it left a sure tile of another kind lies there: the thing
                # ruled was taken away under the hand and a tile laid in its place (a discard where a chip lay).
                # The ruling's track goes (its leaving said); the tile is a new track, announced as any tile is.
                # Before, the ruled track followed the tile, announced nothing, and the discard was never seen.
                t.missing = self.forget
                continue
            t.covered = False
            taken.add(best)
            t.centre = 0.7 * t.centre + 0.3 * centres[best]
            t.add(r)
            t.seen += 1
            t.missing = 0
        for i, r in enumerate(readings):
            if i not in taken:
                track = _Track(self._next, centres[i], r.zone, r.seat, seen=1)
                track.add(r)
                self.tracks.append(track)
                self._next += 1
        kept = []
        for t in self.tracks:
            kind, conf = t.kind()
            at = (float(t.centre[0]), float(t.centre[1]))
            if t.missing >= self.forget:
                if t.announced is not None:
                    events.append(TileEvent("disappeared", t.zone, t.announced, conf, t.seat, t.id, at=at))
                continue
            kept.append(t)
            if t.dismissed:  # its leaving is still said (above): the record lets go of it
                continue
            if t.seen >= self.confirm and t.missing == 0 and t.announced != kind:
                if t.announced is not None:  # the vote changed its mind: retract, then announce
                    events.append(TileEvent("disappeared", t.zone, t.announced, conf, t.seat, t.id, at=at))
                t.announced = kind
                ruled = t.ruled is not None
                unsure = not ruled and (conf < self.referee_below or not t.sure(kind))
                t.announced_sideways = t.turned * 2 > t.seen
                events.append(TileEvent("appeared", t.zone, kind, conf, t.seat, t.id, needs_referee=unsure, ruled=ruled,
                                        at=at, sideways=t.announced_sideways))
            elif t.announced is not None and not t.announced_sideways and t.across >= self.confirm:
                t.announced_sideways = True  # laid upright, then turned: 立直 shown a moment late
                events.append(TileEvent("turned", t.zone, t.announced, conf, t.seat, t.id, ruled=t.ruled is not None,
                                        at=at, sideways=True))
        self.tracks = kept
        return events

    def move(self, image_to_image: np.ndarray) -> None:
        """The camera moved, and `image_to_image` (3×3) takes where a tile lay in the old frames
        to where it lies in the new ones: the tracks follow, so the tiles still on the felt are
        neither lost nor announced again."""
        h = np.asarray(image_to_image, np.float64)
        for t in self.tracks:
            t.centre = cv2.perspectiveTransform(t.centre.reshape(1, 1, 2).astype(np.float64), h)[0, 0]
            if t.last is not None:
                quad = cv2.perspectiveTransform(np.asarray(t.last.quad, np.float64)[None], h)[0]
                t.last = replace(t.last, quad=[[float(x), float(y)] for x, y in quad])

    def rule(self, track: int, kind: str | None) -> bool:
        """The referee said what the tile of `track` is: its vote stops there (a camera that
        still reads it otherwise no longer flips it), and if that differs from what was announced,
        the next frame retracts it and announces the ruled kind. None lifts the ruling (undone).
        False if the track is gone."""
        t = self._live(track)
        if t is None:
            return False
        t.ruled = kind
        return True

    def dismiss(self, track: int, dismissed: bool = True) -> bool:
        """The referee ruled what `track` shows is no tile (`referee.camera_dismiss`): it is still followed
        (its readings are not a new tile), but announced no more, asked about no more, while it lies there;
        its leaving is still announced. `dismissed=False` lifts it (undone): the vote announces again.
        False if the track is gone."""
        t = self._live(track)
        if t is None:
            return False
        t.dismissed = dismissed
        return True

    def _live(self, track: int) -> _Track | None:
        return next((t for t in self.tracks if t.id == track), None)

    def reading(self, track: int) -> TileReading | None:
        """The latest reading of a live track (its corners in the frame), None once retired."""
        return next((t.last for t in self.tracks if t.id == track), None)

    def current(self) -> list[tuple[str, str, float]]:
        """(zone, kind, vote share) of every announced tile: the table as the reader believes it."""
        return [(t.zone, t.announced, t.kind()[1]) for t in self.tracks if t.announced is not None and not t.dismissed]

"""One step of the camera loop for the controller: grab, check health, read, vote, emit events.

The controller calls `step()` at its own pace (a few times a second) and forwards the events and
the status; nothing here raises for a bad camera or an unreadable frame, because the game goes on
with manual entry whatever the camera does.
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from vision.bump import TOLERANCE_MM, BumpWatch, shift_mm
from vision.calibrate import Calibration, CalibrationError, calibrate_aruco
from vision.camera import CameraStream
from vision.enroll import UNLIKE_SHARE
from vision.health import HealthStatus
from vision.kinds import FACE_KINDS
from vision.reader import Examples, ReadError, TileReader, TileReading
from vision.tracker import TileEvent, TileTracker

log = logging.getLogger(__name__)


@dataclass
class StepResult:
    """What one step produced: events for the game record, the camera's health for the display,
    and the raw readings (for the referee page's live view)."""

    status: HealthStatus
    events: list[TileEvent] = field(default_factory=list)
    readings: list[TileReading] = field(default_factory=list)
    problem: str = ""  # why no tiles were read although the camera is fine (e.g. markers hidden)
    #: zones not read in this frame: something that is not a tile lies there (a hand, a cup)
    occluded: tuple[str, ...] = ()
    #: the camera moved and the calibration was corrected from the felt's edges in this step
    #: (`vision.bump`): how far (mm) and the felt's corners in the frame now, for the log
    recalibrated: dict | None = None

    def to_json(self) -> dict:
        return {"camera": self.status.to_json(), "events": [e.to_json() for e in self.events],
                "tiles": [r.to_json() for r in self.readings], "problem": self.problem,
                "occluded": list(self.occluded), "recalibrated": self.recalibrated}


def tile_view(frame: np.ndarray, quad: np.ndarray, size: tuple[int, int] = (120, 160), margin: float = 0.25) -> np.ndarray:
    """A tile cut upright from the frame with a margin of its neighbours round it (a referee
    judges a tile better with its surroundings than from the network's small crop)."""
    from vision.detect import cut_crop

    centre = quad.mean(axis=0)
    grown = centre + (quad - centre) * (1 + margin)
    return cut_crop(frame, grown, size)


class VisionLoop:
    """Camera + reader + tracker. Every `recalibrate_every` frames it recalibrates from the
    markers when they are in view (a bumped camera heals itself); when they are not, the last
    calibration stays. Every frame is checked against the felt's edges (`vision.bump.BumpWatch`):
    a bumped camera is corrected from the markers, else from the edges, the tracks following the
    tiles to where they now lie in the frame, or reported as the step's problem."""

    #: Unsure tiles whose crops are kept for the referee's answer (`learn`), newest kept.
    KEEP_UNSURE = 64
    #: Frames in a row with most tiles unlike every enrolled kind (`enroll.UNLIKE_SHARE`) before the status
    #: says the enrollment is another set's (a hand over the felt or a few odd tiles are not).
    UNLIKE_FRAMES = 6

    def __init__(self, camera: CameraStream, reader: TileReader, tracker: TileTracker | None = None,
                 recalibrate_every: int = 50, save_enrollment: Path | None = None,
                 bump: BumpWatch | None = None) -> None:
        self.camera = camera
        self.bump = bump or BumpWatch()
        self.reader = reader
        self.tracker = tracker or TileTracker()
        self.recalibrate_every = recalibrate_every
        self.save_enrollment = save_enrollment
        self._frames = 0
        self._unlike_frames = 0  # frames in a row read with most tiles unlike the enrollment
        self._unlike_share = 0.0  # of the last frame that said
        #: markers that put the felt elsewhere than the calibration in the last frame: the next must agree
        self._markers_moved: Calibration | None = None
        self._unsure: OrderedDict[int, Examples] = OrderedDict()
        #: what the camera saw last, for the referee's view (one tuple: a reader in another thread
        #: gets a frame and its own readings, never a mix)
        self.last: tuple[np.ndarray, list[TileReading]] | None = None
        #: each unsure tile as the referee should see it: larger than the network's crop, upright
        self._unsure_views: OrderedDict[int, np.ndarray] = OrderedDict()

    def step(self) -> StepResult:
        """One frame grabbed, checked and read. A frame that could not be read for a `problem` (the
        felt not located) is not an OK camera: its status is `not_reading`, the problem beside it."""
        result = self._step()
        if result.problem and result.status.ok:
            result.status = HealthStatus("not_reading", result.status.detail)
        elif result.status.ok and self._unlike_frames >= self.UNLIKE_FRAMES:  # read, but with another set's samples
            result.status = HealthStatus("wrong_tiles", f"{self._unlike_share:.0%} of the tiles unlike every "
                                                        f"enrolled kind, {self._unlike_frames} frames in a row")
        return result

    def _step(self) -> StepResult:
        frame, status = self.camera.grab()
        if frame is None or not status.ok or status.suspect:  # suspect: dark or glaring in this frame only
            return StepResult(status)
        self._frames += 1
        stop, recalibrated = self._watch_bump(frame)
        if stop is not None:
            return StepResult(status, problem=stop)
        if recalibrated is None and self.reader.calibration is not None and (
                self._frames % self.recalibrate_every == 0 or self._markers_moved is not None):
            self._markers_again(frame)
        try:
            readings = self.reader.read(frame)
        except CalibrationError as exc:  # markers hidden, camera moved or its resolution changed: say so
            calibration = self.reader.calibration
            if calibration is not None and calibration.source == "aruco":
                self.reader.calibration = None  # the markers will say where the felt is
            # stored corners stay: they fit again once the camera is back at their resolution
            return StepResult(status, problem=str(exc))
        except ReadError as exc:
            log.warning("frame unreadable: %s", exc)
            return StepResult(status, problem=str(exc))
        self.last = (frame, readings)
        unlike = self.reader.unlike
        if unlike is not None:  # a frame with few tiles (or none) leaves the count as it was
            self._unlike_frames = self._unlike_frames + 1 if unlike >= UNLIKE_SHARE else 0
            self._unlike_share = unlike
        occluded = tuple(self.reader.occluded)
        return StepResult(status, self.observe(frame, readings, occluded), readings, occluded=occluded,
                          recalibrated=recalibrated)

    def _watch_bump(self, frame: np.ndarray) -> tuple[str | None, dict | None]:
        """Check the felt's edges against the calibration (`vision.bump.BumpWatch`): (why nothing is
        read this frame, or None; what was recalibrated, for the log). A knocked camera is put right
        from the markers where the table has them, else from the felt's edges, and the tracks are
        moved to where their tiles now lie in the frame, so none is announced gone or new."""
        calibration = self.reader.calibration
        if calibration is None:
            return None, None
        try:
            calibration = calibration.for_frame(frame)  # the reader's own is left to `read` (markers first)
            verdict = self.bump.check(frame, calibration)
        except CalibrationError:
            return None, None  # another view of the table: the read says so
        if verdict.hold:
            return "", None  # moved in this frame only so far: read nothing until it is sure
        new, how = verdict.calibration, "edges"
        if calibration.source == "aruco" and (new is not None or verdict.problem):
            try:
                new, how = calibrate_aruco(frame), "markers"
            except CalibrationError:
                pass  # markers covered: the edges' correction, if there is one
        if new is None:
            return (verdict.problem or None), None
        self._follow(new, calibration)
        self.bump.problem = ""
        log.warning("camera moved %.0f mm: calibrated again from the %s", verdict.moved_mm,
                    "corner markers" if how == "markers" else "felt's edges")
        return None, {"moved_mm": round(verdict.moved_mm, 1), "corners": new.corners(), "from": how}

    def _markers_again(self, frame: np.ndarray) -> None:
        """Recalibrate from the markers in view: at once where they say the felt lies where it did (within
        `bump.TOLERANCE_MM`), else when the next frame's markers say the same. A frame garbled on a lossy
        link puts the markers below its first bad byte out of place: the felt was recalibrated to the
        garbled picture and back by the edges a few frames later (the simulator's `corrupt`)."""
        try:
            markers = calibrate_aruco(frame)
            current = self.reader.calibration.for_frame(frame) if self.reader.calibration is not None else None
        except CalibrationError:
            self._markers_moved = None
            return  # markers covered for now (or none): keep the calibration we have
        if current is None or shift_mm(current, markers) <= TOLERANCE_MM or (
                self._markers_moved is not None and shift_mm(self._markers_moved, markers) <= TOLERANCE_MM):
            self._markers_moved = None
            self._follow(markers)
        else:
            self._markers_moved = markers

    def _follow(self, new: Calibration, old: Calibration | None = None) -> None:
        """Read with `new` from now on; the tracks move with it: a tile seen at p in the old frames
        (read with `old`, by default the reader's) lies at new⁻¹·old·p in the frames from now on."""
        old = old or self.reader.calibration
        if old is not None and old.size == new.size:
            self.tracker.move(np.linalg.inv(new.image_to_plane) @ old.image_to_plane)
        self.reader.calibration = new

    def observe(self, frame, readings: list[TileReading],  # type: ignore[no-untyped-def]
                occluded: tuple[str, ...] = ()) -> list[TileEvent]:
        """Vote one frame's readings into tile events (the `occluded` zones left as they were);
        keep crops of the tiles announced unsure, for the referee's ruling to teach the reader (`learn`)."""
        events = self.tracker.update(readings, frozen=occluded)
        for ev in events:
            if ev.event == "appeared" and ev.needs_referee:
                self._keep_unsure(frame, ev.track)
        return events

    def _keep_unsure(self, frame, track: int) -> None:  # type: ignore[no-untyped-def]
        reading = self.tracker.reading(track)
        if reading is None:
            return
        self._unsure[track] = self.reader.examples(frame, reading.quad, seed=track)
        self._unsure.move_to_end(track)
        while len(self._unsure) > self.KEEP_UNSURE:
            self._unsure.popitem(last=False)
        self._unsure_views[track] = tile_view(frame, np.asarray(reading.quad, np.float32))
        while len(self._unsure_views) > self.KEEP_UNSURE:
            self._unsure_views.popitem(last=False)

    def view_jpeg(self, width: int = 960) -> bytes | None:
        """The last frame with what was read on it, for the referee's page: each tile's outline
        (green: sure; amber: asked of the referee) and its code. None before the first frame."""
        last = self.last
        if last is None:
            return None
        frame, readings = last
        img = frame.copy()
        for r in readings:
            colour = (80, 200, 80) if r.accepted else (0, 170, 255)
            quad = np.asarray(r.quad, np.int32)
            cv2.polylines(img, [quad], True, colour, 2, cv2.LINE_AA)
            x, y = quad.min(axis=0)
            cv2.putText(img, r.kind, (int(x), int(y) - 4), cv2.FONT_HERSHEY_SIMPLEX, 0.55, colour, 2, cv2.LINE_AA)
        if img.shape[1] > width:
            img = cv2.resize(img, (width, round(img.shape[0] * width / img.shape[1])), interpolation=cv2.INTER_AREA)
        ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, 80])
        return buf.tobytes() if ok else None

    def tile_jpeg(self, track: int) -> bytes | None:
        """The unsure tile of `track` as the camera saw it when it asked (None: not kept)."""
        view = self._unsure_views.get(track)
        if view is None:
            return None
        ok, buf = cv2.imencode(".jpg", view, [cv2.IMWRITE_JPEG_QUALITY, 85])
        return buf.tobytes() if ok else None

    def learn(self, track: int, kind: str, corrected: bool = False, source: str = "") -> str:
        """The referee ruled on an unsure tile (`track` of its "appeared" event): the tracker
        takes the ruling as that tile's kind, and what the camera saw is enrolled as `kind`. Returns "learnt", "enough" (its kind has examples enough), "not a
        face" (`back`) or "gone" (no crops kept for that track: too old, or the service
        restarted). What is learnt is saved to `save_enrollment` when the table has that file."""
        self.tracker.rule(track, kind)
        examples = self._unsure.pop(track, None)
        if examples is None:
            return "gone"
        if kind not in FACE_KINDS:  # a face-down tile: nothing of the set's art to learn
            return "not a face"
        if not self.reader.learn(examples, kind, corrected, source):
            return "enough"
        self._save()
        return "learnt"

    def dismiss(self, track: int, dismissed: bool = True) -> bool:
        """The referee ruled the unsure reading of `track` no tile: the tracker stops announcing it
        (`TileTracker.dismiss`) and nothing is enrolled (a coin is no kind of tile). Its crops are kept,
        so a ruling made after an undo (`dismissed=False`) still teaches. False if the track is gone."""
        return self.tracker.dismiss(track, dismissed)

    def unlearn(self, source: str, track: int | None = None) -> int:
        """Forget what a ruling taught (the referee undid it), and lift it from the tile's track
        (the camera's vote decides again); how many examples went."""
        if track is not None:
            self.tracker.rule(track, None)
        if self.reader.enrollment is None:
            return 0
        gone = self.reader.enrollment.remove(source)
        if gone:
            self._save()
        return gone

    def _save(self) -> None:
        if self.save_enrollment is not None and self.reader.enrollment is not None:
            try:
                self.reader.enrollment.save(self.save_enrollment)
            except OSError as exc:  # a read-only card: keep learning in memory, say so
                log.warning("enrollment not saved: %s", exc)

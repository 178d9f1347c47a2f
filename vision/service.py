"""One step of the camera loop for the controller: grab, check health, read, vote, emit events.

The controller calls `step()` at its own pace (a few times a second) and forwards the events and
the status; nothing here raises for a bad camera or an unreadable frame, because the game goes on
with manual entry whatever the camera does.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

from vision.calibrate import CalibrationError
from vision.camera import CameraStream
from vision.health import HealthStatus
from vision.reader import ReadError, TileReader, TileReading
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

    def to_json(self) -> dict:
        return {"camera": self.status.to_json(), "events": [e.to_json() for e in self.events],
                "tiles": [r.to_json() for r in self.readings], "problem": self.problem}


class VisionLoop:
    """Camera + reader + tracker. Every `recalibrate_every` frames it recalibrates from the
    markers when they are in view (a bumped camera heals itself); when they are not, the last
    calibration stays."""

    def __init__(self, camera: CameraStream, reader: TileReader, tracker: TileTracker | None = None,
                 recalibrate_every: int = 50) -> None:
        self.camera = camera
        self.reader = reader
        self.tracker = tracker or TileTracker()
        self.recalibrate_every = recalibrate_every
        self._frames = 0

    def step(self) -> StepResult:
        frame, status = self.camera.grab()
        if frame is None or not status.ok:
            return StepResult(status)
        self._frames += 1
        if self.reader.calibration is not None and self._frames % self.recalibrate_every == 0:
            try:
                self.reader.calibrate(frame)
            except CalibrationError:
                pass  # markers covered for now: keep the calibration we have
        try:
            readings = self.reader.read(frame)
        except CalibrationError as exc:  # markers hidden or camera moved: say so, keep going
            self.reader.calibration = None
            return StepResult(status, problem=str(exc))
        except ReadError as exc:
            log.warning("frame unreadable: %s", exc)
            return StepResult(status, problem=str(exc))
        return StepResult(status, self.tracker.update(readings), readings)

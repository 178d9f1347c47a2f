"""The reader's settings, as the controller's `[camera]` table gives them (validated there, in
`table_controller.config.CameraSection`): where the camera is, the stored corners, the model,
this table's enrollment and the confidence threshold.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from vision.calibrate import Calibration
from vision.model import DEFAULT_MODEL


@dataclass(frozen=True)
class VisionConfig:
    camera: str | int = 0
    corners: tuple[tuple[float, float], ...] | None = None
    corners_size: tuple[int, int] | None = None
    model: Path = DEFAULT_MODEL
    enrollment: Path | None = None
    threshold: float | None = None

    @classmethod
    def from_camera_section(cls, source: str, corners: object = None, model: str = "", enrollment: str = "",
                            threshold: float | None = None,
                            corners_size: tuple[int, int] | None = None) -> "VisionConfig":
        """From `[camera]`: `source` is a device index ("0") or a URL."""
        return cls(camera=int(source) if source.isdigit() else source,
                   corners=tuple((float(x), float(y)) for x, y in corners) if corners else None,  # type: ignore[attr-defined]
                   corners_size=tuple(corners_size) if corners_size else None,  # type: ignore[arg-type]
                   model=Path(model) if model else DEFAULT_MODEL,
                   enrollment=Path(enrollment) if enrollment else None, threshold=threshold)

    def calibration(self) -> Calibration | None:
        """The stored calibration, or None to calibrate from the markers."""
        return Calibration.from_corners(self.corners, self.corners_size) if self.corners else None

    def reader(self):  # type: ignore[no-untyped-def]
        """A TileReader set up as configured."""
        from vision.enroll import Enrollment
        from vision.reader import TileReader

        enrollment = Enrollment.load(self.enrollment) if self.enrollment else None
        return TileReader(self.model, calibration=self.calibration(), enrollment=enrollment, threshold=self.threshold)

"""The `[vision]` table of the controller's TOML config: camera, calibration corners, model, enrollment.

Example (any config file the integrator loads):

    [vision]
    camera = "http://192.168.1.20:8080/stream.mjpg"   # or a device index such as 0
    corners = [[212.0, 48.5], [1083.0, 61.0], [1101.0, 925.0], [190.5, 910.0]]  # optional
    enrollment = "/var/lib/tablectl/enrollment.npz"   # optional
    threshold = 0.9                                    # optional; else the model's own
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path

from vision.calibrate import Calibration
from vision.model import DEFAULT_MODEL


class VisionConfigError(ValueError):
    """A `[vision]` table that cannot be used; the message names the key."""


@dataclass(frozen=True)
class VisionConfig:
    camera: str | int = 0
    corners: tuple[tuple[float, float], ...] | None = None
    model: Path = DEFAULT_MODEL
    enrollment: Path | None = None
    threshold: float | None = None

    def calibration(self) -> Calibration | None:
        """The stored calibration, or None to calibrate from the markers."""
        return Calibration.from_corners(self.corners) if self.corners else None

    def reader(self):  # type: ignore[no-untyped-def]
        """A TileReader set up as configured."""
        from vision.enroll import Enrollment
        from vision.reader import TileReader

        enrollment = Enrollment.load(self.enrollment) if self.enrollment else None
        return TileReader(self.model, calibration=self.calibration(), enrollment=enrollment, threshold=self.threshold)


def parse(table: dict) -> VisionConfig:
    """Validate a `[vision]` table (already parsed from TOML)."""
    unknown = set(table) - {"camera", "corners", "model", "enrollment", "threshold"}
    if unknown:
        raise VisionConfigError(f"[vision] has unknown keys: {', '.join(sorted(unknown))}")
    corners = table.get("corners")
    if corners is not None:
        if not (isinstance(corners, list) and len(corners) == 4 and all(isinstance(c, list) and len(c) == 2 for c in corners)):
            raise VisionConfigError("[vision] corners must be four [x, y] pairs, clockwise from W's left")
        corners = tuple((float(c[0]), float(c[1])) for c in corners)
    threshold = table.get("threshold")
    if threshold is not None and not (isinstance(threshold, (int, float)) and 0 < threshold < 1):
        raise VisionConfigError("[vision] threshold must be a number between 0 and 1")
    camera = table.get("camera", 0)
    if not isinstance(camera, (str, int)):
        raise VisionConfigError("[vision] camera must be a URL, a device path or a device index")
    return VisionConfig(camera=camera, corners=corners, model=Path(table.get("model", DEFAULT_MODEL)),
                        enrollment=Path(table["enrollment"]) if table.get("enrollment") else None,
                        threshold=float(threshold) if threshold is not None else None)


def load(path: Path | str) -> VisionConfig:
    """The `[vision]` table of a TOML file (defaults if the file has none)."""
    try:
        data = tomllib.loads(Path(path).read_text())
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise VisionConfigError(f"{path}: {exc}") from exc
    return parse(data.get("vision", {}))

"""Calibration: the homography from camera pixels to the table plane, from the ArUco markers in the
felt's corners or from four corners picked once and stored in config.

Markers make the reader survive a bumped camera (it recalibrates from every frame it can);
stored corners serve tables without markers.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.geometry import MARKER_IDS, TABLE_MM, marker_corners_mm


class CalibrationError(ValueError):
    """No usable calibration: too few markers seen, or corners that do not make a quadrilateral."""


@dataclass(frozen=True)
class Calibration:
    """Maps image pixels to table-plane millimetres (`image_to_plane`, 3x3)."""

    image_to_plane: np.ndarray
    source: str

    @property
    def plane_to_image(self) -> np.ndarray:
        return np.linalg.inv(self.image_to_plane)

    @classmethod
    def from_corners(cls, corners: list[list[float]] | np.ndarray) -> "Calibration":
        """Four image points of the felt's corners, clockwise from the one left of W's seat
        (the top-left seen from above with E at the bottom)."""
        pts = np.asarray(corners, np.float32).reshape(-1, 2)
        if pts.shape != (4, 2):
            raise CalibrationError(f"need 4 corners [[x, y], ...], got {pts.shape[0]} points")
        if abs(cv2.contourArea(pts)) < 100:
            raise CalibrationError("the four corners enclose no area: pick them again")
        dst = np.float32([[0, 0], [TABLE_MM, 0], [TABLE_MM, TABLE_MM], [0, TABLE_MM]])
        return cls(cv2.getPerspectiveTransform(pts, dst), "corners")

    def corners(self) -> list[list[float]]:
        """The felt's corners in the image, for storing in config."""
        dst = np.float32([[[0, 0], [TABLE_MM, 0], [TABLE_MM, TABLE_MM], [0, TABLE_MM]]])
        return [[round(float(x), 1), round(float(y), 1)] for x, y in cv2.perspectiveTransform(dst.astype(np.float64), self.plane_to_image)[0]]


_DICT = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
_DETECTOR = cv2.aruco.ArucoDetector(_DICT, cv2.aruco.DetectorParameters())


def find_markers(frame: np.ndarray) -> dict[int, np.ndarray]:
    """Corner markers seen in a frame: id -> its 4 corners in image pixels."""
    grey = frame if frame.ndim == 2 else cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    corners, ids, _ = _DETECTOR.detectMarkers(grey)
    found: dict[int, np.ndarray] = {}
    if ids is not None:
        for c, i in zip(corners, ids.ravel()):
            if int(i) in MARKER_IDS:
                found[int(i)] = c.reshape(4, 2)
    return found


def calibrate_aruco(frame: np.ndarray, min_markers: int = 3) -> Calibration:
    """Calibrate from the corner markers; three are enough (a hand may cover one)."""
    found = find_markers(frame)
    if len(found) < min_markers:
        raise CalibrationError(f"saw {len(found)} of the 4 corner markers (ids {sorted(found)}); need {min_markers}. "
                               "Clear the corners of the felt or store the corners in the config's [camera] corners.")
    src = np.concatenate([found[i] for i in sorted(found)]).astype(np.float32)
    dst = np.concatenate([marker_corners_mm(i) for i in sorted(found)]).astype(np.float32)
    h, _ = cv2.findHomography(src, dst, 0)
    if h is None:
        raise CalibrationError("markers found but their positions are inconsistent")
    return Calibration(h, "aruco")

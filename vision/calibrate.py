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


#: Two frame shapes are one camera at two resolutions when their aspect ratios differ less than this.
SAME_ASPECT = 0.01

#: How far beyond a picture's border a stored corner may lie, as a share of its longer side: a corner picked a
#: hair beyond the edge is still the felt in view.
CORNER_SLACK = 0.02


def corners_problem(corners: object, size: tuple[int, int] | None = None) -> str:
    """Why four points cannot be the felt's corners (clockwise from W's left) in a frame of `size` (width,
    height; None: the size is not known), in Chinese then English, or "". Stored corners that were not numbers,
    crossed (given row by row: top-left, top-right, bottom-left, bottom-right), ran counter-clockwise (every seat's
    tiles read at another seat's side) or lay off the picture read nothing, or the wrong seats, while the display
    said 摄像头正常."""
    try:
        pts = np.asarray(corners, np.float64).reshape(-1, 2)
    except (TypeError, ValueError):
        return f"四角须为 4 个点 / need 4 corners [[x, y], ...], got {corners!r}"
    if pts.shape != (4, 2):
        return f"四角须为 4 个点 / need 4 corners [[x, y], ...], got {pts.shape[0]} points"
    if not np.isfinite(pts).all():
        return f"四角坐标须为数字 / the corners {pts.tolist()} are not numbers"
    if not cv2.isContourConvex(pts.astype(np.float32).reshape(-1, 1, 2)):
        return ("四角连线交叉：请按台面一周的顺序给出，从西家左手角起顺时针（左上、右上、右下、左下）/ the four corners "
                "cross or fold in: give them in order round the felt, clockwise from W's left (the top-left seen from "
                "above with E at the bottom: top-left, top-right, bottom-right, bottom-left)")
    area = cv2.contourArea(pts.astype(np.float32), oriented=True)  # > 0: clockwise on the screen (y down)
    if abs(area) < 100:
        return "四角围成的面积为零，请重新标定 / the four corners enclose no area: pick them again"
    if area < 0:
        return ("四角为逆时针顺序：请从西家左手角起顺时针给出（左上、右上、右下、左下）/ the corners run counter-clockwise: "
                "give them clockwise from W's left (top-left, top-right, bottom-right, bottom-left), else each seat's "
                "tiles are read at another seat's side")
    if size is not None:
        w, h = size
        slack = CORNER_SLACK * max(w, h)
        off = [[round(float(x), 1), round(float(y), 1)] for x, y in pts
               if not (-slack <= x <= w + slack and -slack <= y <= h + slack)]
        if off:
            return (f"台面四角 {off} 超出 {w}×{h} 的画面：请重新标定四角（tablectl vision corners）/ the corners {off} lie "
                    f"outside the {w}×{h} picture; the felt must be whole in view: store its corners again "
                    "(`tablectl vision corners FRAME` finds them)")
    return ""


#: The least resolution over the felt (pixels per millimetre, at its worst corner) the reader is set
#: up for: it warps the felt to 0.8 px/mm and its model learnt tiles seen at 0.85-1.6 px/mm. Measured
#: on dorothys scenes with markers: at 0.73-1.1 px/mm 79-80 of 80 tiles right, 67-80 accepted; at 640x480
#: (0.5 px/mm) 71-75 right and only 17-30 accepted (the referee asked about the rest), nothing said.
LEAST_PX_PER_MM = 0.7


@dataclass(frozen=True)
class Calibration:
    """Maps image pixels to table-plane millimetres (`image_to_plane`, 3x3), for frames of `size`
    (width, height; None: not known yet, the first frame read sets it)."""

    image_to_plane: np.ndarray
    source: str
    size: tuple[int, int] | None = None

    @property
    def plane_to_image(self) -> np.ndarray:
        return np.linalg.inv(self.image_to_plane)

    @classmethod
    def from_corners(cls, corners: list[list[float]] | np.ndarray,
                     size: tuple[int, int] | None = None) -> "Calibration":
        """Four image points of the felt's corners, clockwise from the one left of W's seat
        (the top-left seen from above with E at the bottom), in frames of `size` when known."""
        problem = corners_problem(corners)
        if problem:
            raise CalibrationError(problem)
        pts = np.asarray(corners, np.float32).reshape(-1, 2)
        dst = np.float32([[0, 0], [TABLE_MM, 0], [TABLE_MM, TABLE_MM], [0, TABLE_MM]])
        return cls(cv2.getPerspectiveTransform(pts, dst), "corners", size)

    def for_frame(self, frame: np.ndarray) -> "Calibration":
        """This calibration for a frame of the frame's size.

        A camera can come back from a re-plug or a restart at another resolution (a USB camera's
        other mode, an IP camera's sub-stream). Pixels are then elsewhere, and the old mapping read
        the felt from the wrong place: 80 tiles became 3, or 33 wrong ones, with nothing said. The
        same view at another resolution (same aspect ratio) is scaled; another aspect ratio is
        another crop of the sensor, which no scaling fixes: CalibrationError says what to do."""
        h, w = frame.shape[:2]
        if self.size is None:
            fitted = Calibration(self.image_to_plane, self.source, (w, h))
            # stored corners meet their frame's size here first: ones off it read nothing, and said nothing
            problem = corners_problem(fitted.corners(), (w, h)) if self.source == "corners" else ""
            if problem:
                raise CalibrationError(problem)
            return fitted
        if self.size == (w, h):
            return self
        w0, h0 = self.size
        if abs((w / h) / (w0 / h0) - 1) > SAME_ASPECT:
            raise CalibrationError(
                f"摄像头分辨率由 {w0}×{h0} 变为 {w}×{h}，画面比例不同：请恢复原分辨率或重新标定四角 / the camera "
                f"now sends {w}×{h} frames; the calibration was made on {w0}×{h0} ones, another view of the "
                "table: set the camera back to that resolution, or store the corners again")
        scale = np.diag([w / w0, h / h0, 1.0])  # old pixels -> new pixels
        return Calibration(self.image_to_plane @ np.linalg.inv(scale), self.source, (w, h))

    def px_per_mm(self) -> tuple[float, float]:
        """The camera's resolution over the felt, pixels per millimetre: (least, most) of its four
        corners (a tilted camera sees the far side smaller)."""
        m = self.plane_to_image.astype(np.float64)
        out = []
        for x, y in ((0.0, 0.0), (TABLE_MM, 0.0), (TABLE_MM, TABLE_MM), (0.0, TABLE_MM)):
            p = cv2.perspectiveTransform(np.float64([[[x, y], [x + 1, y], [x, y + 1]]]), m)[0]
            (ax, ay), (bx, by) = p[1] - p[0], p[2] - p[0]
            out.append(float(np.sqrt(abs(ax * by - ay * bx))))
        return min(out), max(out)

    def resolution_problem(self) -> str:
        """What to say when part of the felt is seen too coarsely to read (`LEAST_PX_PER_MM`), or ""."""
        least, most = self.px_per_mm()
        if least >= LEAST_PX_PER_MM:
            return ""
        return (f"台面清晰度不足：每毫米 {least:.2f}–{most:.2f} 像素，至少需 {LEAST_PX_PER_MM}，多数牌须裁判确认 / the felt is "
                f"seen at {least:.2f}-{most:.2f} px/mm, under the {LEAST_PX_PER_MM} the reader needs: most tiles will "
                "go to the referee; set the camera to a higher resolution, or bring it closer or more overhead")

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
        # an out-of-focus or tilted camera loses its markers as a tile box over them does: name all three
        raise CalibrationError(f"只看到 {len(found)} 个台角标记（编号 {sorted(found)}），至少需要 {min_markers} 个："
                               "请勿遮挡台面四角，并检查摄像头对焦、四角是否都在画面中；其间请手动录入 / saw "
                               f"{len(found)} of the 4 corner markers (ids {sorted(found)}); need {min_markers}. "
                               "Clear the corners of the felt, check the camera's focus and that all four corners "
                               "are in view, or store the corners in the config's [camera] corners.")
    src = np.concatenate([found[i] for i in sorted(found)]).astype(np.float32)
    dst = np.concatenate([marker_corners_mm(i) for i in sorted(found)]).astype(np.float32)
    h, _ = cv2.findHomography(src, dst, 0)
    if h is None:
        raise CalibrationError("台角标记位置互相矛盾，请检查标记是否贴错 / markers found but their positions are inconsistent")
    return Calibration(h, "aruco", (frame.shape[1], frame.shape[0]))

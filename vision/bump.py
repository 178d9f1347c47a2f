"""A bumped camera: where the felt's four edges lie in a frame, against where the calibration puts
them, so a table calibrated from stored corners (no markers) notices that its camera moved and
finds its corners again from the edges.

Why: stored corners are right only while the camera stays put. A camera knocked by ~10 mm put the
rim beyond the felt inside the plane; the reader took it for something lying on the felt, left
that seat's zones unread, and the play record waited for them for good, with nothing said
(`tests/vision/test_vision_bump.py`). Markers heal this by themselves (`VisionLoop` recalibrates
from them); this does the same from the felt's edges, which every table has.

The edges are found on a coarse plane that reaches `MARGIN_MM` beyond the felt: along each side,
in strips, where felt (the felt's colour, `detect.felt_distance`) gives way to something that is
not felt. A hand, an arm or a tile at the edge spoils a few strips; a robust line fit keeps the
rest. Where all four edges are found, their corners give the correction; where not, the reader
stops and says what to do (store the corners again), rather than read zones from the wrong place.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

from table_controller.tiles import SEAT_NAMES

from vision.calibrate import Calibration, CalibrationError
from vision.detect import FELT_DISTANCE, felt_distance
from vision.geometry import TABLE_MM

#: How far beyond (and inside) a stored edge the search looks: a bump further than this is not
#: found, and reported as a problem.
MARGIN_MM = 80.0
#: Resolution of the search plane: the edges come out to about a millimetre.
PX_PER_MM = 0.5
#: The ends of a side are not searched: markers, and hands resting at the corners.
END_SKIP_MM = 70.0
#: Width of one strip along a side (one edge point each).
STRIP_MM = 8.0
#: Felt must fill this much of the window inside an edge point, and at most 1 - this outside it.
WINDOW_MM = 12.0
FILL = 0.75
#: An edge point further than this from the side's line is a hand, a tile or a shadow.
INLIER_MM = 3.0
#: A side is found when this share of its strips lie on one line.
SUPPORT = 0.4
#: Edges this close to where the calibration puts them: the camera has not moved.
TOLERANCE_MM = 5.0

SIDES = ("top", "right", "bottom", "left")  # W's, S's, E's and N's side of the felt, seen from above


@dataclass(frozen=True)
class Side:
    """One edge as outward offsets from where the calibration puts it: a + b·u (mm) at the
    distance u along the side (x for top and bottom, y for left and right)."""

    a: float
    b: float
    support: float

    def offset(self, u: float) -> float:
        return self.a + self.b * u

    def moved(self) -> float:
        """The larger offset at the two ends searched."""
        return max(abs(self.offset(END_SKIP_MM)), abs(self.offset(TABLE_MM - END_SKIP_MM)))


@dataclass(frozen=True)
class FeltEdges:
    """The felt's edges found in one frame under one calibration (`sides`: those found)."""

    sides: dict[str, Side] = field(default_factory=dict)

    @property
    def moved_mm(self) -> float:
        """How far the felt lies from where the calibration puts it (0 when no side was found)."""
        return max((s.moved() for s in self.sides.values()), default=0.0)

    def corners(self) -> np.ndarray:
        """The felt's corners on the calibration's plane (mm), clockwise from the top-left;
        needs all four sides."""
        s = self.sides
        # each side as n·p = c: top y + b x = -a, bottom y - b x = T + a, left x + b y = -a, right x - b y = T + a
        lines = {"top": ((s["top"].b, 1.0), -s["top"].a), "bottom": ((-s["bottom"].b, 1.0), TABLE_MM + s["bottom"].a),
                 "left": ((1.0, s["left"].b), -s["left"].a), "right": ((1.0, -s["right"].b), TABLE_MM + s["right"].a)}
        out = []
        for one, other in (("top", "left"), ("top", "right"), ("bottom", "right"), ("bottom", "left")):
            (n1, c1), (n2, c2) = lines[one], lines[other]
            out.append(np.linalg.solve(np.array([n1, n2]), np.array([c1, c2])))
        return np.array(out, np.float32)

    def corrected(self, calibration: Calibration) -> Calibration:
        """The calibration that puts the felt's edges back on the felt's square."""
        square = np.float32([[0, 0], [TABLE_MM, 0], [TABLE_MM, TABLE_MM], [0, TABLE_MM]])
        fix = cv2.getPerspectiveTransform(self.corners(), square).astype(np.float64)
        return Calibration(fix @ calibration.image_to_plane, calibration.source, calibration.size)


def _bands(a: np.ndarray, reach: int) -> dict[str, np.ndarray]:
    """Each side's band of the search plane, rows running outward across the edge, columns along it."""
    n = a.shape[0]
    return {"top": a[:2 * reach][::-1], "bottom": a[n - 2 * reach:],
            "left": a[:, :2 * reach][:, ::-1].T, "right": a[:, n - 2 * reach:].T}


def _fit(u: np.ndarray, off: np.ndarray, strips: int) -> Side | None:
    """Robust line through the edge points: Theil-Sen, then least squares on its inliers."""
    if len(u) < max(3, SUPPORT * strips):
        return None
    i, j = np.triu_indices(len(u), 1)
    du = u[j] - u[i]
    b = float(np.median((off[j] - off[i])[du != 0] / du[du != 0]))
    a = float(np.median(off - b * u))
    for _ in range(2):
        inl = np.abs(off - (a + b * u)) <= INLIER_MM
        if inl.sum() < max(3, SUPPORT * strips):
            return None
        b, a = (float(v) for v in np.polyfit(u[inl], off[inl], 1))
    inl = np.abs(off - (a + b * u)) <= INLIER_MM
    support = float(inl.sum()) / strips
    return Side(a, b, support) if support >= SUPPORT else None


def find_felt_edges(frame: np.ndarray, calibration: Calibration, felt_max: float = FELT_DISTANCE) -> FeltEdges:
    """The felt's edges in `frame`, as offsets from where `calibration` puts them (`felt_max`: how far
    from the felt's colour is still felt; `find_felt` narrows it for a felt near the floor's colour)."""
    s, m = PX_PER_MM, MARGIN_MM
    size = round((TABLE_MM + 2 * m) * s)
    to_search = np.array([[s, 0, m * s], [0, s, m * s], [0, 0, 1.0]]) @ calibration.for_frame(frame).image_to_plane
    plane = cv2.warpPerspective(frame, to_search, (size, size), flags=cv2.INTER_AREA,
                                borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0, 0))
    inside = cv2.warpPerspective(np.full(frame.shape[:2], 255, np.uint8), to_search, (size, size),
                                 flags=cv2.INTER_NEAREST, borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    lo, hi = int((m + 100) * s), int((m + TABLE_MM - 100) * s)  # the felt's colour from its middle
    dist, _ = felt_distance(plane, sample=plane[lo:hi, lo:hi])
    felt = (dist < felt_max).astype(np.float32)
    valid = (inside > 0).astype(np.float32)
    reach, win, strip = round(m * s), round(WINDOW_MM * s), round(STRIP_MM * s)
    first, last = round((m + END_SKIP_MM) * s), round((m + TABLE_MM - END_SKIP_MM) * s)
    strips = (last - first) // strip
    along = first + strip * np.arange(strips) + strip / 2  # strip centres, search-plane px
    u_mm = along / s - m
    sides: dict[str, Side] = {}
    valid_bands = _bands(valid, reach)
    for name, f_band in _bands(felt, reach).items():
        v_band = valid_bands[name]
        cols = slice(first, first + strips * strip)
        f = f_band[:, cols].reshape(2 * reach, strips, strip).mean(axis=2)
        v = v_band[:, cols].reshape(2 * reach, strips, strip).min(axis=2)
        cf = np.vstack([np.zeros((1, strips)), np.cumsum(f, axis=0)])
        cv = np.vstack([np.zeros((1, strips)), np.cumsum(v, axis=0)])
        t = np.arange(win, 2 * reach - win + 1)
        felt_in = (cf[t] - cf[t - win]) / win
        felt_out = (cf[t + win] - cf[t]) / win
        seen = (cv[t + win] - cv[t - win]) >= 2 * win  # every pixel of both windows in the frame
        ok = (felt_in >= FILL) & (felt_out <= 1 - FILL) & seen
        score = np.where(ok, felt_in - felt_out, -1.0)
        best = score.shape[0] - 1 - np.argmax(score[::-1], axis=0)  # the outermost of the best
        found = score[best, np.arange(strips)] > 0
        off_mm = (t[best] - reach) / s
        side = _fit(u_mm[found], off_mm[found], strips)
        if side is not None:
            sides[name] = side
    return FeltEdges(sides)


def _order_like(corners: np.ndarray, prior: Calibration | None) -> np.ndarray:
    """Four image points in the calibration's order: each matched to the corner of the felt's square
    the `prior` calibration puts it nearest; without one, the felt's top-left is the picture's
    (W's side at the top of the picture, as a camera is mounted: docs/vision.md)."""
    if prior is None:
        centre = corners.mean(axis=0)
        angle = np.arctan2(corners[:, 1] - centre[1], corners[:, 0] - centre[0])
        ring = corners[np.argsort(angle)]  # clockwise on the screen, from the left
        start = int(np.argmin(ring.sum(axis=1)))  # the top-left: least x + y
        return np.roll(ring, -start, axis=0)
    square = np.float32([[0, 0], [TABLE_MM, 0], [TABLE_MM, TABLE_MM], [0, TABLE_MM]])
    on_plane = cv2.perspectiveTransform(corners[None].astype(np.float64), prior.image_to_plane)[0]
    nearest = [int(np.argmin(np.linalg.norm(on_plane - c, axis=1))) for c in square]
    if len(set(nearest)) < 4:
        raise ValueError("the felt found is not the felt the camera saw before")
    return corners[nearest]


#: How far from the felt's colour is still felt, tried in turn by `find_felt`: the reader's, then narrower
#: for a dim felt near the floor's colour (the simulator's poses 3: the floor 22-29 from the felt, which
#: is 1-4 from itself; the whole picture was taken for the felt).
FELT_TRIES = (FELT_DISTANCE, 20.0, 14.0)
#: Felt pixels (of the 320-px-wide picture) along one border of the picture beyond which the felt runs
#: out of it; a corner that only touches it is in view (pose 0: a corner 8 px from the bottom was refused).
CUT_PX = 6


def find_felt(frame: np.ndarray, prior: Calibration | None = None) -> Calibration | None:
    """The felt's corners found in the whole picture, without stored corners or a search near them:
    the largest region of the felt's colour (the colour of the picture's middle), its outline
    made a quadrilateral, refined by `find_felt_edges`. None when the felt is not all in view
    (it runs along the picture's border) or is not a quadrilateral; its corners are ordered as
    `prior` had them, else with W's side at the top of the picture. `felt_problem` says why not."""
    return _find_felt(frame, prior)[0]


def felt_problem(frame: np.ndarray) -> str:
    """Why `find_felt` finds no felt in `frame`, in words for the technician, Chinese first ("" if it does)."""
    return _find_felt(frame, None)[1]


def _find_felt(frame: np.ndarray, prior: Calibration | None) -> tuple[Calibration | None, str]:
    h, w = frame.shape[:2]
    scale = 320.0 / w
    small = cv2.resize(frame, (320, round(h * scale)), interpolation=cv2.INTER_AREA)
    sh, sw = small.shape[:2]
    middle = small[int(sh * 0.35):int(sh * 0.65), int(sw * 0.35):int(sw * 0.65)]
    dist, _ = felt_distance(small, sample=middle)
    why = ""
    for felt_max in FELT_TRIES:
        quad, why = _felt_quad(dist, felt_max)
        if quad is None:
            continue
        quad = quad / scale
        try:
            rough = Calibration.from_corners(_order_like(quad, prior), (w, h))
        except (ValueError, CalibrationError):
            why = _NOT_QUAD
            continue
        edges = find_felt_edges(frame, rough, felt_max)
        if len(edges.sides) == len(SIDES):
            return edges.corrected(rough), ""
        missing = "、".join(_SIDE_ZH[s] for s in SIDES if s not in edges.sides)
        why = (f"台面{missing}边找不到清楚的边缘（台边有物品，或台面与台边颜色相近）/ the felt's edge is not clear "
               f"on {', '.join(s for s in SIDES if s not in edges.sides)} (things along it, or a rim of the "
               "felt's colour)")
    return None, why


_NOT_QUAD = ("台面轮廓不是四边形（有物品压住台边或台角？）/ the felt's outline is not a quadrilateral (something over "
             "an edge or a corner?)")


def _felt_quad(dist: np.ndarray, felt_max: float) -> tuple[np.ndarray | None, str]:
    """The felt's quadrilateral in the small picture at `felt_max`, or None and why not."""
    sh, sw = dist.shape
    mask = (dist < felt_max).astype(np.uint8) * 255
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8))
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    if not contours:
        return None, "画面中没有台面颜色的区域 / nothing of the felt's colour in the picture"
    felt = max(contours, key=cv2.contourArea)
    region = np.zeros_like(mask)
    cv2.drawContours(region, [felt], -1, 255, cv2.FILLED)
    cut = [name for name, line in (("top", region[0]), ("bottom", region[-1]), ("left", region[:, 0]),
                                   ("right", region[:, -1])) if np.count_nonzero(line) > CUT_PX]
    if len(cut) == len(SIDES):
        return None, ("台面与周围颜色太相近，分不出台面（整个画面都像台面）/ the felt cannot be told from its "
                      "surroundings: the whole picture looks like felt (a felt near the floor's colour)")
    if cut:
        edge = {"top": "上", "bottom": "下", "left": "左", "right": "右"}
        return None, (f"台面超出画面{'、'.join(edge[c] for c in cut)}边：请调整摄像头，使四边全在画面中 / the felt "
                      f"runs out of the picture at its {', '.join(cut)}: aim or raise the camera so all four edges "
                      "are in view")
    if cv2.contourArea(felt) < 0.1 * sw * sh:
        return None, "台面太小或找不到 / the felt is too small in the picture, or not found"
    hull = cv2.convexHull(felt)
    for eps in (0.01, 0.02, 0.03, 0.05, 0.08):
        approx = cv2.approxPolyDP(hull, eps * cv2.arcLength(hull, True), True)
        if len(approx) == 4:
            return approx.reshape(4, 2).astype(np.float32), ""
    return None, _NOT_QUAD


@dataclass(frozen=True)
class BumpVerdict:
    """What one check found: `moved_mm` (0: fits, or no edge in view); `hold`: moved in this
    frame only so far, read nothing until the next check says; `calibration`: the corrected one;
    `problem`: moved, and not correctable from this view."""

    moved_mm: float = 0.0
    hold: bool = False
    calibration: Calibration | None = None
    problem: str = ""


class BumpWatch:
    """Checks each frame's felt edges against a stored-corners calibration (`check`).

    A move is believed once `confirm` checks in a row see it (a sleeve along an edge is seen
    once), then corrected from the four edges, or, when they are not all near where they were
    (a knock further than the search reaches), from the felt found in the whole picture
    (`find_felt`); failing both it is reported as `problem` until a check finds the felt where it
    belongs. Edges that were seen to fit and are now missing on two sides or more for
    `lost_after` checks are looked for in the whole picture the same way: a camera slid so far
    that an edge left the search (or the picture) looks like that, and so would a felt with
    things along two of its sides; the problem says both. A felt whose edges were never seen to
    fit (a rim of the felt's colour) is not watched: nothing tells a knock there."""

    def __init__(self, tolerance_mm: float = TOLERANCE_MM, confirm: int = 2, lost_after: int = 6) -> None:
        self.tolerance_mm = tolerance_mm
        self.confirm = confirm
        self.lost_after = lost_after
        self.problem = ""
        #: the felt's edges were seen where the calibration puts them (three sides or more) once
        self.edges_seen = False
        self._strikes = 0
        self._lost = 0
        #: the edges of the last check that saw a move: the next must see the same move to confirm it
        self._pending: FeltEdges | None = None

    def check(self, frame: np.ndarray, calibration: Calibration) -> BumpVerdict:
        edges = find_felt_edges(frame, calibration)
        moved, found = edges.moved_mm, len(edges.sides)
        if moved <= self.tolerance_mm and found >= 3:
            self._strikes, self._lost, self.problem, self.edges_seen = 0, 0, "", True
            return BumpVerdict(moved)
        if moved <= self.tolerance_mm:  # too few edges to say: covered, or moved out of the search
            self._strikes = 0
            self._lost += 1
            if not self.edges_seen:
                return BumpVerdict(0.0, problem=self.problem)
            if self._lost < self.lost_after:  # read nothing meanwhile: the tracks stay as they are
                return BumpVerdict(0.0, hold=True, problem=self.problem)
            return self._look_for_felt(frame, calibration, moved, edges)
        self._lost = 0
        # a move is confirmed by the next frame seeing the same move: a frame garbled on a lossy link
        # shows edges shifted, each its own way, and two of them in a row recalibrated to one and back
        same = self._pending is not None and _agree(self._pending, edges, self.tolerance_mm)
        self._strikes = self._strikes + 1 if same else 1
        self._pending = edges
        if self._strikes < self.confirm:
            return BumpVerdict(moved, hold=True, problem=self.problem)
        if found == len(SIDES):
            self._strikes, self.problem, self.edges_seen = 0, "", True
            return BumpVerdict(moved, calibration=edges.corrected(calibration))
        return self._look_for_felt(frame, calibration, moved, edges)

    def _look_for_felt(self, frame: np.ndarray, calibration: Calibration, moved: float,
                       edges: FeltEdges) -> BumpVerdict:
        found = find_felt(frame, prior=calibration)
        if found is not None:
            self._strikes, self._lost, self.problem, self.edges_seen = 0, 0, "", True
            shift = shift_mm(calibration, found)
            if shift <= self.tolerance_mm:
                return BumpVerdict(shift)  # where it was: its edges were only covered
            return BumpVerdict(shift, calibration=found)
        missing = "、".join(_SIDE_ZH[s] for s in SIDES if s not in edges.sides)
        if moved > self.tolerance_mm:  # Chinese first: the referee's display shows it as it is
            self.problem = (f"摄像头被碰动，台面边缘偏离约 {moved:.0f} 毫米，看不到{missing}边，无法自动校正："
                            "请重新标定四角，其间请手动录入 / the camera moved: the felt's edges lie "
                            f"{moved:.0f} mm from the stored corners, and not all four edges are in view to correct "
                            "it; store the corners again (tablectl vision corners) and enter plays by hand meanwhile")
        else:
            self.problem = (f"看不到台面{missing}边：摄像头可能被碰动，或有物品压住台边；请清开台边，或重新标定四角，"
                            "其间请手动录入 / the felt's edges are not where the stored corners put them: the camera "
                            "moved, or something lies along the edges; clear the edges, or set the camera back or "
                            "store the corners again, and enter plays by hand meanwhile")
        return BumpVerdict(moved, problem=self.problem)


def _agree(one: FeltEdges, other: FeltEdges, tolerance_mm: float) -> bool:
    """Whether two checks saw the felt's edges in the same place: two sides or more found in both,
    each within `tolerance_mm` of the other at both ends searched."""
    both = [name for name in one.sides if name in other.sides]
    ends = (END_SKIP_MM, TABLE_MM - END_SKIP_MM)
    return len(both) >= 2 and all(abs(one.sides[n].offset(u) - other.sides[n].offset(u)) <= tolerance_mm
                                  for n in both for u in ends)


def shift_mm(calibration: Calibration, other: Calibration) -> float:
    """How far apart (mm, on the plane) two calibrations put the felt's corners."""
    square = np.float64([[[0, 0], [TABLE_MM, 0], [TABLE_MM, TABLE_MM], [0, TABLE_MM]]])
    seen = cv2.perspectiveTransform(square, np.linalg.inv(other.image_to_plane))
    return float(np.abs(cv2.perspectiveTransform(seen, calibration.image_to_plane) - square).max())


#: Each side of the felt by the seat sitting at it (the SIDES comment), named as the glossary names seats.
_SIDE_ZH = {side: f"{SEAT_NAMES[seat]}家" for side, seat in zip(SIDES, ("W", "S", "E", "N"), strict=True)}

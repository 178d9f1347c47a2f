"""The reader the controller calls: a camera frame in, the face-up tiles on the felt out, each with
its kind, confidence, rotation, the seat that placed it, its zone and its corners in the frame.

Low-confidence tiles are returned flagged, not dropped and not guessed, so the referee page can ask
a person; the count constraints of a set (four of a kind, one of each flower) are applied last.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path

import cv2
import numpy as np

from vision.calibrate import Calibration, CalibrationError, calibrate_aruco, find_markers
from vision.detect import (PX_PER_MM, Candidate, cut_crop, find_candidates, foreground_mask, occluded_zones,
                           quad_to_image, warp_to_plane)
from vision.enroll import (TEMPLATED_POSITIONS, Enrollment, EnrollmentError, layout_problems, reading_order,
                           unlike_share)
from vision.geometry import ROTATION_SEAT, SEAT_ROTATION, zone_of
from vision.kinds import FACE_KINDS, KINDS, assign_within_counts
from vision.model import DEFAULT_MODEL, Prediction, TileClassifier, average, second_look_model

#: Fallback rejection threshold on the kind probability; the model's own JSON recipe carries the
#: one chosen on its synthetic validation crops (training styles only, never the reserved ones).
DEFAULT_THRESHOLD = 0.9


def model_threshold(model: Path | str) -> float:
    """The threshold stored beside the model by `tablectl vision train`, else the fallback."""
    import json

    meta = Path(model).with_suffix(".json")
    try:
        return float(json.loads(meta.read_text())["threshold"])
    except (OSError, KeyError, ValueError, TypeError):
        return DEFAULT_THRESHOLD


#: A tile the reader is this unsure of (after any enrollment) is looked at again turned half
#: round, and the two looks are averaged. The network learnt tiles both ways up, so the turned
#: crop is a second, differently wrong opinion. On 20 dev scenes of held-out drawn sets it took
#: flowers from 0.785 to 0.861 and from 0.924 to 0.951, the 34 kinds within 0.4 points either
#: way; an enrolled table is sure of nearly every tile and so pays almost nothing for it.
SECOND_LOOK_BELOW = 0.9


#: Kinds that look the same turned half round: their rotation is not read from the face.
SYMMETRIC = frozenset({"2p", "4p", "5p", "6p", "8p", "9p", "2s", "4s", "6s", "8s", "9s", "5z", "7z", "back"})


#: Tiles of a kind learnt from the referee's confirmations (`TileReader.learn`) beyond which a
#: confirmation "read right" adds nothing; corrections are always learnt.
LEARN_UP_TO = 4
#: Rulings of one kind whose examples are kept, the newest (a correction past them drops the oldest).
#: Before, every correction stayed all day: each frame's read compares every tile with every
#: example, and a day's 1,000 corrections took a frame's read from 54 to 151 ms of CPU (and 12 MB).
LEARN_KEPT = 8


@dataclass
class Examples:
    """Jittered crops of one tile (both ways up), and which of them also give templates."""

    crops: list[np.ndarray]
    templated: list[bool]


class ReadError(ValueError):
    """The frame cannot be read: not an image, empty, or the table cannot be located."""


@dataclass
class TileReading:
    """One tile as read. `accepted` is False when `confidence` is under the threshold: show it to
    the referee rather than trust it. `quad` is in frame pixels, corner 0 the tile's top-left."""

    kind: str
    confidence: float
    rotation: int
    seat: str
    zone: str
    quad: list[list[float]]
    accepted: bool = True
    second: str = ""

    def to_json(self) -> dict:
        d = asdict(self)
        d["confidence"] = round(self.confidence, 4)
        return d


def _kind_probs(p: Prediction) -> np.ndarray:
    """Probabilities over KINDS plus the rejection class last."""
    return p.probs


class TileReader:
    """Reads frames of one table. Calibrates from the markers on the first frame and keeps that
    calibration (a fixed camera); call `calibrate` again, or set `calibration = None`, after the
    camera moved (`VisionLoop` does so when the markers are lost)."""

    def __init__(self, model: Path | str = DEFAULT_MODEL, calibration: Calibration | None = None,
                 enrollment: Enrollment | None = None, threshold: float | None = None,
                 second_look_below: float | None = SECOND_LOOK_BELOW, second_model: Path | str | None = None) -> None:
        self.classifier = TileClassifier(model)
        #: None: one look at every crop (see `SECOND_LOOK_BELOW`)
        self.second_look_below = second_look_below
        #: the network of the second look: `second_model`, else the one the model's recipe names,
        #: else the model itself (a network trained otherwise errs otherwise)
        second = second_model or second_look_model(model)
        self.second = TileClassifier(second) if second else self.classifier
        self.calibration = calibration
        #: zones with something on them that is not a tile in the last frame read (`occluded_zones`)
        self.occluded: tuple[str, ...] = ()
        self.enrollment = enrollment
        #: of the last frame read, the share of its tiles unlike every enrolled kind (`enroll.unlike_share`):
        #: another tile set than the one enrolled; None where it says nothing
        self.unlike: float | None = None
        self._similarity: np.ndarray | None = None
        self.threshold = model_threshold(model) if threshold is None else threshold

    # --- whole frames ---------------------------------------------------------------------
    def calibrate(self, frame: np.ndarray) -> Calibration:
        self.calibration = calibrate_aruco(_check_frame(frame))
        return self.calibration

    def _candidates(self, frame: np.ndarray) -> tuple[np.ndarray, list[Candidate]]:
        """The checked frame and the tile candidates on the table plane (calibrating first if needed)."""
        frame = _check_frame(frame)
        if self.calibration is None:
            self.calibrate(frame)
        elif self.calibration.size not in (None, (frame.shape[1], frame.shape[0])) \
                and self.calibration.source == "aruco":
            try:  # the camera came back at another resolution: the markers say where the felt is now
                self.calibrate(frame)
            except CalibrationError:
                pass  # markers covered: the old view scaled, if it is the same view
        assert self.calibration is not None
        self.calibration = self.calibration.for_frame(frame)
        plane = warp_to_plane(frame, self.calibration)
        mask = foreground_mask(plane)
        chips: list[Candidate] = []
        candidates = find_candidates(plane, mask, chips)
        self.occluded = occluded_zones(mask, candidates + chips)  # a chip hides no tile
        return frame, candidates

    def read(self, frame: np.ndarray) -> list[TileReading]:
        """All face-up (and face-down) tiles on the felt in one frame."""
        frame, cands = self._candidates(frame)
        assert self.calibration is not None
        quads = [quad_to_image(c.quad, self.calibration) for c in cands]
        crops = [cut_crop(frame, q, self.classifier.crop_size) for q in quads]
        preds = self.classify(crops)
        self.unlike = unlike_share(self.enrollment, self._similarity)
        chosen = assign_within_counts(np.stack([p.probs for p in preds])) if preds else []
        readings = []
        for cand, quad, pred, top in zip(cands, quads, preds, chosen):
            r = self._reading(cand, quad, pred, int(top))
            if r is not None and r.zone not in self.occluded:  # a zone with a hand in it is not read
                readings.append(r)
        return readings

    def read_crops(self, crops: list[np.ndarray]) -> list[Prediction]:
        return self.classify(crops)

    def classify(self, crops: list[np.ndarray]) -> list[Prediction]:
        """The network's reading of each crop, adapted by the enrollment, with a second look at
        the crops still unsure (`SECOND_LOOK_BELOW`)."""
        first = self.classifier.predict(crops)
        enrollment = self.enrollment if self.enrollment is not None and len(self.enrollment) and first else None
        similarity = enrollment.similarity(first, list(crops)) if enrollment is not None else None
        self._similarity = similarity
        preds = enrollment.blend(first, similarity) if enrollment is not None and similarity is not None else first
        if self.second_look_below is None:
            return preds
        again = [i for i, p in enumerate(preds) if float(p.probs.max()) < self.second_look_below]
        if again:
            turned = self.second.predict_turned([crops[i] for i in again])
            both = [average(first[i], t) for i, t in zip(again, turned)]
            if enrollment is not None and similarity is not None:  # the same likeness, new network vote
                both = enrollment.blend(both, similarity[again])
            for i, p in zip(again, both):
                preds[i] = p
        return preds

    def _reading(self, cand: Candidate, quad: np.ndarray, pred: Prediction, top: int) -> TileReading | None:
        """The reading of one tile read as kind index `top` (the network's first choice, or the
        next one the frame's counts left it: see `assign_within_counts`)."""
        probs = _kind_probs(pred)
        order = np.argsort(probs)[::-1]
        moved = top != int(order[0])  # the counts moved it: a person confirms
        if top >= len(KINDS):  # the rejection class: felt, a hand, half of two tiles
            return None
        kind = KINDS[top]
        centre_mm = cand.quad.mean(axis=0) / PX_PER_MM
        zone = zone_of(float(centre_mm[0]), float(centre_mm[1]))
        upside = pred.upside > 0.5
        if kind in SYMMETRIC or abs(pred.upside - 0.5) < 0.45:
            # the face cannot say (or barely): a tile lying square to a seat's zone was put
            # there by that seat, so take its rotation when the tile's axis allows it
            seat_rot = SEAT_ROTATION.get(zone.split(":")[-1]) if ":" in zone else None
            if seat_rot is not None and seat_rot % 180 == cand.base:
                upside = seat_rot != cand.base
            elif kind in SYMMETRIC:
                upside = False
        rotation = (cand.base + (180 if upside else 0)) % 360
        if upside:
            quad = quad[[2, 3, 0, 1]]
        runner_up = int(order[0]) if moved else int(order[1])
        second = KINDS[runner_up] if runner_up < len(KINDS) else ""
        conf = float(probs[top])
        return TileReading(kind=kind, confidence=conf, rotation=rotation, seat=ROTATION_SEAT[rotation],
                           zone=zone,
                           quad=[[round(float(x), 1), round(float(y), 1)] for x, y in quad],
                           accepted=conf >= self.threshold and not moved, second=second)

    # --- enrollment -------------------------------------------------------------------------
    def enroll(self, frame: np.ndarray, kinds: list[str], jitter: int = 6, seed: int = 0,
               check: bool = True) -> Enrollment:
        """Add a frame of this table's tiles, laid upright for E in rows in the order `kinds`,
        to the reader's enrollment (several jittered crops of each, both ways up). With `check`, a
        layout the network clearly contradicts (`enroll.layout_problems`) is refused, nothing added:
        one kind laid twice and another missing was enrolled as the missing kind, without a word."""
        frame, cands = self._candidates(frame)
        assert self.calibration is not None
        if len(cands) != len(kinds):  # drop what the network calls "not a tile" and look again
            first = self.classifier.predict([cut_crop(frame, quad_to_image(c.quad, self.calibration), self.classifier.crop_size)
                                             for c in cands])
            cands = [c for c, p in zip(cands, first) if int(np.argmax(p.probs)) < len(KINDS)]
        if len(cands) != len(kinds):
            raise EnrollmentError(f"saw {len(cands)} tiles on the felt but {len(kinds)} kinds were to be laid out; "
                                  "lay them in rows with a finger's gap between rows and try again")
        centres = np.array([c.quad.mean(axis=0) / PX_PER_MM for c in cands])
        calibration = self.calibration
        if check:
            order = reading_order(centres)
            problems = layout_problems(kinds, self._network_reading(
                [cut_crop(frame, quad_to_image(cands[i].quad, calibration), self.classifier.crop_size) for i in order]))
            if problems:
                raise EnrollmentError(
                    "摆放与识别不符：" + "；".join(problems[:6]) + ("……" if len(problems) > 6 else "") +
                    f"。请每种一张、正面朝上，按 {' '.join(kinds[:3])} … 的顺序摆好后重拍；多数不符时请查摄像头方向（东家一侧应在画面"
                    f"下方）/ {len(problems)} laid-out tile(s) read as another kind with confidence: one kind laid "
                    "twice (another missing), a tile face down, or out of order; lay them again and capture a new "
                    "frame (or --laid-in-order if they are). Most of them: is E's side at the bottom of the picture?")
        rng = np.random.default_rng(seed)
        crops, labels, templated = [], [], []
        for kind, i in zip(kinds, reading_order(centres)):
            ex = self._examples(frame, cands[i].quad, rng, jitter, lambda q: quad_to_image(q, calibration))
            crops += ex.crops
            templated += ex.templated
            labels += [kind] * len(ex.crops)
        enrollment = self.enrollment if self.enrollment is not None else Enrollment()
        enrollment.add(self.classifier.predict(crops), labels, crops, templated)
        self.enrollment = enrollment
        return enrollment

    def _network_reading(self, crops: list[np.ndarray]) -> list[tuple[str, float]]:
        """(kind, probability) of each crop as the network reads it, second look included, without
        the enrollment: the tiles laid out to enroll are checked against it, not against themselves."""
        kept, self.enrollment = self.enrollment, None
        try:
            preds = self.classify(crops)
        finally:
            self.enrollment = kept
        out = []
        for p in preds:
            top = int(np.argmax(p.probs))
            out.append((KINDS[top] if top < len(KINDS) else "", float(p.probs[top])))
        return out

    def examples(self, frame: np.ndarray, quad: np.ndarray | list, seed: int = 0, jitter: int = 6) -> Examples:
        """Jittered crops of one tile of a frame (`quad` in frame pixels, corner 0 its top-left, as
        a reading gives it), kept while the referee is asked what it is (`learn`)."""
        return self._examples(_check_frame(frame), np.asarray(quad, np.float32), np.random.default_rng(seed), jitter,
                              lambda q: q)

    def _examples(self, frame: np.ndarray, base: np.ndarray, rng: np.random.Generator, jitter: int,
                  to_image) -> Examples:  # type: ignore[no-untyped-def]
        """`jitter` positions around `base` (the first as found), each both ways up; the first
        `TEMPLATED_POSITIONS` also give templates."""
        scale = float(np.linalg.norm(base[1] - base[0]))
        out = Examples([], [])
        for t in range(jitter):
            q = base + (rng.normal(0, 0.04, 2) * scale if t else 0) + (rng.normal(0, 0.02, (4, 2)) * scale if t else 0)
            quad = to_image(q.astype(np.float32))
            for turned in (quad, quad[[2, 3, 0, 1]]):
                out.crops.append(cut_crop(frame, turned, self.classifier.crop_size))
                out.templated.append(t < TEMPLATED_POSITIONS)
        return out

    def learn(self, examples: Examples, kind: str, corrected: bool = False, source: str = "") -> bool:
        """The referee said what an unsure tile is: enroll its examples as `kind`, so the next
        tiles of that art read right (flowers above all, which no training art predicts). A
        reading the referee corrected is always learnt; one confirmed as read only while its
        kind has fewer than `LEARN_UP_TO` tiles enrolled (more change little and cost read time).
        Of one kind, the newest `LEARN_KEPT` rulings' examples are kept (what was enrolled by hand stays).
        `source` names the ruling (`Enrollment.remove` forgets it). Returns whether anything was added."""
        if kind not in FACE_KINDS:
            raise EnrollmentError(f"cannot learn {kind!r}: not a face kind")
        enrollment = self.enrollment if self.enrollment is not None else Enrollment()
        per_tile = max(1, sum(examples.templated))
        if not corrected and enrollment.template_kinds.count(kind) >= LEARN_UP_TO * per_tile:
            return False
        enrollment.add(self.classifier.predict(examples.crops), [kind] * len(examples.crops), examples.crops,
                       examples.templated, source=source)
        enrollment.keep_rulings(kind, LEARN_KEPT)
        self.enrollment = enrollment
        return True

    # --- a picture of a single tile ---------------------------------------------------------
    def read_single(self, image: np.ndarray) -> TileReading:
        """A close-up of one tile: find the largest tile-shaped bright region, else use the
        whole picture, and classify it (the upside head tells 0 from 180)."""
        image = _check_frame(image)
        quad = _largest_tile_quad(image)
        preds = self.classify([cut_crop(image, quad, self.classifier.crop_size)])
        p = preds[0]
        probs = _kind_probs(p)
        order = np.argsort(probs[:len(KINDS)])[::-1]
        kind = KINDS[int(order[0])]
        rotation = 180 if (p.upside > 0.5 and kind not in SYMMETRIC) else 0
        conf = float(probs[int(order[0])])
        return TileReading(kind=kind, confidence=conf, rotation=rotation, seat=ROTATION_SEAT[rotation], zone="",
                           quad=[[round(float(x), 1), round(float(y), 1)] for x, y in quad],
                           accepted=conf >= self.threshold, second=KINDS[int(order[1])])

    def read_image(self, image: np.ndarray) -> list[TileReading]:
        """A table frame if the markers (or a stored calibration) locate the felt, else a close-up of
        one tile. A table frame whose felt cannot be located (markers covered, out of focus, none on
        this table) is refused with what to do: before, the whole frame was read as one tile, exit 0."""
        try:
            return self.read(image)
        except CalibrationError as exc:
            image = _check_frame(image)
            if find_markers(image) or close_up_quad(image) is None:
                raise CalibrationError(
                    f"{exc}\n这也不是单张牌的特写：无标记的牌桌请用 --corners 给出台面四角（`tablectl vision corners FRAME` "
                    "可找出）/ nor is it a close-up of one tile: for a table without markers give the felt's corners "
                    "with --corners (`tablectl vision corners FRAME` finds them)") from None
            return [self.read_single(image)]


def _check_frame(frame: object) -> np.ndarray:
    if not isinstance(frame, np.ndarray) or frame.ndim not in (2, 3) or frame.size == 0:
        raise ReadError("not an image: expected a BGR picture as a numpy array")
    if frame.ndim == 2:
        frame = cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR)
    elif frame.shape[2] == 4:
        frame = cv2.cvtColor(frame, cv2.COLOR_BGRA2BGR)
    if min(frame.shape[:2]) < 16:
        raise ReadError(f"image is too small to read ({frame.shape[1]}x{frame.shape[0]})")
    return frame


def _largest_tile_quad(image: np.ndarray) -> np.ndarray:
    """The biggest bright, roughly tile-shaped region of a close-up, as an upright quad, else the
    whole picture."""
    h, w = image.shape[:2]
    quad = close_up_quad(image)
    return np.float32([[0, 0], [w, 0], [w, h], [0, h]]) if quad is None else quad


def close_up_quad(image: np.ndarray) -> np.ndarray | None:
    """The biggest bright, roughly tile-shaped region filling 15-97% of the picture, as an upright
    quad; None when there is none (a table frame: its tiles are small, its rows not tile-shaped)."""
    h, w = image.shape[:2]
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    _, mask = cv2.threshold(cv2.GaussianBlur(grey, (5, 5), 0), 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((7, 7), np.uint8))
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    best = None
    for c in contours:
        area = cv2.contourArea(c)
        if area < 0.15 * h * w or area > 0.97 * h * w:
            continue
        (cx, cy), (rw, rh), ang = cv2.minAreaRect(c)
        ratio = max(rw, rh) / max(1.0, min(rw, rh))
        if 1.05 < ratio < 1.8 and (best is None or area > best[0]):
            best = (area, cv2.boxPoints(((cx, cy), (rw, rh), ang)))
    if best is None:
        return None
    from vision.detect import _orient

    return _orient(best[1].astype(np.float32)).quad

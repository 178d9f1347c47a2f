"""Things on the felt that are not tiles: a player's hand and arm reaching in, a white shirt sleeve,
a cup of tea, a phone, scoring chips. A real table's camera sees them all the time; the reader must
not read them as tiles (`vision.detect.SEAM_MIN`, `bench/occluders.py`).

Drawn straight into a camera frame (they stand above the felt, so the table's perspective does not
apply), with a mask of where they are, so tests know which readings lie on them.
"""

from __future__ import annotations

import cv2
import numpy as np

OBJECTS = ("arm", "white_sleeve", "cup", "phone", "chips")
#: Skin tones (BGR) of the hands.
SKIN = ((120, 160, 220), (90, 130, 190), (60, 100, 150), (150, 180, 230))


def lay_object(frame: np.ndarray, rng: np.random.Generator, what: str | None = None) -> tuple[np.ndarray, np.ndarray, str]:
    """The frame with one object drawn over it, the object's mask (255 where it is) and its name.
    Objects lie in the frame's middle part, where the felt is in the simulator's frames."""
    img = frame.copy()
    h, w = img.shape[:2]
    mask = np.zeros((h, w), np.uint8)
    what = what or str(rng.choice(OBJECTS))
    sx, sy = w / 1280, h / 960  # sizes and places are for a 1280×960 frame of an 800 mm felt
    skin = SKIN[int(rng.integers(len(SKIN)))]
    if what in ("arm", "white_sleeve"):
        x0, x1 = int(rng.integers(200, 1000) * sx), int(rng.integers(350, 900) * sx)
        y1 = int(rng.integers(300, 650) * sy)
        sleeve = (235, 240, 240) if what == "white_sleeve" else tuple(int(v) for v in rng.integers(20, 230, 3))
        for target, colour in ((img, None), (mask, 255)):
            cv2.line(target, (x0, h + 50), (x1, y1 + int(110 * sy)), colour or sleeve, int(140 * sx))
            cv2.line(target, (x1, y1 + int(110 * sy)), (x1, y1), colour or skin, int(80 * sx))
            cv2.ellipse(target, (x1, y1), (int(65 * sx), int(50 * sy)), 30, 0, 360, colour or skin, -1)
        fold = tuple(int(v * 0.8) for v in sleeve)
        for k in range(4):  # the sleeve's folds
            yy = y1 + int((150 + 40 * k) * sy)
            cv2.line(img, (x0 - int(80 * sx), yy), (x0 + int(80 * sx), yy + int(20 * sy)), fold, 3)
    elif what == "cup":
        c = (int(rng.integers(250, 1030) * sx), int(rng.integers(200, 760) * sy))
        cv2.circle(img, c, int(45 * sx), (225, 232, 236), -1)
        cv2.circle(mask, c, int(45 * sx), 255, -1)
        cv2.circle(img, c, int(35 * sx), (40, 80, 120), -1)  # tea
    elif what == "phone":
        c = (int(rng.integers(250, 1030) * sx), int(rng.integers(200, 760) * sy))
        box = cv2.boxPoints((c, (70 * sx, 140 * sy), float(rng.integers(0, 90)))).astype(np.int32)
        cv2.fillPoly(img, [box], (30, 30, 30))
        cv2.fillPoly(mask, [box], 255)
    elif what == "chips":
        for _ in range(12):
            c = (int(rng.integers(250, 1030) * sx), int(rng.integers(200, 760) * sy))
            cv2.circle(img, c, int(18 * sx), tuple(int(v) for v in rng.integers(0, 255, 3)), -1)
            cv2.circle(mask, c, int(18 * sx), 255, -1)
    else:
        raise ValueError(f"unknown object {what!r}; objects: {', '.join(OBJECTS)}")
    return cv2.GaussianBlur(img, (3, 3), 0), mask, what


def score_readings(tiles: list[dict], readings: list, mask: np.ndarray, unread: tuple[str, ...] = ()) -> dict[str, int]:
    """What a reader made of a frame with an object (`lay_object`): readings on the object and on
    no real tile (`face` accepted as a face, `back` accepted as a back, `unsure` sent to the
    referee), and the real tiles off the object in the zones read (`uncovered`) and how many of
    those were read (`found`). `tiles` are the scene's labels; `unread` the zones the reader left."""
    h, w = mask.shape

    def on_object(x: float, y: float) -> bool:
        return bool(mask[min(max(int(y), 0), h - 1), min(max(int(x), 0), w - 1)])

    centres = np.array([np.mean(t["quad"], axis=0) for t in tiles])
    seen = np.zeros(len(centres), bool)
    out = {"face": 0, "back": 0, "unsure": 0, "uncovered": 0, "found": 0}
    for r in readings:
        c = np.mean(r.quad, axis=0)
        d = np.linalg.norm(centres - c, axis=1)
        if len(d) and d.min() < 12:
            seen[int(d.argmin())] = True
        elif on_object(*c):
            out["unsure" if not r.accepted else "back" if r.kind == "back" else "face"] += 1
    for t, (x, y), hit in zip(tiles, centres, seen):
        if not on_object(x, y) and t["zone"] not in unread:
            out["uncovered"] += 1
            out["found"] += int(hit)
    return out

"""Synthetic classifier crops: one tile (with touching neighbours) rendered on felt, degraded the way
a camera degrades it, then cut out the way the reader cuts tiles out of the table plane.

Training on crops rather than whole frames is what makes a few minutes on a CPU enough; the crop
path mirrors `vision.detect` (plane warp, quad, crop window) so the two see the same pictures.
"""

from __future__ import annotations

import cv2
import numpy as np

from tablesim.scenes.render import BACK_COLOURS, FELT_COLOURS, _draw_tile
from vision.geometry import TILE_H_MM, TILE_W_MM, PlacedTile
from vision.model import CROP_H, CROP_W

#: Index of the "not a tile" training class, after the 43 kinds (42 faces and `back`).
OTHER = 43


def _patch(rng: np.random.Generator, centre_face: np.ndarray | None, pool: list[np.ndarray],
           back: tuple[int, int, int]) -> tuple[np.ndarray, float]:
    """A 3x3-tile patch of felt at 2 px/mm with the tile in the middle; returns (patch, px_per_mm)."""
    s = 2.0
    w_mm, h_mm = TILE_W_MM * 3, TILE_H_MM * 3
    img = np.empty((int(h_mm * s), int(w_mm * s), 3), np.uint8)
    felt = np.array(FELT_COLOURS[rng.integers(len(FELT_COLOURS))], np.float32) + rng.normal(0, 10, 3)
    img[:] = np.clip(felt, 0, 255).astype(np.uint8)
    cx, cy = w_mm / 2, h_mm / 2
    neighbours = []
    if rng.random() < 0.6:
        neighbours.append((cx - TILE_W_MM, cy, 0))
    if rng.random() < 0.6:
        neighbours.append((cx + TILE_W_MM, cy, 0))
    if rng.random() < 0.25:  # a sideways tile beside it, as in a meld, flush with the near edge
        neighbours.append((cx + TILE_W_MM / 2 + TILE_H_MM / 2, cy + (TILE_H_MM - TILE_W_MM) / 2, 90))
    if rng.random() < 0.3:
        neighbours.append((cx, cy - TILE_H_MM, 0))
    if rng.random() < 0.3:
        neighbours.append((cx, cy + TILE_H_MM, 0))
    for x, y, r in neighbours:
        f = None if rng.random() < 0.05 else pool[rng.integers(len(pool))]
        _draw_tile(img, PlacedTile("x", x, y, (r + 180 * int(rng.integers(2))) % 360).quad_mm() * s, f, back, rng)
    if centre_face is not None or back is not None:
        _draw_tile(img, PlacedTile("x", cx, cy, 0).quad_mm() * s, centre_face, back, rng)
    return img, s


def restyle(face: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """The same face as another maker might have cut and painted it: strokes heavier or lighter,
    the inks' colours shifted, the body a warmer or cooler white, the picture a little larger,
    smaller or off centre, sometimes engraved (a shaded edge beside each stroke).

    Training art is clean and digital; real tiles vary in all of these ways, and a network that has
    seen one drawing of a kind at one weight learns that weight rather than the kind.
    """
    img = face.astype(np.float32)
    border = np.concatenate([img[0], img[-1], img[:, 0], img[:, -1]])
    body = np.median(border, axis=0)
    if rng.random() < 0.5:  # stroke weight: dark strokes on a light body grow under a min filter
        k = np.ones((int(rng.integers(2, 4)),) * 2, np.uint8)
        img = cv2.erode(img, k) if rng.random() < 0.6 else cv2.dilate(img, k)
    if rng.random() < 0.5:  # inks (the saturated pixels, not the body): hue turned, saturation scaled
        hsv = cv2.cvtColor(np.clip(img, 0, 255).astype(np.uint8), cv2.COLOR_BGR2HSV).astype(np.float32)
        ink = hsv[..., 1] > 90
        hsv[..., 0] = np.where(ink, (hsv[..., 0] + rng.uniform(-14, 14)) % 180, hsv[..., 0])
        hsv[..., 1] *= rng.uniform(0.55, 1.3)
        img = cv2.cvtColor(np.clip(hsv, 0, 255).astype(np.uint8), cv2.COLOR_HSV2BGR).astype(np.float32)
    if rng.random() < 0.4:  # placement of the picture on the face
        h, w = img.shape[:2]
        sc = rng.uniform(0.86, 1.06)
        m = np.float32([[sc, 0, (1 - sc) * w / 2 + rng.uniform(-0.04, 0.04) * w],
                        [0, sc, (1 - sc) * h / 2 + rng.uniform(-0.04, 0.04) * h]])
        img = cv2.warpAffine(img, m, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT,
                             borderValue=tuple(float(v) for v in body))
    if rng.random() < 0.15:  # engraved: light on one side of each stroke, shade on the other
        d = rng.choice([-1, 1], 2) * int(rng.integers(1, 3))
        shifted = np.roll(img, (int(d[0]), int(d[1])), axis=(0, 1))
        img = img + 0.35 * (img - shifted)
    if rng.random() < 0.4:  # the body's white: ivory or cream (less blue, a little less green)
        warm = rng.uniform(0, 1)
        tint = np.array([1 - 0.14 * warm, 1 - 0.05 * warm, 1.0]) * rng.uniform(0.92, 1.0)
        img = (body + (img - body) * rng.uniform(0.75, 1.1)) * tint
    return np.clip(img, 0, 255).astype(np.uint8)


def _degrade(img: np.ndarray, rng: np.random.Generator) -> tuple[np.ndarray, float]:
    """Camera resolution, light, glare, blur, noise, JPEG. Returns the image and its scale change."""
    r = rng.uniform(0.42, 0.8)  # 2 px/mm rendered -> 0.85..1.6 px/mm seen by the camera
    small = cv2.resize(img, None, fx=r, fy=r, interpolation=cv2.INTER_AREA).astype(np.float32)
    h, w = small.shape[:2]
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    g = 1 + rng.uniform(-0.25, 0.25) * (xx / w - 0.5) + rng.uniform(-0.25, 0.25) * (yy / h - 0.5)
    small *= g[:, :, None] * rng.uniform(0.6, 1.25) * rng.uniform(0.93, 1.07, 3)
    if rng.random() < 0.08:
        cx, cy, rad = rng.uniform(0, w), rng.uniform(0, h), rng.uniform(0.1, 0.4) * w
        small += (rng.uniform(80, 220) * np.exp(-((xx - cx) ** 2 + (yy - cy) ** 2) / (2 * rad * rad)))[:, :, None]
    sigma = rng.uniform(0, 0.7)
    if sigma > 0.2:
        small = cv2.GaussianBlur(small, (0, 0), sigma)
    small += rng.normal(0, rng.uniform(0.5, 6), small.shape).astype(np.float32)
    out = np.clip(small, 0, 255).astype(np.uint8)
    ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(50, 96))])
    return (cv2.imdecode(buf, cv2.IMREAD_COLOR) if ok else out), r


def _cut(img: np.ndarray, quad: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    w, h = size
    dst = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
    m = cv2.getPerspectiveTransform(quad.astype(np.float32), dst)
    return cv2.warpPerspective(img, m, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


def make_crop(rng: np.random.Generator, face: np.ndarray | None, pool: list[np.ndarray],
              other: bool = False, size: tuple[int, int] = (CROP_W, CROP_H)) -> tuple[np.ndarray, bool]:
    """One training crop (BGR, `size` = width x height) and whether it was turned upside down.

    `face=None` draws a face-down tile; `other=True` cuts a window that is not one whole tile
    (felt, the seam between two tiles) for the rejection class.
    """
    back = BACK_COLOURS[rng.integers(len(BACK_COLOURS))]
    img, s = _patch(rng, face, pool, back)
    if other and rng.random() < 0.4:  # bare felt: no centre tile
        img[:] = np.clip(np.array(FELT_COLOURS[rng.integers(len(FELT_COLOURS))]) + rng.normal(0, 10, 3), 0, 255).astype(np.uint8)
        if rng.random() < 0.5:  # with a stray tile edge poking in
            _draw_tile(img, PlacedTile("x", 45 + rng.choice([-1, 1]) * 28, 60, 0).quad_mm() * s, pool[0], back, rng)
    img, r = _degrade(img, rng)
    k = s * r
    quad = PlacedTile("x", TILE_W_MM * 1.5, TILE_H_MM * 1.5, 0).quad_mm() * k
    # the reader's quad is never exact: shift, turn, scale and corner wobble
    c = quad.mean(axis=0)
    if other:
        shift = np.array([rng.choice([-1, 1]) * rng.uniform(0.35, 0.65) * TILE_W_MM, rng.uniform(-0.3, 0.3) * TILE_H_MM]) * k
    else:
        shift = rng.normal(0, 1.2, 2) * k
    t = np.radians(rng.normal(0, 2.0))
    rot = np.array([[np.cos(t), -np.sin(t)], [np.sin(t), np.cos(t)]])
    quad = (quad - c) @ rot.T * rng.uniform(0.95, 1.06) + c + shift + rng.normal(0, 0.6, (4, 2)) * k
    flipped = bool(rng.random() < 0.5)
    if flipped:
        quad = quad[[2, 3, 0, 1]]
    return _cut(img, quad, size), flipped

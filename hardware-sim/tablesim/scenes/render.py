"""Renders labelled camera frames of a table: felt, corner markers, face-up tiles in each seat's
zones, perspective, uneven light, blur, noise and JPEG, from any tile art.

Rendering happens on the table plane first (so tiles touch exactly as they do on felt), then the
plane is projected into a camera frame; labels come from the same geometry, so they are exact.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

from vision.geometry import (MARKER_IDS, SEAT_ROTATION, SEATS, TABLE_MM, TILE_H_MM, TILE_W_MM, PlacedTile,
                             marker_corners_mm, seat_to_plane, zone_of)
from vision.kinds import max_copies
from vision.tileart import Face

#: Plane canvas resolution while rendering, pixels per millimetre.
RENDER_PX_PER_MM = 2.0
BACK_COLOURS = ((60, 140, 40), (170, 110, 30), (40, 170, 220), (60, 60, 170))
FELT_COLOURS = ((70, 110, 40), (60, 95, 35), (110, 80, 30), (50, 70, 120), (80, 80, 80))


@dataclass(frozen=True)
class SceneOptions:
    """What varies between rendered frames; defaults are a moderately hard, realistic camera."""

    size: tuple[int, int] = (1280, 960)
    tiles: int = 80
    perspective: float = 0.05  # corner jitter, as a fraction of the frame
    blur: tuple[float, float] = (0.0, 1.0)
    noise: tuple[float, float] = (1.0, 5.0)
    jpeg: tuple[int, int] = (70, 95)
    light: float = 0.25  # depth of the light gradient
    glare: float = 0.0  # probability of a specular spot
    back_fraction: float = 0.03
    markers: bool = True


@dataclass
class Scene:
    """A rendered frame and its labels (quads in image pixels, corner 0 the tile's top-left)."""

    image: np.ndarray
    tiles: list[dict] = field(default_factory=list)
    plane_to_image: np.ndarray = field(default_factory=lambda: np.eye(3))


def _tile_layout(rng: np.random.Generator, kinds_pool: list[str], n: int, back_fraction: float) -> list[PlacedTile]:
    """Discards in rows of six, melds of three with one tile sideways, flowers, a few in the centre."""
    counts: dict[str, int] = {}

    def take() -> str:
        if rng.random() < back_fraction:
            return "back"
        for _ in range(100):
            k = kinds_pool[rng.integers(len(kinds_pool))]
            if counts.get(k, 0) < max_copies(k):
                counts[k] = counts.get(k, 0) + 1
                return k
        return "back"  # every kind of the pool is used up: a face-down tile, never a fifth copy

    flowers = [k for k in kinds_pool if k.endswith("f")]
    plain = [k for k in kinds_pool if not k.endswith("f")]
    placed: list[PlacedTile] = []
    share = max(1, n // 4)
    for seat in SEATS:
        rot = SEAT_ROTATION[seat]
        budget = share
        # melds: from the player's right edge leftward, v centre 80 (upright spans 60..100)
        u = 725.0
        for _ in range(int(rng.integers(0, 4))):
            if budget < 3 or u < 450:
                break
            side = int(rng.integers(0, 3))
            for i in range(3):
                k = placed[-1].kind if i and rng.random() >= 0.5 else "back"  # a pung repeats the kind
                if k != "back" and counts.get(k, 0) < max_copies(k):
                    counts[k] += 1
                else:
                    k = take()
                if i == side:  # the claimed tile lies sideways, flush with the near edge
                    u -= TILE_H_MM
                    x, y = seat_to_plane(seat, u + TILE_H_MM / 2, 60 + TILE_W_MM / 2)
                    placed.append(PlacedTile(k, x, y, (rot + 90) % 360))
                else:
                    u -= TILE_W_MM
                    x, y = seat_to_plane(seat, u + TILE_W_MM / 2, 60 + TILE_H_MM / 2)
                    placed.append(PlacedTile(k, x, y, rot))
                budget -= 1
            u -= 8 + rng.uniform(0, 6)
        # flowers: left part of the near band, small gaps
        u = 110.0
        for _ in range(int(rng.integers(0, 4))):
            if not flowers or budget < 1:
                break
            k = flowers[rng.integers(len(flowers))]
            if counts.get(k, 0) >= 1:
                continue
            counts[k] = 1
            x, y = seat_to_plane(seat, u + TILE_W_MM / 2, 70 + TILE_H_MM / 2)
            placed.append(PlacedTile(k, x, y, rot))
            u += TILE_W_MM + rng.uniform(0, 4)
            budget -= 1
        # discards: rows of six, touching, from the player's left
        for i in range(max(0, budget)):
            row, col = divmod(i, 6)
            if row > 2:
                break
            x, y = seat_to_plane(seat, 310 + col * TILE_W_MM + TILE_W_MM / 2, 160 + row * TILE_H_MM + TILE_H_MM / 2)
            placed.append(PlacedTile(take() if plain else "back", x, y, rot))
    # the centre: the tile just played and a few strays, any way round, never touching
    for _ in range(max(0, n - len(placed))):
        for _ in range(20):
            x, y = rng.uniform(330, 470, 2)
            if all(abs(p.cx - x) > 45 or abs(p.cy - y) > 45 for p in placed if zone_of(p.cx, p.cy) == "centre"):
                placed.append(PlacedTile(take(), float(x), float(y), int(rng.integers(4)) * 90))
                break
    return placed


def _draw_tile(canvas: np.ndarray, quad_px: np.ndarray, face: np.ndarray | None, back: tuple[int, int, int],
               rng: np.random.Generator) -> None:
    """A tile's top: body with a darker rim (where touching tiles meet) and the face art inset."""
    q = quad_px.astype(np.float32)
    pts = np.round(q).astype(np.int32)
    x0, y0 = np.maximum(pts.min(axis=0) - 3, 0)
    x1, y1 = np.minimum(pts.max(axis=0) + 4, [canvas.shape[1], canvas.shape[0]])
    if x1 <= x0 or y1 <= y0:
        return
    roi = canvas[y0:y1, x0:x1]
    local = q - [x0, y0]
    shadow = np.round(local + [1.5, 2.0]).astype(np.int32)
    cv2.fillConvexPoly(roi, shadow, (25, 35, 25), cv2.LINE_AA)
    body = np.array(face[2, 2] if face is not None else back, np.float32) * rng.uniform(0.85, 0.98)
    colour = tuple(int(v) for v in np.clip(body if face is None else np.array((200, 215, 220)) * rng.uniform(0.9, 1.05), 0, 255))
    cv2.fillConvexPoly(roi, np.round(local).astype(np.int32), colour, cv2.LINE_AA)
    if face is not None:
        inset = 0.05
        c = local.mean(axis=0)
        inner = c + (local - c) * (1 - 2 * inset)
        h, w = face.shape[:2]
        m = cv2.getPerspectiveTransform(np.float32([[0, 0], [w, 0], [w, h], [0, h]]), inner.astype(np.float32))
        warped = cv2.warpPerspective(face, m, (roi.shape[1], roi.shape[0]), flags=cv2.INTER_AREA)
        mask = cv2.warpPerspective(np.full((h, w), 255, np.uint8), m, (roi.shape[1], roi.shape[0]))
        a = (mask.astype(np.float32) / 255.0)[:, :, None]
        roi[:] = (roi * (1 - a) + warped * a).astype(np.uint8)
    cv2.polylines(roi, [np.round(local).astype(np.int32)], True, (90, 100, 100), 1, cv2.LINE_AA)


def render_plane(tiles: list[PlacedTile], faces: dict[str, list[np.ndarray]], rng: np.random.Generator,
                 px_per_mm: float = RENDER_PX_PER_MM, markers: bool = True) -> np.ndarray:
    """The table seen from straight above, `px_per_mm` pixels per millimetre."""
    side = int(TABLE_MM * px_per_mm)
    felt = np.array(FELT_COLOURS[rng.integers(len(FELT_COLOURS))], np.float32) + rng.normal(0, 8, 3)
    canvas = np.empty((side, side, 3), np.uint8)
    canvas[:] = np.clip(felt, 0, 255).astype(np.uint8)
    grain = rng.normal(0, 4, (side // 4, side // 4, 1)).astype(np.float32)
    canvas[:] = np.clip(canvas + cv2.resize(grain, (side, side))[:, :, None], 0, 255).astype(np.uint8)
    if markers:
        dictionary = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
        for mid in MARKER_IDS:
            c = marker_corners_mm(mid) * px_per_mm
            size = int(round(c[1, 0] - c[0, 0]))
            img = cv2.aruco.generateImageMarker(dictionary, mid, size)
            quiet = int(size * 0.2)  # a white quiet zone, as printed markers have
            x, y = int(round(c[0, 0])), int(round(c[0, 1]))
            canvas[max(0, y - quiet):y + size + quiet, max(0, x - quiet):x + size + quiet] = 245
            canvas[y:y + size, x:x + size] = cv2.cvtColor(img, cv2.COLOR_GRAY2BGR)
    back = BACK_COLOURS[rng.integers(len(BACK_COLOURS))]
    for t in tiles:
        face = None
        if t.kind != "back":
            options = faces[t.kind]
            face = options[rng.integers(len(options))]
        _draw_tile(canvas, t.quad_mm() * px_per_mm, face, back, rng)
    return canvas


def _camera(rng: np.random.Generator, size: tuple[int, int], jitter: float) -> np.ndarray:
    """Where the plane's corners land in the frame: centred, a little rotated and skewed."""
    w, h = size
    side = min(w, h) * rng.uniform(0.8, 0.88)  # the whole felt, markers included, stays in view
    c = np.array([w / 2, h / 2]) + rng.normal(0, 0.01, 2) * [w, h]
    angle = np.radians(rng.uniform(-6, 6))
    base = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]], np.float64) * side / 2
    rot = np.array([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]])
    corners = base @ rot.T + c + rng.normal(0, jitter, (4, 2)) * min(w, h)
    return corners.astype(np.float32)


def _finish(img: np.ndarray, rng: np.random.Generator, opts: SceneOptions) -> np.ndarray:
    """Light gradient, optional glare, blur, sensor noise, JPEG round trip."""
    h, w = img.shape[:2]
    f = img.astype(np.float32)
    gx, gy = rng.uniform(-1, 1, 2)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    grad = 1 + opts.light * (gx * (xx / w - 0.5) + gy * (yy / h - 0.5))
    vignette = 1 - opts.light * 0.6 * (((xx / w - 0.5) ** 2 + (yy / h - 0.5) ** 2) * 2)
    f *= (grad * vignette)[:, :, None] * rng.uniform(0.8, 1.15)
    f *= rng.uniform(0.92, 1.08, 3)  # white balance
    if rng.random() < opts.glare:
        cx, cy, r = rng.uniform(0.3, 0.7) * w, rng.uniform(0.3, 0.7) * h, rng.uniform(0.05, 0.12) * w
        f += (200 * np.exp(-((xx - cx) ** 2 + (yy - cy) ** 2) / (2 * r * r)))[:, :, None]
    sigma = rng.uniform(*opts.blur)
    if sigma > 0.2:
        f = cv2.GaussianBlur(f, (0, 0), sigma)
    f += rng.normal(0, rng.uniform(*opts.noise), f.shape).astype(np.float32)
    out = np.clip(f, 0, 255).astype(np.uint8)
    ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(*opts.jpeg))])
    return cv2.imdecode(buf, cv2.IMREAD_COLOR) if ok else out


def faces_by_kind(faces: list[Face] | tuple[Face, ...]) -> dict[str, list[np.ndarray]]:
    out: dict[str, list[np.ndarray]] = {}
    for f in faces:
        out.setdefault(f.kind, []).append(f.image)
    return out


def bump_matrix(size: tuple[int, int], shift: tuple[float, float] = (0.0, 0.0), turn_deg: float = 0.0) -> np.ndarray:
    """What a knock does to a camera's picture (3×3, frame pixels): the view slides by `shift`
    pixels and turns by `turn_deg` about the frame's centre (a camera arm pushed or twisted)."""
    w, h = size
    m = cv2.getRotationMatrix2D((w / 2, h / 2), turn_deg, 1.0)
    m[:, 2] += shift
    return np.vstack([m, [0.0, 0.0, 1.0]])


def render_scene(faces: list[Face] | tuple[Face, ...], seed: int, opts: SceneOptions = SceneOptions(),
                 tiles: list[PlacedTile] | None = None, pose_seed: int | None = None,
                 bump: np.ndarray | None = None) -> Scene:
    """A camera frame of a table with about `opts.tiles` face-up tiles of the given art, labelled.

    `pose_seed` fixes the camera's pose and the light apart from the tiles: frames of one table
    while play goes on (tiles laid and taken away) then come from one camera that does not move.
    `bump` (`bump_matrix`) is that camera knocked out of its pose.
    """
    rng = np.random.default_rng(seed)
    by_kind = faces_by_kind(faces)
    layout = tiles if tiles is not None else _tile_layout(rng, sorted(by_kind), opts.tiles, opts.back_fraction)
    plane = render_plane(layout, by_kind, rng, markers=opts.markers)
    if pose_seed is not None:
        rng = np.random.default_rng([pose_seed, 1])
    s = RENDER_PX_PER_MM
    src = np.float32([[0, 0], [TABLE_MM * s, 0], [TABLE_MM * s, TABLE_MM * s], [0, TABLE_MM * s]])
    dst = _camera(rng, opts.size, opts.perspective / 4)
    m = cv2.getPerspectiveTransform(src, dst)
    if bump is not None:
        m = np.asarray(bump, np.float64) @ m
    floor = tuple(int(v) for v in rng.integers(20, 70, 3))
    img = cv2.warpPerspective(plane, m, opts.size, flags=cv2.INTER_AREA, borderValue=floor)
    img = _finish(img, rng, opts)
    mm_to_img = m @ np.diag([s, s, 1.0])
    labels = []
    for t in layout:
        q = cv2.perspectiveTransform(t.quad_mm()[None].astype(np.float64), mm_to_img)[0]
        labels.append({"kind": t.kind, "rotation": t.rotation, "zone": zone_of(t.cx, t.cy),
                       "quad": [[round(float(x), 1), round(float(y), 1)] for x, y in q],
                       "centre_mm": [round(t.cx, 1), round(t.cy, 1)]})
    return Scene(img, labels, mm_to_img)


def play_layout(faces: list[Face] | tuple[Face, ...], seed: int,
                opts: SceneOptions = SceneOptions()) -> list[PlacedTile]:
    """A table in play as `render_scene` lays one, drawn from its own seed: given to `render_scene`
    with `pose_seed`, the felt, the light and the camera do not depend on the layout, so a virtual
    camera showing this and then `enrollment_layout` is one table under one camera."""
    rng = np.random.default_rng([seed, 2])
    return _tile_layout(rng, sorted(faces_by_kind(faces)), opts.tiles, opts.back_fraction)


def enrollment_layout(kinds: list[str] | tuple[str, ...]) -> list[PlacedTile]:
    """Tiles laid for `tablectl vision enroll`: upright for E, rows of 7 in the middle of the
    felt, left to right and far row first, a finger's gap (15 mm) between rows."""
    rows = (len(kinds) + 6) // 7
    tiles = []
    for i, kind in enumerate(kinds):
        r, c = divmod(i, 7)
        tiles.append(PlacedTile(kind, TABLE_MM / 2 + (c - 3) * TILE_W_MM,
                                TABLE_MM / 2 + (r - (rows - 1) / 2) * (TILE_H_MM + 15), 0))
    return tiles


def render_single_tile(face: np.ndarray, seed: int, size: tuple[int, int] = (240, 300)) -> np.ndarray:
    """A photo of one tile on felt, filling most of the frame, as `vision read` accepts."""
    rng = np.random.default_rng(seed)
    w, h = size
    img = np.empty((h, w, 3), np.uint8)
    img[:] = FELT_COLOURS[rng.integers(len(FELT_COLOURS))]
    scale = min(w / TILE_W_MM, h / TILE_H_MM) * rng.uniform(0.6, 0.8)
    t = PlacedTile("x", w / 2 / scale, h / 2 / scale, 0)
    _draw_tile(img, t.quad_mm() * scale, face, (0, 0, 0), rng)
    return _finish(img, rng, SceneOptions(light=0.1))

"""The table plane: its size, the seats around it, the zones on it, and the ArUco markers at its corners.

Everything the reader decides (which tile, whose, in which zone) happens in this plane, seen from
straight above, so it does not depend on where the camera hangs. Seen from above, E sits at the
bottom edge and play goes counter-clockwise: S right, W top, N left.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: Side of the square of felt the camera reads, in millimetres; ArUco markers sit in its corners.
TABLE_MM: float = 800.0
#: A tile's top face (automatic-table tiles are about 30 x 40 mm).
TILE_W_MM: float = 30.0
TILE_H_MM: float = 40.0
#: Marker side and inset from the corner, in millimetres; ids 0..3 clockwise from top-left.
MARKER_MM: float = 50.0
MARKER_INSET_MM: float = 8.0
MARKER_IDS: tuple[int, int, int, int] = (0, 1, 2, 3)

SEATS: tuple[str, ...] = ("E", "S", "W", "N")
#: Counter-clockwise rotation, in degrees, of a tile that is upright to the player in that seat.
SEAT_ROTATION: dict[str, int] = {"E": 0, "S": 90, "W": 180, "N": 270}
ROTATION_SEAT: dict[int, str] = {v: k for k, v in SEAT_ROTATION.items()}

#: Zone bands, as distance from the seat's edge in millimetres.
MELD_FLOWER_MAX_V: float = 150.0
DISCARD_MAX_V: float = 310.0


def marker_corners_mm(marker_id: int) -> np.ndarray:
    """The four corners (clockwise from its top-left) of a corner marker in plane millimetres."""
    a = MARKER_INSET_MM
    far = TABLE_MM - MARKER_INSET_MM - MARKER_MM
    x0, y0 = {0: (a, a), 1: (far, a), 2: (far, far), 3: (a, far)}[marker_id]
    return np.array([[x0, y0], [x0 + MARKER_MM, y0], [x0 + MARKER_MM, y0 + MARKER_MM], [x0, y0 + MARKER_MM]], np.float32)


def seat_to_plane(seat: str, u: float, v: float) -> tuple[float, float]:
    """Seat-local (u along the edge from the player's left, v from the edge inward) to plane mm."""
    t = TABLE_MM
    return {"E": (u, t - v), "S": (t - v, t - u), "W": (t - u, v), "N": (v, u)}[seat]


def plane_to_seat(x: float, y: float) -> tuple[str, float, float]:
    """The seat whose edge is nearest a plane point, and the point in that seat's (u, v)."""
    t = TABLE_MM
    dists = {"E": t - y, "S": t - x, "W": y, "N": x}
    seat = min(dists, key=dists.__getitem__)
    u = {"E": x, "S": t - y, "W": t - x, "N": y}[seat]
    return seat, u, dists[seat]


def zone_of(x: float, y: float) -> str:
    """The zone name (`discard:S`, `meld:E`, `flower:N`, `centre`) holding a plane point.

    Melds lie to the player's right of the near band, flowers to the left, discards in front,
    and what is further in is the centre.
    """
    seat, u, v = plane_to_seat(x, y)
    if v < MELD_FLOWER_MAX_V:
        return f"meld:{seat}" if u >= TABLE_MM / 2 else f"flower:{seat}"
    if v < DISCARD_MAX_V:
        return f"discard:{seat}"
    return "centre"


def all_zones() -> tuple[str, ...]:
    return tuple(f"{z}:{s}" for s in SEATS for z in ("discard", "meld", "flower")) + ("centre",)


@dataclass(frozen=True)
class PlacedTile:
    """A tile on the plane: centre (mm), counter-clockwise rotation (0/90/180/270), kind."""

    kind: str
    cx: float
    cy: float
    rotation: int

    def quad_mm(self) -> np.ndarray:
        """Corners in plane mm, starting at the tile's own top-left and going clockwise as seen
        upright, so corner 0 tells which way the face points."""
        w, h = TILE_W_MM / 2, TILE_H_MM / 2
        local = np.array([[-w, -h], [w, -h], [w, h], [-w, h]], np.float32)
        t = np.radians(self.rotation)
        # counter-clockwise on screen (y down) is a negative angle in y-down maths
        rot = np.array([[np.cos(t), np.sin(t)], [-np.sin(t), np.cos(t)]], np.float32)
        return local @ rot.T + np.array([self.cx, self.cy], np.float32)

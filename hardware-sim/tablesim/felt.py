"""The felt: the face-up tiles lying on the simulated table where players put them, and the camera
above it.

The demo with a camera (`tablectl demo --camera`) and `bench/camera_record.py` lay each play here
(discards in rows of six, melds right of centre, flowers left), and `FeltCamera.frame` renders
what a camera that does not move sees: the same scene renderer as the training and evaluation
scenes, in any tile art, with fresh sensor noise on every frame.
"""

from __future__ import annotations

import threading

import numpy as np

from tablesim.scenes.render import Scene, SceneOptions, bump_matrix, render_scene
from tablesim.scenes.sensor import SensorNoise
from vision.geometry import SEAT_ROTATION, SEATS, TILE_H_MM, TILE_W_MM, PlacedTile, seat_to_plane


class Felt:
    """The tiles lying on the table, placed where players put them (seat-local rows)."""

    def __init__(self) -> None:
        self.tiles: list[PlacedTile] = []
        self.pools: dict[str, list[PlacedTile]] = {s: [] for s in SEATS}
        self.sideways: dict[str, list[bool]] = {s: [] for s in SEATS}  # per pool tile: laid sideways (立直)
        self.near: dict[str, int] = {s: 0 for s in SEATS}  # meld tiles laid, right of centre
        self.flowers: dict[str, int] = {s: 0 for s in SEATS}

    def _put(self, seat: str, u: float, v: float, kind: str, turn: int = 0) -> PlacedTile:
        x, y = seat_to_plane(seat, u, v)
        t = PlacedTile(kind, x, y, (SEAT_ROTATION[seat] + turn) % 360)
        self.tiles.append(t)
        return t

    def discard(self, seat: str, kind: str, sideways: bool = False) -> None:
        """Rows of six in front of the seat, as 国标 players lay them; `sideways`: turned a quarter
        to the left, as a riichi player lays the discard that declares 立直 (it takes a tile's
        length of the row)."""
        k = len(self.pools[seat])
        row = self.sideways[seat][k // 6 * 6:k]
        left = 310 - TILE_W_MM / 2 + sum(TILE_H_MM if turned else TILE_W_MM for turned in row)
        width = TILE_H_MM if sideways else TILE_W_MM
        self.pools[seat].append(self._put(seat, left + width / 2, 172 + (k // 6) * (TILE_H_MM + 2), kind,
                                          turn=90 if sideways else 0))
        self.sideways[seat].append(sideways)

    def meld(self, seat: str, kinds: list[str], taken_from: str, hidden: bool = False) -> None:
        """The claimed discard leaves its pool; the meld is laid right of centre (`hidden`: out of
        the camera's view, as under an arm)."""
        self.tiles.remove(self.pools[taken_from].pop())
        self.sideways[taken_from].pop()
        if hidden:
            return
        for kind in kinds:
            self._meld_tile(seat, kind)

    def kong(self, seat: str, kind: str, how: str) -> None:
        """A kong from the hand, laid with the melds: `concealed` (暗杠) its two end tiles face down,
        as most players lay one; `added` (补杠) the fourth tile beside the seat's pung."""
        for k in ["back", kind, kind, "back"] if how == "concealed" else [kind]:
            self._meld_tile(seat, k)

    def _meld_tile(self, seat: str, kind: str) -> None:
        """The seat's next meld tile: rows of nine right of centre, a second row further in (clear of the corner)."""
        n = self.near[seat]
        self._put(seat, 420 + (n % 9) * TILE_W_MM, 60 + (n // 9) * (TILE_H_MM + 2), kind)
        self.near[seat] += 1

    def flower(self, seat: str, kind: str) -> None:
        self._put(seat, 110 + self.flowers[seat] * TILE_W_MM, 60, kind)  # clear of the corner markers
        self.flowers[seat] += 1

    def hand(self, seat: str, kinds: list[str]) -> None:
        """A hand laid down face up on a win (or at 荒牌 for 查叫): one row in front of the seat,
        further in than its flowers, from the player's left (clear of the melds' second row,
        which starts right of centre only when the concealed hand is short)."""
        for i, kind in enumerate(kinds):
            self._put(seat, 110 + i * TILE_W_MM, 60 + TILE_H_MM + 2, kind)


class FeltCamera:
    """A camera that does not move above a `Felt` the demo lays plays on; thread-safe, since the
    virtual camera's server thread asks for frames while the demo's players lay tiles.

    The scene is rendered again only when the felt changed; each frame adds fresh sensor noise."""

    def __init__(self, faces: tuple | list, seed: int = 0, opts: SceneOptions = SceneOptions()) -> None:
        self.faces, self.seed, self.opts = tuple(faces), seed, opts
        self._lock = threading.Lock()
        self._felt = Felt()
        self._version = 0
        self._scene: tuple[int, Scene] | None = None
        self._bump: np.ndarray | None = None
        self._noise = SensorNoise(2.0, seed)

    def lay(self, play: str, seat: str, tile: str, frm: str | None = None, sideways: bool = False,
            kind: str | None = None, run: tuple[str, ...] = ()) -> None:
        """A face-up play on the felt: `discard` (`sideways`: declaring 立直), `flower`, `claim` (a
        pung of `tile` from `frm`; `kind` "kong": four; "chow": the `run`), `kong` from the hand
        (`kind` "concealed" or "added"), or `hand` (the tiles of `tile`, space-separated, laid down
        in front of `seat`)."""
        with self._lock:
            if play == "discard":
                self._felt.discard(seat, tile, sideways=sideways)
            elif play == "flower":
                self._felt.flower(seat, tile)
            elif play == "claim" and frm is not None:
                self._felt.meld(seat, list(run) if kind == "chow" else [tile] * (4 if kind == "kong" else 3), frm)
            elif play == "kong" and kind in ("concealed", "added"):
                self._felt.kong(seat, tile, kind)
            elif play == "hand":
                self._felt.hand(seat, tile.split())
            else:
                raise ValueError(f"cannot lay {play!r} on the felt")
            self._version += 1

    def bump(self, shift: tuple[float, float] = (0.0, 0.0), turn_deg: float = 0.0) -> None:
        """Knock the camera (a fault to inject): from now on its view is slid by `shift` pixels and
        turned by `turn_deg` from where it was set up; `bump()` puts it back."""
        with self._lock:
            moved = shift != (0.0, 0.0) or turn_deg != 0.0
            self._bump = bump_matrix(self.opts.size, shift, turn_deg) if moved else None
            self._version += 1

    def clear(self) -> bool:
        """The hand is over: the tiles go down into the table. Whether any lay there (the camera has
        something to see go)."""
        with self._lock:
            had = bool(self._felt.tiles)
            self._felt = Felt()
            self._version += 1
            return had

    def scene(self) -> Scene:
        """The current scene, labelled (rendered again only after the felt changed)."""
        with self._lock:
            if self._scene is None or self._scene[0] != self._version:
                tiles = list(self._felt.tiles)
                self._scene = (self._version, render_scene(self.faces, self.seed, self.opts, tiles=tiles,
                                                           pose_seed=self.seed, bump=self._bump))
            return self._scene[1]

    def frame(self) -> np.ndarray:
        """What the camera sends now (for `tablesim.scenes.camera.VirtualCamera`)."""
        return self._noise(self.scene().image)

    def kind_at(self, point: tuple[float, float] | list[float]) -> str | None:
        """The tile lying under an image point (within a third of a tile of its centre), as the
        referee standing at the table sees it; None where no tile lies."""
        best, best_d = None, None
        p = np.asarray(point, dtype=float)
        for t in self.scene().tiles:
            q = np.asarray(t["quad"], dtype=float)
            d = float(np.linalg.norm(q.mean(axis=0) - p))
            if d < np.linalg.norm(q[1] - q[0]) / 3 and (best_d is None or d < best_d):
                best, best_d = t["kind"], d
        return best

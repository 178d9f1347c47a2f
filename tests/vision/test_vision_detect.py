"""Finding tiles on the plane: touching rows, sideways meld tiles, orientation of the quads."""

from __future__ import annotations

import numpy as np

from tablesim.scenes.render import SceneOptions, render_scene
from vision.calibrate import calibrate_aruco
from vision.detect import PX_PER_MM, TH, TW, _split_1d, find_candidates, foreground_mask, warp_to_plane
from vision.geometry import PlacedTile


def test_split_cuts_a_meld_with_a_sideways_tile() -> None:
    # two upright tiles (TW long, TH across) then one sideways (TH long, TW across), seams dark
    lengths = [int(TW), int(TW), int(TH)]
    length = sum(lengths)
    extent = np.concatenate([np.full(int(TW), TH), np.full(int(TW), TH), np.full(int(TH), TW)]).astype(np.float32)
    profile = np.zeros(length)
    profile[[int(TW), 2 * int(TW)]] = 40.0
    assert _split_1d(length, profile, extent) == [(0, 24), (24, 48), (48, 80)]


def test_finds_touching_rows_and_sideways_tiles(dorothys) -> None:
    layout = [PlacedTile("1m", 300 + 30 * i, 600, 0) for i in range(6)]  # a discard row of six
    layout += [PlacedTile("2p", 300 + 30 * i, 640, 0) for i in range(3)]  # a second row, touching
    layout += [PlacedTile("3s", 560, 720, 0), PlacedTile("3s", 590, 720, 0), PlacedTile("3s", 625, 725, 90)]  # a pung
    layout += [PlacedTile("7z", 400, 400, 270)]
    scene = render_scene(dorothys, seed=4, opts=SceneOptions(), tiles=layout)
    plane = warp_to_plane(scene.image, calibrate_aruco(scene.image))
    cands = find_candidates(plane, foreground_mask(plane))
    centres = np.array([c.quad.mean(axis=0) / PX_PER_MM for c in cands])
    for t in layout:
        d = np.linalg.norm(centres - [t.cx, t.cy], axis=1)
        i = int(d.argmin())
        assert d[i] < 6.0, f"{t} not found"
        assert cands[i].base % 180 == t.rotation % 180
    assert len(cands) == len(layout)

"""bench/camera_record.py's referee answers the camera's questions as a referee at the table does: the tile lying
where the camera saw one, or 不是牌 (`referee.camera_dismiss`) where none lies (a chip, a phone's edge). Before, it
named the nearest tile however far: a chip beside a pool became a discard of that pool's kinds, the record took
it for a play, and the record with things on the felt (`--objects`) measured those phantoms, not the record."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np

from tablesim.felt import Felt
from tablesim.scenes.render import SceneOptions, render_scene
from vision.reader import TileReading

ROOT = Path(__file__).resolve().parents[2]


def _bench():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("bench_camera_record", ROOT / "bench" / "camera_record.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_bench_referee_names_the_tile_under_a_reading_and_rules_no_tile_beside_one(dorothys) -> None:  # type: ignore[no-untyped-def]
    bench = _bench()
    felt = Felt()
    for tile in ("2z", "4p"):
        felt.discard("N", tile)
    scene = render_scene(dorothys, 7, SceneOptions(), tiles=list(felt.tiles), pose_seed=7)
    four = next(t for t in scene.tiles if t["kind"] == "4p")
    quad = np.array(four["quad"], float)

    def reading(q: np.ndarray) -> TileReading:
        return TileReading("5z", 0.3, 0, "N", four["zone"], q.tolist(), accepted=False)

    assert bench._true_kind(scene, reading(quad + 2.0)) == "4p"  # a tile's reading, a little off: that tile
    across = quad[3] - quad[0]  # the tile's length, across its row: felt on both sides
    for side in (1.0, -1.0):
        assert bench._true_kind(scene, reading(quad + side * across)) is None  # nothing lies there: 不是牌
    assert bench._true_kind(scene, None) is None

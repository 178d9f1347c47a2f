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


def test_split_scores_every_cut_like_the_plain_programme() -> None:
    """The precomputed programme gives the cuts of a plain, one-end-at-a-time one."""
    from vision.detect import _PIECES, _SLACK

    S, WANT, PEN = _PIECES
    rng = np.random.default_rng(1)
    for _ in range(40):
        length = int(rng.integers(20, 220))
        profile = rng.uniform(0, 30, length) * (rng.random(length) < 0.2)
        extent = rng.uniform(10, 40, length).astype(np.float32)
        cs = np.concatenate([[0.0], np.cumsum(extent, dtype=np.float64)])
        pk = profile.copy()
        pk[1:] = np.maximum(pk[1:], profile[:-1])
        pk[:-1] = np.maximum(pk[:-1], profile[1:])
        seam = np.zeros(length + 1)
        seam[1:length] = np.minimum(pk[1:length] / 10.0, 1.5)
        seam[length] = 0.5
        best, back = np.full(length + 1, -np.inf), np.full(length + 1, -1)
        best[0] = 0.0
        for e in range(1, length + 1):
            for n, want, pen in zip(S, WANT, PEN):
                s = e - n
                if s >= 0 and best[s] > -np.inf:
                    v = best[s] - abs((cs[e] - cs[s]) / n - want) / want * 4.0 + pen + seam[e]
                    if v > best[e] + 1e-9:
                        best[e], back[e] = v, s
        lo = max(1, int(length - TW * _SLACK))
        end = lo + int(best[lo:length + 1].argmax())
        got = _split_1d(length, profile, extent)
        if best[end] == -np.inf:
            assert got is None
            continue
        def piece(a: int, b: int) -> float:
            n = b - a
            return max(-abs((cs[b] - cs[a]) / n - want) / want * 4.0 + pen + seam[b]
                       for m, want, pen in zip(S, WANT, PEN) if m == n)

        assert got is not None and got[0][0] == 0 and got[-1][1] == end
        assert all(a == b for (_, a), (b, _) in zip(got, got[1:]))
        assert abs(sum(piece(a, b) for a, b in got) - best[end]) < 1e-6


def test_scenes_never_show_more_of_a_kind_than_a_set_holds() -> None:
    """A real table shows at most four of a tile and one of each flower; so must the scenes the
    reader is tested and measured on (pungs in melds used to copy a kind past its count)."""
    from collections import Counter

    import numpy as np

    from tablesim.scenes.render import _tile_layout
    from vision.kinds import FACE_KINDS, max_copies

    for seed in range(200):
        tiles = _tile_layout(np.random.default_rng(seed), list(FACE_KINDS), 80, 0.05)
        over = {k: n for k, n in Counter(t.kind for t in tiles).items() if n > max_copies(k)}
        assert not over, (seed, over)

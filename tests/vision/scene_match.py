"""Pairing a rendered scene's labelled tiles with the reader's readings (a test helper).

Its own module, not conftest: `from conftest import ...` finds whichever test folder's conftest was
imported first when the whole suite runs.
"""

from __future__ import annotations


def match(scene_tiles: list[dict], readings: list) -> list[tuple[dict, object]]:
    """Pairs (label, reading) for labelled tiles a reading lies on (centre within a third of a tile)."""
    import numpy as np

    pairs = []
    for t in scene_tiles:
        q = np.array(t["quad"])
        c, tol = q.mean(axis=0), np.linalg.norm(q[1] - q[0]) / 3
        near = [r for r in readings if np.linalg.norm(np.mean(r.quad, axis=0) - c) < tol]
        if near:
            pairs.append((t, near[0]))
    return pairs

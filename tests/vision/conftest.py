"""Shared fixtures for the tile reader's tests: small rendered scenes from packaged tile art."""

from __future__ import annotations

import pytest

from vision.tileart import load_style


@pytest.fixture(scope="session")
def dorothys():
    """A training style that loads in well under a second (GIF sheet, cached on disk)."""
    return load_style("xmahjongg-dorothys")


@pytest.fixture(scope="session")
def reader():
    from vision.reader import TileReader

    return TileReader()


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

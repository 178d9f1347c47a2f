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

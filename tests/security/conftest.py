"""The security tests' real Mosquitto (the hub's and the tables' broker), one per test."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from table_controller.tournament.broker import MOSQUITTO, LocalBroker


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[LocalBroker]:
    if not Path(MOSQUITTO).exists():
        pytest.fail("mosquitto is not installed (Debian package `mosquitto`, listed in apt-packages.txt)")
    b = LocalBroker(tmp_path / "broker")
    b.start()
    try:
        yield b
    finally:
        b.stop()

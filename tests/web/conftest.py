"""Fixtures of the display's tests."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio

from table_controller.config import parse_config
from table_controller.service import TableService


@pytest_asyncio.fixture
async def service(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[TableService]:
    """A service on the built-in simulator, its display on a free port, the test module's `REFEREE`
    credential (and operator "op"); started, and stopped after the test. Modules with a service
    of their own define their own `service`."""
    config = parse_config({"table": {"link": "sim://", "sim_seed": getattr(request.module, "SIM_SEED", 2),
                                     "sim_speed": 100.0},
                           "display": {"port": 0, "operator_token": "op", "referee_token": request.module.REFEREE}},
                          source="test")
    svc = TableService(config, tmp_path)
    await svc.start()
    try:
        yield svc
    finally:
        await svc.stop()

"""A table service on the simulated board (`sim://`, its mechanism 500 times faster), linked, and a wait for a
condition on it: shared by the tests that drive the table's own controls and faults (`test_table_buttons`,
`test_table_faults`)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from table_controller.config import parse_config
from table_controller.service import TableService


@asynccontextmanager
async def linked_table(tmp_path: Path, ruleset: str | None = None) -> AsyncIterator[TableService]:
    """The service started (no HTTP) under `ruleset` (the config's default without one), its table linked."""
    config = parse_config({"table": {"link": "sim://", "sim_speed": 500},
                           **({"rules": {"ruleset": ruleset}} if ruleset else {}),
                           "display": {"port": 0, "operator_token": "op-token-1", "referee_token": "ref-token-1"}},
                          source="test")
    service = TableService(config, tmp_path, serve_http=False)
    await service.start()
    try:
        assert service.controller is not None
        await service.controller.wait_linked(10)
        yield service
    finally:
        await service.stop()


async def until(check: Callable[[], Any], seconds: float = 5.0) -> None:
    for _ in range(int(seconds / 0.01)):
        if check():
            return
        await asyncio.sleep(0.01)
    raise AssertionError("not reached")

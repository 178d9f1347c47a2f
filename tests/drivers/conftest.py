"""Fixtures for the table-link tests: a virtual clock, a simulator on a real pty, and leak checks."""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator

import pytest

from drivers.clock import VirtualClock
from drivers.table import Table, open_table
from tablesim import SimTable


def open_fds() -> set[int]:
    return {int(n) for n in os.listdir("/proc/self/fd")}


@pytest.fixture
async def no_leaks() -> AsyncIterator[None]:
    """Fails the test if it leaves a file descriptor open or a task running."""
    before = open_fds()
    yield
    for _ in range(3):
        await asyncio.sleep(0)
    current = asyncio.current_task()
    stray = [t for t in asyncio.all_tasks() if t is not current and not t.done()]
    assert not stray, f"tasks left running: {stray}"
    leaked = open_fds() - before
    # an fd number listed now but not before is a leak (epoll/selector fds belong to the loop)
    assert not leaked, f"file descriptors left open: {sorted(leaked)}"


@pytest.fixture
async def vclock() -> AsyncIterator[VirtualClock]:
    clock = VirtualClock(auto=True)
    yield clock
    await clock.close()


@pytest.fixture
async def sim(no_leaks: None, vclock: VirtualClock) -> AsyncIterator[SimTable]:
    s = SimTable(seed=7, clock=vclock)
    yield s
    await s.close()


@pytest.fixture
async def pty_path(sim: SimTable) -> str:
    return await sim.serve_pty()


@pytest.fixture
async def table(sim: SimTable, pty_path: str, vclock: VirtualClock) -> AsyncIterator[Table]:
    t = await open_table(pty_path, clock=vclock)
    assert isinstance(t, Table)
    yield t
    await t.close()

"""A stop whose caller is cancelled meanwhile: the caller ends cancelled, the stop done whole all the same.

`Controller.stop` awaited each of its cancelled tasks in `try/except CancelledError: pass`, and the service's
`stop_tasks` each of its own in `except (CancelledError, …)`: a cancellation of the coroutine calling stop() was
taken for a task's and swallowed, so that coroutine ran on as if never cancelled (the tournament demo's watch,
cancelled in a table's restart, went on to start the table again while the demo stopped).
"""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Awaitable
from pathlib import Path

import pytest
from simtable import linked_table  # type: ignore[import-not-found]

from table_controller.config import parse_config
from table_controller.service import TableService
from table_controller.supervise import end_tasks


async def _stopped_cancelled(stop: Awaitable[None]) -> list[str]:
    """Run `stop` in a caller cancelled as soon as it waits; what the caller did after the stop returned."""
    after: list[str] = []

    async def caller() -> None:
        await stop
        after.append("ran on")

    stopper = asyncio.create_task(caller())
    await asyncio.sleep(0)  # the stop has cancelled its tasks and waits for them
    assert not stopper.done()
    stopper.cancel()
    await asyncio.wait([stopper], timeout=30)
    assert stopper.done()
    assert stopper.cancelled(), "the caller's cancellation was swallowed by the stop"
    return after


async def test_a_controller_stop_whose_caller_is_cancelled_raises_it_after_stopping_whole(tmp_path: Path) -> None:
    async with linked_table(tmp_path) as service:
        controller = service.controller
        assert controller is not None
        tasks = controller.tasks
        assert tasks and not any(t.done() for t in tasks)
        assert await _stopped_cancelled(controller.stop()) == []
        assert all(t.done() for t in tasks)
        assert controller.table is None  # the table closed: the steps after the tasks' wait were done too


async def test_a_service_stop_whose_caller_is_cancelled_raises_it_after_stopping_whole(tmp_path: Path) -> None:
    config = parse_config({"table": {"link": "sim://", "sim_speed": 500},
                           "display": {"port": 0, "operator_token": "op-token-1", "referee_token": "ref-token-1"}},
                          source="test")
    service = TableService(config, tmp_path)
    await service.start()
    stopped = False
    try:
        assert service.controller is not None
        await service.controller.wait_linked(10)
        port = service.port
        tasks = (*service.controller.tasks,)
        after = await _stopped_cancelled(service.stop())
        stopped = True
        assert after == []
        assert all(t.done() for t in tasks)
        assert service.controller.table is None
        with pytest.raises(ConnectionRefusedError):  # the display stopped listening
            socket.create_connection(("127.0.0.1", port), timeout=2).close()
    finally:
        if not stopped:
            await service.stop()


async def test_end_tasks_waits_for_tasks_that_take_time_to_end_and_then_raises_the_callers_cancellation() -> None:
    ended: list[str] = []

    async def slow_to_end() -> None:
        try:
            await asyncio.Event().wait()
        finally:
            await asyncio.sleep(0.05)  # a close on its way out
            ended.append("ended")

    tasks = [asyncio.create_task(slow_to_end()) for _ in range(3)]
    await asyncio.sleep(0)
    after = await _stopped_cancelled(end_tasks(tasks))
    assert after == []
    assert ended == ["ended"] * 3 and all(t.cancelled() for t in tasks)


async def test_end_tasks_lets_a_task_finish_within_its_grace_and_keeps_its_own_exception_to_it() -> None:
    async def finishing() -> str:
        await asyncio.sleep(0.05)
        return "done"

    async def failing() -> None:
        raise ValueError("its own")

    quick, broken, stuck = (asyncio.create_task(finishing()), asyncio.create_task(failing()),
                            asyncio.create_task(asyncio.Event().wait()))
    await end_tasks([quick, broken, stuck], grace_s=0.3)  # no exception of theirs is raised here
    assert quick.result() == "done"
    assert isinstance(broken.exception(), ValueError)
    assert stuck.cancelled()  # cancelled at the grace's end

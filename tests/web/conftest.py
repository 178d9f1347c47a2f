"""Fixtures of the display's tests."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio

from table_controller.config import parse_config
from table_controller.service import TableService
from table_controller.store import EventStore
from tablesim.session import write_session

#: A long day's log: a 10-hand session played this many times over (about 16,000 events).
DAYS = 16


@pytest_asyncio.fixture
async def service(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[TableService]:
    """A service on the built-in simulator, its display on a free port, the test module's `REFEREE`
    credential (and operator "op"), its `RULESET` if it names one; started, and stopped after the test.
    Modules with a service of their own define their own `service`."""
    ruleset = getattr(request.module, "RULESET", None)
    config = parse_config({"table": {"link": "sim://", "sim_seed": getattr(request.module, "SIM_SEED", 2),
                                     "sim_speed": 1000.0},
                           **({"rules": {"ruleset": ruleset}} if ruleset else {}),
                           "display": {"port": 0, "operator_token": "op", "referee_token": request.module.REFEREE}},
                          source="test")
    svc = TableService(config, tmp_path)
    await svc.start()
    try:
        yield svc
    finally:
        await svc.stop()


@pytest.fixture
def quick_health(monkeypatch: pytest.MonkeyPatch) -> float:
    """Health every 0.5 s instead of 2 (the page reads the interval from the messages): what the health panel
    says (a full log, a pulled stick, a failed camera), and a silence, show in a fraction of the time."""
    from table_controller.web import app as web_app

    monkeypatch.setattr(web_app, "HEALTH_EVERY_S", 0.5)
    return 0.5


@pytest.fixture(scope="session")
def long_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A log of `DAYS` x 10 hands, each copy numbered on (hands, stamps), written in one transaction
    (a long day without a day's writing): copy it, it is shared."""
    base = tmp_path_factory.mktemp("one")
    one = EventStore(base / "events.sqlite3")
    write_session(one, "mcr", 10, seed=6)
    events = one.since(0)
    one.close()
    span = events[-1].at - events[0].at + 60.0
    rows: list[tuple[int, float, str, str, str]] = []
    for k in range(DAYS):
        for ev in events[1:] if k else events:
            data = dict(ev.data)
            if "hand_no" in data:
                data["hand_no"] += 10 * k
            rows.append((len(rows) + 1, ev.at + k * span, ev.source, ev.type, json.dumps(data, ensure_ascii=False)))
    path = tmp_path_factory.mktemp("long") / "events.sqlite3"
    store = EventStore(path)
    store.restore(rows, None)
    store.close()
    return path

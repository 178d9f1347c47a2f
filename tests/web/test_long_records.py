"""A round's records (牌谱) late in a long day: read in one pass, built off the display's loop.

Each hand's record read the whole log and computed the whole score sheet again: `GET /api/records`
took 12.5 s at 400 hands here (a Pi: a minute) with the loop held, so no page, socket or table
event was served meanwhile."""

from __future__ import annotations

import asyncio
import dataclasses
import json
from pathlib import Path
from typing import Any

import httpx

from table_controller.config import parse_config
from table_controller.record import hand_record, session_records
from table_controller.service import TableService
from table_controller.state import fold
from table_controller.store import EventStore


class _Counted(list):  # type: ignore[type-arg]
    """The ended hands, counting how often something reads through them."""

    scans = 0

    def __iter__(self) -> Any:
        type(self).scans += 1
        return super().__iter__()


def _scans(events: list[Any]) -> tuple[int, list[dict[str, Any]]]:
    state = fold(events)
    _Counted.scans = 0
    records = session_records(events, state=dataclasses.replace(state, hands=_Counted(state.hands)))
    return _Counted.scans, records


def test_a_rounds_records_read_the_hands_as_often_for_many_hands_as_for_few(long_log: Path, tmp_path: Path) -> None:
    store = EventStore(tmp_path / "events.sqlite3")
    store.restore([(e.seq, e.at, e.source, e.type, json.dumps(e.data, ensure_ascii=False))
                   for e in EventStore(long_log).since(0)[:3000]], None)  # a morning of it
    events = store.since(0)
    store.close()
    starts = [e.seq for e in events if e.type == "operator.hand_start"]  # (the last one still in play)
    few, few_records = _scans([e for e in events if e.seq <= starts[3] + 5])  # the fourth in play too
    many, records = _scans(events)
    assert len(records) == len(starts) > 20 and len(few_records) == 4
    assert many == few  # the sheet once for the round, not once per hand
    state = fold(events)
    for n in (1, 2, len(starts)):  # each the same as the hand's record read alone
        assert records[n - 1] == hand_record(events, n, state=state)


async def test_the_display_answers_while_a_long_days_records_are_built(long_log: Path, tmp_path: Path) -> None:
    (tmp_path / "events.sqlite3").write_bytes(long_log.read_bytes())
    config = parse_config({"table": {"link": "sim://", "sim_speed": 1000.0},
                           "display": {"port": 0, "operator_token": "op", "referee_token": "ref"}}, source="test")
    service = TableService(config, tmp_path)
    await service.start()
    try:
        base = f"http://127.0.0.1:{service.port}"
        answered: list[str] = []

        def get(name: str, path: str) -> httpx.Response:  # each from its own thread, as two phones would
            answer = httpx.get(base + path, timeout=120)
            answered.append(name)
            return answer

        records = asyncio.create_task(asyncio.to_thread(get, "records", "/api/records?all=true"))
        await asyncio.sleep(0.05)  # the records are being built
        for _ in range(8):  # a page asking meanwhile, one answer after the other
            assert (await asyncio.to_thread(get, "health", "/api/health")).status_code == 200
        answer = await records
        assert answer.status_code == 200 and len(answer.json()) == 160
        # the display answered while the records were built (held in the loop, it answered one at most:
        # the first asked, once the records were done)
        assert answered.index("records") >= 2, answered
    finally:
        await service.stop()

"""A round's records (牌谱) late in a long day: read in one pass, built off the display's loop.

Each hand's record read the whole log and computed the whole score sheet again: `GET /api/records`
took 12.5 s at 400 hands here (a Pi: a minute) with the loop held, so no page, socket or table
event was served meanwhile."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx

from table_controller.config import parse_config
from table_controller.record import hand_record, session_records
from table_controller.service import TableService
from table_controller.state import fold
from table_controller.store import EventStore

#: How long the first event copied waits for a page's health to be answered (only a display copying on its
#: loop, which cannot answer meanwhile, waits it out).
HOLD_S = 5.0


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


@contextlib.asynccontextmanager
async def _on_long_day(long_log: Path, tmp_path: Path) -> AsyncIterator[TableService]:
    """A service started on a copy of the long day's log (simulated table, operator "op", referee "ref")."""
    (tmp_path / "events.sqlite3").write_bytes(long_log.read_bytes())
    config = parse_config({"table": {"link": "sim://", "sim_speed": 1000.0},
                           "display": {"port": 0, "operator_token": "op", "referee_token": "ref"}}, source="test")
    service = TableService(config, tmp_path)
    await service.start()
    try:
        yield service
    finally:
        await service.stop()


async def test_the_display_answers_while_a_long_days_records_are_built(long_log: Path, tmp_path: Path) -> None:
    async with _on_long_day(long_log, tmp_path) as service:
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


async def test_records_asked_by_many_at_once_are_built_once_per_log_position(long_log: Path, tmp_path: Path,
                                                                          monkeypatch: Any) -> None:
    """A spectator's laptop asking for every round's records from 12 connections at once: each request
    built them again in its own thread (16 such kept the loop stalled up to 0.6 s here, a Pi 5-8x: past
    the table link's 3.5 s silence timeout). Now one build answers all at the same log position; a new
    event makes the next request build again; a round that does not exist is still 404 with its words."""
    import table_controller.record as record

    built: list[int] = []
    real = record.all_records

    def counted(*args: Any, **kwargs: Any) -> Any:
        built.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(record, "all_records", counted)
    async with _on_long_day(long_log, tmp_path) as service:
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{service.port}", timeout=120) as http:
            answers = await asyncio.gather(*(http.get("/api/records?all=true") for _ in range(12)))
            assert all(a.status_code == 200 for a in answers) and len({a.content for a in answers}) == 1
            assert len(answers[0].json()) == 160 and answers[0].headers["content-type"] == "application/json"
            assert len(built) == 1, len(built)  # was 12
            text = await http.get("/api/records?all=true&format=text")
            assert text.headers["content-type"].startswith("text/plain") and "第 1 盘" in text.text
            penalty = {"seat": "E", "code": "exposed_other", "amount": 5, "victim": "S"}
            ruled = await http.post("/api/referee/penalty", json=penalty, headers={"Authorization": "Bearer ref"})
            assert ruled.status_code == 200, ruled.text
            again = await http.get("/api/records?all=true")
            assert len(built) == 3 and again.content != answers[0].content  # the text, then the new position
            missing = await http.get("/api/records?round=99")
            assert missing.status_code == 404 and "99" in missing.json()["detail"]
            hand = await http.get("/api/hands/1/record")
            referee = await http.get("/api/referee/hands/1/record", headers={"Authorization": "Bearer ref"})
            assert hand.status_code == referee.status_code == 200 and hand.json()["hand_no"] == 1
            assert hand.content != referee.content  # the referee's has the hands as read; kept apart


async def test_the_display_answers_while_spectators_page_through_a_long_days_events(long_log: Path, tmp_path: Path,
                                                                                  monkeypatch: Any) -> None:
    """`GET /api/events?limit=5000` read, copied and wrote 5,000 events on the service's loop (0.15-0.3 s
    here): eight connections asking with one `since` after another held the loop up to 2.1 s (a Pi 5-8x,
    past the table link's 3.5 s silence timeout). Now built in a worker thread, the public's one at a time,
    once per (since, limit, log position); the answer is the same public events. The first event copied is
    held until a page's health is answered: only a display copying on its loop cannot answer meanwhile (a
    time limit on the answer, 0.4 s, needed the copying slowed, 0.2 ms an event: 8 s of sleeps a run)."""
    import threading
    import time

    import table_controller.web.app as web_app
    from table_controller.projection import public_event

    copied: list[int] = []
    answered, released = threading.Event(), threading.Event()

    def held(ev: dict[str, Any]) -> dict[str, Any]:  # the copying, its first event held for the page's answer
        copied.append(ev["seq"])
        if len(copied) == 1:
            answered.wait(HOLD_S)
            released.set()
        return public_event(ev)

    async with _on_long_day(long_log, tmp_path) as service:
        base = f"http://127.0.0.1:{service.port}"
        async with httpx.AsyncClient(base_url=base, timeout=120) as http:
            first = (await http.get("/api/events?since=0&limit=50")).json()
            assert first == [public_event(e.to_json()) for e in service.store.since(0, 50)]
            monkeypatch.setattr(web_app, "public_event", held)

            def health() -> tuple[bool, float]:  # a page asking from its own machine while the events are copied
                deadline = time.monotonic() + 10
                while not copied and time.monotonic() < deadline:
                    time.sleep(0.002)
                started = time.monotonic()
                assert httpx.get(base + "/api/health", timeout=60).status_code == 200
                during = not released.is_set()
                answered.set()
                return during, time.monotonic() - started

            pages = [asyncio.create_task(http.get(f"/api/events?since={k * 100}&limit=5000")) for k in range(8)]
            during, waited = await asyncio.to_thread(health)
            answers = await asyncio.gather(*pages)
        assert all(a.status_code == 200 for a in answers) and len(answers[3].json()) == 5000
        assert answers[3].json()[0]["seq"] == 301
        assert during, waited  # it waited seconds behind the copying before


async def test_a_hands_record_late_in_the_day_reads_that_hand_not_the_days_log(long_log: Path, tmp_path: Path,
                                                                              monkeypatch: Any) -> None:
    """The Penalties page asks for the hand on the table's record at every play (更正牌谱's list), all day: each
    answer read the whole log (16,000 events here; 1-1.4 s at 19,000, a Pi 5-8x, growing through the day).
    Now it reads from the hand's last start; the record is the one read from the whole log."""
    async with _on_long_day(long_log, tmp_path) as service:
        store = service.controller.store
        read: list[int] = []
        real = store.since

        def counted(seq: int, limit: int | None = None) -> list[Any]:
            events = real(seq, limit)
            read.append(len(events))
            return events

        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{service.port}", timeout=60) as http:
            monkeypatch.setattr(store, "since", counted)
            state = service.controller.state
            whole = real(0)
            assert len(whole) > 15_000 and state.hand is not None and state.hand["hand_no"] == 160
            for n, referee in ((160, True), (160, False), (159, True), (3, False)):
                path = f"/api/referee/hands/{n}/record" if referee else f"/api/hands/{n}/record"
                answer = await http.get(path, headers={"Authorization": "Bearer ref"})
                assert answer.status_code == 200, answer.text
                expected = hand_record(whole, n, referee=referee, state=state)
                assert answer.json() == json.loads(json.dumps(expected, ensure_ascii=False)), n
            missing = await http.get("/api/hands/999/record")
            assert missing.status_code == 404 and "160" in missing.json()["detail"]  # it names the hands
        assert read[0] < 300 and read[1] < 300, read  # the day's last hand: its own events (was the whole log)
        assert read[2] < 600, read  # hand 159 to now

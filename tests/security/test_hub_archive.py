"""The hub's archive (`/api/archive.zip`) asked by spectators over and over, over real HTTP.

It was built on the hub's loop: 2.2 s at 16 tables' three rounds here, and four laptops asking again
and again held the loop up to 10 s at a time (no page answered, no table's message filed, the broker
keepalive 10 s). Now the hub's files are read on the loop, the zip is made in a worker thread, once per
change of the hub for every client that asks."""

from __future__ import annotations

import asyncio
import io
import json
import threading
import time
import zipfile
from pathlib import Path
from typing import Any

import httpx

import table_controller.record as record
from table_controller.record import session_records
from table_controller.state import fold
from table_controller.store import EventStore
from table_controller.tournament.web import HubService
from tablesim.session import write_session

#: what making one hand's printable record costs in this test (the real one: a few ms a hand, a Pi 5-8x); the
#: answer's wait during the work is shown by `Hold`, and "once for the six" by the hub keeping what it built
#: (`OnceBuilt`) for as long as the hub does not change, so a longer cost shows nothing more (was 0.05: 1.2 s)
SLOW_S = 0.01
#: How long the work's first piece waits for a page's health to be answered (only a hub that does the work
#: on its loop, which cannot answer meanwhile, waits it out).
HOLD_S = 5.0


class Hold:
    """The work's first piece held until a page's `/api/health` has been answered: a time limit on that
    answer failed a good hub on a loaded machine (0.33 s against 0.3); whether the page is answered while the
    work is under way does not depend on the machine."""

    def __init__(self) -> None:
        self.answered, self.released = threading.Event(), threading.Event()

    def piece(self, made: list[Any]) -> None:
        """Called with the list of pieces made, this one appended."""
        if len(made) == 1:
            self.answered.wait(HOLD_S)
            self.released.set()


def _records() -> list[dict[str, Any]]:
    """Four hands' public records of a simulated session."""
    import tempfile

    with tempfile.TemporaryDirectory(prefix="websec-") as tmp:
        store = EventStore(Path(tmp) / "one.sqlite3")
        write_session(store, "mcr", 4, seed=6)
        events = store.since(0)
        store.close()
    return session_records(events, state=fold(events))


async def _hub(tmp_path: Path, records: list[dict[str, Any]]) -> HubService:
    """A hub holding `records` from tables t1..t3 (t2 named 二号桌)."""
    hub = HubService("mqtt://127.0.0.1:9", "cup", tmp_path / "hub", port=0, names={"t2": "二号桌"})
    await hub.start()
    for table_id in ("t1", "t2", "t3"):
        for rec in records:
            msg = {"v": 1, "tournament": "cup", "table_id": table_id, "seq": rec["hand_no"], "round": 1,
                   "hand_no": rec["hand_no"], "record": {**rec, "view": "public"}}
            assert hub.hub.handle(f"mahjong/cup/{table_id}/records", json.dumps(msg).encode()) == "record"
    return hub


async def _asked_six_times(hub: HubService, path: str, made: list[Any],
                           hold: Hold) -> tuple[bool, float, list[httpx.Response]]:
    """`path` asked from six connections at once; meanwhile a page's `/api/health` from its own machine,
    once the work has begun: whether it was answered while the work's first piece was held, how long it
    waited, and the six answers."""
    base = f"http://127.0.0.1:{hub.bound_port}"

    def health() -> float:
        deadline = time.monotonic() + 10
        while not made and time.monotonic() < deadline:
            time.sleep(0.005)
        started = time.monotonic()
        assert httpx.get(base + "/api/health", timeout=60).status_code == 200
        waited, during = time.monotonic() - started, not hold.released.is_set()
        hold.answered.set()
        return during, waited

    async with httpx.AsyncClient(base_url=base, timeout=60) as http:
        asked = [asyncio.create_task(http.get(path)) for _ in range(6)]
        during, waited = await asyncio.to_thread(health)
        return during, waited, list(await asyncio.gather(*asked))


def _slowed(monkeypatch: Any, hold: Hold) -> list[str]:
    """Each hand's printable record made to take `SLOW_S` (the work the archive does per hand), the first
    `hold`ing; the list of those made."""
    made: list[str] = []
    real = record.as_text

    def slow(rec: dict[str, Any]) -> str:
        made.append(rec.get("table_name", ""))
        hold.piece(made)
        time.sleep(SLOW_S)
        return real(rec)

    monkeypatch.setattr(record, "as_text", slow)
    return made


async def test_the_hub_answers_while_spectators_ask_for_the_archive_again_and_again(tmp_path: Path,
                                                                                    monkeypatch: Any) -> None:
    records = _records()
    hub = await _hub(tmp_path, records)
    try:
        hold = Hold()
        made = _slowed(monkeypatch, hold)
        during, waited, answers = await _asked_six_times(hub, "/api/archive.zip", made, hold)
        assert during, waited  # it waited for the zips before (the loop made them)
        assert all(a.status_code == 200 for a in answers) and len({a.content for a in answers}) == 1
        assert len(made) == 3 * len(records), len(made)  # once for the six (was six times)
        with zipfile.ZipFile(io.BytesIO(answers[0].content)) as z:
            kept = json.loads(z.read("tables/t2/records.json"))
            assert [r["hand_no"] for r in kept] == [r["hand_no"] for r in records]
            assert {r["table_name"] for r in kept} == {"二号桌"} and "第 1 盘" in z.read("tables/t1/records.txt").decode()
        # a change of the hub (a table's record again) makes the next one afresh
        msg = {"v": 1, "tournament": "cup", "table_id": "t1", "seq": 99, "round": 1, "hand_no": 1,
               "record": {**records[0], "view": "public", "note": "again"}}
        assert hub.hub.handle("mahjong/cup/t1/records", json.dumps(msg).encode()) == "record"
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{hub.bound_port}", timeout=60) as http:
            again = await http.get("/api/archive.zip")
        with zipfile.ZipFile(io.BytesIO(again.content)) as z:
            assert json.loads(z.read("tables/t1/records.json"))[0]["note"] == "again"
        assert len(made) == 2 * 3 * len(records)
    finally:
        await hub.stop()


async def test_a_tables_records_asked_by_many_at_once_are_written_once(tmp_path: Path, monkeypatch: Any) -> None:
    """The same for a table's printable records (`/api/tables/t2/records?format=text`, 0.1 s a table's
    day here, on the loop each time); its JSON names the table as the organiser did."""
    records = _records()
    hub = await _hub(tmp_path, records)
    try:
        hold = Hold()
        made = _slowed(monkeypatch, hold)
        during, waited, answers = await _asked_six_times(hub, "/api/tables/t2/records?format=text", made, hold)
        assert during, waited  # it waited for the six before (the loop wrote them)
        assert all(a.status_code == 200 for a in answers) and len({a.text for a in answers}) == 1
        assert answers[0].headers["content-type"] == "text/plain; charset=utf-8" and "第 1 盘" in answers[0].text
        assert made == ["二号桌"] * len(records), made  # once for the six (was six times)
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{hub.bound_port}", timeout=60) as http:
            kept = (await http.get("/api/tables/t2/records")).json()
            assert kept["table_id"] == "t2" and [r["table_name"] for r in kept["records"]] == ["二号桌"] * len(records)
            assert (await http.get("/api/tables/t9/records")).status_code == 404
    finally:
        await hub.stop()


async def test_a_tables_log_paged_by_many_at_once_holds_no_page_up(tmp_path: Path, monkeypatch: Any) -> None:
    """`/api/tables/t1/events?limit=5000` parsed and wrote up to 5,000 events on the hub's loop at each
    request: six connections asking at once held a page's health 5.8 s behind them. Now the rows are read
    on the loop and parsed and written in a worker thread, once for all six; the events are the same."""
    import types

    import table_controller.tournament.hub as hub_module

    hub = HubService("mqtt://127.0.0.1:9", "cup", tmp_path / "hub", port=0)
    await hub.start()
    try:
        for seq in range(1, 1501):
            msg = {"v": 1, "tournament": "cup", "table_id": "t1", "seq": seq, "prev": seq - 1, "at": float(seq),
                   "source": "operator", "type": "operator.note", "data": {"text": f"第 {seq} 条"}}
            assert hub.hub.handle("mahjong/cup/t1/events", json.dumps(msg).encode()) == "new"
        base = f"http://127.0.0.1:{hub.bound_port}"
        async with httpx.AsyncClient(base_url=base, timeout=60) as http:
            before = (await http.get("/api/tables/t1/events?since=10&limit=3")).json()
        assert before == {"table_id": "t1", "contiguous": 1500, "events": [
            {"seq": s, "prev": s - 1, "at": float(s), "source": "operator", "type": "operator.note",
             "data": {"text": f"第 {s} 条"}} for s in (11, 12, 13)]}
        parsed: list[int] = []
        hold = Hold()

        def slow(text: Any) -> Any:  # each event's data parsed, made to take its time (0.15 s a page; see SLOW_S)
            parsed.append(1)
            hold.piece(parsed)
            time.sleep(0.0001)
            return json.loads(text)

        monkeypatch.setattr(hub_module, "json", types.SimpleNamespace(loads=slow, dumps=json.dumps))
        during, waited, answers = await _asked_six_times(hub, "/api/tables/t1/events?limit=5000", parsed, hold)
        assert during, waited  # seconds behind the parsing before
        assert all(a.status_code == 200 and len(a.json()["events"]) == 1500 for a in answers)
        assert len(parsed) == 1500  # once for the six
    finally:
        await hub.stop()

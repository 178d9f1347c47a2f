"""The tournament publisher late in a day: a new connection sends every hand's record (牌谱), read
from the log in one pass by a worker thread. On the loop, each hand's record read the whole log
again (400 hands: 12 s here, a Pi 5-8x that) and the table's display and link waited meanwhile.
A real Mosquitto, a real SQLite log, the real publisher; a raw client reads what went out."""

from __future__ import annotations

import asyncio
import json
import threading
from pathlib import Path
from typing import Any

from tournament_helpers import Broker, Wire, until

from table_controller.config import parse_config
from table_controller.controller import Controller
from table_controller.record import hand_record
from table_controller.store import Event, EventStore
from table_controller.tournament.publisher import TournamentPublisher
from tablesim.session import write_session


class _NotedStore(EventStore):
    """A real log that notes the thread of each read of the whole log."""

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self.whole_reads: list[int] = []

    def since(self, seq: int, limit: int | None = None) -> list[Event]:
        if seq == 0 and limit is None:
            self.whole_reads.append(threading.get_ident())
        return super().since(seq, limit)


async def _no_table(url: str) -> Any:
    raise ConnectionRefusedError(url)


async def test_a_new_connection_sends_every_hands_record_read_by_a_worker_thread(
        tmp_path: Path, broker: Broker, wire: Wire) -> None:
    store = _NotedStore(tmp_path / "events.sqlite3")
    write_session(store, "mcr", 12, seed=5)
    controller = Controller(parse_config({"table": {"link": "socket://127.0.0.1:9"}}, "test"), store, _no_table)
    store.whole_reads.clear()  # (the start's fold)
    publisher = TournamentPublisher(controller, broker.url, "cup", "t1")
    task = asyncio.create_task(publisher.run())
    try:
        def records() -> dict[int, dict[str, Any]]:
            out = {}
            for topic, payload, _ in wire.messages:
                if topic.endswith("/t1/records"):
                    msg = json.loads(payload)
                    out[msg["hand_no"]] = msg["record"]
            return out

        await until(lambda: len(records()) == 12, 30, "every hand's record on the wire")
        events = store.since(0)
        for n, record in records().items():  # as `GET /api/hands/{n}/record` reads it
            assert record == json.loads(json.dumps(hand_record(events, n, state=controller.state))), n
        loop_thread = threading.get_ident()
        assert store.whole_reads and loop_thread not in store.whole_reads[:-1]  # (the last: the check above)
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        store.close()

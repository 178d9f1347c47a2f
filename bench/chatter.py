"""A chattering button on the table's board: what a flood of `button` events costs the service.

The simulator on a real pty (sending at 115200 baud, as a board's UART does), the whole service (SQLite log,
display over uvicorn) in this process, a public and a referee WebSocket reading from a subprocess-free client
in the same loop. One seat's button is "pressed" `--rate` times a second for `--seconds`:

- `debounced`: through the simulator's mechanism, which debounces as protocol.md §8 says (30 ms): a worn
  contact chattering past the debounce, at most ~33 reports a second;
- `raw`: a board that does not debounce (a firmware bug, a contact the debounce cannot hold): every press a
  `button` event on the wire.

Meanwhile, mid-flood, the game's own events: a `dice` event from the board and a `jam` fault; their delay
from the board's send to the log is measured, with the events taken a second and the log's durable commits
(one per event before the group commit, one per group since: `Controller._grouped`). The simulated board runs in
this process: while a commit's fsync holds the loop it sends nothing either (a real board sends its window). Prints figures per mode and one JSON line (a progress bar on stderr); leaves nothing in the temporary folder.

    PYTHONPATH=hardware-sim:. .venv/bin/python bench/chatter.py [--rate 500] [--seconds 10]
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import logging
import tempfile
import time
from pathlib import Path
from typing import Any

import websockets
from tqdm import tqdm

from drivers.clock import SystemClock
from drivers.messages import SEATS as SIDES
from table_controller.config import parse_config
from table_controller.controller import side_of_wind
from table_controller.service import TableService
from tablesim import SimTable
from tablesim.physics import Timings

BAUD = 115200
DICE, BUTTON = 0x92, 0x93
REFEREE = "ref-chatter-1"


class Counted(logging.Handler):
    def __init__(self) -> None:
        super().__init__()
        self.records = 0

    def emit(self, record: logging.LogRecord) -> None:
        self.records += 1


class Commits:
    """The log's durable commits that wrote events (an fsync each), counted from the statements SQLite runs: an
    INSERT outside a transaction, or a BEGIN .. COMMIT around INSERTs (a group: `Controller._grouped`)."""

    def __init__(self, db: Any) -> None:
        self.count, self._open, self._wrote = 0, False, False
        db.set_trace_callback(self._saw)

    def _saw(self, sql: str) -> None:
        head = sql.lstrip().upper()
        if head.startswith("BEGIN"):
            self._open, self._wrote = True, False
        elif head.startswith("INSERT INTO EVENTS"):
            self._wrote = True
            self.count += not self._open
        elif head.startswith(("COMMIT", "ROLLBACK")):
            self.count += head.startswith("COMMIT") and self._wrote
            self._open = False


async def read_socket(url: str, token: str | None, got: dict[str, int], stop: asyncio.Event) -> None:
    async with websockets.connect(url, max_size=None) as ws:
        if token:
            await ws.send(json.dumps({"token": token}))
        while not stop.is_set():
            try:
                msg = await asyncio.wait_for(ws.recv(), 0.2)
            except asyncio.TimeoutError:
                continue
            got["messages"] += 1
            got["bytes"] += len(msg.encode() if isinstance(msg, str) else msg)


def db_bytes(data: Path) -> int:
    return sum(p.stat().st_size for p in data.glob("events.sqlite3*"))


async def until(check: Any, seconds: float = 20.0) -> float:
    start = time.monotonic()
    while not check():
        if time.monotonic() - start > seconds:
            raise AssertionError("not reached")
        await asyncio.sleep(0.002)
    return time.monotonic() - start


async def one(mode: str, rate: float, seconds: float) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="chatter-bench-") as tmp:
        data = Path(tmp)
        clock = SystemClock()
        timings = dataclasses.replace(Timings.default().scaled(100), debounce=Timings.default().debounce,
                                      dice_settle=Timings.default().dice_settle)
        sim = SimTable(seed=1, clock=clock, baud=BAUD, timings=timings)
        path = await sim.serve_pty()
        config = parse_config({"table": {"link": path}, "rules": {"ruleset": "jingji"},
                               "display": {"port": 0, "host": "127.0.0.1", "operator_token": "op-chatter-1",
                                           "referee_token": REFEREE}}, source="bench")
        service = TableService(config, data)
        counted = Counted()
        logging.getLogger("table_controller").addHandler(counted)
        await service.start()
        c = service.controller
        assert c is not None and service.store is not None
        commits = Commits(service.store._db)  # noqa: SLF001 - the log's own connection is what commits
        try:
            await c.wait_linked(10)
            await c.start_hand("op")
            await until(lambda: c.state.phase == "walls_raised", 30)
            assert c.state.hand is not None
            dealer = side_of_wind("E", c.state.hand["dealer_position"])
            other = next(s for s in SIDES if s != dealer)
            stop = asyncio.Event()
            public, referee = {"messages": 0, "bytes": 0}, {"messages": 0, "bytes": 0}
            readers = [asyncio.create_task(read_socket(f"ws://127.0.0.1:{service.port}/ws", None, public, stop)),
                       asyncio.create_task(read_socket(f"ws://127.0.0.1:{service.port}/ws/referee", REFEREE,
                                                       referee, stop))]
            await asyncio.sleep(1.0)
            rows0, bytes0 = c.state.seq, db_bytes(data)
            commits0 = commits.count
            pub0, ref0, logs0 = dict(public), dict(referee), counted.records
            health0 = dict(c.health_report()["link"])
            cpu0, wall0 = time.process_time(), time.monotonic()
            sent = 0
            dice_delay = fault_delay = None
            period = 1.0 / rate
            start = time.monotonic()
            next_at = start
            game_dice_sent = game_fault_sent = False
            while time.monotonic() - start < seconds:
                now = time.monotonic()
                if now < next_at:
                    await asyncio.sleep(next_at - now)
                next_at += period
                if mode == "raw":
                    sim.newer_event(BUTTON, bytes([SIDES.index(other), 1]))  # 开始键, every bounce sent
                else:
                    sim.press_button(other, "start")
                sent += 1
                elapsed = time.monotonic() - start
                if not game_dice_sent and elapsed > seconds * 0.4:
                    game_dice_sent = True
                    before = c.state.seq
                    sim.newer_event(DICE, bytes([SIDES.index(dealer), 2, 3, 4]))
                    t_dice = time.monotonic()
                    asyncio.get_running_loop().create_task(_when(
                        lambda b=before: any(e["type"] == "table.dice" and e["seq"] > b for e in c.state.log)
                        or bool(c.state.hand and c.state.hand.get("throws")), t_dice, "dice", results := {}))
                if not game_fault_sent and elapsed > seconds * 0.6:
                    game_fault_sent = True
                    sim.raise_fault("sensor", "photo E")
                    t_fault = time.monotonic()
                    asyncio.get_running_loop().create_task(_when(lambda: "7" in c.state.faults, t_fault, "fault",
                                                                 results))
            flood_s = time.monotonic() - start
            shown = [f"{b['where_zh']} {b['presses']}" for b in c.state.to_json().get("buttons", [])]
            # the backlog: until the log holds every event the board numbered
            drained = await until(lambda: (c.table_resume() or (0, 0))[1] >= sim.last_event, 120)
            cpu, wall = time.process_time() - cpu0, time.monotonic() - wall0
            await asyncio.sleep(1.0)
            stop.set()
            await asyncio.gather(*readers, return_exceptions=True)
            health = c.health_report()["link"]
            dice_delay, fault_delay = results.get("dice"), results.get("fault")
            page_lines = c.state.log
            buttons_on_page = sum(1 for line in page_lines if line["type"] == "table.button")
            report = {
                "mode": mode, "rate_per_s": rate, "seconds": round(flood_s, 2), "presses": sent,
                "button_events_logged": sum(1 for e in service.store.since(rows0) if e.type == "table.button"),
                "rows_added": c.state.seq - rows0,
                "row_bytes_added": sum(len(json.dumps(e.data, ensure_ascii=False)) + len(e.type) + len(e.source) + 16
                                       for e in service.store.since(rows0)),
                "file_bytes_added": db_bytes(data) - bytes0,  # the WAL grows by whole pages until its checkpoint
                "backlog_drain_s": round(drained, 2),
                # the table's events taken into the log a second, flood and backlog together
                "taken_per_s": round((c.state.seq - rows0) / (flood_s + drained), 1),
                "log_commits": commits.count - commits0,
                "page_log_lines_buttons": f"{buttons_on_page}/{len(page_lines)}",
                "public_ws": {k: public[k] - pub0[k] for k in public},
                "referee_ws": {k: referee[k] - ref0[k] for k in referee},
                "journal_records": counted.records - logs0,
                "cpu_s": round(cpu, 2), "cpu_pct": round(100 * cpu / wall, 1),
                "dice_delay_ms": None if dice_delay is None else round(1000 * dice_delay, 1),
                "fault_delay_ms": None if fault_delay is None else round(1000 * fault_delay, 1),
                "retransmits": health.get("retransmits", 0) - health0.get("retransmits", 0),
                "reconnects": health.get("reconnects", 0) - health0.get("reconnects", 0),
                "notice_at_flood_end": shown,
            }
            return report
        finally:
            logging.getLogger("table_controller").removeHandler(counted)
            await service.stop()
            await sim.close()


async def _when(check: Any, t0: float, name: str, results: dict[str, float]) -> None:
    while not check():
        await asyncio.sleep(0.001)
    results[name] = time.monotonic() - t0


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rate", type=float, default=500.0)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--modes", default="debounced,raw")
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    logging.getLogger("table_controller").setLevel(logging.INFO)
    logging.getLogger("table_controller").propagate = False
    reports = []
    for mode in tqdm(args.modes.split(","), desc="modes", unit="mode"):
        r = await one(mode, args.rate, args.seconds)
        reports.append(r)
        for k, v in r.items():
            print(f"{mode:10} {k:24} {v}")
    print(json.dumps(reports, ensure_ascii=False))


if __name__ == "__main__":
    asyncio.run(main())

"""The log against the two things a Pi beside a table really meets: the service restarting while the
table runs on, and a card that fills up (or goes read-only) in the middle of a session.

Every part is real: the simulated table on a pseudo-terminal, the driver, the SQLite file, HTTP.
A full card is SQLite's own `SQLITE_FULL` ("database or disk is full"), reached by capping the
file's page count on the service's own connection (a tmpfs would need root and a mount).
"""

from __future__ import annotations

import asyncio
import sqlite3
import signal
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

import table_controller.controller as controller_module
from drivers.clock import SystemClock
from table_controller.config import parse_config
from table_controller.service import TableService
from table_controller.store import EventStore, StoreError
from tablesim import SimTable

REFEREE = "ref-durable"


async def _until(check: Callable[[], Any], timeout: float = 10.0) -> None:
    for _ in range(int(timeout / 0.05)):
        if check():
            return
        await asyncio.sleep(0.05)
    raise AssertionError("not reached")


def _table_events(store: EventStore) -> list[tuple[str, Any]]:
    return [(e.type, e.data.get("id") or e.data.get("code")) for e in store.since(0) if e.source == "table"]


async def test_a_restarted_service_logs_each_table_event_once_and_what_it_missed(tmp_path: Path) -> None:
    """The service restarts (a crash, systemd, the Pi's power) while the table runs on. Before, the
    restarted host identified itself as new (last_event 0), the table replayed its whole ring and
    every event already in the log was logged again (a jam raised and cleared twice; a dice throw
    twice). Now the host resumes from the record's last table event: the table replays only what
    happened while the service was down."""
    sim = SimTable(seed=2, clock=SystemClock())
    pty = await sim.serve_pty()
    config = parse_config({"table": {"link": pty}, "display": {"port": 0, "operator_token": "op",
                                                              "referee_token": REFEREE}}, source="test")
    try:
        first = TableService(config, tmp_path, serve_http=False)
        await first.start()
        await first.controller.wait_linked(10)
        sim.raise_fault("jam", where="S")
        await _until(lambda: first.controller.state.faults)
        sim.clear_fault("jam")
        await _until(lambda: not first.controller.state.faults)
        assert _table_events(first.store) == [("table.fault_raised", "jam"), ("table.fault_cleared", 1)]
        cursor = first.store.table_cursor()
        assert cursor == (sim.boot_id, sim.last_event)  # the table's own numbers, kept with the events
        await first.stop()

        sim.raise_fault("centre_open")  # while nobody listens: the table keeps it in its ring
        second = TableService(config, tmp_path, serve_http=False)
        await second.start()
        try:
            await second.controller.wait_linked(10)
            await _until(lambda: second.controller.state.faults)
            await asyncio.sleep(0.5)  # anything else the table would replay has arrived by now
            assert _table_events(second.store) == [("table.fault_raised", "jam"), ("table.fault_cleared", 1),
                                                   ("table.fault_raised", "centre_open")]
            assert second.store.table_cursor() == (sim.boot_id, sim.last_event)
        finally:
            await second.stop()
    finally:
        await sim.close()


async def test_a_full_log_holds_the_tables_events_refuses_actions_and_catches_up(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The card fills up mid-session. Before, the first event the log refused killed the link's task:
    the display still said "linked", every later event was lost, nothing said why. Now the table's
    events wait in order, the health panel and /api/health say the log cannot be written, a
    referee's action is refused with the reason (503), and once space is back the waiting events
    are written in order, the log records the gap, and actions work again."""
    # the held events are tried again every 0.25 s instead of every 1 s: the same catch-up, sooner
    monkeypatch.setattr(controller_module, "LOG_RETRY_S", 0.25)
    config = parse_config({"table": {"link": "sim://", "sim_seed": 3, "sim_speed": 100.0},
                           "display": {"port": 0, "operator_token": "op", "referee_token": REFEREE}},
                          source="test")
    service = TableService(config, tmp_path)
    await service.start()
    try:
        await service.controller.wait_linked(10)
        assert service.sim is not None
        db: sqlite3.Connection = service.store._db  # the service's own connection: its cap is per connection
        pages = db.execute("PRAGMA page_count").fetchone()[0]
        db.execute(f"PRAGMA max_page_count = {pages}")
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{service.port}") as http:
            auth = {"Authorization": f"Bearer {REFEREE}"}
            # fill what is left of the last page with table events until the log refuses one
            faults = 0
            while service.controller.log_error is None:
                service.sim.raise_fault("jam", where="E")
                service.sim.clear_fault("jam")
                faults += 1
                await asyncio.sleep(0.05)
                assert faults < 200, "the capped log never filled"
            service.sim.raise_fault("centre_open")
            sim = service.sim
            await _until(lambda: service.controller.table_resume() == (sim.boot_id, sim.last_event))
            held_before = len(service.controller._held)  # all the table said since the log filled
            assert held_before >= 2

            health = (await http.get("/api/health")).json()
            assert health["ok"] is False
            assert health["health"]["log"]["ok"] is False
            assert "无法写入" in health["health"]["log"]["message"]
            assert health["health"]["link"]["up"] is True  # the link stayed up: nothing was dropped
            r = await http.post("/api/referee/penalty", json={"seat": "S", "code": "late_5"}, headers=auth)
            assert r.status_code == 503 and "无法写入" in r.json()["detail"]
            seq_full = service.controller.state.seq
            assert not [a for a in service.controller.state.actions if a["type"] == "referee.penalty"]

            db.execute("PRAGMA max_page_count = 1000000")  # the operator freed space
            await _until(lambda: service.controller.log_error is None and not service.controller._held)
            after = service.store.since(seq_full)
            assert len(after) >= held_before + 1
            assert [e.source for e in after[:held_before]] == ["table"] * held_before  # the held ones first
            assert after[held_before].type == "controller.log_restored"
            assert "full" in after[held_before].data["error"] and after[held_before].data["unwritable_s"] >= 0
            assert any(f.get("id") == "centre_open" for f in service.controller.state.faults.values())
            # every event the table numbered is in the log once, in order: none lost, none repeated
            # (its first, the boot's hello, is the identity the link.up event records)
            await _until(lambda: service.controller.table_resume() == (service.sim.boot_id, service.sim.last_event))
            numbered = [e for e in service.store.since(0) if e.source == "table" and not e.data.get("resync")]
            assert len(numbered) == service.sim.last_event - 1

            r = await http.post("/api/referee/penalty", json={"seat": "S", "code": "late_5"}, headers=auth)
            assert r.status_code == 200, r.text
            assert (await http.get("/api/health")).json()["ok"] is True
    finally:
        await service.stop()



async def test_a_hand_started_over_one_still_in_play_lowers_its_walls_and_raises_the_next(tmp_path: Path) -> None:
    """Starting a hand while the last one is still in play abandons it (中止). Before, the new hand
    was recorded but the table was never told to take the old walls in: it stood in "playing" and
    the new hand waited for walls for good (seen when the demo resumed after a full log)."""
    config = parse_config({"table": {"link": "sim://", "sim_seed": 5, "sim_speed": 100.0},
                           "display": {"port": 0, "operator_token": "op", "referee_token": REFEREE}},
                          source="test")
    service = TableService(config, tmp_path, serve_http=False)
    await service.start()
    try:
        c = service.controller
        await c.wait_linked(10)
        await c.start_hand(by="op")
        await _until(lambda: c.state.phase == "walls_raised", 15)
        dealer = c.state.hand["dealer_position"]
        await c.start_hand(by="op")
        await _until(lambda: c.state.phase == "lowering", 10)
        await _until(lambda: c.state.phase == "walls_raised", 15)
        assert c.state.hand["hand_no"] == 2 and c.state.hand["dealer_position"] == dealer  # replayed by the same dealer
        ends = [e.data["result"] for e in service.store.since(0) if e.type == "operator.hand_end"]
        assert ends == ["abandoned"]
    finally:
        await service.stop()


async def test_a_second_service_on_the_same_log_or_the_same_port_is_refused(tmp_path: Path) -> None:
    """The systemd unit runs, and somebody starts `tablectl run` by hand to check something: two
    writers on one log (numbering over each other) and two readers on one serial port (each getting
    half of the table's bytes). Both are refused with a reason; the running one is untouched."""
    import os

    import pytest

    from drivers.errors import TransportError
    from drivers.transport import open_transport
    from table_controller.store import LogInUse

    sim = SimTable(seed=6, clock=SystemClock())
    pty = await sim.serve_pty()
    config = parse_config({"table": {"link": pty}, "display": {"port": 0, "operator_token": "op",
                                                              "referee_token": REFEREE}}, source="test")
    first = TableService(config, tmp_path, serve_http=False)
    await first.start()
    try:
        await first.controller.wait_linked(10)
        second = TableService(config, tmp_path, serve_http=False)
        with pytest.raises(LogInUse, match=str(os.getpid())):
            await second.start()
        await second.stop()
        with pytest.raises(TransportError) as busy:
            await open_transport(pty)
        assert busy.value.code == "port_busy" and "占用" in str(busy.value)
        sim.raise_fault("jam", where="N")  # the first one still hears its table
        await _until(lambda: first.controller.state.faults)
    finally:
        await first.stop()
    again = TableService(config, tmp_path, serve_http=False)  # once it stopped, the log is free again
    await again.start()
    try:
        await again.controller.wait_linked(10)
    finally:
        await again.stop()
        await sim.close()


def test_the_log_restored_says_how_long_the_card_was_full_from_its_first_refusal(tmp_path: Path) -> None:
    """The card fills under an operator's action and stays full while the log is asked again every
    second. Before, each retry cleared the error before writing `controller.log_restored`; its refusal
    stamped a new failure, so the event said the log was unwritable for the last retry's second, not
    the whole time (and every retry logged the error again). Now the first refusal's time stands."""
    from drivers.clock import SteadyWallClock
    from table_controller.controller import Controller

    wall, mono = [1_000_000.0], [100.0]
    clock = SteadyWallClock(wall=lambda: wall[0], mono=lambda: mono[0])

    async def no_table(url: str) -> Any:
        raise ConnectionRefusedError(url)

    store = EventStore(tmp_path / "events.sqlite3")
    c = Controller(parse_config({"table": {"link": "socket://127.0.0.1:9"}}, "test"), store, no_table, wall_clock=clock)
    c.accept("controller", "controller.configured", {"table_name": "1号桌"})
    pages = store._db.execute("PRAGMA page_count").fetchone()[0]
    store._db.execute(f"PRAGMA max_page_count = {pages}")
    n = 0
    while c.log_error is None:  # the operator's actions until the card refuses one (nothing is held)
        try:
            c.accept("operator", "operator.note", {"n": n, "pad": "x" * 500})
        except StoreError:
            pass
        n += 1
        assert n < 100, "the capped log never filled"
    first = c._log_failed_at
    for _ in range(30):  # full for half a minute, asked again every second
        mono[0] += 1.0
        with pytest.raises(StoreError):
            c._retry_log()  # (its loop, `Controller._every`, waits for the next second)
        assert c.log_error is not None
    store._db.execute("PRAGMA max_page_count = 1000000")
    mono[0] += 1.0
    c._retry_log()
    assert c.log_error is None and not c._held
    restored = [e for e in store.since(0) if e.type == "controller.log_restored"]
    assert len(restored) == 1
    assert restored[0].data["failed_at"] == first
    assert restored[0].data["unwritable_s"] == 31.0
    store.close()


def test_a_log_that_cannot_be_started_says_why_in_the_technicians_words(tmp_path: Path) -> None:
    """A fresh data directory on a full card said only "cannot open the event log …: database or disk is
    full", in English, on the console a technician reads."""
    import resource

    from table_controller.store import EventStore, StoreError

    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    previous = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails (EFBIG), as on a full card
    resource.setrlimit(resource.RLIMIT_FSIZE, (0, hard))
    try:
        with pytest.raises(StoreError) as err:
            EventStore(tmp_path / "fresh" / "events.sqlite3")
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
        signal.signal(signal.SIGXFSZ, previous)
    said = str(err.value)
    assert said.startswith("无法打开事件记录（写入存储卡失败：卡已满或已损坏") and "cannot open the event log" in said, said

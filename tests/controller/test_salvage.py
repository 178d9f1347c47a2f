"""A damaged log at start (a card that lost power mid-write): kept aside, salvaged, the service runs.

The damage is real: a page in the middle of the SQLite file overwritten with noise, as a failing
card leaves it; SQLite itself then calls the file "malformed"."""

from __future__ import annotations

import asyncio
import json
import random
import sqlite3
from pathlib import Path
from typing import Any

from table_controller.config import parse_config
from table_controller.salvage import damage
from table_controller.service import TableService
from table_controller.state import describe
from table_controller.store import EventStore, read_only_uri


def _config(mirror: Path | None = None) -> Any:
    doc: dict[str, Any] = {"table": {"link": "sim://", "sim_seed": 4, "sim_speed": 100.0},
                           "display": {"port": 0, "operator_token": "op", "referee_token": "ref"}}
    if mirror is not None:
        doc["storage"] = {"mirror_dir": str(mirror)}
    return parse_config(doc, source="test")


async def _play(service: TableService, cycles: int) -> None:
    """Enough of the table's events to fill a few pages of the log."""
    c = service.controller
    assert c is not None and service.sim is not None
    await c.wait_linked(10)
    for _ in range(cycles):
        service.sim.raise_fault("jam", where="W")
        service.sim.clear_fault("jam")
        await asyncio.sleep(0.01)
    for _ in range(200):
        if not c.state.faults and c.state.seq >= 2 * cycles:
            break
        await asyncio.sleep(0.05)


def _damage_a_middle_page(path: Path, seed: int = 1) -> None:
    """Noise over a page of events (a b-tree leaf) in the middle of the file: its events are lost.
    (Noise over an interior page loses none now: the leaves are read from the pages themselves.)"""
    data = path.read_bytes()
    pages = len(data) // 4096
    assert pages >= 6, pages
    leaf = next(n for n in list(range(pages // 2, pages)) + list(range(1, pages // 2)) if data[n * 4096] == 0x0D)
    with path.open("r+b") as f:
        f.seek(leaf * 4096)
        f.write(random.Random(seed).randbytes(4096))


def _rows(path: Path) -> list[tuple[Any, ...]]:
    db = sqlite3.connect(path)
    try:
        return db.execute("SELECT seq, at, source, type, data FROM events ORDER BY seq").fetchall()
    finally:
        db.close()


async def test_a_damaged_log_is_kept_aside_and_the_mirror_gives_back_what_it_lost(tmp_path: Path) -> None:
    stick = tmp_path / "usb"
    stick.mkdir()
    data = tmp_path / "data"
    first = TableService(_config(stick), data, serve_http=False)
    await first.start()
    try:
        await _play(first, 60)
        for _ in range(100):  # the mirror copies in the background
            if first.mirror is not None and first.mirror.mirrored == first.store.last_seq():
                break
            await asyncio.sleep(0.05)
    finally:
        await first.stop()
    log = data / "events.sqlite3"
    before = _rows(log)
    _damage_a_middle_page(log)
    assert damage(log) is not None

    second = TableService(_config(stick), data, serve_http=False)
    await second.start()
    try:
        report = [e for e in second.store.since(0) if e.type == "controller.log_salvaged"]
        assert len(report) == 1
        r = report[0].data
        assert r["lost_count"] == 0 and r["from_mirror"] > 0
        assert r["recovered"] + r["from_mirror"] == len(before) == r["last_seq"]
        assert (data / r["damaged_file"]).exists()  # kept for whoever wants to look
        assert _rows(log)[:len(before)] == before  # every event under its own number, as it was
        assert damage(log) is None
        await second.controller.wait_linked(10)  # and the table plays on
        assert second.controller.state.link.get("up")
    finally:
        await second.stop()


async def test_without_a_mirror_the_readable_events_carry_over_and_the_lost_numbers_are_named(tmp_path: Path) -> None:
    data = tmp_path / "data"
    first = TableService(_config(), data, serve_http=False)
    await first.start()
    try:
        await _play(first, 60)
    finally:
        await first.stop()
    log = data / "events.sqlite3"
    before = {row[0]: row for row in _rows(log)}
    _damage_a_middle_page(log)

    second = TableService(_config(), data, serve_http=False)
    await second.start()
    try:
        r = next(e for e in second.store.since(0) if e.type == "controller.log_salvaged").data
        lost = {n for a, b in r["lost"] for n in range(a, b + 1)}
        assert r["lost_count"] == len(lost) > 0 and r["from_mirror"] == 0
        kept = {row[0]: row for row in _rows(log) if row[0] <= len(before)}
        assert set(kept) | lost == set(before) and not set(kept) & lost
        assert all(kept[n] == before[n] for n in kept)  # what was read is what was written
        salvaged = next(e for e in second.store.since(0) if e.type == "controller.log_salvaged")
        assert "丢失" in describe(salvaged)  # the referee reads what was lost in the event list
        assert salvaged.seq > len(before)  # new events number on after the old ones
    finally:
        await second.stop()


def test_reading_a_damaged_log_says_so_instead_of_a_traceback(tmp_path: Path, capsys: Any) -> None:
    from table_controller.cli import main as tablectl

    store = EventStore(tmp_path / "events.sqlite3")
    store.restore([(i + 1, 1.0 + i, "referee", "referee.note", f'{{"text": "记{i}"}}') for i in range(2000)], None)
    store.close()
    _damage_a_middle_page(tmp_path / "events.sqlite3")
    assert tablectl(["record", "--data-dir", str(tmp_path)]) == 2
    assert "damaged" in capsys.readouterr().err
    (tmp_path / "events.sqlite3").write_bytes(b"not a database at all" * 100)  # its header overwritten
    assert tablectl(["record", "--data-dir", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("tablectl record: ") and "salvages it at its next start" in err



def _log_of(data: Path, checkpointed: int, in_wal: int) -> dict[int, tuple[Any, ...]]:
    """A log of `checkpointed` table events in its file and `in_wal` notes since, only in its WAL,
    as a power cut leaves them; its rows by number."""
    data.mkdir()
    log = data / "events.sqlite3"
    store = EventStore(log)
    store.restore([(i, 1.0 + i, "table", "table.phase", f'{{"phase": "building", "n": {i}, "pad": "{"墙" * 300}"}}')
                   for i in range(1, checkpointed + 1)], (7, checkpointed))
    store._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    for i in range(in_wal):
        store.append("referee", "referee.note", {"text": f"记{i}"}, at=500.0 + i)
    before = {row[0]: row for row in _rows(log)}
    wal = Path(f"{log}-wal").read_bytes()
    store.close()  # (a clean close checkpoints: the WAL is put back as the power cut left it)
    if in_wal:
        Path(f"{log}-wal").write_bytes(wal)
    return before


async def _salvaged(data: Path, before: dict[int, tuple[Any, ...]]) -> tuple[dict[str, Any], set[int]]:
    """Start the service on the damaged log: what `controller.log_salvaged` says, and the numbers
    carried over; each is what was written, and no old number is given again."""
    service = TableService(_config(), data, serve_http=False)
    await service.start()
    try:
        assert service.store is not None
        ev = next(e for e in service.store.since(0) if e.type == "controller.log_salvaged")
        lost = {n for a, b in ev.data["lost"] for n in range(a, b + 1)}
        kept = {row[0]: row for row in _rows(data / "events.sqlite3") if row[0] <= len(before)}
        assert ev.data["last_seq"] == len(before) and ev.data["recovered"] == len(kept)
        assert set(kept) | lost == set(before) and not set(kept) & lost and ev.data["lost_count"] == len(lost) > 0
        assert all(kept[n] == before[n] for n in kept)
        assert ev.seq == len(before) + 1
        return ev.data, set(kept)
    finally:
        await service.stop()


async def test_a_log_cut_short_gives_back_its_whole_pages_and_names_the_rest(tmp_path: Path) -> None:
    """The log's file is cut short (a card that lost its tail, a copy stopped half way). SQLite then
    refuses every query of the file, its whole pages too. Before, the salvage read nothing, said
    nothing was lost (`lost_count` 0, `last_seq` 0) and the new log numbered from 1 again over the
    old numbers. Now the events are read from the file's pages (`table_controller.pages`), the ones
    on the missing pages are named lost (the count from SQLite's own counter), and the new events
    number on after the last."""
    before = _log_of(tmp_path / "data", 200, 0)
    log = tmp_path / "data" / "events.sqlite3"
    with log.open("r+b") as f:
        f.truncate(log.stat().st_size * 6 // 10)
    _, kept = await _salvaged(tmp_path / "data", before)
    assert len(kept) >= 100


async def test_an_emptied_log_gives_back_the_events_its_wal_holds(tmp_path: Path) -> None:
    """A file system repair empties the log's file; its WAL still holds the newest events. Before,
    SQLite took the empty file for a new log and deleted the WAL: nothing was salvaged, nothing said
    lost. Now the WAL's events are carried over and the rest named."""
    before = _log_of(tmp_path / "data", 100, 20)
    (tmp_path / "data" / "events.sqlite3").write_bytes(b"")
    # `tablectl check` first, as a technician would: it must not cost the WAL (a read-only connection
    # on the empty file deleted it; so did the start's check for a newer version's log)
    from table_controller.config import parse_config
    from table_controller.preflight import check_storage

    wal = tmp_path / "data" / "events.sqlite3-wal"
    found = check_storage(parse_config({"storage": {"data_dir": str(tmp_path / "data")}}, source=str(tmp_path / "t")))
    assert wal.stat().st_size > 0 and "damaged" in found[0].detail and found[0].level == "warn"
    _, kept = await _salvaged(tmp_path / "data", before)
    assert set(range(101, 121)) <= kept


#: The service's opener of the log at start, in a process of its own (killed as a power cut would stop it).
_OPENER = """
import sys
from pathlib import Path
from table_controller.config import parse_config
from table_controller.service import TableService
data = Path(sys.argv[1])
service = TableService(parse_config({"table": {"link": "sim://"}}, source="test"), data)
print("opening", flush=True)
service._open_log(data / "events.sqlite3").close()
print("open", flush=True)
"""


def _open_at_start(data: Path) -> EventStore:
    return TableService(_config(), data)._open_log(data / "events.sqlite3")


def _events(store: EventStore) -> tuple[list[tuple[Any, ...]], list[dict[str, Any]]]:
    """The log's events as written (its news of the salvage apart, stamped when it ran) and that news."""
    every = store.since(0)
    return ([(e.seq, e.at, e.source, e.type, e.data) for e in every if e.type != "controller.log_salvaged"],
            [e.data for e in every if e.type == "controller.log_salvaged"])


def test_a_salvage_cut_at_any_point_leaves_the_next_start_every_event_it_can_read(tmp_path: Path) -> None:
    """The salvage runs at start, right after a power cut, and the power may go again while it runs. Before,
    the damaged log was renamed aside first and the fresh one written after the damaged one was read: a cut
    in between left no log, and the next start began an empty one (the match gone from every page, nothing
    said). Now the fresh log is written whole beside the damaged one and only then put in its place: after a
    cut anywhere, the next start holds every event a salvage reads, and says once what was lost."""
    import shutil
    import subprocess
    import sys
    import time

    damaged = tmp_path / "damaged"
    damaged.mkdir()
    store = EventStore(damaged / "events.sqlite3")
    store.restore([(i, 1.0 + i, "referee", "referee.note", f'{{"text": "记{i}", "pad": "{"x" * 40}"}}')
                   for i in range(1, 5001)], None)
    store.close()
    _damage_a_middle_page(damaged / "events.sqlite3")
    whole = tmp_path / "whole"
    shutil.copytree(damaged, whole)
    store = _open_at_start(whole)  # a salvage nobody cut
    expected, (clean,) = _events(store)
    store.close()
    assert clean["lost_count"] > 0 and len(expected) == clean["recovered"]

    env = {**__import__("os").environ, "PYTHONPATH": ":".join(sys.path)}
    for n, wait in enumerate((0.0, 0.03, 0.06, 0.1)):
        data = tmp_path / f"cut{n}"
        shutil.copytree(damaged, data)
        opener = subprocess.Popen([sys.executable, "-c", _OPENER, str(data)], stdout=subprocess.PIPE, text=True, env=env)
        assert opener.stdout is not None and opener.stdout.readline() == "opening\n"
        time.sleep(wait)
        opener.kill()
        opener.communicate()
        store = _open_at_start(data)  # the next start
        try:
            events, news = _events(store)
        finally:
            store.close()
        assert events == expected, f"cut after {wait} s: {len(events)} events at the next start"
        assert len(news) == 1 and news[0]["lost"] == clean["lost"]
        kept = sorted(p.name for p in data.glob("events.damaged-*.sqlite3"))
        assert kept == [news[0]["damaged_file"]]  # the damaged log kept aside, once
        assert not list(data.glob("events.salvag*"))


def test_a_salvage_cut_once_its_log_was_whole_is_finished_at_the_next_start(tmp_path: Path) -> None:
    """The one moment of a salvage a cut can leave two logs: the fresh one whole under its own name, the
    damaged one still in the log's place. The next start puts the fresh one in place (not a second salvage
    of the damaged log, which would number its news anew) and keeps the damaged one aside with its WAL."""
    data = tmp_path / "data"
    before = _log_of(data, 100, 10)
    log = data / "events.sqlite3"
    log.write_bytes(log.read_bytes()[:4096 * 3])  # cut short: SQLite refuses it
    wal = (data / "events.sqlite3-wal").read_bytes()
    _open_at_start(data).close()
    news = json.loads(sqlite3.connect(log).execute(
        "SELECT data FROM events WHERE type = 'controller.log_salvaged'").fetchone()[0])
    aside = data / news["damaged_file"]
    # as the cut left it: the fresh log renamed whole, the damaged one (and its WAL) not yet moved
    log.rename(data / "events.salvaged.sqlite3")
    aside.rename(log)
    Path(f"{aside}-wal").rename(data / "events.sqlite3-wal")
    store = _open_at_start(data)
    try:
        events, again = _events(store)
        assert again == [news]
        assert {e[0] for e in events} | {n for a, b in news["lost"] for n in range(a, b + 1)} == set(before)
    finally:
        store.close()
    assert Path(f"{aside}-wal").read_bytes() == wal  # the damaged log's WAL went with it
    assert not (data / "events.salvaged.sqlite3").exists()


def test_a_second_damaged_log_the_same_second_is_kept_beside_the_first(tmp_path: Path) -> None:
    """A Pi without a clock starts at the time it saved last: two salvages can carry one stamp. Before, the
    second damaged log was renamed over the first one kept aside (the evidence of the first gone)."""
    from table_controller.salvage import salvage

    data = tmp_path / "data"
    _log_of(data, 50, 0)
    log = data / "events.sqlite3"
    log.write_bytes(log.read_bytes()[:4096 * 2])
    first = salvage(log, "cut short", at=1_000_000.0)
    log.write_bytes(log.read_bytes()[:4096 * 2])
    second = salvage(log, "cut short", at=1_000_000.0)
    assert first.damaged_file != second.damaged_file
    assert (data / first.damaged_file).exists() and (data / second.damaged_file).exists()


async def test_a_log_that_lost_its_last_writes_gets_them_back_from_the_mirror(tmp_path: Path) -> None:
    """An SD card that loses its last writes at a power cut (it said they were on the card), or a WAL frame
    gone bad, leaves a log SQLite reads whole, only shorter. Before, the service started on it as it was:
    the referee's last acknowledged actions were gone without a word, new events took their numbers, and
    the mirror, which held them, was refused as "another table's log" with the advice to move it aside.
    Now the start sees the mirror is this log's copy and longer, and salvages: its events come back under
    their numbers and the news says so."""
    import shutil

    stick = tmp_path / "usb"
    stick.mkdir()
    data = tmp_path / "data"
    log = data / "events.sqlite3"
    store = EventStore(log)
    for i in range(40):
        store.append("referee", "referee.penalty", {"seat": "S", "code": "late_5", "n": i}, at=1000.0 + i)
    store.close()
    shutil.copy(log, tmp_path / "earlier.sqlite3")  # what the card will give back
    service = TableService(_config(stick), data, serve_http=False)
    await service.start()
    try:
        assert service.store is not None and service.mirror is not None
        for i in range(40, 50):
            service.controller.accept("referee", "referee.penalty", {"seat": "S", "code": "late_5", "n": i})
        for _ in range(100):  # the mirror copies in the background
            if service.mirror.mirrored == service.store.last_seq():
                break
            await asyncio.sleep(0.05)
    finally:
        await service.stop()
    written = _rows(log)
    shutil.copy(tmp_path / "earlier.sqlite3", log)  # the power cut: the card lost everything after event 40
    Path(f"{log}-wal").unlink(missing_ok=True)
    assert damage(log) is None  # SQLite sees nothing wrong
    from table_controller.preflight import check_storage  # `tablectl check` first: not "another table's log"

    told = {f.what: f for f in check_storage(parse_config(
        {"storage": {"data_dir": str(data), "mirror_dir": str(stick)}}, source=str(tmp_path / "t.toml")))}
    assert told["记录备份 / log mirror"].level == "warn" and "补回" in told["记录备份 / log mirror"].detail

    again = TableService(_config(stick), data, serve_http=False)
    await again.start()
    try:
        assert again.store is not None and again.mirror is not None
        news = [e for e in again.store.since(0) if e.type == "controller.log_salvaged"]
        assert len(news) == 1 and news[0].data["from_mirror"] == len(written) - 40 and news[0].data["lost_count"] == 0
        assert "#40" in news[0].data["problem"] and "备份盘" in news[0].data["problem"]
        assert _rows(log)[:len(written)] == written  # every acknowledged event back under its own number
        assert news[0].seq == len(written) + 1
        for _ in range(100):
            if again.mirror.health()["ok"]:
                break
            await asyncio.sleep(0.05)
        assert again.mirror.health()["ok"], again.mirror.health()  # the mirror goes on as this log's copy
    finally:
        await again.stop()


async def test_an_event_with_a_bit_flipped_is_named_lost_and_the_service_starts(tmp_path: Path) -> None:
    """A bit flipped in an event's bytes on the card: SQLite keeps no checksum of its rows, so its own check
    says "ok". Before, the service's fold at start stopped on the event (a JSONDecodeError, or text that is
    not UTF-8) and the table never came up, at every restart. Now the start's check reads every event as the
    service reads it, and the log is salvaged: those events named lost, every other one kept as written."""
    data = tmp_path / "data"
    data.mkdir()
    log = data / "events.sqlite3"
    store = EventStore(log)
    store.restore([(i, 1.0 + i, "referee", "referee.note", f'{{"text": "marker-{i:04d}"}}') for i in range(1, 301)],
                  None)
    store.close()
    before = {row[0]: row for row in _rows(log)}
    raw = bytearray(log.read_bytes())
    at = raw.index(b'{"text": "marker-0100"}')
    raw[at + 1] ^= 0x01  # '"' -> '#': its JSON broken
    at = raw.index(b'{"text": "marker-0200"}')
    raw[at + 10] ^= 0x80  # 'm' -> 0xED: its text no UTF-8
    log.write_bytes(raw)
    assert sqlite3.connect(log).execute("PRAGMA quick_check").fetchone()[0] == "ok"  # SQLite sees nothing
    from table_controller.preflight import check_storage  # `tablectl check` does

    told = check_storage(parse_config({"storage": {"data_dir": str(data)}}, source=str(tmp_path / "t.toml")))[0]
    assert told.level == "warn" and "#100" in told.detail and "damaged" in told.detail

    service = TableService(_config(), data, serve_http=False)
    await service.start()
    try:
        assert service.store is not None
        news = [e.data for e in service.store.since(0) if e.type == "controller.log_salvaged"]
        assert len(news) == 1 and news[0]["lost"] == [[100, 100], [200, 200]], news
        assert "#100" in news[0]["problem"]
        kept = {row[0]: row for row in _rows(log) if row[0] <= 300}
        assert kept == {n: row for n, row in before.items() if n not in (100, 200)}
        assert service.controller.state.seq > 300  # folded: the table is up
    finally:
        await service.stop()


async def test_a_wal_frame_damaged_on_the_card_is_salvaged_not_cut_off_without_a_word(tmp_path: Path) -> None:
    """A frame of the WAL damaged on the card after it was written (its checksum fails): SQLite takes the
    WAL to end there and reads the log without every event committed after it, and its check says "ok".
    Before, the service started on that shorter log: the referee's acknowledged actions after the frame
    gone without a word, new events taking their numbers (82 of 300 random flips in a log's file and WAL).
    Now the start sees commits past the frame SQLite stopped at, and salvages: the events after it come
    back from the WAL's frames, and the news names what could not."""
    data = tmp_path / "data"
    before = _log_of(data, 100, 40)
    log = data / "events.sqlite3"
    wal = bytearray(Path(f"{log}-wal").read_bytes())
    frames = (len(wal) - 32) // (24 + 4096)
    assert frames >= 40
    damaged = frames // 3
    wal[32 + damaged * (24 + 4096) + 24 + 2000] ^= 0x10  # a bit of that frame's page
    Path(f"{log}-wal").write_bytes(wal)
    db = sqlite3.connect(read_only_uri(log), uri=True)  # (a writer's close would checkpoint what it reads)
    assert db.execute("PRAGMA quick_check").fetchone()[0] == "ok"
    assert db.execute("SELECT MAX(seq) FROM events").fetchone()[0] < 140  # what SQLite reads: cut off
    db.close()
    (data / "events.sqlite3-shm").unlink(missing_ok=True)

    service = TableService(_config(), data, serve_http=False)
    await service.start()
    try:
        assert service.store is not None
        news = next(e for e in service.store.since(0) if e.type == "controller.log_salvaged")
        assert "WAL frame" in news.data["problem"]
        lost = {n for a, b in news.data["lost"] for n in range(a, b + 1)}
        kept = {row[0]: row for row in _rows(log) if row[0] <= len(before)}
        assert set(kept) | lost == set(before) and not set(kept) & lost  # every event back or named
        assert all(kept[n] == before[n] for n in kept) and set(range(131, 141)) <= set(kept)
        assert news.seq == len(before) + 1  # numbered on after the last, none given twice
    finally:
        await service.stop()

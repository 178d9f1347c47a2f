"""A long day at one table: what each pushed state costs must not grow with the hands played
squared (the Pi folds and projects every event; bench/day.py measures it)."""

from __future__ import annotations

import asyncio
import dataclasses
import pickle
import threading
from pathlib import Path
from typing import Any

import pytest

from table_controller import snapshot
from table_controller.config import parse_config
from table_controller.controller import Controller
from table_controller.scoresheet import compute
from table_controller.state import TableState, fold
from table_controller.store import EventStore
from tablesim.session import write_session


class _Counted(list):  # type: ignore[type-arg]
    """The session's actions, counting how often something reads through them."""

    scans = 0

    def __iter__(self) -> Any:
        type(self).scans += 1
        return super().__iter__()


@pytest.fixture(scope="module")
def day(tmp_path_factory: pytest.TempPathFactory) -> list[Any]:
    store = EventStore(tmp_path_factory.mktemp("day") / "events.sqlite3")
    write_session(store, "mcr", 12, seed=4)
    events = store.since(0)
    store.close()
    return events


def _scans(state: TableState) -> tuple[int, dict[str, Any]]:
    _Counted.scans = 0
    sheet = compute(dataclasses.replace(state, actions=_Counted(state.actions)))
    return _Counted.scans, sheet


def test_the_score_sheet_reads_the_sessions_actions_a_fixed_number_of_times(day: list[Any]) -> None:
    ends = [e.seq for e in day if e.type == "operator.hand_end"]
    early = fold(e for e in day if e.seq <= ends[2])
    late = fold(day)
    assert len(late.hands) == 12 and len(late.actions) > len(early.actions) > 0
    early_scans, _ = _scans(early)
    late_scans, sheet = _scans(late)
    # once per question, not once per hand per question: 12 hands read the actions as often as 3
    assert late_scans == early_scans <= 6
    assert sheet == compute(late)  # and the sheet is the same
    assert [r["hand_no"] for r in sheet["rows"]] == list(range(1, 13))
    assert sum(1 for r in sheet["rows"] if r["wins"]) == sum(1 for h in late.hands if h["result"] == "win")


class _NotedStore(EventStore):
    """A real log that notes, for each snapshot written, the thread that wrote it and what."""

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self.written: list[tuple[int, int, bytes]] = []  # (thread, seq, blob)

    def put_snapshot(self, seq: int, version: str, at: float, state: bytes) -> None:
        self.written.append((threading.get_ident(), seq, state))
        super().put_snapshot(seq, version, at, state)


async def _no_table(url: str) -> Any:
    raise ConnectionRefusedError(url)


async def test_the_snapshot_is_written_by_another_thread_while_the_loop_folds_on(
        day: list[Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(snapshot, "EVERY", 60)
    store = _NotedStore(tmp_path / "events.sqlite3")
    controller = Controller(parse_config({"table": {"link": "socket://127.0.0.1:9"}}, "test"), store, _no_table)
    loop_thread = threading.get_ident()
    for i, ev in enumerate(day[:400]):
        controller.accept(ev.source, ev.type, ev.data)
        if i % 25 == 0:
            await asyncio.sleep(0)  # the loop goes on between events, as it does between a table's plays
        if i % 100 == 99 and controller._snapshotting is not None:
            # seconds pass between a table's plays: the write in flight ends before the next is due
            # (a loaded machine otherwise folds all 400 events while the first one is still written)
            await asyncio.wait([controller._snapshotting])
    await controller.stop()  # waits for the one being written; then the last, at the stop, by the loop
    by_thread = [w for w in store.written if w[0] != loop_thread]
    assert len(by_thread) >= 2 and store.written[-1][0] == loop_thread
    logged = store.since(0)
    for _, seq, blob in by_thread:  # each is the fold of exactly the events up to its own
        assert pickle.loads(blob) == fold(e for e in logged if e.seq <= seq)
    assert snapshot.restore(store)[0] == fold(logged)
    store.close()


def test_the_public_and_the_referee_view_of_a_state_share_its_score_sheet(day: list[Any]) -> None:
    from table_controller.projection import public_view, referee_view

    late = fold(day)
    sheet = public_view(late)["scoresheet"]
    assert referee_view(late)["scoresheet"] is sheet  # computed once for the two views pushed per event
    assert sheet == compute(late)
    earlier = fold(day[:-1])
    assert referee_view(earlier)["scoresheet"] == compute(earlier)  # another state: its own sheet


@pytest.mark.parametrize("ruleset", ["mcr", "jingji"])
def test_the_score_sheet_is_computed_again_only_when_what_it_shows_changed(ruleset: str, tmp_path: Path) -> None:
    """Each event's views carry the sheet of the state after it (equal to one computed afresh), and
    a play that changes nothing on it (a discard, a draw) leaves it as it was: the same sheet."""
    from table_controller.projection import public_view, referee_view

    store = EventStore(tmp_path / "events.sqlite3")
    write_session(store, ruleset, 3, seed=2)
    events = store.since(0)
    store.close()
    state, kept, seen = TableState(), 0, []  # (every sheet held: no id of one is taken by another)
    prev: dict[str, Any] | None = None
    for ev in events:
        state = fold([ev], state)
        sheet = public_view(state)["scoresheet"]
        assert sheet == compute(state), ev
        assert referee_view(state)["scoresheet"] is sheet
        kept += ev.type == "play.discard" and sheet is prev
        if sheet is not prev:
            seen.append(sheet)
        prev = sheet
    assert kept > 50  # discards keep the sheet
    assert len(seen) < len(events) // 4

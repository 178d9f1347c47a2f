"""Snapshots of the folded state (`table_controller.snapshot`): a restart folds only what follows,
and gets exactly the state the whole log folds to; a snapshot that does not fit is ignored."""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest

from table_controller import snapshot
from table_controller.config import parse_config
from table_controller.service import TableService
from table_controller.state import fold
from table_controller.store import EventStore
from tablesim.session import write_session


@pytest.fixture(scope="module")
def session(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("log") / "events.sqlite3"
    store = EventStore(path)
    write_session(store, "mcr", 8, seed=3)
    store.close()
    return path


def _copy(src: Path, tmp_path: Path) -> EventStore:
    dst = tmp_path / "events.sqlite3"
    dst.write_bytes(src.read_bytes())
    return EventStore(dst)


def test_the_snapshot_and_the_events_after_it_fold_to_the_whole_logs_state(session: Path, tmp_path: Path) -> None:
    store = _copy(session, tmp_path)
    events = store.since(0)
    whole = fold(events)
    mid = events[len(events) // 2].seq  # in the middle of a hand
    assert snapshot.save(store, fold(e for e in events if e.seq <= mid))
    restored, folded = snapshot.restore(store)
    assert restored == whole
    assert folded == len(events) - mid  # only the events after the snapshot were folded
    store.close()


@pytest.mark.parametrize("spoil", ["other code", "damaged blob", "other log"])
def test_a_snapshot_that_does_not_fit_is_ignored_and_the_log_is_folded_whole(session: Path, tmp_path: Path,
                                                                             spoil: str) -> None:
    store = _copy(session, tmp_path)
    events = store.since(0)
    mid = events[len(events) // 2]
    state = fold(e for e in events if e.seq <= mid.seq)
    blob = pickle.dumps(state)
    if spoil == "other code":  # an upgrade, or another ruleset file: the fold may differ now
        store.put_snapshot(mid.seq, "0" * 32, mid.at, blob)
    elif spoil == "damaged blob":
        store.put_snapshot(mid.seq, snapshot.code_version(), mid.at, blob[: len(blob) // 2])
    else:  # the event it names is not this log's (a log copied in from elsewhere)
        store.put_snapshot(mid.seq, snapshot.code_version(), mid.at + 1.0, blob)
    restored, folded = snapshot.restore(store)
    assert folded == len(events) and restored == fold(events)
    store.close()


async def test_the_service_keeps_a_snapshot_at_stop_and_starts_from_it(tmp_path: Path) -> None:
    config = parse_config({"table": {"link": "sim://", "sim_seed": 9, "sim_speed": 100.0},
                           "display": {"port": 0, "operator_token": "op", "referee_token": "ref"}}, source="test")
    store = EventStore(tmp_path / "events.sqlite3")
    written = write_session(store, "mcr", 3, seed=5)  # a log from before: folded whole at the first start
    store.close()
    first = TableService(config, tmp_path, serve_http=False)
    await first.start()
    try:
        assert first.controller.folded_at_start == written
        await first.controller.wait_linked(10)
        seq = first.controller.state.seq
    finally:
        await first.stop()
    second = TableService(config, tmp_path, serve_http=False)
    await second.start()
    try:
        assert second.controller.folded_at_start <= 2  # what the stop logged after its snapshot, if anything
        assert second.controller.state.seq >= seq
        assert second.controller.state == fold(second.store.since(0))
    finally:
        await second.stop()

"""Snapshots of the folded state (`table_controller.snapshot`): a restart folds only what follows,
and gets exactly the state the whole log folds to; a snapshot that does not fit is ignored."""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
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


HOUSE = 'extends = "mcr"\nid = "club"\nname_zh = "国标俱乐部"\nname_en = "club"\n'


def _shipped_copy(folder: Path, mcr_edit: tuple[str, str] | None = None) -> Path:
    """The packaged rulesets as another install holds them: the same, or its mcr.toml edited (an upgrade that
    changed the shipped file, a hand on the Pi)."""
    from table_controller.rules.ruleset import PACKAGED

    folder.mkdir()
    for path in PACKAGED.glob("*.toml"):
        text = path.read_text(encoding="utf-8")
        if mcr_edit is not None and path.name == "mcr.toml":
            assert mcr_edit[0] in text
            text = text.replace(mcr_edit[0], mcr_edit[1])
        (folder / path.name).write_text(text, encoding="utf-8")
    return folder


def test_the_code_version_is_that_of_the_rulesets_folder_in_use(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                 session: Path) -> None:
    """It was computed once per process whatever the folder: a process that read a venue's folder after the
    shipped one (a test, `tablectl check` of another folder) labelled its snapshots with the shipped files'."""
    from table_controller.rules.ruleset import ENV_DIR, PACKAGED

    monkeypatch.delenv(ENV_DIR, raising=False)
    shipped = snapshot.code_version()
    venue = tmp_path / "venue"
    venue.mkdir()
    text = (PACKAGED / "mcr.toml").read_text(encoding="utf-8")
    (venue / "mcr.toml").write_text(text + "\n# 本馆\n", encoding="utf-8")  # the venue's copy, keeping the id
    monkeypatch.setenv(ENV_DIR, str(venue))
    there = snapshot.code_version()
    assert there != shipped
    store = _copy(session, tmp_path)  # a snapshot kept under the venue's folder
    events = store.since(0)
    mid = events[len(events) // 2].seq
    assert snapshot.save(store, fold(e for e in events if e.seq <= mid))
    assert snapshot.restore(store)[1] == len(events) - mid
    monkeypatch.delenv(ENV_DIR)
    assert snapshot.code_version() == shipped
    assert snapshot.restore(store)[1] == len(events)  # not of these files: folded whole
    store.close()


def test_a_house_rulesets_packaged_base_is_in_the_code_version(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """A venue's folder holds its house file alone (`extends = "mcr"`): the packaged mcr.toml it folds by was not
    hashed, so after that file changed a snapshot folded by the old one was taken for this code's."""
    from table_controller.rules import ruleset

    venue = tmp_path / "venue"
    venue.mkdir()
    (venue / "club.toml").write_text(HOUSE, encoding="utf-8")
    monkeypatch.setenv(ruleset.ENV_DIR, str(venue))
    before, again = _shipped_copy(tmp_path / "before"), _shipped_copy(tmp_path / "again")
    after = _shipped_copy(tmp_path / "after", ('min_fan = 8 ', 'min_fan = 6 '))
    assert ruleset.ruleset_files("club") == (venue / "club.toml", ruleset.PACKAGED / "mcr.toml")
    monkeypatch.setattr(ruleset, "PACKAGED", before)
    old = snapshot.code_version()
    monkeypatch.setattr(ruleset, "PACKAGED", after)
    assert snapshot.code_version() != old
    monkeypatch.setattr(ruleset, "PACKAGED", again)
    assert snapshot.code_version() == old  # the same files: the same version (its snapshot is used)


def test_a_ruleset_edited_before_the_first_snapshot_does_not_label_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                      session: Path) -> None:
    """The version was computed when first asked, and a log with no snapshot first asks at its first save, long
    after the start read the rulesets: a ruleset file edited meanwhile (the config watch says the edit waits for
    the restart) labelled a snapshot folded by the old file with the new file's version, and the restarted
    process, reading the new file, took that snapshot for its own."""
    from table_controller.rules.ruleset import ENV_DIR

    venue = _shipped_copy(tmp_path / "venue")
    monkeypatch.setenv(ENV_DIR, str(venue))
    store = _copy(session, tmp_path)
    assert store.get_snapshot() is None  # the log's first start with snapshots
    events = store.since(0)
    state, folded = snapshot.restore(store)  # the start: the log folded with the files as they are
    assert folded == len(events)
    mcr = venue / "mcr.toml"
    text = mcr.read_text(encoding="utf-8")
    assert "min_fan = 8 " in text
    mcr.write_text(text.replace("min_fan = 8 ", "min_fan = 6 "), encoding="utf-8")  # edited while the table plays
    assert snapshot.save(store, state)
    store.close()
    restarted = subprocess.run(  # the service restarted on the edited file: its own process, its own version
        [sys.executable, "-c", "import sys; from table_controller import snapshot; "
         "from table_controller.store import EventStore; print(snapshot.restore(EventStore(sys.argv[1]))[1])",
         str(tmp_path / "events.sqlite3")],
        env={**os.environ, ENV_DIR: str(venue)}, capture_output=True, text=True, timeout=60, check=True)
    assert int(restarted.stdout) == len(events)  # folded whole: the snapshot is of the file before the edit

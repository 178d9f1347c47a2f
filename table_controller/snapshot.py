"""The folded state saved now and then beside the log, so a restart folds only what came after.

The state is a fold over the whole log (`state.fold`). A table that keeps one data directory for a
season has a long log: about 0.1 ms per event here and several times that on a Pi, so a
150,000-event log (a club's month) took most of a minute to fold before the display came back
after a power cut. A snapshot is the state after event `seq`, pickled, in the log's own file
(table `snapshot`, one row, written in one transaction): at start the controller loads it and
folds only the events after it.

A snapshot is only as good as the code that folded it, so it carries a **code version**: a hash of
every source file of the fold (`table_controller/`, `drivers/`), the ruleset files (the folder's, and the
packaged ones a house file extends) and the scoring libraries' versions. After an upgrade, or with another
ruleset file, it does not match, the log is folded whole (the old way) and a new snapshot is written. A
snapshot that does not load, or names an event the log does not hold as it was, is ignored the same way: the
log stays the only truth.
(The blob is a pickle: it is read only from the table's own log file, which only the service writes.)
"""

from __future__ import annotations

import hashlib
import logging
import pickle
from collections.abc import Callable
from functools import lru_cache
from importlib import metadata
from pathlib import Path
from typing import Any

from table_controller.rules import ruleset
from table_controller.state import TableState, fold
from table_controller.store import EventStore, StoreError

log = logging.getLogger("table_controller.snapshot")

#: A snapshot is written after this many events since the last one (and at a clean stop).
EVERY = 1000
#: Events folded between two progress reports at start (`restore`).
CHUNK = 500
_ROOT = Path(__file__).resolve().parent.parent


def code_version() -> str:
    """A hash of what the fold runs: its sources, the ruleset files it may read, the scoring libraries. Computed
    once per rulesets folder in a process (`ruleset.folder`), as the rulesets are read once (`ruleset.in_use`), and
    first at the start's fold (`restore`), before the table plays: the version says what this process folds with,
    an edit made while it runs counts from its restart."""
    return _code_version(ruleset.folder(), str(ruleset.PACKAGED))


@lru_cache(maxsize=8)
def _code_version(folder: str, packaged: str) -> str:
    """`folder`'s rulesets and the packaged ones beside them: a house ruleset's `extends` is looked for beside it,
    then among the packaged (`ruleset._resolved`), so a venue's file extending the shipped mcr folds by both files.
    Each ruleset file is named with its folder's role: a venue's copy of mcr.toml is not the packaged one."""
    h = hashlib.sha256()
    files = sorted((_ROOT / "table_controller").rglob("*.py")) + sorted((_ROOT / "drivers").rglob("*.py"))
    for path in files:
        h.update(str(path.name).encode())
        h.update(path.read_bytes())
    places = [("rulesets", Path(folder))] + ([("packaged", Path(packaged))] if Path(folder) != Path(packaged) else [])
    for role, directory in places:
        for path in sorted(directory.glob("*.toml")):
            h.update(f"{role}/{path.name}".encode())
            h.update(path.read_bytes())
    for lib in ("pymahjonggb", "mahjong"):
        try:
            h.update(f"{lib}={metadata.version(lib)}".encode())
        except metadata.PackageNotFoundError:
            h.update(f"{lib}=-".encode())
    return h.hexdigest()[:32]


def save(store: EventStore, state: TableState) -> bool:
    """Keep `state` (the fold through `state.seq`) as the log's snapshot; False if it cannot be written."""
    if state.seq <= 0:
        return False
    try:
        head = store.since(state.seq - 1, limit=1)
        if not head or head[0].seq != state.seq:
            return False  # the state is not of this log's events
        store.put_snapshot(state.seq, code_version(), head[0].at, pickle.dumps(state, protocol=5))
    except StoreError as exc:  # a full card: the log matters, the snapshot can wait
        log.warning("snapshot not written", extra={"error": str(exc)})
        return False
    return True


def restore(store: EventStore, progress: Callable[[int, int], None] | None = None) -> tuple[TableState, int]:
    """The state after the whole log, from the snapshot and the events after it where one fits;
    also how many events were folded (the whole log's count when no snapshot served).
    `progress(done, total)` hears how far the fold is every `CHUNK` events (the display says it).
    The code version is taken here whether or not a snapshot is kept: asked first at the first save, it hashed a
    ruleset file edited after the start had read it, and the restarted process took a snapshot folded by the
    old file for its own."""
    code_version()
    start = _load(store)
    after = 0 if start is None else start.seq
    if progress is not None:  # before the events are read: a long log's read alone takes a while
        progress(0, store.last_seq() - after)
    events = store.since(after)
    state = start if start is not None else TableState()
    for i in range(0, len(events), CHUNK):
        state = fold(events[i:i + CHUNK], initial=state)
        if progress is not None:
            progress(min(i + CHUNK, len(events)), len(events))
    return state, len(events)


def _load(store: EventStore) -> TableState | None:
    try:
        row = store.get_snapshot()
    except StoreError:
        return None
    if row is None:
        return None
    seq, version, at, blob = row
    if version != code_version():
        log.info("snapshot of other code: folding the whole log", extra={"seq": seq})
        return None
    head = store.since(seq - 1, limit=1)
    if not head or head[0].seq != seq or head[0].at != at:
        log.warning("snapshot does not fit the log: folding the whole log", extra={"seq": seq})
        return None
    try:
        state: Any = pickle.loads(blob)
    except Exception as exc:  # noqa: BLE001 — any damage to the blob means the same: not usable
        log.warning("snapshot unreadable: folding the whole log", extra={"error": str(exc)})
        return None
    if not isinstance(state, TableState) or state.seq != seq:
        return None
    return state

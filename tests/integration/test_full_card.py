"""A card with no room left, before the service starts (a Pi rebooted to cure a full card, the usual first
remedy): its log is whole, not damaged. The kernel refuses every file's growth past a few bytes
(RLIMIT_FSIZE in the child: EFBIG where a full card says ENOSPC; SQLite answers both alike, SQLITE_IOERR_SHMSIZE,
as on a 100% full tmpfs, because a log opened after a clean stop first makes its WAL's index file, 32 KiB)."""

from __future__ import annotations

import json
import resource
import signal
import subprocess
import sys
from pathlib import Path

from table_controller.store import EventStore

ROOT = Path(__file__).resolve().parents[2]
#: Bytes any file may grow to: the lock file's pid fits, the WAL's index file (32 KiB) does not.
ROOM = 4096


def _full_card() -> None:
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # the write fails (EFBIG) instead of killing the process
    resource.setrlimit(resource.RLIMIT_FSIZE, (ROOM, ROOM))


def _tablectl(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "table_controller.cli", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=60, preexec_fn=_full_card)


def _table(tmp_path: Path) -> tuple[Path, Path, dict[str, bytes]]:
    data = tmp_path / "data"
    store = EventStore(data / "events.sqlite3")
    for n in range(20):
        store.append("referee", "referee.note", {"text": f"第 {n} 条"}, at=1.0 + n)
    store.close()  # a clean stop: the WAL and its index are gone
    config = tmp_path / "t.toml"
    config.write_text(f'[table]\nlink = "sim://"\n[display]\nport = 0\n[storage]\ndata_dir = "{data}"\n',
                      encoding="utf-8")
    return config, data, {p.name: p.read_bytes() for p in data.iterdir()}


def test_the_check_says_the_card_is_full_not_that_the_log_is_damaged(tmp_path: Path) -> None:
    """It said "可以开赛 / ready" (exit 0), the log "damaged (disk I/O error)" and that the next start would
    salvage it: that start did not come up at all."""
    config, data, before = _table(tmp_path)
    proc = _tablectl("check", "--config", str(config), "--no-table", "--json")
    found = {f["what"]: f for f in json.loads(proc.stdout)["findings"]}
    log = found["事件记录 / event log"]
    assert proc.returncode == 1 and log["level"] == "fail", proc.stdout
    assert "damaged" not in log["detail"] and "存储卡已满" in log["detail"], log
    assert {p.name: p.read_bytes() for p in data.iterdir() if p.name in before} == before


def test_the_service_on_a_full_card_says_so_and_leaves_the_log_as_it_was(tmp_path: Path) -> None:
    """The start took the whole log for a damaged one and began a salvage, which stopped on the card too
    ("cannot open the event log .../events.salvaging.sqlite3"), leaving that empty file behind; at one start with
    room for the index the log would have been folded as it was. Now nothing is salvaged: the start says the card
    is full, naming the log, and the unit retries until it has room."""
    config, data, before = _table(tmp_path)
    proc = _tablectl("run", "--config", str(config))
    assert proc.returncode == 1, proc.stderr
    assert "卡已满" in proc.stderr and f"{data / 'events.sqlite3'}:" in proc.stderr, proc.stderr
    assert "salvag" not in proc.stdout + proc.stderr
    left = {p.name for p in data.iterdir()}
    assert not {n for n in left if n.startswith("events.") and n not in before and not n.endswith(("-wal", "-shm"))}
    assert {n: (data / n).read_bytes() for n in before if n != "controller.lock"} == \
        {n: b for n, b in before.items() if n != "controller.lock"}

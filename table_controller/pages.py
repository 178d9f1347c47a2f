"""Rows read straight from a SQLite file's pages, for a log SQLite itself will not open.

A card that lost power, or a copy cut short, leaves a file whose header promises pages the file no
longer has: SQLite then refuses every query ("database disk image is malformed"), even of the pages
that are whole. The events lie in those pages all the same, each a table b-tree leaf cell with its
row number. `table_rows` reads every leaf cell of the file and of its WAL (the frames up to the last
commit, which are newer than the file's pages), so `salvage` can carry them into a fresh log.
The SQLite file format: https://www.sqlite.org/fileformat2.html (pure reading, no writes).
"""

from __future__ import annotations

import struct
from pathlib import Path
from typing import Any

#: A table b-tree leaf page's type byte.
TABLE_LEAF = 0x0D
HEADER = b"SQLite format 3\x00"


def _varint(buf: bytes, i: int) -> tuple[int, int]:
    """SQLite's variable-length integer at `i`: its value and the index after it."""
    value = 0
    for k in range(8):
        b = buf[i + k]
        value = (value << 7) | (b & 0x7F)
        if b < 0x80:
            return value, i + k + 1
    return (value << 8) | buf[i + 8], i + 9


def _record(payload: bytes) -> list[Any]:
    """The column values of one record (ValueError where the bytes are not one)."""
    head, i = _varint(payload, 0)
    if head > len(payload):
        raise ValueError("record header past its payload")
    types = []
    while i < head:
        t, i = _varint(payload, i)
        types.append(t)
    body, out = head, []
    for t in types:
        if t == 0:
            out.append(None)
        elif 1 <= t <= 6:
            n = (1, 2, 3, 4, 6, 8)[t - 1]
            out.append(int.from_bytes(payload[body:body + n], "big", signed=True))
            body += n
        elif t == 7:
            out.append(struct.unpack(">d", payload[body:body + 8])[0])
            body += 8
        elif t in (8, 9):
            out.append(t - 8)
        elif t >= 12:
            n = (t - 12) // 2
            chunk = payload[body:body + n]
            out.append(chunk.decode("utf-8") if t % 2 else chunk)
            body += n
        else:
            raise ValueError(f"serial type {t}")
        if body > len(payload):
            raise ValueError("record body past its payload")
    return out


def _pages(path: Path) -> tuple[int, dict[int, bytes]]:
    """The page size and the pages (by number) of the file, then of its WAL's committed frames
    (the size from the WAL's header where the file's own is gone: a file cut to nothing)."""
    data = path.read_bytes() if path.exists() else b""
    wal_path = Path(f"{path}-wal")
    wal = wal_path.read_bytes() if wal_path.exists() else b""
    if data.startswith(HEADER):
        size = struct.unpack(">H", data[16:18])[0]
        size = 65536 if size == 1 else size
    elif len(wal) >= 32:
        size = struct.unpack(">I", wal[8:12])[0]
    else:
        return 0, {}
    if size < 512 or size > 65536 or size & (size - 1):
        return 0, {}
    pages = {n + 1: data[n * size:(n + 1) * size] for n in range(len(data) // size)} if data.startswith(HEADER) else {}
    pages.update(_wal_pages(wal, size))
    return size, pages


def _wal_pages(wal: bytes, size: int) -> dict[int, bytes]:
    """The pages of the WAL's frames up to its last commit (a torn or uncommitted tail is left out)."""
    if len(wal) < 32 or struct.unpack(">I", wal[8:12])[0] != size:
        return {}
    salt = wal[16:24]
    done: dict[int, bytes] = {}
    pending: dict[int, bytes] = {}
    at = 32
    while at + 24 + size <= len(wal):
        frame = wal[at:at + 24]
        if frame[8:16] != salt:
            break  # a frame of an earlier use of the WAL file
        number, commit = struct.unpack(">II", frame[:8])
        pending[number] = wal[at + 24:at + 24 + size]
        if commit:
            done.update(pending)
            pending = {}
        at += 24 + size
    return done


def table_rows(path: Path) -> list[list[Any]]:
    """Every table row found in the file's leaf pages: [rowid, column values ...]. Rows of every
    table come back (their row numbers overlap); the caller knows which shape is its own. A cell
    whose bytes do not read (a torn page, an overflow page gone) is skipped."""
    size, pages = _pages(path)
    usable = size - (pages[1][20] if 1 in pages and pages[1].startswith(HEADER) else 0)
    rows: list[list[Any]] = []
    for number, page in pages.items():
        start = 100 if number == 1 else 0
        if len(page) < start + 8 or page[start] != TABLE_LEAF:
            continue
        count = struct.unpack(">H", page[start + 3:start + 5])[0]
        for c in range(count):
            try:
                ptr = struct.unpack(">H", page[start + 8 + 2 * c:start + 10 + 2 * c])[0]
                length, i = _varint(page, ptr)
                rowid, i = _varint(page, i)
                payload = _payload(page, i, length, usable, pages)
                rows.append([rowid, *_record(payload)])
            except (ValueError, IndexError, struct.error, UnicodeDecodeError):
                continue
    return rows


def _payload(page: bytes, i: int, length: int, usable: int, pages: dict[int, bytes]) -> bytes:
    """A cell's payload, followed through its overflow pages when it does not fit on the page."""
    most = usable - 35
    if length <= most:
        return page[i:i + length]
    least = ((usable - 12) * 32 // 255) - 23
    local = least + (length - least) % (usable - 4)
    local = local if local <= most else least
    out = bytearray(page[i:i + local])
    nxt = struct.unpack(">I", page[i + local:i + local + 4])[0]
    seen: set[int] = set()
    while len(out) < length:
        if nxt in seen or nxt not in pages:
            raise ValueError("an overflow page is gone")
        seen.add(nxt)
        over = pages[nxt]
        nxt = struct.unpack(">I", over[:4])[0]
        out += over[4:usable][:length - len(out)]
    return bytes(out)


def commits_past(path: Path, read: int) -> int:
    """The commits of the WAL's current use (its salt) in its frames after frame `read`, the last SQLite
    read (`read_frames`). SQLite stops at the first frame whose checksum fails and takes the WAL to end
    there; a frame damaged after it was on the card leaves the commits behind it unread, without a word.
    With `synchronous=FULL` a commit's frames are synced before the next transaction's are written: two
    commits past the break mean the break's transaction, acknowledged, is lost (one may be a torn last one)."""
    wal_path = Path(f"{path}-wal")
    wal = wal_path.read_bytes() if wal_path.exists() else b""
    if len(wal) < 32:
        return 0
    size = struct.unpack(">I", wal[8:12])[0]
    if size < 512 or size > 65536 or size & (size - 1):
        return 0
    salt, commits, at = wal[16:24], 0, 32 + read * (24 + size)
    while at + 24 + size <= len(wal):
        frame = wal[at:at + 24]
        if frame[8:16] == salt and struct.unpack(">I", frame[4:8])[0]:
            commits += 1
        at += 24 + size
    return commits


def read_frames(path: Path) -> int | None:
    """How many of the WAL's frames SQLite reads (`mxFrame` of the WAL index in `-shm`, native byte order,
    as a connection that has just read the log left it); None without an index."""
    shm = Path(f"{path}-shm")
    head = shm.read_bytes()[:96] if shm.exists() else b""
    if len(head) < 96 or head[:48] != head[48:96]:  # its two copies differ: a writer mid-change
        return None
    return int(struct.unpack("=I", head[16:20])[0])

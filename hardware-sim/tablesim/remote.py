"""The table's side of the `remote-control` dialect: five-byte frames, echoed, nothing else said."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tablesim.mechanism import Refused

if TYPE_CHECKING:
    from tablesim.sim import SimTable, _Conn

START = 0xFF
SHUFFLE, LIFT, PING = 0x01, 0x02, 0x03


def checksum(cmd: int, p1: int, p2: int) -> int:
    return (cmd + p1 + p2) & 0xFF


def frame(cmd: int, p1: int = 0, p2: int = 0) -> bytes:
    return bytes((START, cmd, p1, p2, checksum(cmd, p1, p2)))


def handle_remote_bytes(sim: SimTable, conn: _Conn, data: bytes) -> None:
    """Scan for `0xFF cmd p1 p2 sum`; act on valid frames and echo them; skip a byte on a bad sum."""
    buf = conn.remote_buf
    buf += data
    while True:
        start = buf.find(START)
        if start < 0:
            buf.clear()
            return
        del buf[:start]
        if len(buf) < 5:
            return
        cmd, p1, p2, total = buf[1], buf[2], buf[3], buf[4]
        if checksum(cmd, p1, p2) != total or cmd not in (SHUFFLE, LIFT, PING):
            del buf[:1]
            continue
        raw = bytes(buf[:5])
        del buf[:5]
        _act(sim, cmd, p1)
        sim._write(conn, raw)


def _act(sim: SimTable, cmd: int, p1: int) -> None:
    """What the remote's buttons do; out of phase, or blocked by a fault, they do nothing."""
    name = {SHUFFLE: "start_shuffle", LIFT: "raise_walls" if p1 == 1 else "lower_walls"}.get(cmd)
    if name is None:
        return  # PING: no action
    try:
        getattr(sim.mech, name)()
    except Refused:
        return  # a real table ignores a press it cannot do; the remote has no way to say so
    sim.commands_executed.append(name)

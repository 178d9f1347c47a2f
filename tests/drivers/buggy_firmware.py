"""A small table firmware with one deliberate bug, on a real pty: `python buggy_firmware.py MODE`
prints the pty's path and serves until killed. It keeps the rules `tablectl conform` needs to get
going (RESET, ACK, identify, status, ping, heartbeats, retransmission) except the one MODE breaks,
so the tests see what a table maker would see from conform when their firmware has that bug.

Modes: `bad_crc` (every data frame's CRC wrong), `wrong_seq` (every data frame numbered 0),
`live_event` (a player presses a button right after each identify: correct, not a bug),
`replay_reversed` (the event replay comes newest first), `no_resync` (after the first byte
that is not a frame, it reads nothing more until a RESET), `protocol_2` (its identity says
protocol version 2, a document this host does not speak).
"""

from __future__ import annotations

import asyncio
import os
import pty
import sys
import time
import tty
from typing import Any

from drivers import messages as msgs
from drivers.framing import Frame, FrameDecoder, encode_frame
from drivers.messages import ACK, NAK, RESET, RESET_ACK

BOOT_ID = 0x0A0B0C0D
RTO = 0.1


class Firmware:
    """The table's side, written the way a firmware engineer might, bugs switched by `mode`."""

    def __init__(self, mode: str, fd: int) -> None:
        self.mode, self.fd = mode, fd
        self.decoder = FrameDecoder()
        self.tx = self.expected = 0
        self.nak_for: int | None = None
        self.events: list[tuple[int, str, dict[str, Any]]] = []
        self.unacked: dict[int, tuple[bytes, float]] = {}
        self.deaf = False

    def write_frame(self, seq: int, type_: int, payload: bytes = b"") -> bytes:
        raw = bytearray(encode_frame(seq, type_, payload))
        if self.mode == "bad_crc" and type_ >= 0x10:
            raw[-1] ^= 0x55  # e.g. the CRC taken over the wrong bytes
        os.write(self.fd, raw)
        return bytes(raw)

    def send(self, name: str, **values: Any) -> None:
        type_, payload = msgs.encode(name, **values)
        seq = 0 if self.mode == "wrong_seq" else self.tx
        self.tx = (self.tx + 1) & 0xFF
        self.unacked[seq] = (self.write_frame(seq, type_, payload), time.monotonic())

    def event(self, name: str, **values: Any) -> None:
        ev = len(self.events) + 1
        self.events.append((ev, name, values))
        self.send(name, ev=ev, **values)

    def receive(self, data: bytes) -> None:
        for frame in self.decoder.feed(data, time.monotonic()):
            if self.mode == "no_resync" and self.decoder.stats.junk_bytes and frame.type != RESET:
                self.deaf = True
            self.on_frame(frame)

    def on_frame(self, f: Frame) -> None:
        if f.type == RESET:
            self.tx = self.expected = 0
            self.nak_for = None
            self.unacked.clear()
            self.deaf = False
            self.decoder.stats.junk_bytes = 0  # a RESET starts afresh (and the port's power-on noise)
            self.write_frame(0, RESET_ACK, f.payload)
        elif f.type == ACK:
            for seq in [s for s in self.unacked if 0 < ((f.seq - s) & 0xFF) < 128]:
                del self.unacked[seq]
        elif f.type < 0x10 or self.deaf:
            return
        elif f.seq != self.expected:
            if 0 < ((self.expected - f.seq) & 0xFF) < 128:
                self.write_frame(self.expected, ACK)
            elif self.nak_for != self.expected:
                self.nak_for = self.expected
                self.write_frame(self.expected, NAK)
        else:
            self.expected = (self.expected + 1) & 0xFF
            self.nak_for = None
            self.write_frame(self.expected, ACK)
            self.command(f.type, f.payload)

    def command(self, type_: int, payload: bytes) -> None:
        try:
            msg, v = msgs.decode(type_, payload)
        except msgs.MessageError:
            return
        if msg.name == "identify":
            version = 2 if self.mode == "protocol_2" else 1
            self.send("identity", req=v["req"], protocol=version, firmware="buggy", serial="B-1", boot_id=BOOT_ID,
                      tile_counts=[144], wall_lengths=[18] * 4, dice=2, features=31, last_event=len(self.events))
            after = v["last_event"] if v["boot_id"] == BOOT_ID else 0
            replay = [e for e in self.events if e[0] > after]
            for ev, name, values in reversed(replay) if self.mode == "replay_reversed" else replay:
                self.send(name, ev=ev, **values)
            if self.mode == "live_event":
                self.event("button", seat="S", button="dice")
        elif msg.name == "status":
            self.send("status_report", req=v["req"], phase="idle", tile_count=144, next_tile_count=144,
                      set_ready=False, dealer="E", faults=[], last_event=len(self.events), uptime_ms=1)
        elif msg.name == "ping":
            self.send("pong", req=v["req"], data=v["data"])
        else:
            self.send("result", req=v["req"], code=msgs.RESULT_IDS["ok"], text="")

    async def run(self) -> None:
        self.event("hello", boot_id=BOOT_ID, reason=0)
        if self.mode == "replay_reversed":
            self.event("button", seat="E", button="dice")
            self.event("button", seat="E", button="start")
        loop = asyncio.get_running_loop()
        loop.add_reader(self.fd, lambda: self.receive(os.read(self.fd, 4096)))
        beat = time.monotonic()
        while True:
            await asyncio.sleep(RTO / 2)
            now = time.monotonic()
            for seq, (raw, sent) in list(self.unacked.items()):
                if now - sent > RTO:
                    os.write(self.fd, raw)
                    self.unacked[seq] = (raw, now)
            if now - beat >= 1.0:
                beat = now
                self.send("heartbeat", uptime_ms=int(now * 1000) & 0xFFFFFFFF, phase="idle",
                          last_event=len(self.events))


def main() -> None:
    master, slave = pty.openpty()
    tty.setraw(slave)
    print(os.ttyname(slave), flush=True)
    asyncio.run(Firmware(sys.argv[1], master).run())


if __name__ == "__main__":
    main()

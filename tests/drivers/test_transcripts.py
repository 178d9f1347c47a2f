"""Strict wire transcripts (tests as data): the simulated table answers each file's lines exactly.

The runner is a bare host: a `Link` and the message table, no driver logic, so the same files
could be played against a real table's firmware over its serial port.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from drivers import messages as m
from drivers.clock import VirtualClock
from drivers.link import Link
from drivers.transport import open_transport
from tablesim import SimTable

HERE = Path(__file__).parent / "transcripts"


def parse_value(ftype: str, text: str) -> Any:
    if text == "*":
        return "*"
    if ftype in ("u8s", "u16s"):
        return tuple(int(x) for x in text.split(",") if x)
    if ftype in ("u8", "u16", "u32"):
        return int(text, 0)
    if ftype == "bool":
        return text in ("1", "true")
    if ftype == "seat":
        return None if text == "-" else text
    return text


def parse_message(line: str) -> tuple[str, dict[str, Any]]:
    name, *parts = line.split()
    fields = dict(p.partition("=")[::2] for p in parts)
    if name in ("RESET", "RESET_ACK"):
        return name, {"nonce": int(fields["nonce"])}
    decl = dict(m.BY_NAME[name].fields)
    return name, {k: parse_value(decl[k], v) for k, v in fields.items()}


def matches(expected: dict[str, Any], got: dict[str, Any]) -> bool:
    return all(v == "*" or got.get(k) == v for k, v in expected.items()) and set(expected) == set(got)


async def play(path: Path) -> None:
    clock = VirtualClock(auto=True)
    sim = SimTable(seed=3, clock=clock)
    transport = await open_transport(await sim.serve_pty())
    link = Link()
    inbox: asyncio.Queue[tuple[str, dict[str, Any]]] = asyncio.Queue()

    async def reader() -> None:
        while True:
            data = await transport.read()
            for d in link.receive(data, clock.now()):
                if d.kind in ("reset", "reset_ack"):
                    if d.kind == "reset_ack":
                        await inbox.put(("RESET_ACK", {"nonce": d.nonce}))
                elif d.kind == "message":
                    msg, values = m.decode(d.type, d.payload)
                    if msg.name != "heartbeat":
                        await inbox.put((msg.name, values))
            transport.write(link.take_output())

    task = asyncio.ensure_future(reader())
    try:
        for n, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            line = raw.strip()
            if not line or line.startswith("#"):
                continue
            where = f"{path.name}:{n}: {line}"
            if line.startswith("... "):
                await clock.sleep(float(line[4:]))
            elif line.startswith(">>> RAW "):
                type_, *payload = line[8:].split()
                link.send(int(type_, 16), bytes(int(b, 16) for b in payload), clock.now())
            elif line.startswith(">>> "):
                name, values = parse_message(line[4:])
                if name == "RESET":
                    link.reset()
                    link.send_reset(values["nonce"])
                else:
                    type_, payload = m.encode(name, **values)
                    link.send(type_, payload, clock.now())
            elif line.startswith("<<< "):
                name, want = parse_message(line[4:])
                try:
                    got_name, got = await clock.wait_for(inbox.get(), 10.0)
                except TimeoutError:
                    pytest.fail(f"{where}: nothing arrived")
                assert got_name == name and matches(want, got), f"{where}\n  got {got_name} {got}"
            else:
                pytest.fail(f"{where}: not a transcript line")
            transport.write(link.take_output())
        await clock.sleep(0.5)
        leftovers = []
        while not inbox.empty():
            leftovers.append(inbox.get_nowait())
        assert not leftovers, f"{path.name}: the table also sent {leftovers}"
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        await transport.close()
        await sim.close()
        await clock.close()


@pytest.mark.parametrize("path", sorted(HERE.glob("*.txt")), ids=lambda p: p.stem)
async def test_transcript(path: Path, no_leaks: None) -> None:
    await play(path)

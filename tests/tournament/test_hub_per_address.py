"""A hall whose phones reach the hub through one NAT'd address (a guest Wi-Fi routed to the hub's wired
LAN): every phone comes from that one address, and the hub's cap of 64 connections an address
(`web.serve.MAX_PER_CLIENT`, against one machine holding hundreds) closed all phones past the 64th.
`tablectl hub --max-per-address N` raises it for such a venue; the default stays."""

from __future__ import annotations

import asyncio
import socket
from pathlib import Path

import httpx

from table_controller.tournament.web import HubService

#: connections a test machine makes from the "NAT's" address (another loopback address, as in test_limits)
NAT = "127.0.0.3"


def _held(port: int, n: int) -> list[socket.socket]:
    return [socket.create_connection(("127.0.0.1", port), source_address=(NAT, 0)) for _ in range(n)]


def _still_open(held: list[socket.socket]) -> int:
    """How many the hub has not closed (a closed one reads b"" or fails)."""
    n = 0
    for s in held:
        s.setblocking(False)
        try:
            n += s.recv(1) != b""
        except BlockingIOError:
            n += 1
        except OSError:
            pass
    return n


async def _phones_kept(tmp_path: Path, n: int, per_address: int | None) -> int:
    hub = HubService("mqtt://127.0.0.1:9", "cup", tmp_path / "hub", port=0, max_per_address=per_address)
    await hub.start()
    held: list[socket.socket] = []
    try:
        assert hub.bound_port is not None
        held = _held(hub.bound_port, n)
        await asyncio.sleep(0.3)
        kept = _still_open(held)
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{hub.bound_port}") as http:
            assert (await http.get("/api/standings")).status_code == 200  # others are served meanwhile
        return kept
    finally:
        for s in held:
            s.close()
        await hub.stop()


async def test_a_hall_behind_one_address_keeps_its_phones_with_the_cap_raised(tmp_path: Path) -> None:
    assert await _phones_kept(tmp_path / "default", 90, None) == 64  # the 26 phones past the 64th: closed
    assert await _phones_kept(tmp_path / "raised", 90, 300) == 90  # `--max-per-address 300`
    assert await _phones_kept(tmp_path / "low", 12, 5) == 5  # and it is the cap: a low one holds too

"""The walking skeleton, every piece real: a simulated table on a real pseudo-terminal, the driver
over pyserial, the rules engine, the SQLite log, and the display over real HTTP and WebSocket.

An operator starts a hand from the display's API; the table shuffles, builds and raises the walls;
the dealer presses the dice button (and, for mcr, the seat the first throw counts to throws
again); the page's socket receives the dice and the wall plan with the break and the first stack.
"""

from __future__ import annotations

import asyncio
import json
import os
import sqlite3
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets

from table_controller.config import parse_config
from table_controller.rules import deal_plan, load_ruleset, open_hands
from table_controller.service import TableService

OPERATOR, REFEREE = "op-token-e2e", "ref-token-e2e"


def _open_fds() -> set[str]:
    out = set()
    for fd in os.listdir("/proc/self/fd"):
        try:
            out.add(os.readlink(f"/proc/self/fd/{fd}"))
        except OSError:
            pass
    return {f for f in out if not f.startswith(("pipe:", "anon_inode:"))}


async def _next_state(ws: Any, predicate, timeout: float = 15.0) -> dict[str, Any]:
    """Read socket messages until one carries a state satisfying `predicate`."""
    async def loop() -> dict[str, Any]:
        while True:
            msg = json.loads(await ws.recv())
            state = msg.get("state")
            if state is not None and predicate(state):
                return state
    return await asyncio.wait_for(loop(), timeout)


@pytest.mark.parametrize("ruleset", ["mcr", "jingji", "guangdong"])  # guangdong: a three-dice unit
async def test_operator_starts_a_hand_and_the_display_shows_dice_and_break(tmp_path: Path, ruleset: str) -> None:
    config = parse_config({
        "table": {"link": "sim://", "sim_seed": 7, "sim_speed": 100.0},
        "rules": {"ruleset": ruleset},
        "display": {"port": 0, "operator_token": OPERATOR, "referee_token": REFEREE},
    }, source="test")
    service = TableService(config, tmp_path)
    fds_before = _open_fds()
    await service.start()
    try:
        assert service.sim is not None
        pty_path = service.controller.config.table.link
        assert pty_path.startswith("/dev/pts/"), pty_path  # a real pseudo-terminal, opened by pyserial
        await service.controller.wait_linked(10)
        base = f"http://127.0.0.1:{service.port}"
        async with httpx.AsyncClient(base_url=base) as http, \
                websockets.connect(f"ws://127.0.0.1:{service.port}/ws") as ws:
            snap = json.loads(await ws.recv())
            assert snap["type"] == "snapshot" and snap["state"]["link"]["up"] is True
            assert snap["state"]["identity"]  # the table identified itself

            # A viewer may not start a hand; the operator may.
            assert (await http.post("/api/hand/start")).status_code == 403
            r = await http.post("/api/hand/start", headers={"Authorization": f"Bearer {OPERATOR}"})
            assert r.status_code == 200, r.text

            state = await _next_state(ws, lambda s: s["phase"] == "walls_raised")
            assert state["hand"]["hand_no"] == 1 and state["hand"]["deal"] is None

            # The dealer presses the dice button on the table.
            service.sim.press_button(seat="E", button="dice")  # hand 1: the dealer sits at side E
            rs = load_ruleset(ruleset)
            if rs.throws == 2:
                state = await _next_state(ws, lambda s: len(s["hand"]["throws"]) == 1)
                second = state["hand"]["next_thrower"]
                assert second in ("E", "S", "W", "N")
                service.sim.press_button(seat=second, button="dice")
            state = await _next_state(ws, lambda s: s["hand"]["deal"] is not None)

            hand = state["hand"]
            throws = [tuple(t["dice"]) for t in hand["throws"]]
            assert len(throws) == rs.throws
            assert all(1 <= d <= 6 for t in throws for d in t)
            # the simulated table carries the ruleset's dice unit, and the hand knows both counts
            assert all(len(t) == rs.dice_count for t in throws) and hand["table_dice"] == rs.dice_count == hand["dice_count"]
            plan = deal_plan(rs, dice=throws[0], dice2=throws[1] if rs.throws == 2 else None,
                             wall_lengths=hand.get("wall_lengths"))
            assert hand["deal"] == plan.to_json()
            # Ground truth: the simulator's physical wall dealt by the controller's plan gives the
            # dealer 14 tiles and the others 13, from the ruleset's own tile set.
            opening = open_hands(plan, service.sim.wall)
            assert [len(opening.dealt[s]) for s in "ESWN"] == [14, 13, 13, 13]
            assert hand["deal"]["first_dealt"] and hand["deal"]["break"]["wall"] in ("E", "S", "W", "N")

            # The link's health is on the API with the driver's counters (the display shows it).
            health = (await http.get("/api/health")).json()["health"]["link"]
            assert health["up"] is True and health["crc_errors"] == 0
            assert health["rtt_ms"] is not None and health["heard_s_ago"] is not None

            # The page itself is served and carries the wall picture's hooks.
            page = await http.get("/")
            assert page.status_code == 200 and 'data-testid="wall"' in page.text
    finally:
        await service.stop()

    # Every event shown was first written to the SQLite log.
    leaked = _open_fds() - fds_before
    assert not leaked, leaked  # the pty, serial port, sockets and database were closed
    db = sqlite3.connect(tmp_path / "events.sqlite3")
    rows = db.execute("SELECT type, data FROM events ORDER BY seq").fetchall()
    db.close()
    types = [t for t, _ in rows]
    assert "link.up" in types and "operator.hand_start" in types
    assert types.count("table.dice") == load_ruleset(ruleset).throws
    assert types.index("operator.hand_start") < types.index("table.dice")


async def test_a_remote_control_table_shuffles_and_the_operator_keys_its_dice(tmp_path: Path) -> None:
    """A remote-control table (five-byte frames) says nothing: no tile counts, no phases, no dice. A
    hand start only asks it to shuffle (nothing it cannot do is sent, so nothing is refused); the
    hand knows the table reports no dice, and the operator's keyed throw sets the break."""
    config = parse_config({
        "table": {"link": "sim://", "sim_seed": 3, "sim_speed": 100.0, "dialect": "remote-control"},
        "rules": {"ruleset": "jingji"},
        "display": {"port": 0, "operator_token": OPERATOR, "referee_token": REFEREE},
    }, source="test")
    service = TableService(config, tmp_path)
    await service.start()
    try:
        await service.controller.wait_linked(10)
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{service.port}") as http:
            op = {"Authorization": f"Bearer {OPERATOR}"}
            assert (await http.post("/api/hand/start", headers=op)).status_code == 200
            for _ in range(200):  # the shuffle command reached the table's mechanism
                if service.sim.phase != "idle":
                    break
                await asyncio.sleep(0.02)
            assert service.sim.phase != "idle"
            hand = (await http.get("/api/state")).json()["hand"]
            assert hand["table_dice"] == 0 and hand["dice_count"] == 2 and hand["next_thrower"] == "E"
            r = await http.post("/api/dice", json={"seat": "E", "dice": [6, 3]}, headers=op)
            assert r.status_code == 200, r.text
            hand = (await http.get("/api/state")).json()["hand"]
            assert hand["deal"] == deal_plan(load_ruleset("jingji"), dice=(6, 3)).to_json()
            events = (await http.get("/api/events")).json()
            assert not [e for e in events if e["type"] == "controller.rejected"]
    finally:
        await service.stop()


async def test_a_hand_ended_before_its_dice_leaves_the_next_set_down_until_a_hand_starts(tmp_path: Path) -> None:
    """The table builds the next set while a hand ends; a hand ended before its dice (no deal) still
    counted as "a hand that started" and the next set went up at once, with no hand to play it."""
    config = parse_config({"table": {"link": "sim://", "sim_seed": 3, "sim_speed": 100.0},
                           "display": {"port": 0, "operator_token": OPERATOR, "referee_token": REFEREE}},
                          source="test")
    service = TableService(config, tmp_path)
    await service.start()
    try:
        await service.controller.wait_linked(10)
        op = {"Authorization": f"Bearer {OPERATOR}"}
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{service.port}") as http, \
                websockets.connect(f"ws://127.0.0.1:{service.port}/ws") as ws:
            assert (await http.post("/api/hand/start", headers=op)).status_code == 200
            await _next_state(ws, lambda s: s["phase"] == "walls_raised")
            r = await http.post("/api/hand/end", json={"result": "draw"}, headers=op)
            assert r.status_code == 200, r.text
            await _next_state(ws, lambda s: s["phase"] == "ready")
            # nothing goes up meanwhile: a controller that raised the set here did it on this very "ready"
            # (Controller._on_phase: a task started as the phase report comes in sends raise_walls) and the
            # simulator is raising from the command on (0.06 s to the top at 100×): 0.3 s is ample to see it
            await asyncio.sleep(0.3)
            assert service.sim.phase == "ready" and service.controller.state.phase == "ready"
            assert (await http.post("/api/hand/start", headers=op)).status_code == 200
            state = await _next_state(ws, lambda s: s["phase"] == "walls_raised")
            assert state["hand"]["hand_no"] == 2 and state["hand"]["deal"] is None
    finally:
        await service.stop()

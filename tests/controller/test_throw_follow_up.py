"""What the controller does after a throw of the dice (`Controller._after_throw`): it lights the seat that
throws next and, at a demo table, has the simulator's autopilot roll for it. Decided on the throw as it
was folded: a 定庄 throw (before the round's first hand) asks nothing, even when the hand starts before
the follow-up runs. A real simulator on a pseudo-terminal, the driver, the SQLite log.

Found by the tournament day's rehearsal under load (tests/tournament/test_day.py): the demo started hand 1
the moment the 定庄 dice fell, the follow-up then read hand 1 waiting for its dealer's throw and rolled it
while the walls were still building; two throws made a deal with no wall up and the demo stopped the hand
(中止), a second one beside the power cut's.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from drivers.clock import SystemClock
from tablesim import SimTable
from tablesim.physics import Timings

from table_controller.config import parse_config
from table_controller.controller import Controller
from table_controller.store import EventStore


async def _demo_table(tmp_path: Path, speed: float, rules: dict[str, Any] | None = None) -> tuple[SimTable, Controller]:
    """A simulator (autopilot on) on a pty, `speed` times its own pace, and a controller linked to it as
    `TableService` links a demo table (autoplay on), started on a SQLite log in `tmp_path`."""
    sim = SimTable(seed=5, clock=SystemClock(), autopilot=True, timings=Timings.default().scaled(speed))
    pty = await sim.serve_pty()
    cfg = parse_config({"table": {"link": "sim://"}, **({"rules": rules} if rules else {}),
                        "demo": {"autoplay": True}}, "test")
    cfg = cfg.model_copy(update={"table": cfg.table.model_copy(update={"link": pty})})

    async def opener(url: str) -> Any:
        from drivers.table import open_table

        return await open_table(url, clock=SystemClock(), baudrate=cfg.table.baud)

    c = Controller(cfg, EventStore(tmp_path / "events.sqlite3"), opener)
    await c.start()
    return sim, c


async def test_a_hand_started_as_the_first_dealer_dice_fall_gets_its_throws_only_once_its_walls_are_up(
        tmp_path: Path) -> None:
    sim, c = await _demo_table(tmp_path, speed=100.0)
    feed = c.subscribe()  # as the display's feed: told of each event as it is logged

    async def operator() -> None:
        """Presses 开始新一盘 the moment the 定庄 throw is logged, before anything else runs."""
        while (await feed.get()).type != "table.dice":
            pass
        await c.start_hand(by="operator")

    try:
        await c.wait_linked(10)
        starting = asyncio.create_task(operator())
        sim.press_button(seat="E", button="dice")  # chair 1 throws for the first dealer
        await asyncio.wait_for(starting, 10)
        assert c.state.first_dealer and c.state.first_dealer["position"]
        for _ in range(200):  # the walls built and raised, the hand's two throws, the deal
            if (c.state.hand or {}).get("deal"):
                break
            await asyncio.sleep(0.05)
        hand = c.state.hand
        assert hand is not None and hand["hand_no"] == 1 and hand["deal"], hand
        events = [e for e in c.store.since(0) if e.seq > next(e.seq for e in c.store.since(0)
                                                             if e.type == "operator.hand_start")]
        order = [e.data["phase"] if e.type == "table.phase" else e.type for e in events
                 if e.type in ("table.phase", "table.dice")]
        # the hand's dice come after its walls are up: none rolled while they were building
        assert "walls_raised" in order and order.index("walls_raised") < order.index("table.dice"), order
        assert order.count("table.dice") == 2, order
        assert sim.wall is not None and not hand.get("error")
    finally:
        c.unsubscribe(feed)
        await c.stop()
        await sim.close()
        c.store.close()


async def test_a_throw_before_the_walls_are_up_is_followed_by_no_roll_at_a_demo_table(tmp_path: Path) -> None:
    """A press of the dealer's dice button while the set is still built (the mechanism at fifty times its pace: a
    build of 1.2 s) is not counted (牌墙尚未升起); the follow-up asks for no throw then: a demo table's roll for the
    thrower still awaited came while the walls were building, was set aside in its turn, and rolled again, a
    throw every few milliseconds until the walls rose. The dealer's throw comes once they are up."""
    sim, c = await _demo_table(tmp_path, speed=50.0, rules={"ruleset": "jingji"})
    try:
        await c.wait_linked(10)
        await c.start_hand(by="operator")
        for _ in range(200):
            if c.state.phase == "building":
                break
            await asyncio.sleep(0.01)
        sim.press_button(seat="E", button="dice")  # chair 1 deals the first hand: the dealer, early
        for _ in range(300):
            if (c.state.hand or {}).get("deal"):
                break
            await asyncio.sleep(0.01)
        hand = c.state.hand
        assert hand is not None and hand["deal"], hand
        order = [e.data["phase"] if e.type == "table.phase" else e.type for e in c.store.since(0)
                 if e.type in ("table.phase", "table.dice")]
        up = order.index("walls_raised")
        assert order[:up].count("table.dice") == 1 and order[up:].count("table.dice") == 1, order
        assert [th["note"] for th in hand["ignored_throws"]] == ["牌墙尚未升起（牌桌：砌牌中）"]
    finally:
        await c.stop()
        await sim.close()
        c.store.close()

"""A Pi has no real-time clock: a table without NTP runs on the time it last saved (or 1970), hours or
years off the hub's, and NTP may step its system clock mid-session. The hub shows each table's session
clock and alerts on its own clock, read from the table's freshest message; the table's standing is
stamped on the clock its session clock counts on."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from drivers.clock import SteadyWallClock
from table_controller.config import parse_config
from table_controller.controller import Controller
from table_controller.store import EventStore
from table_controller.tournament.hub import SKEW_KEEP_S, Hub
from table_controller.tournament.publisher import TournamentPublisher
from table_controller.tournament.wire import EventMsg, OnlineMsg, StateMsg, decode, encode
from tests.clocks import FakeTime

TOURNAMENT = "cup"
TOPIC = f"mahjong/{TOURNAMENT}/t1"
HOURS = 3600.0


class Client:
    """What the publisher needs of aiomqtt's client: publish, kept."""

    def __init__(self) -> None:
        self.sent: list[tuple[str, bytes]] = []

    async def publish(self, topic: str, payload: bytes, **_: Any) -> None:
        self.sent.append((topic, payload))


async def _no_table(url: str) -> Any:
    raise ConnectionRefusedError(url)


async def test_a_paused_session_clock_reads_the_same_at_the_hub_after_ntp_steps_the_tables_clock(
        tmp_path: Path) -> None:
    """The Pi booted on its saved time, three years back; NTP then stepped the system clock to today. The
    session clock counts on the steady stamps (`SteadyWallClock`), but the standing's `at` came from
    `time.time`: the hub's paused clock (`clock_ends_at - at`) read three years off (时间到)."""
    t = FakeTime(time.time() - 3 * 365 * 86400)  # the stamps' timeline: the boot's, before NTP's step
    cfg = parse_config({"table": {"link": "socket://127.0.0.1:9"}, "tournament": {
        "broker": "mqtt://127.0.0.1:1", "name": TOURNAMENT, "table_id": "t1"}}, "test")
    c = Controller(cfg, EventStore(tmp_path / "events.sqlite3"), _no_table,
                   wall_clock=SteadyWallClock(wall=lambda: t.wall, mono=lambda: t.mono))
    c.referee_action("referee.session_start", {"minutes": 90}, by="referee")
    t.advance(10 * 60)
    t.wall = time.time()  # NTP's first sync: the system clock is today's, the stamps go on
    c.referee_action("referee.clock_pause", {"reason": "卡牌"}, by="referee")
    pub = TournamentPublisher(c, "mqtt://127.0.0.1:1", TOURNAMENT, "t1")
    pub._position = c.state.seq  # the events are out: the standing follows
    client = Client()
    await pub._publish_state(client)
    state = decode(StateMsg, next(p for topic, p in client.sent if topic.endswith("/state")), TOURNAMENT, "t1")
    assert state.clock_paused and abs(state.at - c.now()) < 1
    hub = Hub("mqtt://127.0.0.1:1", TOURNAMENT, tmp_path / "hub", wall_clock=time.time)
    try:
        hub.handle(f"{TOPIC}/state", encode(state))
        row = hub.progress()["tables"][0]
        assert row["clock"] == {"paused": True, "left_s": 80 * 60.0}  # 10 minutes gone of 90
    finally:
        hub.close()
        c.store.close()


def _state(at: float, ends_at: float | None, seq: int = 10) -> bytes:
    return encode(StateMsg(v=1, tournament=TOURNAMENT, table_id="t1", seq=seq, round=1, at=at, table_name="t1",
                           ruleset="mcr", players=dict(zip("1234", "甲乙丙丁")), totals=dict.fromkeys("1234", 0),
                           table_points=dict.fromkeys("1234", 1.75), final=False, hand_no=1, hands_played=0,
                           phase="play", phase_zh="行牌", clock_ends_at=ends_at))


def _fault(at: float) -> bytes:
    return encode(EventMsg(v=1, tournament=TOURNAMENT, table_id="t1", seq=1, prev=0, at=at, source="table",
                           type="table.fault_raised", data={"code": 1, "name_zh": "卡牌", "name_en": "jam"}))


def test_the_hub_shows_a_table_hours_off_on_its_own_clock(tmp_path: Path) -> None:
    """A table five hours behind the hub (no NTP at the venue): its running session clock read as
    long over (时间到) and its jam as jammed for 300 minutes. Both are on the hub's clock now, from the
    table's freshest message; a late one (retained, queued while the hub was away) does not move them."""
    hub_now, mono = [1_700_000_000.0], [50.0]
    table_now = hub_now[0] - 5 * HOURS
    hub = Hub("mqtt://127.0.0.1:1", TOURNAMENT, tmp_path, wall_clock=lambda: hub_now[0], monotonic=lambda: mono[0])
    try:
        hub.handle(f"{TOPIC}/events", _fault(table_now - 120))  # jammed two minutes ago
        hub.handle(f"{TOPIC}/state", _state(table_now, table_now + HOURS))  # an hour of the session left
        row = hub.progress()["tables"][0]
        assert row["clock"] == {"paused": False, "ends_at": hub_now[0] + HOURS}
        assert [(a["kind"], a["since"]) for a in row["alerts"]] == [("fault", hub_now[0] - 120)]
        assert "table_at" not in row["alerts"][0]
        hub_now[0] += 30
        hub.handle(f"{TOPIC}/state", _state(table_now - 600, table_now + HOURS, seq=9))  # ten minutes late
        assert hub.progress()["tables"][0]["clock"]["ends_at"] == hub_now[0] - 30 + HOURS
        # the table rebooted on a timeline a minute further behind (its stamps never run back): taken once
        # the reading stood SKEW_KEEP_S
        mono[0] += SKEW_KEEP_S
        hub.handle(f"{TOPIC}/online", encode(OnlineMsg(v=1, tournament=TOURNAMENT, table_id="t1", online=True,
                                                       reason="connected", at=table_now - 60 + 30)))
        assert hub.tables["t1"].skew == 5 * HOURS + 60
    finally:
        hub.close()
    again = Hub("mqtt://127.0.0.1:1", TOURNAMENT, tmp_path, wall_clock=lambda: hub_now[0], monotonic=lambda: mono[0])
    try:  # a hub restarted reads the offset from the standing it kept, before the table is heard again
        assert again.progress()["tables"][0]["clock"]["ends_at"] == hub_now[0] - 30 + HOURS
        assert json.loads(json.dumps(again.progress()["tables"][0]["alerts"]))[0]["since"] == hub_now[0] - 150
    finally:
        again.close()

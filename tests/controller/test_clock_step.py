"""A Pi has no real-time clock: the system clock jumps when NTP first syncs, maybe mid-session.
The stamps stay steady, so the session clock and the turn timers do not jump; the record says
the system clock moved, once per step; and a clock set back behind the record is reported."""

from __future__ import annotations

import time
from pathlib import Path

from drivers.clock import SteadyWallClock
from table_controller.config import parse_config
from table_controller.controller import Controller
from table_controller.store import EventStore
from table_controller.referee import session
from table_controller.state import fold
from table_controller.timers import session_status
from tests.clocks import FakeTime


async def _no_table(url: str):
    raise ConnectionRefusedError(url)


def _controller(path: Path, clock: SteadyWallClock) -> Controller:
    cfg = parse_config({"table": {"link": "socket://127.0.0.1:9"}}, "test")
    return Controller(cfg, EventStore(path / "events.sqlite3"), _no_table, wall_clock=clock)


def test_steady_clock_ignores_a_step_and_says_how_far_the_system_moved() -> None:
    t = FakeTime(1_000_000.0)
    clock = SteadyWallClock(wall=lambda: t.wall, mono=lambda: t.mono)
    start = clock()
    t.advance(30)
    t.wall += 3600  # NTP's first sync: an hour forward
    assert clock() - start == 30 and clock.drift() == 3600


def test_session_clock_does_not_jump_when_the_system_clock_is_stepped(tmp_path: Path) -> None:
    t = FakeTime(1_000_000.0)
    c = _controller(tmp_path, SteadyWallClock(wall=lambda: t.wall, mono=lambda: t.mono))
    c.accept("operator", "operator.hand_start", {"hand_no": 1, "ruleset": "mcr", "dealer_position": 1})
    c.referee_action("referee.session_start", {"minutes": 90}, by="referee")
    t.advance(600)
    t.wall += 2 * 3600  # two hours forward mid-session
    status = session_status(session(c.state.actions), c.now())
    assert 79 * 60 < status["remaining_s"] <= 80 * 60  # 10 minutes gone, not "time is up"
    ev = c.check_clock()
    assert ev is not None and ev.type == "controller.clock_step" and ev.data["drift_s"] == 7200.0
    assert c.check_clock() is None  # reported once
    t.advance(60)
    t.wall -= 1  # NTP slewing a second: under the step threshold, not reported
    assert c.check_clock() is None
    t.wall -= 30  # a further step is
    assert c.check_clock().data["drift_s"] == 7169.0


def test_a_clock_behind_the_record_is_reported_at_start(tmp_path: Path) -> None:
    t = FakeTime(1_000_000.0)
    c = _controller(tmp_path, SteadyWallClock(wall=lambda: t.wall, mono=lambda: t.mono))
    c.accept("operator", "operator.hand_start", {"hand_no": 1, "ruleset": "mcr", "dealer_position": 1})
    c.store.close()
    t.wall -= 86_400  # restarted with yesterday's time (fake-hwclock before NTP)
    again = _controller(tmp_path, SteadyWallClock(wall=lambda: t.wall, mono=lambda: t.mono))
    ev = again.check_clock()
    assert ev is not None and ev.data["behind_record_s"] >= 86_399
    assert again.check_clock() is None


def test_a_restart_with_the_clock_set_back_does_not_give_the_session_time_back(tmp_path: Path) -> None:
    """A Pi without a real-time clock loses power 30 minutes into a 90-minute session and boots with
    the time it saved an hour earlier (fake-hwclock), before NTP. Before, the restarted service
    stamped an hour behind the record: the session clock showed 120 minutes left, more than the
    whole session, and the turn timers ran an hour long. Now the stamps go on from the record's last
    event (the time the table was down is not known, so not counted): 60 minutes left, and the
    record says the clock was behind."""
    t = FakeTime(1_000_000.0)
    c = _controller(tmp_path, SteadyWallClock(wall=lambda: t.wall, mono=lambda: t.mono))
    c.accept("operator", "operator.hand_start", {"hand_no": 1, "ruleset": "mcr", "dealer_position": 1})
    c.referee_action("referee.session_start", {"minutes": 90}, by="referee")
    t.advance(1800)
    c.accept("operator", "operator.dice", {"seat": "E", "dice": [3, 4], "by": "operator"})
    c.store.close()
    t.wall -= 3600  # the power cut: booted with the time saved an hour ago
    t.mono = 5.0  # (a new boot's monotonic clock)
    again = _controller(tmp_path, SteadyWallClock(wall=lambda: t.wall, mono=lambda: t.mono))
    status = session_status(session(again.state.actions), again.now())
    assert 59 * 60 < status["remaining_s"] <= 60 * 60
    ev = again.check_clock()
    assert ev is not None and ev.data["behind_record_s"] >= 3599 and ev.at >= again.state.actions[-1]["at"]
    assert again.check_clock() is None
    t.advance(60)
    t.wall += 3600 + 600  # NTP's first sync: the real time (the table was down for 10 minutes)
    assert 58 * 60 < session_status(session(again.state.actions), again.now())["remaining_s"] <= 59 * 60
    assert again.check_clock().data["drift_s"] == 600.0  # said, and the session clock stayed


def test_a_restart_in_the_same_boot_after_ntp_keeps_the_session_clock(tmp_path: Path) -> None:
    """NTP stepped the clock 12 hours forward mid-session, then the service restarted (a crash,
    systemd's restart, an upgrade). The new run took the stepped clock for its stamps: the session
    read as hours over and no new hand could start. In the same boot it now stamps on from the
    last run's anchor: the 30 s of downtime count, the step does not."""
    from table_controller.stamps import stamp_clock

    t = FakeTime(1_000_000.0)
    cfg = parse_config({"table": {"link": "socket://127.0.0.1:9"}}, "test")

    def start(boot: str) -> Controller:
        store = EventStore(tmp_path / "events.sqlite3")
        clock = stamp_clock(store, fold(store.since(0)), wall=lambda: t.wall, mono=lambda: t.mono, boot=lambda: boot)
        return Controller(cfg, store, _no_table, wall_clock=clock)

    c = start("boot-1")
    c.accept("operator", "operator.hand_start", {"hand_no": 1, "ruleset": "mcr", "dealer_position": 1})
    c.referee_action("referee.session_start", {"minutes": 90}, by="referee")
    t.advance(600)
    t.wall += 12 * 3600
    c.store.close()
    t.advance(30)
    again = start("boot-1")
    status = session_status(session(again.state.actions), again.now())
    assert status["level"] != "over" and status["remaining_s"] == 90 * 60 - 630
    assert again.check_clock().data["drift_s"] == 12 * 3600  # the record still says the clock moved
    # the session ends and the hand with it: between matches a restart takes the system clock (a
    # technician who set the time and restarted the service gets it), and keeps that timeline
    again.referee_action("referee.session_end", {}, by="referee")
    again.accept("operator", "operator.hand_end", {"hand_no": 1, "result": "draw"})
    again.store.close()
    t.advance(5)
    between = start("boot-1")
    assert between.now() == t.wall
    between.store.close()
    # a reboot: the monotonic clock started over, so the last run's anchor means nothing; the system clock is taken
    t.mono = 5.0
    rebooted = start("boot-2")
    assert rebooted.now() == t.wall


def test_the_service_keeps_its_stamp_clock_beside_the_log_for_the_next_start(tmp_path: Path) -> None:
    from table_controller.stamps import boot_id

    cfg = parse_config({"table": {"link": "socket://127.0.0.1:9"}}, "test")
    first = Controller(cfg, EventStore(tmp_path / "events.sqlite3"), _no_table)
    kept = first.store.get_meta("stamp_clock")
    assert kept is not None and kept.split(" ")[0] == boot_id()
    first.referee_action("referee.session_start", {"minutes": 90}, by="referee")
    first.store.close()
    second = Controller(cfg, EventStore(tmp_path / "events.sqlite3"), _no_table)
    assert second.store.get_meta("stamp_clock") == kept  # the session's timeline, not a new one
    assert abs(second.now() - (float(kept.split(" ")[1]) + time.monotonic())) < 1.0

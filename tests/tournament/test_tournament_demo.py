"""`tablectl demo --tables N`: a whole tournament on one machine, every part real — Mosquitto,
the hub, simulated tables playing MCR's 16 hands a round, the organiser publishing the next
round's seating, each table's demo referee starting it with the players the hub sent."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from tournament_helpers import until

from table_controller.tournament.demo import TournamentDemo, TournamentDemoError, demo_players


def test_demo_players_have_numbers_and_distinct_names() -> None:
    players = demo_players(64)
    assert len({p["name"] for p in players}) == 64 and players[0]["id"] == "D001"


async def test_two_tables_play_round_1_and_start_round_2_from_the_published_seating(tmp_path: Path) -> None:
    demo = TournamentDemo(2, tmp_path, port=0, speed=1000.0, turn_seconds=0.0, hand_seconds=0.05)
    await demo.start()
    try:
        hub = demo.hub.hub
        await until(lambda: all(s.controller.state.round >= 2 for s in demo.services), 120,
                    "both tables to start round 2")
        published = hub.published()
        assert published is not None and published["round"] == 2
        for service in demo.services:
            state = service.controller.state
            sent = next(t for t in published["tables"] if t["table_id"] == service.config.tournament.table_id)
            assert {str(k): v for k, v in state.players.items()} == sent["players"]  # as the hub seated them
            closed = state.rounds[0]
            assert closed["round"] == 1 and len(closed["hands"]) == 16 and closed["sheet"]["final"]
        # round 1's results stand at the hub for all eight registered players, each by number
        # (counted through round 1: round 2's provisional standings may already be arriving)
        await until(lambda: len(hub.standings(through=1)["players"]) == 8, 10, "the hub's standings")
        players = hub.standings(through=1)["players"]
        assert all(p["id"].startswith("D") and p["tables"][0]["round"] == 1 and p["tables"][0]["final"] for p in players)
        assert sum(p["table_points"] for p in players) == 14  # 4+2+1+0 a table (tied places share theirs)
        # the organiser's credential the demo prints publishes by hand (round 2 again: as published)
        import httpx

        async with httpx.AsyncClient(base_url=demo.urls[0]) as http:
            wrong = await http.post("/api/pairings/publish?round=2", headers={"Authorization": "Bearer nope"})
            assert wrong.status_code == 401
            again = await http.post("/api/pairings/publish?round=2",
                                    headers={"Authorization": f"Bearer {demo.organizer_token}"})
            assert again.status_code == 200, again.text
            assert again.json()["round"] == 2
            # as an organiser would start it: the tournament and its tables by name, from the first seating on
            assert again.json()["title"] == "麻将比赛演示"
            assert [t["table_name"] for t in again.json()["tables"]] == ["1号桌", "2号桌"]
    finally:
        await demo.stop()


def test_the_tournament_demo_refuses_what_it_cannot_run(capsys) -> None:  # type: ignore[no-untyped-def]
    from table_controller.cli import main

    assert main(["demo", "--tables", "0", "--no-browser"]) == 2
    assert "--tables must be 1 or more" in capsys.readouterr().err
    assert main(["demo", "--tables", "3", "--camera", "xmahjongg-dorothys", "--no-browser"]) == 2
    assert "--camera shows one table" in capsys.readouterr().err


@pytest.mark.parametrize("tables", ["1", "2"])
def test_a_wrong_demo_option_is_named_by_the_option_before_anything_starts(  # type: ignore[no-untyped-def]
        tables: str, tmp_path: Path, capsys) -> None:
    """Before, a wrong --ruleset said "tablectl demo: tablectl demo: key 'rules.ruleset'" on stdout,
    and with --tables it started Mosquitto and the hub, then died with a traceback, Mosquitto left running."""
    from table_controller.cli import main

    code = main(["demo", "--tables", tables, "--ruleset", "klondike", "--no-browser", "--data-dir", str(tmp_path)])
    out, err = capsys.readouterr()
    assert code == 2 and not out
    assert err.startswith("tablectl demo: 参数 --ruleset 有误 / --ruleset: ") and "unknown ruleset 'klondike'" in err
    assert "key 'rules.ruleset'" not in err and not (tmp_path / "broker").exists()
    assert main(["demo", "--speed", "0", "--no-browser", "--data-dir", str(tmp_path)]) == 2
    assert capsys.readouterr().err.startswith("tablectl demo: 参数 --speed 有误 / --speed: Input should be greater than 0")


async def test_a_table_config_the_demo_cannot_use_stops_the_broker_and_hub_it_started(tmp_path: Path) -> None:
    demo = TournamentDemo(2, tmp_path, port=0, ruleset="klondike")
    try:
        with pytest.raises(TournamentDemoError, match="unknown ruleset 'klondike'"):
            await demo.start()  # (a ConfigError before, which `tablectl demo` did not stop on)
        mosquitto = demo._broker.proc
        assert mosquitto is not None and mosquitto.poll() is None
    finally:
        await demo.stop()  # what `tablectl demo` does on a TournamentDemoError
    assert mosquitto.wait(5) is not None


def test_a_ctrl_c_at_the_terminal_leaves_the_broker_to_the_demo_to_stop_last(tmp_path: Path) -> None:
    """A terminal's Ctrl-C goes to its whole foreground process group: Mosquitto, a child of `tablectl demo
    --tables N`, died with it, before the tables and the hub had stopped, and each logged the broker lost as it
    went (an error, warnings, now and then asyncio's tracebacks). The broker has a group of its own: the demo
    stops it after the rest. A process started as a terminal starts a command (a group of its own) starts the
    demo's broker as the demo does and sends the group SIGINT; the broker is still up."""
    script = (
        "import os, signal, sys, time\n"
        "from pathlib import Path\n"
        "from table_controller.tournament.demo import TournamentDemo\n"
        "signal.signal(signal.SIGINT, lambda *_: None)  # the demo's own: it stops what it started\n"
        "demo = TournamentDemo(2, Path(sys.argv[1]), port=0)\n"
        "demo._start_broker(['t01', 't02'])\n"
        "os.killpg(0, signal.SIGINT)\n"
        "time.sleep(0.5)\n"
        "print('up' if demo._broker.proc.poll() is None else f'gone {demo._broker.proc.returncode}')\n"
        "demo._broker.stop()\n")
    proc = subprocess.run([sys.executable, "-c", script, str(tmp_path)], capture_output=True, text=True, timeout=30,
                          start_new_session=True)
    assert proc.stdout.strip() == "up", proc.stdout + proc.stderr


async def test_a_table_that_stops_serving_is_said_and_started_again_and_one_that_keeps_failing_is_left(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    """One process holds every table of `--tables N`: a table whose display stopped listening (or whose link is
    stuck, `Supervisor.alive`) was left as it was, said by nobody, its page gone and the tournament waiting for its
    round for good. Now it is said (critical, Chinese first, naming the table) and started again on its log and its
    address, the other table untouched; after `RESTART_BURST` restarts within the window it is left stopped, said
    so, and the demo runs on."""
    import logging

    import httpx

    from table_controller.tournament import demo as demo_module

    monkeypatch.setattr(demo_module, "TABLE_CHECK_S", 0.1)
    demo = TournamentDemo(2, tmp_path, port=0, speed=1000.0, turn_seconds=0.0, hand_seconds=0.05)
    await demo.start()
    try:
        assert demo.supervisor is demo.hub.supervisor  # the hub's end is the demo's (the runner exits 1)
        first, second = demo.services
        url = second.url
        await until(lambda: second.controller.state.seq > 20, 30, "table 2 to play")
        with caplog.at_level(logging.CRITICAL, logger="table_controller.tournament.demo"):
            for server in second._served.server.servers:  # its listening socket closed under its server
                server.close()
            await until(lambda: demo.services[1] is not second, 20, "table 2 started again")
        said = [r.getMessage() for r in caplog.records if r.levelno == logging.CRITICAL]
        # (not listening, or, closed while it was being asked, its own health check refused: either is its end)
        assert len(said) == 1 and said[0].startswith("2号桌中断：显示页面已停止（"), said
        assert "）；正在重新启动该牌桌 / table 2号桌 is no longer served: the display server stopped (" in said[0], said
        again = demo.services[1]
        assert again.url == url and demo.services[0] is first and not first.supervisor.ended
        async with httpx.AsyncClient() as http:
            assert (await http.get(url + "api/health")).status_code == 200  # the same address answers
        played = second.controller.state.seq if second.controller is not None else 0
        await until(lambda: again.controller.state.seq > played + 5, 30, "table 2 to play on its log")
        monkeypatch.setattr(demo_module, "RESTART_BURST", 1)
        caplog.clear()
        with caplog.at_level(logging.CRITICAL, logger="table_controller.tournament.demo"):
            for server in again._served.server.servers:
                server.close()
            await until(lambda: 1 in demo.given_up, 20, "table 2 left stopped")
        said = [r.getMessage() for r in caplog.records if r.levelno == logging.CRITICAL]
        assert len(said) == 1 and said[0].startswith("2号桌中断：显示页面已停止（"), said
        assert "）；120 秒内已重启 1 次，不再重启，其余牌桌继续 / table 2号桌 is no longer served" in said[0], said
        assert demo.services[0] is first and not first.supervisor.ended and first.controller.table is not None
        assert again.controller is not None and again.supervisor.stopping  # stopped in order
    finally:
        await demo.stop()


async def test_a_demo_stopped_while_a_table_restarts_stops_it_whole_and_starts_no_table_again(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The demo's stop cancels its watch, which may be stopping a table to start it again. That table's stop ate
    the cancellation (`Controller.stop`, the display's `stop_tasks`): the watch ran on and started the table
    again while the demo stopped (a `_stopping` flag then ended its loop). Now the cancellation comes out of the
    table's stop once the stop is done whole: no table is started again, and every table ends stopped once."""
    import asyncio

    from table_controller.tournament import demo as demo_module

    monkeypatch.setattr(demo_module, "TABLE_CHECK_S", 0.1)
    demo = TournamentDemo(2, tmp_path, port=0, speed=1000.0, turn_seconds=0.0, hand_seconds=0.05)
    await demo.start()
    stopped = False
    try:
        first, second = demo.services
        await until(lambda: second.controller.state.seq > 5, 30, "table 2 to play")
        for server in second._served.server.servers:  # its listening socket closed under its server
            server.close()
        for _ in range(200_000):  # its restart begins with its stop (the display's server ends in up to 0.1 s)
            if second.supervisor.stopping:
                break
            await asyncio.sleep(0)
        assert second.supervisor.stopping and second.controller.table is not None, "caught mid-stop"
        watching = demo._watching
        await asyncio.wait_for(demo.stop(), 30)
        stopped = True
        assert watching is not None and watching.cancelled()
        assert demo.services == [first, second], "a table started again while the demo stopped"
        for service in demo.services:
            assert service.supervisor.stopping and service.controller.table is None
    finally:
        if not stopped:
            await demo.stop()


async def test_a_demo_whose_stop_is_cancelled_midway_still_stops_every_table_the_hub_and_the_broker(
        tmp_path: Path) -> None:
    """The demo's stop cancelled while it stops its first table (a second Ctrl-C, the runner's own timeout): the
    stop runs to its end and the cancellation comes out once it is done (`supervise.finish`, as the tables' and the
    hub's stops). Before, it came out of the first table's stop and ended the demo's there: the second table, the
    hub and Mosquitto were left running. A stop asked again waits for the first."""
    import asyncio

    demo = TournamentDemo(2, tmp_path, port=0, speed=1000.0, turn_seconds=0.0, hand_seconds=0.05)
    await demo.start()
    mosquitto = demo._broker.proc
    first, second = demo.services
    try:
        stopping = asyncio.ensure_future(demo.stop())
        for _ in range(200_000):  # caught in the first table's stop
            if first.supervisor.stopping:
                break
            await asyncio.sleep(0)
        assert first.supervisor.stopping and not second.supervisor.stopping, "caught mid-stop"
        stopping.cancel()
        with pytest.raises(asyncio.CancelledError):
            await stopping
        for service in (first, second):
            assert service.supervisor.stopping and service.controller.table is None
        assert demo.hub.supervisor.stopping
        assert mosquitto.poll() is not None
    finally:
        await asyncio.wait_for(demo.stop(), 30)
    assert mosquitto.poll() is not None

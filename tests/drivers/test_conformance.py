"""`tablectl conform`: the table maker's check of a firmware against docs/protocol.md, run against
the simulator on a real pty, whole and with a rule of the protocol broken in it."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest

from drivers.clock import SystemClock
from drivers.conformance import CHECKS, run_checks
from drivers.link import Link
from drivers.transport import open_transport
from tablesim import SimTable

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
async def sim() -> AsyncIterator[SimTable]:
    s = SimTable(seed=3, clock=SystemClock())
    yield s
    await s.close()


async def _conform(sim: SimTable, only: list[str] | None = None) -> dict[str, Any]:
    transport = await open_transport(await sim.serve_pty())
    try:
        return {r.id: r for r in await run_checks(transport, only)}
    finally:
        await transport.close()


async def test_the_simulator_keeps_every_rule(sim: SimTable) -> None:
    results = await _conform(sim)
    assert list(results) == [c[0] for c in CHECKS]
    assert [r.id for r in results.values() if not r.ok] == [], {r.id: r.detail for r in results.values()}
    assert "SEQ" in results["retransmit"].detail and "[5, 6, 2]" in results["refusals"].detail
    assert sim.commands_executed.count("ping") >= 20 and "start_shuffle" not in sim.commands_executed  # no motor


async def test_a_firmware_that_runs_a_resent_command_again_fails_the_request_cache(
        sim: SimTable, monkeypatch: pytest.MonkeyPatch) -> None:
    class Forgetful(dict):  # type: ignore[type-arg]
        def get(self, key: Any, default: Any = None) -> Any:
            return None

    monkeypatch.setattr(sim, "_cache", Forgetful())
    results = await _conform(sim, ["replies", "request_cache", "duplicate"])
    assert {k: r.ok for k, r in results.items()} == {"replies": True, "request_cache": False, "duplicate": True}
    assert "answered with [9, 9]" in results["request_cache"].detail


async def test_a_firmware_that_never_naks_fails_the_nak_rules(sim: SimTable, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(Link, "_nak", lambda self: None)  # the simulator's link layer (the checker has its own)
    results = await _conform(sim, ["bad_crc", "future_seq", "garbage"])
    assert {k: r.ok for k, r in results.items()} == {"bad_crc": False, "future_seq": False, "garbage": True}
    assert "NAK none" in results["bad_crc"].detail and "NAKs []" in results["future_seq"].detail


def test_the_command_against_a_running_simulator_and_a_port_with_nothing_on_it(tmp_path: Path) -> None:
    cli = [sys.executable, "-m", "table_controller.cli", "conform"]
    # the two runs on loop:// share nothing with the simulator's: they run meanwhile (the silent one waits out
    # RESET's four tries, 1 s), each in its own process, and are read at the end
    with subprocess.Popen([*cli, "loop://", "--only", "nonsense"], cwd=ROOT, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True) as wrong, \
            subprocess.Popen([*cli, "loop://"], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True) as silent:
        sim = subprocess.Popen([sys.executable, "-m", "table_controller.cli", "sim", "--tcp", "0", "--seed", "4"],
                               cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            assert sim.stdout is not None
            url = sim.stdout.readline().strip()
            out = subprocess.run([*cli, url, "--json", "--only", "reset,identify,event_replay,duplicate"], cwd=ROOT,
                                 capture_output=True, text=True, timeout=60)
            body = json.loads(out.stdout)  # a fresh simulator on TCP resends its hello: a resend is not a replay
            assert out.returncode == 0 and body["ok"] and body["passed"] == 4 and body["failed"] == [], body
            text = subprocess.run([*cli, url, "--only", "window"], cwd=ROOT, capture_output=True, text=True,
                                  timeout=60)
            assert text.returncode == 0 and "[ 1/1] ✓ 通过  window" in text.stdout and "1/1 通过" in text.stdout
        finally:
            sim.terminate()
            sim.wait(10)
            for stream in (sim.stdout, sim.stderr):
                if stream:
                    stream.close()
        _, wrong_err = wrong.communicate(timeout=60)
        assert wrong.returncode == 2 and "unknown check nonsense" in wrong_err
        _, silent_err = silent.communicate(timeout=60)
        assert silent.returncode == 1 and "RESET_ACK" in silent_err


async def test_a_firmware_that_keeps_the_cache_for_a_new_host_fails_new_host(
        sim: SimTable, monkeypatch: pytest.MonkeyPatch) -> None:
    from collections import OrderedDict

    class Sticky(OrderedDict):  # type: ignore[type-arg]
        def clear(self) -> None:  # a firmware that never forgets: a new host's req 1 gets an old answer
            pass

    monkeypatch.setattr(sim, "_cache", Sticky())
    results = await _conform(sim, ["request_cache", "new_host"])
    assert {k: r.ok for k, r in results.items()} == {"request_cache": True, "new_host": False}


@contextlib.contextmanager
def _buggy_firmware(mode: str) -> Iterator[str]:
    """tests/drivers/buggy_firmware.py MODE running on a real pty: its path, while it runs."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    fw = subprocess.Popen([sys.executable, str(Path(__file__).with_name("buggy_firmware.py")), mode], cwd=ROOT,
                          env=env, stdout=subprocess.PIPE, text=True)
    try:
        assert fw.stdout is not None
        yield fw.stdout.readline().strip()
    finally:
        fw.terminate()
        fw.wait(10)
        if fw.stdout:
            fw.stdout.close()


def _conform_buggy(mode: str, only: str) -> dict[str, dict[str, Any]]:
    """`tablectl conform --json` against tests/drivers/buggy_firmware.py MODE on a real pty: check id → result."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    with _buggy_firmware(mode) as path:
        out = subprocess.run([sys.executable, "-m", "table_controller.cli", "conform", path, "--json", "--only", only],
                             cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
        return {c["id"]: c for c in json.loads(out.stdout)["checks"]}


def test_a_firmware_whose_crc_is_wrong_is_told_so() -> None:
    """Before, every check said only "no identity after identify": the identity came, with a bad CRC."""
    checks = _conform_buggy("bad_crc", "identify,replies")
    assert not checks["identify"]["ok"] and not checks["replies"]["ok"]
    assert "with a bad CRC (§2: CRC-16/CCITT-FALSE" in checks["identify"]["detail"], checks


def test_a_firmware_that_numbers_every_frame_0_is_told_so() -> None:
    """Before, the replay's failure said only "got events []": the events came, all under SEQ 0."""
    checks = _conform_buggy("wrong_seq", "event_replay")
    assert not checks["event_replay"]["ok"]
    assert "under a SEQ already taken by another frame (§3" in checks["event_replay"]["detail"], checks


def test_a_live_event_during_the_replay_check_is_not_a_replay() -> None:
    """A player presses a button while conform runs (a production table): before, that new event
    failed event_replay ("current, yet resent [n]") though the firmware kept the rule."""
    checks = _conform_buggy("live_event", "event_replay,garbage")
    assert checks["event_replay"]["ok"], checks["event_replay"]
    assert checks["garbage"]["ok"] and checks["garbage"]["detail"] == "answered after the garbage"


def test_a_replay_newest_first_fails_event_replay() -> None:
    """Before, the check asked for one event only and sorted what came: a replay in the wrong order passed."""
    checks = _conform_buggy("replay_reversed", "event_replay")
    assert not checks["event_replay"]["ok"]
    assert "got events [3, 2, 1] in this order, expected [1, 2, 3]" in checks["event_replay"]["detail"], checks


def test_a_firmware_that_never_resynchronises_is_not_told_it_answered() -> None:
    """Before, a failed garbage check still said "answered after the garbage"."""
    checks = _conform_buggy("no_resync", "garbage")
    assert not checks["garbage"]["ok"] and "got no pong" in checks["garbage"]["detail"], checks


def test_a_table_that_reboots_on_a_command_is_told_so() -> None:
    """The simulator browns out when `status` arrives: before, replies said only "status_report missing"."""
    sim = subprocess.Popen([sys.executable, "-m", "table_controller.cli", "sim", "--tcp", "0", "--seed", "5",
                            "--faults", "brownout_on=status"], cwd=ROOT, stdout=subprocess.PIPE, text=True)
    try:
        assert sim.stdout is not None
        url = sim.stdout.readline().strip()
        out = subprocess.run([sys.executable, "-m", "table_controller.cli", "conform", url, "--json", "--only",
                              "replies"], cwd=ROOT, capture_output=True, text=True, timeout=60)
        replies = json.loads(out.stdout)["checks"][0]
        assert out.returncode == 1 and not replies["ok"], replies
        assert "status_report missing" in replies["detail"] and "(it restarted: §5.1)" in replies["detail"], replies
    finally:
        sim.terminate()
        sim.wait(10)
        if sim.stdout:
            sim.stdout.close()


async def test_a_firmware_that_ignores_an_unknown_command_is_told_which_refusal_is_missing(
        sim: SimTable, monkeypatch: pytest.MonkeyPatch) -> None:
    """The verdict named only "result codes [None, 6, 2]": which request went unanswered, and what a
    `None` meant, was for the firmware engineer to work out. It now says it in words."""
    answer = sim._on_message

    def silent_on_unknown(conn: Any, type_: int, payload: bytes) -> None:
        if type_ == 0x7E:
            return  # a firmware that drops what it does not know, without a word
        answer(conn, type_, payload)

    monkeypatch.setattr(sim, "_on_message", silent_on_unknown)
    results = await _conform(sim, ["refusals"])
    assert not results["refusals"].ok
    assert results["refusals"].detail == "an unknown command (0x7E): no reply, expected 5"


@pytest.mark.parametrize("mode, said", [
    ("bad_crc", "frames with a bad CRC: protocol.md §2"),
    ("wrong_seq", "good frames, but no handshake: protocol.md §5"),
])
async def test_a_connect_that_fails_says_what_the_link_heard(mode: str, said: str) -> None:
    """A firmware whose frames all fail (bad CRCs, or every frame numbered 0) got the same words as
    no cable at all: "no table answered … within 3 s". The error now says what the link heard."""
    from drivers.table import IDENTIFY_TIMEOUT, TableError, open_table

    # under the handshake's own 3 s, as before; the firmware answers at once (it is up when its path is printed,
    # and its wrong frames answer the first RESET and identify: milliseconds; 0.75 s leaves a loaded machine room)
    assert IDENTIFY_TIMEOUT > 0.75
    with _buggy_firmware(mode) as path, pytest.raises(TableError) as err:
        await open_table(path, reconnect=False, connect_timeout=0.75)
    assert "no table answered" in str(err.value) and said in str(err.value), str(err.value)


async def test_a_connect_to_a_silent_port_says_nothing_came_back() -> None:
    from drivers.table import TableError, open_table

    master, slave = os.openpty()  # a port with no table behind it
    try:
        with pytest.raises(TableError, match=r"within 0.5 s \(nothing came back: the cable, the port"):
            await open_table(os.ttyname(slave), reconnect=False, connect_timeout=0.5)
    finally:
        os.close(master)
        os.close(slave)


@pytest.mark.parametrize("mode, said", [
    ("wrong_seq", "frames out of sequence: protocol.md §3, SEQ"),
    ("bad_crc", "frames with a bad CRC: protocol.md §2"),
])
async def test_a_connect_whose_handshake_gives_up_first_says_what_the_link_heard(
        mode: str, said: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """With more time than the handshake's own 3 s (`tablectl probe` and `check` give 5), the
    handshake gave up first and the error said only "cannot reach the table at …: no_identity".
    It now says which step went unanswered and what the link heard, as a connect timeout does."""
    from drivers import table
    from drivers.table import TableError, open_table

    monkeypatch.setattr(table, "IDENTIFY_TIMEOUT", 0.5)  # the handshake's 3 s as 0.5 s, the connect's 6 s as 1 s
    with _buggy_firmware(mode) as path, pytest.raises(TableError) as err:
        await open_table(path, reconnect=False, connect_timeout=1.0)
    text = str(err.value)
    assert err.value.code == "no_identity" and text.startswith(f"cannot reach the table at {path}: no "), text
    assert said in text and "good frames, but no handshake: protocol.md §5" in text, text


@pytest.mark.parametrize("reconnect", [False, True])
async def test_a_table_of_another_protocol_version_is_refused_at_connect(reconnect: bool) -> None:
    """protocol.md is version 1 and `protocol` in identity says which document a table speaks.
    The driver took any version (only `conform` flagged it) and then read the table's frames as
    version 1's. It now refuses at connect, naming both versions, and does not retry (the
    service's `reconnect=True` too: another try gets the same answer)."""
    import time

    from drivers.table import TableError, open_table

    with _buggy_firmware("protocol_2") as path:
        began = time.monotonic()
        with pytest.raises(TableError) as err:
            await open_table(path, reconnect=reconnect, connect_timeout=8.0)
        took = time.monotonic() - began
    assert err.value.code == "protocol_version", str(err.value)
    assert str(err.value).startswith("牌桌协议版本 2，本机只支持版本 1") and "protocol version 2" in str(err.value)
    # no retry: a retry would run to the connect timeout (8 s); 6 s leaves room for a loaded machine
    assert "this host speaks version 1" in str(err.value) and took < 6.0, (took, str(err.value))


async def test_the_heartbeat_spacing_is_the_tables_own_not_when_the_host_read_them() -> None:
    """On a loaded machine two heartbeats waited in the port's buffer and were read at once: the check
    said "every 0.00 s" and failed the simulator (once in a clean-clone CI). The spacing is read from
    the heartbeats' own `uptime_ms`."""
    from drivers import conformance
    from drivers import messages as m
    from drivers.framing import Frame

    beats = [Frame(seq=i, type=m.BY_NAME["heartbeat"].type,
                   payload=m.encode("heartbeat", uptime_ms=5000 + 1000 * i, phase="idle", last_event=3)[1])
             for i in range(2)]

    class Buffered:  # both heartbeats already there when the host looks
        async def fresh(self) -> dict[str, int]:
            return {"last_event": 3}

        def mark(self) -> int:
            return 0

        async def wait(self, pred: Any, since: int, timeout: float) -> Frame:
            return beats.pop(0)

    ok, said = await conformance._heartbeat(Buffered())  # type: ignore[arg-type]
    assert ok and said == "every 1.00 s, last_event 3"


async def test_a_check_waits_as_long_as_answer_s_says_when_it_is_set(
        sim: SimTable, monkeypatch: pytest.MonkeyPatch) -> None:
    """`RawHost.wait` and `reply` read `ANSWER_S` when they wait: bound as their default at import, a caller or test
    that set it (to give a slow table longer, or a test less) changed nothing, and a reply that never came was
    waited for 1 s whatever it said."""
    from drivers import conformance

    monkeypatch.setattr(conformance, "ANSWER_S", 0.1)
    transport = await open_transport(await sim.serve_pty())
    host = conformance.RawHost(transport)
    try:
        await host.fresh()
        started = time.monotonic()
        never = await host.reply("pong", 9999, host.mark())  # no ping was sent: no pong comes
        replied = time.monotonic() - started
        started = time.monotonic()
        nothing = await host.wait(lambda f: False, host.mark())
        waited = time.monotonic() - started
    finally:
        await host.close()
        await transport.close()
    assert never is None and nothing is None
    assert 0.1 <= replied < 0.6 and 0.1 <= waited < 0.6, (replied, waited)  # 1.0 s each before

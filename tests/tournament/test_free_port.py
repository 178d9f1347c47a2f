"""`broker.free_port`: the port the tournament demo's broker (and every test's service) is started on."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from table_controller.tournament.broker import EPHEMERAL, FIXED_LOW, ephemeral_range, free_port


def test_a_free_port_is_below_the_ports_the_kernel_hands_out_itself() -> None:
    """A port bound at 0 and let go was the kernel's again: the next connection any process made could take it
    as its own end before the broker or the service bound it, and that one did not start (a hub of
    tests/security/test_api_fuzz.py: "address already in use", in a run of eight test folders on two workers)."""
    low, _high = ephemeral_range()
    ports = {free_port() for _ in range(50)}
    assert all(FIXED_LOW <= p < low for p in ports), sorted(ports)
    assert len(ports) > 40  # spread: two processes asking at once seldom get the same one
    with socket.socket() as s:
        s.bind(("127.0.0.1", ports.pop()))  # nothing holds it


def test_a_port_in_use_is_never_given(monkeypatch: pytest.MonkeyPatch) -> None:
    """Looked for in a range of 1,000 ports, the one held is passed over."""
    from table_controller.tournament import broker

    with socket.socket() as held:
        held.bind(("127.0.0.1", free_port()))
        taken = held.getsockname()[1]
        monkeypatch.setattr(broker, "FIXED_LOW", taken)
        monkeypatch.setattr(broker, "ephemeral_range", lambda: (taken + 1000, 60999))
        assert taken not in {free_port() for _ in range(300)}


def test_the_range_unreadable_is_linuxs_default(tmp_path: Path) -> None:
    assert ephemeral_range(tmp_path / "missing") == EPHEMERAL
    (tmp_path / "range").write_text("40000\t50000\n")
    assert ephemeral_range(tmp_path / "range") == (40000, 50000)

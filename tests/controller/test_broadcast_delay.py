"""The broadcast feed's state S seconds ago (`Controller.state_at`) comes from a state the controller
kept, not from folding the day's log again for each viewer that joins."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from table_controller import controller as controller_module
from table_controller.config import parse_config
from table_controller.controller import PAST_EVERY, Controller
from table_controller.state import fold
from table_controller.store import EventStore


async def _no_table(url: str) -> Any:
    raise ConnectionRefusedError(f"nothing at {url}")


def _noted(tmp_path: Path, n: int) -> tuple[list[float], EventStore, Controller]:
    """A controller on a real log of `n` referee notes two seconds apart (from 1002.0); its clock `now[0]`."""
    now = [1000.0]
    store = EventStore(tmp_path / "events.sqlite3")
    ctl = Controller(parse_config({}, "test"), store, _no_table, wall_clock=lambda: now[0])
    for i in range(n):
        now[0] += 2.0
        ctl.accept("referee", "referee.note", {"text": f"第{i}条"})
    return now, store, ctl


def test_the_state_seconds_ago_is_the_fold_of_what_was_logged_by_then(tmp_path: Path, monkeypatch: Any) -> None:
    now, store, ctl = _noted(tmp_path, 7 * PAST_EVERY)
    events = store.since(0)
    for cutoff in (999.0, 1001.0, 1002.0, 1003.0, 1000.0 + 2 * PAST_EVERY, 1000.0 + 2 * PAST_EVERY + 1, now[0] - 7,
                   now[0]):
        shown, pending = ctl.state_at(cutoff)
        assert shown.seq == fold([e for e in events if e.at <= cutoff]).seq
        assert shown.actions == fold([e for e in events if e.at <= cutoff]).actions
        assert [e.seq for e in pending] == [e.seq for e in events if e.at > cutoff]

    # it folds from a kept state: at most PAST_EVERY events, not the log from the start
    folded: list[int] = []
    real = controller_module.fold
    monkeypatch.setattr(controller_module, "fold", lambda evs, base=None: folded.append(len(evs)) or real(evs, base))
    ctl.state_at(now[0] - 30)
    assert folded and max(folded) <= PAST_EVERY

    # states older than the feed's longest delay are let go, but for the newest of them
    now[0] += controller_module.PAST_WINDOW_S + 10
    ctl.accept("referee", "referee.note", {"text": "一小时后"})
    assert len(ctl._past) <= 2
    shown, pending = ctl.state_at(now[0] - 5)
    assert shown.seq == store.since(0)[-2].seq and [e.seq for e in pending] == [store.since(0)[-1].seq]
    store.close()


async def test_viewers_joining_after_a_restart_share_one_fold_off_the_loop(tmp_path: Path, monkeypatch: Any) -> None:
    """After a start the controller keeps only the state it started from: a feed whose delay reaches
    before it folded the whole log on the loop for each viewer, as every viewer's page reconnected."""
    import asyncio
    import threading

    now, store, ctl = _noted(tmp_path, 6 * PAST_EVERY)
    events = store.since(0)
    again = Controller(parse_config({}, "test"), store, _no_table, wall_clock=lambda: now[0])  # the restart
    on_loop: list[int] = []
    real = controller_module.fold

    def counted(evs: Any, base: Any = None) -> Any:
        evs = list(evs)
        if threading.current_thread() is threading.main_thread():
            on_loop.append(len(evs))
        return real(evs, base)

    monkeypatch.setattr(controller_module, "fold", counted)
    cutoffs = [now[0] - 30 - 7 * k for k in range(20)]  # 20 viewers, delays from 30 s to 163 s
    got = await asyncio.gather(*(again.state_before(c) for c in cutoffs))
    for cutoff, (shown, pending) in zip(cutoffs, got):
        assert shown.actions == fold([e for e in events if e.at <= cutoff]).actions
        assert [e.seq for e in pending] == [e.seq for e in events if e.at > cutoff]
    assert on_loop and max(on_loop) <= PAST_EVERY, on_loop  # before: 20 folds of 280-300 events on the loop
    kept = len(again._past)
    await again.state_before(now[0] - 60)  # a later viewer finds the states kept: no fold again
    assert len(again._past) == kept
    store.close()

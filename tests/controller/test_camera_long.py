"""The camera over a match day: what the watcher keeps and reads stays right and bounded however
long the day, across rounds (轮次), rulings and hands (bench/camera_long.py measures the whole)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from table_controller.camera import CameraWatcher
from table_controller.config import parse_config
from table_controller.controller import Controller
from table_controller.store import EventStore

ROUND_2 = {"1": "戊", "2": "己", "3": "庚", "4": "辛"}


async def _no_table(url: str) -> Any:
    raise ConnectionRefusedError(f"nothing at {url}")


@pytest.fixture
def controller(tmp_path: Path):  # type: ignore[no-untyped-def]
    cfg = parse_config({"table": {"link": "socket://127.0.0.1:9"}}, "test")
    store = EventStore(tmp_path / "events.sqlite3")
    ctl = Controller(cfg, store, _no_table)
    ctl.accept("operator", "operator.hand_start", {"hand_no": 1, "ruleset": "mcr", "dealer_position": 1,
                                                   "prevalent_wind": "E"})
    yield ctl
    store.close()


def _asked(ctl: Controller, track: int) -> int:
    """An unsure tile the camera asks the referee about; its seq."""
    return ctl.accept("camera", "camera.tile_appeared", {
        "event": "appeared", "zone": "discard:E", "kind": "5m", "confidence": 0.4, "seat": "E", "track": track,
        "needs_referee": True}).seq


async def test_every_ruling_reaches_the_camera_once_across_a_new_round_and_its_undo(controller: Controller) -> None:
    """The watcher read the referee's actions past the count it had read. A new round empties the
    state's actions: a ruling made before the watcher's next step was lost (its tile held the play
    record back, and was not learnt); undoing the round's start put round 1's actions back in
    front, and a ruling of round 1 was read again."""
    ctl = controller
    watcher = CameraWatcher(ctl, make_loop=lambda: None, learn=False)
    seqs = [_asked(ctl, track) for track in (1, 2, 3)]
    for seq in seqs[:2]:
        ctl.referee_action("referee.camera_confirm", {"seq": seq}, by="referee")
    assert [r["track"] for r in await watcher._rulings()] == [1, 2]
    ctl.accept("operator", "operator.hand_end", {"hand_no": 1, "result": "draw"})
    ctl.referee_action("referee.round_start", {"round": 2, "players": ROUND_2}, by="referee")
    assert await watcher._rulings() == []
    ctl.referee_action("referee.undo", {"reason": "第一轮还没打完"}, by="referee")  # started by mistake
    assert ctl.state.round == 1 and len(ctl.state.actions) == 4
    assert await watcher._rulings() == []  # round 1's rulings are back in the list, not news
    ctl.referee_action("referee.round_start", {"round": 2, "players": ROUND_2}, by="referee")
    ctl.referee_action("referee.camera_confirm", {"seq": seqs[2]}, by="referee")  # before the watcher's step
    assert ctl.state.round == 2 and len(ctl.state.actions) == 2
    assert [(r["event"], r["track"]) for r in await watcher._rulings()] == [("ruled", 3)]
    assert await watcher._rulings() == []


async def test_the_rulings_kept_for_an_undo_are_the_newest_not_the_whole_days(controller: Controller) -> None:
    """Each ruling the reader learnt from was kept (for an undo to forget it) all day long."""
    from table_controller.camera import ASKED_KEPT
    from vision.camera import CameraStream
    from vision.reader import TileReader
    from vision.service import VisionLoop

    ctl = controller
    watcher = CameraWatcher(ctl, make_loop=lambda: None)
    watcher._loop = VisionLoop(CameraStream("http://127.0.0.1:9/never-opened"), TileReader())
    rulings = []
    for track in range(1, ASKED_KEPT + 11):
        rulings.append(ctl.referee_action("referee.camera_confirm", {"seq": _asked(ctl, track)}, by="referee").seq)
        assert [r["track"] for r in await watcher._rulings()] == [track]
    assert list(watcher._ruled) == rulings[-ASKED_KEPT:]

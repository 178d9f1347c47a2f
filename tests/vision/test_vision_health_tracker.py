"""Camera health and voting over frames."""

from __future__ import annotations

import numpy as np

from vision.health import CameraHealth
from vision.reader import TileReading
from vision.tracker import TileTracker


def _frame(seed: int, level: int = 120) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return np.clip(rng.normal(level, 10, (120, 160, 3)), 0, 255).astype(np.uint8)


def test_health_unplugged_frozen_dark_glare_ok() -> None:
    h = CameraHealth(frozen_frames=3, unplugged_after=2, frozen_s=0.0)
    assert h.check(_frame(0)).ok
    assert h.check(None).ok  # one dropped grab is not an unplugged camera
    assert h.check(None).code == "unplugged"
    assert h.check(_frame(1)).ok
    same = _frame(2)
    codes = [h.check(same.copy()).code for _ in range(4)]
    assert codes[-1] == "frozen"
    assert CameraHealth().check(_frame(3, level=10)).code == "dark"
    glare = _frame(4)
    glare[:40] = 255
    status = CameraHealth().check(glare)
    assert status.code == "glare" and status.to_json()["message"] == "反光太强，无法识牌，请手动录入"


def test_a_frozen_camera_is_told_after_seconds_whatever_the_period() -> None:
    """Before, 30 identical frames: 15 s at the service's 0.5 s period (17.7 s measured through the
    simulator's frozen MJPEG camera), 30 s at 1 s. Now `FROZEN_S` (6 s) of identical frames, and a
    moment of them (an encoder repeating a still picture) is not frozen."""
    now = [0.0]
    for period in (0.5, 1.0):
        h = CameraHealth()
        h.clock = lambda: now[0]  # type: ignore[method-assign]
        h.check(_frame(1))
        same, codes = _frame(2), []
        for _ in range(int(20 / period)):
            now[0] += period
            codes.append((now[0], h.check(same.copy()).code))
        told = next(t for t, code in codes if code == "frozen") - codes[0][0]
        assert 5.0 <= told <= 7.0, (period, told)
        assert h.check(_frame(3)).ok  # a moving picture again: back at once
    h = CameraHealth()
    h.clock = lambda: now[0]  # type: ignore[method-assign]
    for _ in range(4):
        now[0] += 0.5
        assert h.check(_frame(5)).ok  # repeats for 1.5 s


def _reading(kind: str, x: float, conf: float = 0.99) -> TileReading:
    quad = [[x, 0.0], [x + 30, 0.0], [x + 30, 40.0], [x, 40.0]]
    return TileReading(kind, conf, 0, "E", "discard:E", quad, accepted=conf >= 0.66)


def test_tracker_votes_confirms_and_retires() -> None:
    t = TileTracker(confirm=3, forget=2)
    assert t.update([_reading("5m", 100)]) == []
    assert t.update([_reading("6m", 101, 0.4)]) == []  # one bad frame is outvoted
    events = t.update([_reading("5m", 99)])
    assert [(e.event, e.kind, e.zone) for e in events] == [("appeared", "5m", "discard:E")]
    assert t.update([_reading("5m", 100)]) == []  # nothing new
    assert t.update([]) == []
    gone = t.update([])
    assert [(e.event, e.kind) for e in gone] == [("disappeared", "5m")]


def test_a_tile_under_a_hand_is_neither_seen_nor_missed() -> None:
    """While its zone is occluded (a hand, a cup: `TileReader.occluded`) a track is not aged: the
    tile is there when the hand goes, not retired and announced again as a new one."""
    t = TileTracker(confirm=2, forget=2)
    t.update([_reading("5m", 100)])
    assert [e.event for e in t.update([_reading("5m", 100)])] == ["appeared"]
    for _ in range(10):
        assert t.update([], frozen=("discard:E",)) == []
    assert t.update([_reading("5m", 100)]) == []  # the same track, nothing new
    assert [e.event for e in (t.update([]) + t.update([]))] == ["disappeared"]  # taken away: retired as before


def test_tracker_flags_unsure_votes_for_the_referee() -> None:
    t = TileTracker(confirm=2, referee_below=0.8)
    t.update([_reading("5m", 0, 0.5)])
    events = t.update([_reading("6m", 0, 0.45)])
    assert events and events[0].needs_referee
    # the track's latest corners stay at hand, to cut the crops the referee's answer will label
    last = t.reading(events[0].track)
    assert last is not None and last.kind == "6m" and last.quad[0] == [0.0, 0.0]
    assert t.reading(999) is None


def test_a_ruling_fixes_the_tracks_kind_and_corrects_what_was_announced() -> None:
    t = TileTracker(confirm=2, referee_below=0.8)
    t.update([_reading("6f", 0, 0.5)])
    first = t.update([_reading("6f", 0, 0.5)])
    assert [(e.event, e.kind, e.needs_referee) for e in first] == [("appeared", "6f", True)]
    assert t.rule(first[0].track, "7f") and not t.rule(999, "7f")
    fixed = t.update([_reading("6f", 0, 0.6)])  # the camera still reads 6f
    assert [(e.event, e.kind) for e in fixed] == [("disappeared", "6f"), ("appeared", "7f")]
    assert not fixed[1].needs_referee and fixed[1].to_json()["ruled"] is True
    for _ in range(5):  # and the ruling stands, however the camera reads it
        assert t.update([_reading("6f", 0, 0.99)]) == []
    assert t.current() == [("discard:E", "7f", 1.0)]
    assert t.rule(first[0].track, None)  # the referee undid the ruling: the camera's vote decides again
    assert [(e.event, e.kind) for e in t.update([_reading("6f", 0, 0.99)])] == [("disappeared", "7f"), ("appeared", "6f")]


def test_a_track_ruled_no_tile_is_followed_but_never_asked_about_again() -> None:
    """A coin read as an unsure 2p, ruled no tile: however the camera reads it while it lies there (another
    kind, turned), nothing is announced and no new question is asked; its leaving is still said, and a tile laid
    there afterwards is a new track, announced as any tile is. Undone, the vote announces again."""
    t = TileTracker(confirm=2, forget=2, referee_below=0.8)
    t.update([_reading("2p", 0, 0.5)])
    first = t.update([_reading("2p", 0, 0.5)])
    assert [(e.event, e.needs_referee) for e in first] == [("appeared", True)]
    coin = first[0].track
    assert t.dismiss(coin) and not t.dismiss(999)
    for kind in ("2p", "1s", "1s", "1s"):  # its vote moves to a sure 1s: still nothing
        assert t.update([_reading(kind, 1, 0.99)]) == []
    assert t.current() == []  # not a tile the reader believes in
    assert t.dismiss(coin, False)  # the ruling undone: the vote speaks again
    assert [(e.event, e.kind) for e in t.update([_reading("1s", 1, 0.99)])] == [("disappeared", "2p"), ("appeared", "1s")]
    assert t.dismiss(coin)
    assert [e.event for e in t.update([]) + t.update([])] == ["disappeared"]  # picked up: said
    t.update([_reading("5m", 0, 0.99)])
    laid = t.update([_reading("5m", 0, 0.99)])  # a real tile where the coin lay
    assert [(e.event, e.kind) for e in laid] == [("appeared", "5m")] and laid[0].track != coin


def test_a_tile_laid_under_a_hand_where_a_thing_ruled_no_tile_lay_is_announced() -> None:
    """A chip read as an unsure 5z, ruled no tile; a hand over the pool (the zone frozen) takes it away and lays a
    discard a little beside where it lay, within the track's reach: once the hand is gone the camera reads a sure
    4p there. It is a tile laid, announced as any tile is (the ruled track said gone); a tile read the ruled kind
    there, or read before anything covered it, is still the thing ruled. Before, the ruled track followed the 4p
    and announced nothing: the discard was never seen and the play record waited on it for the rest of the hand."""
    t = TileTracker(confirm=2, forget=2, referee_below=0.8)
    t.update([_reading("5z", 0, 0.3)])
    chip = t.update([_reading("5z", 0, 0.3)])[0].track
    assert t.dismiss(chip)
    for _ in range(3):
        assert t.update([], frozen={"discard:E"}) == []  # covered: neither seen nor missed
    assert t.update([_reading("5z", 1, 0.99)]) == []  # still the thing ruled
    for _ in range(2):
        t.update([], frozen={"discard:E"})
    seen = t.update([_reading("4p", 12, 0.95)]) + t.update([_reading("4p", 12, 0.95)])
    assert [(e.event, e.kind, e.track == chip, e.needs_referee) for e in seen] == [
        ("disappeared", "5z", True, False), ("appeared", "4p", False, False)]
    assert t.update([_reading("4p", 12, 0.95)]) == [] and [(z, k) for z, k, _ in t.current()] == [("discard:E", "4p")]


def test_tracker_flags_a_kind_read_steadily_under_the_threshold() -> None:
    t = TileTracker(confirm=2)
    t.update([_reading("3f", 0, 0.6)])
    events = t.update([_reading("3f", 0, 0.62)])
    assert events and events[0].kind == "3f" and events[0].needs_referee


def test_count_constraints_move_the_least_sure_extra_to_its_next_kind() -> None:
    """One 梅 (5f) in a set: of two tiles read as 梅 the less sure takes its next kind with room;
    five tiles read as 3p leave four; a move that fills a kind moves the next one on."""
    from vision.kinds import KIND_INDEX, KINDS, assign_within_counts

    def tile(*pairs: tuple[str, float]) -> np.ndarray:
        p = np.full(len(KINDS) + 1, 0.001)
        for k, v in pairs:
            p[KIND_INDEX[k] if k != "other" else len(KINDS)] = v
        return p / p.sum()

    probs = np.stack([tile(("5f", 0.9), ("6f", 0.05)),
                      tile(("5f", 0.6), ("6f", 0.3), ("7f", 0.1)),
                      tile(("6f", 0.95)),                          # 6f is taken: the second 5f goes to 7f
                      *[tile(("3p", 0.9 - 0.1 * i), ("2p", 0.05)) for i in range(5)],
                      tile(("other", 0.9), ("5f", 0.1))])           # the rejection class has no limit
    got = [KINDS[i] if i < len(KINDS) else "other" for i in assign_within_counts(probs)]
    assert got == ["5f", "7f", "6f", "3p", "3p", "3p", "3p", "2p", "other"]
    # within the counts, nothing moves
    assert list(assign_within_counts(probs[[0, 2, 3]])) == [KIND_INDEX["5f"], KIND_INDEX["6f"], KIND_INDEX["3p"]]


def test_reader_marks_tiles_the_counts_moved_for_the_referee(reader, dorothys) -> None:
    """Two 梅 on the felt cannot both be 梅: whichever reading moved goes to the referee."""
    from tablesim.scenes.render import SceneOptions, render_scene
    from vision.geometry import PlacedTile, seat_to_plane

    layout = [PlacedTile("5f", *seat_to_plane("E", 300, 200), 0), PlacedTile("5f", *seat_to_plane("E", 360, 200), 0)]
    scene = render_scene(dorothys, seed=4, opts=SceneOptions(tiles=2), tiles=layout)
    reader.calibration = None
    rs = reader.read(scene.image)
    assert len(rs) == 2 and sum(r.kind == "5f" for r in rs) == 1
    moved = next(r for r in rs if r.kind != "5f")
    assert not moved.accepted and moved.second == "5f"


def test_vision_config_from_the_camera_section(tmp_path) -> None:
    """The reader is set up from the controller's `[camera]` table (validated there)."""
    import pytest

    from table_controller.config import ConfigError, load_config
    from vision.config import VisionConfig
    from vision.model import DEFAULT_MODEL

    path = tmp_path / "table.toml"
    path.write_text('[camera]\nsource = "http://cam/stream.mjpg"\ncorners = [[0, 0], [100, 0], [100, 100], [0, 100]]\n')
    cam = load_config(path).camera
    cfg = VisionConfig.from_camera_section(cam.source, cam.corners, cam.model, cam.enrollment, cam.threshold)
    assert cfg.camera == "http://cam/stream.mjpg" and cfg.calibration() is not None and cfg.model == DEFAULT_MODEL
    assert VisionConfig.from_camera_section("0").camera == 0
    path.write_text('[camera]\ncorners = [[0, 0]]\n')
    with pytest.raises(ConfigError, match="corners"):
        load_config(path)
    path.write_text('[camera]\ncornerz = []\n')
    with pytest.raises(ConfigError, match="cornerz"):
        load_config(path)


def test_every_camera_fault_tells_the_table_to_key_plays_by_hand() -> None:
    """The game goes on by manual entry whatever the camera does; dark and glare said only that
    tiles could not be read, not what to do meanwhile."""
    from vision.health import MESSAGES

    for code, (zh, en) in MESSAGES.items():
        if code != "ok":
            assert zh.endswith("请手动录入") and "by hand" in en, code

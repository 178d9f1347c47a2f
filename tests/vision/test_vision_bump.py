"""A camera knocked out of its pose on a table calibrated from stored corners (no markers).

Before (thirteenth session) a knock of ~10 mm put the rim beyond the felt inside the table plane:
the reader took it for something lying on the felt, left that seat's zones unread for good, and
the play record waited for them, with nothing said. The felt's edges now show the move
(`vision.bump`): the calibration is put right from them and the tracks follow the tiles, or,
where an edge is out of view, the step says what to do."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager

import cv2
import numpy as np
import pytest
from tablesim.felt import FeltCamera
from tablesim.scenes.camera import VirtualCamera
from tablesim.scenes.render import SceneOptions, bump_matrix, render_scene

from vision.bump import TOLERANCE_MM, BumpWatch, find_felt_edges
from vision.calibrate import Calibration
from vision.camera import CameraStream
from vision.geometry import TABLE_MM
from vision.reader import TileReader
from vision.service import VisionLoop

SIZE = (1280, 960)
SQUARE = np.float64([[[0, 0], [TABLE_MM, 0], [TABLE_MM, TABLE_MM], [0, TABLE_MM]]])


def _stored(scene) -> Calibration:  # type: ignore[no-untyped-def]
    """The corners an operator stored once, where the felt's corners are in the frame."""
    return Calibration.from_corners(cv2.perspectiveTransform(SQUARE, scene.plane_to_image)[0], SIZE)


def _corner_error_mm(calibration: Calibration, scene) -> float:  # type: ignore[no-untyped-def]
    """How far `calibration` puts the felt's true corners (of `scene`) from the felt's square."""
    seen = cv2.perspectiveTransform(SQUARE, scene.plane_to_image)
    return float(np.abs(cv2.perspectiveTransform(seen, calibration.image_to_plane) - SQUARE).max())


def _matched(readings, scene) -> int:  # type: ignore[no-untyped-def]
    """Readings of the right kind within a third of a tile of a labelled tile."""
    right = 0
    for r in readings:
        c = np.mean(r.quad, axis=0)
        for t in scene.tiles:
            q = np.asarray(t["quad"])
            if np.linalg.norm(q.mean(axis=0) - c) < 10 and t["kind"] == r.kind:
                right += 1
                break
    return right


@pytest.fixture(scope="module")
def scenes(dorothys):
    opts = SceneOptions(tiles=40, markers=False)
    still = render_scene(dorothys, seed=11, opts=opts, pose_seed=11)
    knocked = render_scene(dorothys, seed=11, opts=opts, pose_seed=11, bump=bump_matrix(SIZE, (14.0, -6.0), 1.0))
    return still, knocked


def test_a_knock_left_zones_unread_and_the_felts_edges_put_the_calibration_right(scenes, reader) -> None:
    still, knocked = scenes
    stored = _stored(still)
    reader.calibration = stored
    assert len(reader.read(still.image)) == 40 and reader.occluded == ()
    reader.read(knocked.image)
    assert reader.occluded  # the defect: the rim inside the plane reads as a thing on the felt
    fits = find_felt_edges(still.image, stored)
    assert sorted(fits.sides) == ["bottom", "left", "right", "top"] and fits.moved_mm < TOLERANCE_MM
    edges = find_felt_edges(knocked.image, stored)
    assert sorted(edges.sides) == ["bottom", "left", "right", "top"]
    assert 10 < edges.moved_mm < 40  # 14 px and a degree: about 13-25 mm at the corners
    corrected = edges.corrected(stored)
    assert _corner_error_mm(stored, knocked) > 10 and _corner_error_mm(corrected, knocked) < 3
    reader.calibration = corrected
    readings = reader.read(knocked.image)
    assert reader.occluded == () and len(readings) == 40 and _matched(readings, knocked) >= 39


def test_the_edges_of_a_camera_that_did_not_move_fit_with_an_arm_over_them(scenes) -> None:
    """An arm reaching in over an edge, a sleeve along it: no knock is seen, nothing is corrected."""
    from tablesim.scenes.objects import lay_object

    still, _ = scenes
    stored = _stored(still)
    watch = BumpWatch()
    rng = np.random.default_rng(3)
    for what in ("arm", "white_sleeve", "arm", "phone", "cup", "arm"):
        frame, _, _ = lay_object(still.image, rng, what)
        verdict = watch.check(frame, stored)
        assert verdict.moved_mm < TOLERANCE_MM and verdict.calibration is None and not verdict.hold, what


def _lay_some(felt: FeltCamera) -> None:
    for seat, tiles in (("E", "1m 5p 9s 2z"), ("S", "3m 7p"), ("W", "4s 6z 8m"), ("N", "2p 5s")):
        for t in tiles.split():
            felt.lay("discard", seat, t)
    felt.lay("claim", "E", "5z", frm="S")


def _until(loop: VisionLoop, check, what: str, seen: list | None = None):  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        step = loop.step()
        if seen is not None:
            seen.append(step)
        if check(step):
            return step
    raise AssertionError(what)


@contextmanager
def _watching(felt: FeltCamera, reader: TileReader) -> Iterator[VisionLoop]:
    """The reader's loop over the real MJPEG camera showing `felt`, once its 13 tiles are announced
    (`_lay_some`), none of them gone meanwhile."""
    with VirtualCamera(felt.frame, fps=30) as cam:  # each step waits for a new frame: 30 a second, as real cameras send
        stream = CameraStream(cam.url)
        loop = VisionLoop(stream, reader)
        try:
            steps: list = []
            _until(loop, lambda s: len(loop.tracker.current()) == 13, "13 tiles announced", steps)
            assert not any(e.event == "disappeared" for s in steps for e in s.events)
            yield loop
        finally:
            stream.close()


@pytest.mark.parametrize("shift, turn", [((16.0, 10.0), 1.5), ((150.0, 0.0), 0.0)], ids=["near", "beyond-the-search"])
def test_the_loop_corrects_a_knocked_camera_and_its_tiles_stay_announced(dorothys, shift, turn) -> None:
    """Through the real MJPEG camera: tiles announced, the camera knocked (a little, or beyond the
    edges' search: found in the whole picture); the next steps put the calibration right, and no
    tile is announced gone or new; a discard laid after it is read."""
    felt = FeltCamera(dorothys, seed=11, opts=SceneOptions(markers=False))
    _lay_some(felt)
    reader = TileReader(calibration=_stored(felt.scene()))
    with _watching(felt, reader) as loop:
        felt.bump(shift, turn)
        after: list = []
        fixed = _until(loop, lambda s: s.recalibrated is not None, "corrected", after)
        assert 12 < fixed.recalibrated["moved_mm"] < 200 and len(fixed.recalibrated["corners"]) == 4
        assert _corner_error_mm(reader.calibration, felt.scene()) < 3
        for _ in range(7):  # longer than a lost tile is kept (forget: 5)
            after.append(loop.step())
        assert [e for s in after for e in s.events] == []  # nothing gone, nothing new
        assert all(s.occluded == () and not s.problem for s in after)
        felt.lay("discard", "S", "9m")
        step = _until(loop, lambda s: any(e.event == "appeared" for e in s.events), "the new discard")
        assert [(e.kind, e.zone) for e in step.events] == [("9m", "discard:S")]


def test_a_knock_that_cannot_be_corrected_is_said_until_the_camera_is_put_back(dorothys) -> None:
    """Knocked so far that E's edge leaves the frame: the step says so (in Chinese too), reads
    nothing meanwhile, and reads on, with the tiles it had, once the camera is set back."""
    felt = FeltCamera(dorothys, seed=11, opts=SceneOptions(markers=False))
    _lay_some(felt)
    with _watching(felt, TileReader(calibration=_stored(felt.scene()))) as loop:
        felt.bump((0.0, 160.0))
        step = _until(loop, lambda s: s.problem, "a problem")
        assert "重新标定四角" in step.problem and "东家" in step.problem and "store the corners" in step.problem
        assert step.problem.startswith("摄像头被碰动")  # Chinese first, as the referee's display shows it
        for _ in range(6):
            step = loop.step()
            assert step.problem and not step.readings and not step.events
        felt.bump()
        back: list = []
        _until(loop, lambda s: not s.problem and len(s.readings) == 13, "read again", back)
        for _ in range(6):
            back.append(loop.step())
        assert [e for s in back for e in s.events] == [] and len(loop.tracker.current()) == 13


def test_the_check_before_the_match_says_the_camera_moved_since_the_corners_were_stored(scenes) -> None:
    """`tablectl check`: corners stored on the camera's old pose warn (with the corners the
    edges give now); an edge out of the picture fails; corners that fit pass."""
    from table_controller.config import parse_config
    from table_controller.preflight import check_camera

    still, knocked = scenes
    corners = [[float(x), float(y)] for x, y in _stored(still).corners()]
    frame = [knocked.image]
    with VirtualCamera(lambda: frame[0], fps=10) as cam:
        def finding():  # type: ignore[no-untyped-def]
            config = parse_config({"camera": {"source": cam.url, "corners": corners, "corners_size": list(SIZE)}},
                                  source="t.toml")
            return check_camera(config)

        moved = finding()
        assert moved.level == "warn" and "mm from the stored corners" in moved.detail and "自动校正" in moved.detail
        frame[0] = cv2.warpAffine(still.image, bump_matrix(SIZE, (0.0, 170.0))[:2], SIZE)
        gone = finding()
        assert gone.level == "fail" and "重新标定四角" in gone.detail
        frame[0] = still.image
        assert finding().level == "ok"


def test_the_felt_is_found_in_the_whole_picture_and_a_far_knock_is_put_right(scenes, tmp_path) -> None:
    """A knock beyond the edges' search (150 px: ~140 mm) is put right from the felt found in the
    whole picture; `tablectl vision corners` prints corners a table without markers can store."""
    import json
    import subprocess
    import sys

    from vision.bump import find_felt

    still, _ = scenes
    found = find_felt(still.image)
    assert found is not None and _corner_error_mm(found, still) < 3.5
    far = render_scene([], seed=11, opts=SceneOptions(tiles=0, markers=False), pose_seed=11,
                       bump=bump_matrix(SIZE, (150.0, 0.0)))
    stored = _stored(still)
    watch = BumpWatch()
    assert watch.check(still.image, stored).calibration is None and watch.edges_seen
    verdicts = [watch.check(far.image, stored) for _ in range(8)]
    fixed = next(v.calibration for v in verdicts if v.calibration is not None)
    assert _corner_error_mm(fixed, far) < 3.5 and not any(v.problem for v in verdicts)
    picture = tmp_path / "frame.png"
    cv2.imwrite(str(picture), still.image)
    out = subprocess.run([sys.executable, "-m", "table_controller.cli", "vision", "corners", str(picture), "--json"],
                         capture_output=True, text=True, timeout=60, check=False)
    assert out.returncode == 0, out.stderr
    printed = json.loads(out.stdout)
    assert printed["corners_size"] == list(SIZE)
    assert _corner_error_mm(Calibration.from_corners(printed["corners"], SIZE), still) < 3.5
    cv2.imwrite(str(picture), cv2.warpAffine(still.image, bump_matrix(SIZE, (0.0, 170.0))[:2], SIZE))
    cut = subprocess.run([sys.executable, "-m", "table_controller.cli", "vision", "corners", str(picture)],
                         capture_output=True, text=True, timeout=60, check=False)
    assert cut.returncode == 1 and "四边" in cut.stderr


def test_a_table_with_markers_knocked_is_put_right_from_its_markers_at_once(dorothys) -> None:
    """Markers used to be read again every 50 frames only; between, a knocked camera read the felt
    from the wrong place. The edges now show the knock at once and the markers put it right."""
    felt = FeltCamera(dorothys, seed=12)
    _lay_some(felt)
    reader = TileReader()
    with _watching(felt, reader) as loop:
        assert reader.calibration is not None and reader.calibration.source == "aruco"
        felt.bump((-20.0, 12.0), -1.0)
        after: list = []
        fixed = _until(loop, lambda s: s.recalibrated is not None, "put right", after)
        assert fixed.recalibrated["from"] == "markers" and loop._frames < 50
        assert _corner_error_mm(reader.calibration, felt.scene()) < 3
        for _ in range(7):
            after.append(loop.step())
        assert [e for s in after for e in s.events] == [] and len(loop.tracker.current()) == 13


def test_two_frames_moved_each_its_own_way_are_not_a_knock(scenes, dorothys) -> None:
    """A lossy link garbles frames each its own way, and two in a row whose edges lay off the stored
    corners were taken for a knock: the calibration moved to a garbled picture and back a few frames
    later. A move is now believed when the next frame shows the same move."""
    still, knocked = scenes
    opts = SceneOptions(tiles=40, markers=False)
    other = render_scene(dorothys, seed=11, opts=opts, pose_seed=11, bump=bump_matrix(SIZE, (-20.0, 12.0), -1.0))
    stored = _stored(still)
    watch = BumpWatch()
    assert watch.check(still.image, stored).calibration is None and watch.edges_seen
    verdicts = [watch.check(frame, stored) for frame in (knocked.image, other.image, knocked.image, other.image)]
    assert all(v.calibration is None and v.hold for v in verdicts), verdicts
    assert watch.check(other.image, stored).calibration is not None  # the same move twice: a knock


def test_markers_out_of_place_in_one_frame_do_not_move_the_calibration(dorothys, reader) -> None:
    """Markers read again (every 50 frames) in a garbled frame lie out of place below its first bad
    byte: the calibration followed them, and the edges put it back a few frames later. Markers that
    put the felt elsewhere are now followed when the next frame's markers agree."""
    from vision.calibrate import calibrate_aruco

    opts = SceneOptions(tiles=20)
    still = render_scene(dorothys, seed=5, opts=opts, pose_seed=5)
    knocked = render_scene(dorothys, seed=5, opts=opts, pose_seed=5, bump=bump_matrix(SIZE, (18.0, 8.0), 1.0))
    loop = VisionLoop(CameraStream("unused"), reader)
    reader.calibration = calibrate_aruco(still.image)
    loop._markers_again(knocked.image)
    assert _corner_error_mm(reader.calibration, still) < 3  # one frame says so: not yet
    loop._markers_again(still.image)
    loop._markers_again(knocked.image)
    assert _corner_error_mm(reader.calibration, still) < 3  # each frame its own way: never
    loop._markers_again(knocked.image)
    assert _corner_error_mm(reader.calibration, knocked) < 3  # two frames in a row: followed
    loop._markers_again(still.image)
    loop._markers_again(still.image)
    assert _corner_error_mm(reader.calibration, still) < 3
    reader.calibration = None


def test_the_felt_is_found_on_every_pose_of_the_simulators_camera_and_a_refusal_says_why(dorothys, tmp_path) -> None:
    """`tablectl vision corners` found no felt on 2 of the simulator's 8 poses: pose 3's dim felt near
    the floor's colour (the whole picture taken for felt) and pose 0's felt with a corner 8 px from the
    picture's border; both were refused as edges not in view. Each is found now, and a felt that does
    run out of the picture, or cannot be told from the floor, is refused for that."""
    import subprocess
    import sys

    from tablesim.scenes.render import play_layout
    from vision.bump import felt_problem, find_felt

    for seed in range(8):
        opts = SceneOptions(markers=False)
        scene = render_scene(dorothys, seed, opts, tiles=play_layout(dorothys, seed, opts), pose_seed=seed)
        found = find_felt(scene.image)
        assert found is not None and _corner_error_mm(found, scene) < 4.0, seed
        if seed == 3:  # the dim felt: the floor made as near its colour as the felt is to itself
            felt_like = scene.image.copy()
            inside = np.zeros(SIZE[::-1], np.uint8)
            cv2.fillConvexPoly(inside, cv2.perspectiveTransform(SQUARE, scene.plane_to_image)[0].astype(np.int32), 1)
            felt_like[inside == 0] = np.median(scene.image[inside == 1], axis=0)
            assert find_felt(felt_like) is None and "分不出台面" in felt_problem(felt_like)
    out = tmp_path / "cut.png"
    cv2.imwrite(str(out), cv2.warpAffine(scene.image, bump_matrix(SIZE, (0.0, 170.0))[:2], SIZE))
    cut = subprocess.run([sys.executable, "-m", "table_controller.cli", "vision", "corners", str(out)],
                         capture_output=True, text=True, timeout=60, check=False)
    assert cut.returncode == 1 and "台面超出画面" in cut.stderr and "aim or raise the camera" in cut.stderr

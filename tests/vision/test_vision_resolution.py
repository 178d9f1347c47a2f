"""A camera that comes back at another resolution (a USB camera's other mode after a re-plug, an IP
camera's sub-stream). Before (eleventh session) the stored corners, in the old pixels, read the
felt from the wrong place: 80 tiles became 3, or 33 wrong ones, and nothing was said; a marker
calibration did the same until its next recalibration, 50 frames later."""

from __future__ import annotations

import time

import cv2
import numpy as np
import pytest

from tablesim.scenes.camera import VirtualCamera
from tablesim.scenes.render import SceneOptions, render_scene
from vision.calibrate import Calibration, CalibrationError, calibrate_aruco
from vision.camera import CameraStream
from vision.geometry import TABLE_MM
from vision.reader import TileReader
from vision.service import VisionLoop


@pytest.fixture(scope="module")
def scenes(dorothys):
    with_markers = render_scene(dorothys, seed=5, opts=SceneOptions(tiles=24))
    bare = render_scene(dorothys, seed=5, opts=SceneOptions(tiles=24, markers=False))
    return with_markers, bare


def _corners(scene) -> np.ndarray:
    plane = np.float64([[[0, 0], [TABLE_MM, 0], [TABLE_MM, TABLE_MM], [0, TABLE_MM]]])
    return cv2.perspectiveTransform(plane, scene.plane_to_image)[0]


def _centres(readings) -> np.ndarray:
    return np.array(sorted(tuple(np.mean(r.quad, axis=0).round(-1)) for r in readings))


def test_stored_corners_scale_to_the_same_view_and_refuse_another(scenes) -> None:
    _, bare = scenes
    reader = TileReader(calibration=Calibration.from_corners(_corners(bare), (1280, 960)))
    full = reader.read(bare.image)
    half = reader.read(cv2.resize(bare.image, (640, 480), interpolation=cv2.INTER_AREA))
    assert len(full) == 24 and len(half) >= 22  # at half the pixels a tile may be missed
    full_at = np.array([np.mean(r.quad, axis=0) for r in full])
    half_at = np.array([np.mean(r.quad, axis=0) for r in half]) * 2
    nearest = np.min(np.linalg.norm(half_at[:, None] - full_at[None], axis=2), axis=1)
    # the same tiles, where they lie (pixels of the full frame; a row may be cut a little otherwise)
    assert np.median(nearest) < 3 and np.mean(nearest < 6) >= 0.9
    with pytest.raises(CalibrationError, match="1280×720.*1280×960|1280×720"):
        reader.read(cv2.resize(bare.image, (1280, 720)))
    # a calibration that did not know its size takes the first frame's
    unknown = Calibration.from_corners(_corners(bare))
    assert unknown.size is None and unknown.for_frame(bare.image).size == (1280, 960)


def test_a_marker_calibration_follows_the_camera_to_another_resolution_at_once(scenes) -> None:
    marked, _ = scenes
    reader = TileReader(calibration=calibrate_aruco(marked.image))
    small = cv2.resize(marked.image, (960, 720), interpolation=cv2.INTER_AREA)
    readings = reader.read(small)
    assert reader.calibration is not None and reader.calibration.size == (960, 720)
    assert reader.calibration.source == "aruco" and len(readings) == 24


def test_the_loop_says_so_keeps_the_stored_corners_and_reads_again_when_the_camera_is_back(scenes) -> None:
    """Through the real MJPEG camera and `CameraStream`, as the service reads it: the camera is
    unplugged and comes back at another size (OpenCV scales a size change within one stream to
    the size it opened at, so a change is only seen on a new connection)."""
    _, bare = scenes
    size = [(1280, 960)]

    def source() -> np.ndarray:
        return cv2.resize(bare.image, size[0], interpolation=cv2.INTER_AREA)

    reader = TileReader(calibration=Calibration.from_corners(_corners(bare), (1280, 960)))
    with VirtualCamera(source, fps=10) as cam:
        stream = CameraStream(cam.url, reopen_every_s=0.2)
        loop = VisionLoop(stream, reader)
        try:
            def until(check, what: str):  # type: ignore[no-untyped-def]
                deadline = time.monotonic() + 20
                while time.monotonic() < deadline:
                    step = loop.step()
                    if check(step):
                        return step
                raise AssertionError(what)

            def replug(to: tuple[int, int]) -> None:
                cam.unplugged = True
                until(lambda s: s.status.code == "unplugged", "unplugged")
                size[0] = to
                cam.unplugged = False

            until(lambda s: len(s.readings) == 24, "read at 1280×960")
            replug((1280, 720))  # another view of the sensor: refused, with what to do
            step = until(lambda s: s.problem, "a problem at 1280×720")
            assert "1280×720" in step.problem and "分辨率" in step.problem and not step.readings
            assert reader.calibration is not None and reader.calibration.size == (1280, 960)  # corners kept
            replug((1280, 960))
            until(lambda s: len(s.readings) == 24, "read again at 1280×960")
            replug((640, 480))  # the same view, smaller: scaled
            until(lambda s: len(s.readings) >= 22 and max(max(p) for r in s.readings for p in r.quad) < 700,
                  "read at 640×480")
        finally:
            stream.close()


def test_the_check_before_the_match_flags_a_camera_at_another_resolution(scenes) -> None:
    """`tablectl check` opens the camera once: stored corners picked on another view fail, on the
    same view at another size warn, without a size they ask for one."""
    from table_controller.config import parse_config
    from table_controller.preflight import check_camera

    _, bare = scenes
    corners = [[float(x), float(y)] for x, y in _corners(bare)]
    size = [(1280, 720)]
    with VirtualCamera(lambda: cv2.resize(bare.image, size[0]), fps=10) as cam:
        def finding(**camera):  # type: ignore[no-untyped-def]
            config = parse_config({"camera": {"source": cam.url, "corners": corners, **camera}}, source="t.toml")
            return check_camera(config)

        other = finding(corners_size=[1280, 960])
        assert other.level == "fail" and "1280×720" in other.detail and "分辨率" in other.detail
        size[0] = (640, 480)
        scaled = finding(corners_size=[1280, 960])
        assert scaled.level == "warn" and "640×480" in scaled.detail
        size[0] = (1280, 960)
        assert finding(corners_size=[1280, 960]).level == "ok"
        unsized = finding()
        assert unsized.level == "warn" and "corners_size = [1280, 960]" in unsized.detail


def test_the_check_before_the_match_says_what_to_look_at_when_a_camera_gives_no_picture(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """An IP camera that answers nothing is not a matter of group video (the hint every camera got);
    a local device is, and a file that is not there is neither."""
    import socket

    from table_controller.config import parse_config
    from table_controller.preflight import check_camera

    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]

    def finding(source: str):  # type: ignore[no-untyped-def]
        return check_camera(parse_config({"camera": {"source": source}}, source="t.toml"))

    network = finding(f"http://127.0.0.1:{port}/stream.mjpg")
    assert network.level == "fail" and "unreachable" in network.detail and "group video" not in network.detail
    device = finding("/dev/video97")
    assert device.level == "fail" and "group video" in device.detail
    assert "group video" in finding("/dev/v4l/by-id/usb-camera-video-index0").detail  # the stable name of one
    shm = finding("/dev/shm/nothing.mp4")  # a file under /dev is still a file (the suite's temp files lie there)
    assert shm.level == "fail" and "no such file" in shm.detail
    missing = finding(str(tmp_path / "nothing.mp4"))
    assert missing.level == "fail" and "no such file" in missing.detail and "group video" not in missing.detail


def test_stored_corners_that_cannot_be_the_felt_are_named_not_shown_as_a_camera_ok(scenes) -> None:
    """Stored corners given row by row (crossed), counter-clockwise, not numbers or off the frame: the camera
    read nothing (or each seat's tiles at another seat's side) and the display said 摄像头正常. The config names
    what it can judge alone; corners off the first frame (no corners_size) are the step's problem (not_reading),
    said by `tablectl check` too, and the camera reads once it sends the frame they were picked on."""
    from table_controller.config import ConfigError, parse_config
    from table_controller.preflight import check_camera

    _, bare = scenes
    tl, tr, br, bl = ([float(x), float(y)] for x, y in _corners(bare))
    for corners, said in (([tl, tr, bl, br], "交叉"), ([tl, bl, br, tr], "逆时针"), ([[float("nan"), 0.0], tr, br, bl], "数字"),
                          ([[x * 2, y * 2] for x, y in (tl, tr, br, bl)], "超出 1280×960")):
        with pytest.raises(ConfigError, match=said):
            parse_config({"camera": {"source": "0", "corners": corners, "corners_size": [1280, 960]}}, source="t.toml")
    size = [(640, 480)]  # corners picked on the 1280×960 view, no corners_size; the camera sends 640×480
    with VirtualCamera(lambda: cv2.resize(bare.image, size[0], interpolation=cv2.INTER_AREA), fps=10) as cam:
        config = parse_config({"camera": {"source": cam.url, "corners": [tl, tr, br, bl]}}, source="t.toml")
        check = check_camera(config)
        assert check is not None and check.level == "fail" and "超出 640×480" in check.detail, check
        stream = CameraStream(cam.url, reopen_every_s=0.2)
        loop = VisionLoop(stream, TileReader(calibration=Calibration.from_corners([tl, tr, br, bl])))
        try:
            step = loop.step()
            assert step.status.code == "not_reading" and "超出 640×480" in step.problem and not step.readings, step
            cam.unplugged = True
            deadline = time.monotonic() + 10
            while loop.step().status.code != "unplugged" and time.monotonic() < deadline:
                pass
            size[0] = (1280, 960)
            cam.unplugged = False
            while time.monotonic() < deadline and len(step.readings) != 24:
                step = loop.step()
            assert step.status.ok and len(step.readings) == 24, step.status
        finally:
            stream.close()

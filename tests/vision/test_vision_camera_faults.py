"""Camera faults through the simulator's MJPEG camera over real HTTP: what the display is told."""

from __future__ import annotations

import time

import numpy as np

from tablesim.scenes.camera import VirtualCamera
from vision.camera import CameraStream


#: The camera's frames a second: a fault is seen, looked at and left a frame or two after it starts and ends,
#: each of the service's ~0.2 s at 10 a second (what the checks say does not depend on it)
FPS = 20


def _source() -> np.ndarray:
    rng = np.random.default_rng()
    return rng.integers(60, 200, (240, 320, 3), dtype=np.uint8)


def _status_within(stream: CameraStream, code: str, seconds: float) -> list[str]:
    seen: list[str] = []
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        seen.append(stream.grab()[1].code)
        if seen[-1] == code:
            break
        time.sleep(0.1)
    return seen


def test_a_camera_sending_undecodable_jpeg_is_not_shown_as_unplugged() -> None:
    """A camera connected and sending JPEG parts that do not decode was shown as 摄像头未连接 (OpenCV
    only says the read failed): the technician looked for a cable that was fine. Now it is its own
    status, what to check; unplugged stays unplugged."""
    cam = VirtualCamera(_source, fps=FPS).start()
    stream = CameraStream(cam.url, reopen_every_s=0.5, frame_wait_s=0.5)
    try:
        assert _status_within(stream, "ok", 5)[-1] == "ok"
        cam.garbage = True
        seen = _status_within(stream, "undecodable", 8)
        assert seen[-1] == "undecodable", seen
        message = stream.grab()[1].to_json()
        assert message["message"].startswith("摄像头已连接，但画面无法解码") and "视频格式" in message["message"]
        assert "does not decode" in message["detail"]
        cam.garbage = False
        assert _status_within(stream, "ok", 8)[-1] == "ok"
        cam.unplugged = True
        seen = _status_within(stream, "unplugged", 8)
        assert seen[-1] == "unplugged" and "undecodable" not in seen, seen
    finally:
        stream.close()
        cam.stop()


def _statuses_until(stream: CameraStream, code: str, seconds: float) -> tuple[list[str], list[np.ndarray]]:
    """Every status grabbed until `code` (or `seconds`), a run of the same told once, and the frames returned."""
    codes: list[str] = []
    frames: list[np.ndarray] = []
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        frame, status = stream.grab()
        if frame is not None:
            frames.append(frame)
        if not codes or codes[-1] != status.code:
            codes.append(status.code)
        if status.code == code:
            break
        time.sleep(0.1)
    return codes, frames


def test_a_camera_whose_pictures_decode_to_one_flat_colour_is_undecodable_not_ok() -> None:
    """An MJPEG part whose coded picture is garbage decodes all the same, to one flat colour (FFmpeg: green,
    the frame it never filled). Each was taken for a frame, and through the simulator's `garbage` the
    service logged unplugged -> ok -> unplugged -> undecodable; with headers whole (`scrambled`) every part
    decodes so, and the camera read `ok` for as long as it lasted. Now no such frame is returned and the
    status goes from ok straight to undecodable, and back to ok when pictures come again."""
    from vision.camera import undecodable
    from vision.health import blank

    cam = VirtualCamera(_source, fps=FPS).start()
    stream = CameraStream(cam.url, reopen_every_s=0.5, frame_wait_s=0.5)
    try:
        assert _statuses_until(stream, "ok", 10)[0][-1] == "ok"
        cam.scrambled = True
        codes, frames = _statuses_until(stream, "undecodable", 15)
        assert codes == ["ok", "undecodable"], codes
        assert not any(blank(f) for f in frames), "a picture of one flat colour returned as a frame"
        detail = stream.grab()[1].detail
        # decoded by libjpeg, a scan of random bytes is found damaged before it is decoded (FFmpeg: flat colour)
        assert "does not decode" in detail and ("damaged" in detail or "one flat colour" in detail), detail
        fresh = undecodable(cam.url)  # what a fresh connection sends is looked at alike
        assert "does not decode" in fresh and ("damaged" in fresh or "one flat colour" in fresh), fresh
        cam.scrambled = False
        codes, frames = _statuses_until(stream, "ok", 15)
        assert codes[-1] == "ok" and frames and not blank(frames[-1]), codes
    finally:
        stream.close()
        cam.stop()


def test_garbage_goes_from_ok_to_undecodable_without_unplugged_between() -> None:
    """The simulator's `garbage` (bodies of random bytes, the headers' end among them): FFmpeg fails the read
    at once, on a connection that had given frames, and that connection was not looked at: the status read
    unplugged (3 grabs failed) until the next connection failed too. A read that fails at once is looked
    at now; a camera unplugged still reads unplugged."""
    cam = VirtualCamera(_source, fps=FPS).start()
    stream = CameraStream(cam.url, reopen_every_s=2.0, frame_wait_s=0.5)
    try:
        assert _statuses_until(stream, "ok", 10)[0][-1] == "ok"
        cam.garbage = True
        codes, _ = _statuses_until(stream, "undecodable", 15)
        assert codes == ["ok", "undecodable"], codes
        cam.garbage = False
        assert _statuses_until(stream, "ok", 15)[0][-1] == "ok"
        cam.unplugged = True
        codes, _ = _statuses_until(stream, "unplugged", 15)
        assert codes == ["ok", "unplugged"], codes
    finally:
        stream.close()
        cam.stop()


def test_a_covered_lens_is_dark_not_undecodable() -> None:
    """A frame of one dark colour (a lens cap) is a picture of the dark: `dark`, not taken for a part that
    did not decode; one green colour (what FFmpeg gives for one) is not a picture."""
    from vision.health import blank

    cam = VirtualCamera(lambda: np.full((240, 320, 3), 8, np.uint8), fps=10).start()
    stream = CameraStream(cam.url, reopen_every_s=0.5, frame_wait_s=0.5)
    try:
        codes, frames = _statuses_until(stream, "dark", 10)
        assert codes[-1] == "dark" and frames, codes
    finally:
        stream.close()
        cam.stop()
    assert blank(np.full((480, 640, 3), (0, 135, 0), np.uint8))
    assert not blank(np.full((480, 640, 3), 255, np.uint8))  # a lamp straight into the lens: glare


def _garbled(jpg: bytes, rng: np.random.Generator) -> bytes:
    """The simulator's `corrupt`: three bytes of the JPEG body changed (a lossy link)."""
    bad = bytearray(jpg)
    for i in rng.integers(700, len(bad) - 2, 3):
        bad[int(i)] = int(rng.integers(0, 256))
    return bytes(bad)


def test_frames_garbled_on_a_lossy_link_are_neither_read_nor_taken_for_the_light(dorothys) -> None:
    """A few bytes changed in a frame's JPEG decode as blocks shifted grey, dark or white from the
    first bad byte on: one frame in five looked dark or glaring, and the stream's status flickered
    OK / dark / OK. A garbled frame is now `suspect` (not read, the status left OK); a light that
    goes out is still told, after `LIGHT_FRAMES` frames."""
    import cv2

    from tablesim.scenes.render import render_scene
    from vision.health import LIGHT_FRAMES, CameraHealth

    scene = render_scene(dorothys, 3)
    ok, buf = cv2.imencode(".jpg", scene.image, [cv2.IMWRITE_JPEG_QUALITY, 85])
    assert ok
    rng = np.random.default_rng(0)
    # Garbled frames until three of them, each alone, look dark or glaring: what the stream's status flickered
    # with. How many that takes depends on the bytes the CPU's resize and encoder produced (one in five to one in
    # twenty here; a fixed count of 60 found only two on the CI machine), not on what is tested.
    frames: list[np.ndarray] = []
    once: list[str] = []
    while sum(code != "ok" for code in once) < 3 and len(frames) < 400:
        f = cv2.imdecode(np.frombuffer(_garbled(buf.tobytes(), rng), np.uint8), cv2.IMREAD_COLOR)
        if f is not None:
            frames.append(f)
            once.append(CameraHealth().check(f).code)  # each frame alone: the check of one picture
    assert sum(code != "ok" for code in once) >= 3, once
    health = CameraHealth(light_frames=LIGHT_FRAMES)
    clean = scene.image.copy()
    seen = [health.check(clean)]
    for f in frames:
        seen += [health.check(f), health.check(np.clip(clean.astype(np.int16) + rng.integers(-2, 3, clean.shape),
                                                      0, 255).astype(np.uint8))]
    assert all(s.ok for s in seen), [s.code for s in seen if not s.ok]
    assert sum(s.suspect for s in seen) >= sum(code != "ok" for code in once)
    dark = (scene.image * 0.08).astype(np.uint8)
    told = [health.check(dark.copy() + np.uint8(i % 2)).code for i in range(LIGHT_FRAMES)]
    assert told == ["ok"] * (LIGHT_FRAMES - 1) + ["dark"]


def test_grab_and_the_check_say_a_camera_sending_what_does_not_decode_is_connected(tmp_path, capsys) -> None:
    """`tablectl vision grab` and `tablectl check` of a camera sending parts that do not decode said "no picture:
    the camera is off or unreachable, the URL or its credentials are wrong", while the display said
    摄像头已连接，但画面无法解码: the technician was sent after the URL. They say what the display says, and a camera
    that is not there is still off or unreachable."""
    import socket

    from table_controller.cli import main
    from table_controller.config import parse_config
    from table_controller.preflight import check_camera

    cam = VirtualCamera(_source, fps=FPS).start()
    try:
        cam.next_jpeg()  # a picture whose headers the faults keep
        for fault in ("garbage", "scrambled"):
            setattr(cam, fault, True)
            assert main(["vision", "grab", cam.url, str(tmp_path / "frame.jpg")]) == 1
            said = capsys.readouterr().err
            assert "摄像头已连接，但画面无法解码" in said and "credentials" not in said, (fault, said)
            assert not (tmp_path / "frame.jpg").exists()
            check = check_camera(parse_config({"camera": {"source": cam.url}}, source="t.toml"))
            assert check is not None and check.level == "fail" and "画面无法解码" in check.detail, (fault, check)
            setattr(cam, fault, False)
    finally:
        cam.stop()
    with socket.socket() as taken:  # nothing listens there
        taken.bind(("127.0.0.1", 0))
        gone = f"http://127.0.0.1:{taken.getsockname()[1]}/stream.mjpg"
    check = check_camera(parse_config({"camera": {"source": gone}}, source="t.toml"))
    assert check is not None and "unreachable" in check.detail and "解码" not in check.detail

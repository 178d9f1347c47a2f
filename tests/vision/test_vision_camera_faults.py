"""Camera faults through the simulator's MJPEG camera over real HTTP: what the display is told."""

from __future__ import annotations

import time

import numpy as np

from tablesim.scenes.camera import VirtualCamera
from vision.camera import CameraStream


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
    cam = VirtualCamera(_source, fps=10).start()
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

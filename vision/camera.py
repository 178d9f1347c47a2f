"""The camera as the controller sees it: frames plus a health status, never an exception.

A USB camera unplugged or an IP camera rebooting must not stop the game: `grab()` returns no
frame and a status the display shows ("camera disconnected: enter tiles by hand"), and keeps
trying to reopen the camera in the background of the calls.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import cv2
import numpy as np

from vision.health import CameraHealth, HealthStatus


class CameraStream:
    """Wraps `cv2.VideoCapture` (device index, path or URL such as an MJPEG stream)."""

    def __init__(self, source: str | int, reopen_every_s: float = 2.0, clock: Callable[[], float] = time.monotonic,
                 health: CameraHealth | None = None) -> None:
        self.source = source
        self.reopen_every_s = reopen_every_s
        self.clock = clock
        self.health = health or CameraHealth()
        self._cap: cv2.VideoCapture | None = None
        self._last_open = -1e9

    def _open(self) -> None:
        now = self.clock()
        if now - self._last_open < self.reopen_every_s:
            return
        self._last_open = now
        cap = cv2.VideoCapture(self.source)
        if cap.isOpened():
            self._cap = cap
        else:
            cap.release()

    def grab(self) -> tuple[np.ndarray | None, HealthStatus]:
        """The next frame (or None) and the camera's health."""
        if self._cap is None:
            self._open()
        frame = None
        if self._cap is not None:
            try:
                ok, img = self._cap.read()
            except cv2.error:
                ok, img = False, None
            if ok and img is not None:
                frame = img
            else:  # drop it; the next grab reopens (at most every reopen_every_s)
                self._cap.release()
                self._cap = None
        return frame, self.health.check(frame)

    def close(self) -> None:
        if self._cap is not None:
            self._cap.release()
            self._cap = None

"""The camera above the table, watched for the controller: tile events into the log, health on the display.

The reader (`vision/`) is blocking OpenCV work, so each step runs in a worker thread; the watcher
itself never raises: a camera that unplugs, freezes or goes dark is recorded once as a
`camera.status` event and shown, and the game goes on with manual entry.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any, Protocol

log = logging.getLogger("table_controller.camera")


class Accepting(Protocol):
    def accept(self, source: str, type: str, data: dict[str, Any]) -> Any: ...


class CameraWatcher:
    """Steps a `vision.service.VisionLoop` every `period_s` and forwards what it saw."""

    def __init__(self, controller: Accepting, make_loop: Callable[[], Any], period_s: float = 0.5) -> None:
        self._controller = controller
        self._make_loop = make_loop
        self.period_s = period_s
        self.status: dict[str, Any] = {"ok": False, "code": "starting", "message": "摄像头启动中",
                                       "message_en": "camera starting", "problem": ""}
        self._loop: Any = None

    def health(self) -> dict[str, Any]:
        """For the display's health panel (not logged: it refreshes every step)."""
        return dict(self.status)

    async def run(self) -> None:
        try:
            self._loop = await asyncio.to_thread(self._make_loop)  # loads the model once
        except Exception as exc:  # a missing or broken model: say so, keep the table running
            log.error("camera reader unavailable", extra={"error": str(exc)})
            self.status = {"ok": False, "code": "reader_error", "message": f"识牌模型不可用：{exc}",
                           "message_en": f"tile reader unavailable: {exc}", "problem": str(exc)}
            self._controller.accept("camera", "camera.status", self.status)
            return
        last_code: str | None = None
        last_problem = ""
        try:
            while True:
                try:
                    result = await asyncio.to_thread(self._loop.step)
                except Exception as exc:  # the reader promises not to raise; if it does, it is news
                    log.exception("camera step failed")
                    result = None
                    status = {"ok": False, "code": "reader_error", "message": f"识牌出错：{exc}",
                              "message_en": f"tile reader error: {exc}", "problem": str(exc)}
                else:
                    status = {**result.status.to_json(), "problem": result.problem}
                self.status = status
                if status["code"] != last_code or status["problem"] != last_problem:
                    self._controller.accept("camera", "camera.status", status)
                    last_code, last_problem = status["code"], status["problem"]
                if result is not None:
                    for ev in result.events:
                        self._controller.accept("camera", f"camera.tile_{ev.event}", ev.to_json())
                await asyncio.sleep(self.period_s)
        finally:
            camera = getattr(self._loop, "camera", None)
            if camera is not None:
                camera.close()


def vision_loop_factory(source: str, corners: Any, enrollment: str | None, threshold: float | None,
                        model: str = "") -> Callable[[], Any]:
    """Build the reader as configured in `[camera]` (imports OpenCV and the model only when a camera is set)."""

    def make() -> Any:
        from vision.camera import CameraStream
        from vision.config import VisionConfig
        from vision.service import VisionLoop

        cfg = VisionConfig.from_camera_section(source, corners, model, enrollment or "", threshold)
        return VisionLoop(CameraStream(cfg.camera), cfg.reader())

    return make

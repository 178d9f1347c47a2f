"""A virtual IP camera: serves rendered table frames as MJPEG over HTTP, the way cheap network
cameras do, so `cv2.VideoCapture("http://host:port/stream.mjpg")` opens it like the real one.

Faults are switches (unplug, freeze, dark, glare, garbage, scrambled, corrupt) so the reader's camera-health path can be
exercised end to end without hardware.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import cv2
import numpy as np

BOUNDARY = "tablesimframe"

#: Seconds between the server's looks at whether it is to stop: `stop()` waits for the next, and http.server's
#: 0.5 s was spent on every stop (each service with the demo's camera, each of bench/camera_long's reconnects)
POLL_S = 0.05


class VirtualCamera:
    """MJPEG server over a frame source. `source()` returns the next BGR frame."""

    def __init__(self, source: Callable[[], np.ndarray], host: str = "127.0.0.1", port: int = 0,
                 fps: float = 10.0, quality: int = 85) -> None:
        self.source = source
        self.fps = fps
        self.quality = quality
        self.unplugged = False
        self.frozen = False
        self.dark = False
        self.glare = False
        #: each frame's JPEG body replaced by random bytes (its headers kept): a camera whose
        #: encoder or link corrupts the picture, sent as ordinary MJPEG parts
        self.garbage = False
        #: each frame's coded picture (after its headers, which stay whole) replaced by random bytes: an
        #: encoder that fails after writing the headers. It decodes, mostly one flat colour (FFmpeg: green,
        #: libjpeg: grey), where `garbage` cuts into the headers and mostly does not decode at all
        self.scrambled = False
        #: a few bytes of each frame's JPEG body changed: a lossy link; the picture still decodes,
        #: garbled from the first bad byte on (grey or shifted blocks)
        self.corrupt = False
        self._rng = np.random.default_rng(0)
        #: connections opened before this number stop sending and never close (`hang`)
        self._hung_below = 0
        self._connections = 0
        self._last: bytes | None = None
        self._lock = threading.Lock()
        camera = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:  # keep test output quiet
                return

            def do_GET(self) -> None:  # noqa: N802 - http.server's naming
                if camera.unplugged:
                    self.send_error(503, "camera unplugged")
                    return
                if self.path.startswith("/snapshot"):
                    jpg = camera.next_jpeg()
                    self.send_response(200)
                    self.send_header("Content-Type", "image/jpeg")
                    self.send_header("Content-Length", str(len(jpg)))
                    self.end_headers()
                    self.wfile.write(jpg)
                    return
                if not self.path.startswith("/stream"):
                    self.send_error(404, "try /stream.mjpg or /snapshot.jpg")
                    return
                self.send_response(200)
                self.send_header("Content-Type", f"multipart/x-mixed-replace; boundary={BOUNDARY}")
                self.end_headers()
                with camera._lock:
                    camera._connections += 1
                    number = camera._connections
                due = time.monotonic()  # when this connection's next frame is to be sent
                try:
                    while not camera.unplugged and not camera._stopping.is_set():
                        if number <= camera._hung_below:  # rebooted under this connection: silence
                            camera._stopping.wait(0.2)
                            continue
                        jpg = camera.next_jpeg()
                        self.wfile.write(f"--{BOUNDARY}\r\nContent-Type: image/jpeg\r\nContent-Length: {len(jpg)}\r\n\r\n".encode())
                        self.wfile.write(jpg + b"\r\n")
                        # paced by deadline: sleeping 1/fps after each frame's rendering sent a "10 fps"
                        # camera's large scenes at ~3 fps; behind, the next goes at once (no burst)
                        due = max(due + 1.0 / camera.fps, time.monotonic())
                        camera._stopping.wait(due - time.monotonic())
                except (BrokenPipeError, ConnectionResetError):
                    return

        self._stopping = threading.Event()
        self.server = ThreadingHTTPServer((host, port), Handler)
        self.server.daemon_threads = True
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        host, port = self.server.server_address[:2]
        return f"http://{host}:{port}/stream.mjpg"

    def next_jpeg(self) -> bytes:
        with self._lock:
            if self.garbage:
                jpg = self._last or b"\xff\xd8\xff\xd9"
                head = min(len(jpg), 600)
                return jpg[:head] + self._rng.integers(0, 256, len(jpg) - head, dtype=np.uint8).tobytes()
            if self.scrambled and self._last is not None:
                jpg = self._last
                head = _scan_start(jpg)
                return jpg[:head] + self._rng.integers(0, 256, len(jpg) - head, dtype=np.uint8).tobytes()
            if self.frozen and self._last is not None:
                return self._last
            frame = self.source()
            if self.dark:
                frame = (frame.astype(np.float32) * 0.08).astype(np.uint8)
            if self.glare:
                frame = np.clip(frame.astype(np.int16) + 160, 0, 255).astype(np.uint8)
            ok, buf = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, self.quality])
            if not ok:
                raise RuntimeError("JPEG encoding failed")
            self._last = buf.tobytes()
            if self.corrupt:
                bad = bytearray(self._last)
                for i in self._rng.integers(min(700, len(bad) - 1), len(bad) - 2, 3):
                    bad[int(i)] = int(self._rng.integers(0, 256))
                return bytes(bad)
            return self._last

    def hang(self) -> None:
        """What a network camera that reboots does to the streams open at the time: they go silent
        and never close (no reset reaches the reader). New connections are served as before."""
        with self._lock:
            self._hung_below = self._connections

    def start(self) -> "VirtualCamera":
        self._thread = threading.Thread(target=self.server.serve_forever, args=(POLL_S,), name="virtual-camera",
                                        daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        self.server.shutdown()
        self.server.server_close()

    def __enter__(self) -> "VirtualCamera":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _scan_start(jpg: bytes) -> int:
    """Where a JPEG's coded picture starts: after its start-of-scan header (the whole file if none),
    found by walking the header segments (their tables may hold the marker's bytes)."""
    i = 2  # after SOI
    while i + 4 <= len(jpg) and jpg[i] == 0xFF:
        end = i + 2 + int.from_bytes(jpg[i + 2:i + 4], "big")
        if jpg[i + 1] == 0xDA:
            return end
        i = end
    return len(jpg)


def scene_source(faces: list, seed: int = 0, opts: object | None = None, jitter: bool = True,
                 tiles: list | None = None, pose_seed: int | None = None) -> Callable[[], np.ndarray]:
    """Frames of one table layout (`tiles`, `PlacedTile`s; None: a table in play), each with fresh
    sensor noise (a live camera is never still); `pose_seed` as `render_scene`'s."""
    from tablesim.scenes.render import SceneOptions, render_scene
    from tablesim.scenes.sensor import SensorNoise

    scene = render_scene(faces, seed, opts if isinstance(opts, SceneOptions) else SceneOptions(), tiles=tiles,
                         pose_seed=pose_seed)
    noise = SensorNoise(2.0, seed)

    def next_frame() -> np.ndarray:
        return noise(scene.image) if jitter else scene.image

    return next_frame

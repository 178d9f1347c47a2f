"""A real HTTP MJPEG server whose every connection plays a script of parts, for cameras that misbehave in
ways `tablesim`'s `VirtualCamera` has no switch for (a size change mid-stream, parts whose Content-Length
lies, a boundary that changes, 200 frames a second, a frame every 10 s)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def part(jpg: bytes, boundary: str = "frame", length: int | None = None) -> bytes:
    """One multipart part as cameras send it; `length` a Content-Length other than the body's (a lie)."""
    return (f"--{boundary}\r\nContent-Type: image/jpeg\r\nContent-Length: {len(jpg) if length is None else length}"
            "\r\n\r\n").encode() + jpg + b"\r\n"


class PartServer:
    """Serves `script()` (called per connection: the parts to send, in order) at `period_s` a part."""

    def __init__(self, script: Callable[[], Iterator[bytes]], period_s: float = 0.05, boundary: str = "frame") -> None:
        self.sent = 0
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                return

            def do_GET(self) -> None:  # noqa: N802 - http.server's naming
                self.send_response(200)
                self.send_header("Content-Type", f"multipart/x-mixed-replace; boundary={boundary}")
                self.end_headers()
                try:
                    for data in script():
                        if server._stop.is_set():
                            return
                        self.wfile.write(data)
                        server.sent += 1
                        time.sleep(period_s)
                except (BrokenPipeError, ConnectionResetError):
                    return

        self._stop = threading.Event()
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        # polled every 0.05 s, not http.server's 0.5 s: `close()` (`shutdown`) waits for the poll, each test once
        threading.Thread(target=self.httpd.serve_forever, args=(0.05,), name="part-server", daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/stream.mjpg"

    def close(self) -> None:
        self._stop.set()
        self.httpd.shutdown()
        self.httpd.server_close()

    def __enter__(self) -> "PartServer":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

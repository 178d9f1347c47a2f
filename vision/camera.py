"""The camera as the controller sees it: frames plus a health status, never an exception.

A USB camera unplugged or an IP camera rebooting must not stop the game: `grab()` returns no
frame and a status the display shows ("camera disconnected: enter tiles by hand"), and keeps
trying to reopen the camera in the background of the calls.
"""

from __future__ import annotations

import atexit
import statistics
import threading
import time
import weakref
from collections import deque
from collections.abc import Callable

import cv2
import numpy as np

from vision.health import LIGHT_FRAMES, CameraHealth, HealthStatus, blank
from vision.picture import MAX_PIXELS, picture_size


#: Streams whose reader thread may still run: stopped at exit, before the interpreter goes away
#: under a thread inside OpenCV (which aborts the process: "terminate called without an active exception").
_OPEN: "weakref.WeakSet[CameraStream]" = weakref.WeakSet()


@atexit.register
def _close_all() -> None:
    for stream in list(_OPEN):
        stream.close()


#: Seconds a network camera may send nothing before its stream is dropped and opened again. A camera
#: that reboots or loses its Wi-Fi leaves the open stream silent without closing it; OpenCV's
#: default (30 s) kept the table without a camera that long after it was back (measured with the
#: simulator's `VirtualCamera.hang`: frames again after 30.1 s, now ~5 s).
READ_TIMEOUT_S = 5.0


def open_capture(source: str | int, timeout_s: float = READ_TIMEOUT_S) -> cv2.VideoCapture:
    """`cv2.VideoCapture` of a device index, a path or a URL; a URL is opened and read with
    `timeout_s`, so a network camera that takes the connection and sends nothing is given up in
    seconds, not OpenCV's 30 s (the service and `tablectl check` alike)."""
    if isinstance(source, str) and source.isdigit():
        source = int(source)
    if isinstance(source, str) and "://" in source:
        ms = int(timeout_s * 1000)
        return cv2.VideoCapture(source, cv2.CAP_ANY,
                                [cv2.CAP_PROP_OPEN_TIMEOUT_MSEC, ms, cv2.CAP_PROP_READ_TIMEOUT_MSEC, ms])
    return cv2.VideoCapture(source)


#: Seconds between a camera's frames (the median of the last three) from which it is `slow`: the service reads
#: a frame every 0.5 s and a tile is announced after a few; a frame every 10 s showed 摄像头正常 while every
#: tile was announced seconds late (the stream timed out at 5 s and was opened again: a frame every ~5.5 s).
#: The demo's camera sends 4 a second; a loaded Pi's USB camera 5 or more.
SLOW_S = 3.0

#: What the status says of a connection that broke off at once after frames while the camera still answers
#: with a good picture: its parts' lengths or boundaries are wrong (FFmpeg lost its place in the stream), not
#: a camera unplugged, as it was shown.
BROKE_OFF = "the stream broke off inside a part though the camera answers: its parts' lengths or boundaries are wrong"

#: The most bytes of a stream read to find one whole JPEG part (`undecodable`): a 4K frame fits.
PROBE_BYTES = 1 << 22


def undecodable(source: str | int, timeout_s: float = 2.0) -> str:
    """Why what an HTTP camera sends does not decode, else "" (`probe`)."""
    return probe(source, timeout_s) or ""


def probe(source: str | int, timeout_s: float = 2.0) -> str | None:
    """Why an HTTP camera that OpenCV could not open is connected all the same: it answers and sends
    JPEG parts that do not decode (the detail, for the status), else "" (not an HTTP URL, no answer,
    an error page, or a picture that decodes). OpenCV says only that the open failed, and the display
    said 摄像头未连接 of a camera sending garbage, sending the technician after a cable that is fine. A part
    that decodes to one flat colour (`vision.health.blank`: the decoder filled in what it could not read)
    does not decode either. None: no answer, an error page, or not an HTTP URL."""
    if not (isinstance(source, str) and source.startswith(("http://", "https://"))):
        return None
    import urllib.error
    import urllib.request

    try:
        with urllib.request.urlopen(source, timeout=timeout_s) as answer:  # noqa: S310 - the table's own camera
            data = answer.read1(PROBE_BYTES) if hasattr(answer, "read1") else answer.read(PROBE_BYTES)
            while len(data) < PROBE_BYTES and data.count(b"\xff\xd8") < 2:
                more = answer.read1(PROBE_BYTES)
                if not more:
                    break
                data += more
    except (OSError, ValueError, urllib.error.URLError):
        return None
    start = data.find(b"\xff\xd8")
    if start < 0:
        return f"{len(data)} bytes received, no JPEG in them"
    end = data.find(b"\xff\xd8", start + 2)
    part = data[start:end if end > 0 else len(data)]
    if _scan_damaged(part):  # libjpeg draws a damaged scan as noise, no flat colour: judged before decoding
        return f"a {len(part)}-byte JPEG that does not decode: its coded picture is damaged (a marker no scan has)"
    picture = cv2.imdecode(np.frombuffer(part, np.uint8), cv2.IMREAD_COLOR)
    if picture is None:
        return f"a {len(part)}-byte JPEG that does not decode"
    return _blank_detail(picture) if blank(picture) else ""


def _blank_detail(frame: np.ndarray) -> str:
    """The status's detail for a frame that is no picture (`vision.health.blank`)."""
    return f"a {frame.shape[1]}x{frame.shape[0]} picture of one flat colour: a JPEG that does not decode"


def mjpeg_raw(cap: cv2.VideoCapture) -> bool:
    """Switch an open MJPEG capture to hand over each part's JPEG bytes undecoded (FFmpeg's raw mode);
    False for another codec (H.264, a USB camera's YUYV), which OpenCV decodes as before. Decoded by
    OpenCV, every part was scaled to the size the stream opened at (a camera switching to 1920×1080
    mid-stream was stretched into 1280×960 and read with the old calibration: a portrait frame put the
    felt 227 mm off and the next good frames read 0 tiles, status OK), and every part sent was decoded,
    used or not (126 frames/s of 640×480: 45% of a core on the reader thread)."""
    try:
        fourcc = int(cap.get(cv2.CAP_PROP_FOURCC)).to_bytes(4, "little")
        return cap.getBackendName() == "FFMPEG" and fourcc == b"MJPG" and bool(cap.set(cv2.CAP_PROP_FORMAT, -1))
    except (cv2.error, OverflowError):
        return False


#: what may follow a 0xFF byte inside a baseline scan: a stuffed zero, a restart marker, a fill byte
_IN_SCAN = np.zeros(256, bool)
_IN_SCAN[[0x00, 0xFF, *range(0xD0, 0xD8)]] = True


def _scan_damaged(data: bytes) -> bool:
    """Whether a baseline JPEG's one scan holds a marker no scan has (every 0xFF there is followed by 00, a
    restart marker or another FF, up to the end marker). libjpeg decodes random bytes in a scan into a picture
    of noise blocks that is no flat colour (`blank`), so it was returned as a frame; random bytes hold an
    invalid marker every few hundred bytes (a second SOS among them). Only a baseline JPEG whose one scan holds every
    component (SOF0's count = SOS's: what cameras and OpenCV write) is judged; a progressive one is not."""
    sos = data.find(b"\xff\xda")
    sof = data.find(b"\xff\xc0", 0, sos)
    if sos < 0 or sof < 0 or len(data) < max(sof + 10, sos + 5) or data[sof + 9] != data[sos + 4]:
        return False  # not one baseline scan of every component: tables and scans may follow
    end = data.rfind(b"\xff\xd9")
    scan = np.frombuffer(data, np.uint8)[sos + 2:end if end > sos else len(data)]
    marks = np.flatnonzero(scan[:-1] == 0xFF)
    return bool(len(marks)) and not bool(_IN_SCAN[scan[marks + 1]].all())


def decode_part(data: bytes | np.ndarray) -> tuple[np.ndarray | None, str, str]:
    """A stream's JPEG part decoded: (the frame, "", "") or (None, the status code, what is wrong). The
    size is read from its header first: a part over `vision.picture.MAX_PIXELS` is not decoded (`too_large`);
    one cut short (its end marker missing: a Content-Length that lied, a link that dropped bytes), one that
    does not decode, or one that decodes to one flat colour (`vision.health.blank`) is `undecodable`."""
    data = data.tobytes() if isinstance(data, np.ndarray) else data
    size = picture_size(data[:65536])
    if size is None or size[0] != "JPEG":
        return None, "undecodable", f"a {len(data)}-byte part that is not a JPEG"
    _, w, h = size
    if w * h > MAX_PIXELS:
        return None, "too_large", f"a {w}×{h} frame ({w * h / 1e6:.0f} Mpx), over {MAX_PIXELS // 1_000_000} Mpx"
    if _scan_damaged(data):
        return None, "undecodable", (f"a {w}×{h} JPEG that does not decode: its coded picture is damaged "
                                     "(a marker no scan has)")
    frame = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    if frame is None:
        return None, "undecodable", f"a {len(data)}-byte JPEG that does not decode"
    if blank(frame):
        return None, "undecodable", _blank_detail(frame)
    if data.rfind(b"\xff\xd9") < data.rfind(b"\xff\xda"):  # decoded grey below the cut
        return None, "undecodable", f"a {w}×{h} JPEG cut short ({len(data)} bytes, its end missing)"
    return frame, "", ""


#: MJPEG parts `grab()` decodes at most to find one that is a picture: one part that is not (a part damaged on
#: its way) is skipped for the next, as OpenCV skipped it when it decoded every part; a camera sending nothing
#: but such parts costs three decodes a grab.
PART_TRIES = 3


class CameraStream:
    """Wraps `cv2.VideoCapture` (device index, path or URL such as an MJPEG stream).

    A reader thread takes every frame the camera sends and keeps only the newest, and `grab()`
    returns that: a camera sending faster than the reader reads (an IP camera at 10 fps, read
    twice a second) would otherwise queue frames in its socket and the reader would fall ever
    further behind the table (measured: 8 s, then 13 s behind, on the demo's 4 fps camera).
    """

    def __init__(self, source: str | int, reopen_every_s: float = 2.0, clock: Callable[[], float] = time.monotonic,
                 health: CameraHealth | None = None, frame_wait_s: float = 2.0,
                 read_timeout_s: float = READ_TIMEOUT_S, slow_s: float = SLOW_S) -> None:
        self.source = source
        #: frames further apart than this (median of the last three) make the camera `slow` (`SLOW_S`)
        self.slow_s = slow_s
        self._arrivals: deque[float] = deque(maxlen=4)  # when the last frames (or parts) came, by `clock`
        #: a network camera silent this long is dropped and opened again (`READ_TIMEOUT_S`)
        self.read_timeout_s = read_timeout_s
        self.reopen_every_s = reopen_every_s
        self.clock = clock
        self.health = health or CameraHealth(light_frames=LIGHT_FRAMES)  # one garbled frame is not the light
        #: how long `grab()` waits for a frame newer than the last it returned, while the camera is open
        self.frame_wait_s = frame_wait_s
        self._cap: cv2.VideoCapture | None = None
        self._last_open = -1e9
        self._cond = threading.Condition()
        self._frame: np.ndarray | None = None
        #: the newest part's JPEG bytes of an MJPEG camera (`mjpeg_raw`): decoded when `grab()` takes it
        self._part: np.ndarray | None = None
        #: why the last part taken did not decode (`decode_part`): (status code, detail), or None
        self._bad_part: tuple[str, str] | None = None
        self._count = 0  # frames read
        self._returned = 0  # the count when grab() last returned a frame
        self._failures = 0  # opens and reads that failed
        self._attempts = 0  # opens tried
        #: the camera answers but what it sends does not decode (`undecodable`), from the last failed open
        self._undecodable = ""
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self._raw = False  # this connection hands over JPEG parts undecoded (`mjpeg_raw`)

    def _open(self) -> None:
        now = self.clock()
        if now - self._last_open < self.reopen_every_s:
            return
        self._last_open = now
        cap = open_capture(self.source, self.read_timeout_s)
        opened = cap.isOpened()
        if not opened:
            cap.release()
        self._raw = opened and mjpeg_raw(cap)
        why = "" if opened else undecodable(self.source)  # answered, but what it sends does not decode
        with self._cond:
            self._attempts += 1
            if opened:
                self._cap = cap
            else:
                self._undecodable = why
                self._failures += 1
            self._cond.notify_all()

    def _run(self) -> None:
        """The reader thread: (re)open, read every frame, keep the newest. A connection that gave
        no frame at all is looked at (`undecodable`): FFmpeg opens a stream of garbage and fails its
        first read, which looked like a camera unplugged. A frame that is no picture (`vision.health.blank`:
        what FFmpeg gives for a part it could not decode) is not a frame: a failed grab, the camera
        undecodable; before, it was returned, the status went ok between unplugged and undecodable, and
        the connection it came on was not looked at when it failed. A read that fails at once after
        frames (FFmpeg refused a part) is looked at too; one that failed by going silent (`read_timeout_s`)
        sent nothing to look at. Garbage and parts cut short are told by the part itself (`decode_part`); the
        look alone tells a stream that breaks off after whole parts (a Content-Length a few bytes over, a
        boundary line without its "--") from a camera unplugged: `BROKE_OFF` when a fresh connection gets a
        good picture (`test_a_stream_that_breaks_off_after_whole_parts_is_undecodable_with_why_not_unplugged`)."""
        opened_at = 0
        blank_why = ""  # what this connection sent that was no picture
        while not self._stop.is_set():
            if self._cap is None:
                self._open()
                if self._cap is None:
                    self._stop.wait(0.05)
                    continue
                opened_at, blank_why = self._count, ""
            started = time.monotonic()
            try:
                ok, img = self._cap.read()
            except cv2.error:
                ok, img = False, None
            if ok and img is not None and self._raw:  # kept as sent: decoded if and when grab() takes it
                with self._cond:
                    self._part, self._frame = img, None
                    self._count += 1
                    self._arrivals.append(self.clock())
                    self._cond.notify_all()
                continue
            if ok and img is not None:
                nothing = blank(img)  # outside the lock: grab() does not wait on it
                with self._cond:
                    if nothing:  # the connection stays: the next part may decode
                        self._undecodable = blank_why = _blank_detail(img)
                        self._failures += 1
                    else:
                        self._frame, self._part = img, None
                        self._count += 1
                        self._arrivals.append(self.clock())
                        self._undecodable = ""
                    self._cond.notify_all()
                continue
            self._cap.release()  # drop it; the loop reopens (at most every reopen_every_s)
            self._cap = None
            at_once = time.monotonic() - started < self.read_timeout_s / 2
            why = ""
            if self._count == opened_at or at_once:
                answer = probe(self.source)
                why = answer or blank_why
                if answer == "" and at_once and self._count > opened_at:  # a good picture on a fresh connection
                    why = BROKE_OFF
            with self._cond:
                self._undecodable, self._bad_part = why, None
                self._failures += 1
                self._cond.notify_all()
        if self._cap is not None:
            self._cap.release()
            self._cap = None

    def grab(self) -> tuple[np.ndarray | None, HealthStatus]:
        """The newest frame not returned before (or None) and the camera's health."""
        if self._thread is None:
            self._stop.clear()
            self._thread = threading.Thread(target=self._run, name="camera-reader", daemon=True)
            self._thread.start()
            _OPEN.add(self)
            with self._cond:  # the first open is tried before the first answer
                self._cond.wait_for(lambda: self._attempts > 0, timeout=30.0)
        frame = None
        deadline = time.monotonic() + self.frame_wait_s
        for _ in range(PART_TRIES):
            with self._cond:
                failures = self._failures

                def answer() -> bool:  # a new frame, a failure, or a closed camera not due to reopen yet
                    if self._count > self._returned or self._failures != failures:
                        return True
                    return self._cap is None and self.clock() - self._last_open < self.reopen_every_s

                self._cond.wait_for(answer, timeout=max(0.0, deadline - time.monotonic()))
                part = None
                if self._count > self._returned:
                    frame, part, self._returned = self._frame, self._part, self._count
            if frame is not None or part is None:
                break
            frame, code, why = decode_part(part)  # an MJPEG part: only the one taken is decoded
            with self._cond:
                self._bad_part = (code, why) if frame is None else None
            if frame is not None or code == "too_large":
                break
        status = self.health.check(frame)
        with self._cond:
            never = frame is None and self._count == 0 and self._failures > 0
        if never and status.code == "ok":  # the grace for a dropped grab is for a camera that gave frames
            status = HealthStatus("unplugged", f"no frame since the start: {self._failures} tries failed")
        bad = self._bad_part if frame is None else None
        if bad is not None and bad[0] == "too_large":  # at once: every part of this camera will be so
            status = HealthStatus("too_large", bad[1])
        elif status.code == "unplugged" and bad is not None:
            status = HealthStatus("undecodable", bad[1])
        elif status.code == "unplugged" and self._undecodable:
            status = HealthStatus("undecodable", self._undecodable)
        every = self._slow()
        if every and status.code in ("ok", "unplugged") and not status.suspect:
            status = HealthStatus("slow", f"about one frame every {every:.1f} s")
        return frame, status

    def _slow(self) -> float:
        """The seconds between this camera's frames when they come further apart than `slow_s` and the last
        came within two such spells (a camera gone altogether is `unplugged`), else 0."""
        with self._cond:
            times = list(self._arrivals)
        if len(times) < 3:
            return 0.0
        every = statistics.median(b - a for a, b in zip(times, times[1:]))
        return every if every > self.slow_s and self.clock() - times[-1] < 2 * every else 0.0

    def close(self) -> None:
        self._stop.set()
        _OPEN.discard(self)
        thread, self._thread = self._thread, None
        if thread is not None:
            thread.join(timeout=5.0)  # a read blocked on a dead network camera ends with its timeout

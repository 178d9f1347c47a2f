"""Camera health: tells the display, in words a referee understands, when the camera cannot be
trusted (unplugged, frozen, too dark, glare), so the game goes on with manual entry.

The check looks at frames only; it never raises, because a bad camera must not stop the game.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import cv2
import numpy as np

#: code -> (中文, English) shown on the display.
MESSAGES: dict[str, tuple[str, str]] = {
    "ok": ("摄像头正常", "camera OK"),
    "unplugged": ("摄像头未连接，请手动录入", "camera disconnected: enter tiles by hand"),
    # connected and sending, but nothing it sends decodes (a wrong video format, a failing encoder or a
    # damaged link): was shown as 摄像头未连接 though it is connected (`vision.camera.undecodable`)
    "undecodable": ("摄像头已连接，但画面无法解码：请检查摄像头的视频格式（MJPEG/H.264）、网线或无线信号，必要时重启摄像头，"
                    "请手动录入", "camera connected but its picture cannot be decoded: check its video format "
                                "(MJPEG/H.264), its cable or Wi-Fi, restart it if need be; enter tiles by hand"),
    # most tiles of frame after frame unlike every kind enrolled: another tile set (`enroll.UNLIKE`); every
    # tile went to the referee and nothing said why. The camera still reads; the referee rules meanwhile
    "wrong_tiles": ("登记的牌样与桌上的牌不符，请重新登记（tablectl vision enroll），其间请手动录入",
                    "the enrolled tiles do not match the tiles on the table (another set, or the wrong file): "
                    "enroll this table's set again (tablectl vision enroll); enter tiles by hand meanwhile"),
    # an MJPEG part over `vision.picture.MAX_PIXELS` (a camera set to a panorama or a sensor's full 100 Mpx
    # mode): not decoded, so a Pi's memory is not spent on it (`vision.camera.decode_part`)
    "too_large": ("摄像头画面过大，未识牌：请在摄像头设置中选择较低的分辨率（如 1920×1080），请手动录入",
                  "camera frames too large to read: choose a lower resolution in the camera's settings "
                  "(1920×1080, say); enter tiles by hand"),
    # frames further apart than `vision.camera.SLOW_S`: each is real, but tiles would be announced seconds late
    # (a camera set to 0.1 fps, a Wi-Fi link that barely carries it); was shown as 摄像头正常
    "slow": ("摄像头画面太慢（几秒才一帧），暂不识牌：请检查摄像头的帧率设置与网络，请手动录入",
             "camera too slow (seconds between frames): no tiles read; check its frame rate and network, "
             "enter tiles by hand"),
    "frozen": ("摄像头画面卡住，请手动录入", "camera image frozen: enter tiles by hand"),
    # every fault says what to do meanwhile (dark and glare did not: only unplugged and frozen did)
    "dark": ("光线太暗，无法识牌，请手动录入", "too dark to read tiles: enter tiles by hand"),
    "glare": ("反光太强，无法识牌，请手动录入", "glare on the table: tiles unreadable, enter them by hand"),
    # the picture is fine but the felt cannot be located in it (markers covered or out of view, the
    # camera moved or at another resolution: the problem says which); was shown as "摄像头正常" in green
    "not_reading": ("摄像头未能定位台面，暂不识牌，请手动录入", "camera cannot locate the table: no tiles read, "
                                                          "enter them by hand"),
}


@dataclass(frozen=True)
class HealthStatus:
    code: str
    detail: str = ""
    #: the picture looks dark or glaring in this frame only so far (`LIGHT_FRAMES`): not read, the
    #: status left as it was (a frame garbled on a lossy link looks so for one frame)
    suspect: bool = False

    @property
    def ok(self) -> bool:
        return self.code == "ok"

    def to_json(self) -> dict:
        zh, en = MESSAGES[self.code]
        return {"code": self.code, "ok": self.ok, "message": zh, "message_en": en, "detail": self.detail}


#: Seconds of bit-identical frames before the camera is called frozen. Before, 30 identical frames:
#: 15 s at the service's 0.5 s period (17.7 s measured on the simulator's frozen camera), 30 s at a
#: 1 s period, the display saying "camera OK" meanwhile. Not much less: an IP camera's encoder may
#: repeat a still picture for a moment.
FROZEN_S = 6.0

#: Frames in a row that must look dark (or glaring) before the camera is called so, for a stream. A
#: frame garbled on a lossy link (a few bytes changed: grey or shifted blocks from the first bad one)
#: looked dark or glaring for one frame, and the status flickered OK / dark / OK all day (the
#: simulator's `corrupt`: 12 changes a minute). A room's light going out is told ~1 s later.
LIGHT_FRAMES = 3
#: Of the pixels dark (or blown out) in either of two frames, the share dark in both for the two to
#: count as one light fault going on (a light out, a lamp's reflection stay put; a garbled block moves).
STEADY_OVERLAP = 0.5


#: Grey levels (of the 160×120 picture) a row may differ from the last fine frame and count as unchanged,
#: and must differ by, each row below, to count as garbled from there on.
SAME_ROW, GARBLED_ROW = 3.0, 6.0
#: Garbled frames in a row after which the picture is taken as it is (it changed for good, not in transit).
GARBLED_MAX = 10


def garbled(good: np.ndarray, grey: np.ndarray) -> bool:
    """Whether `grey` is `good` damaged from some point on: a JPEG with a bad byte decodes right down
    to its block and wrong (brightness shifted: blocks grey, dark or white) in every row after it, all
    across, so the top rows are the last fine frame's and most of every row below differs. A light
    going out changes the top rows too; a lamp's reflection or an arm, parts of some rows."""
    if good.shape != grey.shape:
        return False
    diff = cv2.absdiff(good, grey)
    same = diff.astype(np.float32).mean(axis=1) < SAME_ROW
    if not same[0]:
        return False
    first = int(np.argmin(same))  # the first row that changed (0: none did)
    return 0 < first < len(same) - 2 and bool((np.median(diff[first + 1:], axis=1) > GARBLED_ROW).all())


#: Share of a frame's pixels (sampled every `BLANK_STEP` px both ways) of exactly one colour, from which the
#: frame is taken for no picture at all (`blank`). A lit scene seen through a lens varies everywhere (noise
#: alone): 0.0 of the simulator's frames, plain, dark, glaring or corrupt; a JPEG whose scan did not decode
#: is 0.99 one colour or more.
BLANK_SHARE, BLANK_STEP = 0.9, 16


def blank(frame: np.ndarray, dark_mean: float = 35.0) -> bool:
    """Whether a decoded frame is no picture of anything: most of it one exact colour, neither dark nor blown
    out. What decoders give for a JPEG part whose coded picture is garbage: FFmpeg a frame it never filled
    (green, 0,135,0), libjpeg grey (128) below the few blocks it got. Taken for a frame, such a part showed
    the camera `ok` between unplugged and undecodable. A covered lens (one dark colour) or a lamp straight
    into it (white) are pictures, for `dark` and `glare` to tell."""
    sample = frame[::BLANK_STEP, ::BLANK_STEP].reshape(-1, frame.shape[2] if frame.ndim == 3 else 1)
    colour = np.median(sample, axis=0).astype(sample.dtype)
    if float((sample == colour).all(axis=1).mean()) < BLANK_SHARE:
        return False
    b, g, r = (float(c) for c in colour[:3]) if colour.size >= 3 else (float(colour[0]),) * 3
    return dark_mean <= 0.114 * b + 0.587 * g + 0.299 * r < 250


def _overlap(one: np.ndarray, other: np.ndarray) -> float:
    """Intersection over union of two masks (1.0 when both are empty)."""
    union = int(np.count_nonzero(one | other))
    return int(np.count_nonzero(one & other)) / union if union else 1.0


class CameraHealth:
    """Feed every frame (or None when the grab failed) to `check`."""

    def __init__(self, frozen_frames: int = 3, dark_mean: float = 35.0, glare_fraction: float = 0.04,
                 unplugged_after: int = 3, frozen_s: float = FROZEN_S,
                 clock: Callable[[], float] = time.monotonic, light_frames: int = 1) -> None:
        self.frozen_frames = frozen_frames
        #: frames in a row that look dark or glaring before it is said (1: a single picture's check;
        #: a stream's: `LIGHT_FRAMES`); those before are `suspect`
        self.light_frames = light_frames
        self._light = 0
        self._light_seen: tuple[str, np.ndarray] | None = None  # the last frame's light fault and where
        self._good: np.ndarray | None = None  # the last frame that looked fine (small grey)
        self._garbled = 0  # garbled frames in a row
        #: identical frames for this long (and at least `frozen_frames` of them): frozen, whatever the period
        self.frozen_s = frozen_s
        self.clock = clock
        self.dark_mean = dark_mean
        self.glare_fraction = glare_fraction
        self.unplugged_after = unplugged_after
        self._last: np.ndarray | None = None
        self._same = 0
        self._same_since = 0.0
        self._failures = 0

    def check(self, frame: np.ndarray | None) -> HealthStatus:
        if frame is None or not isinstance(frame, np.ndarray) or frame.size == 0:
            self._failures += 1
            if self._failures >= self.unplugged_after:
                return HealthStatus("unplugged", f"{self._failures} grabs failed in a row")
            return HealthStatus("ok", f"grab failed ({self._failures})")
        self._failures = 0
        small = cv2.resize(frame, (160, 120), interpolation=cv2.INTER_AREA)
        grey = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY) if small.ndim == 3 else small
        if self._last is not None and self._last.shape == grey.shape:
            # a live sensor always has some noise: a bit-identical frame is a stuck pipeline
            if float(cv2.absdiff(grey, self._last).mean()) < 0.05:
                if not self._same:
                    self._same_since = self.clock()
                self._same += 1
            else:
                self._same = 0
        self._last = grey
        still = self.clock() - self._same_since if self._same else 0.0
        if self._same >= self.frozen_frames and still >= self.frozen_s:
            return HealthStatus("frozen", f"{self._same} identical frames in {still:.0f} s")
        if self.light_frames > 1 and self._good is not None and garbled(self._good, grey) \
                and self._garbled < GARBLED_MAX:  # damaged on its way: neither read nor taken for the light
            self._garbled += 1
            return HealthStatus("ok", "a garbled frame", suspect=True)
        self._garbled = 0
        light = self._light_fault(grey)
        if light is None:
            self._light, self._light_seen, self._good = 0, None, grey
            return HealthStatus("ok")
        # the same fault in the same place as the frame before: a lossy link garbles each frame its own way
        seen = grey < self.dark_mean if light.code == "dark" else grey >= 250
        steady = self._light_seen is not None and self._light_seen[0] == light.code and _overlap(
            self._light_seen[1], seen) >= STEADY_OVERLAP
        self._light = self._light + 1 if steady else 1
        self._light_seen = (light.code, seen)
        if self._light < self.light_frames:
            return HealthStatus("ok", f"{light.code}? ({self._light} of {self.light_frames} frames)", suspect=True)
        return light

    def _light_fault(self, grey: np.ndarray) -> HealthStatus | None:
        mean = float(grey.mean())
        if mean < self.dark_mean:
            return HealthStatus("dark", f"mean brightness {mean:.0f}/255")
        blown = float((grey >= 250).mean())
        if blown > self.glare_fraction:
            return HealthStatus("glare", f"{blown:.1%} of the picture saturated")
        return None

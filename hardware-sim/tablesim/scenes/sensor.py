"""A live camera's sensor noise: the grain that makes no two frames of a still table alike.

The simulator's cameras (`tablesim.felt.FeltCamera`, `tablesim.scenes.camera.scene_source`) add it
to every frame they send. Drawing 3.7 M Gaussian values for each 1280×960 frame cost ~50 ms of
CPU, more than a 20 fps camera has for a frame, so the virtual camera sent fewer frames than it
said and took a core doing it. The noise is drawn once per frame size, a little larger than the
frame; each frame takes a window of it at a new offset, never the one before (bit-identical frames
in a row are what a frozen camera sends, `vision.health`).
"""

from __future__ import annotations

import threading

import numpy as np

#: pixels the drawn field is larger than the frame on each axis: 64 × 64 offsets to take windows at
MARGIN = 64


class SensorNoise:
    """Gaussian sensor noise of `sigma` grey levels (rounded: the frame's mean is unchanged),
    added to frames of any size; thread-safe (a virtual camera serves each connection in a thread)."""

    def __init__(self, sigma: float = 2.0, seed: int = 0) -> None:
        self.sigma = sigma
        self._rng = np.random.default_rng(seed)
        self._lock = threading.Lock()
        self._field: np.ndarray | None = None
        self._last: tuple[int, int] = (-1, -1)

    def _window(self, shape: tuple[int, ...]) -> np.ndarray:
        with self._lock:
            big = (shape[0] + MARGIN, shape[1] + MARGIN) + tuple(shape[2:])
            if self._field is None or self._field.shape != big:
                self._field = np.rint(self._rng.normal(0.0, self.sigma, big)).astype(np.int16)
            while True:
                dy, dx = (int(v) for v in self._rng.integers(0, MARGIN, 2))
                if (dy, dx) != self._last:
                    break
            self._last = (dy, dx)
            return self._field[dy:dy + shape[0], dx:dx + shape[1]]

    def __call__(self, image: np.ndarray) -> np.ndarray:
        """`image` (uint8) with this frame's noise, clipped to 0..255; `image` is not changed."""
        return np.clip(image.astype(np.int16) + self._window(image.shape), 0, 255).astype(np.uint8)

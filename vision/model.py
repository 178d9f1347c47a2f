"""The tile classifier at run time: the committed ONNX network run with `cv2.dnn` (never torch).

One forward pass per crop gives the kind (43 kinds plus a rejection class), whether the crop is
upside down (so 180° turns cost nothing extra) and a 128-d embedding that enrollment compares.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

import cv2
import numpy as np

from vision.kinds import KINDS

#: Crop size new networks are trained on, width x height: a tile at 1.6 px/mm of table plane, so
#: a flower's character (a sixth of the tile's height) is 10+ px high. A model's own JSON recipe
#: says which size it takes (`crop`); models without it take the first size, 36x48.
CROP_W, CROP_H = 48, 64
LEGACY_CROP = (36, 48)
MODEL_DIR = Path(__file__).parent / "models"
DEFAULT_MODEL = MODEL_DIR / "tiles.onnx"
#: Output names fixed by the exporter in `vision.train`.
OUTPUTS = ("logits", "upside", "embedding")
#: Classes the network outputs: KINDS then the rejection class.
N_CLASSES = len(KINDS) + 1


class ModelError(RuntimeError):
    """The model file is missing or unreadable; the message says which and how to rebuild it."""


@dataclass(frozen=True)
class Prediction:
    """The network's view of one crop: kind probabilities (43 kinds + other), P(upside down), embedding."""

    probs: np.ndarray
    upside: float
    embedding: np.ndarray


def _softmax(x: np.ndarray) -> np.ndarray:
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


class TileClassifier:
    """Loads the ONNX model once and classifies batches of BGR crops."""

    def __init__(self, path: Path | str = DEFAULT_MODEL) -> None:
        path = Path(path)
        if not path.exists():
            raise ModelError(f"tile model {path} not found; rebuild it with `tablectl vision train`")
        try:
            self.net = _read_onnx(path)
        except cv2.error as exc:
            raise ModelError(f"tile model {path} is unreadable: {exc}") from exc
        self.path = path
        self.crop_size = model_crop_size(path)

    def predict(self, crops: list[np.ndarray] | np.ndarray) -> list[Prediction]:
        if len(crops) == 0:
            return []
        blob = preprocess(crops, self.crop_size)
        self.net.setInput(blob)
        logits, upside, emb = self.net.forward(list(OUTPUTS))
        probs = _softmax(logits.reshape(len(crops), -1))
        up = _softmax(upside.reshape(len(crops), -1))[:, 1]
        emb = emb.reshape(len(crops), -1)
        return [Prediction(probs[i], float(up[i]), emb[i]) for i in range(len(crops))]

    def predict_turned(self, crops: list[np.ndarray] | np.ndarray) -> list[Prediction]:
        """The crops looked at turned half round, told back in each crop's own frame (`upside`
        is whether the crop as given is upside down): a second opinion on the same tile, since
        the network learnt tiles both ways up."""
        turned = self.predict([np.ascontiguousarray(c[::-1, ::-1]) for c in crops])
        return [replace(p, upside=1.0 - p.upside) for p in turned]


def average(first: Prediction, second: Prediction) -> Prediction:
    """Two looks at one tile as one: probabilities averaged, the first look's embedding (what
    enrollments hold and compare)."""
    return Prediction((first.probs + second.probs) / 2, (first.upside + second.upside) / 2, first.embedding)


def _read_onnx(path: Path) -> "cv2.dnn.Net":
    """The network, on OpenCV 5's classic engine where there is a choice: for this small net it
    runs a batch of 80 crops in ~33 ms against ~45 ms on the default (new graph) engine, same
    outputs to 1e-5. OpenCV 4 has only the one engine."""
    engine = getattr(cv2.dnn, "ENGINE_CLASSIC", None)
    if engine is None:
        return cv2.dnn.readNetFromONNX(str(path))
    return cv2.dnn.readNetFromONNX(str(path), engine=engine)


def second_look_model(path: Path | str) -> Path | None:
    """The network that takes the second look at unsure tiles (`vision.reader.SECOND_LOOK_BELOW`)
    when the model's JSON recipe names one (`second_look`, beside the model); None: the model
    itself looks again."""
    import json

    try:
        name = json.loads(Path(path).with_suffix(".json").read_text()).get("second_look")
    except (OSError, ValueError, AttributeError):
        return None
    return Path(path).parent / name if isinstance(name, str) and name else None


def model_crop_size(path: Path | str) -> tuple[int, int]:
    """(width, height) of the crops the model at `path` takes, from its JSON recipe."""
    import json

    try:
        w, h = json.loads(Path(path).with_suffix(".json").read_text())["crop"]
        return int(w), int(h)
    except (OSError, KeyError, ValueError, TypeError):
        return LEGACY_CROP


def preprocess(crops: list[np.ndarray] | np.ndarray, size: tuple[int, int] = (CROP_W, CROP_H)) -> np.ndarray:
    """BGR uint8 crops -> NCHW float32 blob at `size` (width, height), each crop normalised by its
    own mean and spread (so a dim corner of the table and a bright one look alike to the network)."""
    w, h = size
    arr = np.stack([c if c.shape[:2] == (h, w) else cv2.resize(c, (w, h), interpolation=cv2.INTER_AREA)
                    for c in crops]).astype(np.float32)
    mean = arr.mean(axis=(1, 2, 3), keepdims=True)
    std = arr.std(axis=(1, 2, 3), keepdims=True) + 8.0
    return np.ascontiguousarray(((arr - mean) / std).transpose(0, 3, 1, 2))

"""Enrollment: a table's own tiles, shown once, adapt the reader to art no training set had.

Every table's tiles differ from all packaged art, so the reader keeps, for a few real examples
per kind, the network's embedding and a small normalised picture (a template), and at read time
blends the network's guess with the nearest enrolled examples. The embedding carries what the
network learnt; the template catches what it never learnt to tell apart (a flower set's small
characters): the same art, aligned by the tile's corners, matches itself closely. Adding
examples costs one forward pass each: seconds on a Pi, no training, nothing leaves the table.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np

from vision.kinds import KIND_INDEX
from vision.model import N_CLASSES, Prediction

#: Sharpness of the similarity vote and the weight kept on the network's own guess. Chosen on
#: the dev styles (kmahjongg alphabet and egypt: art never trained on), never on the reserved
#: evaluation styles; see docs/vision.md.
TEMPERATURE = 50.0
NETWORK_WEIGHT = 0.05
#: Template size (width, height), the share of the crop's sides left out of it (the tile's rim
#: and its neighbours' edges, which say nothing about the kind and vary with the quad's jitter)
#: and its share of the similarity. Chosen on the dev sets (see docs/vision.md): trimming the
#: rim helped every dev set; 24x32 did as well as 36x48 at half the cost.
TEMPLATE_SIZE = (24, 32)
TEMPLATE_MARGIN = 0.12
TEMPLATE_WEIGHT = 0.25


def template(crop: np.ndarray) -> np.ndarray:
    """A crop's inner face as a zero-mean unit vector at low resolution (normalised
    cross-correlation)."""
    h, w = crop.shape[:2]
    my, mx = int(round(h * TEMPLATE_MARGIN)), int(round(w * TEMPLATE_MARGIN))
    inner = crop[my:h - my, mx:w - mx]
    small = cv2.resize(inner, TEMPLATE_SIZE, interpolation=cv2.INTER_AREA).astype(np.float32).ravel()
    small -= small.mean()
    return small / (np.linalg.norm(small) + 1e-6)


class EnrollmentError(ValueError):
    """Enrollment input that cannot be used: tile count mismatch, unknown kind, bad file."""


def _unit(x: np.ndarray) -> np.ndarray:
    return x / (np.linalg.norm(x, axis=-1, keepdims=True) + 1e-9)


class Enrollment:
    """Labelled embeddings of this table's tiles."""

    def __init__(self, embeddings: np.ndarray | None = None, kinds: list[str] | None = None,
                 templates: np.ndarray | None = None) -> None:
        self.embeddings = np.zeros((0, 128), np.float32) if embeddings is None else _unit(np.asarray(embeddings, np.float32))
        self.kinds: list[str] = list(kinds or [])
        n_t = TEMPLATE_SIZE[0] * TEMPLATE_SIZE[1] * 3
        self.templates = np.zeros((len(self.kinds), n_t), np.float32) if templates is None else np.asarray(templates, np.float32)
        if len(self.kinds) != len(self.embeddings) or len(self.templates) != len(self.kinds):
            raise EnrollmentError("one kind and one template per embedding")

    def __len__(self) -> int:
        return len(self.kinds)

    def add(self, preds: list[Prediction], kinds: list[str], crops: list[np.ndarray] | None = None) -> None:
        """Enroll examples: their network predictions, kinds and (better) the crops themselves."""
        if len(preds) != len(kinds) or (crops is not None and len(crops) != len(kinds)):
            raise EnrollmentError(f"{len(preds)} tiles seen but {len(kinds)} kinds given")
        for k in kinds:
            if k not in KIND_INDEX:
                raise EnrollmentError(f"unknown tile kind {k!r}")
        if not preds:
            return
        new = _unit(np.stack([p.embedding for p in preds]).astype(np.float32))
        self.embeddings = np.concatenate([self.embeddings.reshape(-1, new.shape[1]), new])
        n_t = self.templates.shape[1]
        temps = np.stack([template(c) for c in crops]) if crops is not None else np.zeros((len(kinds), n_t), np.float32)
        self.templates = np.concatenate([self.templates, temps.astype(np.float32)])
        self.kinds.extend(kinds)

    def kinds_covered(self) -> set[str]:
        return set(self.kinds)

    def adapt(self, p: Prediction, crop: np.ndarray | None = None) -> Prediction:
        """The network's probabilities blended with a vote of the nearest enrolled tiles."""
        return self.adapt_batch([p], None if crop is None else [crop])[0]

    def adapt_batch(self, preds: list[Prediction], crops: list[np.ndarray] | None = None) -> list[Prediction]:
        """`adapt` for a frame's tiles at once (two matrix products instead of one per tile)."""
        if not preds or not len(self):
            return list(preds)
        emb = _unit(np.stack([p.embedding for p in preds]).astype(np.float32))
        sims = emb @ self.embeddings.T
        has = np.abs(self.templates).sum(axis=1) > 0
        if crops is not None and has.any():
            ncc = np.stack([template(c) for c in crops]) @ self.templates.T
            sims = np.where(has[None, :], (1 - TEMPLATE_WEIGHT) * sims + TEMPLATE_WEIGHT * ncc, sims)
        idx = np.array([KIND_INDEX[k] for k in self.kinds])
        per_kind = np.full((len(preds), N_CLASSES), -np.inf, np.float32)
        for k in np.unique(idx):
            per_kind[:, k] = sims[:, idx == k].max(axis=1)
        seen = np.isfinite(per_kind[0])
        # kinds nobody enrolled (and the rejection class) get a neutral similarity
        per_kind[:, ~seen] = per_kind[:, seen].mean(axis=1, keepdims=True)
        probs = np.stack([p.probs for p in preds])
        logit = NETWORK_WEIGHT * np.log(probs + 1e-6) + TEMPERATURE * per_kind
        e = np.exp(logit - logit.max(axis=1, keepdims=True))
        e /= e.sum(axis=1, keepdims=True)
        return [replace(p, probs=e[i]) for i, p in enumerate(preds)]

    def save(self, path: Path | str) -> None:
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        np.savez_compressed(path, embeddings=self.embeddings, kinds=np.array(self.kinds), templates=self.templates)

    @classmethod
    def load(cls, path: Path | str) -> "Enrollment":
        path = Path(path)
        if not path.exists():
            raise EnrollmentError(f"enrollment file {path} not found; make one with `tablectl vision enroll`")
        try:
            data = np.load(path, allow_pickle=False)
            templates = data["templates"] if "templates" in data.files else None
            if templates is not None and templates.shape[1] != TEMPLATE_SIZE[0] * TEMPLATE_SIZE[1] * 3:
                templates = None  # made with another template size: embeddings only
            return cls(data["embeddings"], [str(k) for k in data["kinds"]], templates)
        except (OSError, KeyError, ValueError) as exc:
            raise EnrollmentError(f"enrollment file {path} is unreadable: {exc}") from exc


def reading_order(centres_mm: np.ndarray, row_tolerance_mm: float = 20.0) -> list[int]:
    """Indices of tiles sorted as E reads them: rows from the far side to the near, each left to
    right. Enrollment lays tiles in the order of `KINDS` and this recovers it."""
    order = np.argsort(centres_mm[:, 1])
    rows: list[list[int]] = []
    last_y = None
    for i in order:
        y = centres_mm[i, 1]
        if last_y is None or y - last_y > row_tolerance_mm:
            rows.append([])
        rows[-1].append(int(i))
        last_y = y
    return [i for row in rows for i in sorted(row, key=lambda j: centres_mm[j, 0])]


"""Enrollment: a table's own tiles, shown once, adapt the reader to art no training set had.

Every table's tiles differ from all packaged art, so the reader keeps, for a few real examples
per kind, the network's embedding and a small normalised picture of the tile's face (a
template), and at read time blends the network's guess with the nearest enrolled examples. The
embedding carries what the network learnt; the template catches what it never learnt to tell
apart (a flower set's small characters): the same art matches itself closely once aligned. The
tile's corners found on the felt are only good to a few millimetres (touching tiles in a row are
cut where the seam looks darkest), so the template is matched at every small shift, not only
where the corners put it. Adding examples costs one forward pass each: seconds on a Pi, no
training, nothing leaves the table.
"""

from __future__ import annotations

import os
import zipfile
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from vision.kinds import FACE_KINDS, KIND_INDEX
from vision.model import N_CLASSES, Prediction

#: Sharpness of the similarity vote and the weight kept on the network's own guess. Chosen on
#: the dev styles (kmahjongg alphabet and egypt: art never trained on), never on the reserved
#: evaluation styles; see docs/vision.md.
TEMPERATURE = 100.0
NETWORK_WEIGHT = 0.05
#: The template: the crop shrunk to (width, height) in grey, the share of each side left out (the
#: tile's rim and its neighbours' edges, which say nothing about the kind), the largest shift in
#: pixels at which it is matched (3 px of 24 is 12% of a tile's width, about the spread of the
#: corners found in a row of touching tiles), and its share of the similarity. Chosen on the dev
#: sets (see docs/vision.md): matching at every shift raised all three; grey did as well as colour
#: at a third of the cost.
TEMPLATE_SIZE = (24, 32)
TEMPLATE_MARGIN = 0.16
TEMPLATE_SHIFT = 3
TEMPLATE_WEIGHT = 0.5
#: Of each enrolled tile's jittered positions, how many also give templates (the corners as
#: found and one jitter, both ways up): the shift search covers the rest, and every template
#: costs read time. Two did better than one on the dev sets, twelve no better than two.
TEMPLATED_POSITIONS = 2
#: What a stored template file must match to be used (files from other template settings load
#: with their embeddings only).
TEMPLATE_FORMAT = np.array([*TEMPLATE_SIZE, round(100 * TEMPLATE_MARGIN), TEMPLATE_SHIFT, 1], np.int32)


#: The 42 face kinds among the network's classes (not `back`, not the rejection class).
_FACE = np.isin(np.arange(N_CLASSES), [KIND_INDEX[k] for k in FACE_KINDS])


def _grey(crop: np.ndarray) -> np.ndarray:
    return cv2.resize(crop, TEMPLATE_SIZE, interpolation=cv2.INTER_AREA).astype(np.float32).mean(axis=2)


def _margins() -> tuple[int, int]:
    w, h = TEMPLATE_SIZE
    return round(h * TEMPLATE_MARGIN), round(w * TEMPLATE_MARGIN)


def _normalise(x: np.ndarray) -> np.ndarray:
    x = x - x.mean(axis=-1, keepdims=True)
    return x / (np.linalg.norm(x, axis=-1, keepdims=True) + 1e-6)


def template(crop: np.ndarray) -> np.ndarray:
    """A crop's inner face, grey, as a zero-mean unit vector (normalised cross-correlation)."""
    (w, h), (my, mx) = TEMPLATE_SIZE, _margins()
    return _normalise(_grey(crop)[my:h - my, mx:w - mx].ravel())


def shifted_windows(crops: list[np.ndarray]) -> np.ndarray:
    """Every window of a template's size within `TEMPLATE_SHIFT` pixels of the centred one, for
    each crop: (crops, positions, template length), each a zero-mean unit vector."""
    (w, h), (my, mx), s = TEMPLATE_SIZE, _margins(), TEMPLATE_SHIFT
    th, tw = h - 2 * my, w - 2 * mx
    grey = np.stack([_grey(c) for c in crops])
    pad = max(0, s - min(my, mx))
    if pad:
        grey = np.pad(grey, ((0, 0), (pad, pad), (pad, pad)), mode="edge")
    area = grey[:, pad + my - s:pad + h - my + s, pad + mx - s:pad + w - mx + s]
    win = sliding_window_view(area, (th, tw), axis=(1, 2))  # (n, 2s+1, 2s+1, th, tw)
    return _normalise(win.reshape(len(crops), -1, th * tw))


class EnrollmentError(ValueError):
    """Enrollment input that cannot be used: tile count mismatch, unknown kind, bad file."""


def _unit(x: np.ndarray) -> np.ndarray:
    return x / (np.linalg.norm(x, axis=-1, keepdims=True) + 1e-9)


def _template_length() -> int:
    (w, h), (my, mx) = TEMPLATE_SIZE, _margins()
    return (h - 2 * my) * (w - 2 * mx)


class Enrollment:
    """Labelled embeddings of this table's tiles, and templates of some of them."""

    def __init__(self, embeddings: np.ndarray | None = None, kinds: list[str] | None = None,
                 templates: np.ndarray | None = None, template_kinds: list[str] | None = None,
                 sources: list[str] | None = None, template_sources: list[str] | None = None) -> None:
        self.embeddings = np.zeros((0, 128), np.float32) if embeddings is None else _unit(np.asarray(embeddings, np.float32))
        self.kinds: list[str] = list(kinds or [])
        self.templates = (np.zeros((0, _template_length()), np.float32) if templates is None
                          else np.asarray(templates, np.float32).reshape(-1, _template_length()))
        self.template_kinds: list[str] = list(template_kinds or [])
        #: Where each example came from ("" for `tablectl vision enroll`, "ruling:<seq>" for a
        #: referee's ruling), so that an undone ruling can be forgotten (`remove`).
        self.sources: list[str] = list(sources) if sources is not None else [""] * len(self.kinds)
        self.template_sources: list[str] = (list(template_sources) if template_sources is not None
                                            else [""] * len(self.template_kinds))
        if len(self.kinds) != len(self.embeddings) or len(self.sources) != len(self.kinds):
            raise EnrollmentError("one kind and one source per embedding")
        if len(self.template_kinds) != len(self.templates) or len(self.template_sources) != len(self.template_kinds):
            raise EnrollmentError("one kind and one source per template")

    def __len__(self) -> int:
        return len(self.kinds)

    def add(self, preds: list[Prediction], kinds: list[str], crops: list[np.ndarray] | None = None,
            templated: list[bool] | None = None, source: str = "") -> None:
        """Enroll examples: their network predictions and kinds, and (better) the crops
        themselves, of which those marked in `templated` (default: all) also give a template."""
        if len(preds) != len(kinds) or (crops is not None and len(crops) != len(kinds)):
            raise EnrollmentError(f"{len(preds)} tiles seen but {len(kinds)} kinds given")
        for k in kinds:
            if k not in KIND_INDEX:
                raise EnrollmentError(f"unknown tile kind {k!r}")
        if not preds:
            return
        new = _unit(np.stack([p.embedding for p in preds]).astype(np.float32))
        self.embeddings = np.concatenate([self.embeddings.reshape(-1, new.shape[1]), new])
        self.kinds.extend(kinds)
        self.sources.extend([source] * len(kinds))
        if crops is not None:
            chosen = [i for i in range(len(crops)) if templated is None or templated[i]]
            if chosen:
                self.templates = np.concatenate([self.templates, np.stack([template(crops[i]) for i in chosen])])
                self.template_kinds.extend(kinds[i] for i in chosen)
                self.template_sources.extend([source] * len(chosen))

    def keep_rulings(self, kind: str, most: int) -> int:
        """Keep the examples of the newest `most` rulings (sources "ruling:<seq>") of `kind`, the
        older ones forgotten (a day of corrections must not grow the reader's work without end);
        examples enrolled by hand stay. How many examples went."""
        rulings = list(dict.fromkeys(s for s, k in zip(self.sources, self.kinds)
                                     if k == kind and s.startswith("ruling:")))
        return sum(self.remove(source) for source in rulings[:max(0, len(rulings) - most)])

    def remove(self, source: str) -> int:
        """Forget every example that came from `source` (an undone ruling); how many went."""
        keep = [i for i, s in enumerate(self.sources) if s != source]
        keep_t = [i for i, s in enumerate(self.template_sources) if s != source]
        gone = len(self.sources) - len(keep)
        self.embeddings = self.embeddings[keep]
        self.kinds = [self.kinds[i] for i in keep]
        self.sources = [self.sources[i] for i in keep]
        self.templates = self.templates[keep_t]
        self.template_kinds = [self.template_kinds[i] for i in keep_t]
        self.template_sources = [self.template_sources[i] for i in keep_t]
        return gone

    def kinds_covered(self) -> set[str]:
        return set(self.kinds)

    def adapt(self, p: Prediction, crop: np.ndarray | None = None) -> Prediction:
        """The network's probabilities blended with a vote of the nearest enrolled tiles."""
        return self.adapt_batch([p], None if crop is None else [crop])[0]

    def _per_kind(self, sims: np.ndarray, kinds: list[str]) -> np.ndarray:
        """(tiles, N_CLASSES) best similarity per kind; -inf where a kind has no example."""
        idx = np.array([KIND_INDEX[k] for k in kinds])
        out = np.full((len(sims), N_CLASSES), -np.inf, np.float32)
        for k in np.unique(idx):
            out[:, k] = sims[:, idx == k].max(axis=1)
        return out

    def adapt_batch(self, preds: list[Prediction], crops: list[np.ndarray] | None = None) -> list[Prediction]:
        """`adapt` for a frame's tiles at once (a few matrix products instead of one per tile)."""
        if not preds or not len(self):
            return list(preds)
        return self.blend(preds, self.similarity(preds, crops))

    def similarity(self, preds: list[Prediction], crops: list[np.ndarray] | None = None) -> np.ndarray:
        """(tiles, N_CLASSES): how like each kind's enrolled tiles each tile is (embeddings, and
        templates where there are crops); -inf for kinds nobody enrolled. It does not depend on
        the network's probabilities, so a second look at a tile blends with it again for free."""
        emb = _unit(np.stack([p.embedding for p in preds]).astype(np.float32))
        per_kind = self._per_kind(emb @ self.embeddings.T, self.kinds)
        if crops is not None and self.template_kinds:
            win = shifted_windows(list(crops))
            n, positions, d = win.shape
            ncc = (win.reshape(n * positions, d) @ self.templates.T).reshape(n, positions, -1).max(axis=1)
            ncc_kind = self._per_kind(ncc, self.template_kinds)
            both = np.isfinite(ncc_kind) & np.isfinite(per_kind)
            per_kind = np.where(both, (1 - TEMPLATE_WEIGHT) * per_kind + TEMPLATE_WEIGHT * ncc_kind, per_kind)
        return per_kind

    def blend(self, preds: list[Prediction], similarity: np.ndarray) -> list[Prediction]:
        """The network's probabilities blended with the vote of `similarity` (from `similarity`)."""
        if not preds:
            return []
        per_kind = similarity.copy()
        seen = np.isfinite(per_kind[0])
        # `back` and the rejection class (never enrolled) get a neutral similarity
        per_kind[:, ~seen] = per_kind[:, seen].mean(axis=1, keepdims=True)
        probs = np.stack([p.probs for p in preds])
        logit = NETWORK_WEIGHT * np.log(probs + 1e-6) + TEMPERATURE * per_kind
        # A face kind nobody enrolled keeps the network's probability; the vote shares out the
        # rest. Else a partial enrollment (the tiles the referee confirmed) reads a 6m, never
        # shown, as the enrolled 8m drawn alike; with every kind enrolled this changes nothing.
        unseen = _FACE & ~seen
        logit[:, unseen] = -np.inf
        e = np.exp(logit - logit.max(axis=1, keepdims=True))
        e *= (1.0 - probs[:, unseen].sum(axis=1, keepdims=True)) / e.sum(axis=1, keepdims=True)
        e[:, unseen] = probs[:, unseen]
        return [replace(p, probs=e[i]) for i, p in enumerate(preds)]

    def save(self, path: Path | str) -> None:
        """Write the enrollment to `path` (`.npz` added as numpy adds it) whole or not at all: the service
        saves it again after each ruling it learns from, and a power cut mid-write left a truncated file
        that no longer loaded, losing the table's enrollment. Written beside it, synced, then renamed."""
        path = Path(path)
        final = path if path.suffix == ".npz" else path.with_name(path.name + ".npz")
        final.parent.mkdir(parents=True, exist_ok=True)
        partial = final.with_name(f".{final.name}.partial")
        try:
            with open(partial, "wb") as out:
                np.savez_compressed(out, embeddings=self.embeddings, kinds=np.array(self.kinds),
                                    templates=self.templates, template_kinds=np.array(self.template_kinds),
                                    template_format=TEMPLATE_FORMAT, sources=np.array(self.sources, dtype=str),
                                    template_sources=np.array(self.template_sources, dtype=str))
                out.flush()
                os.fsync(out.fileno())
            os.replace(partial, final)
        finally:
            partial.unlink(missing_ok=True)

    @classmethod
    def load(cls, path: Path | str) -> "Enrollment":
        path = Path(path)
        if not path.exists():
            raise EnrollmentError(f"enrollment file {path} not found; make one with `tablectl vision enroll`")
        try:
            with open(path, "rb") as f:
                head = f.read(4)
            if head and head != b"PK\x03\x04":
                # an .npz is a zip: a lone array (.npy) had no `.files` (a traceback from `tablectl check`), and
                # any other bytes numpy took for a pickle, with advice (load it unsafely) that is not ours
                raise ValueError("not an enrollment file (an .npz archive)")
            data = np.load(path, allow_pickle=False)
            same = ("template_format" in data.files and "template_kinds" in data.files
                    and np.array_equal(data["template_format"], TEMPLATE_FORMAT))
            # made with other template settings: embeddings only (enroll again for the templates)
            templates, template_kinds = ((data["templates"], [str(k) for k in data["template_kinds"]]) if same
                                         else (None, None))
            # files from before sources were kept: every example counts as enrolled by hand
            sources = [str(x) for x in data["sources"]] if "sources" in data.files else None
            template_sources = ([str(x) for x in data["template_sources"]]
                                if same and "template_sources" in data.files else None)
            return cls(data["embeddings"], [str(k) for k in data["kinds"]], templates, template_kinds, sources,
                       template_sources)
        except (OSError, KeyError, ValueError, EOFError, zipfile.BadZipFile) as exc:
            # a damaged or empty file (a card's bad sector, a copy cut short) raised BadZipFile or
            # EOFError: a traceback from `tablectl vision`, and the service's camera stopped for it
            raise EnrollmentError(f"enrollment file {path} is unreadable: {exc}; make it again with "
                                  "`tablectl vision enroll`") from exc


#: A tile whose best likeness to every enrolled kind (`Enrollment.similarity`) is under this is unlike
#: the enrolled set, and a frame where `UNLIKE_SHARE` of the tiles are, under an enrollment of
#: `SET_KINDS` kinds or more, shows another tile set than the one enrolled (a venue that swapped sets,
#: the wrong file). Measured on play frames of four styles (dorothys, kmahjongg jade and alphabet,
#: drawn), each enrolled from one frame and read in two: of a frame of its own set 2-21% of the tiles
#: are under 0.75, of another set 69-100%. Without it, nothing said why every tile went to the referee.
UNLIKE = 0.75
UNLIKE_SHARE = 0.5
SET_KINDS = 30
#: Tiles a frame needs for its share to say anything.
UNLIKE_MIN_TILES = 8

#: What the display, `tablectl check` and the reader say of it, Chinese first.
UNLIKE_MESSAGE = ("登记的牌样与桌上的牌不符，请重新登记（tablectl vision enroll）",
                  "the enrolled tiles do not match the tiles on the table (another set, or the wrong file): "
                  "enroll this table's set again (tablectl vision enroll)")


def unlike_share(enrollment: "Enrollment | None", similarity: np.ndarray | None) -> float | None:
    """The share of a frame's tiles unlike every enrolled kind (`UNLIKE`), or None where it says nothing:
    no enrollment or one of a few kinds only (learnt from a few rulings), or too few tiles."""
    if enrollment is None or similarity is None or len(enrollment.kinds_covered()) < SET_KINDS \
            or len(similarity) < UNLIKE_MIN_TILES:
        return None
    best = np.where(np.isfinite(similarity), similarity, -1.0).max(axis=1)
    return float((best < UNLIKE).mean())


#: The network's own reading (no enrollment) of a laid-out tile at or above which, naming another
#: kind than the one laid there, the layout is refused (`layout_problems`). Measured on enrollment
#: frames (3 each of dorothys, kmahjongg default, jade, traditional, alphabet, egypt and the three
#: held-out drawn sets, 27 frames): no tile of the 34 kinds laid right was read otherwise at 0.9 or
#: more; one kind laid twice (its neighbour missing) was, in about half of the frames.
CONTRADICTED = 0.9


def layout_problems(kinds: list[str], readings: list[tuple[str, float]]) -> list[str]:
    """Where the network is sure a laid-out tile is another kind than the one it stands for: one
    kind laid twice (and so another missing), a tile face down, two swapped, a row out of order.
    Flowers and seasons laid are not checked: the network alone names an unseen set's by chance
    (docs/vision.md); what they are read as is. `readings`: (kind, probability) in laying order."""
    from vision.kinds import chinese_name, is_flower

    out = []
    for n, (laid, (read, p)) in enumerate(zip(kinds, readings), start=1):
        if is_flower(laid) or not read or read == laid or p < CONTRADICTED:  # "": not a tile
            continue
        also = [i for i, k in enumerate(kinds, start=1) if k == read]
        where = f"（第 {also[0]} 张已是{chinese_name(read)}）" if also else ""
        out.append(f"第 {n} 张应为{chinese_name(laid)}（{laid}），看来是{chinese_name(read)}（{read}，{p:.2f}）{where}")
    return out


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


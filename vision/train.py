"""Trains the tile classifier on synthetic crops and exports it to ONNX (`tablectl vision train`).

Needs the `train` extra (torch, CPU build); the service itself never imports this module. Seeds
are fixed, so the same command on the same art makes the same model, up to torch's own
nondeterminism on threads.
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from vision.kinds import KIND_INDEX
from vision.model import CROP_H, CROP_W, N_CLASSES, OUTPUTS, preprocess
from vision.tileart import TRAINING_STYLES, load_style


@dataclass(frozen=True)
class TrainConfig:
    samples: int = 40000
    epochs: int = 8
    batch: int = 128
    lr: float = 3e-3
    seed: int = 5
    drawn_variants: int = 24
    #: drawn sets (`vision.drawn.draw_set`) from seeds seed*1000+k; the dev set's seed is not one
    drawn_sets: int = 16
    threads: int = 2
    crop_w: int = CROP_W
    crop_h: int = CROP_H
    #: share of the tile crops that are flowers or seasons (the kinds hardest to learn)
    flower_share: float = 0.3
    #: share of the tile faces restyled (`tablesim.scenes.crops.restyle`: stroke weight, inks,
    #: the body's white, placement) before they are drawn
    restyle: float = 0.0
    #: drawn faces also in `vision.drawn.MORE_FONTS` (brush, ming, fangsong, heavy, mincho)
    more_fonts: bool = False
    #: drawn faces also in `vision.drawn.BRUSH_FONTS` (毛筆 and 行書 brush, standard kai, textbook)
    brush_fonts: bool = False
    #: drawn characters up to filling the face (`vision.drawn.BIG_CHARS`), as many real sets carve
    #: flowers, seasons and honours
    big_chars: bool = False


#: Crops are rendered in chunks, each from its own seed, so the data are the same whatever the
#: number of worker processes.
CHUNK = 2000


_STYLE_CACHE: dict[tuple[int, int, int, bool, bool, bool], list[list[tuple[str, np.ndarray]]]] = {}


def _styles(cfg: TrainConfig, seed: int) -> list[list[tuple[str, np.ndarray]]]:
    """Faces of every training style (drawn ones from `seed`), kept per worker process."""
    from vision.drawn import BRUSH_FONTS, CJK_FONTS, MORE_FONTS, draw_faces, draw_set

    key = (seed, cfg.drawn_variants, cfg.drawn_sets, cfg.more_fonts, cfg.brush_fonts, cfg.big_chars)
    if key in _STYLE_CACHE:
        return _STYLE_CACHE[key]
    styles = []
    for style in TRAINING_STYLES:
        if style == "drawn":  # faces drawn one by one, and whole sets whose groups share a design
            fonts = CJK_FONTS + (MORE_FONTS if cfg.more_fonts else ()) + (BRUSH_FONTS if cfg.brush_fonts else ())
            faces = draw_faces(seed=seed, variants=cfg.drawn_variants, fonts=fonts, big=cfg.big_chars)
            faces += [f for k in range(cfg.drawn_sets) for f in draw_set(seed * 1000 + k, fonts=fonts, big=cfg.big_chars)]
        else:
            faces = load_style(style)
        styles.append([(f.kind, f.image) for f in faces])
    _STYLE_CACHE[key] = styles
    return styles


def _render_chunk(args: tuple[TrainConfig, int, int, int]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """`n` crops from seed (cfg.seed, chunk): a tile crop of a random style and kind (flowers
    at `flower_share`), a face-down tile, or a "not a tile" window."""
    from tablesim.scenes.crops import OTHER, make_crop, restyle

    cfg, chunk, n, drawn_seed = args
    styles = _styles(cfg, drawn_seed)
    rng = np.random.default_rng([cfg.seed, chunk])
    weights = np.array([3.0 if s == "drawn" else 1.0 for s in TRAINING_STYLES])
    weights /= weights.sum()
    pool = [img for s in styles for _, img in s]
    flowers = [[(k, im) for k, im in s if k.endswith("f")] for s in styles]
    others = [[(k, im) for k, im in s if not k.endswith("f")] for s in styles]
    size = (cfg.crop_w, cfg.crop_h)
    x = np.empty((n, cfg.crop_h, cfg.crop_w, 3), np.uint8)
    y = np.empty(n, np.int64)
    up = np.empty(n, np.int64)
    for i in range(n):
        r = rng.random()
        if r < 0.07:
            crop, flipped = make_crop(rng, None, pool, other=True, size=size)
            label = OTHER
        elif r < 0.12:
            crop, flipped = make_crop(rng, None, pool, size=size)
            label = KIND_INDEX["back"]
        else:
            group = flowers if rng.random() < cfg.flower_share else others
            w = weights * np.array([len(g) > 0 for g in group])
            style = group[rng.choice(len(group), p=w / w.sum())]
            kind, img = style[rng.integers(len(style))]
            if cfg.restyle and rng.random() < cfg.restyle:
                img = restyle(img, rng)
            crop, flipped = make_crop(rng, img, pool, size=size)
            label = KIND_INDEX[kind]
        x[i], y[i], up[i] = crop, label, int(flipped)
    return x, y, up


def build_dataset(cfg: TrainConfig, progress: bool = True, samples: int | None = None, chunk0: int = 0,
                  drawn_seed: int | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Crops (N, H, W, 3) uint8, kind labels (43 = not a tile) and upside-down flags, rendered by
    `cfg.threads` processes."""
    from multiprocessing import get_context

    from tqdm import tqdm

    n = cfg.samples if samples is None else samples
    jobs = [(cfg, chunk0 + c, min(CHUNK, n - c * CHUNK), cfg.seed if drawn_seed is None else drawn_seed)
            for c in range((n + CHUNK - 1) // CHUNK)]
    with get_context("fork").Pool(max(1, cfg.threads)) as pool:
        parts = list(tqdm(pool.imap(_render_chunk, jobs), total=len(jobs), desc="rendering crops", disable=not progress))
    return tuple(np.concatenate([p[k] for p in parts]) for k in range(3))  # type: ignore[return-value]


def _drawn_only_crops(cfg: TrainConfig) -> tuple[np.ndarray, np.ndarray]:
    """Crops of held-out drawn faces only (seed never trained on): does the net read what is
    drawn (the flower characters), or only remember the packaged sets?"""
    from tablesim.scenes.crops import make_crop
    from vision.drawn import draw_faces

    rng = np.random.default_rng([cfg.seed, 99])
    faces = draw_faces(seed=cfg.seed, variants=4)
    pool = [f.image for f in faces]
    xs, ys = [], []
    for f in faces:
        for _ in range(3):
            xs.append(make_crop(rng, f.image, pool, size=(cfg.crop_w, cfg.crop_h))[0])
            ys.append(KIND_INDEX[f.kind])
    return np.stack(xs), np.array(ys)


def choose_threshold(conf: np.ndarray, correct: np.ndarray, target: float = 0.999) -> float:
    """The lowest confidence threshold at which accepted validation crops are `target` correct
    (validation crops come from the training styles: the reserved styles never tune anything)."""
    for t in np.round(np.arange(0.5, 0.996, 0.01), 2):
        keep = conf >= t
        if keep.any() and correct[keep].mean() >= target:
            return float(t)
    return 0.995


def make_network():  # type: ignore[no-untyped-def]
    import torch
    from torch import nn

    def block(cin: int, cout: int) -> list[nn.Module]:
        return [nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True)]

    class TileNet(nn.Module):
        """~11 M multiply-adds per 48x64 crop (80 tiles must classify in tens of ms on a Pi-class
        CPU): four stages to a 128-d embedding, then kind and upside heads. The layers do not
        depend on the crop size (global pooling), so the same net takes 36x48 or 48x64."""

        def __init__(self) -> None:
            super().__init__()
            self.features = nn.Sequential(
                *block(3, 12), nn.MaxPool2d(2),
                *block(12, 32), nn.MaxPool2d(2),
                *block(32, 64), nn.MaxPool2d(2),
                *block(64, 128), nn.AdaptiveAvgPool2d(1), nn.Flatten(),
            )
            self.drop = nn.Dropout(0.2)
            self.kind = nn.Linear(128, N_CLASSES)
            self.upside = nn.Linear(128, 2)

        def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
            e = self.features(x)
            d = self.drop(e)
            return self.kind(d), self.upside(d), e

    return TileNet()


def train(cfg: TrainConfig, out: Path, progress: bool = True) -> dict:
    """Render crops, train, export `out` (ONNX) and `out`.json (the recipe and the figures)."""
    import torch
    from torch import nn
    from tqdm import tqdm

    torch.manual_seed(cfg.seed)
    torch.set_num_threads(cfg.threads)
    t0 = time.time()
    x, y, up = build_dataset(cfg, progress)
    # held out: crops of faces drawn from another seed (never trained on), flowers and the rest
    hcfg = TrainConfig(**{**asdict(cfg), "seed": cfg.seed + 7919})
    hx, hy, _ = build_dataset(hcfg, False, samples=2 * CHUNK, chunk0=10_000, drawn_seed=cfg.seed + 7919)
    drawn_only = _drawn_only_crops(hcfg)
    t_data = time.time() - t0
    n_val = max(500, cfg.samples // 20)
    size = (cfg.crop_w, cfg.crop_h)
    xt = torch.from_numpy(preprocess(x, size))
    del x
    yt, ut = torch.from_numpy(y), torch.from_numpy(up)
    net = make_network()
    opt = torch.optim.AdamW(net.parameters(), lr=cfg.lr, weight_decay=1e-4)
    steps = cfg.epochs * ((cfg.samples - n_val) // cfg.batch)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=cfg.lr, total_steps=steps)
    ce = nn.CrossEntropyLoss(label_smoothing=0.05)
    gen = torch.Generator().manual_seed(cfg.seed)
    bar = tqdm(total=steps, desc="training", disable=not progress)
    for _ in range(cfg.epochs):
        net.train()
        perm = torch.randperm(cfg.samples - n_val, generator=gen) + n_val
        for b in range(0, len(perm) - cfg.batch + 1, cfg.batch):
            idx = perm[b:b + cfg.batch]
            logits, upside, _ = net(xt[idx])
            # the upside head learns only on kinds that look different turned round
            loss = ce(logits, yt[idx]) + 0.5 * ce(upside, ut[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            bar.update(1)
            bar.set_postfix(loss=f"{loss.item():.3f}")
    bar.close()
    net.eval()
    with torch.no_grad():
        logits, upside, _ = net(xt[:n_val])
        val_acc = float((logits.argmax(1) == yt[:n_val]).float().mean())
        conf = torch.softmax(logits, 1).max(1).values.numpy()
        threshold = choose_threshold(conf, (logits.argmax(1) == yt[:n_val]).numpy())
        up_acc = float((upside.argmax(1) == ut[:n_val]).float().mean())
        held = {}
        for name, (cx, cy) in {"mixed_styles": (hx, hy), "drawn": drawn_only}.items():
            pred = net(torch.from_numpy(preprocess(cx, size)))[0].argmax(1).numpy()
            fl = cy >= KIND_INDEX["1f"]
            fl &= cy <= KIND_INDEX["8f"]
            held[name] = {"top1": round(float((pred == cy).mean()), 4),
                          "top1_flowers": round(float((pred[fl] == cy[fl]).mean()), 4) if fl.any() else None}
    out.parent.mkdir(parents=True, exist_ok=True)
    dummy = torch.zeros(1, 3, cfg.crop_h, cfg.crop_w)
    torch.onnx.export(net, dummy, str(out), input_names=["crop"], output_names=list(OUTPUTS),
                      dynamic_axes={"crop": {0: "n"}, **{o: {0: "n"} for o in OUTPUTS}}, opset_version=13,
                      dynamo=False)
    report = {"config": asdict(cfg), "styles": list(TRAINING_STYLES), "val_top1_synthetic": round(val_acc, 4),
              "val_upside_synthetic": round(up_acc, 4), "crop": [cfg.crop_w, cfg.crop_h],
              "heldout_drawn_seed": held,
              "threshold": threshold, "seconds_data": round(t_data),
              "seconds_total": round(time.time() - t0), "torch": torch.__version__,
              "command": (f"nice -n 19 tablectl vision train --samples {cfg.samples} --epochs {cfg.epochs} --seed {cfg.seed}"
                          + (f" --restyle {cfg.restyle}" if cfg.restyle else "")
                          + (" --more-fonts" if cfg.more_fonts else "") + (" --brush-fonts" if cfg.brush_fonts else "")
                          + (" --big-chars" if cfg.big_chars else "")
                          + (f" --flower-share {cfg.flower_share}" if cfg.flower_share != TrainConfig.flower_share else "")
                          + f" --out {out}")}
    out.with_suffix(".json").write_text(json.dumps(report, indent=2) + "\n")
    return report

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
    samples: int = 24000
    epochs: int = 8
    batch: int = 128
    lr: float = 3e-3
    seed: int = 5
    drawn_variants: int = 10
    threads: int = 2


def build_dataset(cfg: TrainConfig, progress: bool = True) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Crops (N, H, W, 3) uint8, kind labels (43 = not a tile) and upside-down flags."""
    from tqdm import tqdm

    from tablesim.scenes.crops import OTHER, make_crop
    from vision.drawn import draw_faces

    rng = np.random.default_rng(cfg.seed)
    styles: list[list[tuple[str, np.ndarray]]] = []
    for style in TRAINING_STYLES:
        faces = draw_faces(seed=cfg.seed, variants=cfg.drawn_variants) if style == "drawn" else load_style(style)
        styles.append([(f.kind, f.image) for f in faces])
    weights = np.array([3.0 if s == "drawn" else 1.0 for s in TRAINING_STYLES])
    weights /= weights.sum()
    pool = [img for s in styles for _, img in s]
    x = np.empty((cfg.samples, CROP_H, CROP_W, 3), np.uint8)
    y = np.empty(cfg.samples, np.int64)
    up = np.empty(cfg.samples, np.int64)
    for i in tqdm(range(cfg.samples), desc="rendering crops", disable=not progress):
        r = rng.random()
        if r < 0.07:
            crop, flipped = make_crop(rng, None, pool, other=True)
            label = OTHER
        elif r < 0.12:
            crop, flipped = make_crop(rng, None, pool)
            label = KIND_INDEX["back"]
        else:
            style = styles[rng.choice(len(styles), p=weights)]
            kind, img = style[rng.integers(len(style))]
            crop, flipped = make_crop(rng, img, pool)
            label = KIND_INDEX[kind]
        x[i], y[i], up[i] = crop, label, int(flipped)
    return x, y, up


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
        """~6 MFLOPs per crop (80 tiles must classify in tens of ms on a Pi-class CPU): four
        stages to a 128-d embedding, then kind and upside heads."""

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
    t_data = time.time() - t0
    n_val = max(500, cfg.samples // 20)
    xt = torch.from_numpy(preprocess(x))
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
    out.parent.mkdir(parents=True, exist_ok=True)
    dummy = torch.zeros(1, 3, CROP_H, CROP_W)
    torch.onnx.export(net, dummy, str(out), input_names=["crop"], output_names=list(OUTPUTS),
                      dynamic_axes={"crop": {0: "n"}, **{o: {0: "n"} for o in OUTPUTS}}, opset_version=13,
                      dynamo=False)
    report = {"config": asdict(cfg), "styles": list(TRAINING_STYLES), "val_top1_synthetic": round(val_acc, 4),
              "val_upside_synthetic": round(up_acc, 4),
              "threshold": threshold, "seconds_data": round(t_data),
              "seconds_total": round(time.time() - t0), "torch": torch.__version__,
              "command": f"tablectl vision train --samples {cfg.samples} --epochs {cfg.epochs} --seed {cfg.seed} --out {out}"}
    out.with_suffix(".json").write_text(json.dumps(report, indent=2) + "\n")
    return report

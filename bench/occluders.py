"""Benchmark: what the reader makes of things on the felt that are not tiles.

A player's hand and arm, a white shirt sleeve, a cup, a phone, scoring chips
(`tablesim.scenes.objects`) are drawn over rendered table frames; every reading whose centre lies
on the object and not on a real tile is a phantom. Counted per frame: phantom face tiles accepted
(these would enter the play record), phantom backs accepted, and phantoms sent to the referee;
the zones left unread because something lies there (`TileReader.occluded`), and the recall of the
real tiles the object does not cover in the zones read. Measured with the reader as it is and
with the seam check and the unread zones off (`vision.detect.SEAM_MIN = 0`, `OBJECT_MIN_TILES =
inf`: the reader before the eleventh session) as the reference.

Run: `nice -n 15 .venv/bin/python bench/occluders.py [--frames 40] [--styles a,b]`. The default
styles are a training style and the dev sets; the reserved styles may be given for evaluation.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

# Run as `python bench/occluders.py`, this file's folder would shadow the `vision` package.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "hardware-sim"))

import numpy as np  # noqa: E402
from tqdm import tqdm  # noqa: E402

DEFAULT_STYLES = "xmahjongg-dorothys,kmahjongg-alphabet,kmahjongg-egypt"


def measure(style: str, frames: int, seam_min: float, object_min: float) -> dict[str, Any]:
    import vision.detect as detect
    from tablesim.scenes.objects import lay_object, score_readings
    from tablesim.scenes.render import SceneOptions, render_scene
    from vision.reader import TileReader
    from vision.tileart import load_style

    faces = load_style(style)
    reader = TileReader()
    saved, detect.SEAM_MIN = detect.SEAM_MIN, seam_min
    saved_min, detect.OBJECT_MIN_TILES = detect.OBJECT_MIN_TILES, object_min
    counts: Counter[str] = Counter()
    by_object: Counter[str] = Counter()
    try:
        for seed in tqdm(range(frames), desc=f"{style} seam≥{seam_min:g}", unit="frame", leave=False, file=sys.stderr):
            rng = np.random.default_rng(seed + 1000)
            scene = render_scene(faces, seed, SceneOptions(tiles=40))
            img, mask, what = lay_object(scene.image, rng)
            reader.calibration = None
            readings = reader.read(img)
            counts["unread_zones"] += len(reader.occluded)
            score = score_readings(scene.tiles, readings, mask, reader.occluded)
            for kind in ("face", "back", "unsure"):
                counts[kind] += score[kind]
                by_object[f"{what}:{kind}"] += score[kind]
            counts["uncovered"] += score["uncovered"]
            counts["uncovered_found"] += score["found"]
    finally:
        detect.SEAM_MIN, detect.OBJECT_MIN_TILES = saved, saved_min
    return {"frames": frames, "face_per_frame": round(counts["face"] / frames, 3),
            "back_per_frame": round(counts["back"] / frames, 3),
            "unsure_per_frame": round(counts["unsure"] / frames, 3),
            "uncovered_recall": round(counts["uncovered_found"] / max(1, counts["uncovered"]), 4),
            "unread_zones_per_frame": round(counts["unread_zones"] / frames, 2),
            "by_object": dict(sorted(by_object.items()))}


def main() -> None:
    from vision.detect import OBJECT_MIN_TILES, SEAM_MIN

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--frames", type=int, default=40, help="frames per style, one object each")
    ap.add_argument("--styles", default=DEFAULT_STYLES)
    args = ap.parse_args()
    out = []
    for style in args.styles.split(","):
        now, before = (measure(style, args.frames, SEAM_MIN, OBJECT_MIN_TILES),
                       measure(style, args.frames, 0.0, float("inf")))
        out.append({"style": style, "now": now, "reference": before})
        print(f"== {style} ({args.frames} frames, one object each)")
        for name, r in (("now", now), ("reference (before)", before)):
            print(f"  {name:26s} accepted phantom faces {r['face_per_frame']:.3f}/frame, "
                  f"backs {r['back_per_frame']:.3f}, "
                  f"to the referee {r['unsure_per_frame']:.3f}; zones unread {r['unread_zones_per_frame']:.2f}; "
                  f"recall of uncovered tiles in the zones read {r['uncovered_recall']:.4f}")
        ratio = before["face_per_frame"] / now["face_per_frame"] if now["face_per_frame"] else float("inf")
        print(f"  phantom faces: {ratio:.1f}× fewer; questions: {before['unsure_per_frame']:.2f} → {now['unsure_per_frame']:.2f} per frame")
    print("JSON", json.dumps(out, ensure_ascii=False))


if __name__ == "__main__":
    main()

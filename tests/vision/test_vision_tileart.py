"""Tile art loaders: every set labelled by what is drawn; the reserved styles complete."""

from __future__ import annotations

import sys
from typing import Any

import numpy as np

from vision.drawn import draw_faces
from vision.kinds import FACE_KINDS
from vision.tileart import FACE_SIZE, RESERVED_STYLES, TRAINING_STYLES, load_style


def test_reserved_styles_are_never_training_styles() -> None:
    assert not set(RESERVED_STYLES) & set(TRAINING_STYLES)


def test_reserved_real_tiles_have_all_42_kinds_once() -> None:
    faces = load_style("xmahjongg-real")
    assert sorted(f.kind for f in faces) == sorted(FACE_KINDS)
    assert all(f.image.shape == (FACE_SIZE[1], FACE_SIZE[0], 3) for f in faces)


def test_dorothys_flowers_by_plant_not_numeral(dorothys) -> None:
    kinds = [f.kind for f in dorothys]
    assert sorted(kinds) == sorted(FACE_KINDS)
    # the sheet's flower slots draw bamboo, orchid, plum, chrysanthemum: 8f 6f 5f 7f
    assert kinds[-4:] == ["8f", "6f", "5f", "7f"]


def test_drawn_faces_are_reproducible_and_varied() -> None:
    a = draw_faces(seed=3, variants=1, kinds=("1m", "5f"))
    b = draw_faces(seed=3, variants=1, kinds=("1m", "5f"))
    assert [f.kind for f in a] == ["1m", "5f"]
    assert all(np.array_equal(x.image, y.image) for x, y in zip(a, b))
    assert not np.array_equal(a[0].image, a[1].image)


def test_drawn_sets_share_a_design_within_a_group() -> None:
    import numpy as np

    from vision.drawn import draw_set

    faces = {f.kind: f.image.astype(np.int16) for f in draw_set(seed=3)}
    # seasons of one set differ only where their characters are: most pixels are equal
    same = (np.abs(faces["1f"] - faces["2f"]).sum(axis=2) < 8).mean()
    assert same > 0.6
    assert not np.array_equal(faces["1f"], faces["2f"])
    assert np.array_equal(faces["1f"], {f.kind: f.image for f in draw_set(seed=3)}["1f"])


def test_restyled_faces_keep_size_and_body_and_follow_the_seed(dorothys) -> None:
    """Training restyles faces (stroke weight, inks, the body's white, placement): the result is
    reproducible from the seed, the same size, still a light body with dark strokes, and varied."""
    from tablesim.scenes.crops import restyle

    face = next(f.image for f in dorothys if f.kind == "2m")
    a = [restyle(face, np.random.default_rng(s)) for s in range(12)]
    b = [restyle(face, np.random.default_rng(s)) for s in range(12)]
    assert all(np.array_equal(x, y) for x, y in zip(a, b))
    assert all(x.shape == face.shape and x.dtype == np.uint8 for x in a)
    changed = [float(np.abs(x.astype(int) - face.astype(int)).mean()) for x in a]
    assert sum(c > 2 for c in changed) >= 8 and len({round(c, 1) for c in changed}) >= 6
    for x in a:  # the body stays the lightest part and the strokes stay darker than it
        grey = x.mean(axis=2)
        assert np.median(grey) > 150 and np.percentile(grey, 2) < np.median(grey) - 60


def test_drawn_typefaces_held_out_and_missing_glyphs_taken_from_another_face() -> None:
    """The dev set's brush typefaces are never in training, and a typeface without a character
    (a GB face has no 萬) draws it from another typeface of its list, never as a missing box."""
    from vision.drawn import CJK_FONTS, HELDOUT_FONTS, MORE_FONTS, _has_glyph, _Painter

    assert not set(HELDOUT_FONTS) & set(CJK_FONTS + MORE_FONTS)
    gb = next(f for f in MORE_FONTS if "gkai" in f[0].name)
    assert not _has_glyph(*gb, "萬") and _has_glyph(*gb, "万")
    noto = CJK_FONTS[0]
    a = _Painter(np.random.default_rng(0), fonts=(gb, noto))
    b = _Painter(np.random.default_rng(0), fonts=(noto, noto))  # the same draws, noto every time
    for _ in range(6):  # whichever face `a` picks, its 萬 is noto's
        a.text("萬", 0.5, 0.5, 0.4, (0, 0, 200))
        b.text("萬", 0.5, 0.5, 0.4, (0, 0, 200))
        assert np.array_equal(a.img, b.img)


def _ink_height(face: np.ndarray) -> float:
    """The height of what is drawn on a face, as a share of the face's height."""
    grey = face.astype(np.float32).mean(axis=2)
    body = float(np.median(np.concatenate([grey[0], grey[-1]])))
    rows = np.nonzero((np.abs(grey - body) > 60).any(axis=1))[0]
    return float(rows.max() - rows.min() + 1) / face.shape[0] if len(rows) else 0.0


def test_big_characters_fill_the_face_and_the_old_recipe_is_unchanged() -> None:
    """`big` draws honours (and flowers alone) up to filling the face, as many sets carve them;
    without it the faces are those of the recipe the committed model was trained with."""
    from vision.drawn import BIG_CHARS, draw_big_chars

    honours = ("1z", "2z", "3z", "4z", "6z", "7z")
    small = [_ink_height(f.image) for f in draw_faces(seed=11, variants=8, kinds=honours)]
    big = [_ink_height(f.image) for f in draw_faces(seed=11, variants=8, kinds=honours, big=True)]
    assert max(small) < 0.65 and max(big) > 0.72 and np.mean(big) > np.mean(small) + 0.05
    # the same seed without `big` draws the same faces as before (the rng is drawn the same way)
    again = draw_faces(seed=11, variants=8, kinds=honours)
    assert all(np.array_equal(a.image, b.image) for a, b in zip(draw_faces(seed=11, variants=8, kinds=honours), again))
    dev = draw_big_chars(seed=5)
    assert sorted(f.kind for f in dev) == sorted(["1f", "2f", "3f", "4f", "5f", "6f", "7f", "8f", *honours])
    heights = [_ink_height(f.image) for f in dev]
    assert min(heights) > 0.45 and max(heights) <= 0.97  # large, and never cut at the face's edge
    assert BIG_CHARS <= 0.9


def _load_at_once(barrier: Any, style: str) -> None:
    """A training worker: waits for the other, loads `style` through the cache; exit status 0 when it
    got the style's two faces."""
    from vision import tileart

    barrier.wait(timeout=20)
    sys.exit(0 if len(tileart.load_style(style)) == 2 else 1)


def test_workers_filling_the_tile_art_cache_at_once_do_not_collide(tmp_path, monkeypatch) -> None:
    """Training's workers load the same style into an empty cache at the same moment: each writes
    its own temporary file (one shared name made the second worker's rename fail)."""
    import multiprocessing
    import time

    from vision import tileart

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    faces = draw_faces(seed=1, variants=1, kinds=("1m", "2m"))
    monkeypatch.setattr(tileart, "_load_uncached", lambda style: faces)
    real_save = np.savez_compressed

    def slow_save(file, **arrays):  # both workers have written before either renames
        real_save(file, **arrays)
        time.sleep(0.3)

    monkeypatch.setattr(tileart.np, "savez_compressed", slow_save)
    tileart.load_style.cache_clear()
    # two forked workers and a barrier, nothing more: a Manager's server and a Pool's threads beside a
    # test worker's own made the fork hang once in CI (Pool.terminate waiting on a worker for 120 s)
    ctx = multiprocessing.get_context("fork")
    barrier = ctx.Barrier(2)
    workers = [ctx.Process(target=_load_at_once, args=(barrier, "race-style")) for _ in range(2)]
    for w in workers:
        w.start()
    for w in workers:
        w.join(60)
    assert [w.exitcode for w in workers] == [0, 0]
    left = [p.name for p in (tmp_path / "tablectl" / "tileart").iterdir()]
    assert len(left) == 1 and left[0].startswith("race-style-") and ".tmp" not in left[0]
    tileart.load_style.cache_clear()


def test_a_cache_that_cannot_be_written_or_read_renders_the_faces_again(tmp_path, monkeypatch) -> None:
    """The cache is a convenience: a service user with no usable home (here a cache path under a plain file,
    refused to root too) and a cache file cut short (a card pulled mid-write) both failed the load; they render
    the faces again, and a readable cache is written over the broken one."""
    from vision import tileart

    faces = draw_faces(seed=1, variants=1, kinds=("1m", "2m"))
    rendered: list[str] = []
    monkeypatch.setattr(tileart, "_load_uncached", lambda style: rendered.append(style) or faces)
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("x")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker / "cache"))
    tileart.load_style.cache_clear()
    try:
        assert [f.kind for f in tileart.load_style("cut-style")] == ["1m", "2m"]  # before: NotADirectoryError
        monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
        tileart.load_style.cache_clear()
        tileart.load_style("cut-style")
        [cached] = (tmp_path / "cache" / "tablectl" / "tileart").iterdir()
        cached.write_bytes(cached.read_bytes()[:100])  # cut short
        tileart.load_style.cache_clear()
        assert [f.kind for f in tileart.load_style("cut-style")] == ["1m", "2m"]  # before: BadZipFile
        assert rendered == ["cut-style"] * 3
        tileart.load_style.cache_clear()
        assert np.array_equal(tileart.load_style("cut-style")[0].image, faces[0].image)  # written over: read back
        assert rendered == ["cut-style"] * 3
    finally:
        tileart.load_style.cache_clear()

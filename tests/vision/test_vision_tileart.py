"""Tile art loaders: every set labelled by what is drawn; the reserved styles complete."""

from __future__ import annotations

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

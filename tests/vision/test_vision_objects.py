"""Things on the felt that are not tiles (a hand and arm, a sleeve, a cup, a phone, chips:
`tablesim.scenes.objects`) are not read as tiles. Before (eleventh session) the detector cut them
into tile-sized pieces and the network read some as tiles with confidence: a phantom discard in
the play record, and questions for the referee (`bench/occluders.py` measures it)."""

from __future__ import annotations

import numpy as np
import pytest

import vision.detect as detect
from tablesim.scenes.objects import lay_object, score_readings
from tablesim.scenes.render import SceneOptions, render_scene
from vision.reader import TileReader


@pytest.fixture(scope="module")
def frames(dorothys):
    out = []
    # every kind of object; white sleeves and cups are the ones the network took for tiles
    for seed, what in ((0, "white_sleeve"), (2, "white_sleeve"), (9, "white_sleeve"), (10, "white_sleeve"),
                       (0, "cup"), (3, "cup"), (10, "cup"), (4, "arm"), (5, "phone"), (7, "chips")):
        scene = render_scene(dorothys, seed, SceneOptions(tiles=40))
        img, mask, _ = lay_object(scene.image, np.random.default_rng(seed + 1000), what)
        out.append((scene, img, mask))
    return out


def _phantoms(frames, reader: TileReader) -> tuple[int, int, float, list[tuple[str, ...]]]:
    """(accepted face tiles on objects, readings on objects sent to the referee, recall of the
    uncovered tiles in the zones read, the zones left unread in each frame)."""
    faces = unsure = uncovered = found = 0
    unread = []
    for scene, img, mask in frames:
        reader.calibration = None
        readings = reader.read(img)
        unread.append(reader.occluded)
        score = score_readings(scene.tiles, readings, mask, reader.occluded)
        faces, unsure = faces + score["face"], unsure + score["unsure"]
        uncovered, found = uncovered + score["uncovered"], found + score["found"]
    return faces, unsure, found / uncovered, unread


def test_objects_on_the_felt_are_not_read_as_tiles(frames, reader: TileReader) -> None:
    faces, unsure, recall, unread = _phantoms(frames, reader)
    assert faces == 0 and recall >= 0.9
    assert all(unread[i] for i in (0, 1, 2, 3, 7, 8))  # a sleeve, an arm, a phone: their zones are not read
    reader.calibration = None
    reader.read(frames[0][0].image)
    assert reader.occluded == ()  # the same table without the sleeve: every zone read
    saved, detect.SEAM_MIN = detect.SEAM_MIN, 0.0  # the reader without the seam check
    saved_min, detect.OBJECT_MIN_TILES = detect.OBJECT_MIN_TILES, float("inf")  # ... nor unread zones
    try:
        before, asked, _, _ = _phantoms(frames, reader)
    finally:
        detect.SEAM_MIN, detect.OBJECT_MIN_TILES = saved, saved_min
    assert before >= 6 and asked > 1.5 * unsure  # these frames do show what the checks are for


def test_a_cut_keeps_the_pieces_that_show_seams() -> None:
    pieces = [(24 * i, 24 * i + 24) for i in range(7)]
    seams = np.zeros(24 * 7 + 1)
    assert detect._seamed(pieces, seams) == []  # a sleeve: no seam anywhere
    for _, cut in pieces[:-1]:
        seams[cut] = 20.0
    assert detect._seamed(pieces, seams) == pieces  # a row of seven touching tiles
    seams[72:] = 0.0  # three tiles, then a hand resting against the row: the two clear of it stay
    assert detect._seamed(pieces, seams) == pieces[:2]
    assert detect._seamed(pieces[:1], np.zeros(30)) == pieces[:1]  # one piece needs no seam


def test_a_chip_on_the_felt_is_not_a_tile(dorothys, reader: TileReader) -> None:
    """A scoring chip (a disc about a tile's size) was a single blob the size checks took for a tile,
    and the network read it as one with confidence (here a back; in a hand's play, after rulings,
    faces: a discard recorded that later left). Its round outline now tells it from a tile; the
    tiles around it read as before, and its zone is still read (a chip hides no tile)."""
    import cv2

    scene = render_scene(dorothys, 0, SceneOptions(tiles=40))
    reader.calibration = None
    clean = [(r.kind, np.mean(r.quad, axis=0)) for r in reader.read(cv2.GaussianBlur(scene.image, (3, 3), 0))]
    for spot, zone in (((440, 290), "discard:W"), ((320, 330), "flower:N"), ((840, 290), "discard:S")):
        for colour in ((200, 70, 60), (40, 120, 200)):  # a blue and an orange chip (BGR), as the bench draws them
            img = scene.image.copy()
            cv2.circle(img, spot, 18, colour, -1)
            img = cv2.GaussianBlur(img, (3, 3), 0)
            reader.calibration = None
            readings = reader.read(img)
            on_chip = [r for r in readings if np.linalg.norm(np.mean(r.quad, axis=0) - spot) < 15]
            assert on_chip == [], (spot, colour, [(r.kind, r.confidence, r.accepted) for r in on_chip])
            assert zone not in reader.occluded
            assert len(readings) == len(clean)  # every tile read as without the chip, nothing more
            for kind, c in clean:
                assert any(r.kind == kind and np.linalg.norm(np.mean(r.quad, axis=0) - c) < 3 for r in readings)

"""The reader learns a table's art from the referee's rulings on the tiles it was unsure of."""

from __future__ import annotations

import numpy as np
import pytest
from scene_match import match

from tablesim.scenes.render import SceneOptions, render_scene
from vision.drawn import HELDOUT_FONTS, draw_set
from vision.enroll import EnrollmentError
from vision.reader import LEARN_KEPT, LEARN_UP_TO, TileReader

OPTS = SceneOptions()


@pytest.fixture(scope="module")
def strange_set():
    """A drawn set in typefaces and from a seed no model trains on: art the reader never saw,
    and whose flowers the network alone reads worst (3 of 31 right in the frames below)."""
    return draw_set(seed=777, fonts=HELDOUT_FONTS)


def _right(reader: TileReader, scenes: list) -> tuple[int, int, int]:
    """Flowers read right, other faces read right, faces found in `scenes`."""
    flowers = others = n = 0
    for scene in scenes:
        reader.calibration = None
        for t, r in match(scene.tiles, reader.read(scene.image)):
            if t["kind"] != "back":
                n += 1
                flowers += t["kind"].endswith("f") and r.kind == t["kind"]
                others += not t["kind"].endswith("f") and r.kind == t["kind"]
    return flowers, others, n


def test_rulings_on_unsure_tiles_teach_the_reader_that_art(strange_set) -> None:
    reader = TileReader()
    # the referee rules on every tile of four frames the reader was unsure of
    ruled: set[str] = set()
    for seed in range(1, 5):
        scene = render_scene(strange_set, seed=seed, opts=OPTS)
        reader.calibration = None
        for t, r in match(scene.tiles, reader.read(scene.image)):
            if not r.accepted and t["kind"] != "back":
                reader.learn(reader.examples(scene.image, r.quad), t["kind"], corrected=r.kind != t["kind"])
                ruled.add(t["kind"])
    assert reader.enrollment is not None and set(reader.enrollment.kinds) == ruled
    assert sum(k.endswith("f") for k in ruled) >= 6
    # new frames of the same art: flowers (which no training art predicts) read better than by
    # the network alone, and the kinds nobody ruled on read no worse. Eight frames (56 flowers: 8 -> 26 right
    # here): over four the gain was 14 of 28, and 7 to 11 where a machine's pixels differ by one level (the
    # portability audit's noise runs), at the edge of what is asked
    later = [render_scene(strange_set, seed=s, opts=OPTS) for s in range(50, 58)]
    f0, o0, n = _right(TileReader(), later)
    f1, o1, _ = _right(reader, later)
    assert f1 >= f0 + 10 and o1 >= o0 - 2, (f0, f1, o0, o1, n)


def test_confirmations_stop_adding_once_a_kind_has_enough_but_corrections_always_count(strange_set) -> None:
    reader = TileReader()
    scene = render_scene(strange_set, seed=1, opts=SceneOptions(tiles=12))
    reader.calibration = None
    r = reader.read(scene.image)[0]
    added = [reader.learn(reader.examples(scene.image, r.quad, seed=i), "5f") for i in range(LEARN_UP_TO + 1)]
    assert added == [True] * LEARN_UP_TO + [False]
    assert reader.learn(reader.examples(scene.image, r.quad), "5f", corrected=True)
    with pytest.raises(EnrollmentError):
        reader.learn(reader.examples(scene.image, r.quad), "back")
    assert np.isfinite(reader.enrollment.templates).all()


def test_the_vision_loop_keeps_unsure_tiles_until_the_referee_rules(strange_set, tmp_path) -> None:
    from vision.enroll import Enrollment
    from vision.service import VisionLoop
    from vision.tracker import TileTracker

    scene = render_scene(strange_set, seed=2, opts=SceneOptions(tiles=12))
    reader = TileReader(threshold=0.9999)  # every tile unsure
    loop = VisionLoop(camera=None, reader=reader, tracker=TileTracker(confirm=1),  # type: ignore[arg-type]
                      save_enrollment=tmp_path / "e.npz")
    events = loop.observe(scene.image, reader.read(scene.image))
    unsure = [e for e in events if e.needs_referee]
    assert len(unsure) >= 8
    assert loop.learn(unsure[0].track, "back") == "not a face"
    assert loop.learn(unsure[0].track, "3f") == "gone"  # its crops went with the first ruling
    assert loop.learn(unsure[1].track, "3f", corrected=True) == "learnt"
    assert Enrollment.load(tmp_path / "e.npz").kinds == reader.enrollment.kinds == ["3f"] * 12
    for e in unsure[2:2 + LEARN_UP_TO - 1]:
        assert loop.learn(e.track, "3f") == "learnt"
    assert loop.learn(unsure[2 + LEARN_UP_TO - 1].track, "3f") == "enough"
    assert loop.learn(10_000, "3f") == "gone"


def test_a_day_of_corrections_keeps_the_newest_rulings_of_a_kind_and_the_hand_enrolled(strange_set) -> None:
    """Every correction was learnt and kept all day: each frame's read compares every tile with
    every example, so a referee correcting the camera through a match day slowed every frame
    without end (1,000 corrections: 54 -> 151 ms of CPU a frame). Now a kind keeps its newest
    `LEARN_KEPT` rulings' examples; what was enrolled by hand, and other kinds, stay."""
    reader = TileReader()
    scene = render_scene(strange_set, seed=1, opts=SceneOptions(tiles=12))
    reader.calibration = None
    first, other = reader.read(scene.image)[:2]
    reader.learn(reader.examples(scene.image, other.quad, seed=99), "6f")  # enrolled by hand (no source)
    reader.learn(reader.examples(scene.image, other.quad, seed=98), "7f", corrected=True, source="ruling:1")
    per_ruling = len(reader.examples(scene.image, first.quad).crops)
    for seq in range(2, 2 + 3 * LEARN_KEPT):
        assert reader.learn(reader.examples(scene.image, first.quad, seed=seq), "5f", corrected=True,
                            source=f"ruling:{seq}")
    enrollment = reader.enrollment
    assert enrollment is not None
    kept = [f"ruling:{seq}" for seq in range(2 + 2 * LEARN_KEPT, 2 + 3 * LEARN_KEPT)]
    assert list(dict.fromkeys(s for s, k in zip(enrollment.sources, enrollment.kinds) if k == "5f")) == kept
    assert enrollment.kinds.count("5f") == LEARN_KEPT * per_ruling
    assert enrollment.sources.count("") == per_ruling and enrollment.sources.count("ruling:1") == per_ruling
    assert len(enrollment.templates) == len(enrollment.template_kinds) == len(enrollment.template_sources)
    assert set(enrollment.template_sources) == {"", "ruling:1", *kept}
    assert reader.read(scene.image)  # still reads

"""The reader end to end on rendered frames, with the committed ONNX model (no training here)."""

from __future__ import annotations

import numpy as np
import pytest
from scene_match import match

from tablesim.scenes.render import SceneOptions, render_scene, render_single_tile
from vision.calibrate import Calibration, CalibrationError, calibrate_aruco
from vision.enroll import Enrollment, EnrollmentError, reading_order
from vision.kinds import KIND_INDEX
from vision.model import ModelError, TileClassifier
from vision.reader import ReadError, TileReader

SMALL = SceneOptions(tiles=28)


@pytest.fixture(scope="module")
def scene(dorothys):
    return render_scene(dorothys, seed=11, opts=SMALL)


def test_reads_kinds_rotations_and_zones_of_a_table(reader: TileReader, scene) -> None:
    reader.calibration = None
    readings = reader.read(scene.image)
    faces = [t for t in scene.tiles if t["kind"] != "back"]
    pairs = match(faces, readings)
    assert len(pairs) >= 0.9 * len(faces)
    right = [(t, r) for t, r in pairs if r.kind == t["kind"]]
    assert len(right) >= 0.9 * len(pairs)
    assert np.mean([r.zone == t["zone"] for t, r in pairs]) >= 0.95
    assert np.mean([r.rotation % 180 == t["rotation"] % 180 for t, r in pairs]) >= 0.95
    j = readings[0].to_json()
    assert set(j) >= {"kind", "confidence", "rotation", "quad", "zone", "seat", "accepted"} and len(j["quad"]) == 4


def test_calibration_from_markers_matches_the_scene(scene) -> None:
    cal = calibrate_aruco(scene.image)
    # the plane corners projected by the renderer and by the calibration agree within a pixel
    ours = np.array(cal.corners())
    theirs = np.array([[0, 0], [800, 0], [800, 800], [0, 800]], np.float64)
    import cv2

    truth = cv2.perspectiveTransform(theirs[None], scene.plane_to_image)[0]
    assert np.abs(ours - truth).max() < 2.0
    again = Calibration.from_corners(ours)  # stored corners give the same plane (within 0.5 mm)
    pts = np.array([[[300.0, 200.0], [640.0, 480.0], [1000.0, 800.0]]])
    a = cv2.perspectiveTransform(pts, again.image_to_plane)
    b = cv2.perspectiveTransform(pts, cal.image_to_plane)
    assert np.abs(a - b).max() < 0.5


def test_no_markers_is_a_clear_error_and_single_tile_still_reads(reader: TileReader, dorothys) -> None:
    face = next(f for f in dorothys if f.kind == "7z")
    img = render_single_tile(face.image, seed=3)
    with pytest.raises(CalibrationError, match="markers"):
        TileReader().read(img)
    reading = reader.read_single(img)
    assert reading.kind == "7z"


def test_bad_input_is_rejected_with_a_message(reader: TileReader) -> None:
    with pytest.raises(ReadError, match="not an image"):
        reader.read("frame.jpg")  # type: ignore[arg-type]
    with pytest.raises(ReadError, match="too small"):
        reader.read(np.zeros((4, 4, 3), np.uint8))
    with pytest.raises(ModelError, match="vision train"):
        TileClassifier("/nonexistent/tiles.onnx")
    with pytest.raises(CalibrationError):
        Calibration.from_corners([[0, 0], [1, 1]])


def test_enrollment_pulls_towards_enrolled_examples(reader: TileReader, dorothys) -> None:
    import cv2

    faces = {f.kind: f.image for f in dorothys}
    kinds = ["2m", "3m", "5f", "8f"]  # pairs the network alone finds hard to tell apart
    crops = [cv2.resize(render_single_tile(faces[k], seed=i)[60:240, 40:200], (36, 48)) for i, k in enumerate(kinds)]
    preds = reader.classifier.predict(crops)
    e = Enrollment()
    e.add(preds, kinds)
    for p, k in zip(preds, kinds):
        adapted = e.adapt(p).probs
        assert int(np.argmax(adapted)) == KIND_INDEX[k]
        assert adapted[KIND_INDEX[k]] >= p.probs[KIND_INDEX[k]]
    with pytest.raises(EnrollmentError):
        e.add(preds, ["9s"])


def test_an_enrollment_saved_again_is_whole_or_the_old_one(tmp_path, monkeypatch) -> None:
    """The service saves the enrollment after each ruling it learns from; a write cut short (power, a full
    card) left a truncated file in its place, and the table's enrollment no longer loaded."""
    e = Enrollment(np.eye(3, 128, dtype=np.float32), ["1m", "2m", "3m"])
    e.save(tmp_path / "e.npz")
    real = np.savez_compressed

    def cut_short(file, **arrays):  # half the bytes, then the card is full
        real(file, **arrays)
        file.truncate(file.tell() // 2)
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(np, "savez_compressed", cut_short)
    bigger = Enrollment(np.eye(4, 128, dtype=np.float32), ["1m", "2m", "3m", "4m"])
    with pytest.raises(OSError):
        bigger.save(tmp_path / "e.npz")
    assert Enrollment.load(tmp_path / "e.npz").kinds == ["1m", "2m", "3m"]  # the old one, whole
    assert sorted(p.name for p in tmp_path.iterdir()) == ["e.npz"]  # nothing left half-written
    monkeypatch.setattr(np, "savez_compressed", real)
    bigger.save(tmp_path / "e")  # numpy's own rule: ".npz" added
    assert Enrollment.load(tmp_path / "e.npz").kinds == ["1m", "2m", "3m", "4m"]


def test_enrollment_round_trip_and_reading_order(tmp_path) -> None:
    e = Enrollment(np.eye(3, 128, dtype=np.float32), ["1m", "2m", "3m"])
    e.save(tmp_path / "e.npz")
    back = Enrollment.load(tmp_path / "e.npz")
    assert back.kinds == ["1m", "2m", "3m"] and np.allclose(back.embeddings, e.embeddings)
    with pytest.raises(EnrollmentError, match="not found"):
        Enrollment.load(tmp_path / "missing.npz")
    centres = np.array([[100, 205], [50, 200], [60, 260], [10, 262]], np.float64)
    assert reading_order(centres) == [1, 0, 3, 2]


def test_a_file_that_is_no_enrollment_is_named_so_without_numpys_advice(tmp_path) -> None:
    """A lone array saved as the enrollment (.npy bytes) raised AttributeError ('numpy.ndarray' object has no
    attribute 'files'): a traceback from `tablectl check`; any other bytes got numpy's "If you trust the
    file you can load it unsafely using allow_pickle=" as the reason."""
    np.save(tmp_path / "array.npy", np.zeros(3))
    (tmp_path / "array.npy").rename(tmp_path / "array.npz")
    (tmp_path / "text.npz").write_text("not an enrollment\n", encoding="utf-8")
    for name in ("array.npz", "text.npz"):
        with pytest.raises(EnrollmentError) as err:
            Enrollment.load(tmp_path / name)
        said = str(err.value)
        assert "not an enrollment file" in said and "tablectl vision enroll" in said and "pickle" not in said


def test_symmetric_tiles_take_the_rotation_of_their_seat_zone(reader: TileReader, dorothys) -> None:
    from vision.geometry import PlacedTile, seat_to_plane

    layout = [PlacedTile("5p", *seat_to_plane("W", 400, 200), 180), PlacedTile("8p", *seat_to_plane("S", 400, 200), 90),
              PlacedTile("5z", *seat_to_plane("N", 350, 200), 270)]
    scene = render_scene(dorothys, seed=8, opts=SMALL, tiles=layout)
    reader.calibration = None
    got = {(r.zone, r.rotation, r.seat) for r in reader.read(scene.image)}
    assert got == {("discard:W", 180, "W"), ("discard:S", 90, "S"), ("discard:N", 270, "N")}


def test_batched_enrollment_equals_one_by_one_and_crop_size_follows_the_model(reader: TileReader, dorothys, tmp_path) -> None:
    import shutil

    import cv2

    from vision.model import DEFAULT_MODEL, LEGACY_CROP, model_crop_size

    faces = {f.kind: f.image for f in dorothys}
    kinds = ["1m", "9p", "5s", "6f"]
    crops = [render_single_tile(faces[k], seed=i)[60:240, 40:200] for i, k in enumerate(kinds)]
    crops = [cv2.resize(c, reader.classifier.crop_size) for c in crops]
    preds = reader.classifier.predict(crops)
    e = Enrollment()
    e.add(preds, kinds, crops)
    batch = e.adapt_batch(preds, crops)
    for p, c, b in zip(preds, crops, batch):
        assert np.allclose(e.adapt(p, c).probs, b.probs, atol=1e-5)
    for k, p, b in zip(kinds, preds, batch):  # every enrolled kind gains on its own tile
        assert b.probs[KIND_INDEX[k]] >= p.probs[KIND_INDEX[k]]
    # a model without `crop` in its recipe is a first-generation 36x48 model
    shutil.copy(DEFAULT_MODEL, tmp_path / "m.onnx")
    assert model_crop_size(tmp_path / "m.onnx") == LEGACY_CROP
    assert model_crop_size(DEFAULT_MODEL) == reader.classifier.crop_size


def test_a_partial_enrollment_leaves_the_kinds_nobody_enrolled_to_the_network(reader: TileReader, dorothys) -> None:
    """Tiles the referee confirmed enroll a few kinds only: a tile of another kind keeps the
    network's reading instead of being pulled to the enrolled kind it looks most like."""
    import cv2

    faces = {f.kind: f.image for f in dorothys}
    crop = lambda k, i: cv2.resize(render_single_tile(faces[k], seed=i)[60:240, 40:200], reader.classifier.crop_size)  # noqa: E731
    enrolled = ["6m", "9m", "2f"]
    crops = [crop(k, i) for i, k in enumerate(enrolled)]
    e = Enrollment()
    e.add(reader.classifier.predict(crops), enrolled, crops)
    stranger = crop("8m", 7)  # drawn like 6m and 9m but never enrolled
    p = reader.classifier.predict([stranger])[0]
    assert int(np.argmax(p.probs)) == KIND_INDEX["8m"]
    q = e.adapt(p, stranger).probs
    assert q[KIND_INDEX["8m"]] == pytest.approx(p.probs[KIND_INDEX["8m"]]) and int(np.argmax(q)) == KIND_INDEX["8m"]
    assert q.sum() == pytest.approx(1.0)
    own = e.adapt(reader.classifier.predict([crops[0]])[0], crops[0]).probs  # an enrolled kind still gains
    assert int(np.argmax(own)) == KIND_INDEX["6m"]


def test_templates_match_a_tile_whose_corners_were_found_a_few_pixels_off(dorothys) -> None:
    """Corners found in a row of touching tiles are off by a few millimetres: the template is
    matched at every small shift, so the same face still matches itself best."""
    import cv2

    from vision.enroll import TEMPLATE_SHIFT, shifted_windows, template

    faces = {f.kind: f.image for f in dorothys}
    tile = render_single_tile(faces["5f"], seed=3)[60:240, 40:200]
    crop = cv2.resize(tile, (48, 64), interpolation=cv2.INTER_AREA)
    # the same tile cut 2 px (at template scale: 4 px here) to the right and down
    off = cv2.warpAffine(crop, np.float32([[1, 0, -4], [0, 1, -4]]), (48, 64), borderMode=cv2.BORDER_REPLICATE)
    other = cv2.resize(render_single_tile(faces["6f"], seed=3)[60:240, 40:200], (48, 64), interpolation=cv2.INTER_AREA)
    t = template(crop)
    win = shifted_windows([off, other])
    assert win.shape[1] == (2 * TEMPLATE_SHIFT + 1) ** 2
    best_self, best_other = (win[0] @ t).max(), (win[1] @ t).max()
    assert best_self > 0.97 > template(off) @ t  # the plain template alone loses the match
    assert best_self > best_other + 0.05


def test_enrollment_files_keep_their_templates_and_older_files_load_without_them(reader: TileReader, dorothys, tmp_path) -> None:
    import cv2

    faces = {f.kind: f.image for f in dorothys}
    kinds = ["1m", "5f"]
    crops = [cv2.resize(render_single_tile(faces[k], seed=i)[60:240, 40:200], reader.classifier.crop_size) for i, k in enumerate(kinds)]
    e = Enrollment()
    e.add(reader.classifier.predict(crops), kinds, crops, templated=[True, False])
    assert e.template_kinds == ["1m"] and len(e) == 2
    e.save(tmp_path / "e.npz")
    back = Enrollment.load(tmp_path / "e.npz")
    assert back.template_kinds == ["1m"] and np.allclose(back.templates, e.templates)
    np.savez_compressed(tmp_path / "old.npz", embeddings=e.embeddings, kinds=np.array(e.kinds),
                        templates=np.zeros((2, 24 * 32 * 3), np.float32))
    old = Enrollment.load(tmp_path / "old.npz")
    assert old.kinds == kinds and old.template_kinds == [] and len(old.templates) == 0


def test_examples_from_one_ruling_can_be_forgotten_and_sources_survive_a_file(reader: TileReader, dorothys, tmp_path) -> None:
    import cv2

    faces = {f.kind: f.image for f in dorothys}
    crops = [cv2.resize(render_single_tile(faces[k], seed=i)[60:240, 40:200], reader.classifier.crop_size)
             for i, k in enumerate(["1m", "5f", "5f"])]
    preds = reader.classifier.predict(crops)
    e = Enrollment()
    e.add(preds[:1], ["1m"], crops[:1])  # laid out by hand
    e.add(preds[1:2], ["5f"], crops[1:2], source="ruling:12")
    e.add(preds[2:], ["5f"], crops[2:], source="ruling:13")
    e.save(tmp_path / "e.npz")
    back = Enrollment.load(tmp_path / "e.npz")
    assert back.sources == ["", "ruling:12", "ruling:13"] and back.template_sources == back.sources
    assert back.remove("ruling:12") == 1 and back.remove("ruling:12") == 0
    assert back.kinds == ["1m", "5f"] and back.template_kinds == ["1m", "5f"] and len(back.templates) == 2
    assert np.allclose(back.embeddings[1], e.embeddings[2]) and back.sources == ["", "ruling:13"]


def test_unsure_tiles_get_a_second_look_turned_half_round_and_sure_ones_do_not(scene) -> None:
    from vision.detect import cut_crop
    from vision.model import average

    one = TileReader(second_look_below=None)
    two = TileReader(second_look_below=0.9)
    crops = [cut_crop(scene.image, np.array(r.quad, np.float32)) for r in one.read(scene.image)]
    first = one.classify(crops)
    turned = one.classifier.predict_turned(crops)
    # the turned look is the network on the crop turned round, told back in the crop's own frame
    again = one.classifier.predict([np.ascontiguousarray(c[::-1, ::-1]) for c in crops])
    assert np.allclose([t.upside for t in turned], [1 - a.upside for a in again], atol=1e-6)
    assert np.allclose(turned[0].probs, again[0].probs, atol=1e-6)
    # the second look is taken by the network the model's recipe names (trained otherwise)
    assert two.second.path.name == "tiles-second.onnx" and two.second is not two.classifier
    second = two.second.predict_turned(crops)
    looked = two.classify(crops)
    unsure = [float(p.probs.max()) < 0.9 for p in first]
    assert any(unsure) and not all(unsure)
    for p1, pt, p2, u in zip(first, second, looked, unsure):
        want = average(p1, pt) if u else p1
        assert np.allclose(p2.probs, want.probs, atol=1e-6) and abs(p2.upside - want.upside) < 1e-6
        assert np.array_equal(p2.embedding, p1.embedding)  # enrollments compare the first look
    # upright tiles stay upright after both looks: the turned look's vote is turned back
    asym = [i for i, p in enumerate(first) if abs(p.upside - 0.5) > 0.45 and unsure[i]]
    assert asym and all((looked[i].upside > 0.5) == (first[i].upside > 0.5) for i in asym)
    # enrolled: the second look is blended with the same likeness to the enrolled tiles
    e = Enrollment()
    e.add(one.classifier.predict(crops[:6]), [r.kind for r in one.read(scene.image)][:6], crops[:6])
    two.enrollment = one.enrollment = e
    adapted = one.classify(crops)
    looked = two.classify(crops)
    unsure = [float(p.probs.max()) < 0.9 for p in adapted]
    assert any(unsure)
    for i, u in enumerate(unsure):
        want = e.adapt(average(first[i], second[i]), crops[i]) if u else adapted[i]
        assert np.allclose(looked[i].probs, want.probs, atol=1e-5)


def test_a_model_whose_recipe_names_no_second_network_looks_again_itself(tmp_path) -> None:
    import json
    import shutil

    from vision.model import DEFAULT_MODEL, second_look_model

    own = tmp_path / "own.onnx"
    shutil.copy(DEFAULT_MODEL, own)
    recipe = json.loads(DEFAULT_MODEL.with_suffix(".json").read_text())
    recipe.pop("second_look")
    own.with_suffix(".json").write_text(json.dumps(recipe))
    assert second_look_model(own) is None and second_look_model(DEFAULT_MODEL).name == "tiles-second.onnx"
    reader = TileReader(own)
    assert reader.second is reader.classifier and reader.threshold == recipe["threshold"]


def test_a_discard_laid_sideways_in_its_row_reads_as_sideways(dorothys) -> None:
    """Riichi's 立直 discard lies across its row among upright ones: it is cut out of the row as a
    tile of its own and read lying across the seat of its zone; its neighbours are not."""
    from tablesim.felt import FeltCamera
    from vision.tracker import sideways

    reader = TileReader()  # its own: the session's reader is enrolled by other tests
    felt = FeltCamera(dorothys, seed=3)
    for i, kind in enumerate(["1m", "5p", "9s", "3z", "7m", "2p"]):
        felt.lay("discard", "S", kind, sideways=i == 3)
    scene = felt.scene()
    turned = next(t for t in scene.tiles if t["kind"] == "3z")
    centre = np.asarray(turned["quad"], dtype=float).mean(axis=0)
    readings = reader.read(felt.frame())
    pool = [r for r in readings if r.zone == "discard:S"]
    assert len(pool) == 6
    near = min(pool, key=lambda r: float(np.linalg.norm(np.asarray(r.quad, dtype=float).mean(axis=0) - centre)))
    assert sideways(near) and near.kind == "3z"
    assert sum(sideways(r) for r in pool) == 1

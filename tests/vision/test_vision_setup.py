"""A table maker installs the camera, following docs/vision.md: `tablectl vision` run as a real
process on the pictures a technician would take (and the virtual camera over real HTTP)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np

from tablesim.scenes.render import SceneOptions, render_scene, render_single_tile

from table_controller.tournament.broker import free_port as _free_port


def tablectl(*args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    """`tablectl ARGS...` as the technician runs it: its own process, its exit code and words."""
    return subprocess.run([sys.executable, "-m", "table_controller.cli", *args], capture_output=True, text=True,
                          timeout=timeout, check=False)


def test_read_refuses_a_table_frame_it_cannot_locate_and_still_reads_a_close_up(tmp_path: Path, dorothys) -> None:
    """A table frame whose felt the reader cannot locate (no markers on this table, or the camera out
    of focus) was read as ONE tile, the whole picture, exit 0 ("1 tile: 6z 0.34"); now it is refused
    with what to do (--corners, `vision corners`). A close-up of one tile is still read as one."""
    frame = tmp_path / "frame.jpg"
    scene = render_scene(dorothys, seed=5, opts=SceneOptions(markers=False))
    cv2.imwrite(str(frame), scene.image)
    blurred = tmp_path / "blurred.jpg"
    cv2.imwrite(str(blurred), cv2.GaussianBlur(render_scene(dorothys, seed=5, opts=SceneOptions()).image, (0, 0), 6))
    for picture in (frame, blurred):
        out = tablectl("vision", "read", str(picture), "--json")
        assert out.returncode == 1 and out.stdout == "", (out.stdout[:300], out.stderr)
        assert "--corners" in out.stderr and "单张牌" in out.stderr and "Traceback" not in out.stderr
    face = next(f for f in dorothys if f.kind == "9p")
    close_up = tmp_path / "tile.png"
    cv2.imwrite(str(close_up), render_single_tile(face.image, 8))
    one = tablectl("vision", "read", str(close_up), "--json")
    assert one.returncode == 0, one.stderr
    assert [t["kind"] for t in json.loads(one.stdout)["tiles"]] == ["9p"]
    located = tablectl("vision", "read", str(frame), "--json", "--corners",
                       ";".join(f"{x},{y}" for x, y in _felt_corners(scene)))
    assert located.returncode == 0 and len(json.loads(located.stdout)["tiles"]) >= 70


def _felt_corners(scene) -> list[tuple[float, float]]:  # type: ignore[no-untyped-def]
    """The felt's corners in a rendered frame, clockwise from W's left (what `vision corners` finds)."""
    mm = np.float32([[[0, 0], [800, 0], [800, 800], [0, 800]]])
    return [(round(float(x), 1), round(float(y), 1)) for x, y in cv2.perspectiveTransform(mm.astype(np.float64),
                                                                                          scene.plane_to_image)[0]]


def test_a_table_without_markers_enrolls_with_its_corners(tmp_path: Path, dorothys) -> None:
    """`tablectl vision enroll` calibrated each frame from its markers only: a table without them (the
    stored-corners case docs/vision.md describes) could not enroll at all ("saw 0 of the 4 corner
    markers"). `--corners` now does for enroll what it does for read; without it the refusal names it."""
    from tablesim.scenes.render import enrollment_layout
    from vision.enroll import Enrollment
    from vision.kinds import FACE_KINDS

    scene = render_scene(dorothys, seed=21, opts=SceneOptions(markers=False), tiles=enrollment_layout(FACE_KINDS))
    frame = tmp_path / "laid.jpg"
    cv2.imwrite(str(frame), scene.image)
    out = tmp_path / "table.npz"
    without = tablectl("vision", "enroll", str(frame), "--out", str(out))
    assert without.returncode == 1 and "--corners" in without.stderr and not out.exists()
    corners = ";".join(f"{x},{y}" for x, y in _felt_corners(scene))
    done = tablectl("vision", "enroll", str(frame), "--out", str(out), "--corners", corners)
    assert done.returncode == 0, done.stderr
    assert Enrollment.load(out).kinds_covered() == set(FACE_KINDS)
    crossed = tablectl("vision", "enroll", str(frame), "--out", str(tmp_path / "x.npz"), "--corners",
                       "100,100;1100,800;1100,100;100,800")
    assert crossed.returncode == 1 and "cross or fold in" in crossed.stderr


def test_enroll_refuses_a_layout_the_network_contradicts_and_keeps_the_file(tmp_path: Path, dorothys) -> None:
    """One kind laid twice and its neighbour missing (1m 1m 3m …), or a tile face down, was enrolled
    without a word: 42 tiles, "504 examples of 42 kinds", the missing kind's examples those of
    another, and every such tile read wrong from then on. Now refused, naming the tile, the file
    already there left as it was; `--laid-in-order` takes a layout the technician vouches for."""
    from tablesim.scenes.render import enrollment_layout
    from vision.kinds import FACE_KINDS

    def laid(kinds: list[str], name: str) -> str:
        path = tmp_path / name
        scene = render_scene(dorothys, seed=21, opts=SceneOptions(), tiles=enrollment_layout(kinds))
        cv2.imwrite(str(path), scene.image)
        return str(path)

    out = tmp_path / "table.npz"
    right = tablectl("vision", "enroll", laid(list(FACE_KINDS), "right.jpg"), "--out", str(out))
    assert right.returncode == 0, right.stderr
    before = out.read_bytes()
    twice = list(FACE_KINDS)
    twice[1] = "1m"  # 一万 twice, no 二万
    refused = tablectl("vision", "enroll", laid(twice, "twice.jpg"), "--out", str(out))
    assert refused.returncode == 1, refused.stdout
    assert f"twice.jpg: 摆放与识别不符：第 2 张应为二万（2m），看来是一万" in refused.stderr, refused.stderr
    assert "第 1 张已是一万" in refused.stderr and out.read_bytes() == before
    face_down = list(FACE_KINDS)
    face_down[12] = "back"  # 四筒 laid face down
    down = tablectl("vision", "enroll", laid(face_down, "down.jpg"), "--out", str(tmp_path / "down.npz"),
                    "--kinds", ",".join(FACE_KINDS))
    assert down.returncode == 1 and "第 13 张应为四筒（4p），看来是牌背" in down.stderr, down.stderr
    assert not (tmp_path / "down.npz").exists()
    vouched = tablectl("vision", "enroll", str(tmp_path / "twice.jpg"), "--out", str(tmp_path / "v.npz"),
                       "--laid-in-order")
    assert vouched.returncode == 0, vouched.stderr


def test_from_the_virtual_camera_to_tiles_read_as_docs_vision_says(tmp_path: Path) -> None:
    """The walk a technician makes with the simulator's camera standing in for the table's: the camera
    shows the 42 kinds laid out on a felt without markers (`vision camera --layout enroll
    --no-markers`: before, it showed only a table in play, with markers, so neither enrolling nor a
    table without markers could be tried), `vision grab` takes a frame over HTTP and checks it (the
    docs said "capture a frame" and named no way to), `vision corners` finds the felt, `vision
    enroll --corners` learns the tiles, `vision read --corners --json` reads all 42 right; with the
    camera gone, `grab` says there is no picture."""
    port = _free_port()
    url = f"http://127.0.0.1:{port}/stream.mjpg"
    camera = subprocess.Popen([sys.executable, "-m", "table_controller.cli", "vision", "camera", "--style",
                               "xmahjongg-dorothys", "--port", str(port), "--layout", "enroll", "--no-markers"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert camera.stdout is not None
        assert camera.stdout.readline().startswith(f"虚拟摄像头 {url}"), camera.stderr.read()
        frame = tmp_path / "frame.jpg"
        grabbed = tablectl("vision", "grab", url, str(frame))
        assert grabbed.returncode == 0, grabbed.stderr
        assert "1280×960, 摄像头正常" in grabbed.stdout and "corner markers: 0 of 4" in grabbed.stdout
        found = tablectl("vision", "corners", str(frame), "--json")
        assert found.returncode == 0, found.stderr
        corners = ";".join(f"{x},{y}" for x, y in json.loads(found.stdout)["corners"])
        enrolled = tablectl("vision", "enroll", str(frame), "--out", str(tmp_path / "table.npz"), "--corners", corners)
        assert enrolled.returncode == 0 and "42 tiles enrolled" in enrolled.stdout, enrolled.stderr
        read = tablectl("vision", "read", str(frame), "--corners", corners, "--enrollment", str(tmp_path / "table.npz"),
                        "--json")
        assert read.returncode == 0, read.stderr
        tiles = json.loads(read.stdout)["tiles"]
        from vision.kinds import FACE_KINDS

        assert sorted(t["kind"] for t in tiles) == sorted(FACE_KINDS) and all(t["accepted"] for t in tiles)
    finally:
        camera.terminate()
        camera.wait(timeout=10)
    gone = tablectl("vision", "grab", url, str(tmp_path / "again.jpg"))
    assert gone.returncode == 1 and "没有画面（" in gone.stderr and "/ no picture (" in gone.stderr
    assert not (tmp_path / "again.jpg").exists()


def test_grab_says_what_is_wrong_with_the_picture(tmp_path: Path, dorothys) -> None:
    """A dark room or a tile box over two corner markers: the frame is written to look at, and the
    technician is told why it will not do (too dark: exit 1; markers: how many are seen and what to do)."""
    from tablesim.scenes.camera import VirtualCamera, scene_source

    source = scene_source(list(dorothys), seed=5, opts=SceneOptions())
    with VirtualCamera(source, fps=20) as cam:
        cam.dark = True
        dark = tablectl("vision", "grab", cam.url, str(tmp_path / "dark.jpg"))
        assert dark.returncode == 1 and "光线太暗" in dark.stdout and (tmp_path / "dark.jpg").exists()
    covered = render_scene(dorothys, seed=5, opts=SceneOptions()).image
    covered[:, :330] = (40, 40, 150)  # a tile box along W's and N's corners
    with VirtualCamera(lambda: covered, fps=20) as cam:
        boxed = tablectl("vision", "grab", cam.url, str(tmp_path / "boxed.jpg"))
    assert boxed.returncode == 0 and "corner markers: 2 of 4" in boxed.stdout and "清空四角" in boxed.stdout


def test_the_corners_vision_corners_prints_are_what_corners_takes(tmp_path: Path, dorothys) -> None:
    """`vision corners` prints the list for the config ("corners = [[x, y], ...]"); `read --corners` and
    `enroll --corners` took only 'x,y;x,y;…' and refused the pasted line as not in their form."""
    frame = tmp_path / "frame.jpg"
    cv2.imwrite(str(frame), render_scene(dorothys, seed=5, opts=SceneOptions(markers=False)).image)
    printed = tablectl("vision", "corners", str(frame))
    assert printed.returncode == 0, printed.stderr
    line = next(x for x in printed.stdout.splitlines() if x.startswith("corners = "))
    for pasted in (line, line.removeprefix("corners = ")):
        read = tablectl("vision", "read", str(frame), "--corners", pasted, "--json")
        assert read.returncode == 0, read.stderr
        assert len(json.loads(read.stdout)["tiles"]) >= 70
    wrong = tablectl("vision", "read", str(frame), "--corners", "[[1, 2], [3, 4], [5]]")
    assert wrong.returncode == 1 and "four points" in wrong.stderr and "Traceback" not in wrong.stderr


def test_markers_lost_to_focus_or_framing_say_so(dorothys) -> None:
    """A camera out of focus loses every marker as a tile box over them does; the display said only
    "请勿遮挡台面四角" (do not cover the corners), sending the technician to look for a box that is not
    there. It now names the focus and the framing too, Chinese first."""
    from vision.calibrate import CalibrationError, calibrate_aruco

    blurred = cv2.GaussianBlur(render_scene(dorothys, seed=5, opts=SceneOptions()).image, (0, 0), 6)
    try:
        calibrate_aruco(blurred)
    except CalibrationError as exc:
        said = str(exc)
    else:
        raise AssertionError("markers found in a picture this blurred")
    assert said.startswith("只看到 0 个台角标记") and "对焦" in said and "画面中" in said
    assert "focus" in said and "in view" in said


def test_a_dark_or_glaring_picture_is_told_as_such(tmp_path: Path, dorothys) -> None:
    """A frame taken with the lights low: `read` said "no tiles found", `corners` "no felt found whole"
    and `enroll` "saw 0 tiles on the felt", each sending the technician after the wrong thing, while
    the service itself reads nothing in such light (光线太暗). Each now says what the display would."""
    from tablesim.scenes.render import enrollment_layout
    from vision.kinds import FACE_KINDS

    scene = render_scene(dorothys, seed=5, opts=SceneOptions())
    dark = tmp_path / "dark.jpg"
    cv2.imwrite(str(dark), (scene.image * 0.08).astype(np.uint8))
    for args in (("read", str(dark)), ("corners", str(dark))):
        out = tablectl("vision", *args)
        assert out.returncode == 1 and "光线太暗" in out.stderr and "light the table" in out.stderr, out.stderr
    laid = render_scene(dorothys, seed=21, opts=SceneOptions(), tiles=enrollment_layout(FACE_KINDS)).image
    cv2.imwrite(str(dark), (laid * 0.08).astype(np.uint8))
    enroll = tablectl("vision", "enroll", str(dark), "--out", str(tmp_path / "t.npz"))
    assert enroll.returncode == 1 and "光线太暗" in enroll.stderr and not (tmp_path / "t.npz").exists()
    glare = tmp_path / "glare.jpg"
    cv2.imwrite(str(glare), np.clip(scene.image.astype(np.int16) + 160, 0, 255).astype(np.uint8))
    out = tablectl("vision", "read", str(glare))
    assert out.returncode == 1 and "反光太强" in out.stderr, out.stderr


def test_a_damaged_enrollment_file_is_an_error_not_a_traceback_nor_a_dead_camera(tmp_path: Path) -> None:
    """An enrollment file cut short or damaged raised zipfile's BadZipFile (or EOFError when empty):
    a traceback from `vision read --enrollment` and `vision enroll --out`, and in the service a
    damaged camera-learned.npz stopped the camera for the day (识牌模型不可用), where the docs say
    learning starts afresh. Now it is EnrollmentError: named, and the camera goes on."""
    from table_controller.camera import vision_loop_factory

    damaged, empty = tmp_path / "damaged.npz", tmp_path / "empty.npz"
    damaged.write_bytes(b"PK\x03\x04 cut short")
    empty.write_bytes(b"")
    picture = tmp_path / "tile.png"
    cv2.imwrite(str(picture), np.full((300, 240, 3), 120, np.uint8))
    for bad in (damaged, empty):
        out = tablectl("vision", "read", str(picture), "--enrollment", str(bad))
        assert out.returncode == 1 and "is unreadable" in out.stderr and "Traceback" not in out.stderr, out.stderr
    out = tablectl("vision", "enroll", str(picture), "--out", str(damaged))
    assert out.returncode == 1 and "is unreadable" in out.stderr and "Traceback" not in out.stderr, out.stderr
    loop = vision_loop_factory("http://127.0.0.1:9/none", None, None, None, learned_file=damaged)()
    try:
        assert loop.reader.enrollment is None  # learning starts afresh
    finally:
        loop.camera.close()


def test_the_check_before_the_match_fails_an_enrollment_the_service_cannot_load(tmp_path: Path, dorothys) -> None:
    """`[camera] enrollment` misspelt or the file damaged: `tablectl check` said 可以开赛 / ready, and the
    service then had no reader at all (识牌模型不可用): the camera read nothing all match. The check
    now fails it, taking the path beside the config file as the service does; a good one passes."""
    from table_controller.config import load_config
    from table_controller.preflight import check_camera
    from tablesim.scenes.camera import VirtualCamera, scene_source
    from vision.enroll import Enrollment

    Enrollment().save(tmp_path / "table.npz")
    (tmp_path / "damaged.npz").write_bytes(b"PK\x03\x04 not an npz")
    with VirtualCamera(scene_source(list(dorothys), seed=5, opts=SceneOptions()), fps=20) as cam:
        def finding(enrollment: str):  # type: ignore[no-untyped-def]
            path = tmp_path / "table.toml"
            path.write_text(f'[camera]\nsource = "{cam.url}"\nenrollment = "{enrollment}"\n', encoding="utf-8")
            return check_camera(load_config(path))

        assert finding("table.npz").level == "ok"
        for wrong, said in (("tabel.npz", "not found"), ("damaged.npz", "unreadable")):
            found = finding(wrong)
            assert found.level == "fail" and said in found.detail and "牌样" in found.detail, found


def test_the_check_before_the_match_fails_a_camera_that_cannot_locate_the_table(tmp_path: Path, dorothys) -> None:
    """No `[camera] corners` and no corner marker in view (a table without markers whose corners were
    never stored, or a tile box over them): `tablectl check` said "picture fine", ready, and the
    service read nothing all match. It fails now; one or two markers seen warn; four pass."""
    from table_controller.config import load_config
    from table_controller.preflight import check_camera
    from tablesim.scenes.camera import VirtualCamera

    plain = render_scene(dorothys, seed=5, opts=SceneOptions(markers=False)).image
    marked = render_scene(dorothys, seed=5, opts=SceneOptions()).image
    half = marked.copy()
    half[:, :330] = (40, 40, 150)  # a tile box along the left side: two markers left
    shown = [plain]
    with VirtualCamera(lambda: shown[0], fps=20) as cam:
        path = tmp_path / "table.toml"
        path.write_text(f'[camera]\nsource = "{cam.url}"\n', encoding="utf-8")

        def finding(frame):  # type: ignore[no-untyped-def]
            shown[0] = frame
            return check_camera(load_config(path))

        none = finding(plain)
        assert none.level == "fail" and "no corner marker" in none.detail and "vision corners" in none.detail, none
        two = finding(half)
        assert two.level == "warn" and "only 2 of the 4" in two.detail, two
        assert finding(marked).level == "ok"


def test_enroll_names_the_frame_that_failed_and_says_nothing_was_written(tmp_path: Path, dorothys) -> None:
    """`enroll a.jpg b.jpg`: a.jpg printed "42 tiles enrolled", then b.jpg (a tile knocked off the
    row) failed with "saw 41 tiles…", naming no frame, and a.jpg's work was gone without a word.
    The refusal now names b.jpg and says that nothing was written, a.jpg included."""
    from tablesim.scenes.render import enrollment_layout
    from vision.kinds import FACE_KINDS

    first, second = tmp_path / "a.jpg", tmp_path / "b.jpg"
    cv2.imwrite(str(first), render_scene(dorothys, seed=21, opts=SceneOptions(),
                                         tiles=enrollment_layout(FACE_KINDS)).image)
    cv2.imwrite(str(second), render_scene(dorothys, seed=22, opts=SceneOptions(),
                                          tiles=enrollment_layout(FACE_KINDS)[:41]).image)
    out = tmp_path / "table.npz"
    run = tablectl("vision", "enroll", str(first), str(second), "--out", str(out))
    assert run.returncode == 1 and f"{first}: 已学 42 张牌 / 42 tiles enrolled" in run.stdout
    assert f"{second}: 此画面不能用 / saw 41 tiles" in run.stderr, run.stderr
    assert f"nothing written to {out}; {first} not kept either" in run.stderr and not out.exists()


def test_a_camera_that_sees_the_felt_too_coarsely_is_told(tmp_path: Path, dorothys) -> None:
    """A camera left at 640×480 sees the felt at ~0.5 px/mm, under what the reader is made for: it read
    71-75 of 80 tiles right and accepted only 17-30 (the referee asked about the rest) while
    `tablectl check` said "picture fine" and nothing else said a word. `check` warns now, `grab`
    prints the felt's resolution and the warning, `corners` the warning beside the corners."""
    from table_controller.config import load_config
    from table_controller.preflight import check_camera
    from tablesim.scenes.camera import VirtualCamera

    small = render_scene(dorothys, seed=4, opts=SceneOptions(size=(640, 480))).image
    large = render_scene(dorothys, seed=4, opts=SceneOptions()).image
    shown = [small]
    with VirtualCamera(lambda: shown[0], fps=20) as cam:
        path = tmp_path / "table.toml"
        path.write_text(f'[camera]\nsource = "{cam.url}"\n', encoding="utf-8")
        coarse = check_camera(load_config(path))
        assert coarse.level == "warn" and "px/mm" in coarse.detail and "higher resolution" in coarse.detail, coarse
        grabbed = tablectl("vision", "grab", cam.url, str(tmp_path / "small.jpg"))
        assert grabbed.returncode == 0 and "台面清晰度不足" in grabbed.stdout, grabbed.stdout
        shown[0] = large
        assert check_camera(load_config(path)).level == "ok"
        grabbed = tablectl("vision", "grab", cam.url, str(tmp_path / "large.jpg"))
    assert "felt resolution: " in grabbed.stdout and "不足" not in grabbed.stdout, grabbed.stdout
    bare = tmp_path / "bare.jpg"
    cv2.imwrite(str(bare), render_scene(dorothys, seed=4, opts=SceneOptions(size=(640, 480), markers=False)).image)
    corners = tablectl("vision", "corners", str(bare))
    assert corners.returncode == 0 and "corners = " in corners.stdout and "px/mm" in corners.stderr, corners


def test_the_virtual_camera_shows_both_layouts_on_one_table_under_one_camera(tmp_path: Path) -> None:
    """`vision camera --layout enroll` and `--layout play` of one seed were two tables under two camera
    poses (the layout drew from the seed the pose and the felt came from): corners found on the
    enrollment frame lay 56 mm off the table in play, and `tablectl check` said the camera had moved.
    Both are now one felt under one camera: the corners agree and the check passes."""
    from table_controller.config import load_config
    from table_controller.preflight import check_camera

    found = []
    for layout in ("enroll", "play"):
        port = _free_port()
        url = f"http://127.0.0.1:{port}/stream.mjpg"
        camera = subprocess.Popen([sys.executable, "-m", "table_controller.cli", "vision", "camera", "--style",
                                   "xmahjongg-dorothys", "--port", str(port), "--layout", layout, "--no-markers",
                                   "--seed", "5"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            assert camera.stdout is not None and camera.stdout.readline().startswith("虚拟摄像头 http://")
            frame = tmp_path / f"{layout}.jpg"
            assert tablectl("vision", "grab", url, str(frame)).returncode == 0
            corners = tablectl("vision", "corners", str(frame), "--json")
            assert corners.returncode == 0, corners.stderr
            found.append(json.loads(corners.stdout))
            if layout == "play":  # the corners stored from the enrollment frame, checked on the table in play
                path = tmp_path / "table.toml"
                path.write_text(f'[camera]\nsource = "{url}"\ncorners = {found[0]["corners"]}\n'
                                f'corners_size = {found[0]["corners_size"]}\n', encoding="utf-8")
                checked = check_camera(load_config(path))
                assert checked.level == "ok", checked
        finally:
            camera.terminate()
            camera.wait(timeout=10)
    assert np.abs(np.array(found[0]["corners"]) - np.array(found[1]["corners"])).max() < 3


def test_enroll_out_without_npz_names_the_file_written_and_extends_it(tmp_path: Path, dorothys) -> None:
    """`enroll --out table` wrote table.npz and said "wrote table"; `[camera] enrollment = "table"` then
    named no file, and a second `enroll --out table` did not see table.npz, started afresh and
    overwrote it (504 examples, not 1008). The name written is said, and the file extended."""
    from tablesim.scenes.render import enrollment_layout
    from vision.kinds import FACE_KINDS

    frame = tmp_path / "laid.jpg"
    cv2.imwrite(str(frame), render_scene(dorothys, seed=21, opts=SceneOptions(),
                                         tiles=enrollment_layout(FACE_KINDS)).image)
    first = tablectl("vision", "enroll", str(frame), "--out", str(tmp_path / "table"))
    assert first.returncode == 0 and f"wrote {tmp_path / 'table.npz'}: 504 examples" in first.stdout, first
    again = tablectl("vision", "enroll", str(frame), "--out", str(tmp_path / "table"))
    assert again.returncode == 0 and f"wrote {tmp_path / 'table.npz'}: 1008 examples" in again.stdout, again
    assert not (tmp_path / "table").exists()


def test_a_camera_mounted_the_wrong_way_round_is_caught_at_enrollment(tmp_path: Path, dorothys) -> None:
    """A table without markers whose camera is mounted with E's side at the top: `vision corners` takes
    W's side at the top, so the tiles read in reverse and upside down. Enrolled before without a word
    (1m's examples were 8f's …); now refused, most tiles named, with the camera's orientation to check."""
    from tablesim.scenes.render import enrollment_layout
    from vision.kinds import FACE_KINDS

    laid = render_scene(dorothys, seed=21, opts=SceneOptions(markers=False), tiles=enrollment_layout(FACE_KINDS))
    frame = tmp_path / "turned.jpg"
    cv2.imwrite(str(frame), cv2.rotate(laid.image, cv2.ROTATE_180))
    found = tablectl("vision", "corners", str(frame), "--json")
    assert found.returncode == 0, found.stderr
    corners = json.dumps(json.loads(found.stdout)["corners"])
    out = tablectl("vision", "enroll", str(frame), "--out", str(tmp_path / "t.npz"), "--corners", corners)
    assert out.returncode == 1 and "第 1 张应为一万（1m）" in out.stderr and "画面下方" in out.stderr, out.stderr
    assert not (tmp_path / "t.npz").exists()

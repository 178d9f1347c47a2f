"""The virtual MJPEG camera opened by cv2.VideoCapture, and `tablectl vision` on files."""

from __future__ import annotations

import json

import cv2
import pytest

from table_controller.cli import main
from tablesim.scenes.camera import VirtualCamera, scene_source
from tablesim.scenes.render import SceneOptions, render_scene, render_single_tile
from vision.health import CameraHealth


def test_virtual_camera_streams_and_unplugs(dorothys) -> None:
    source = scene_source(list(dorothys), seed=2, opts=SceneOptions(size=(320, 240), tiles=6))
    health = CameraHealth(unplugged_after=2)
    with VirtualCamera(source, fps=30) as cam:
        cap = cv2.VideoCapture(cam.url)
        ok, frame = cap.read()
        assert ok and frame.shape == (240, 320, 3)
        assert health.check(frame).ok
        cam.unplugged = True
        statuses = []
        for _ in range(60):  # frames already on their way still come (a loaded machine reads them late)
            ok, frame = cap.read()
            statuses.append(health.check(frame if ok else None).code)
            if statuses[-1] == "unplugged":
                break
        cap.release()
    assert statuses[-1] == "unplugged"


def test_a_virtual_camera_stops_at_once() -> None:
    """`stop()` waits for the server's next look (`POLL_S`): http.server's 0.5 s was spent on every stop,
    each service with the demo's camera and each reconnect of bench/camera_long, ~0.45 s after a start."""
    import time

    import numpy as np

    took = []
    for _ in range(3):
        cam = VirtualCamera(lambda: np.zeros((240, 320, 3), np.uint8)).start()
        time.sleep(0.05)  # the server in its wait
        started = time.monotonic()
        cam.stop()
        took.append(time.monotonic() - started)
    assert max(took) < 0.25, took


def test_a_virtual_camera_sends_the_frames_a_second_it_says_however_long_a_frame_takes() -> None:
    """Paced by deadline: it slept 1/fps after rendering each frame, so a 5 fps camera whose frame took
    0.12 s sent one every 0.32 s (a "10 fps" camera over the demo's large scenes sent ~3 a second)."""
    import http.client
    import time

    import numpy as np

    rendered: list[float] = []

    def slow() -> np.ndarray:
        time.sleep(0.12)
        rendered.append(time.monotonic())
        return np.zeros((240, 320, 3), np.uint8)

    with VirtualCamera(slow, fps=5) as cam:
        host, port = cam.server.server_address[:2]
        conn = http.client.HTTPConnection(host, port, timeout=5)
        conn.request("GET", "/stream.mjpg")
        stream = conn.getresponse()  # held: the socket closes with it
        assert stream.status == 200
        deadline = time.monotonic() + 5
        while len(rendered) < 7 and time.monotonic() < deadline:
            time.sleep(0.02)
        stream.close()
    gaps = np.diff(rendered[1:7])
    assert len(gaps) == 5 and 0.17 < float(np.mean(gaps)) < 0.26, gaps


def test_sensor_noise_is_fresh_on_every_frame_and_keeps_the_picture() -> None:
    """The simulator's cameras add it to each frame: no two frames in a row alike (that is a frozen
    camera, `vision.health`), the picture's brightness kept, the grain about 2 grey levels."""
    import numpy as np

    from tablesim.scenes.sensor import SensorNoise

    still = np.random.default_rng(3).integers(10, 246, (96, 128, 3)).astype(np.uint8)
    kept = still.copy()
    noise = SensorNoise(2.0, seed=1)
    frames = [noise(still) for _ in range(300)]
    assert np.array_equal(still, kept)
    assert all(not np.array_equal(a, b) for a, b in zip(frames, frames[1:]))
    grain = np.stack(frames).astype(np.float64) - still
    assert abs(grain.mean()) < 0.05 and 1.8 < grain.std() < 2.2
    per_pixel = grain[:, 40, 60, 0]  # one pixel over time: fresh, not one value repeated
    assert len(set(per_pixel.tolist())) >= 5 and abs(np.corrcoef(per_pixel[:-1], per_pixel[1:])[0, 1]) < 0.25
    assert noise(np.zeros((10, 20), np.uint8)).shape == (10, 20)  # any size, grey too; never below 0


def test_cli_read_json_on_a_table_frame(tmp_path, capsys, dorothys) -> None:
    scene = render_scene(dorothys, seed=5, opts=SceneOptions(tiles=12))
    path = tmp_path / "frame.jpg"
    cv2.imwrite(str(path), scene.image)
    assert main(["vision", "read", str(path), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert len(out["tiles"]) >= 10
    first = out["tiles"][0]
    assert {"kind", "confidence", "rotation", "quad", "zone"} <= set(first)


@pytest.mark.parametrize("corners", ["bad", "1,2;3,4;5,6", "1,2;3,4;5,6;7"])
def test_cli_read_with_corners_not_in_their_form_shows_the_form(tmp_path, capsys, dorothys, corners: str) -> None:
    """Before: "could not convert string to float: 'bad'", or a calibration error for three points."""
    path = tmp_path / "frame.jpg"
    cv2.imwrite(str(path), render_scene(dorothys, seed=5, opts=SceneOptions(tiles=4)).image)
    assert main(["vision", "read", str(path), "--corners", corners]) == 1
    err = capsys.readouterr().err
    assert "four points x,y separated by ';'" in err and "float" not in err


def test_cli_enroll_names_kinds_that_are_not_tile_codes(tmp_path, capsys, dorothys) -> None:
    path = tmp_path / "frame.jpg"
    cv2.imwrite(str(path), render_scene(dorothys, seed=5, opts=SceneOptions(tiles=2)).image)
    assert main(["vision", "enroll", str(path), "--out", str(tmp_path / "e.npz"), "--kinds", "1m,zz,0p"]) == 1
    assert "--kinds: zz、0p 不是牌的代码 / zz, 0p: not tile codes" in capsys.readouterr().err  # (was: a count that did not match)
    assert not (tmp_path / "e.npz").exists()


def test_cli_read_reports_an_unreadable_file(tmp_path, capsys) -> None:
    bad = tmp_path / "broken.jpg"
    bad.write_bytes(b"not a jpeg")
    assert main(["vision", "read", str(bad), "--json"]) == 1
    assert "not a readable image" in capsys.readouterr().err


def test_cli_eval_on_single_tile_pictures(tmp_path, capsys, dorothys) -> None:
    rows = ["file,kind"]
    for i, f in enumerate(dorothys[:6]):
        cv2.imwrite(str(tmp_path / f"{i}.png"), render_single_tile(f.image, seed=i))
        rows.append(f"{i}.png,{f.kind}")
    (tmp_path / "labels.csv").write_text("\n".join(rows) + "\n")
    assert main(["vision", "eval", str(tmp_path), "--json"]) == 0
    figures = json.loads(capsys.readouterr().out)
    assert figures["n"] == 6 and 0 <= figures["top1"] <= 1 and set(figures["per_kind"]) <= {f.kind for f in dorothys}
    assert "coverage_at_threshold" in figures


@pytest.mark.parametrize("missing", ["labels.csv"])
def test_cli_eval_without_labels_is_a_clear_error(tmp_path, capsys, missing: str) -> None:
    assert main(["vision", "eval", str(tmp_path)]) == 1
    assert missing in capsys.readouterr().err


def test_cli_enroll_writes_an_enrollment_the_reader_uses(tmp_path, capsys, dorothys) -> None:
    from tablesim.scenes.render import enrollment_layout
    from vision.enroll import Enrollment

    kinds = ["1m", "5p", "9s", "6z", "7z", "5f", "8f"]
    frame = render_scene(dorothys, seed=21, opts=SceneOptions(), tiles=enrollment_layout(kinds)).image
    path = tmp_path / "frame.png"
    cv2.imwrite(str(path), frame)
    out = tmp_path / "table.npz"
    assert main(["vision", "enroll", str(path), "--out", str(out), "--kinds", ",".join(kinds)]) == 0
    e = Enrollment.load(out)
    assert e.kinds_covered() == set(kinds) and len(e) == len(kinds) * 12
    # the wrong number of kinds for the tiles on the felt is refused with a reason
    assert main(["vision", "enroll", str(path), "--out", str(out), "--kinds", "1m,2m"]) == 1
    assert "saw 7 tiles" in capsys.readouterr().err


def test_camera_stream_survives_an_unplug_and_reconnects(dorothys) -> None:
    from vision.camera import CameraStream

    source = scene_source(list(dorothys), seed=3, opts=SceneOptions(size=(320, 240), tiles=4))
    with VirtualCamera(source, fps=30) as cam:
        now = [0.0]
        stream = CameraStream(cam.url, reopen_every_s=1.0, clock=lambda: now[0], health=CameraHealth(unplugged_after=2))
        frame, status = stream.grab()
        assert frame is not None and status.ok
        cam.unplugged = True
        codes = [stream.grab()[1].code for _ in range(3)]
        assert codes[-1] == "unplugged"
        cam.unplugged = False
        now[0] = 5.0  # time passes; the stream reopens
        frame, status = stream.grab()
        assert frame is not None and status.ok
        stream.close()
    missing = CameraStream("http://127.0.0.1:9/none.mjpg", health=CameraHealth(unplugged_after=1))
    frame, status = missing.grab()
    assert frame is None and status.code == "unplugged"
    missing.close()


def test_a_camera_that_never_connected_is_unplugged_from_the_first_step_and_ok_once_it_comes(dorothys) -> None:
    """The grace of two failed grabs is for a camera that gave frames (one dropped read is not a cable out). A
    camera that never answered showed 摄像头正常 for its first two steps after the service started (~5 s of green
    for a camera off, its URL wrong); it is unplugged from the first, and ok once it sends."""
    import socket
    import time

    from vision.camera import CameraStream

    with socket.socket() as taken:  # a port nothing listens on, for the camera to come to later
        taken.bind(("127.0.0.1", 0))
        port = taken.getsockname()[1]
    stream = CameraStream(f"http://127.0.0.1:{port}/stream.mjpg", reopen_every_s=0.2, frame_wait_s=0.5)
    try:
        codes = [stream.grab()[1].code for _ in range(3)]
        assert codes == ["unplugged"] * 3, codes
        source = scene_source(list(dorothys), seed=3, opts=SceneOptions(size=(320, 240), tiles=4))
        with VirtualCamera(source, port=port, fps=20):
            started = time.monotonic()
            frame, status = stream.grab()
            while frame is None and time.monotonic() - started < 5:
                frame, status = stream.grab()
            assert frame is not None and status.ok, status
    finally:
        stream.close()


def test_a_network_camera_that_goes_silent_is_opened_again(dorothys) -> None:
    """A camera that reboots or loses its Wi-Fi leaves its stream open and silent
    (`VirtualCamera.hang`): the stream is dropped after `read_timeout_s` and opened again. Before
    (eleventh session) OpenCV waited 30 s; now the default is `READ_TIMEOUT_S` (5 s)."""
    import time

    from vision.camera import READ_TIMEOUT_S, CameraStream

    assert READ_TIMEOUT_S <= 5.0
    source = scene_source(list(dorothys), seed=3, opts=SceneOptions(size=(320, 240), tiles=4))
    with VirtualCamera(source, fps=20) as cam:
        stream = CameraStream(cam.url, reopen_every_s=0.2, read_timeout_s=1.0, health=CameraHealth(unplugged_after=2))
        try:
            assert stream.grab()[0] is not None
            cam.hang()
            hung = time.monotonic()
            codes, failed = [], 0
            while time.monotonic() - hung < 15:
                frame, status = stream.grab()
                codes.append(status.code)
                failed += frame is None
                # back once a frame comes after a grab failed on the silent stream: a frame sent before the hang may
                # still be read first, and on a loaded machine later than 0.5 s (the test broke on it: codes ['ok'])
                if frame is not None and failed:
                    break
            back = time.monotonic() - hung
            assert frame is not None and status.ok and back < 6, (back, codes)
            # the stall was seen: a grab failed; "unplugged" (unplugged_after=2 in a row) only when the reopened
            # stream's first frame came later than the next grab (a CI run saw the reopen answer at once: all 'ok')
            assert failed >= 1, codes
        finally:
            stream.close()


def test_vision_loop_emits_events_and_survives_faults(dorothys, reader) -> None:
    import numpy as np

    from vision.camera import CameraStream
    from vision.service import VisionLoop
    from vision.tracker import TileTracker

    source = scene_source(list(dorothys), seed=9, opts=SceneOptions(tiles=12))
    with VirtualCamera(source, fps=30) as cam:
        now = [0.0]
        stream = CameraStream(cam.url, clock=lambda: now[0], health=CameraHealth(unplugged_after=1))
        reader.calibration = None
        loop = VisionLoop(stream, reader, TileTracker(confirm=2))
        results = [loop.step() for _ in range(2)]
        appeared = [e for e in results[-1].events if e.event == "appeared"]
        assert len(appeared) >= 10 and all(e.zone for e in appeared)
        cam.dark = True  # a frame sent before the switch may still be the newest (a loaded machine)
        dark = next((r for r in (loop.step() for _ in range(5)) if r.status.code != "ok"), None)
        assert dark is not None and dark.status.code == "dark" and dark.events == []
        cam.dark = False
        # as for dark: a frame sent before the switch may still be the newest, dark (or lit, sent between the two
        # switches); `!= "ok"` took such a dark frame for the answer (14 runs in 20 beside a CPU hog)
        cam.unplugged = True
        gone = next((r for r in (loop.step() for _ in range(8)) if r.status.code not in ("ok", "dark")), None)
        assert gone is not None and gone.status.code == "unplugged"
        json_ok = results[-1].to_json()
        assert json_ok["camera"]["ok"] and len(json_ok["tiles"]) >= 10
        stream.close()
    # a frame without markers is a problem to show, not a crash
    blank = CameraStream(0, health=CameraHealth())
    loop = VisionLoop(blank, reader)
    reader.calibration = None
    blank.grab = lambda: (np.full((480, 640, 3), 90, np.uint8), CameraHealth().check(np.full((480, 640, 3), 90, np.uint8)))  # type: ignore[method-assign]
    result = loop.step()
    assert result.events == [] and "markers" in result.problem


def test_camera_stream_returns_the_newest_frame_not_a_queued_one() -> None:
    """An IP camera sends faster than the reader reads (here 20 fps, read four times a second; the service
    reads twice): the reader must see the table as it is now, not frames queued seconds ago in its socket
    (a queue grows 4 frames a read here)."""
    import time

    import numpy as np

    from vision.camera import CameraStream

    sent = [0]

    def numbered() -> np.ndarray:  # each frame carries its number in two flat blocks (JPEG keeps them)
        sent[0] += 1
        img = np.full((240, 320, 3), 128, np.uint8)
        img[:64, :64] = (sent[0] % 32) * 8
        img[:64, 64:128] = (sent[0] // 32 % 32) * 8
        return img

    def number(img: np.ndarray) -> int:
        return round(float(img[8:56, 8:56].mean()) / 8) + 32 * round(float(img[8:56, 72:120].mean()) / 8)

    with VirtualCamera(numbered, fps=20) as cam:
        stream = CameraStream(cam.url)
        lags = []
        for i in range(8):
            time.sleep(0.25 if i else 0.0)  # the camera sends meanwhile
            frame, status = stream.grab()
            assert frame is not None and status.ok
            lags.append(sent[0] - number(frame))
        stream.close()
    assert max(lags[2:]) <= 4, lags  # a frame or two in flight, never a growing queue


def test_a_stream_left_open_does_not_abort_the_process_at_exit() -> None:
    """The reader thread may be inside OpenCV when Python exits: the stream is closed first, or
    the C++ runtime aborts the process ("terminate called without an active exception")."""
    import subprocess
    import sys

    code = ("from vision.camera import CameraStream\n"
            "s = CameraStream('http://127.0.0.1:9/none.mjpg')\n"
            "print(s.grab()[1].code)\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert "terminate called" not in proc.stderr


def test_cli_eval_refuses_figures_of_nothing_and_rows_that_are_not_labels(tmp_path, capsys, dorothys) -> None:
    """Before: a labels.csv whose pictures were all missing gave "n=0 top1=None" and exit 0; a kind
    "zz" was scored as a wrong reading; a spreadsheet's UTF-8 (with a BOM) was "expected a header"."""
    (tmp_path / "labels.csv").write_text("file,kind\ngone.png,1m\nalso-gone.png,2m\n")
    assert main(["vision", "eval", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert "none of the 2 pictures" in err and "gone.png" in err

    cv2.imwrite(str(tmp_path / "a.png"), render_single_tile(dorothys[0].image, seed=1))
    (tmp_path / "labels.csv").write_text("file,kind\na.png,zz\na.png\n")
    assert main(["vision", "eval", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert "line 2: 'a.png','zz'" in err and "line 3: 'a.png',''" in err

    (tmp_path / "labels.csv").write_bytes(b"file,kind\na\xe9.png,1m\n")
    assert main(["vision", "eval", str(tmp_path)]) == 1
    assert "not UTF-8" in capsys.readouterr().err

    (tmp_path / "labels.csv").write_text(f"\ufefffile,kind\na.png,{dorothys[0].kind}\ngone.png,1m\n", encoding="utf-8")
    assert main(["vision", "eval", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "n=1 " in out and "not read (1): gone.png (no such file)" in out


def test_cli_eval_scores_a_picture_named_twice_once_and_refuses_two_kinds_for_it(tmp_path, capsys, dorothys) -> None:
    """A row pasted twice scored its picture twice (n=4 for two pictures); a picture labelled with two kinds was
    scored as half wrong (top1 0.5 for a tile read right); a bad row after blank lines was named by its count of
    rows, not its line. A spreadsheet's CRLF and blank lines are read as the lines they are."""
    face = dorothys[0]
    other = next(f for f in dorothys if f.kind != face.kind)
    cv2.imwrite(str(tmp_path / "a.png"), render_single_tile(face.image, seed=1))
    cv2.imwrite(str(tmp_path / "b.png"), render_single_tile(other.image, seed=2))
    rows = f"file,kind\r\na.png,{face.kind}\r\n\r\na.png,{face.kind}\r\nb.png,{other.kind}\r\na.png,{face.kind}\r\n"
    (tmp_path / "labels.csv").write_bytes(rows.encode())
    assert main(["vision", "eval", str(tmp_path), "--json"]) == 0
    figures = json.loads(capsys.readouterr().out)
    assert figures["n"] == 2 and figures["per_kind"] == {face.kind: 1.0, other.kind: 1.0}, figures
    (tmp_path / "labels.csv").write_text(f"file,kind\n\n\na.png,{face.kind}\nb.png,{other.kind}\na.png,{other.kind}\n")
    assert main(["vision", "eval", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert f"a.png: line 4 says {face.kind}, line 6 {other.kind}" in err, err
    (tmp_path / "labels.csv").write_text("file,kind\n\n\na.png,zz\n")
    assert main(["vision", "eval", str(tmp_path)]) == 1
    assert "line 4: 'a.png','zz'" in capsys.readouterr().err


def test_cli_names_a_missing_file_and_a_folder(tmp_path, capsys) -> None:
    """Before: both were "not a readable image", after OpenCV's own warning on stderr."""
    assert main(["vision", "read", str(tmp_path / "nope.png")]) == 1
    err = capsys.readouterr().err
    assert "nope.png: no such file" in err
    assert main(["vision", "corners", str(tmp_path)]) == 1
    assert "a folder, not a picture" in capsys.readouterr().err


@pytest.mark.parametrize("corners, said", [
    ("nan,0;10,0;10,10;0,10", "not numbers"),
    ("0,0;5000,0;5000,4000;0,4000", "outside the 1280×960 picture"),
    ("100,100;1100,800;1100,100;100,800", "cross or fold in"),
])
def test_cli_read_refuses_corners_that_cannot_be_the_felt(tmp_path, capsys, dorothys, corners: str, said: str) -> None:
    """Before: read nothing, printed nothing, exit 0."""
    path = tmp_path / "frame.jpg"
    cv2.imwrite(str(path), render_scene(dorothys, seed=5, opts=SceneOptions(tiles=4)).image)
    assert main(["vision", "read", str(path), "--corners", corners]) == 1
    assert said in capsys.readouterr().err


def test_cli_enroll_into_a_place_it_cannot_write_is_an_error_not_a_traceback(tmp_path, capsys, dorothys) -> None:
    from tablesim.scenes.render import enrollment_layout

    kinds = ["1m", "5p", "9s"]
    path = tmp_path / "frame.png"
    cv2.imwrite(str(path), render_scene(dorothys, seed=21, opts=SceneOptions(), tiles=enrollment_layout(kinds)).image)
    (tmp_path / "file").write_text("a file, not a folder")
    assert main(["vision", "enroll", str(path), "--out", str(tmp_path / "file" / "e.npz"), "--kinds", "1m,5p,9s"]) == 1
    assert "cannot write the enrollment file" in capsys.readouterr().err


def test_cli_threshold_port_and_folder_mistakes_are_errors_not_tracebacks(tmp_path, capsys) -> None:
    """Before: --threshold 5 or -1 was taken (every tile, or none, to the referee); a port in use and
    an output folder under a file were tracebacks."""
    import socket

    for bad in ("5", "-1", "x"):
        with pytest.raises(SystemExit) as exit_:
            main(["vision", "read", str(tmp_path / "f.png"), "--threshold", bad])
        assert exit_.value.code == 2 and "between 0 and 1" in capsys.readouterr().err
    (tmp_path / "file").write_text("a file")
    assert main(["vision", "render", "xmahjongg-dorothys", str(tmp_path / "file" / "out")]) == 1
    assert "cannot make the folder" in capsys.readouterr().err
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        assert main(["vision", "camera", "--style", "xmahjongg-dorothys", "--port", str(port)]) == 1
    assert f"cannot serve on 127.0.0.1:{port}" in capsys.readouterr().err
    for bad in ("99999", "-1"):  # was a traceback from the socket's bind (OverflowError)
        with pytest.raises(SystemExit) as exit_:
            main(["vision", "camera", f"--port={bad}"])
        assert exit_.value.code == 2 and "0..65535" in capsys.readouterr().err

"""`tablectl vision read/corners/enroll/eval/grab` handed pictures that will not do, as a technician may
(`vision.picture`): each refused with the file named and what is wrong, exit 1, no traceback, nothing
decoded that could take the Pi's memory; and the odd formats a picture may come in read as the plain one."""

from __future__ import annotations

import json
import os
import resource
import struct
import subprocess
import sys
import zlib
from pathlib import Path

import cv2
import numpy as np
import pytest

from table_controller.cli import main
from tablesim.scenes.render import SceneOptions, render_scene
from vision.picture import MAX_PIXELS, load_picture, picture_size

ROOT = Path(__file__).resolve().parents[2]


def _chunk(tag: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + tag + body + struct.pack(">I", zlib.crc32(tag + body) & 0xFFFFFFFF)


def _bomb(path: Path, side: int = 20000) -> None:
    """A black `side`×`side` RGB PNG of ~1 MB (1.2 GB decoded): one deflated stretch of rows of zeros,
    repeated (each ends on a full flush, so it stands alone), then the zlib trailer of so many zeros."""
    rows = 100  # divides `side`
    raw = zlib.compressobj(9, zlib.DEFLATED, -15)
    stretch = raw.compress(b"\0" * ((1 + 3 * side) * rows)) + raw.flush(zlib.Z_FULL_FLUSH)
    end = zlib.compressobj(9, zlib.DEFLATED, -15).flush()
    total = (1 + 3 * side) * side
    adler = ((total % 65521) << 16) | 1  # adler32 of `total` zero bytes
    data = b"\x78\xda" + stretch * (side // rows) + end + struct.pack(">I", adler)
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", struct.pack(">IIBBBBB", side, side, 8, 2, 0, 0, 0))
                     + _chunk(b"IDAT", data) + _chunk(b"IEND", b""))


def _tablectl(*args: str | bytes, timeout: float = 60) -> subprocess.CompletedProcess[bytes]:
    """`tablectl` in its own process, as a technician runs it (a crash inside OpenCV kills the process)."""
    env = {**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{ROOT / 'hardware-sim'}"}
    return subprocess.run([sys.executable, "-m", "table_controller.cli", *args], capture_output=True, env=env,
                          timeout=timeout, cwd=ROOT)


@pytest.fixture(scope="module")
def frame(dorothys) -> np.ndarray:
    return render_scene(dorothys, seed=5, opts=SceneOptions(tiles=12)).image


@pytest.fixture(scope="module")
def bad(tmp_path_factory, frame) -> Path:
    d = tmp_path_factory.mktemp("bad")
    ok, jpg = cv2.imencode(".jpg", frame)
    ok, png = cv2.imencode(".png", frame)
    (d / "empty.jpg").write_bytes(b"")
    (d / "text.jpg").write_text("a shopping list, not a picture\n")
    (d / "cut.jpg").write_bytes(jpg.tobytes()[: len(jpg) // 2])
    (d / "cut.png").write_bytes(png.tobytes()[: len(png) // 2])
    cv2.imwrite(str(d / "dot.png"), frame[:1, :1])
    (d / "folder.jpg").mkdir()
    _bomb(d / "bomb.png")
    return d


@pytest.mark.parametrize("name, said", [
    ("empty.jpg", "an empty file (0 bytes)"),
    ("text.jpg", "not PNG or JPEG (it begins b'a shoppi'"),
    ("cut.jpg", "a JPEG cut short"),  # was decoded grey below the cut: "saw 0 of the 4 corner markers"
    ("cut.png", "a PNG cut short"),  # was "not a readable image (missing, empty, or not PNG/JPEG)"
    ("dot.png", "a PNG of 1×1, too small to read"),  # was "image is too small to read (1x1)", no file named
    ("folder.jpg", "a folder, not a picture"),
    ("bomb.png", "a PNG of 20000×20000 (400 Mpx), over the 50 Mpx"),  # was decoded: 2.8 GB, 20 s
])
@pytest.mark.parametrize("command", ["read", "corners", "enroll"])
def test_a_picture_that_will_not_do_is_named_with_what_is_wrong(bad: Path, tmp_path: Path, capsys, command: str,
                                                                name: str, said: str) -> None:
    args = ["vision", command, str(bad / name)] + (["--out", str(tmp_path / "e.npz")] if command == "enroll" else [])
    assert main(args) == 1
    err = capsys.readouterr().err
    assert f"{bad / name}: " in err and said in err
    assert not (tmp_path / "e.npz").exists()


def test_a_decompression_bomb_is_refused_before_it_is_decoded(bad: Path) -> None:
    """The header says 20000×20000: refused unread. Before, `imread` decoded it (RSS 2.8 GB, 20 s on the shared
    machine); a Pi with 1-4 GB went to swap or was killed. The header read alone leaves memory as it was."""
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    with pytest.raises(ValueError, match="over the 50 Mpx"):
        load_picture(bad / "bomb.png")
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before < 100_000  # KB: far under the 1.2 GB
    assert picture_size((bad / "bomb.png").read_bytes()[:64]) == ("PNG", 20000, 20000)
    assert 7680 * 4320 < MAX_PIXELS < 20000 * 20000  # 8K still read


def test_odd_formats_read_as_the_plain_picture(tmp_path: Path, frame: np.ndarray) -> None:
    """16-bit, with alpha, grey and CMYK pictures (a scanner's, an editor's export) are read, the same tiles
    as the plain PNG; sizes come from the header of each."""
    from PIL import Image

    cv2.imwrite(str(tmp_path / "plain.png"), frame)
    cv2.imwrite(str(tmp_path / "deep.png"), frame.astype(np.uint16) * 257)
    cv2.imwrite(str(tmp_path / "alpha.png"), np.dstack([frame, np.full(frame.shape[:2], 255, np.uint8)]))
    cv2.imwrite(str(tmp_path / "grey.png"), cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY))
    Image.fromarray(frame[:, :, ::-1]).convert("CMYK").save(tmp_path / "cmyk.jpg", quality=95)
    for name in ("plain.png", "deep.png", "alpha.png", "grey.png", "cmyk.jpg"):
        img = load_picture(tmp_path / name)
        assert img.shape == frame.shape and img.dtype == np.uint8, name
        assert picture_size((tmp_path / name).read_bytes())[1:] == (1280, 960)
    kinds = {}
    for name in ("plain.png", "deep.png", "alpha.png", "cmyk.jpg"):
        out = _tablectl("vision", "read", "--json", str(tmp_path / name))
        assert out.returncode == 0, out.stderr
        kinds[name] = sorted(t["kind"] for t in json.loads(out.stdout)["tiles"])
    assert len(kinds["plain.png"]) == 12 and all(k == kinds["plain.png"] for k in kinds.values()), kinds


def test_a_path_that_is_not_utf8_is_read_or_refused_never_a_crash(tmp_path: Path, frame: np.ndarray) -> None:
    """A folder named in Latin-1 (a USB stick from another machine): OpenCV crashed the process on it
    (SIGSEGV, exit -11, no message) in read, corners, enroll and grab's output. The picture is read now;
    a camera source of such a name, which OpenCV must open itself, is refused with what to do."""
    odd = Path(os.fsdecode(bytes(tmp_path) + b"/caf\xe9"))
    odd.mkdir()
    cv2.imwrite(str(tmp_path / "frame.png"), frame)
    (odd / "frame.png").write_bytes((tmp_path / "frame.png").read_bytes())
    read = _tablectl("vision", "read", "--json", os.fsencode(odd / "frame.png"))
    assert read.returncode == 0, read.stderr
    assert len(json.loads(read.stdout)["tiles"]) == 12
    corners = _tablectl("vision", "corners", os.fsencode(odd / "frame.png"))
    assert corners.returncode in (0, 1) and b"Traceback" not in corners.stderr  # markers on this felt: it may refuse
    grab = _tablectl("vision", "grab", os.fsencode(tmp_path / "frame.png"), os.fsencode(odd / "grab.png"))
    assert grab.returncode == 0, grab.stderr
    assert load_picture(odd / "grab.png").shape == frame.shape
    source = _tablectl("vision", "grab", os.fsencode(odd / "frame.png"), os.fsencode(tmp_path / "g.png"))
    assert source.returncode == 1 and "not UTF-8" in source.stderr.decode(), source.stderr


def test_eval_names_each_picture_it_could_not_read_with_why(bad: Path, tmp_path: Path, capsys, dorothys) -> None:
    """Before: every one was "missing or not PNG/JPEG", a picture cut short or too large among them; a file
    named for the folder was "labels.csv/labels.csv not found"."""
    from tablesim.scenes.render import render_single_tile

    cv2.imwrite(str(tmp_path / "a.png"), render_single_tile(dorothys[0].image, seed=1))
    for name in ("cut.png", "bomb.png"):
        (tmp_path / name).write_bytes((bad / name).read_bytes())
    (tmp_path / "labels.csv").write_bytes(f"file,kind,note\r\na.png,{dorothys[0].kind},x\r\ncut.png,1m,\r\n"
                                          "bomb.png,2m,\r\n".encode())
    assert main(["vision", "eval", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "n=1 " in out and "not read (2): cut.png (a PNG cut short" in out and "bomb.png (a PNG of 20000×20000" in out
    assert main(["vision", "eval", str(tmp_path / "labels.csv")]) == 1
    said = capsys.readouterr().err
    assert "labels.csv: 是文件而不是文件夹" in said and " / a file, not a folder" in said


def test_a_folder_or_an_empty_file_where_a_file_is_expected_is_named_as_such(tmp_path: Path, capsys) -> None:
    """`grab` of a folder or an empty file said "no such file, or a format OpenCV cannot read", and `eval` of a
    folder holding a labels.csv folder said "labels.csv not found": both sent the technician to look for a
    file that is there."""
    (tmp_path / "frames").mkdir()
    (tmp_path / "empty.mjpg").write_bytes(b"")
    assert main(["vision", "grab", str(tmp_path / "frames"), str(tmp_path / "g.jpg")]) == 1
    assert "frames: 没有画面（这是文件夹，不是摄像头，也不是视频或图片文件） / no picture (a folder, not a camera" in capsys.readouterr().err
    assert main(["vision", "grab", str(tmp_path / "empty.mjpg"), str(tmp_path / "g.jpg")]) == 1
    assert "(an empty file)" in capsys.readouterr().err
    assert main(["vision", "grab", str(tmp_path / "gone.mjpg"), str(tmp_path / "g.jpg")]) == 1
    assert "(no such file)" in capsys.readouterr().err
    (tmp_path / "frames" / "labels.csv").mkdir()
    assert main(["vision", "eval", str(tmp_path / "frames")]) == 1
    said = capsys.readouterr().err
    assert "labels.csv: 是文件夹而不是文件" in said and " / a folder, not a file" in said

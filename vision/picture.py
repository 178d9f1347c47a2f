"""A picture file a technician names (`tablectl vision read/corners/enroll/eval`): read, checked, decoded.

OpenCV's `imread` told every fault as the same "not a readable image", decoded a 20000×20000 PNG of a few
MB into 1.2 GB (2.8 GB at the peak, 20 s), decoded a JPEG cut short with its missing part grey (then
"saw 0 markers"), and crashed the process (SIGSEGV) on a path that is not UTF-8. Here the bytes are read
by Python (any path), the size is taken from the header before anything is decoded, and each fault is
named with the file.
"""

from __future__ import annotations

import struct
from pathlib import Path

import cv2
import numpy as np

#: The most pixels a picture may have: an 8K frame (7680×4320, 33 Mpx) and a 48 MP phone photo
#: (8064×6048) fit; decoded it is ~150 MB. Above it (a decompression bomb, a panorama) it is refused
#: before it is decoded.
MAX_PIXELS = 50_000_000
#: The most bytes read from a picture file: a 50 Mpx PNG stored with no compression (~150 MB) fits.
MAX_FILE_BYTES = 256 << 20
#: The fewest pixels on a side the reader reads (`vision.reader`): a 1×1 picture is no frame nor tile.
MIN_SIDE = 16

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
JPEG_MAGIC = b"\xff\xd8\xff"


class PictureError(ValueError):
    """A picture file that cannot be read; the message names the file and what is wrong."""


def picture_size(data: bytes) -> tuple[str, int, int] | None:
    """(format, width, height) from a PNG's or JPEG's header, without decoding; None when the bytes are
    neither, or the header is cut short."""
    if data.startswith(PNG_MAGIC):
        if len(data) < 24 or data[12:16] != b"IHDR":
            return None
        w, h = struct.unpack(">II", data[16:24])
        return "PNG", w, h
    if not data.startswith(JPEG_MAGIC):
        return None
    i = 2
    while i + 9 < len(data):
        if data[i] != 0xFF:
            return None
        marker = data[i + 1]
        if marker == 0xFF:  # fill bytes before a marker
            i += 1
            continue
        if 0xD0 <= marker <= 0xD9 or marker == 0x01:  # markers without a length
            i += 2
            continue
        length = struct.unpack(">H", data[i + 2:i + 4])[0]
        if marker in (0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF):  # SOFn
            h, w = struct.unpack(">HH", data[i + 5:i + 9])
            return "JPEG", w, h
        i += 2 + length
    return None


def _cut_short(kind: str, data: bytes) -> bool:
    """Whether a PNG lacks its end chunk, or a JPEG its end marker after its last scan (a copy or a
    download cut short: OpenCV decoded what was there and filled the rest grey)."""
    if kind == "PNG":
        return b"IEND" not in data[-64:]
    return data.rfind(b"\xff\xd9") < data.rfind(b"\xff\xda")


def shown(path: Path) -> str:
    """`path` as it can be printed: a name that is not UTF-8 with its odd bytes as escapes."""
    return str(path).encode("utf-8", "backslashreplace").decode("utf-8")


def load_picture(path: Path) -> np.ndarray:
    """The picture at `path` as 8-bit BGR (16-bit, grey, with alpha and CMYK pictures are converted as
    OpenCV does); PictureError names the file and the fault: a folder, no such file, empty, not PNG or
    JPEG, too large, too small, cut short, or damaged."""
    name = shown(path)
    if path.is_dir():
        raise PictureError(f"{name}: a folder, not a picture (name a PNG or JPEG file)")
    if not path.is_file():
        raise PictureError(f"{name}: no such file")
    try:
        with path.open("rb") as f:
            data = f.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        raise PictureError(f"{name}: cannot be read ({exc.strerror or exc})") from None
    if not data:
        raise PictureError(f"{name}: an empty file (0 bytes), not a picture")
    if len(data) > MAX_FILE_BYTES:
        raise PictureError(f"{name}: over {MAX_FILE_BYTES >> 20} MB, larger than any camera frame")
    size = picture_size(data)
    if size is None:
        head = data[:8]
        raise PictureError(f"{name}: not a readable image: not PNG or JPEG (it begins {head!r}); "
                           "save it as PNG or JPEG")
    kind, w, h = size
    if w * h > MAX_PIXELS:
        raise PictureError(f"{name}: a {kind} of {w}×{h} ({w * h / 1e6:.0f} Mpx), over the "
                           f"{MAX_PIXELS // 1_000_000} Mpx a camera frame may have (8K is 33): not decoded; "
                           "take the frame from the table's camera (`tablectl vision grab`) or scale it down")
    if min(w, h) < MIN_SIDE:
        raise PictureError(f"{name}: a {kind} of {w}×{h}, too small to read (at least {MIN_SIDE} px a side)")
    if _cut_short(kind, data):
        raise PictureError(f"{name}: a {kind} cut short ({len(data)} bytes, its end missing): copy or save it again")
    img = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    if img is None:
        raise PictureError(f"{name}: a {kind} of {w}×{h} that does not decode (damaged): copy or save it again")
    return img


def save_picture(path: Path, img: np.ndarray) -> None:
    """Write `img` as the PNG or JPEG its name says; OSError says why not. Written by Python, so a path
    that is not UTF-8 is written too (OpenCV's `imwrite` crashed the process on one)."""
    ext = ".png" if path.suffix.lower() == ".png" else ".jpg"
    ok, buf = cv2.imencode(ext, img)
    if not ok:
        raise OSError(f"OpenCV could not encode a {ext} picture")
    path.write_bytes(buf.tobytes())

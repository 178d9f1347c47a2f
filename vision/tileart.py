"""Tile art: turns each installed tile set into labelled, upright face images of the 42 kinds.

Sets come from Debian packages installed by the build (never committed). Every loader returns
`Face`s whose `kind` is what is *drawn* (a plum is `5f` whatever numeral the set prints), so the
classifier never learns a set's private numbering. Two styles are reserved for evaluation only.
"""

from __future__ import annotations

import functools
import gzip
import hashlib
import os
import shutil
import subprocess
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision.kinds import FACE_KINDS

#: Face images are stored at this size (width, height): the 3:4 of a real tile face.
FACE_SIZE: tuple[int, int] = (96, 128)

KMAHJONGG_DIR = Path("/usr/share/kmahjongglib/tilesets")
GNOME_DIR = Path("/usr/share/gnome-mahjongg/themes")
XMAHJONGG_DIR = Path("/usr/share/games/xmahjongg/tiles")
FLUFFY_DIR = Path("/usr/share/texlive/texmf-dist/tex/latex/mahjong/tiles")
SYMBOL_FONTS = {
    "font-symbola": Path("/usr/share/fonts/truetype/ancient-scripts/Symbola_hint.ttf"),
    "font-notosymbols2": Path("/usr/share/fonts/truetype/noto/NotoSansSymbols2-Regular.ttf"),
}


class TileArtError(RuntimeError):
    """A tile set is missing or unreadable; the message names the package that provides it."""


def pillow() -> Any:
    """Pillow, for tile art read from GIFs (`xmahjongg-*`) or drawn from fonts (`font-*`, `drawn`): the simulator's
    and training's art, in the test and train extras, never the service's. A Pi set up with `make pi` has none:
    a TileArtError saying so, not a ModuleNotFoundError."""
    try:
        import PIL.Image
        import PIL.ImageDraw
        import PIL.ImageFont
    except ImportError:
        raise TileArtError("this tile art needs Pillow, which a table's Pi does not install (`make pi`): "
                           "pip install -e '.[train]' (or '.[test]') on a developer's machine") from None
    return PIL


@dataclass(frozen=True)
class Face:
    """One upright tile face (BGR, `FACE_SIZE`), labelled by what is drawn on it."""

    kind: str
    style: str
    image: np.ndarray


# --- kmahjongg (KDE) SVG sets ------------------------------------------------------------------
_KMJ_SUITS = {"CHARACTER": "m", "ROD": "p", "BAMBOO": "s"}
#: kmahjongg's WIND_n and DRAGON_n, checked by looking at the rendered sets.
_KMJ_WINDS = {"WIND_1": "4z", "WIND_2": "2z", "WIND_3": "1z", "WIND_4": "3z"}
_KMJ_DRAGONS = {"DRAGON_1": "5z", "DRAGON_2": "6z", "DRAGON_3": "7z"}
#: Seasons are drawn in the canonical order in all four sets. Flowers are plum, orchid,
#: chrysanthemum, bamboo, except `classic`, whose FLOWER_1 is an orchid and FLOWER_2 a plum
#: (checked by eye on the contact sheets; see docs/vision.md).
_KMJ_SEASONS = {f"SEASON_{n}": f"{n}f" for n in range(1, 5)}
_KMJ_FLOWERS = {"FLOWER_1": "5f", "FLOWER_2": "6f", "FLOWER_3": "7f", "FLOWER_4": "8f"}
_KMJ_FLOWERS_BY_SET = {"classic": {"FLOWER_1": "6f", "FLOWER_2": "5f", "FLOWER_3": "7f", "FLOWER_4": "8f"}}

KMAHJONGG_SETS = ("default", "jade", "traditional", "classic")


def _kmahjongg_ids(name: str) -> dict[str, str]:
    ids = {f"{prefix}_{n}": f"{n}{s}" for prefix, s in _KMJ_SUITS.items() for n in range(1, 10)}
    ids.update(_KMJ_WINDS)
    ids.update(_KMJ_DRAGONS)
    ids.update(_KMJ_SEASONS)
    ids.update(_KMJ_FLOWERS_BY_SET.get(name, _KMJ_FLOWERS))
    return ids


def _rsvg(svg: Path, element: str | None, zoom: float, out: Path) -> np.ndarray:
    """Render one SVG element with rsvg-convert (librsvg2-bin) to BGRA."""
    exe = shutil.which("rsvg-convert")
    if exe is None:
        raise TileArtError("rsvg-convert not found: install the Debian package librsvg2-bin")
    cmd = [exe, "-z", str(zoom), "-o", str(out)]
    if element:
        cmd += ["-i", element]
    subprocess.run(cmd + [str(svg)], check=True, capture_output=True)
    img = cv2.imread(str(out), cv2.IMREAD_UNCHANGED)
    if img is None:
        raise TileArtError(f"could not render {element} from {svg}")
    return img


def _on_background(symbol_bgra: np.ndarray, background: tuple[int, int, int], margin: float = 0.08) -> np.ndarray:
    """Composite a transparent symbol, scaled to fit with a margin, onto a plain face."""
    w, h = FACE_SIZE
    face = np.zeros((h, w, 3), np.float32)
    face[:] = background
    if symbol_bgra.shape[2] == 4:  # trim the transparent padding around the drawing
        ys, xs = np.nonzero(symbol_bgra[:, :, 3] > 8)
        if len(xs):
            symbol_bgra = symbol_bgra[ys.min():ys.max() + 1, xs.min():xs.max() + 1]
    sh, sw = symbol_bgra.shape[:2]
    scale = min(w * (1 - 2 * margin) / sw, h * (1 - 2 * margin) / sh)
    nw, nh = max(1, round(sw * scale)), max(1, round(sh * scale))
    sym = cv2.resize(symbol_bgra, (nw, nh), interpolation=cv2.INTER_AREA).astype(np.float32)
    x0, y0 = (w - nw) // 2, (h - nh) // 2
    alpha = sym[:, :, 3:4] / 255.0 if sym.shape[2] == 4 else np.ones((nh, nw, 1), np.float32)
    roi = face[y0:y0 + nh, x0:x0 + nw]
    face[y0:y0 + nh, x0:x0 + nw] = roi * (1 - alpha) + sym[:, :, :3] * alpha
    return np.clip(face, 0, 255).astype(np.uint8)


def load_kmahjongg(name: str) -> list[Face]:
    svgz = KMAHJONGG_DIR / f"{name}.svgz"
    if not svgz.exists():
        raise TileArtError(f"{svgz} missing: install the Debian package kdegames-mahjongg-data-kf5")
    faces: list[Face] = []
    with tempfile.TemporaryDirectory() as tmp:
        svg = Path(tmp) / f"{name}.svg"
        svg.write_bytes(gzip.decompress(svgz.read_bytes()))
        out = Path(tmp) / "el.png"
        tile = _rsvg(svg, "TILE_1", 1.0, out)
        th, tw = tile.shape[:2]
        centre = tile[th // 3: 2 * th // 3, tw // 3: 2 * tw // 3]
        bg = tuple(int(v) for v in np.median(centre[:, :, :3].reshape(-1, 3), axis=0))
        for element, kind in _kmahjongg_ids(name).items():
            sym = _rsvg(svg, element, 2.0, out)
            faces.append(Face(kind, f"kmahjongg-{name}", _on_background(sym, bg)))  # type: ignore[arg-type]
    return faces


# --- strips and grids of whole tiles (gnome-mahjongg PNG/SVG, xmahjongg GIF) -------------------
def _suits(first: str) -> list[str]:
    return [f"{n}{first}" for n in range(1, 10)]


#: Slot names of flower and season artwork, whose drawn plant each loader maps to a kind.
_FLOWER_SLOTS = frozenset({"f1", "f2", "f3", "f4", "s1", "s2", "s3", "s4"})
#: gnome-mahjongg's 43-slot strip: dots, N W S E, red green, characters, bamboo, four flower
#: slots, white, four season slots, blank. What each flower slot *draws* differs per theme.
_GNOME_ORDER = (_suits("p") + ["4z", "3z", "2z", "1z", "7z", "6z"] + _suits("m") + _suits("s")
                + ["f1", "f2", "f3", "f4", "5z", "s1", "s2", "s3", "s4", None])
#: smooth.png draws 蘭 菊 梅 竹 in the flower slots and 春 夏 秋 冬 in the season slots.
_GNOME_SMOOTH_FLOWERS = {"f1": "6f", "f2": "7f", "f3": "5f", "f4": "8f",
                         "s1": "1f", "s2": "2f", "s3": "3f", "s4": "4f"}

#: xmahjongg's 84-slot sheets (two rows of 21, then the same selected): suit A, N W S E, red
#: green, characters, suit B, four season slots, white, four flower slots.
def _xmj_order(suit_a: str, suit_b: str) -> list[str | None]:
    return (_suits(suit_a) + ["4z", "3z", "2z", "1z", "7z", "6z"] + _suits("m") + _suits(suit_b)
            + ["s1", "s2", "s3", "s4", "5z", "f1", "f2", "f3", "f4"])


#: Per sheet: the suit order and what its season/flower slots draw (None: numerals only or a
#: picture that names no plant, so the slot is skipped rather than mislabelled).
_XMJ_SHEETS: dict[str, tuple[str, str, dict[str, str | None], bool]] = {
    # name: (suit A, suit B, slot -> kind, keep white)
    "dorothys": ("p", "s", {"s1": "1f", "s2": "2f", "s3": "3f", "s4": "4f",
                            "f1": "8f", "f2": "6f", "f3": "5f", "f4": "7f"}, True),
    "dorwhite": ("p", "s", {"s1": "1f", "s2": "2f", "s3": "3f", "s4": "4f",
                            "f1": "8f", "f2": "6f", "f3": "5f", "f4": "7f"}, True),
    # gnome: season slots draw 華 花 梅 竹, flower slots draw winds: keep only 梅 and 竹.
    "gnome": ("p", "s", {"s3": "5f", "s4": "8f"}, True),
    # gnome2: seasons and flowers are bare numerals; the white dragon is a blank face.
    "gnome2": ("s", "p", {}, True),
}


def _crop_face(tile: np.ndarray, left: float, bottom: float, inset: float = 0.04) -> np.ndarray:
    """Cut the face out of a tile drawn with a 3-D edge on its left and bottom."""
    h, w = tile.shape[:2]
    x0, y1 = int(round(w * left)), int(round(h * (1 - bottom)))
    face = tile[:y1, x0:]
    fh, fw = face.shape[:2]
    dx, dy = int(fw * inset), int(fh * inset)
    face = face[dy:fh - dy, dx:fw - dx]
    return cv2.resize(face, FACE_SIZE, interpolation=cv2.INTER_AREA)


def _read_rgb(path: Path, package: str) -> np.ndarray:
    if not path.exists():
        raise TileArtError(f"{path} missing: install the Debian package {package}")
    with pillow().Image.open(path) as im:  # Pillow reads GIF, which OpenCV builds often cannot
        rgb = np.asarray(im.convert("RGB"))
    return cv2.cvtColor(rgb, cv2.COLOR_RGB2BGR)


def load_xmahjongg(name: str) -> list[Face]:
    sheet = _read_rgb(XMAHJONGG_DIR / f"{name}.gif", "xmahjongg")
    suit_a, suit_b, slots, keep_white = _XMJ_SHEETS[name]
    th, tw = sheet.shape[0] // 4, sheet.shape[1] // 21
    faces = []
    for i, slot in enumerate(_xmj_order(suit_a, suit_b)):
        kind = slots.get(slot) if slot in _FLOWER_SLOTS else slot
        if kind is None or (kind == "5z" and not keep_white):
            continue
        r, c = divmod(i, 21)
        tile = sheet[r * th:(r + 1) * th, c * tw:(c + 1) * tw]
        faces.append(Face(kind, f"xmahjongg-{name}", _crop_face(tile, left=0.10, bottom=0.10)))
    return faces


def load_xmahjongg_real() -> list[Face]:
    """xmahjongg's real.gif: scanned real tiles, 9 per row on a dark ground. RESERVED for eval."""
    img = _read_rgb(XMAHJONGG_DIR / "real.gif", "xmahjongg")
    order = (_suits("p") + _suits("s") + _suits("m") + ["1f", "2f", "3f", "4f", "4z", "2z", "1z", "3z"]
             + ["5f", "6f", "7f", "8f", "6z", "5z", "7z"])
    pitch_x, pitch_y = img.shape[1] / 9, img.shape[0] / 5
    boxes = [(int(c * pitch_x) + 3, int(r * pitch_y) + 3, int(pitch_x) - 6, int(pitch_y) - 6)
             for r, cols in enumerate((9, 9, 9, 8, 7)) for c in range(cols)]
    faces = []
    for (x, y, w, h), kind in zip(boxes, order):
        face = img[y:y + h, x:x + w]
        faces.append(Face(kind, "xmahjongg-real", cv2.resize(face, FACE_SIZE, interpolation=cv2.INTER_AREA)))
    return faces


def _gnome_strip(img: np.ndarray, style: str, flowers: dict[str, str]) -> list[Face]:
    th, tw = img.shape[0] // 2, img.shape[1] // 43
    faces = []
    for i, slot in enumerate(_GNOME_ORDER):
        kind = flowers.get(slot) if slot in _FLOWER_SLOTS else slot
        if kind is None:
            continue
        tile = img[:th, i * tw:(i + 1) * tw]
        faces.append(Face(kind, style, _crop_face(tile, left=0.02, bottom=0.12, inset=0.06)))
    return faces


def load_gnome_smooth() -> list[Face]:
    """gnome-mahjongg's smooth.png. RESERVED for evaluation."""
    return _gnome_strip(_read_rgb(GNOME_DIR / "smooth.png", "gnome-mahjongg"), "gnome-smooth",
                        _GNOME_SMOOTH_FLOWERS)


def load_gnome_postmodern() -> list[Face]:
    """postmodern.svg: its flowers and seasons are one picture with numerals, and its white
    dragon is a logo, so only the 33 other kinds are kept."""
    svg = GNOME_DIR / "postmodern.svg"
    if not svg.exists():
        raise TileArtError(f"{svg} missing: install the Debian package gnome-mahjongg")
    with tempfile.TemporaryDirectory() as tmp:
        img = _rsvg(svg, None, 1.5, Path(tmp) / "pm.png")
    bgr = img[:, :, :3] if img.shape[2] == 3 else _flatten(img)
    return [f for f in _gnome_strip(bgr, "gnome-postmodern", {}) if f.kind != "5z"]


def _flatten(bgra: np.ndarray, bg: int = 255) -> np.ndarray:
    a = bgra[:, :, 3:4].astype(np.float32) / 255.0
    return (bgra[:, :, :3] * a + bg * (1 - a)).astype(np.uint8)


def load_fluffystuff() -> list[Face]:
    """FluffyStuff's riichi tiles shipped in texlive-games (no flowers there)."""
    exe = shutil.which("pdftoppm")
    if exe is None:
        raise TileArtError("pdftoppm not found: install the Debian package poppler-utils")
    if not FLUFFY_DIR.exists():
        raise TileArtError(f"{FLUFFY_DIR} missing: install the Debian package texlive-games")
    names = {f"{n}{s}": f"{n}{s}" for s in "mps" for n in range(1, 10)}
    names.update({f"{n}z": f"{n}z" for n in range(1, 8)})
    faces = []
    with tempfile.TemporaryDirectory() as tmp:
        for src, kind in names.items():
            out = Path(tmp) / src
            subprocess.run([exe, "-r", "150", "-png", "-singlefile", str(FLUFFY_DIR / f"mahjong-{src}.pdf"), str(out)],
                           check=True, capture_output=True)
            img = cv2.imread(str(out) + ".png")
            h, w = img.shape[:2]  # the PDF holds the symbol alone: give it a face's margin
            img = cv2.copyMakeBorder(img, h // 10, h // 10, w // 10, w // 10, cv2.BORDER_CONSTANT, value=(255, 255, 255))
            faces.append(Face(kind, "fluffystuff", cv2.resize(img, FACE_SIZE, interpolation=cv2.INTER_AREA)))
    return faces


# --- faces drawn from fonts --------------------------------------------------------------------
#: Unicode's mahjong block, U+1F000..: winds, dragons (red, green, white), characters, bamboo,
#: circles, then plum orchid bamboo chrysanthemum, spring summer autumn winter.
_UNICODE_ORDER = (["1z", "2z", "3z", "4z", "7z", "6z", "5z"] + _suits("m") + _suits("s") + _suits("p")
                  + ["5f", "6f", "8f", "7f", "1f", "2f", "3f", "4f"])


def load_unicode_font(style: str) -> list[Face]:
    pil = pillow()
    Image, ImageDraw, ImageFont = pil.Image, pil.ImageDraw, pil.ImageFont
    path = SYMBOL_FONTS[style]
    if not path.exists():
        raise TileArtError(f"{path} missing: install fonts-symbola / fonts-noto-core")
    font = ImageFont.truetype(str(path), 400)
    faces = []
    for i, kind in enumerate(_UNICODE_ORDER):
        ch = chr(0x1F000 + i)
        im = Image.new("L", (600, 700), 255)
        ImageDraw.Draw(im).text((50, 20), ch, font=font, fill=0)
        a = np.asarray(im)
        ys, xs = np.nonzero(a < 128)
        if len(xs) == 0:
            continue
        crop = a[ys.min():ys.max() + 1, xs.min():xs.max() + 1]
        # the glyph draws the tile outline too: keep what lies inside it
        h, w = crop.shape
        inner = crop[int(h * 0.06):int(h * 0.94), int(w * 0.08):int(w * 0.92)]
        bgr = cv2.cvtColor(inner, cv2.COLOR_GRAY2BGR)
        faces.append(Face(kind, style, cv2.resize(bgr, FACE_SIZE, interpolation=cv2.INTER_AREA)))
    return faces


# --- registry ----------------------------------------------------------------------------------
#: Styles used for training, each with its loader.
TRAINING_STYLES = (
    *(f"kmahjongg-{n}" for n in KMAHJONGG_SETS),
    "gnome-postmodern",
    *(f"xmahjongg-{n}" for n in _XMJ_SHEETS),
    "fluffystuff",
    *SYMBOL_FONTS,
    "drawn",
)
#: Styles kept strictly for evaluation: never train or tune on them.
RESERVED_STYLES = ("xmahjongg-real", "gnome-smooth")
#: kmahjongg sets whose art is not Chinese tiles at all (letters, hieroglyphs): never trained on,
#: they stand in for "art the network has never seen" when tuning enrollment.
DEV_STYLES = ("kmahjongg-alphabet", "kmahjongg-egypt")


def _load_uncached(style: str) -> list[Face]:
    if style.startswith("kmahjongg-"):
        return load_kmahjongg(style.split("-", 1)[1])
    if style.startswith("xmahjongg-") and style != "xmahjongg-real":
        return load_xmahjongg(style.split("-", 1)[1])
    if style == "xmahjongg-real":
        return load_xmahjongg_real()
    if style == "gnome-smooth":
        return load_gnome_smooth()
    if style == "gnome-postmodern":
        return load_gnome_postmodern()
    if style == "fluffystuff":
        return load_fluffystuff()
    if style in SYMBOL_FONTS:
        return load_unicode_font(style)
    if style == "drawn":
        from vision.drawn import draw_faces

        return draw_faces(seed=0, variants=6)
    raise TileArtError(f"unknown tile style {style!r}; known: {', '.join(TRAINING_STYLES + RESERVED_STYLES + DEV_STYLES)}")


def cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "tablectl" / "tileart"


@functools.lru_cache(maxsize=None)
def load_style(style: str) -> tuple[Face, ...]:
    """All faces of a style, rendered once and cached on disk (rendering SVGs takes seconds). The cache is a
    convenience: a service user with no home (or a read-only one), or a cache file cut short, renders the faces
    again instead of failing the demo's camera or a training run."""
    key = hashlib.sha1(f"{style}-v6".encode()).hexdigest()[:10]
    path = cache_dir() / f"{style}-{key}.npz"
    if path.exists():
        try:
            with np.load(path, allow_pickle=False) as data:
                return tuple(Face(str(k), style, img) for k, img in zip(data["kinds"], data["images"]))
        except (OSError, ValueError, KeyError, zipfile.BadZipFile, EOFError):
            pass  # unreadable: rendered again below, and written over
    faces = _load_uncached(style)
    tmp = path.with_suffix(f".{os.getpid()}.tmp.npz")  # training workers fill the cache at once
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        np.savez_compressed(tmp, kinds=np.array([f.kind for f in faces]), images=np.stack([f.image for f in faces]))
        tmp.replace(path)
    except OSError:
        if tmp.parent.is_dir():
            tmp.unlink(missing_ok=True)
    return tuple(faces)


def contact_sheet(faces: list[Face] | tuple[Face, ...], columns: int = 12) -> np.ndarray:
    """A labelled grid of faces, for checking a set's artwork order by eye."""
    w, h = FACE_SIZE
    rows = (len(faces) + columns - 1) // columns
    sheet = np.full((rows * (h + 20), columns * w, 3), 60, np.uint8)
    for i, f in enumerate(faces):
        r, c = divmod(i, columns)
        sheet[r * (h + 20):r * (h + 20) + h, c * w:(c + 1) * w] = f.image
        cv2.putText(sheet, f.kind, (c * w + 4, r * (h + 20) + h + 15), cv2.FONT_HERSHEY_SIMPLEX, 0.5, (255, 255, 255), 1)
    return sheet


def kinds_covered(faces: list[Face] | tuple[Face, ...]) -> set[str]:
    return {f.kind for f in faces} & set(FACE_KINDS)


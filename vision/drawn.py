"""Tile faces drawn from scratch with CJK fonts and OpenCV, so training sees more than packaged art.

Real sets agree on what matters (the numeral and 萬, the count and layout of dots and sticks, the
character of each wind, dragon, flower and season) and differ in everything else. Drawing those
essentials in many fonts, colours and placements, with numerals on flowers that carry no meaning,
teaches the classifier the essentials.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

from vision.tileart import FACE_SIZE, Face, TileArtError, pillow

CJK_FONTS: tuple[tuple[Path, int], ...] = (
    (Path("/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc"), 2),
    (Path("/usr/share/fonts/opentype/noto/NotoSansCJK-Bold.ttc"), 2),
    (Path("/usr/share/fonts/opentype/noto/NotoSerifCJK-Regular.ttc"), 2),
    (Path("/usr/share/fonts/opentype/noto/NotoSerifCJK-Bold.ttc"), 2),
    (Path("/usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf"), 0),
)
#: More typefaces for training (`TrainConfig.more_fonts`): kai (brush), ming and song, fangsong,
#: heavy hei, a Japanese mincho. Tile makers carve and paint in all of these; a network that saw
#: one typeface learns the typeface rather than the character.
MORE_FONTS: tuple[tuple[Path, int], ...] = (
    (Path("/usr/share/fonts/truetype/arphic/ukai.ttc"), 0),
    (Path("/usr/share/fonts/truetype/arphic/ukai.ttc"), 1),
    (Path("/usr/share/fonts/truetype/arphic/uming.ttc"), 0),
    (Path("/usr/share/fonts/truetype/arphic-gkai00mp/gkai00mp.ttf"), 0),
    (Path("/usr/share/fonts/truetype/cwtex/cwming.ttf"), 0),
    (Path("/usr/share/fonts/truetype/cwtex/cwfs.ttf"), 0),
    (Path("/usr/share/fonts/truetype/cwtex/cwheib.ttf"), 0),
    (Path("/usr/share/fonts/truetype/wqy/wqy-zenhei.ttc"), 0),
    (Path("/usr/share/fonts/truetype/hanazono/HanaMinA.ttf"), 0),
)
#: Brush hands for training (`TrainConfig.brush_fonts`): heavy and light brush (毛筆, 行書), the
#: Taiwan and Big5 standard kai, a textbook hand. Many real sets are carved in such hands; the
#: cursive 草書 face of the same package is left out (no tile maker writes 東 as a scrawl).
BRUSH_FONTS: tuple[tuple[Path, int], ...] = (
    (Path("/usr/share/fonts/truetype/kouzan-mouhitsu/kouzan-mouhitsu.ttf"), 0),
    (Path("/usr/share/fonts/truetype/kouzan-mouhitsu/kouzan-mouhitsu-gyosho.ttf"), 0),
    (Path("/usr/share/fonts/truetype/aoyagi-kouzan-t/AoyagiKouzanT.ttf"), 0),
    (Path("/usr/share/fonts/truetype/aoyagi-soseki/aoyagi-soseki.ttf"), 0),
    (Path("/usr/share/fonts/truetype/cns11643/TW-Kai-98_1.ttf"), 0),
    (Path("/usr/share/fonts/truetype/arphic-bkai00mp/bkai00mp.ttf"), 0),
    (Path("/usr/share/fonts/truetype/klee/KleeOne-SemiBold.ttf"), 0),
)
#: Typefaces no model trains on, for the dev set `drawn-heldout-fonts`: two brush (kai) faces,
#: the hand real tiles are most often carved in.
HELDOUT_FONTS: tuple[tuple[Path, int], ...] = (
    (Path("/usr/share/fonts/truetype/cwtex/cwkai.ttf"), 0),
    (Path("/usr/share/fonts/truetype/lxgw-wenkai/LXGWWenKai-Regular.ttf"), 0),
)
#: The largest character drawn with `big` (font size over the face's height): one character
#: filling the face, as many real sets carve a flower, a season or an honour. Without `big`
#: flowers alone were drawn at 0.32–0.5 and honours at 0.45–0.62, and the committed network reads a
#: flower drawn alone at 0.6–0.7 right 0.39 of the time (0.97 at 0.3–0.4). A model trained with it
#: was tried and not shipped (docs/vision.md, "Characters filling the face").
BIG_CHARS = 0.85
FONT_PACKAGES = "fonts-noto-cjk, fonts-droid-fallback, fonts-arphic-ukai, fonts-arphic-uming, fonts-arphic-gkai00mp, fonts-cwtex-*, " \
    "fonts-wqy-zenhei, fonts-hanazono, fonts-lxgw-wenkai, fonts-kouzan-mouhitsu, fonts-aoyagi-kouzan-t, " \
    "fonts-aoyagi-soseki, fonts-cns11643-kai, fonts-arphic-bkai00mp, fonts-klee"


@lru_cache(maxsize=4096)
def _has_glyph(path: Path, index: int, ch: str) -> bool:
    """Whether the font draws `ch` (not its "missing" box): GB fonts lack 萬, TW fonts lack 万."""
    font = pillow().ImageFont.truetype(str(path), 32, index=index)
    got = np.asarray(font.getmask(ch))
    return got.size > 0 and got.any() and not np.array_equal(got, np.asarray(font.getmask("\U0010fffd")))

_NUMERALS = ("一二三四五六七八九", "一二三四伍六七八九")
_WAN = ("萬", "万")
_HONOUR_CHARS = {"1z": "東东", "2z": "南", "3z": "西", "4z": "北", "7z": "中", "6z": "發发"}
_FLOWER_CHARS = {"1f": "春", "2f": "夏", "3f": "秋", "4f": "冬", "5f": "梅", "6f": "蘭兰", "7f": "菊", "8f": "竹"}
_INKS = {"black": (20, 20, 20), "red": (40, 30, 200), "green": (60, 130, 20), "blue": (150, 60, 20),
         "darkblue": (100, 30, 10), "gold": (30, 140, 190)}
_FACES = ((235, 245, 250), (225, 240, 245), (245, 248, 248), (210, 232, 238), (220, 235, 225))

_DOTS = {
    1: [(0.5, 0.5)], 2: [(0.5, 0.27), (0.5, 0.73)], 3: [(0.25, 0.2), (0.5, 0.5), (0.75, 0.8)],
    4: [(0.3, 0.3), (0.7, 0.3), (0.3, 0.7), (0.7, 0.7)],
    5: [(0.27, 0.25), (0.73, 0.25), (0.5, 0.5), (0.27, 0.75), (0.73, 0.75)],
    6: [(0.3, 0.2), (0.7, 0.2), (0.3, 0.55), (0.7, 0.55), (0.3, 0.82), (0.7, 0.82)],
    7: [(0.2, 0.13), (0.5, 0.24), (0.8, 0.35), (0.3, 0.6), (0.7, 0.6), (0.3, 0.85), (0.7, 0.85)],
    8: [(x, y) for y in (0.14, 0.38, 0.62, 0.86) for x in (0.3, 0.7)],
    9: [(x, y) for y in (0.2, 0.5, 0.8) for x in (0.2, 0.5, 0.8)],
}
_STICKS = {
    2: [(0.5, 0.3), (0.5, 0.7)], 3: [(0.5, 0.3), (0.3, 0.7), (0.7, 0.7)],
    4: [(0.3, 0.3), (0.7, 0.3), (0.3, 0.7), (0.7, 0.7)],
    5: [(0.25, 0.3), (0.75, 0.3), (0.5, 0.5), (0.25, 0.7), (0.75, 0.7)],
    6: [(x, y) for y in (0.3, 0.7) for x in (0.2, 0.5, 0.8)],
    7: [(0.5, 0.18)] + [(x, y) for y in (0.5, 0.82) for x in (0.2, 0.5, 0.8)],
    8: [(x, y) for y in (0.3, 0.7) for x in (0.14, 0.38, 0.62, 0.86)],
    9: [(x, y) for y in (0.18, 0.5, 0.82) for x in (0.2, 0.5, 0.8)],
}


class _Painter:
    """A face canvas drawn at 3x and shrunk, for smooth edges."""

    S = 3

    def __init__(self, rng: np.random.Generator, fonts: tuple[tuple[Path, int], ...] = CJK_FONTS) -> None:
        self.rng = rng
        self.fonts = fonts
        self.w, self.h = FACE_SIZE[0] * self.S, FACE_SIZE[1] * self.S
        bg = np.array(_FACES[rng.integers(len(_FACES))], np.float32) + rng.normal(0, 6, 3)
        self.img = np.empty((self.h, self.w, 3), np.uint8)
        self.img[:] = np.clip(bg, 0, 255).astype(np.uint8)

    def ink(self, *names: str) -> tuple[int, int, int]:
        base = np.array(_INKS[names[self.rng.integers(len(names))]], np.float32)
        return tuple(int(v) for v in np.clip(base + self.rng.normal(0, 15, 3), 0, 255))  # type: ignore[return-value]

    def text(self, ch: str, cx: float, cy: float, size: float, colour: tuple[int, int, int]) -> None:
        pil = pillow()
        Image, ImageDraw, ImageFont = pil.Image, pil.ImageDraw, pil.ImageFont
        path, index = self.fonts[self.rng.integers(len(self.fonts))]
        if not path.exists():
            raise TileArtError(f"{path} missing: install {FONT_PACKAGES}")
        if not _has_glyph(path, index, ch):  # the first typeface of the list that has it
            path, index = next((f for f in self.fonts if f[0].exists() and _has_glyph(*f, ch)), (path, index))
        px = max(8, int(size * self.h))
        font = ImageFont.truetype(str(path), px, index=index)
        layer = Image.new("L", (px * 2, px * 2), 0)
        ImageDraw.Draw(layer).text((px // 2, px // 4), ch, font=font, fill=255)
        a = np.asarray(layer)
        ys, xs = np.nonzero(a > 20)
        if len(xs) == 0:
            return
        a = a[ys.min():ys.max() + 1, xs.min():xs.max() + 1].astype(np.float32) / 255.0
        # squash or stretch a little: tile sets draw characters narrow or wide
        a = cv2.resize(a, None, fx=float(self.rng.uniform(0.8, 1.2)), fy=1.0)
        fit = min(1.0, 0.94 * self.w / a.shape[1], 0.94 * self.h / a.shape[0])  # a real tile never cuts one
        if fit < 1.0:
            a = cv2.resize(a, None, fx=fit, fy=fit, interpolation=cv2.INTER_AREA)
        self._blit(a, int(cx * self.w), int(cy * self.h), colour)

    def _blit(self, alpha: np.ndarray, cx: int, cy: int, colour: tuple[int, int, int]) -> None:
        h, w = alpha.shape
        x0, y0 = cx - w // 2, cy - h // 2
        xa, ya = max(0, x0), max(0, y0)
        xb, yb = min(self.w, x0 + w), min(self.h, y0 + h)
        if xb <= xa or yb <= ya:
            return
        a = alpha[ya - y0:yb - y0, xa - x0:xb - x0, None]
        roi = self.img[ya:yb, xa:xb].astype(np.float32)
        self.img[ya:yb, xa:xb] = (roi * (1 - a) + np.array(colour, np.float32) * a).astype(np.uint8)

    def dot(self, cx: float, cy: float, r: float, colour: tuple[int, int, int]) -> None:
        c = (int(cx * self.w), int(cy * self.h))
        R = int(r * self.w)
        style = self.rng.integers(3)
        cv2.circle(self.img, c, R, colour, max(2, R // 5), cv2.LINE_AA)
        if style == 0:
            cv2.circle(self.img, c, R // 2, colour, -1, cv2.LINE_AA)
        elif style == 1:
            cv2.circle(self.img, c, int(R * 0.6), colour, max(1, R // 8), cv2.LINE_AA)
            cv2.circle(self.img, c, max(1, R // 6), colour, -1, cv2.LINE_AA)
        else:
            for k in range(8):
                t = k * np.pi / 4
                p = (int(c[0] + 0.55 * R * np.cos(t)), int(c[1] + 0.55 * R * np.sin(t)))
                cv2.circle(self.img, p, max(1, R // 7), colour, -1, cv2.LINE_AA)

    def stick(self, cx: float, cy: float, length: float, colour: tuple[int, int, int], tilt: float = 0.0) -> None:
        L, W = length * self.h, 0.06 * self.w
        dx, dy = np.sin(tilt) * L / 2, np.cos(tilt) * L / 2
        p0 = (int(cx * self.w - dx), int(cy * self.h - dy))
        p1 = (int(cx * self.w + dx), int(cy * self.h + dy))
        cv2.line(self.img, p0, p1, colour, int(W), cv2.LINE_AA)
        mid = ((p0[0] + p1[0]) // 2, (p0[1] + p1[1]) // 2)
        for p in (p0, mid, p1):
            cv2.ellipse(self.img, p, (int(W * 0.8), int(W * 0.35)), np.degrees(-tilt), 0, 360, colour, -1, cv2.LINE_AA)
        if self.rng.random() < 0.6:  # the pale stripe down a bamboo stick
            cv2.line(self.img, p0, p1, tuple(int(v) for v in self.img[0, 0]), max(1, int(W / 4)), cv2.LINE_AA)

    def scribble_plant(self) -> None:
        """A plant-like picture that names no kind: stems, leaves and blossoms in random places."""
        rng = self.rng
        green = self.ink("green")
        base = (int(rng.uniform(0.3, 0.7) * self.w), int(rng.uniform(0.75, 0.9) * self.h))
        for _ in range(rng.integers(2, 6)):
            tip = (int(rng.uniform(0.15, 0.85) * self.w), int(rng.uniform(0.3, 0.65) * self.h))
            cv2.line(self.img, base, tip, green, int(rng.integers(2, 6)), cv2.LINE_AA)
            if rng.random() < 0.7:
                cv2.circle(self.img, tip, int(rng.uniform(0.04, 0.1) * self.w), self.ink("red", "blue", "gold"), -1, cv2.LINE_AA)

    def face(self) -> np.ndarray:
        return cv2.resize(self.img, FACE_SIZE, interpolation=cv2.INTER_AREA)


def _plant(p: _Painter, kind: str, box: tuple[float, float, float, float]) -> None:
    """The plant a flower tile names, drawn in `box` (x0, y0, x1, y1, fractions of the face):
    plum blossoms (five round petals) on a crooked branch, orchid (long arching leaves and a few
    open flowers), chrysanthemum (one big many-petalled head), bamboo (jointed stalks, leaves)."""
    rng = p.rng
    x0, y0, x1, y1 = (box[0] * p.w, box[1] * p.h, box[2] * p.w, box[3] * p.h)
    bw, bh = x1 - x0, y1 - y0
    P = lambda fx, fy: (int(x0 + fx * bw), int(y0 + fy * bh))  # noqa: E731
    green, brown = p.ink("green"), (int(rng.uniform(20, 60)), int(rng.uniform(50, 90)), int(rng.uniform(80, 130)))
    if kind == "5f":  # plum
        pts = [P(rng.uniform(0.1, 0.4), 0.95)]
        for k in range(4):
            pts.append(P(float(np.clip(pts[-1][0] / max(bw, 1) - x0 / max(bw, 1) + rng.uniform(-0.3, 0.35), 0.1, 0.9)), 0.95 - 0.22 * (k + 1)))
        cv2.polylines(p.img, [np.array(pts, np.int32)], False, brown, int(max(3, bw * 0.05)), cv2.LINE_AA)
        petal = p.ink("red", "gold", "blue") if rng.random() < 0.8 else (200, 190, 240)
        for _ in range(rng.integers(3, 7)):
            a = pts[rng.integers(1, len(pts))]
            c = (a[0] + int(rng.normal(0, bw * 0.12)), a[1] + int(rng.normal(0, bh * 0.06)))
            r = max(2, int(bw * rng.uniform(0.06, 0.09)))
            for k in range(5):
                t = k * 2 * np.pi / 5 + rng.uniform(0, 1)
                cv2.circle(p.img, (int(c[0] + r * np.cos(t)), int(c[1] + r * np.sin(t))), r, petal, -1, cv2.LINE_AA)
            cv2.circle(p.img, c, max(1, r // 2), (30, 200, 230), -1, cv2.LINE_AA)
    elif kind == "6f":  # orchid
        base = P(rng.uniform(0.35, 0.65), 0.97)
        for _ in range(rng.integers(4, 8)):
            tip = P(rng.uniform(-0.1, 1.1), rng.uniform(0.05, 0.5))
            mid = ((base[0] + tip[0]) // 2 + int(rng.normal(0, bw * 0.15)), (base[1] + tip[1]) // 2)
            cv2.polylines(p.img, [np.array([base, mid, tip], np.int32)], False, green, int(rng.integers(2, 5)), cv2.LINE_AA)
        col = p.ink("blue", "red", "gold")
        for _ in range(rng.integers(1, 4)):
            c = P(rng.uniform(0.2, 0.8), rng.uniform(0.2, 0.55))
            r = max(2, int(bw * rng.uniform(0.07, 0.1)))
            for t in np.linspace(0, 2 * np.pi, 6)[:-1] + rng.uniform(0, 1):
                cv2.ellipse(p.img, (int(c[0] + r * np.cos(t)), int(c[1] + r * np.sin(t))), (r, max(1, r // 2)),
                            float(np.degrees(t)), 0, 360, col, -1, cv2.LINE_AA)
    elif kind == "7f":  # chrysanthemum
        c = P(rng.uniform(0.35, 0.65), rng.uniform(0.25, 0.45))
        cv2.line(p.img, c, P(0.5, 0.98), green, int(max(2, bw * 0.04)), cv2.LINE_AA)
        for _ in range(rng.integers(2, 4)):
            lc = P(rng.uniform(0.2, 0.8), rng.uniform(0.55, 0.9))
            cv2.ellipse(p.img, lc, (int(bw * 0.14), int(bh * 0.05)), rng.uniform(-40, 40), 0, 360, green, -1, cv2.LINE_AA)
        col = p.ink("gold", "red", "blue")
        R = int(bw * rng.uniform(0.25, 0.35))
        n = int(rng.integers(14, 24))
        for k in range(n):
            t = k * 2 * np.pi / n
            cv2.line(p.img, c, (int(c[0] + R * np.cos(t)), int(c[1] + R * np.sin(t))), col, max(2, R // 6), cv2.LINE_AA)
        cv2.circle(p.img, c, max(2, R // 4), p.ink("gold", "red"), -1, cv2.LINE_AA)
    else:  # bamboo
        for _ in range(rng.integers(1, 4)):
            x = rng.uniform(0.2, 0.8)
            top = rng.uniform(0.02, 0.3)
            W = int(max(3, bw * rng.uniform(0.06, 0.1)))
            cv2.line(p.img, P(x, top), P(x + rng.uniform(-0.08, 0.08), 0.98), green, W, cv2.LINE_AA)
            for y in np.arange(top + 0.12, 0.98, rng.uniform(0.12, 0.2)):
                a, b = P(x - 0.06, y), P(x + 0.06, y)
                cv2.line(p.img, a, b, (20, 80, 20), max(1, W // 3), cv2.LINE_AA)
            for _ in range(rng.integers(2, 5)):
                s = P(x, rng.uniform(top, 0.7))
                d = rng.choice([-1, 1])
                tip = (s[0] + int(d * bw * rng.uniform(0.2, 0.35)), s[1] + int(bh * rng.uniform(-0.1, 0.1)))
                cv2.line(p.img, s, tip, green, max(2, W // 2), cv2.LINE_AA)


def _draw_flower(p: _Painter, kind: str, rng: np.random.Generator, big: bool = False) -> None:
    """A flower or season: its character (春夏秋冬梅兰菊竹) big, or small in a corner beside a
    picture, in many inks, frames and placements; flowers often with their plant drawn; a
    numeral that means nothing (sets number them differently) often added. `big`: a character
    alone may fill the face (`BIG_CHARS`)."""
    chars = _FLOWER_CHARS[kind]
    ch = chars[rng.integers(len(chars))]
    j = lambda s: float(rng.normal(0, s))  # noqa: E731
    layout = rng.random()
    if layout < 0.35:  # the character alone, large, maybe in a frame (plain, filled, dark or light)
        frame = rng.random()
        x0, y0 = rng.uniform(0.06, 0.16), rng.uniform(0.05, 0.13)
        pt0, pt1 = (int(p.w * x0), int(p.h * y0)), (int(p.w * (1 - x0)), int(p.h * (1 - y0)))
        ink = p.ink("black", "gold", "red", "green", "blue", "darkblue")
        if frame < 0.3:
            cv2.rectangle(p.img, pt0, pt1, p.ink("black", "gold", "red", "blue"), int(rng.integers(3, 9)))
        elif frame < 0.55:  # a filled panel: the character must contrast with it
            fill = p.ink("black", "darkblue", "red", "green") if rng.random() < 0.6 else (230, 230, 235)
            cv2.rectangle(p.img, pt0, pt1, fill, -1)
            if sum(fill) < 450:
                ink = tuple(int(v) for v in np.clip(np.array((60, 190, 230)) + rng.normal(0, 25, 3), 0, 255)) \
                    if rng.random() < 0.6 else (235, 235, 235)
            if rng.random() < 0.5:
                cv2.rectangle(p.img, pt0, pt1, p.ink("gold", "red"), int(rng.integers(2, 6)))
        hi = (BIG_CHARS if frame >= 0.55 else 0.6) if big else 0.5  # a frame leaves less room
        p.text(ch, 0.5 + j(0.02), 0.5 + j(0.03), rng.uniform(0.32, hi), ink)
        if rng.random() < 0.3:
            p.text(str(rng.integers(1, 5)), rng.choice([0.2, 0.8]), 0.12, 0.1, p.ink("black", "blue", "red"))
    elif layout < 0.85:  # a picture with the character in a corner or down one side
        if kind in ("5f", "6f", "7f", "8f") and rng.random() < 0.75:
            _plant(p, kind, (0.08, rng.uniform(0.22, 0.35), 0.92, 0.95))
        else:
            p.scribble_plant()
        cx = 0.75 if rng.random() < 0.6 else 0.25
        size = rng.uniform(0.15, 0.26)
        p.text(ch, cx + j(0.02), 0.06 + size / 2 + j(0.02), size, p.ink("red", "black", "green", "blue"))
        if rng.random() < 0.7:
            p.text(str(rng.integers(1, 5)), 1.0 - cx, 0.12, 0.12, p.ink("black", "blue", "red"))
    else:  # the character and a picture of the same weight, one above the other
        top = rng.random() < 0.5
        p.text(ch, 0.5 + j(0.02), (0.25 if top else 0.75) + j(0.02), rng.uniform(0.26, 0.36), p.ink("red", "black", "green", "blue"))
        box = (0.15, 0.5, 0.85, 0.95) if top else (0.15, 0.05, 0.85, 0.5)
        if kind in ("5f", "6f", "7f", "8f"):
            _plant(p, kind, box)


def _draw(kind: str, rng: np.random.Generator, fonts: tuple[tuple[Path, int], ...] = CJK_FONTS,
          big: bool = False) -> np.ndarray:
    p = _Painter(rng, fonts)
    n, suit = int(kind[:-1]), kind[-1]
    j = lambda s: float(rng.normal(0, s))  # noqa: E731 - small placement jitter
    if suit == "m":
        numerals = _NUMERALS[rng.integers(2)]
        p.text(numerals[n - 1], 0.5 + j(0.02), 0.28 + j(0.02), rng.uniform(0.28, 0.38), p.ink("black", "darkblue", "blue"))
        p.text(_WAN[rng.integers(2)], 0.5 + j(0.02), 0.7 + j(0.02), rng.uniform(0.34, 0.42), p.ink("red"))
    elif suit == "p":
        r = 0.36 if n == 1 else {2: 0.17, 3: 0.15, 4: 0.16, 5: 0.15, 6: 0.14, 7: 0.12, 8: 0.11, 9: 0.13}[n]
        for x, y in _DOTS[n]:
            p.dot(x + j(0.01), y + j(0.01), r * rng.uniform(0.9, 1.05), p.ink("blue", "green", "red", "black"))
    elif suit == "s":
        if n == 1:
            if rng.random() < 0.5:
                p.stick(0.5, 0.5, 0.6, p.ink("green", "red", "blue"))
            else:  # a bird: body, head, tail and a perch, as most sets draw 幺鸡
                c = p.ink("green", "red", "blue")
                cx, cy = int(p.w * rng.uniform(0.4, 0.6)), int(p.h * rng.uniform(0.4, 0.55))
                cv2.ellipse(p.img, (cx, cy), (int(p.w * 0.18), int(p.h * 0.1)), rng.uniform(-40, 40), 0, 360, c, -1, cv2.LINE_AA)
                cv2.circle(p.img, (cx + int(p.w * 0.15), cy - int(p.h * 0.12)), int(p.w * 0.08), p.ink("red", "green"), -1, cv2.LINE_AA)
                for k in range(3):
                    cv2.line(p.img, (cx - int(p.w * 0.1), cy), (cx - int(p.w * (0.3 + 0.05 * k)), cy + int(p.h * (0.25 + 0.05 * k))),
                             p.ink("green", "blue"), 6, cv2.LINE_AA)
        else:
            length = 0.32 if n in (2, 3, 4, 5, 6) else 0.26
            for i, (x, y) in enumerate(_STICKS[n]):
                tilt = 0.0
                if n == 8:
                    tilt = (0.35 if (i % 2 == 0) else -0.35) * (1 if i < 4 else -1)
                red = i == {5: 2, 7: 0, 9: 4}.get(n, -1)  # the red centre stick most sets draw
                p.stick(x + j(0.01), y + j(0.01), length, p.ink("red") if red and rng.random() < 0.7 else p.ink("green", "blue"), tilt)
    elif kind == "5z":
        style = rng.integers(4)
        c = p.ink("blue", "darkblue", "black")
        if style == 1:
            cv2.rectangle(p.img, (int(p.w * 0.2), int(p.h * 0.15)), (int(p.w * 0.8), int(p.h * 0.85)), c, 8, cv2.LINE_AA)
        elif style == 2:
            cv2.rectangle(p.img, (int(p.w * 0.2), int(p.h * 0.15)), (int(p.w * 0.8), int(p.h * 0.85)), c, 6, cv2.LINE_AA)
            cv2.rectangle(p.img, (int(p.w * 0.35), int(p.h * 0.3)), (int(p.w * 0.65), int(p.h * 0.7)), c, 6, cv2.LINE_AA)
        elif style == 3:
            p.text("白", 0.5, 0.5, rng.uniform(0.4, BIG_CHARS if big else 0.55), c)
        # style 0: a blank face, as many Chinese sets have
    elif suit == "z":
        chars = _HONOUR_CHARS[kind]
        colour = p.ink("red") if kind == "7z" else p.ink("green") if kind == "6z" else p.ink("black", "darkblue", "blue")
        p.text(chars[rng.integers(len(chars))], 0.5 + j(0.02), 0.5 + j(0.03), rng.uniform(0.45, BIG_CHARS if big else 0.62),
               colour)
    elif suit == "f":
        _draw_flower(p, kind, rng, big)
    return p.face()


def draw_faces(seed: int = 0, variants: int = 6, kinds: tuple[str, ...] | None = None,
               fonts: tuple[tuple[Path, int], ...] = CJK_FONTS, big: bool = False) -> list[Face]:
    """`variants` drawn faces of every kind, reproducible from `seed`."""
    from vision.kinds import FACE_KINDS

    rng = np.random.default_rng(seed)
    return [Face(k, "drawn", _draw(k, rng, fonts, big)) for _ in range(variants) for k in (kinds or FACE_KINDS)]


def draw_big_chars(seed: int, fonts: tuple[tuple[Path, int], ...] = HELDOUT_FONTS,
                   size: tuple[float, float] = (0.55, BIG_CHARS)) -> list[Face]:
    """One face per flower, season, wind and dragon with its character alone, filling the face, as
    many real sets carve them: the dev set for characters larger than training drew before
    `big`. A network that learnt a character's size reads such a face by chance."""
    rng = np.random.default_rng(seed)
    out = []
    for kind in (*_FLOWER_CHARS, *_HONOUR_CHARS):
        p = _Painter(rng, fonts)
        chars = _FLOWER_CHARS.get(kind) or _HONOUR_CHARS[kind]
        ink = p.ink("red") if kind == "7z" else p.ink("green") if kind == "6z" else p.ink("black", "blue", "darkblue", "red", "green")
        p.text(chars[rng.integers(len(chars))], 0.5 + float(rng.normal(0, 0.02)), 0.5 + float(rng.normal(0, 0.03)),
               rng.uniform(*size), ink)
        out.append(Face(kind, "drawn-big", p.face()))
    return out


def draw_set(seed: int, kinds: tuple[str, ...] | None = None,
             fonts: tuple[tuple[Path, int], ...] = CJK_FONTS, big: bool = False) -> list[Face]:
    """One face per kind, drawn as one tile set is: the tiles of a group (a suit, the winds, the
    dragons, the flowers and seasons together) share their design, font, inks and frame and
    differ only in what names the kind, as real sets do. The hard case for flowers: eight
    faces alike but for a character or a plant."""
    from vision.kinds import FACE_KINDS

    out = []
    for k in (kinds or FACE_KINDS):
        group = {"m": 1, "p": 2, "s": 3, "f": 4}.get(k[-1], 5 if k in ("1z", "2z", "3z", "4z") else 6)
        out.append(Face(k, "drawn-set", _draw(k, np.random.default_rng([seed, group]), fonts, big)))
    return out

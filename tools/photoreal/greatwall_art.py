"""The Great Wall's printed art for the photoreal renderer, designed here (no project code): the
card faces (one per kind and deck colour), the tokens' faces and the play mat.

Card face convention (docs/great-wall.md, "Camera": the physical contract the reader relies on,
not its artwork): at the card's top-left corner an owner square in the deck colour (11 x 11 mm,
1.5 mm from the edges) and under it the type panel (11 x 23 mm, 14-37 mm down) with the kind's
picture. Everything else -- the panel pictures, the card's ground, frame, illustration, the name,
the value numeral -- is designed here and varies per table (each table its own print run / edition).

Images are RGB uint8; row 0 is the card's top edge, column 0 its left edge.
"""
import math
import zlib

import cv2
import numpy as np

import artwork as art
from pieces import _hsv_jitter

FACE_PPM = 6.0  # card face texture, pixels per mm
TOKEN_PX = 192  # token face texture side (covers the square round the disc)
OWNER_BOX = (1.5, 1.5, 12.5, 12.5)  # x0, y0, x1, y1 (mm from the card's top-left corner)
PANEL_BOX = (1.5, 14.0, 12.5, 37.0)
NAMES = {"wall": "WALL", "gate": "GATE", "tower": "TOWER", "noble": "NOBLE", "soldier": "SOLDIER",
         "cavalry": "CAVALRY", "dragon": "DRAGON"}
VALUES = {"wall": "1", "gate": "2", "tower": "3", "noble": "1", "soldier": "+", "cavalry": "2", "dragon": "1"}


def _bgr(rgb):
    return (int(rgb[2]), int(rgb[1]), int(rgb[0]))


class Pen:
    """Draw in mm on an image at `ppm` px/mm with sub-pixel precision."""

    def __init__(self, img, ppm, ox=0.0, oy=0.0):
        self.img, self.s, self.ox, self.oy = img, ppm, ox, oy

    def p(self, x, y):
        return (int(round((x + self.ox) * self.s * 16)), int(round((y + self.oy) * self.s * 16)))

    def poly(self, pts, col, fill=True, w=0.3):
        a = np.array([self.p(x, y) for x, y in pts], np.int32)
        if fill:
            cv2.fillPoly(self.img, [a], _bgr(col), cv2.LINE_AA, 4)
        else:
            cv2.polylines(self.img, [a], True, _bgr(col), max(1, int(round(w * self.s))), cv2.LINE_AA, 4)

    def line(self, a, b, col, w=0.3):
        cv2.line(self.img, self.p(*a), self.p(*b), _bgr(col), max(1, int(round(w * self.s))), cv2.LINE_AA, 4)

    def polyline(self, pts, col, w=0.3):
        a = np.array([self.p(x, y) for x, y in pts], np.int32)
        cv2.polylines(self.img, [a], False, _bgr(col), max(1, int(round(w * self.s))), cv2.LINE_AA, 4)

    def rect(self, x0, y0, x1, y1, col, fill=True, w=0.3):
        self.poly([(x0, y0), (x1, y0), (x1, y1), (x0, y1)], col, fill, w)

    def ellipse(self, c, ax, col, fill=True, w=0.3, a0=0, a1=360, ang=0):
        cv2.ellipse(self.img, self.p(*c), (int(round(ax[0] * self.s * 16)), int(round(ax[1] * self.s * 16))), ang, a0, a1,
                    _bgr(col), -1 if fill else max(1, int(round(w * self.s))), cv2.LINE_AA, 4)

    def text(self, s, x, y, h, col, font=cv2.FONT_HERSHEY_DUPLEX, thick=1.0, centre=True):
        sc = h * self.s / 22.0
        t = max(1, int(round(sc * 1.6 * thick)))
        (tw, th), _ = cv2.getTextSize(s, font, sc, t)
        x0 = (x + self.ox) * self.s - (tw / 2 if centre else 0)
        cv2.putText(self.img, s, (int(round(x0)), int(round((y + self.oy) * self.s + th / 2))), font, sc, _bgr(col), t, cv2.LINE_AA)


# ----------------------------------------------------------------------------- kind pictures
def icon(pen, kind, x0, y0, w, h, ink, fill):
    """The kind's picture in the box (x0, y0, w, h) mm: ink lines and shapes on the box's ground."""
    X = lambda u: x0 + u * w  # noqa: E731
    Y = lambda v: y0 + v * h  # noqa: E731
    lw = 0.06 * min(w, h * 0.5)
    if kind == "wall":  # brick courses with a crenellated top
        top = 0.3
        for i in range(5):
            pen.rect(X(0.05 + i * 0.19), Y(0.18), X(0.05 + i * 0.19 + 0.1), Y(top), ink)
        pen.rect(X(0.05), Y(top), X(0.95), Y(0.85), fill)
        for r in range(5):
            yy = top + r * 0.11
            pen.line((X(0.05), Y(yy)), (X(0.95), Y(yy)), ink, lw)
            off = 0.15 if r % 2 else 0.0
            for c in range(3):
                xx = 0.2 + off + c * 0.3
                if xx < 0.93:
                    pen.line((X(xx), Y(yy)), (X(xx), Y(yy + 0.11)), ink, lw)
        pen.rect(X(0.05), Y(top), X(0.95), Y(0.85), ink, fill=False, w=lw)
    elif kind == "gate":  # a wall block with a dark arch
        pen.rect(X(0.05), Y(0.2), X(0.95), Y(0.85), fill)
        pen.rect(X(0.05), Y(0.2), X(0.95), Y(0.85), ink, fill=False, w=lw)
        pen.rect(X(0.3), Y(0.55), X(0.7), Y(0.85), ink)
        pen.ellipse((X(0.5), Y(0.55)), (0.2 * w, 0.11 * h), ink)
        pen.poly([(X(0.0), Y(0.2)), (X(0.5), Y(0.08)), (X(1.0), Y(0.2))], ink)
    elif kind == "tower":  # tall tower, pagoda roofs, a window
        pen.rect(X(0.25), Y(0.3), X(0.75), Y(0.9), fill)
        pen.rect(X(0.25), Y(0.3), X(0.75), Y(0.9), ink, fill=False, w=lw)
        for yy, ww in ((0.3, 0.48), (0.16, 0.36)):
            pen.poly([(X(0.5 - ww), Y(yy)), (X(0.5 + ww), Y(yy)), (X(0.5 + ww * 0.5), Y(yy - 0.09)), (X(0.5 - ww * 0.5), Y(yy - 0.09))], ink)
        pen.line((X(0.5), Y(0.07)), (X(0.5), Y(0.02)), ink, lw)
        pen.rect(X(0.42), Y(0.45), X(0.58), Y(0.58), ink)
        pen.rect(X(0.38), Y(0.74), X(0.62), Y(0.9), ink)
    elif kind == "noble":  # a robed figure with a broad hat
        pen.poly([(X(0.15), Y(0.92)), (X(0.85), Y(0.92)), (X(0.66), Y(0.42)), (X(0.34), Y(0.42))], fill)
        pen.poly([(X(0.15), Y(0.92)), (X(0.85), Y(0.92)), (X(0.66), Y(0.42)), (X(0.34), Y(0.42))], ink, fill=False, w=lw)
        pen.line((X(0.5), Y(0.45)), (X(0.5), Y(0.9)), ink, lw)
        pen.ellipse((X(0.5), Y(0.32)), (0.14 * w, 0.07 * h), ink)
        pen.rect(X(0.1), Y(0.2), X(0.9), Y(0.235), ink)
        pen.rect(X(0.38), Y(0.12), X(0.62), Y(0.2), ink)
    elif kind == "soldier":  # a spear with its head and a round shield
        pen.line((X(0.62), Y(0.95)), (X(0.62), Y(0.15)), ink, lw * 1.4)
        pen.poly([(X(0.62), Y(0.03)), (X(0.75), Y(0.17)), (X(0.49), Y(0.17))], ink)
        pen.ellipse((X(0.4), Y(0.58)), (0.3 * w, 0.15 * h), fill)
        pen.ellipse((X(0.4), Y(0.58)), (0.3 * w, 0.15 * h), ink, fill=False, w=lw)
        pen.ellipse((X(0.4), Y(0.58)), (0.08 * w, 0.04 * h), ink)
    elif kind == "cavalry":  # a horse's head and neck
        pts = [(0.3, 0.92), (0.35, 0.55), (0.25, 0.4), (0.12, 0.36), (0.1, 0.28), (0.3, 0.16), (0.4, 0.06),
               (0.47, 0.13), (0.65, 0.2), (0.82, 0.45), (0.85, 0.92)]
        pen.poly([(X(u), Y(v)) for u, v in pts], fill)
        pen.poly([(X(u), Y(v)) for u, v in pts], ink, fill=False, w=lw)
        pen.ellipse((X(0.36), Y(0.24)), (0.05 * w, 0.025 * h), ink)
        for k in range(4):  # mane
            pen.line((X(0.52 + k * 0.08), Y(0.18 + k * 0.08)), (X(0.66 + k * 0.08), Y(0.14 + k * 0.08)), ink, lw)
    else:  # dragon (and anything else): a sinuous body with spikes and a head
        t = np.linspace(0, 1, 40)
        us = 0.5 + 0.3 * np.sin(t * 3 * math.pi)
        vs = 0.2 + 0.72 * t
        pts = [(X(u), Y(v)) for u, v in zip(us, vs)]
        pen.polyline(pts, ink, lw * 2.2)
        pen.polyline(pts, fill, lw * 0.8)
        for i in range(4, 40, 6):
            u, v = us[i], vs[i]
            pen.poly([(X(u - 0.05), Y(v)), (X(u + 0.05), Y(v)), (X(u + 0.14), Y(v - 0.04))], ink)
        pen.ellipse((X(0.5), Y(0.14)), (0.2 * w, 0.07 * h), ink)
        pen.line((X(0.35), Y(0.1)), (X(0.2), Y(0.03)), ink, lw)
        pen.line((X(0.65), Y(0.1)), (X(0.8), Y(0.03)), ink, lw)


# ----------------------------------------------------------------------------- per-table design
def table_design(rng, kinds):
    """This table's print run: grounds, inks, frame, illustration palette, panel tints."""
    grounds = [(244, 238, 222), (236, 226, 204), (248, 246, 240), (230, 222, 200), (240, 232, 214)]
    inks = [(40, 32, 28), (60, 40, 30), (30, 36, 56), (70, 30, 28)]
    tints = [(238, 214, 170), (206, 222, 200), (214, 214, 232), (236, 204, 196), (222, 214, 190), (200, 222, 226),
             (232, 226, 176), (226, 208, 226)]
    order = rng.permutation(len(tints))
    return dict(
        ground=art._jitter_rgb(rng, grounds[rng.integers(len(grounds))], 0.08),
        ink=inks[rng.integers(len(inks))],
        frame=int(rng.integers(3)),  # 0 none, 1 ink double line, 2 a line in the deck colour
        numeral=bool(rng.random() < 0.5),  # the value printed small in the owner square
        corner_style=int(rng.integers(2)),  # 0 square, 1 the owner square with a cut corner
        # the illustration's palette: a green, ochre, blue-grey or brown landscape under a blue, cream or pale sky,
        # the wall in grey stone or sandstone
        sky=art._jitter_rgb(rng, [(178, 204, 226), (232, 218, 188), (208, 214, 212)][rng.integers(3)], 0.1),
        hills=art._jitter_rgb(rng, [(108, 150, 92), (192, 152, 92), (120, 130, 140), (150, 116, 86)][rng.integers(4)], 0.1),
        wall=art._jitter_rgb(rng, [(150, 146, 140), (196, 170, 124)][rng.integers(2)], 0.1),
        panel={k: art._jitter_rgb(rng, tints[order[i % len(tints)]], 0.06) for i, k in enumerate(kinds)},
        font=[cv2.FONT_HERSHEY_DUPLEX, cv2.FONT_HERSHEY_COMPLEX, cv2.FONT_HERSHEY_TRIPLEX, cv2.FONT_HERSHEY_SIMPLEX][rng.integers(4)],
        seed=int(rng.integers(1 << 30)),
    )


def card_face(kind, owner_rgb, w_mm, h_mm, d, rng):
    """RGB image of one card's face: kind `kind` of the deck in `owner_rgb` (the table's colour
    of that deck), `d` this table's design."""
    s = FACE_PPM
    W, H = int(round(w_mm * s)), int(round(h_mm * s))
    img = np.empty((H, W, 3), np.uint8)
    img[:] = _bgr(d["ground"])
    pen = Pen(img, s)
    ink = d["ink"]
    irng = np.random.default_rng([zlib.crc32(kind.encode()), d["seed"]])
    # the illustration: sky, hills and the wall winding over them, right of the index
    ix0, iy0, ix1, iy1 = 15.5, 4.0, w_mm - 3.5, h_mm - 14.0
    pen.rect(ix0, iy0, ix1, iy1, d["sky"])
    hx = np.linspace(ix0, ix1, 24)
    ph = irng.uniform(0, 6)
    hy = iy0 + (iy1 - iy0) * (0.45 + 0.12 * np.sin(hx * 0.18 + ph) + 0.05 * np.sin(hx * 0.5 + ph * 2))
    pen.poly([(ix0, iy1)] + list(zip(hx, hy)) + [(ix1, iy1)], d["hills"])
    wy = hy + 4.0
    pen.polyline(list(zip(hx, wy)), d["wall"], 2.4)
    for x, y in zip(hx[::2], wy[::2]):
        pen.rect(x - 0.5, y - 2.3, x + 0.5, y - 1.0, d["wall"])
    # the kind's big picture in a medallion
    cx, cy = (ix0 + ix1) / 2, iy0 + (iy1 - iy0) * 0.42
    r = min(ix1 - ix0, iy1 - iy0) * 0.34
    pen.ellipse((cx, cy), (r, r * 1.15), d["ground"])
    pen.ellipse((cx, cy), (r, r * 1.15), ink, fill=False, w=0.5)
    icon(pen, kind, cx - r * 0.6, cy - r * 0.95, r * 1.2, r * 1.9, ink, d["panel"][kind])
    pen.rect(ix0, iy0, ix1, iy1, ink, fill=False, w=0.35)
    # name band and value
    pen.text(NAMES.get(kind, kind.upper()), (ix0 + ix1) / 2, h_mm - 8.5, 4.2, ink, d["font"])
    pen.text(VALUES.get(kind, ""), w_mm - 6.5, h_mm - 8.5, 4.2, ink, d["font"], thick=1.3)
    for k in range(int(irng.integers(2, 5))):
        art._glyph(img, irng, 17.0 + k * 7.0, h_mm - 5.0, 3.0, s, ink)
    # frame
    if d["frame"] == 1:
        pen.rect(1.0, 1.0, w_mm - 1.0, h_mm - 1.0, ink, fill=False, w=0.35)
        pen.rect(14.0, 2.0, w_mm - 2.0, h_mm - 2.0, ink, fill=False, w=0.2)
    elif d["frame"] == 2:
        pen.rect(14.0, 1.6, w_mm - 1.6, h_mm - 1.6, owner_rgb, fill=False, w=0.9)
    # the index: owner square (deck colour), type panel (the kind's picture on its tint)
    x0, y0, x1, y1 = OWNER_BOX
    if d["corner_style"] == 1:
        pen.poly([(x0 + 2.0, y0), (x1, y0), (x1, y1), (x0, y1), (x0, y0 + 2.0)], owner_rgb)
    else:
        pen.rect(x0, y0, x1, y1, owner_rgb)
    if d["numeral"]:
        pen.text(VALUES.get(kind, ""), x1 - 2.6, y0 + 2.6, 2.6, (250, 248, 240), cv2.FONT_HERSHEY_SIMPLEX)
    px0, py0, px1, py1 = PANEL_BOX
    pen.rect(px0, py0, px1, py1, d["panel"][kind])
    icon(pen, kind, px0 + 0.8, py0 + 1.0, px1 - px0 - 1.6, py1 - py0 - 2.0, ink, d["panel"][kind])
    pen.rect(px0, py0, px1, py1, ink, fill=False, w=0.25)
    # this copy's print: a touch of paper noise and softness
    nz = rng.normal(0, 2.0, img.shape[:2]).astype(np.float32)
    img = np.clip(img.astype(np.float32) + nz[..., None], 0, 255).astype(np.uint8)
    img = cv2.GaussianBlur(img, (0, 0), 0.5)
    return cv2.cvtColor(img, cv2.COLOR_BGR2RGB)


def token_print(rgb, rng):
    """This table's token print run: the gold, and whether the face has a darker edge band."""
    return dict(gold=_hsv_jitter(rng, rgb, 0.08, 5), band=bool(rng.random() < 0.5))


def token_face(label, tp, ink=(70, 45, 20)):
    """RGB image of a token's face: a gold disc (half the tables with a darker edge band), an ink ring,
    the value, a wall mark under it and a
    dot above it (so the four turns differ), covering the square round the disc."""
    n = TOKEN_PX
    s = n / 26.0
    img = np.empty((n, n, 3), np.uint8)
    gold = tp["gold"]
    img[:] = _bgr(gold)
    pen = Pen(img, s)
    if tp["band"]:  # a printed edge band, a darker gold (else the face runs plain to the edge)
        pen.ellipse((13, 13), (12.4, 12.4), tuple(int(c * 0.72) for c in gold), fill=False, w=1.0)
    pen.ellipse((13, 13), (10.6, 10.6), ink, fill=False, w=0.45)
    pen.text(label, 13.0, 12.2, 11.0, ink, cv2.FONT_HERSHEY_TRIPLEX, thick=1.6)
    for i in range(5):  # crenellations under the digit
        pen.rect(8.6 + i * 1.9, 18.6, 9.6 + i * 1.9, 19.6, ink)
    pen.rect(8.6, 19.6, 17.5, 20.6, ink)
    pen.ellipse((13, 4.8), (0.9, 0.9), ink)
    img = cv2.GaussianBlur(img, (0, 0), 0.6)
    return cv2.cvtColor(img, cv2.COLOR_BGR2RGB)


# ----------------------------------------------------------------------------- the play mat
def make_artwork(layout, rng, regions, ppm=4):
    """The play mat's print: a cloth-like ground, a border with a crenellation frieze, per section
    a token box with two spots and a row box, section numerals, a title and the AprilTags."""
    W, H = layout.W, layout.H
    w, h = int(round(W * ppm)), int(round(H * ppm))
    mode = int(rng.integers(3))  # 0 the layout's tints, 1 a darker mat with light boxes, 2 a pale grey-green mat
    ground = [layout.background_rgb, (150, 128, 96), (206, 212, 200)][mode]
    ground = art._jitter_rgb(rng, ground, 0.12)
    ink = [(50, 36, 28), (110, 30, 26), (30, 44, 70)][rng.integers(3)]
    font = [cv2.FONT_HERSHEY_SIMPLEX, cv2.FONT_HERSHEY_COMPLEX, cv2.FONT_HERSHEY_TRIPLEX][rng.integers(3)]
    img = np.empty((h, w, 3), np.uint8)
    img[:] = _bgr(ground)
    img = art.grain(img, rng, 10, 4.0, 0.7, 3.0)  # cloth: woven fine noise and a slow mottle
    pen = Pen(img, ppm)
    m = rng.uniform(4, 8)
    pen.rect(m, m, W - m, H - m, ink, fill=False, w=rng.uniform(0.6, 1.5))
    qz = layout.marker_size + 14
    x = qz + 6
    step = rng.uniform(9, 14)
    while x < W - qz - 10:  # crenellation frieze top and bottom
        for yy in (m + 3.0, H - m - 7.0):
            pen.rect(x, yy, x + step * 0.5, yy + 4.0, ink, fill=False, w=0.4)
        x += step
    for r in layout.regions:
        poly, rid = r.get("polygon"), r.get("id", "")
        if not poly:
            continue
        tint = r.get("tint_rgb", ground)
        if mode == 1:
            tint = tuple(int(v * 0.95) for v in tint) if rid.endswith("-row") else tint
        elif mode == 2:
            tint = tuple(int(0.6 * a + 0.4 * b) for a, b in zip(tint, (236, 240, 232)))
        tint = art._jitter_rgb(rng, tint, 0.06)
        pen.poly(poly, tint)
        lw = 0.5 if "-token-" in rid else 0.7
        pen.poly(poly, ink, fill=False, w=lw)
        if "-token-" in rid:
            c = np.mean(np.array(poly), axis=0)
            pen.ellipse(tuple(c), (4.0, 4.0), ink, fill=False, w=0.3)
    for i, sp in enumerate(layout.spaces):
        pts = np.array(sp["points_mm"], float)
        pen.poly(pts.tolist(), ink, fill=False, w=rng.uniform(0.5, 1.2))
        x0, y0 = pts.min(axis=0)
        pen.text(["I", "II", "III", "IV", "V", "VI"][i % 6], x0 + 13, y0 + 6.5, 5.5, ink, font)
    if rng.random() < 0.8:
        pen.text("THE GREAT WALL", W / 2, H - m - 13.0, rng.uniform(7, 9), ink, font)
    dic = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_APRILTAG_36h11)
    side_px = int(round(layout.marker_size * ppm))
    for mid, (cx, cy) in layout.markers:
        q = layout.marker_size / 2 + layout.marker_size / 8.0 * 1.2
        pen.rect(cx - q, cy - q, cx + q, cy + q, (255, 255, 255))
        tag = cv2.resize(cv2.aruco.generateImageMarker(dic, mid, 8), (side_px, side_px), interpolation=cv2.INTER_NEAREST)
        x0 = int(round((cx - layout.marker_size / 2) * ppm)); y0 = int(round((cy - layout.marker_size / 2) * ppm))
        img[y0:y0 + side_px, x0:x0 + side_px] = np.where(tag[..., None] > 0, 255, 18).astype(np.uint8)
    img = cv2.GaussianBlur(img, (0, 0), 0.5)
    return cv2.cvtColor(img, cv2.COLOR_BGR2RGB)

"""Cheops' printed tile faces for the photoreal renderer (family portraits, the neighbour tile, the
laws' common back): drawn here with OpenCV, no project code. Split from cheops.py.
"""
import math
import zlib

import cv2
import numpy as np

from pieces import _hsv_jitter

FACE_PX = 256  # printed face texture, pixels per tile side
TILE_KINDS_FAMILY = ["family-A", "family-B", "family-C", "family-D"]


def _bgr(rgb):
    return (int(rgb[2]), int(rgb[1]), int(rgb[0]))


def _poly(img, pts, col, s):
    cv2.fillPoly(img, [np.round(np.array(pts) * s * 16).astype(np.int32)], _bgr(col), cv2.LINE_AA, 4)


def _figure(img, rng, cx, base_y, height, skin, cloth, head_col, ink, s, facing):
    """A stylised Egyptian figure in profile (units: face-art mm, 0..38)."""
    hh = height * 0.17
    body_top = base_y - height + hh * 1.9
    # body (kilt / dress trapezoid) and torso
    _poly(img, [(cx - height * 0.16, base_y), (cx + height * 0.16, base_y),
                (cx + height * 0.10, body_top + height * 0.35), (cx - height * 0.10, body_top + height * 0.35)], cloth, s)
    _poly(img, [(cx - height * 0.12, body_top + height * 0.36), (cx + height * 0.12, body_top + height * 0.36),
                (cx + height * 0.15, body_top), (cx - height * 0.15, body_top)], skin, s)
    # arm
    ax = cx + facing * height * 0.12
    cv2.line(img, (int(ax * s * 16), int((body_top + 1) * s * 16)),
             (int((ax + facing * height * 0.18) * s * 16), int((body_top + height * 0.22) * s * 16)),
             _bgr(skin), max(1, int(height * 0.06 * s)), cv2.LINE_AA, 4)
    # head + headdress (nemes) with stripes
    hy = body_top - hh * 0.95
    cv2.ellipse(img, (int(cx * s * 16), int(hy * s * 16)), (int(hh * 0.8 * s * 16), int(hh * s * 16)), 0, 0, 360,
                _bgr(skin), -1, cv2.LINE_AA, 4)
    _poly(img, [(cx - facing * hh * 1.1, hy - hh * 1.05), (cx + facing * hh * 0.6, hy - hh * 1.05),
                (cx + facing * hh * 0.2, hy - hh * 0.2), (cx - facing * hh * 1.2, hy + hh * 1.3),
                (cx - facing * hh * 0.4, hy + hh * 1.4)], head_col, s)
    for k in range(3):
        yy = hy - hh * 0.6 + k * hh * 0.6
        cv2.line(img, (int((cx - facing * hh * 1.1) * s * 16), int(yy * s * 16)),
                 (int((cx - facing * hh * 0.3) * s * 16), int(yy * s * 16)), _bgr(ink), 1, cv2.LINE_AA, 4)
    # eye
    cv2.circle(img, (int((cx + facing * hh * 0.35) * s * 16), int((hy - hh * 0.1) * s * 16)), int(hh * 0.14 * s * 16),
               _bgr(ink), -1, cv2.LINE_AA, 4)


def _glyph_band(img, rng, y0, y1, x0, x1, s, ink):
    x = x0
    while x < x1 - 2:
        w = rng.uniform(2.0, 3.2)
        kind = rng.integers(4)
        cx, cy = x + w / 2, (y0 + y1) / 2
        if kind == 0:
            cv2.circle(img, (int(cx * s), int(cy * s)), max(1, int(w * 0.35 * s)), _bgr(ink), 1, cv2.LINE_AA)
        elif kind == 1:
            cv2.line(img, (int(cx * s), int(y0 * s)), (int(cx * s), int(y1 * s)), _bgr(ink), 1, cv2.LINE_AA)
        elif kind == 2:
            cv2.line(img, (int(x * s), int(y1 * s)), (int((x + w) * s), int(y0 * s)), _bgr(ink), 1, cv2.LINE_AA)
            cv2.line(img, (int(x * s), int(cy * s)), (int((x + w) * s), int(cy * s)), _bgr(ink), 1, cv2.LINE_AA)
        else:
            cv2.ellipse(img, (int(cx * s), int(cy * s)), (max(1, int(w * 0.45 * s)), max(1, int((y1 - y0) * 0.3 * s))),
                        0, 180, 360, _bgr(ink), 1, cv2.LINE_AA)
        x += w + rng.uniform(0.4, 1.0)


def face_art(kind, set_seed, table_rng, label=None, rgb=None):
    """RGB uint8 FACE_PX x FACE_PX image of a tile's printed face (row 0 = tile -y edge).
    The design is fixed per kind and set seed (an edition of the game); each table's copy is
    printed a little differently (ink saturation / brightness +-8 %, slight blur)."""
    rng = np.random.default_rng([zlib.crc32(kind.encode()), set_seed])
    s = FACE_PX / 38.0
    img = np.zeros((FACE_PX, FACE_PX, 3), np.uint8)
    ink = (35, 28, 22)
    gold = (205, 165, 70)
    if kind.startswith("family-"):
        i = TILE_KINDS_FAMILY.index(kind) if kind in TILE_KINDS_FAMILY else int(rng.integers(4))
        grounds = [(214, 170, 90), (80, 160, 160), (190, 95, 70), (150, 160, 90)]
        ground = _hsv_jitter(rng, grounds[i % 4], 0.08, 6)
        img[:] = _bgr(ground)
        # sky band / floor band
        cv2.rectangle(img, (0, int(27 * s)), (FACE_PX, FACE_PX), _bgr(tuple(int(c * 0.7) for c in ground)), -1)
        cv2.rectangle(img, (int(1.2 * s), int(1.2 * s)), (int(36.8 * s), int(36.8 * s)), _bgr(ink), max(1, int(0.7 * s)), cv2.LINE_AA)
        cv2.rectangle(img, (int(2.4 * s), int(2.4 * s)), (int(35.6 * s), int(35.6 * s)), _bgr(gold), max(1, int(0.4 * s)), cv2.LINE_AA)
        skins = [(170, 110, 70), (140, 85, 55), (190, 130, 85)]
        cloths = [(240, 236, 220), (60, 90, 150), (200, 60, 50), (230, 200, 80), (70, 120, 80)]
        n_fig = [1, 2, 3, 2][i % 4]
        xs = {1: [19.0], 2: [13.0, 25.0], 3: [10.0, 19.0, 28.0]}[n_fig]
        for j, x in enumerate(xs):
            hgt = (22.0 if n_fig == 1 else 18.0) * (0.65 if (i == 3 and j == 1) else 1.0) * rng.uniform(0.92, 1.05)
            _figure(img, rng, x, 30.5, hgt, skins[rng.integers(3)], cloths[(i + j * 2) % 5], (40, 50, 120) if j % 2 else gold,
                    ink, s, 1 if (j + i) % 2 == 0 else -1)
        _glyph_band(img, rng, 32.2, 35.0, 4.0, 34.0, s, ink)
        # label in a cartouche, top left
        cv2.ellipse(img, (int(8.0 * s), int(8.0 * s)), (int(4.6 * s), int(4.6 * s)), 0, 0, 360, _bgr((242, 230, 200)), -1, cv2.LINE_AA)
        cv2.ellipse(img, (int(8.0 * s), int(8.0 * s)), (int(4.6 * s), int(4.6 * s)), 0, 0, 360, _bgr(ink), max(1, int(0.5 * s)), cv2.LINE_AA)
        if label:
            (tw, th), _ = cv2.getTextSize(label, cv2.FONT_HERSHEY_DUPLEX, 1.0, 2)
            sc = 5.5 * s / th
            cv2.putText(img, label, (int(8.0 * s - tw * sc / 2), int(8.0 * s + th * sc / 2)), cv2.FONT_HERSHEY_DUPLEX, sc,
                        _bgr(ink), max(1, int(sc * 2)), cv2.LINE_AA)
    elif kind == "neighbour":
        ground = _hsv_jitter(rng, (225, 200, 150), 0.06, 5)
        img[:] = _bgr(ground)
        cv2.rectangle(img, (0, 0), (FACE_PX, int(14 * s)), _bgr((150, 190, 215)), -1)          # sky
        cv2.circle(img, (int(29 * s), int(7 * s)), int(3.5 * s), _bgr((245, 200, 60)), -1, cv2.LINE_AA)  # sun
        # mud-brick houses
        for x0, w, hgt in [(4, 11, 11), (15, 9, 15), (24, 10, 9)]:
            cv2.rectangle(img, (int(x0 * s), int((30 - hgt) * s)), (int((x0 + w) * s), int(30 * s)), _bgr((185, 140, 95)), -1)
            cv2.rectangle(img, (int(x0 * s), int((30 - hgt) * s)), (int((x0 + w) * s), int(30 * s)), _bgr(ink), 1, cv2.LINE_AA)
            cv2.rectangle(img, (int((x0 + w * 0.4) * s), int((30 - hgt * 0.45) * s)), (int((x0 + w * 0.6) * s), int(30 * s)), _bgr(ink), -1)
        # palm tree
        cv2.line(img, (int(33 * s), int(30 * s)), (int(31 * s), int(14 * s)), _bgr((110, 75, 40)), max(1, int(1.0 * s)), cv2.LINE_AA)
        for a in range(0, 360, 60):
            ca, sa = math.cos(math.radians(a)), math.sin(math.radians(a))
            cv2.ellipse(img, (int((31 + 2.5 * ca) * s), int((14 + 1.5 * sa) * s)), (int(3 * s), int(0.9 * s)), a, 0, 360,
                        _bgr((60, 130, 60)), -1, cv2.LINE_AA)
        cv2.rectangle(img, (0, int(30 * s)), (FACE_PX, FACE_PX), _bgr((200, 170, 110)), -1)
        _glyph_band(img, rng, 32.0, 35.5, 3.0, 35.0, s, ink)
        cv2.rectangle(img, (int(1.0 * s), int(1.0 * s)), (int(37 * s), int(37 * s)), _bgr((90, 60, 35)), max(1, int(0.9 * s)), cv2.LINE_AA)
    else:  # law (the common back) or any other printed kind
        ground = tuple(rgb) if rgb else (90, 70, 45)
        ground = _hsv_jitter(rng, ground, 0.06, 5)
        img[:] = _bgr(ground)
        light = tuple(min(255, int(c * 1.5 + 30)) for c in ground)
        # diagonal papyrus weave
        for k in range(-FACE_PX, FACE_PX, int(2.2 * s)):
            cv2.line(img, (k, 0), (k + FACE_PX, FACE_PX), _bgr(tuple(int(c * 0.85) for c in ground)), 1, cv2.LINE_AA)
        cv2.rectangle(img, (int(2 * s), int(2 * s)), (int(36 * s), int(36 * s)), _bgr(gold), max(1, int(0.8 * s)), cv2.LINE_AA)
        # an ankh, off-centre (so the four turns differ), and a small seal in one corner
        cx, cy = 17.0, 16.5
        cv2.ellipse(img, (int(cx * s), int((cy - 5) * s)), (int(3.2 * s), int(4.5 * s)), 0, 0, 360, _bgr(gold), max(1, int(1.3 * s)), cv2.LINE_AA)
        cv2.line(img, (int(cx * s), int((cy - 0.5) * s)), (int(cx * s), int((cy + 13) * s)), _bgr(gold), max(1, int(1.6 * s)), cv2.LINE_AA)
        cv2.line(img, (int((cx - 6) * s), int((cy + 2) * s)), (int((cx + 6) * s), int((cy + 2) * s)), _bgr(gold), max(1, int(1.6 * s)), cv2.LINE_AA)
        cv2.circle(img, (int(30.5 * s), int(30.5 * s)), int(3.0 * s), _bgr(light), -1, cv2.LINE_AA)
        cv2.circle(img, (int(30.5 * s), int(30.5 * s)), int(3.0 * s), _bgr(gold), max(1, int(0.4 * s)), cv2.LINE_AA)
        if label:
            cv2.putText(img, label, (int(28.5 * s), int(32 * s)), cv2.FONT_HERSHEY_SIMPLEX, 0.6, _bgr(ink), 1, cv2.LINE_AA)
    # this table's print run
    hsv = cv2.cvtColor(img, cv2.COLOR_BGR2HSV).astype(np.float32)
    hsv[..., 1] *= table_rng.uniform(0.92, 1.08)
    hsv[..., 2] *= table_rng.uniform(0.92, 1.08)
    img = cv2.cvtColor(np.clip(hsv, 0, 255).astype(np.uint8), cv2.COLOR_HSV2BGR)
    img = cv2.GaussianBlur(img, (0, 0), 0.6)
    return cv2.cvtColor(img, cv2.COLOR_BGR2RGB)

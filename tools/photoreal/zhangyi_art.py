"""Zhang Yi's printed map and printed counters for the photoreal renderer, drawn here with OpenCV
from the layout JSON alone (no project code, no bpy).

* ``make_artwork``: the map sheet -- paper, sea/land, every area polygon as land with its state's
  wash and an ink border, rivers and mountain ranges along some shared borders (the layout has no
  border types: they are decoration chosen per table), city seals (the rules' red square frame),
  area names, the three holding boxes and the dice tray, a title, the AprilTag corner markers.
* ``counter_face``: the printed top of a counter (army value, talent name, state chit) on the
  owner's colour, with a hand-made stroke font for the digits and per-copy print misregistration.
* ``die_atlas``: the six pip faces of a die in a 3x2 atlas (``DIE_CELLS`` says which cell is which).
"""
import math
import zlib

import cv2
import numpy as np

import artwork as art

FACE_PX = 192          # printed face texture, pixels per counter side
DIE_CELL = 128         # pixels per die face in the atlas

# hand-made stroke digits on a 0..1 x 0..1 box (y down): list of polylines
DIGITS = {
    1: [[(0.28, 0.22), (0.55, 0.04), (0.55, 0.96)], [(0.30, 0.96), (0.80, 0.96)]],
    2: [[(0.16, 0.24), (0.26, 0.10), (0.45, 0.03), (0.66, 0.06), (0.80, 0.20), (0.80, 0.38), (0.62, 0.58),
         (0.16, 0.96), (0.86, 0.96)]],
    3: [[(0.16, 0.12), (0.36, 0.03), (0.62, 0.04), (0.78, 0.16), (0.78, 0.34), (0.62, 0.46), (0.42, 0.48)],
        [(0.62, 0.50), (0.82, 0.62), (0.84, 0.80), (0.68, 0.95), (0.40, 0.97), (0.14, 0.86)]],
    4: [[(0.66, 0.96), (0.66, 0.04), (0.12, 0.70), (0.90, 0.70)]],
}
STATE_ABBR = {"qin": "QIN", "chu": "CHU", "qi": "QI", "yan": "YAN", "zhao": "ZHAO", "wei": "WEI", "han": "HAN"}
# the six faces of a die: (local axis, sign) -> atlas cell (col, row)
DIE_CELLS = {(2, 1): (0, 0), (2, -1): (1, 0), (0, 1): (2, 0), (0, -1): (0, 1), (1, 1): (1, 1), (1, -1): (2, 1)}
PIPS = {1: [(0, 0)], 2: [(-1, -1), (1, 1)], 3: [(-1, -1), (0, 0), (1, 1)], 4: [(-1, -1), (1, -1), (-1, 1), (1, 1)],
        5: [(-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)], 6: [(-1, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (1, 1)]}


def _bgr(rgb):
    return (int(rgb[2]), int(rgb[1]), int(rgb[0]))


def _lum(rgb):
    return 0.299 * rgb[0] + 0.587 * rgb[1] + 0.114 * rgb[2]


def stroke_digit(img, v, box, colour, width_px, slant=0.0, wobble=0.0, rng=None):
    """Draw digit ``v`` with the hand-made stroke font in ``box`` (x0, y0, x1, y1 px)."""
    x0, y0, x1, y1 = box
    S = 16
    for line in DIGITS[v]:
        pts = []
        for u, t in line:
            du = dv = 0.0
            if rng is not None and wobble:
                du, dv = rng.normal(0, wobble, 2)
            x = x0 + (u + du + slant * (0.5 - t)) * (x1 - x0)
            y = y0 + (t + dv) * (y1 - y0)
            pts.append((int(round(x * S)), int(round(y * S))))
        cv2.polylines(img, [np.array(pts, np.int32)], False, _bgr(colour), int(max(1, width_px)), cv2.LINE_AA, 4)


def _pseudo_glyph(img, seed, cx, cy, size, colour, width):
    """A made-up, character-like block of strokes for a state's name (deterministic per state)."""
    r = np.random.default_rng(seed)
    S = 16
    for _ in range(int(r.integers(4, 7))):
        kind = r.integers(3)
        a = np.array([r.uniform(-0.45, 0.45), r.uniform(-0.45, 0.45)])
        if kind == 0:    # horizontal
            b = a + [r.uniform(0.3, 0.8), r.uniform(-0.05, 0.05)]
        elif kind == 1:  # vertical
            b = a + [r.uniform(-0.05, 0.05), r.uniform(0.3, 0.8)]
        else:            # sweep
            b = a + [r.uniform(-0.5, 0.5), r.uniform(0.3, 0.6)]
        b = np.clip(b, -0.5, 0.5)
        p = [(int((cx + q[0] * size) * S), int((cy + q[1] * size) * S)) for q in (a, b)]
        cv2.line(img, p[0], p[1], _bgr(colour), int(max(1, width)), cv2.LINE_AA, 4)


# ----------------------------------------------------------------------------- counters
def edition(set_seed):
    """The design of this printing of the game (fixed per set seed): how the counters look."""
    r = np.random.default_rng([zlib.crc32(b"zhangyi-edition"), set_seed])
    return dict(frame=int(r.integers(3)), digit_dark=bool(r.random() < 0.35), seal=bool(r.random() < 0.7),
                name_font=[cv2.FONT_HERSHEY_SIMPLEX, cv2.FONT_HERSHEY_COMPLEX, cv2.FONT_HERSHEY_TRIPLEX,
                           cv2.FONT_HERSHEY_COMPLEX_SMALL][int(r.integers(4))],
                slant=float(r.uniform(-0.12, 0.12)))


def counter_face(owner, kind, label, ground_rgb, ed, table_rng, ink=(25, 22, 20), misreg_mm=0.3):
    """RGB uint8 FACE_PX x FACE_PX: a counter's printed top (row 0 = the counter's +y edge).
    kind: ``army-<v>``, ``talent-...``, ``chit``. The ground is printed first, the black/white plate
    shifted by up to ``misreg_mm`` (misregistration), then the table's print run (+-8 % S, V)."""
    s = FACE_PX / 16.0   # px per mm
    img = np.zeros((FACE_PX, FACE_PX, 3), np.uint8)
    ground = tuple(int(c) for c in ground_rgb)
    img[:] = _bgr(ground)
    dark = _lum(ground) > 150
    fg = ink if (dark or ed["digit_dark"]) and _lum(ground) > 90 else (248, 245, 236)
    light = tuple(min(255, int(c * 0.45 + 140)) for c in ground)
    # plate offset (misregistration) of the key plate
    off = table_rng.uniform(-misreg_mm, misreg_mm, 2) * s
    layer = img.copy()
    # frame
    if ed["frame"] == 0:
        cv2.rectangle(layer, (int(1.1 * s), int(1.1 * s)), (int(14.9 * s), int(14.9 * s)), _bgr(light), max(1, int(0.35 * s)), cv2.LINE_AA)
    elif ed["frame"] == 1:
        cv2.rectangle(layer, (int(0.9 * s), int(0.9 * s)), (int(15.1 * s), int(15.1 * s)), _bgr(fg), max(1, int(0.25 * s)), cv2.LINE_AA)
    if kind.startswith("army-"):
        v = int(kind.split("-")[1])
        # state seal: a circle with a made-up glyph, top left
        if ed["seal"]:
            cv2.circle(layer, (int(4.4 * s), int(4.4 * s)), int(3.2 * s), _bgr(light), -1, cv2.LINE_AA)
            _pseudo_glyph(layer, zlib.crc32(owner.encode()), 4.4 * s, 4.4 * s, 3.6 * s, ink, 0.45 * s)
            box = (6.2 * s, 3.0 * s, 14.2 * s, 14.2 * s)
        else:
            box = (4.2 * s, 2.4 * s, 11.8 * s, 13.8 * s)
        stroke_digit(layer, v, box, fg, 1.5 * s, ed["slant"], 0.015, table_rng)
    elif kind.startswith("talent-"):
        # name in two lines in the edition's type, a small seal mark below
        words = label.split() if label else [kind[7:]]
        lines = [" ".join(words[:1]), " ".join(words[1:])] if len(words) > 1 else [words[0]]
        font = ed["name_font"]
        for i, ln in enumerate(lines):
            (tw, th), _ = cv2.getTextSize(ln, font, 1.0, 2)
            sc = min(13.0 * s / tw, 3.4 * s / th)
            y = (6.2 + 4.6 * i) * s if len(lines) > 1 else 9.5 * s
            cv2.putText(layer, ln, (int(8.0 * s - tw * sc / 2), int(y + th * sc / 2)), font, sc, _bgr(fg),
                        max(1, int(round(sc * 1.6))), cv2.LINE_AA)
        cv2.line(layer, (int(4 * s), int(13.3 * s)), (int(12 * s), int(13.3 * s)), _bgr(light), max(1, int(0.4 * s)), cv2.LINE_AA)
    elif kind == "chit":
        # (a 20 mm disc; the face is mapped to its bounding square) white circle with the state name
        cv2.circle(layer, (FACE_PX // 2, FACE_PX // 2), int(5.4 * s), _bgr((244, 240, 230)), -1, cv2.LINE_AA)
        name = STATE_ABBR.get(owner, owner.upper())
        (tw, th), _ = cv2.getTextSize(name, ed["name_font"], 1.0, 2)
        sc = min(8.0 * s / tw, 3.0 * s / th)
        cv2.putText(layer, name, (int(8 * s - tw * sc / 2), int(8 * s + th * sc / 2)), ed["name_font"], sc, _bgr(ink),
                    max(1, int(round(sc * 1.6))), cv2.LINE_AA)
    # misregistration: the key plate (everything drawn over the ground) shifted
    M = np.float32([[1, 0, off[0]], [0, 1, off[1]]])
    diff = (np.abs(layer.astype(np.int16) - img.astype(np.int16)).sum(axis=2) > 0).astype(np.float32)
    shifted = cv2.warpAffine(layer, M, (FACE_PX, FACE_PX), borderMode=cv2.BORDER_REPLICATE)
    dm = cv2.warpAffine(diff, M, (FACE_PX, FACE_PX))[..., None]
    img = (img * (1 - dm) + shifted * dm).astype(np.uint8)
    # print run, paper tooth
    hsv = cv2.cvtColor(img, cv2.COLOR_BGR2HSV).astype(np.float32)
    hsv[..., 1] *= table_rng.uniform(0.92, 1.08)
    hsv[..., 2] *= table_rng.uniform(0.92, 1.08)
    img = cv2.cvtColor(np.clip(hsv, 0, 255).astype(np.uint8), cv2.COLOR_HSV2BGR)
    tooth = cv2.GaussianBlur(table_rng.normal(0, 1, img.shape[:2]).astype(np.float32), (0, 0), 0.9) * 3.0
    img = np.clip(img.astype(np.float32) + tooth[..., None], 0, 255).astype(np.uint8)
    img = cv2.GaussianBlur(img, (0, 0), 0.7)
    return cv2.cvtColor(img, cv2.COLOR_BGR2RGB)


def die_atlas(top, body_rgb, pip_rgb, rng):
    """RGB atlas (2 rows x 3 columns of DIE_CELL px) of a die whose +z face shows ``top``;
    opposite faces add up to 7. Returns (atlas, values per (axis, sign))."""
    others = [v for v in range(1, 7) if v not in (top, 7 - top)]
    a = int(rng.choice(others))
    b = int(rng.choice([v for v in others if v not in (a, 7 - a)]))
    vals = {(2, 1): top, (2, -1): 7 - top, (0, 1): a, (0, -1): 7 - a, (1, 1): b, (1, -1): 7 - b}
    img = np.zeros((2 * DIE_CELL, 3 * DIE_CELL, 3), np.uint8)
    img[:] = _bgr(body_rgb)
    S = 16
    for key, v in vals.items():
        c, r = DIE_CELLS[key]
        cx, cy = (c + 0.5) * DIE_CELL, (r + 0.5) * DIE_CELL
        step = DIE_CELL * 0.26
        rad = DIE_CELL * (0.10 if v != 1 else 0.13)
        turn = int(rng.integers(2))
        for i, j in PIPS[v]:
            if turn:
                i, j = -j, i
            cv2.circle(img, (int((cx + i * step) * S), int((cy + j * step) * S)), int(rad * S), _bgr(pip_rgb), -1, cv2.LINE_AA, 4)
    img = cv2.GaussianBlur(img, (0, 0), 0.6)
    return cv2.cvtColor(img, cv2.COLOR_BGR2RGB), vals


# ----------------------------------------------------------------------------- the map
def _centroid(poly):
    m = cv2.moments(np.asarray(poly, np.float32))
    return (m["m10"] / m["m00"], m["m01"] / m["m00"])


def shared_edges(layout):
    """Border segments two area polygons share (equal vertex pairs), as ((a, b), sid1, sid2)."""
    key = lambda p: (round(p[0], 1), round(p[1], 1))  # noqa: E731
    seen = {}
    out = []
    for s in layout.spaces:
        if s["kind"] != "area" and s["kind"] != "city":
            continue
        pts = s["points_mm"]
        for i in range(len(pts)):
            a, b = key(pts[i]), key(pts[(i + 1) % len(pts)])
            e = (min(a, b), max(a, b))
            if e in seen and seen[e] != s["id"]:
                out.append((e, seen[e], s["id"]))
            else:
                seen[e] = s["id"]
    return out


def _wavy(img, a, b, colour, width, ppm, amp, period, phase=0.0):
    a, b = np.array(a, float), np.array(b, float)
    d = b - a
    L = np.linalg.norm(d)
    if L < 1:
        return
    n = np.array([-d[1], d[0]]) / L
    ts = np.linspace(0, 1, max(4, int(L / 1.5)))
    pts = [a + d * t + n * amp * math.sin(2 * math.pi * t * L / period + phase) for t in ts]
    cv2.polylines(img, [np.array([art._p(p, ppm) for p in pts], np.int32)], False, _bgr(colour), max(1, int(width * ppm)),
                  cv2.LINE_AA, art.SHIFT)


def make_artwork(layout, rng, ppm=4):
    """The Zhang Yi map's print, designed here (see module doc)."""
    W, H = layout.W, layout.H
    w, h = int(round(W * ppm)), int(round(H * ppm))
    P = lambda pt: art._p(pt, ppm)  # noqa: E731
    SH = art.SHIFT
    paper = art._jitter_rgb(rng, [(238, 228, 204), (232, 226, 210), (242, 236, 220), (226, 214, 186)][rng.integers(4)], 0.1)
    ink = [(34, 30, 28), (60, 40, 28), (28, 36, 60), (50, 48, 44)][rng.integers(4)]
    red = art._jitter_rgb(rng, (186, 42, 34), 0.12)
    sea = art._jitter_rgb(rng, [(170, 196, 205), (190, 205, 200), (160, 185, 200), (205, 210, 200)][rng.integers(4)], 0.1)
    water = art._jitter_rgb(rng, (70, 120, 170), 0.15)
    font = [cv2.FONT_HERSHEY_SIMPLEX, cv2.FONT_HERSHEY_COMPLEX, cv2.FONT_HERSHEY_TRIPLEX, cv2.FONT_HERSHEY_PLAIN][rng.integers(4)]
    tint_mode = int(rng.integers(3))   # 0 layout tints jittered, 1 an own pastel palette, 2 faint wash
    palette = [(222, 190, 170), (226, 214, 160), (180, 208, 170), (175, 195, 222), (205, 185, 215), (232, 200, 160),
               (200, 200, 190)]
    border_w = rng.uniform(0.5, 1.2)
    img = np.empty((h, w, 3), np.uint8)
    img[:] = _bgr(paper)
    img = art.grain(img, rng, 8, 3.0, 0.8, 2.0)
    # outer frame
    m1 = rng.uniform(3, 6)
    cv2.rectangle(img, P((m1, m1)), P((W - m1, H - m1)), _bgr(ink), max(1, int(ppm * rng.uniform(0.7, 1.5))), cv2.LINE_AA, SH)
    # the map: sea wash over its rectangle first (areas cover it), with wave marks
    mp = next((r for r in layout.regions if r["id"] == "map"), None)
    if mp is not None:
        poly = np.array(mp["polygon"], float)
        cv2.fillPoly(img, [np.array([P(q) for q in poly], np.int32)], _bgr(sea), cv2.LINE_AA, SH)
    # land: each area / city polygon in its region's wash
    tints = {r["id"][5:]: r.get("tint_rgb") for r in layout.regions if r["id"].startswith("area-")}
    groups = sorted({tuple(v) for v in tints.values() if v})
    lands = [s for s in layout.spaces if s["kind"] in ("area", "city")]
    land_base = art._jitter_rgb(rng, (226, 220, 190), 0.08)
    for s in lands:
        poly = np.array(s["points_mm"], float)
        base = tints.get(s["id"])
        if base is None:
            t = land_base
        elif tint_mode == 0:
            t = art._jitter_rgb(rng, base, 0.06)
        elif tint_mode == 1:
            t = palette[groups.index(tuple(base)) % len(palette)]
        else:
            t = tuple(int(0.55 * p + 0.45 * b) for p, b in zip(paper, base))
        t = tuple(int(np.clip(c * rng.uniform(0.97, 1.03), 0, 255)) for c in t)
        cv2.fillPoly(img, [np.array([P(q) for q in poly], np.int32)], _bgr(t), cv2.LINE_AA, SH)
    # land texture: faint hatching strokes
    over = img.copy()
    for _ in range(int(W * H / 400)):
        x, y = rng.uniform(70, W - 70), rng.uniform(70, 540)
        L = rng.uniform(2, 5)
        cv2.line(over, P((x, y)), P((x + L, y + rng.uniform(-0.5, 0.5))), _bgr(tuple(int(c * 0.8) for c in paper)), 1, cv2.LINE_AA, SH)
    img = cv2.addWeighted(over, 0.25, img, 0.75, 0)
    # borders: ink outlines of every area
    for s in lands:
        poly = np.array(s["points_mm"], float)
        cv2.polylines(img, [np.array([P(q) for q in poly], np.int32)], True, _bgr(ink), max(1, int(round(border_w * ppm))), cv2.LINE_AA, SH)
    # rivers and mountain ranges along some shared borders (decoration: the layout has no border types)
    edges = shared_edges(layout)
    order = rng.permutation(len(edges))
    n_river = int(rng.integers(3, 8)); n_mtn = int(rng.integers(3, 8))
    for k, i in enumerate(order[:n_river + n_mtn]):
        (a, b), _, _ = edges[i]
        if k < n_river:
            _wavy(img, a, b, water, rng.uniform(1.2, 2.2), ppm, rng.uniform(0.8, 1.6), rng.uniform(10, 18))
        else:
            a, b = np.array(a), np.array(b)
            L = np.linalg.norm(b - a)
            d = (b - a) / max(L, 1e-6); n = np.array([-d[1], d[0]])
            mc = tuple(int(c * 0.55) for c in (150, 120, 80))
            t = 4.0
            while t < L - 4:
                c = a + d * t
                pk = rng.uniform(3, 5)
                tri = np.array([P(c - d * pk * 0.8), P(c + n * pk * 0.9), P(c + d * pk * 0.8)], np.int32)
                cv2.polylines(img, [tri], False, _bgr(mc), max(1, int(ppm * 0.6)), cv2.LINE_AA, SH)
                t += rng.uniform(6, 9)
    # cities: the red square frame symbol; names of areas
    for s in lands:
        poly = np.array(s["points_mm"], float)
        c = _centroid(poly)
        name = s["id"].replace("_", " ")
        name = name[:1].upper() + name[1:]
        if s["kind"] == "city":
            sz = rng.uniform(5, 7)
            cc = (c[0] + rng.uniform(-6, 6), c[1] - rng.uniform(8, 14))
            cv2.rectangle(img, P((cc[0] - sz, cc[1] - sz)), P((cc[0] + sz, cc[1] + sz)), _bgr(red), max(1, int(ppm * 1.1)), cv2.LINE_AA, SH)
            cv2.rectangle(img, P((cc[0] - sz * 0.45, cc[1] - sz * 0.45)), P((cc[0] + sz * 0.45, cc[1] + sz * 0.45)), _bgr(red), -1, cv2.LINE_AA, SH)
        if rng.random() < 0.85:
            hgt = rng.uniform(3.5, 5.0)
            (tw, _), _ = cv2.getTextSize(name, font, hgt * ppm / 22.0, 1)
            art._text(img, name, (c[0] - tw / ppm / 2, c[1] + rng.uniform(10, 18)), hgt, ppm,
                      tuple(int(v * 0.9) for v in ink), font)
    # holding boxes and the dice tray
    box_fill = art._jitter_rgb(rng, [(232, 222, 196), (220, 214, 200), (236, 230, 214)][rng.integers(3)], 0.08)
    titles = {"box-chits": "ACTION CHITS", "box-graveyard": "GRAVEYARD", "box-talent-pool": "TALENT POOL"}
    for s in layout.spaces:
        if s["kind"] not in ("box", "dice"):
            continue
        pts = np.array(s["points_mm"], float)
        x0, y0 = pts.min(axis=0); x1, y1 = pts.max(axis=0)
        fill = box_fill if s["kind"] == "box" else art._jitter_rgb(rng, [(200, 60, 50), (60, 90, 70), (70, 70, 110), (180, 160, 120)][rng.integers(4)], 0.1)
        cv2.rectangle(img, P((x0, y0)), P((x1, y1)), _bgr(fill), -1, cv2.LINE_AA, SH)
        cv2.rectangle(img, P((x0, y0)), P((x1, y1)), _bgr(ink), max(1, int(ppm * 0.9)), cv2.LINE_AA, SH)
        cv2.rectangle(img, P((x0 + 2, y0 + 2)), P((x1 - 2, y1 - 2)), _bgr(ink), 1, cv2.LINE_AA, SH)
        lab_col = tuple(int(c * 0.55) for c in fill) if s["kind"] == "box" else tuple(min(255, int(c * 1.5 + 40)) for c in fill)
        lab = titles.get(s["id"], s["id"].upper()) if s["kind"] == "box" else "BATTLE DIE"
        art._text(img, lab, (x0 + 5, y0 + 10), 5, ppm, lab_col, font)
        if s["kind"] == "dice":  # a felt-like tray: fine mottle and a pip motif in a corner
            sub = img[int(y0 * ppm) + 4:int(y1 * ppm) - 4, int(x0 * ppm) + 4:int(x1 * ppm) - 4]
            sub[:] = art.grain(sub.copy(), rng, 4, 4.0, 0.6, 3.0)
            for k in range(3):
                cv2.circle(img, P((x1 - 12 + 4 * (k - 1), y1 - 8 - 4 * (k - 1))), int(1.2 * ppm * art.SC), _bgr(lab_col), -1, cv2.LINE_AA, SH)
        else:  # faint ghost squares where counters go
            for k in range(int(rng.integers(0, 5))):
                gx = x0 + 10 + 24 * k
                if gx + 18 < x1:
                    cv2.rectangle(img, P((gx, y1 - 30)), P((gx + 18, y1 - 12)), _bgr(tuple(int(c * 0.9) for c in fill)), 1, cv2.LINE_AA, SH)
    # title, seal, compass in the free margin
    if rng.random() < 0.85:
        art._text(img, "ZHANG YI", (75, 63), rng.uniform(8, 11), ppm, red if rng.random() < 0.5 else ink, font, 1.3)
    art.draw_quiet_markers(img, layout, ppm)
    img = cv2.GaussianBlur(img, (0, 0), 0.5)
    return cv2.cvtColor(img, cv2.COLOR_BGR2RGB)

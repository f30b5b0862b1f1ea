"""Printed board artwork, designed here (not the project's renderer), varied per table.

Produces an RGB uint8 image (row 0 = board y 0) at `ppm` pixels per mm with:
paper colour + fibre noise, a decorative border, tinted regions (optionally hatched),
road lines, a printed disc/ring for every space, decorative marks inside dragon spaces,
text-like glyph marks and labels, and the four AprilTag 36h11 corner markers with a
white quiet zone.
"""
import colorsys
import math

import cv2
import numpy as np

SHIFT = 4  # cv2 sub-pixel bits
SC = 1 << SHIFT


def _p(pt, ppm):
    return (int(round(pt[0] * ppm * SC)), int(round(pt[1] * ppm * SC)))


def _jitter_rgb(rng, rgb, amount):
    r, g, b = (c / 255.0 for c in rgb)
    h, s, v = colorsys.rgb_to_hsv(r, g, b)
    h = (h + rng.uniform(-amount, amount) * 0.3) % 1.0
    s = float(np.clip(s * rng.uniform(1 - amount, 1 + amount), 0, 1))
    v = float(np.clip(v * rng.uniform(1 - amount / 2, 1 + amount / 2), 0, 1))
    return tuple(int(round(c * 255)) for c in colorsys.hsv_to_rgb(h, s, v))


def _bgr(rgb):
    return (int(rgb[2]), int(rgb[1]), int(rgb[0]))


def _glyph(img, rng, x, y, size, ppm, colour):
    """A text-like mark: a small block of strokes that reads as printed characters."""
    n = rng.integers(3, 7)
    th = max(1, int(round(size * ppm * 0.09)))
    for _ in range(n):
        if rng.random() < 0.5:
            a = (x + rng.uniform(0, size), y + rng.uniform(0, size))
            b = (a[0] + rng.uniform(-0.3, 0.6) * size, a[1])
        else:
            a = (x + rng.uniform(0, size), y + rng.uniform(0, size * 0.4))
            b = (a[0] + rng.uniform(-0.2, 0.2) * size, a[1] + rng.uniform(0.3, 0.7) * size)
        cv2.line(img, _p(a, ppm), _p(b, ppm), _bgr(colour), th, cv2.LINE_AA, SHIFT)


def _text(img, text, org_mm, height_mm, ppm, colour, font, thick=1.0):
    scale = height_mm * ppm / 22.0
    t = max(1, int(round(scale * 1.6 * thick)))
    cv2.putText(img, text, (int(org_mm[0] * ppm), int(org_mm[1] * ppm)), font, scale, _bgr(colour), t, cv2.LINE_AA)


def grain(img, rng, cell, coarse, fine_sigma, fine):
    """``img`` with a slow mottle (noise on cells of ``cell`` px, blurred, ``coarse`` grey levels) and a
    fine grain (blurred by ``fine_sigma``, ``fine`` grey levels): paper fibre, cloth weave."""
    h, w = img.shape[:2]
    nz = rng.normal(0, 1, (h // cell + 1, w // cell + 1)).astype(np.float32)
    nz = cv2.resize(cv2.GaussianBlur(nz, (0, 0), 2), (w, h), interpolation=cv2.INTER_CUBIC)
    fn = cv2.GaussianBlur(rng.normal(0, 1, (h, w)).astype(np.float32), (0, 0), fine_sigma)
    return np.clip(img.astype(np.float32) + (nz * coarse + fn * fine)[..., None], 0, 255).astype(np.uint8)


def make_artwork(layout, rng, ppm=4):
    W, H = layout.W, layout.H
    w, h = int(round(W * ppm)), int(round(H * ppm))
    # --- style choices for this table -----------------------------------
    paper_choices = [(236, 226, 200), (244, 240, 228), (226, 214, 184), (232, 228, 218), (238, 220, 190), (220, 224, 214)]
    paper = _jitter_rgb(rng, paper_choices[rng.integers(len(paper_choices))], 0.15)
    ink_choices = [(40, 30, 25), (120, 30, 25), (30, 40, 90), (70, 50, 30), (20, 60, 50)]
    ink = ink_choices[rng.integers(len(ink_choices))]
    accent = ink_choices[rng.integers(len(ink_choices))]
    font = [cv2.FONT_HERSHEY_SIMPLEX, cv2.FONT_HERSHEY_COMPLEX, cv2.FONT_HERSHEY_TRIPLEX,
            cv2.FONT_HERSHEY_DUPLEX, cv2.FONT_HERSHEY_SCRIPT_COMPLEX][rng.integers(5)]
    tint_mode = rng.integers(3)  # 0: layout tints jittered, 1: random pastel palette, 2: weak tints
    hatch = rng.random() < 0.4
    road_style = rng.integers(3)  # solid, dashed, double
    road_w = rng.uniform(1.5, 4.0)
    road_col = _jitter_rgb(rng, [(150, 110, 70), (90, 80, 70), (170, 60, 50), (60, 90, 120)][rng.integers(4)], 0.2)
    site_fill = rng.integers(3)  # 0 lighter disc, 1 darker disc, 2 no fill
    ring_w = rng.uniform(0.6, 2.0)

    img = np.empty((h, w, 3), np.uint8)
    img[:] = _bgr(paper)
    img = grain(img, rng, 8, 3.0, 0.8, 2.0)  # paper fibre / print noise

    # --- border ------------------------------------------------------------
    m1 = rng.uniform(3, 6)
    cv2.rectangle(img, _p((m1, m1), ppm), _p((W - m1, H - m1), ppm), _bgr(ink), max(1, int(ppm * rng.uniform(0.5, 1.5))), cv2.LINE_AA, SHIFT)
    m2 = m1 + rng.uniform(2.5, 5)
    cv2.rectangle(img, _p((m2, m2), ppm), _p((W - m2, H - m2), ppm), _bgr(accent), max(1, int(ppm * 0.4)), cv2.LINE_AA, SHIFT)
    # decorative repeating pattern along the border band (between markers)
    band = (m2 + 1.5, m2 + 7)
    pat = rng.integers(3)
    step = rng.uniform(7, 12)
    def along(x0, x1, fixed, horizontal):
        x = x0
        while x < x1:
            if horizontal:
                a, b = (x, fixed), (x + step * 0.5, fixed)
            else:
                a, b = (fixed, x), (fixed, x + step * 0.5)
            if pat == 0:
                c = ((a[0] + b[0]) / 2, (a[1] + b[1]) / 2)
                cv2.circle(img, _p(c, ppm), int(ppm * 1.1 * SC), _bgr(accent), -1, cv2.LINE_AA, SHIFT)
            elif pat == 1:
                c = ((a[0] + b[0]) / 2, (a[1] + b[1]) / 2)
                d = 2.2
                pts = np.array([_p((c[0], c[1] - d), ppm), _p((c[0] + d, c[1]), ppm), _p((c[0], c[1] + d), ppm), _p((c[0] - d, c[1]), ppm)], np.int32)
                cv2.fillPoly(img, [pts], _bgr(accent), cv2.LINE_AA, SHIFT)
            else:
                cv2.line(img, _p(a, ppm), _p(b, ppm), _bgr(accent), max(1, int(ppm * 0.8)), cv2.LINE_AA, SHIFT)
            x += step
    mid = (band[0] + band[1]) / 2
    qz = layout.marker_size + 14
    along(qz + 8, W - qz - 8, mid, True)
    along(qz + 8, W - qz - 8, H - mid, True)
    along(qz + 8, H - qz - 8, mid, False)
    along(qz + 8, H - qz - 8, W - mid, False)

    # --- regions -------------------------------------------------------------
    pastel = [(235, 200, 200), (200, 225, 200), (205, 210, 235), (235, 225, 180), (225, 205, 230), (200, 228, 228)]
    for i, r in enumerate(layout.regions):
        poly = r.get("polygon") or r.get("points_mm")
        if not poly:
            continue
        if tint_mode == 0:
            tint = _jitter_rgb(rng, r.get("tint_rgb", paper), 0.12)
        elif tint_mode == 1:
            tint = _jitter_rgb(rng, pastel[rng.integers(len(pastel))], 0.12)
        else:
            t = np.array(r.get("tint_rgb", paper), float)
            tint = tuple(int(v) for v in (0.5 * t + 0.5 * np.array(paper)))
        pts = np.array([_p(q, ppm) for q in poly], np.int32)
        over = img.copy()
        cv2.fillPoly(over, [pts], _bgr(tint), cv2.LINE_AA, SHIFT)
        img = cv2.addWeighted(over, 0.85, img, 0.15, 0)
        if hatch:
            mask = np.zeros(img.shape[:2], np.uint8)
            cv2.fillPoly(mask, [pts], 255, cv2.LINE_8, SHIFT)
            hl = img.copy()
            xs = [q[0] for q in poly]; ys = [q[1] for q in poly]
            sp = rng.uniform(4, 8)
            darker = tuple(int(c * 0.9) for c in tint)
            for k in np.arange(min(xs) - (max(ys) - min(ys)), max(xs), sp):
                cv2.line(hl, _p((k, max(ys)), ppm), _p((k + (max(ys) - min(ys)), min(ys)), ppm), _bgr(darker), max(1, int(ppm * 0.35)), cv2.LINE_AA, SHIFT)
            img = np.where(mask[..., None] > 0, hl, img)
        cv2.polylines(img, [pts], True, _bgr(ink), max(1, int(ppm * rng.uniform(0.4, 1.0))), cv2.LINE_AA, SHIFT)
        # label and some text-like marks in a region corner
        lx, ly = min(q[0] for q in poly) + 3, max(q[1] for q in poly) - 3
        if rng.random() < 0.8:
            _text(img, str(r.get("label", r.get("id", ""))).upper(), (lx, ly), rng.uniform(4, 7), ppm, ink, font)
        for g in range(rng.integers(0, 3)):
            _glyph(img, rng, max(q[0] for q in poly) - 10 - g * 9, min(q[1] for q in poly) + 3, 7, ppm, accent)

    # --- roads -----------------------------------------------------------------
    for a, b in layout.roads:
        if a not in layout.space_by_id or b not in layout.space_by_id:
            continue
        pa, pb = np.array(layout.space_centre(a)), np.array(layout.space_centre(b))
        th = max(1, int(round(road_w * ppm)))
        if road_style == 0:
            cv2.line(img, _p(pa, ppm), _p(pb, ppm), _bgr(road_col), th, cv2.LINE_AA, SHIFT)
        elif road_style == 1:
            L = np.linalg.norm(pb - pa); n = max(2, int(L / 5))
            for k in range(0, n, 2):
                q0 = pa + (pb - pa) * k / n; q1 = pa + (pb - pa) * min(k + 1, n) / n
                cv2.line(img, _p(q0, ppm), _p(q1, ppm), _bgr(road_col), th, cv2.LINE_AA, SHIFT)
        else:
            d = pb - pa; nrm = np.array([-d[1], d[0]]) / (np.linalg.norm(d) + 1e-9) * road_w
            for s in (-1, 1):
                cv2.line(img, _p(pa + s * nrm, ppm), _p(pb + s * nrm, ppm), _bgr(road_col), max(1, th // 2), cv2.LINE_AA, SHIFT)

    # --- spaces ----------------------------------------------------------------
    for s in layout.spaces:
        outline = layout.space_outline_mm(s["id"])
        pts = np.array([_p(q, ppm) for q in outline], np.int32)
        c = layout.space_centre(s["id"])
        r = layout.space_radius(s["id"])
        if s["kind"] == "site":
            if site_fill == 0:
                cv2.fillPoly(img, [pts], _bgr(tuple(min(255, int(v * 1.08 + 10)) for v in paper)), cv2.LINE_AA, SHIFT)
            elif site_fill == 1:
                cv2.fillPoly(img, [pts], _bgr(tuple(int(v * 0.82) for v in paper)), cv2.LINE_AA, SHIFT)
            cv2.polylines(img, [pts], True, _bgr(ink), max(1, int(round(ring_w * ppm))), cv2.LINE_AA, SHIFT)
            if rng.random() < 0.3:
                cv2.circle(img, _p(c, ppm), int(r * 0.55 * ppm * SC), _bgr(accent), 1, cv2.LINE_AA, SHIFT)
        else:
            fill = _jitter_rgb(rng, [(200, 215, 230), (230, 215, 190), (215, 200, 200)][rng.integers(3)], 0.1)
            cv2.fillPoly(img, [pts], _bgr(fill), cv2.LINE_AA, SHIFT)
            cv2.polylines(img, [pts], True, _bgr(accent), max(1, int(round(ring_w * 1.5 * ppm))), cv2.LINE_AA, SHIFT)
            inner = (outline - np.array(c)) * 0.88 + np.array(c)
            cv2.polylines(img, [np.array([_p(q, ppm) for q in inner], np.int32)], True, _bgr(accent), max(1, int(ppm * 0.4)), cv2.LINE_AA, SHIFT)
            # faint decorative motif (a stylised dragon coil / star)
            motif = rng.integers(3)
            col = tuple(int(0.8 * f + 0.2 * a) for f, a in zip(fill, accent))
            if motif == 0:
                t = np.linspace(0, 5 * math.pi, 120)
                rr = r * 0.7 * t / t[-1]
                sp = np.stack([c[0] + rr * np.cos(t), c[1] + rr * np.sin(t)], 1)
                cv2.polylines(img, [np.array([_p(q, ppm) for q in sp], np.int32)], False, _bgr(col), max(1, int(ppm * 0.8)), cv2.LINE_AA, SHIFT)
            elif motif == 1:
                for k in range(8):
                    a = k * math.pi / 4
                    cv2.line(img, _p(c, ppm), _p((c[0] + r * 0.7 * math.cos(a), c[1] + r * 0.7 * math.sin(a)), ppm), _bgr(col), max(1, int(ppm * 0.6)), cv2.LINE_AA, SHIFT)
            if rng.random() < 0.5:
                _glyph(img, rng, c[0] - 4, c[1] + r * 0.45, 8, ppm, col)

    # --- free text-like marks in the margins -----------------------------------
    for _ in range(rng.integers(3, 8)):
        x = rng.uniform(qz + 10, W - qz - 40)
        y = rng.choice([rng.uniform(m2 + 8, 40), rng.uniform(H - 40, H - m2 - 12)])
        for k in range(rng.integers(1, 4)):
            _glyph(img, rng, x + k * 9, y, 7, ppm, ink)
    if rng.random() < 0.7:
        _text(img, "CHINA", (W / 2 - 25, H - m2 - 2.5), rng.uniform(5, 8), ppm, accent, font, 1.3)

    draw_quiet_markers(img, layout, ppm)  # corner markers with quiet zone
    # slight print softness
    img = cv2.GaussianBlur(img, (0, 0), 0.5)
    return cv2.cvtColor(img, cv2.COLOR_BGR2RGB)


def draw_quiet_markers(img, layout, ppm):
    """The four AprilTag corner markers, each with its white quiet zone (every board here)."""
    dic = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_APRILTAG_36h11)
    side_px = int(round(layout.marker_size * ppm))
    for mid, (cx, cy) in layout.markers:
        cell = layout.marker_size / 8.0
        q = layout.marker_size / 2 + cell * 1.2
        cv2.rectangle(img, _p((cx - q, cy - q), ppm), _p((cx + q, cy + q), ppm), (255, 255, 255), -1, cv2.LINE_8, SHIFT)
        tag = cv2.resize(cv2.aruco.generateImageMarker(dic, mid, 8), (side_px, side_px), interpolation=cv2.INTER_NEAREST)
        x0 = int(round((cx - layout.marker_size / 2) * ppm)); y0 = int(round((cy - layout.marker_size / 2) * ppm))
        img[y0:y0 + side_px, x0:x0 + side_px] = np.where(tag[..., None] > 0, 255, 18).astype(np.uint8)

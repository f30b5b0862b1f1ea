"""Ming Dynasty's printed board for the photoreal renderer: an ink-and-wash board drawn from the
layout alone (provinces, districts with their city houses and cloisters, the province spaces, the
princes' spots) with the corner markers (artwork.py). No project code, no bpy."""
import math

import cv2
import numpy as np

import artwork as art
from ming_board import house_squares, space_polygon, spaces_of


def _wobbly(img, pts, colour, width_mm, ppm, rng, closed=True, wob=0.35):
    """A brush-like outline: the polygon resampled every ~3 mm, jittered, drawn with a varying width."""
    pts = np.asarray(pts, float)
    if closed:
        pts = np.vstack([pts, pts[:1]])
    dense = []
    for a, b in zip(pts[:-1], pts[1:]):
        n = max(2, int(np.linalg.norm(b - a) / 3.0))
        for t in np.linspace(0, 1, n, endpoint=False):
            dense.append(a + (b - a) * t)
    dense.append(pts[-1])
    dense = np.array(dense)
    k = np.array([0.25, 0.5, 0.25])
    dense = dense + np.stack([np.convolve(rng.normal(0, wob, len(dense)), k, mode='same') for _ in range(2)], 1)
    for a, b in zip(dense[:-1], dense[1:]):
        w = max(1, int(round(width_mm * ppm * rng.uniform(0.7, 1.3))))
        cv2.line(img, art._p(a, ppm), art._p(b, ppm), art._bgr(colour), w, cv2.LINE_AA, art.SHIFT)


def _pagoda(img, c, size, colour, ppm):
    """A little pagoda icon (two roofs and a body) centred at c (mm)."""
    x, y = c
    P = lambda q: art._p(q, ppm)  # noqa: E731
    th = max(1, int(ppm * 0.5))
    for w, yy in [(size * 0.9, y - size * 0.25), (size * 0.65, y - size * 0.6)]:
        pts = np.array([P((x - w / 2, yy)), P((x + w / 2, yy)), P((x + w * 0.3, yy - size * 0.18)),
                        P((x - w * 0.3, yy - size * 0.18))], np.int32)
        cv2.polylines(img, [pts], True, art._bgr(colour), th, cv2.LINE_AA, art.SHIFT)
    cv2.rectangle(img, P((x - size * 0.25, y - size * 0.25)), P((x + size * 0.25, y + size * 0.3)), art._bgr(colour), th,
                  cv2.LINE_AA, art.SHIFT)
    cv2.line(img, P((x, y - size * 0.78)), P((x, y - size * 0.95)), art._bgr(colour), th, cv2.LINE_AA, art.SHIFT)


def _house_icon(img, c, side, colour, ppm, style):
    x, y = c
    P = lambda q: art._p(q, ppm)  # noqa: E731
    th = max(1, int(ppm * 0.45))
    h = side / 2 - 1.0
    if style == 0:  # square with a gabled roof line
        cv2.rectangle(img, P((x - h, y - h)), P((x + h, y + h)), art._bgr(colour), th, cv2.LINE_AA, art.SHIFT)
        cv2.line(img, P((x - h, y - h * 0.2)), P((x, y - h)), art._bgr(colour), th, cv2.LINE_AA, art.SHIFT)
        cv2.line(img, P((x, y - h)), P((x + h, y - h * 0.2)), art._bgr(colour), th, cv2.LINE_AA, art.SHIFT)
    elif style == 1:  # double square
        cv2.rectangle(img, P((x - h, y - h)), P((x + h, y + h)), art._bgr(colour), th, cv2.LINE_AA, art.SHIFT)
        cv2.rectangle(img, P((x - h + 1.6, y - h + 1.6)), P((x + h - 1.6, y + h - 1.6)), art._bgr(colour), 1, cv2.LINE_AA, art.SHIFT)
    else:  # corner brackets only
        for sx in (-1, 1):
            for sy in (-1, 1):
                cv2.line(img, P((x + sx * h, y + sy * h)), P((x + sx * h * 0.4, y + sy * h)), art._bgr(colour), th, cv2.LINE_AA, art.SHIFT)
                cv2.line(img, P((x + sx * h, y + sy * h)), P((x + sx * h, y + sy * h * 0.4)), art._bgr(colour), th, cv2.LINE_AA, art.SHIFT)


def _symbol(img, c, kind, size, colour, ppm):
    """Transport symbols printed on district borders: horse (a head), rickshaw (a wheel), junk (a sail)."""
    x, y = c
    P = lambda q: art._p(q, ppm)  # noqa: E731
    th = max(1, int(ppm * 0.5))
    col = art._bgr(colour)
    cv2.circle(img, P(c), int(size * 0.62 * ppm * art.SC), (245, 240, 230), -1, cv2.LINE_AA, art.SHIFT)
    cv2.circle(img, P(c), int(size * 0.62 * ppm * art.SC), col, th, cv2.LINE_AA, art.SHIFT)
    if kind == 0:
        cv2.circle(img, P(c), int(size * 0.35 * ppm * art.SC), col, th, cv2.LINE_AA, art.SHIFT)
        for a in np.linspace(0, math.pi, 4, endpoint=False):
            cv2.line(img, P((x - math.cos(a) * size * 0.35, y - math.sin(a) * size * 0.35)),
                     P((x + math.cos(a) * size * 0.35, y + math.sin(a) * size * 0.35)), col, 1, cv2.LINE_AA, art.SHIFT)
    elif kind == 1:
        pts = np.array([P((x - size * 0.4, y + size * 0.2)), P((x + size * 0.4, y + size * 0.2)), P((x + size * 0.25, y + size * 0.38)),
                        P((x - size * 0.25, y + size * 0.38))], np.int32)
        cv2.fillPoly(img, [pts], col, cv2.LINE_AA, art.SHIFT)
        pts = np.array([P((x - size * 0.05, y + size * 0.15)), P((x - size * 0.05, y - size * 0.45)), P((x + size * 0.35, y + size * 0.1))], np.int32)
        cv2.polylines(img, [pts], True, col, th, cv2.LINE_AA, art.SHIFT)
    else:
        pts = np.array([P((x - size * 0.3, y + size * 0.35)), P((x - size * 0.2, y - size * 0.1)), P((x + size * 0.1, y - size * 0.4)),
                        P((x + size * 0.35, y - size * 0.25)), P((x + size * 0.05, y - size * 0.05)), P((x + size * 0.1, y + size * 0.35))], np.int32)
        cv2.polylines(img, [pts], False, col, th, cv2.LINE_AA, art.SHIFT)


def make_artwork(layout, rng, ppm=4):
    """The Ming board's print, designed here in an ink-and-wash manner: rice paper, a key-fret
    border, each province a pale wash with a brush outline and mountain strokes, districts outlined
    in ink with transport symbols on their borders, cloisters as seals with a pagoda, each city a
    walled enclosure with its three houses, prince spots as octagonal seals, province spaces as
    scroll banners, display-card frames, a title and red chops; the four AprilTag markers."""
    W, H = layout.W, layout.H
    w, h = int(round(W * ppm)), int(round(H * ppm))
    P = lambda pt: art._p(pt, ppm)  # noqa: E731
    SC, SH = art.SC, art.SHIFT
    paper = art._jitter_rgb(rng, [(240, 232, 208), (234, 226, 206), (244, 238, 222), (228, 218, 190), (236, 230, 214)][rng.integers(5)], 0.10)
    ink = [(30, 28, 26), (50, 35, 25), (25, 35, 55), (45, 45, 40)][rng.integers(4)]
    vermilion = art._jitter_rgb(rng, (190, 50, 35), 0.12)
    font = [cv2.FONT_HERSHEY_SIMPLEX, cv2.FONT_HERSHEY_COMPLEX, cv2.FONT_HERSHEY_TRIPLEX, cv2.FONT_HERSHEY_DUPLEX][rng.integers(4)]
    tint_mode = int(rng.integers(3))  # 0 layout tints jittered, 1 an own palette, 2 faint
    own_palette = [(226, 170, 150), (232, 210, 140), (170, 205, 160), (160, 185, 225), (200, 175, 215), (235, 190, 140)]
    wob = rng.uniform(0.1, 0.5)
    line_w = rng.uniform(0.5, 1.1)
    house_style = int(rng.integers(3))
    seal_fill = bool(rng.random() < 0.5)
    city_fill = art._jitter_rgb(rng, [(200, 190, 170), (185, 175, 165), (215, 200, 160), (190, 180, 150)][rng.integers(4)], 0.1)
    img = np.empty((h, w, 3), np.uint8)
    img[:] = art._bgr(paper)
    img = art.grain(img, rng, 8, 3.0, 0.8, 2.2)
    # long fibres of rice paper
    for _ in range(int(W * H / 900)):
        x, y = rng.uniform(0, W), rng.uniform(0, H)
        a = rng.uniform(0, math.pi); L = rng.uniform(1.5, 6)
        col = tuple(int(c * rng.uniform(0.90, 0.97)) for c in paper)
        cv2.line(img, P((x, y)), P((x + L * math.cos(a), y + L * math.sin(a))), art._bgr(col), 1, cv2.LINE_AA, SH)
    # border: a frame and a key-fret (meander) band
    m1 = rng.uniform(3, 6)
    cv2.rectangle(img, P((m1, m1)), P((W - m1, H - m1)), art._bgr(ink), max(1, int(ppm * rng.uniform(0.8, 1.6))), cv2.LINE_AA, SH)
    band = rng.uniform(5, 8)
    fret_col = vermilion if rng.random() < 0.5 else ink
    qz = layout.marker_size + 16
    x = qz + 8
    while x < W - qz - 8 - band:
        for yy in (m1 + 2, H - m1 - 2 - band):
            pts = [(x, yy + band), (x, yy), (x + band, yy), (x + band, yy + band * 0.7), (x + band * 0.35, yy + band * 0.7),
                   (x + band * 0.35, yy + band * 0.35), (x + band * 0.65, yy + band * 0.35)]
            cv2.polylines(img, [np.array([P(q) for q in pts], np.int32)], False, art._bgr(fret_col), max(1, int(ppm * 0.5)), cv2.LINE_AA, SH)
        x += band * 1.35
    # a river between the two rows of provinces: wave strokes
    prov = [r for r in layout.regions if r["id"].startswith("province-")]
    if prov:
        tops = sorted({float(np.array(r["polygon"])[:, 1].min()) for r in prov})
        bots = sorted({float(np.array(r["polygon"])[:, 1].max()) for r in prov})
        if len(tops) >= 2:
            y0, y1 = bots[0], tops[1]
            water = art._jitter_rgb(rng, (150, 175, 190), 0.15)
            for k in range(int((W - 2 * qz) / 7)):
                xx = qz + k * 7 + rng.uniform(-1, 1)
                yy = (y0 + y1) / 2 + rng.uniform(-2, 2)
                cv2.ellipse(img, P((xx, yy)), (int(3 * ppm * SC), int(1.6 * ppm * SC)), 0, 180, 360, art._bgr(water), 1, cv2.LINE_AA, SH)
    # provinces: a pale wash, brush outline, mountains in the free corner
    for i, r in enumerate(prov):
        poly = np.array(r["polygon"], float)
        base = r.get("tint_rgb", (220, 210, 190))
        if tint_mode == 0:
            tint = art._jitter_rgb(rng, base, 0.12)
        elif tint_mode == 1:
            tint = art._jitter_rgb(rng, own_palette[i % len(own_palette)], 0.12)
        else:
            tint = tuple(int(0.6 * p + 0.4 * b) for p, b in zip(paper, base))
        over = img.copy()
        cv2.fillPoly(over, [np.array([P(q) for q in poly], np.int32)], art._bgr(tint), cv2.LINE_AA, SH)
        img = cv2.addWeighted(over, 0.8, img, 0.2, 0)
        _wobbly(img, poly, ink, line_w * 1.4, ppm, rng, wob=wob)
        x0, y0 = poly.min(axis=0); x1, y1 = poly.max(axis=0)
        lab = r.get("label", r["id"])
        art._text(img, lab.upper(), (x0 + 4, y0 + 16), 9, ppm, tuple(int(c * 0.55) for c in tint), font, 1.2)
        # mountains along the province's top edge
        mcol = tuple(int(c * 0.75) for c in tint)
        for k in range(rng.integers(2, 5)):
            mx = rng.uniform(x0 + 30, x1 - 20); mh = rng.uniform(5, 9)
            pts = np.array([P((mx - mh * 1.3, y0 + 20)), P((mx, y0 + 20 - mh)), P((mx + mh * 1.3, y0 + 20))], np.int32)
            cv2.polylines(img, [pts], False, art._bgr(mcol), max(1, int(ppm * 0.6)), cv2.LINE_AA, SH)
    # cities: a walled enclosure with crenellations, stone fill
    for r in layout.regions:
        if not r["id"].startswith("city-"):
            continue
        poly = np.array(r["polygon"], float)
        over = img.copy()
        cv2.fillPoly(over, [np.array([P(q) for q in poly], np.int32)], art._bgr(city_fill), cv2.LINE_AA, SH)
        img = cv2.addWeighted(over, 0.75, img, 0.25, 0)
        cv2.polylines(img, [np.array([P(q) for q in poly], np.int32)], True, art._bgr(ink), max(1, int(ppm * line_w * 1.2)), cv2.LINE_AA, SH)
        x0, y0 = poly.min(axis=0); x1, y1 = poly.max(axis=0)
        xx = x0
        while xx < x1 - 3:
            cv2.rectangle(img, P((xx, y0 - 2.5)), P((xx + 3, y0)), art._bgr(ink), -1, cv2.LINE_AA, SH)
            xx += 6
    # districts: ink outlines, a little label; transport symbols where two districts meet
    dists = spaces_of(layout, "district")
    for sid in dists:
        poly = space_polygon(layout, sid)
        _wobbly(img, poly, ink, line_w, ppm, rng, wob=wob)
        if rng.random() < 0.7:
            x0, y0 = poly.min(axis=0); x1, y1 = poly.max(axis=0)
            art._text(img, sid[-2:].upper(), (x0 + 3, y1 - 4), 4.5, ppm, tuple(int(c * 0.8) for c in ink), font)
    for a in range(len(dists)):
        pa = space_polygon(layout, dists[a])
        for b in range(a + 1, len(dists)):
            pb = space_polygon(layout, dists[b])
            gap_x = pb[:, 0].min() - pa[:, 0].max()
            if 0 < gap_x < 12 and abs(pa[:, 1].min() - pb[:, 1].min()) < 1:
                c = (pa[:, 0].max() + gap_x / 2, pa[:, 1].max() - rng.uniform(15, 45))
                _symbol(img, c, int(rng.integers(3)), 7.0, ink, ppm)
    # prince spots: an octagonal seal, faint
    for r in layout.regions:
        if r["id"].startswith("prince-"):
            pts = np.array([P(q) for q in r["polygon"]], np.int32)
            seal = tuple(int(0.78 * p + 0.22 * v) for p, v in zip(paper, vermilion))
            if seal_fill:
                cv2.fillPoly(img, [pts], art._bgr(seal), cv2.LINE_AA, SH)
            cv2.polylines(img, [pts], True, art._bgr(vermilion), max(1, int(ppm * 0.5)), cv2.LINE_AA, SH)
    # cloisters: a round seal with a pagoda
    cl_fill = art._jitter_rgb(rng, [(222, 205, 160), (205, 215, 200), (235, 225, 200)][rng.integers(3)], 0.08)
    for sid in spaces_of(layout, "cloister"):
        c = layout.space_centre(sid); R = layout.space_by_id[sid].get("radius_mm", 12.0)
        cv2.circle(img, P(c), int(R * ppm * SC), art._bgr(cl_fill), -1, cv2.LINE_AA, SH)
        cv2.circle(img, P(c), int(R * ppm * SC), art._bgr(ink), max(1, int(ppm * line_w)), cv2.LINE_AA, SH)
        cv2.circle(img, P(c), int((R - 1.8) * ppm * SC), art._bgr(ink), 1, cv2.LINE_AA, SH)
        _pagoda(img, (c[0], c[1] + 2.5), R * 0.9, tuple(int(v * 0.7) for v in cl_fill), ppm)
    # city spaces: the district's section of the city, its three houses
    for sid in spaces_of(layout, "city"):
        poly = space_polygon(layout, sid)
        cv2.polylines(img, [np.array([P(q) for q in poly], np.int32)], True, art._bgr(tuple(int(c * 0.6) for c in city_fill)),
                      max(1, int(ppm * 0.5)), cv2.LINE_AA, SH)
        for (hx, hy), side in house_squares(layout, sid):
            hc = tuple(int(min(255, c * 1.12)) for c in city_fill)
            cv2.rectangle(img, P((hx - side / 2, hy - side / 2)), P((hx + side / 2, hy + side / 2)), art._bgr(hc), -1, cv2.LINE_AA, SH)
            _house_icon(img, (hx, hy), side, ink, ppm, house_style)
    # province spaces: scroll banners in the province colour
    for sid in spaces_of(layout, "province-space"):
        poly = space_polygon(layout, sid)
        x0, y0 = poly.min(axis=0); x1, y1 = poly.max(axis=0)
        reg = next((r for r in prov if r["id"] == "province-" + layout.space_by_id[sid].get("region", "")), None)
        base = reg.get("tint_rgb", (220, 210, 190)) if reg else (220, 210, 190)
        ban = art._jitter_rgb(rng, base, 0.12)
        cv2.rectangle(img, P((x0, y0)), P((x1, y1)), art._bgr(ban), -1, cv2.LINE_AA, SH)
        cv2.rectangle(img, P((x0, y0)), P((x1, y1)), art._bgr(ink), max(1, int(ppm * line_w)), cv2.LINE_AA, SH)
        for xe in (x0, x1):  # rolled ends
            cv2.rectangle(img, P((xe - 2.5, y0 - 3)), P((xe + 2.5, y1 + 3)), art._bgr(tuple(int(c * 0.7) for c in ban)), -1, cv2.LINE_AA, SH)
        if rng.random() < 0.6:
            art._text(img, layout.space_by_id[sid].get("region", "").upper(), (x1 - 16, y1 - 4), 5, ppm,
                      tuple(int(c * 0.6) for c in ban), font)
    # display card frames: dashed
    for r in layout.regions:
        if r["id"].startswith("display-"):
            poly = np.array(r["polygon"], float)
            x0, y0 = poly.min(axis=0); x1, y1 = poly.max(axis=0)
            for (ax, ay), (bx, by) in [((x0, y0), (x1, y0)), ((x1, y0), (x1, y1)), ((x1, y1), (x0, y1)), ((x0, y1), (x0, y0))]:
                n = int(max(abs(bx - ax), abs(by - ay)) / 4)
                for k in range(0, n, 2):
                    t0, t1 = k / n, min(1, (k + 1) / n)
                    cv2.line(img, P((ax + (bx - ax) * t0, ay + (by - ay) * t0)), P((ax + (bx - ax) * t1, ay + (by - ay) * t1)),
                             art._bgr(ink), max(1, int(ppm * 0.5)), cv2.LINE_AA, SH)
            _symbol(img, ((x0 + x1) / 2, (y0 + y1) / 2), int(rng.integers(3)), 10.0, tuple(int(c * 0.5 + 100) for c in ink), ppm)
    # title and red chops in the free strips (top/bottom middle, right margin)
    if rng.random() < 0.8:
        tx = rng.uniform(W * 0.36, W * 0.45)
        art._text(img, "MING", (tx, 148 if rng.random() < 0.5 else 145), rng.uniform(8, 11), ppm, vermilion, font, 1.3)
    for _ in range(int(rng.integers(1, 4))):
        cx, cy = rng.uniform(W - 70, W - 30), rng.uniform(160, H - 160)
        s = rng.uniform(7, 12)
        cv2.rectangle(img, P((cx - s / 2, cy - s / 2)), P((cx + s / 2, cy + s / 2)), art._bgr(vermilion), -1, cv2.LINE_AA, SH)
        for k in range(3):
            art._glyph(img, rng, cx - s / 2 + 1, cy - s / 2 + 1, s - 2, ppm, paper)
    for _ in range(int(rng.integers(4, 10))):
        x, y = rng.uniform(60, 75), rng.uniform(160, H - 160)
        art._glyph(img, rng, x - 8, y, 6, ppm, ink)
    art.draw_quiet_markers(img, layout, ppm)
    img = cv2.GaussianBlur(img, (0, 0), 0.5)
    return cv2.cvtColor(img, cv2.COLOR_BGR2RGB)

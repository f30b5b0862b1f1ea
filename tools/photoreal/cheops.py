"""Cheops for the photoreal renderer: board artwork, tile and scarab meshes, printed tile faces
(cheops_art.py), game-like positions and the enrolment board -- all designed here (no project code).

Reads from the layout JSON only: `pieces` (kinds, nominal sizes, scarab colours), `holds`,
`spaces` (pyramid `rNcM`, `eye`, `dot`, `price`, `price-law`, `market`), `regions`, `markers`.

Pieces are dicts as in pieces.py (kind, owner, x_mm, y_mm, z, rot, scale, space) plus `mat`: the
material key (a scarab's kind; tiles carry their own printed materials on their mesh).
"""
import math

import cv2
import numpy as np

import artwork as art
from cheops_art import face_art
from pieces import _hsv_jitter


def is_cheops(layout):
    return layout.raw.get("game") == "cheops" or layout.id == "cheops"


# ----------------------------------------------------------------------------- layout helpers
def scarab_kinds(layout):
    return [k for k, v in layout.pieces.items() if v.get("footprint") == "circle"]


def tile_kinds(layout):
    return [k for k, v in layout.pieces.items() if v.get("footprint") == "rect"]


def spaces_of(layout, kind):
    return [s["id"] for s in layout.spaces if s["kind"] == kind]


def holds(layout, sid):
    return set(layout.raw.get("holds", {}).get(layout.space_by_id[sid]["kind"], []))


def pyramid_rc(sid):
    r, c = sid[1:].split("c")
    return int(r), int(c)


def colour_of(sid):
    # dot-red, price-red, price-red-law -> red
    return sid.split("-")[1]


# ----------------------------------------------------------------------------- meshes
def tile_mesh(w, h, b):
    """Bevelled cardboard square; per-face UVs (planar, the print covers top + bevel) and material
    index (0 cardboard core: bottom and sides, 1 printed face: top and bevel)."""
    x = y = w / 2
    v = [(-x, -y, 0), (x, -y, 0), (x, y, 0), (-x, y, 0),
         (-x, -y, h - b), (x, -y, h - b), (x, y, h - b), (-x, y, h - b),
         (-x + b, -y + b, h), (x - b, -y + b, h), (x - b, y - b, h), (-x + b, y - b, h)]
    f = [(0, 3, 2, 1), (0, 1, 5, 4), (1, 2, 6, 5), (2, 3, 7, 6), (3, 0, 4, 7),
         (4, 5, 9, 8), (5, 6, 10, 9), (6, 7, 11, 10), (7, 4, 8, 11), (8, 9, 10, 11)]
    mat = [0, 0, 0, 0, 0, 1, 1, 1, 1, 1]
    V = np.array(v, float)
    uv = [[((V[i, 0] + x) / w, (V[i, 1] + y) / w) for i in face] for face in f]
    return dict(verts=V, faces=f, smooth=[False] * len(f), uv=uv, mat=mat)


def scarab_mesh(d, h, n=40):
    """Painted wooden domed disc: chamfered foot, straight side to ~45 % of the height, a dome."""
    r = d / 2
    b = min(0.0008, h * 0.1)
    h0 = h * 0.45
    prof = [(r - b, 0.0), (r, b), (r, h0)]
    for t in np.linspace(0, math.pi / 2, 8)[1:-1]:
        prof.append((r * math.cos(t) ** 0.8, h0 + (h - h0) * math.sin(t)))
    prof.append((r * 0.08, h))
    t = np.linspace(0, 2 * math.pi, n, endpoint=False)
    v = []
    for rr, z in prof:
        v += [(rr * math.cos(a), rr * math.sin(a), z) for a in t]
    top = len(v)
    v.append((0.0, 0.0, h))
    f, sm = [tuple(range(n - 1, -1, -1))], [False]
    for k in range(len(prof) - 1):
        for i in range(n):
            j = (i + 1) % n
            f.append((k * n + i, k * n + j, (k + 1) * n + j, (k + 1) * n + i)); sm.append(k > 0)
    last = (len(prof) - 1) * n
    for i in range(n):
        f.append((last + i, last + (i + 1) % n, top)); sm.append(True)
    return dict(verts=np.array(v, float), faces=f, smooth=sm)


# ----------------------------------------------------------------------------- per-table style
def table_piece_style(layout, rng, set_seed):
    """Per-table sizes (metres), scarab colours, tile print and cardboard."""
    P = layout.pieces
    sizes, colours, faces = {}, {}, {}
    sd, sh = P[scarab_kinds(layout)[0]]["size_mm"][0], P[scarab_kinds(layout)[0]]["height_mm"]
    # scarabs: one size per table (+-25 % in diameter and height independently), like the China pieces
    scarab = (sd * rng.uniform(0.75, 1.25) / 1000, sh * rng.uniform(0.75, 1.25) / 1000)
    for k in scarab_kinds(layout):
        sizes[k] = scarab
        colours[k] = _hsv_jitter(rng, P[k].get("rgb", (128, 128, 128)))
    tk = tile_kinds(layout)
    tw = P[tk[0]]["size_mm"][0] * rng.uniform(0.96, 1.01) / 1000   # tiles must fit 40 mm squares 2 mm apart
    th = rng.uniform(2.0, 3.5) / 1000
    for k in tk:
        sizes[k] = (tw, tw, th)
        faces[k] = face_art(k, set_seed, rng, P[k].get("face", {}).get("label"), P[k].get("rgb"))
    return dict(sizes=sizes, colours=colours, faces=faces,
                card_rgb=[(200, 195, 180), (170, 165, 155), (215, 205, 185), (120, 110, 100)][rng.integers(4)],
                print_rough=rng.uniform(0.35, 0.8),
                roughness=rng.uniform(0.3, 0.65), grain=rng.uniform(0.08, 0.25), grain_scale=rng.uniform(0.6, 1.6))


def piece_meshes(layout, style):
    out = {}
    for k in scarab_kinds(layout):
        d, h = style["sizes"][k]
        out[k] = scarab_mesh(d, h)
    for k in tile_kinds(layout):
        w, _, h = style["sizes"][k]
        out[k] = tile_mesh(w, h, min(0.0005, h * 0.2))
    return out


# ----------------------------------------------------------------------------- placing pieces
def _piece(rng, kind, x, y, z=0.0, rot=None, scale_jit=0.03):
    return dict(kind=kind, owner="neutral", mat=kind, x_mm=float(x), y_mm=float(y), z=float(z),
                rot=float(rng.uniform(0, 2 * math.pi) if rot is None else rot),
                scale=tuple(rng.uniform(1 - scale_jit, 1 + scale_jit, 3)))


def _tile(rng, layout, kind, sid):
    cx, cy = layout.space_centre(sid)
    a = rng.uniform(0, 2 * math.pi); r = 0.8 * math.sqrt(rng.random())
    rot = rng.integers(4) * math.pi / 2 + math.radians(rng.uniform(-2, 2))
    p = _piece(rng, kind, cx + r * math.cos(a), cy + r * math.sin(a), rot=rot, scale_jit=0.004)
    p["scale"] = (p["scale"][0], p["scale"][0], p["scale"][2])
    return p


def _scarab(rng, layout, style, kind, sid, jitter_mm):
    cx, cy = layout.space_centre(sid)
    a = rng.uniform(0, 2 * math.pi); r = jitter_mm * math.sqrt(rng.random())
    return _piece(rng, kind, cx + r * math.cos(a), cy + r * math.sin(a))


def _price_slots(layout, style, sid, kind):
    """Centres (mm) of the entries a price space's scarabs cover, top entry first."""
    pts = np.array(layout.space_by_id[sid]["points_mm"], float)
    x0, y0 = pts.min(axis=0); x1, y1 = pts.max(axis=0)
    d = style["sizes"][kind][0] * 1000 * 1.03
    pitch = max((y1 - y0) / 5.0, d + 1.0)
    n = int((y1 - y0 - 1.0) // pitch)
    return [((x0 + x1) / 2, y0 + pitch * (k + 0.5)) for k in range(n)], (x1 - x0) / 2 - d / 2 - 1.0


def supported(covered, r, c, rows):
    return r == rows or ((r + 1, c) in covered and (r + 1, c + 1) in covered)


def game_position(rng, layout, style):
    """A position of a game under way. Returns (pieces, truth)."""
    pyr = [s["id"] for s in layout.spaces if s["kind"] in ("pyramid", "eye")]
    eyes = set(spaces_of(layout, "eye"))
    rows = max(pyramid_rc(s)[0] for s in pyr)
    rc2id = {pyramid_rc(s): s for s in pyr}
    # tiles the players lay: those a plain pyramid space holds (the laws lie there from the start)
    tkinds = [k for k in tile_kinds(layout) if k in set(layout.raw.get("holds", {}).get("pyramid", []))]
    wts = np.array([0.22 if k.startswith("family") else 0.12 for k in tkinds]); wts /= wts.sum()
    skinds = scarab_kinds(layout)
    # the treasures dealt at the start: as many of each colour on the non-eye spaces
    plain = [s for s in pyr if s not in eyes]
    deal = [skinds[i % len(skinds)] for i in range(len(plain))]
    rng.shuffle(deal)
    treasure = dict(zip(plain, deal))
    # tiles laid bottom-up: a space is open once both spaces it rests on are covered
    n_tiles = int(rng.integers(0, int(0.8 * len(pyr)) + 1))
    covered = set()
    for _ in range(n_tiles):
        cand = [rc for rc in rc2id if rc not in covered and supported(covered, *rc, rows)]
        if not cand:
            break
        # players mostly build low, sometimes climb
        w = np.array([1.0 + 0.6 * (rc[0] - 1) / rows for rc in cand]); w /= w.sum()
        covered.add(cand[rng.choice(len(cand), p=w)])
    pieces, truth = [], {}
    taken = {k: 0 for k in skinds}
    laws_taken = 0
    for rc, sid in rc2id.items():
        if rc in covered:
            k = tkinds[rng.choice(len(tkinds), p=wts)]
            p = _tile(rng, layout, k, sid)
            if sid in eyes:
                laws_taken += 1
            else:
                taken[treasure[sid]] += 1
        elif sid in eyes:
            p = _tile(rng, layout, "law", sid)
        else:
            p = _scarab(rng, layout, style, treasure[sid], sid, 4.0)
        p["space"] = sid
        pieces.append(p); truth[sid] = [f"neutral:{p['kind']}"]
    # the marker scarab on each colour's dot (almost always there)
    for sid in spaces_of(layout, "dot"):
        k = f"treasure-{colour_of(sid)}"
        if k not in skinds or rng.random() < 0.05:
            continue
        p = _scarab(rng, layout, style, k, sid, 2.0); p["space"] = sid
        pieces.append(p); truth[sid] = [f"neutral:{k}"]
    # sold scarabs on the price columns: about half of the treasures taken are sold
    for sid in spaces_of(layout, "price"):
        k = f"treasure-{colour_of(sid)}"
        if k not in skinds:
            continue
        slots, xj = _price_slots(layout, style, sid, k)
        n = min(len(slots), int(rng.binomial(taken[k], 0.5)) + (1 if rng.random() < 0.1 else 0))
        ps = []
        for x, y in slots[:n]:
            p = _piece(rng, k, x + rng.uniform(-min(3.0, xj), min(3.0, xj)), y + rng.uniform(-1.0, 1.0)); p["space"] = sid
            ps.append(p)
        pieces += ps
        if ps:
            truth[sid] = [f"neutral:{k}"] * len(ps)
    # laws 4-7 attached under a price table
    pl = spaces_of(layout, "price-law")
    n_att = min(len(pl), int(rng.binomial(laws_taken, 0.5)) + (1 if rng.random() < 0.15 else 0))
    for sid in list(rng.permutation(pl))[:n_att]:
        cx, cy = layout.space_centre(sid)
        rot = rng.integers(4) * math.pi / 2 + math.radians(rng.uniform(-4, 4))
        p = _piece(rng, "law", cx + rng.uniform(-4, 4), cy + rng.uniform(-0.8, 0.8), rot=rot, scale_jit=0.004)
        p["scale"] = (p["scale"][0], p["scale"][0], p["scale"][2]); p["space"] = sid
        pieces.append(p); truth[sid] = ["neutral:law"]
    return pieces, truth


def enrol_position(rng, layout, style):
    """One piece of each kind, each alone on its own space, spread over the pyramid (tiles and
    scarabs on plain pyramid spaces, the law on an eye space)."""
    plain = list(rng.permutation(spaces_of(layout, "pyramid")))
    eyes = list(rng.permutation(spaces_of(layout, "eye")))
    pieces, truth, used = [], {}, []

    def far(sid, d=60.0):
        c = np.array(layout.space_centre(sid))
        return all(np.linalg.norm(c - np.array(layout.space_centre(u))) >= d for u in used)

    for kind in layout.pieces:
        pool = eyes if "law" == kind else plain
        pool = [s for s in pool if kind in holds(layout, s) and s not in used]
        sid = next((s for s in pool if far(s)), None) or next((s for s in pool if far(s, 43)), None) or pool[0]
        used.append(sid)
        if kind in tile_kinds(layout):
            p = _tile(rng, layout, kind, sid)
        else:
            p = _scarab(rng, layout, style, kind, sid, 3.0)
        p["space"] = sid
        pieces.append(p); truth[sid] = [f"neutral:{kind}"]
    return pieces, truth


# ----------------------------------------------------------------------------- board artwork
def make_artwork(layout, rng, ppm=4):
    """The Cheops board's print, designed here: papyrus paper, a border, the six colour columns
    with dot, price table and law box, a market box, the pyramid with stone courses, printed
    squares (eye spaces with an eye), labels, and the AprilTag corner markers."""
    W, H = layout.W, layout.H
    w, h = int(round(W * ppm)), int(round(H * ppm))
    P = lambda pt: art._p(pt, ppm)  # noqa: E731
    SC, SH = art.SC, art.SHIFT
    paper = art._jitter_rgb(rng, [(236, 222, 186), (242, 232, 205), (226, 212, 178), (230, 220, 200)][rng.integers(4)], 0.12)
    ink = [(40, 30, 25), (70, 45, 25), (30, 40, 70), (90, 30, 25)][rng.integers(4)]
    accent = [(150, 110, 40), (120, 40, 30), (40, 90, 110), (60, 60, 60)][rng.integers(4)]
    font = [cv2.FONT_HERSHEY_SIMPLEX, cv2.FONT_HERSHEY_COMPLEX, cv2.FONT_HERSHEY_TRIPLEX, cv2.FONT_HERSHEY_DUPLEX][rng.integers(4)]
    # the squares' print: the layout's fill jittered, or a stone colour of this edition
    fill_base = layout.raw.get("space_fill", {}).get("pyramid", [150, 158, 172])
    sq_choice = rng.integers(4)
    sq_fill = [art._jitter_rgb(rng, fill_base, 0.15), art._jitter_rgb(rng, (165, 140, 110), 0.12),
               art._jitter_rgb(rng, (150, 120, 100), 0.12), art._jitter_rgb(rng, (135, 150, 140), 0.12)][sq_choice]
    sq_line = rng.uniform(0.4, 1.2)
    img = np.empty((h, w, 3), np.uint8)
    img[:] = art._bgr(paper)
    nz = rng.normal(0, 1, (h // 8 + 1, w // 8 + 1)).astype(np.float32)
    nz = cv2.resize(cv2.GaussianBlur(nz, (0, 0), 2), (w, h), interpolation=cv2.INTER_CUBIC)
    fine = cv2.GaussianBlur(rng.normal(0, 1, (h, w)).astype(np.float32), (0, 0), 0.8)
    img = np.clip(img.astype(np.float32) + (nz * 3.5 + fine * 2.0)[..., None], 0, 255).astype(np.uint8)
    # border: a thick frame and a band of little triangles (a frieze)
    m1 = rng.uniform(3, 6)
    cv2.rectangle(img, P((m1, m1)), P((W - m1, H - m1)), art._bgr(ink), max(1, int(ppm * rng.uniform(0.8, 1.8))), cv2.LINE_AA, SH)
    m2 = m1 + rng.uniform(3, 5)
    cv2.rectangle(img, P((m2, m2)), P((W - m2, H - m2)), art._bgr(accent), max(1, int(ppm * 0.5)), cv2.LINE_AA, SH)
    qz = layout.marker_size + 14
    step = rng.uniform(8, 12)
    y = m2 + 1.5
    x = qz + 8
    while x < W - qz - 8:
        for yy, sgn in ((y, 1), (H - y, -1)):
            cv2.fillPoly(img, [np.array([P((x, yy)), P((x + step * 0.6, yy)), P((x + step * 0.3, yy + sgn * 4.5))], np.int32)],
                         art._bgr(accent), cv2.LINE_AA, SH)
        x += step
    # colour columns
    for r in layout.regions:
        poly = r.get("polygon") or r.get("points_mm")
        if not poly:
            continue
        pts = np.array([P(q) for q in poly], np.int32)
        if r["id"] == "pyramid":
            tint = art._jitter_rgb(rng, r.get("tint_rgb", (222, 196, 140)), 0.12)
            cv2.fillPoly(img, [pts], art._bgr(tint), cv2.LINE_AA, SH)
            # stone courses between the rows, and vertical joints
            (ax, ay), (bx, by), (cx, cy) = poly
            course = tuple(int(c * 0.85) for c in tint)
            yk = ay + 14
            k = 0
            while yk < by:
                f = (yk - ay) / (by - ay)
                xl, xr = ax + (bx - ax) * f, ax + (cx - ax) * f
                cv2.line(img, P((xl, yk)), P((xr, yk)), art._bgr(course), max(1, int(ppm * 0.5)), cv2.LINE_AA, SH)
                k += 1
                yk += 42.0 / 2
            cv2.polylines(img, [pts], True, art._bgr(ink), max(1, int(ppm * rng.uniform(0.6, 1.4))), cv2.LINE_AA, SH)
        else:
            tint = art._jitter_rgb(rng, r.get("tint_rgb", paper), 0.10)
            over = img.copy()
            cv2.fillPoly(over, [pts], art._bgr(tint), cv2.LINE_AA, SH)
            img = cv2.addWeighted(over, 0.9, img, 0.1, 0)
            cv2.polylines(img, [pts], True, art._bgr(ink), max(1, int(ppm * 0.6)), cv2.LINE_AA, SH)
    # spaces
    for s in layout.spaces:
        sid, kind = s["id"], s["kind"]
        out = layout.space_outline_mm(sid)
        pts = np.array([P(q) for q in out], np.int32)
        c = layout.space_centre(sid)
        if kind in ("pyramid", "eye"):
            f = tuple(int(np.clip(v * rng.uniform(0.97, 1.03), 0, 255)) for v in sq_fill)
            cv2.fillPoly(img, [pts], art._bgr(f), cv2.LINE_AA, SH)
            cv2.polylines(img, [pts], True, art._bgr(ink), max(1, int(round(sq_line * ppm))), cv2.LINE_AA, SH)
            r_, c_ = pyramid_rc(sid)
            if rng.random() < 0.5:
                art._text(img, f"{r_}.{c_}", (out[0][0] + 1.5, out[0][1] + 5.0), 3.0, ppm, tuple(int(v * 0.6) for v in f), font)
            if kind == "eye":
                ecol = tuple(int(v * 0.35) for v in f)
                cv2.ellipse(img, P(c), (int(13 * ppm * SC), int(6.5 * ppm * SC)), 0, 0, 360, art._bgr(ecol), max(1, int(ppm * 1.0)), cv2.LINE_AA, SH)
                cv2.circle(img, P(c), int(4.0 * ppm * SC), art._bgr(ecol), -1, cv2.LINE_AA, SH)
                cv2.line(img, P((c[0] - 12, c[1] - 10)), P((c[0] + 12, c[1] - 11)), art._bgr(ecol), max(1, int(ppm * 1.2)), cv2.LINE_AA, SH)
                cv2.line(img, P((c[0] - 3, c[1] + 6)), P((c[0] - 6, c[1] + 15)), art._bgr(ecol), max(1, int(ppm * 1.0)), cv2.LINE_AA, SH)
        elif kind == "dot":
            col = layout.pieces.get(f"treasure-{colour_of(sid)}", {}).get("rgb", (128, 128, 128))
            col = art._jitter_rgb(rng, tuple(int(v * 0.9) for v in col), 0.1)
            cv2.fillPoly(img, [pts], art._bgr(col), cv2.LINE_AA, SH)
            cv2.polylines(img, [pts], True, art._bgr(ink), max(1, int(ppm * 0.8)), cv2.LINE_AA, SH)
        elif kind == "price":
            f = tuple(int(v * 0.95) for v in sq_fill) if rng.random() < 0.5 else (244, 238, 222)
            cv2.fillPoly(img, [pts], art._bgr(f), cv2.LINE_AA, SH)
            x0, y0 = np.min(out, axis=0); x1, y1 = np.max(out, axis=0)
            for k in range(1, 5):
                yy = y0 + (y1 - y0) * k / 5
                cv2.line(img, P((x0, yy)), P((x1, yy)), art._bgr(ink), max(1, int(ppm * 0.4)), cv2.LINE_AA, SH)
            for k in range(5):
                val = [2, 3, 5, 7, 10, 12, 15][rng.integers(7)] if rng.random() < 0.8 else None
                yy = y0 + (y1 - y0) * (k + 0.5) / 5
                if val:
                    art._text(img, str(val), (x0 + 22, yy + 3), 7, ppm, ink, font)
                else:
                    art._text(img, "x2", (x0 + 20, yy + 3), 7, ppm, accent, font)
            cv2.polylines(img, [pts], True, art._bgr(ink), max(1, int(ppm * 0.8)), cv2.LINE_AA, SH)
        elif kind == "price-law":
            x0, y0 = np.min(out, axis=0); x1, y1 = np.max(out, axis=0)
            k = x0
            while k < x1:
                cv2.line(img, P((k, y0)), P((min(k + 3, x1), y0)), art._bgr(ink), max(1, int(ppm * 0.4)), cv2.LINE_AA, SH)
                cv2.line(img, P((k, y1)), P((min(k + 3, x1), y1)), art._bgr(ink), max(1, int(ppm * 0.4)), cv2.LINE_AA, SH)
                k += 5
            cv2.line(img, P((x0, y0)), P((x0, y1)), art._bgr(ink), max(1, int(ppm * 0.4)), cv2.LINE_AA, SH)
            cv2.line(img, P((x1, y0)), P((x1, y1)), art._bgr(ink), max(1, int(ppm * 0.4)), cv2.LINE_AA, SH)
            art._text(img, "LAW", (x0 + 18, (y0 + y1) / 2 + 3), 6, ppm, accent, font)
        else:  # market and anything else: a framed box with numbers
            cv2.polylines(img, [pts], True, art._bgr(ink), max(1, int(ppm * 0.8)), cv2.LINE_AA, SH)
            x0, y0 = np.min(out, axis=0)
            for k in range(6):
                art._text(img, str(k + 1), (x0 + 5 + 12 * (k % 6), y0 + 20 + 18 * (k // 6)), 6, ppm, ink, font)
    # title, glyph rows in the free margin right of the pyramid top
    if rng.random() < 0.8:
        art._text(img, "CHEOPS", (W / 2 + 70, 300), rng.uniform(9, 13), ppm, accent, font, 1.3)
    for _ in range(rng.integers(3, 8)):
        x = rng.uniform(400, W - 90); y = rng.uniform(320, 420)
        for k in range(rng.integers(1, 4)):
            art._glyph(img, rng, x + k * 9, y, 7, ppm, ink)
    art.draw_quiet_markers(img, layout, ppm)  # corner markers with their white quiet zone
    img = cv2.GaussianBlur(img, (0, 0), 0.5)
    return cv2.cvtColor(img, cv2.COLOR_BGR2RGB)

"""Ming Dynasty for the photoreal renderer: board artwork, family-member and prince meshes,
game-like positions and the enrolment board -- all designed here (no project code).

Reads from the layout JSON only: `pieces` (family = rect footprint, prince = circle footprint,
nominal sizes, owners = players), `players` (colours), `holds`, `spaces` (district open areas,
cloisters, cities, province spaces), `regions` (provinces, cities, prince spots, city houses,
display cards) and `markers`.

Pieces are dicts as in pieces.py (kind, owner, x_mm, y_mm, z, rot, scale, space); the material is
the owner's painted wood. No bpy here (the tests import this module without Blender).
"""
import math

import cv2
import numpy as np

import artwork as art
from pieces import _hsv_jitter, box_bevel_mesh

SET_NOTES = ("painted wooden family blocks and turned princes in the players' colours (size and colour "
             "varied per table), own ink-and-wash board art, game-like positions (heaps in open areas and "
             "on province spaces, monks in cloisters, city houses at scoring), ")
CITY_HOUSES = 3      # rules: 3 city houses per district
CLOISTER_CAP = 1     # rules: a cloister holds at most 1 family member
GAP_MM = 0.15        # pieces may touch, never interpenetrate


def is_ming(layout):
    return layout.raw.get("game") == "ming" or str(layout.id).startswith("ming")


# ----------------------------------------------------------------------------- layout helpers
def family_kind(layout):
    return next(k for k, v in layout.pieces.items() if v.get("footprint") == "rect")


def prince_kind(layout):
    return next(k for k, v in layout.pieces.items() if v.get("footprint") == "circle")


def owners(layout):
    return list(layout.players)


def spaces_of(layout, kind):
    return [s["id"] for s in layout.spaces if s["kind"] == kind]


def holds(layout, sid):
    return set(layout.raw.get("holds", {}).get(layout.space_by_id[sid]["kind"], []))


def region(layout, rid):
    for r in layout.regions:
        if r["id"] == rid:
            return np.array(r.get("polygon") or r.get("points_mm"), float)
    return None


def house_squares(layout, sid):
    """Centres (mm) and side of the city houses of the city space `sid` (`<district>-city`)."""
    d = sid[:-len("-city")] if sid.endswith("-city") else sid
    out = []
    for k in range(1, CITY_HOUSES + 1):
        poly = region(layout, f"house-{d}-{k}")
        if poly is not None:
            out.append((tuple(poly.mean(axis=0)), float(np.ptp(poly[:, 0]))))
    if not out:  # no house regions: three slots across the city
        pts = np.array(layout.space_by_id[sid]["points_mm"], float)
        x0, y0 = pts.min(axis=0); x1, y1 = pts.max(axis=0)
        out = [((x0 + (x1 - x0) * (k + 0.5) / 3, (y0 + y1) / 2), (x1 - x0) / 3.5) for k in range(CITY_HOUSES)]
    return out


def capacity(layout, sid, kind):
    """How many pieces of `kind` the space may hold (rules notes: cloister 1, city 3 houses,
    open area and province space unbounded for family members, one prince per district)."""
    sk = layout.space_by_id[sid]["kind"]
    if kind not in holds(layout, sid):
        return 0
    if kind == prince_kind(layout):
        return 1
    if sk == "cloister":
        return CLOISTER_CAP
    if sk == "city":
        return len(house_squares(layout, sid))
    return 10 ** 6


# ----------------------------------------------------------------------------- meshes
def lathe_mesh(prof, n=40):
    """Surface of revolution of the profile [(r, z), ...] from the foot (z=0) up; closed at the
    bottom by a flat cap and at the top by a cap (r>0) or apex (r=0)."""
    t = np.linspace(0, 2 * math.pi, n, endpoint=False)
    v = []
    rings = [p for p in prof if p[0] > 1e-6]
    for rr, z in rings:
        v += [(rr * math.cos(a), rr * math.sin(a), z) for a in t]
    f, sm = [tuple(range(n - 1, -1, -1))], [False]
    for k in range(len(rings) - 1):
        for i in range(n):
            j = (i + 1) % n
            f.append((k * n + i, k * n + j, (k + 1) * n + j, (k + 1) * n + i)); sm.append(True)
    last = (len(rings) - 1) * n
    if prof[-1][0] <= 1e-6:
        top = len(v)
        v.append((0.0, 0.0, prof[-1][1]))
        for i in range(n):
            f.append((last + i, last + (i + 1) % n, top)); sm.append(True)
    else:
        f.append(tuple(last + i for i in range(n))); sm.append(False)
    return dict(verts=np.array(v, float), faces=f, smooth=sm)


def prince_profile(d, h, shape):
    """Profiles of a turned wooden prince, widest radius = d/2 (the footprint)."""
    r = d / 2
    if shape == 0:   # pawn: foot, tapered body, collar, neck, ball head
        prof = [(r * 0.96, 0.0), (r, h * 0.03), (r, h * 0.10), (r * 0.80, h * 0.15), (r * 0.62, h * 0.30),
                (r * 0.50, h * 0.52), (r * 0.78, h * 0.57), (r * 0.78, h * 0.61), (r * 0.42, h * 0.65)]
        hr = min(r * 0.62, h * 0.19)
        zc = h - hr
        for a in np.linspace(-math.pi / 2 + 0.45, math.pi / 2, 9):
            prof.append((hr * math.cos(a), zc + hr * math.sin(a)))
        prof[-1] = (0.0, h)
    elif shape == 1:  # cylinder with a rim, a shoulder and a domed hat
        prof = [(r * 0.97, 0.0), (r, h * 0.03), (r, h * 0.08), (r * 0.86, h * 0.10), (r * 0.86, h * 0.66),
                (r * 0.98, h * 0.70), (r * 0.98, h * 0.74), (r * 0.60, h * 0.78)]
        for a in np.linspace(0.25, math.pi / 2, 7):
            prof.append((r * 0.60 * math.cos(a), h * 0.78 + h * 0.22 * math.sin(a)))
        prof[-1] = (0.0, h)
    else:            # cone-ish robe with a small head on a collar (a "king" peg)
        prof = [(r * 0.97, 0.0), (r, h * 0.04), (r * 0.92, h * 0.12), (r * 0.55, h * 0.62), (r * 0.70, h * 0.66),
                (r * 0.70, h * 0.69), (r * 0.35, h * 0.72)]
        hr = min(r * 0.5, h * 0.15)
        zc = h - hr
        for a in np.linspace(-math.pi / 2 + 0.6, math.pi / 2, 8):
            prof.append((hr * math.cos(a), zc + hr * math.sin(a)))
        prof[-1] = (0.0, h)
    return prof


def table_piece_style(layout, rng, set_seed=1):
    """Per-table sizes (metres), colours per owner (sRGB 0..255) and wood finish."""
    P = layout.pieces
    fk, pk = family_kind(layout), prince_kind(layout)

    def f():
        return rng.uniform(0.75, 1.25)
    fw, fl = P[fk]["size_mm"][:2] if len(P[fk]["size_mm"]) > 1 else P[fk]["size_mm"] * 2
    fh = P[fk]["height_mm"]
    pd, ph = P[pk]["size_mm"][0], P[pk]["height_mm"]
    sizes = {fk: (fw * f() / 1000, fl * f() / 1000, fh * f() / 1000),
             pk: (pd * f() / 1000, ph * f() / 1000)}
    colours = {o: _hsv_jitter(rng, layout.players[o]) for o in owners(layout)}
    return dict(sizes=sizes, colours=colours,
                family_bevel=float(rng.uniform(0.2, 1.6)) / 1000,   # sharp cut block .. rounded block
                prince_shape=int(rng.integers(3)),
                roughness=rng.uniform(0.3, 0.65), grain=rng.uniform(0.08, 0.25), grain_scale=rng.uniform(0.6, 1.6))


def piece_meshes(layout, style):
    fk, pk = family_kind(layout), prince_kind(layout)
    w, l, h = style["sizes"][fk]
    d, ph = style["sizes"][pk]
    b = min(style.get("family_bevel", 0.0008), 0.25 * min(w, l, h))
    return {fk: box_bevel_mesh(w, l, h, b),
            pk: lathe_mesh(prince_profile(d, ph, style.get("prince_shape", 0)))}


# ----------------------------------------------------------------------------- geometry (mm)
def footprint(layout, style, kind, x, y, rot, scale=(1.0, 1.0, 1.0)):
    """Footprint polygon (mm) of a piece at (x, y) turned by rot (board y grows down: world +Y is
    board -y, so a world turn by rot is a board turn by -rot)."""
    if kind == family_kind(layout):
        w, l, _ = style["sizes"][kind]
        hx, hy = w * 500 * scale[0], l * 500 * scale[1]
        loc = np.array([(-hx, -hy), (hx, -hy), (hx, hy), (-hx, hy)])
    else:
        r = style["sizes"][kind][0] * 500 * max(scale[0], scale[1])
        t = np.linspace(0, 2 * math.pi, 20, endpoint=False)
        loc = np.stack([r * np.cos(t), r * np.sin(t)], 1) / math.cos(math.pi / 20)
    c, s = math.cos(-rot), math.sin(-rot)
    return loc @ np.array([[c, s], [-s, c]]) + np.array([x, y])


def _overlap(a, b, gap=GAP_MM):
    """Separating-axis test for two convex polygons; True when closer than `gap`."""
    for poly in (a, b):
        n = len(poly)
        for i in range(n):
            e = poly[(i + 1) % n] - poly[i]
            ax = np.array([-e[1], e[0]]); ax /= np.linalg.norm(ax) + 1e-12
            pa, pb = a @ ax, b @ ax
            if pa.max() + gap <= pb.min() or pb.max() + gap <= pa.min():
                return False
    return True


def _inside(pt, poly):
    x, y = pt
    ins = False
    n = len(poly)
    for i in range(n):
        x1, y1 = poly[i]; x2, y2 = poly[(i + 1) % n]
        if (y1 > y) != (y2 > y) and x < x1 + (y - y1) * (x2 - x1) / (y2 - y1):
            ins = not ins
    return ins


def space_polygon(layout, sid):
    return np.array(layout.space_outline_mm(sid, n=40), float)


def fits(layout, sid, fp, margin=0.6):
    """A footprint lies inside the space (margin mm from its edge)."""
    s = layout.space_by_id[sid]
    if "radius_mm" in s:
        c = np.array(s["centre_mm"], float)
        return bool(np.all(np.linalg.norm(fp - c, axis=1) <= s["radius_mm"] - margin))
    poly = space_polygon(layout, sid)
    c = fp.mean(axis=0)
    grown = c + (fp - c) * (1 + margin / max(1e-6, np.min(np.linalg.norm(fp - c, axis=1))))
    if not all(_inside(p, poly) for p in grown):
        return False
    return not any(_inside(q, fp) for q in poly)


def _piece(rng, layout, kind, owner, x, y, rot=None, sid=None):
    return dict(kind=kind, owner=owner, x_mm=float(x), y_mm=float(y), z=0.0,
                rot=float(rng.uniform(0, 2 * math.pi) if rot is None else rot),
                scale=tuple(float(v) for v in rng.uniform(0.97, 1.03, 3)), space=sid)


def _fp(layout, style, p):
    return footprint(layout, style, p["kind"], p["x_mm"], p["y_mm"], p["rot"], p["scale"])


def try_place(rng, layout, style, sid, kind, owner, placed, centre=None, spread=6.0, tries=150):
    """Place one piece inside `sid` without overlapping `placed` (its footprints): near `centre`
    (normal, `spread` mm) first, then anywhere in the space. Returns the piece or None."""
    poly = space_polygon(layout, sid)
    lo, hi = poly.min(axis=0), poly.max(axis=0)
    for t in range(tries):
        if centre is not None and t < tries * 2 // 3:
            x, y = rng.normal(centre[0], spread), rng.normal(centre[1], spread)
        else:
            x, y = rng.uniform(lo[0], hi[0]), rng.uniform(lo[1], hi[1])
        p = _piece(rng, layout, kind, owner, x, y, sid=sid)
        fp = _fp(layout, style, p)
        if fits(layout, sid, fp) and not any(_overlap(fp, q) for q in placed):
            placed.append(fp)
            return p
    return None


def _tokens(ps):
    return sorted(f"{p['owner']}:{p['kind']}" for p in ps)


def prince_spot(layout, sid):
    poly = region(layout, f"prince-{sid}")
    return tuple(poly.mean(axis=0)) if poly is not None else layout.space_centre(sid)


# ----------------------------------------------------------------------------- positions
def game_position(rng, layout, style):
    """A position of a game under way. Returns (pieces, truth)."""
    fk, pk = family_kind(layout), prince_kind(layout)
    allp = owners(layout)
    n_pl = int(rng.choice([2, 3, 4], p=[0.2, 0.3, 0.5])) if len(allp) >= 4 else len(allp)
    players = [str(o) for o in rng.permutation(allp)[:n_pl]]
    districts = spaces_of(layout, "district")
    pieces, truth = [], {}
    placed = {}
    game_age = rng.uniform(0.15, 1.0)   # early rounds: few pieces; late: crowded
    # each player's family members on the board (of 30 in his supply; some scored away or in the box)
    budget = {o: int(rng.integers(4, 9) + game_age * rng.uniform(6, 20)) for o in players}

    def take(o):
        if budget[o] <= 0:
            return False
        budget[o] -= 1
        return True
    # princes: one per player in play, each in a district no other prince occupies
    pdist = {}
    free = list(rng.permutation(districts))
    for o in players:
        if rng.random() < 0.05 or not free or pk not in holds(layout, free[-1]):
            continue
        sid = str(free.pop())
        cx, cy = prince_spot(layout, sid)
        fp_list = placed.setdefault(sid, [])
        p = try_place(rng, layout, style, sid, pk, o, fp_list, centre=(cx, cy), spread=2.5)
        if p is not None:
            pieces.append(p); pdist[sid] = o
    # province spaces: heaps of any number of family members of any players
    for sid in spaces_of(layout, "province-space"):
        if fk not in holds(layout, sid):
            continue
        n_tot = int(rng.binomial(int(2 + 8 * game_age), 0.55))
        fp_list = placed.setdefault(sid, [])
        heaps = {}
        poly = space_polygon(layout, sid)
        lo, hi = poly.min(axis=0), poly.max(axis=0)
        for _ in range(n_tot):
            o = players[int(rng.integers(n_pl))]
            if not take(o):
                continue
            if o not in heaps:
                heaps[o] = (rng.uniform(lo[0] + 10, hi[0] - 10), rng.uniform(lo[1] + 10, hi[1] - 10))
            p = try_place(rng, layout, style, sid, fk, o, fp_list, centre=heaps[o], spread=rng.uniform(4.0, 10.0))
            if p is not None:
                pieces.append(p)
    # cloisters: at most one monk
    for sid in spaces_of(layout, "cloister"):
        if fk not in holds(layout, sid) or rng.random() > 0.15 + 0.45 * game_age:
            continue
        cx, cy = layout.space_centre(sid)
        fp_list = placed.setdefault(sid, [])
        o = players[int(rng.integers(n_pl))]
        if not take(o):
            continue
        p = try_place(rng, layout, style, sid, fk, o, fp_list, centre=(cx, cy), spread=1.0)
        if p is not None:
            pieces.append(p)
    # cities: only while a province is being scored -- the majorities moved into the 3 houses
    scoring = rng.random() < 0.45
    for sid in spaces_of(layout, "city"):
        if fk not in holds(layout, sid) or not scoring or rng.random() < 0.45:
            continue
        houses = house_squares(layout, sid)
        n = int(rng.integers(1, len(houses) + 1))
        first = players[int(rng.integers(n_pl))]
        fp_list = placed.setdefault(sid, [])
        for (hx, hy), _side in [houses[i] for i in sorted(rng.choice(len(houses), n, replace=False))]:
            o = first if rng.random() < 0.6 else players[int(rng.integers(n_pl))]
            rot = math.radians(rng.uniform(-12, 12)) + rng.integers(4) * math.pi / 2
            for _ in range(20):
                p = _piece(rng, layout, fk, o, hx + rng.uniform(-1.2, 1.2), hy + rng.uniform(-1.2, 1.2), rot=rot, sid=sid)
                fp = _fp(layout, style, p)
                if fits(layout, sid, fp, 0.2) and not any(_overlap(fp, q) for q in fp_list):
                    fp_list.append(fp); pieces.append(p); break
    # open areas: heaps of the players' family members (more near the princes)
    for sid in districts:
        if fk not in holds(layout, sid):
            continue
        p_empty = 0.55 - 0.35 * game_age - (0.25 if sid in pdist else 0.0)
        if rng.random() < p_empty:
            continue
        who = [o for o in players if rng.random() < 0.25 + 0.35 * game_age] or [players[int(rng.integers(n_pl))]]
        if sid in pdist and pdist[sid] not in who:
            who.append(pdist[sid])
        fp_list = placed.setdefault(sid, [])
        for o in who:
            n = int(min(6, rng.geometric(0.45 - 0.15 * game_age)))
            poly = space_polygon(layout, sid)
            centre = None
            for _ in range(30):  # a heap centre inside the open area
                c = (rng.uniform(poly[:, 0].min(), poly[:, 0].max()), rng.uniform(poly[:, 1].min(), poly[:, 1].max()))
                if _inside(c, poly):
                    centre = c; break
            spread = rng.uniform(3.0, 12.0)
            for _ in range(n):
                if not take(o):
                    break
                p = try_place(rng, layout, style, sid, fk, o, fp_list, centre=centre, spread=spread)
                if p is not None:
                    pieces.append(p)
    for p in pieces:
        truth.setdefault(p["space"], []).append(p)
    truth = {sid: _tokens(ps) for sid, ps in truth.items()}
    return pieces, truth


def enrol_position(rng, layout, style):
    """One family member and one prince of each player colour, each alone on its own space,
    spread >= 60 mm apart where possible: princes on their districts' prince spots, family members
    in a cloister or a city house."""
    fk, pk = family_kind(layout), prince_kind(layout)
    districts = [str(s) for s in rng.permutation(spaces_of(layout, "district"))]
    small = [str(s) for s in rng.permutation(spaces_of(layout, "cloister") + spaces_of(layout, "city"))]
    pieces, truth, used = [], {}, []

    def far(sid, d=60.0):
        c = np.array(layout.space_centre(sid))
        return all(np.linalg.norm(c - np.array(layout.space_centre(u))) >= d for u in used)

    def pick(pool, kind):
        pool = [s for s in pool if kind in holds(layout, s) and s not in used]
        return next((s for s in pool if far(s)), None) or next((s for s in pool if far(s, 40)), None) or pool[0]

    for o in owners(layout):
        for kind in (pk, fk):
            sid = pick(districts if kind == pk else small, kind)
            used.append(sid)
            fp_list = []
            if kind == pk:
                p = try_place(rng, layout, style, sid, kind, o, fp_list, centre=prince_spot(layout, sid), spread=2.0)
            elif layout.space_by_id[sid]["kind"] == "city":
                (hx, hy), _ = house_squares(layout, sid)[int(rng.integers(CITY_HOUSES))]
                p = _piece(rng, layout, kind, o, hx + rng.uniform(-1, 1), hy + rng.uniform(-1, 1),
                           rot=math.radians(rng.uniform(-10, 10)), sid=sid)
            else:
                p = try_place(rng, layout, style, sid, kind, o, fp_list, centre=layout.space_centre(sid), spread=1.0)
            if p is None:  # never for the nominal sizes: centre it
                cx, cy = layout.space_centre(sid)
                p = _piece(rng, layout, kind, o, cx, cy, sid=sid)
            pieces.append(p); truth[sid] = [f"{o}:{kind}"]
    return pieces, truth


# ----------------------------------------------------------------------------- board artwork
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

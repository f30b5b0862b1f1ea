"""Ming Dynasty for the photoreal renderer: family-member and prince meshes, game-like positions
and the enrolment board -- all designed here (no project code); the board's reading of the layout is
ming_board.py, its artwork ming_art.py.

Reads from the layout JSON only: `pieces` (family = rect footprint, prince = circle footprint,
nominal sizes, owners = players), `players` (colours), `holds`, `spaces` (district open areas,
cloisters, cities, province spaces), `regions` (provinces, cities, prince spots, city houses,
display cards) and `markers`.

Pieces are dicts as in pieces.py (kind, owner, x_mm, y_mm, z, rot, scale, space); the material is
the owner's painted wood. No bpy here (the tests import this module without Blender).
"""
import math

import numpy as np

import ming_art
from ming_board import (CITY_HOUSES, capacity, family_kind, holds, house_squares,  # noqa: F401 (is_ming,
                        is_ming, owners, prince_kind, region, space_polygon, spaces_of)  # capacity: for callers)
from pieces import _hsv_jitter, box_bevel_mesh

SET_NOTES = ("painted wooden family blocks and turned princes in the players' colours (size and colour "
             "varied per table), own ink-and-wash board art, game-like positions (heaps in open areas and "
             "on province spaces, monks in cloisters, city houses at scoring), ")
GAP_MM = 0.15        # pieces may touch, never interpenetrate


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


def place_in_space(rng, layout, sid, make, placed, centre=None, spread=6.0, tries=150, margin=0.6, gap=GAP_MM,
                   inside_only=False):
    """Place one piece inside `sid` without overlapping `placed` (its footprints, appended to): near
    `centre` (normal, `spread` mm) for the first two thirds of the tries, then anywhere in the space's
    box. `make(x, y)` -> (piece, footprint); `inside_only`: a spot outside the space's polygon is
    skipped before `make` is asked. Returns the piece or None. (Ming and Zhang Yi place this way.)"""
    poly = space_polygon(layout, sid)
    lo, hi = poly.min(axis=0), poly.max(axis=0)
    for t in range(tries):
        if centre is not None and t < tries * 2 // 3:
            x, y = rng.normal(centre[0], spread), rng.normal(centre[1], spread)
        else:
            x, y = rng.uniform(lo[0], hi[0]), rng.uniform(lo[1], hi[1])
        if inside_only and not _inside((x, y), poly):
            continue
        p, fp = make(x, y)
        if fits(layout, sid, fp, margin) and not any(_overlap(fp, q, gap) for q in placed):
            placed.append(fp)
            return p
    return None


def try_place(rng, layout, style, sid, kind, owner, placed, centre=None, spread=6.0, tries=150):
    """Place one piece of `kind` inside `sid` (``place_in_space``). Returns the piece or None."""
    def make(x, y):
        p = _piece(rng, layout, kind, owner, x, y, sid=sid)
        return p, _fp(layout, style, p)
    return place_in_space(rng, layout, sid, make, placed, centre, spread, tries)


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


make_artwork = ming_art.make_artwork  # the board's artwork, as every game module of render_set.py has it

"""Zhang Yi for the photoreal renderer: printed cardboard counters (armies 1-4, talents, state chits),
the battle die, game-like positions and the enrolment board -- all designed here (no project code);
the printed map and the counters' faces are zhangyi_art.py.

Reads from the layout JSON only: `pieces` (army-<v> with `counts_as`, talent-* with their `face.label`
and `owned_by`, chit, die: nominal sizes), `players` (state colours), `holds`, `spaces` (area, city,
box, dice polygons), `regions` (the areas' washes: which state an area is home to) and `markers`.

Pieces are dicts as in pieces.py (kind, owner, x_mm, y_mm, z, rot, scale, space) where `kind` is the
mesh key (`<owner>|<kind>`, `die|<top>`: every printed copy has its own face), plus `tk` (the layout
kind), `ry` (tilt) and, for value counters, `value`. No bpy here.
"""
import math

import numpy as np

import zhangyi_art as zart
from ming import _overlap, fits, place_in_space
from ming_board import space_polygon
from pieces import _hsv_jitter

SET_NOTES = ("printed cardboard counters (army values 1-4 in a hand-made stroke font, talent names, state chits) "
             "on the states' colours with print misregistration, a pipped battle die in the tray in some frames, "
             "own map art (area washes, borders, rivers, mountains, city seals, boxes, dice tray), game-like "
             "positions (territories, 1-6 counters per area, talents with their armies, leaning counters, boxes), ")
GAP_MM = 0.3


def is_zhang_yi(layout):
    return layout.raw.get("game") == "zhang_yi" or str(layout.id).startswith("zhang-yi")


# ----------------------------------------------------------------------------- layout helpers
def owners(layout):
    return list(layout.players)


def value_kinds(layout):
    """army-<v> kinds (counts_as) -> their value."""
    return {k: int(v["counts_as"]["n"]) for k, v in layout.pieces.items() if v.get("counts_as")}


def counted_kind(layout):
    return next(iter({v["counts_as"]["kind"] for v in layout.pieces.values() if v.get("counts_as")}))


def talent_kinds(layout):
    """talent kind -> its state (talents owned by nobody, Jing Ke, are left out)."""
    return {k: v["owned_by"][0] for k, v in layout.pieces.items() if k.startswith("talent-") and v.get("owned_by")}


def chit_kind(layout):
    return next((k for k, v in layout.pieces.items() if v.get("footprint") == "circle"), None)


def die_kind(layout):
    return next((k for k in layout.raw.get("holds", {}).get("dice", []) if k in layout.pieces), None)


def spaces_of(layout, *kinds):
    return [s["id"] for s in layout.spaces if s["kind"] in kinds]


def centroid(layout, sid):
    """Area-weighted centroid (as a polygon's moments give it)."""
    p = space_polygon(layout, sid)
    x, y = p[:, 0], p[:, 1]
    x1, y1 = np.roll(x, -1), np.roll(y, -1)
    cr = x * y1 - x1 * y
    a = cr.sum() / 2
    return (float(((x + x1) * cr).sum() / (6 * a)), float(((y + y1) * cr).sum() / (6 * a)))


def home_states(layout):
    """Space id -> the state whose home it is: the region wash (`area-<id>` tint) nearest the state's
    colour lightened as a map prints it."""
    out = {}
    pl = {o: np.array(c, float) * 0.35 + 255 * 0.65 for o, c in layout.players.items()}
    for r in layout.regions:
        if r["id"].startswith("area-") and r.get("tint_rgb") and r["id"][5:] in layout.space_by_id:
            t = np.array(r["tint_rgb"], float)
            out[r["id"][5:]] = min(pl, key=lambda o: float(np.linalg.norm(pl[o] - t)))
    return out


# ----------------------------------------------------------------------------- meshes
def slab_mesh(w, l, h, rc, b, nc=5, nb=3):
    """A die-cut cardboard counter: rounded-rectangle plan (corner radius rc; rc = w/2 = l/2: a disc),
    a small chamfer at the foot, a rounded top edge of radius b. Planar UVs over the plan; material
    0 (cardboard core: bottom, foot, sides), 1 (printed: the rounded top edge and the top)."""
    def ring(d):
        hw, hl = w / 2 - d, l / 2 - d
        r = min(max(rc - d, 1e-5), hw, hl)
        circle = hw - r < 1e-7 and hl - r < 1e-7
        pts = []
        for cx, cy, a0 in [(hw - r, hl - r, 0), (-(hw - r), hl - r, 90), (-(hw - r), -(hl - r), 180), (hw - r, -(hl - r), 270)]:
            for k in range(nc if circle else nc + 1):
                a = math.radians(a0 + 90.0 * k / nc)
                pts.append((cx + r * math.cos(a), cy + r * math.sin(a)))
        return pts
    prof = [(b * 0.5, 0.0), (0.0, b * 0.5), (0.0, h - b)]
    prof += [(b * (1 - math.cos(t)), h - b + b * math.sin(t)) for t in np.linspace(0, math.pi / 2, nb + 1)[1:]]
    V = []
    for d, z in prof:
        V += [(x, y, z) for x, y in ring(d)]
    N = len(V) // len(prof)
    F, M, S = [tuple(range(N - 1, -1, -1))], [0], [False]
    for k in range(len(prof) - 1):
        for i in range(N):
            j = (i + 1) % N
            F.append((k * N + i, k * N + j, (k + 1) * N + j, (k + 1) * N + i))
            M.append(0 if k < 2 else 1); S.append(True)
    top = (len(prof) - 1) * N
    F.append(tuple(top + i for i in range(N))); M.append(1); S.append(False)
    V = np.array(V, float)
    uv = [[((V[i, 0] + w / 2) / w, (V[i, 1] + l / 2) / l) for i in f] for f in F]
    return dict(verts=V, faces=F, smooth=S, uv=uv, mat=M)


def die_mesh(s, r):
    """A die: cube of side s with edges rounded by r; UVs into zhangyi_art.die_atlas's cells."""
    c = 1 - 2 * r / s
    zone = np.linspace(c, 1, 4)
    ts = np.concatenate([-zone[::-1], zone])
    n = len(ts)
    V, F, uv = [], [], []
    for (ax, sg), (col, row) in zart.DIE_CELLS.items():
        ua, va = (ax + 1) % 3, (ax + 2) % 3
        base = len(V)
        uvs = []
        for i in range(n):
            for j in range(n):
                p = np.zeros(3)
                p[ax] = sg; p[ua] = ts[i]; p[va] = sg * ts[j]
                q = np.clip(p, -c, c)
                d = p - q
                nd = np.linalg.norm(d)
                pr = q + (d / nd * (1 - c) if nd > 1e-9 else 0)
                V.append(pr * s / 2 + np.array([0, 0, s / 2]))
                uvs.append(((col + (ts[i] + 1) / 2) / 3, 1 - (row + 1 - (ts[j] + 1) / 2) / 2))
        for i in range(n - 1):
            for j in range(n - 1):
                f = (base + i * n + j, base + (i + 1) * n + j, base + (i + 1) * n + j + 1, base + i * n + j + 1)
                F.append(f)
                uv.append([uvs[k - base] for k in f])
    return dict(verts=np.array(V, float), faces=F, smooth=[True] * len(F), uv=uv, mat=[1] * len(F))


# ----------------------------------------------------------------------------- per-table style
def table_piece_style(layout, rng, set_seed=1):
    """Per-table sizes (metres; counters +-25 % as the other games' pieces), state colours, the
    printed faces of every counter copy, the die's colours, cardboard and print finish."""
    P = layout.pieces
    vk = value_kinds(layout)
    ck = counted_kind(layout)
    cw = P[next(iter(vk))]["size_mm"][0]
    side = cw * rng.uniform(0.75, 1.25) / 1000
    thick = P[next(iter(vk))].get("height_mm", 3) * rng.uniform(0.75, 1.2) / 1000
    chk = chit_kind(layout)
    dk = die_kind(layout)
    sizes = {ck: (side, side, thick)}
    if chk:
        sizes[chk] = (P[chk]["size_mm"][0] * rng.uniform(0.75, 1.25) / 1000, P[chk].get("height_mm", 2) * rng.uniform(0.8, 1.2) / 1000)
    if dk:
        ds = P[dk]["size_mm"][0] * rng.uniform(0.9, 1.1) / 1000
        sizes[dk] = (ds, ds, ds)
    colours = {o: _hsv_jitter(rng, layout.players[o], 0.15, 6) for o in owners(layout)}
    ed = zart.edition(set_seed)
    ink = [(25, 22, 20), (40, 30, 25), (20, 25, 40)][rng.integers(3)]
    misreg = rng.uniform(0.1, 0.45)
    faces = {}
    for o in owners(layout):
        for k in vk:
            faces[f"{o}|{k}"] = zart.counter_face(o, k, None, colours[o], ed, rng, ink, misreg)
        if chk:
            faces[f"{o}|{chk}"] = zart.counter_face(o, chk, None, colours[o], ed, rng, ink, misreg)
    for k, o in talent_kinds(layout).items():
        faces[f"{o}|{k}"] = zart.counter_face(o, k, P[k].get("face", {}).get("label"), colours[o], ed, rng, ink, misreg)
    die_vals = {}
    if dk:
        u = rng.random()
        body, pip = (((245, 245, 240), (25, 25, 25)) if u < 0.65 else ((235, 225, 200), (30, 25, 20)) if u < 0.8 else
                     [((190, 30, 30), (250, 250, 250)), ((25, 25, 30), (245, 245, 245)), ((30, 70, 160), (250, 250, 250))][rng.integers(3)])
        body = tuple(int(np.clip(c * rng.uniform(0.95, 1.03), 0, 255)) for c in body)
        for v in range(1, 7):
            faces[f"die|{v}"], die_vals[v] = zart.die_atlas(v, body, pip, rng)
    return dict(sizes=sizes, colours=colours, faces=faces, die_values=die_vals,
                counter_round=float(rng.uniform(0.4, 2.2)) / 1000, counter_bevel=float(rng.uniform(0.25, 0.6)) / 1000,
                die_round=float(rng.uniform(0.08, 0.16)),
                card_rgb=[(205, 200, 185), (180, 175, 165), (225, 215, 195), (140, 130, 115)][rng.integers(4)],
                print_rough=rng.uniform(0.4, 0.8),
                roughness=rng.uniform(0.3, 0.65), grain=rng.uniform(0.08, 0.25), grain_scale=rng.uniform(0.6, 1.6))


def piece_meshes(layout, style):
    ck, chk, dk = counted_kind(layout), chit_kind(layout), die_kind(layout)
    w, _, h = style["sizes"][ck]
    b = min(style["counter_bevel"], 0.3 * h)
    counter = slab_mesh(w, w, h, min(style["counter_round"], w * 0.3), b)
    out = {}
    for key in style["faces"]:
        o, k = key.split("|")
        if o == "die":
            ds = style["sizes"][dk][0]
            out[key] = die_mesh(ds, ds * style["die_round"])
        elif k == chk:
            d, ch = style["sizes"][chk]
            out[key] = slab_mesh(d, d, ch, d / 2, min(0.4e-3, 0.3 * ch), nc=10)
        else:
            out[key] = counter
    return out


# ----------------------------------------------------------------------------- placing
def footprint(layout, style, p):
    """Plan footprint (board mm) of a placed piece, as if flat."""
    tk = p["tk"]
    if tk == chit_kind(layout):
        r = style["sizes"][tk][0] * 500 * p["scale"][0]
        t = np.linspace(0, 2 * math.pi, 20, endpoint=False)
        loc = np.stack([r * np.cos(t), r * np.sin(t)], 1) / math.cos(math.pi / 20)
    else:
        key = die_kind(layout) if tk == die_kind(layout) else counted_kind(layout)
        w = style["sizes"][key][0] * 500
        hx, hy = w * p["scale"][0], w * p["scale"][1]
        loc = np.array([(-hx, -hy), (hx, -hy), (hx, hy), (-hx, hy)])
    c, s = math.cos(-p["rot"]), math.sin(-p["rot"])
    return loc @ np.array([[c, s], [-s, c]]) + np.array([p["x_mm"], p["y_mm"]])


def _piece(rng, layout, style, owner, tk, x, y, sid, rot=None, tilt_deg=0.6):
    ck = counted_kind(layout)
    vk = value_kinds(layout)
    if tk == die_kind(layout):
        key = f"die|{int(rng.integers(1, 7))}"
    else:
        key = f"{owner}|{tk}"
    ry = 0.0
    z = 0.0
    if tk != die_kind(layout) and tilt_deg:
        ry = math.radians(float(np.clip(rng.normal(0, tilt_deg), -1.5, 1.5)))
        half = style["sizes"][tk if tk == chit_kind(layout) else ck][0] / 2
        z = half * abs(math.sin(ry))
    sj = 0.01 if tk != die_kind(layout) else 0.005
    s = float(rng.uniform(1 - sj, 1 + sj))
    p = dict(kind=key, owner=owner if tk != die_kind(layout) else "neutral", tk=tk, x_mm=float(x), y_mm=float(y), z=float(z),
             rot=float(rng.uniform(0, 2 * math.pi) if rot is None else rot), ry=ry,
             scale=(s, s, float(rng.uniform(0.97, 1.03))), space=sid)
    if tk in vk:
        p["value"] = vk[tk]
    if tk == die_kind(layout):
        p["value"] = int(key.split("|")[1])
    return p


def try_place(rng, layout, style, sid, owner, tk, placed, centre=None, spread=8.0, tries=120, margin=0.8):
    """One piece inside `sid` not overlapping `placed` (footprints, appended to): near `centre` first
    (``ming.place_in_space``)."""
    def make(x, y):
        p = _piece(rng, layout, style, owner, tk, x, y, sid)
        return p, footprint(layout, style, p)
    return place_in_space(rng, layout, sid, make, placed, centre, spread, tries, margin, GAP_MM, inside_only=True)


def lean_on(rng, layout, style, upper, lower, others, sid):
    """Re-lay counter `upper` so that one edge rests on the board and it leans on `lower`'s top edge,
    covering 20-38 % of it (a heap pushed together). Returns the changed (upper, lower) or None when
    it does not fit; `others`: footprints of the space's other pieces."""
    ck = counted_kind(layout)
    w = style["sizes"][ck][0] * 1000
    h = style["sizes"][ck][2] * 1000
    rot = float(rng.uniform(0, 2 * math.pi))
    D = w * rng.uniform(0.62, 0.8)
    a = math.asin(min(0.5, (h + 0.1) / D))
    lo = dict(lower, rot=rot + math.radians(rng.uniform(-2, 2)), ry=0.0, z=0.0)
    up = dict(upper, rot=rot, ry=-a, z=w / 2 * math.sin(a) / 1000,
              x_mm=lower["x_mm"] - D * math.cos(rot), y_mm=lower["y_mm"] + D * math.sin(rot))
    fl, fu = footprint(layout, style, lo), footprint(layout, style, up)
    if not (fits(layout, sid, fl) and fits(layout, sid, fu)):
        return None
    if any(_overlap(fl, q, GAP_MM) or _overlap(fu, q, GAP_MM) for q in others):
        return None
    up["leans_on"] = True
    return up, lo


def _tok(layout, p):
    if "value" in p and p["tk"] != die_kind(layout):
        return [f"{p['owner']}:{counted_kind(layout)}"] * p["value"]
    return [f"{p['owner']}:{p['tk']}"]


def truth_of(layout, pieces):
    truth = {}
    for p in pieces:
        truth.setdefault(p["space"], []).extend(_tok(layout, p))
    return {sid: sorted(v) for sid, v in sorted(truth.items())}


# ----------------------------------------------------------------------------- positions
N_WEIGHTS = np.array([0.30, 0.25, 0.18, 0.12, 0.09, 0.06])   # counters per occupied area: 1..6
V_WEIGHTS = np.array([0.32, 0.30, 0.20, 0.18])               # a counter's value 1..4
COUNTERS_PER_STATE = 8                                       # rules: 8 army counters per state


def game_position(rng, layout, style):
    """A position of a game under way: the states' territories (each area held by one state, 1-6 of
    its counters, a battle area with two states now and then), talents on areas with their state's
    armies, graveyard talents and used action chits in their boxes, the die in the tray in some
    frames. Returns (pieces, truth)."""
    states = owners(layout)
    vk = list(value_kinds(layout))
    lands = spaces_of(layout, "area", "city")
    home = home_states(layout)
    cent = {s: np.array(centroid(layout, s)) for s in lands}
    seed = {}
    for o in states:
        hs = [cent[s] for s in lands if home.get(s) == o]
        seed[o] = np.mean(hs, axis=0) if hs else cent[lands[int(rng.integers(len(lands)))]]
    age = rng.uniform(0, 1)       # early: states at home; late: mixed
    reach = 50 + 220 * age
    budget = {o: COUNTERS_PER_STATE for o in states}
    alive = [o for o in states if rng.random() > 0.12 * age] or states
    occ = rng.uniform(0.55, 0.9)
    pieces, placed, held = [], {}, {}
    for sid in [str(s) for s in rng.permutation(lands)]:
        if rng.random() > occ:
            continue
        d = np.array([np.linalg.norm(cent[sid] - seed[o]) for o in alive])
        wt = np.exp(-d / reach) * np.array([budget[o] > 0 for o in alive])
        if wt.sum() <= 0:
            continue
        o = alive[int(rng.choice(len(alive), p=wt / wt.sum()))]
        n = min(int(rng.choice(6, p=N_WEIGHTS)) + 1, budget[o])
        fps = placed.setdefault(sid, [])
        c0 = cent[sid] + rng.normal(0, 6, 2)
        spread = rng.uniform(8, 20)
        mine = []
        for _ in range(n):
            tk = vk[int(rng.choice(len(vk), p=V_WEIGHTS))]
            p = try_place(rng, layout, style, sid, o, tk, fps, centre=c0, spread=spread)
            if p is not None:
                mine.append(p); budget[o] -= 1
        if mine:
            held[sid] = o
            pieces += mine
    # a battle: an attacker's counters in a held area
    if held and rng.random() < 0.2:
        sid = list(held)[int(rng.integers(len(held)))]
        o = [s for s in alive if s != held[sid] and budget[s] > 0]
        if o:
            o = o[int(rng.integers(len(o)))]
            for _ in range(int(rng.integers(1, 4))):
                p = try_place(rng, layout, style, sid, o, vk[int(rng.choice(len(vk), p=V_WEIGHTS))], placed[sid])
                if p is not None:
                    pieces.append(p); budget[o] -= 1
    # leaning counters: in some areas with several counters one is pushed onto another
    by_space = {}
    for i, p in enumerate(pieces):
        by_space.setdefault(p["space"], []).append(i)
    for sid, idx in by_space.items():
        if len(idx) < 2 or rng.random() > 0.18:
            continue
        i, j = (int(v) for v in rng.choice(idx, 2, replace=False))
        others = [footprint(layout, style, pieces[k]) for k in idx if k not in (i, j)]
        res = lean_on(rng, layout, style, pieces[i], pieces[j], others, sid)
        if res:
            pieces[i], pieces[j] = res
            placed[sid] = others + [footprint(layout, style, pieces[i]), footprint(layout, style, pieces[j])]
    # talents: with an army of their state, else (some) in the graveyard
    boxes = spaces_of(layout, "box")
    grave = next((b for b in boxes if "grave" in b), boxes[0] if boxes else None)
    for tk, o in talent_kinds(layout).items():
        mine = [s for s, h in held.items() if h == o]
        u = rng.random()
        if mine and u < 0.3 + 0.3 * age:
            sid = mine[int(rng.integers(len(mine)))]
            near = np.mean([[p["x_mm"], p["y_mm"]] for p in pieces if p["space"] == sid], axis=0)
            p = try_place(rng, layout, style, sid, o, tk, placed.setdefault(sid, []), centre=near, spread=14)
            if p is not None:
                pieces.append(p)
        elif grave and u > 1 - 0.35 * age:
            p = try_place(rng, layout, style, grave, o, tk, placed.setdefault(grave, []))
            if p is not None:
                pieces.append(p)
    # the action chits drawn this turn, face up in their box
    chk = chit_kind(layout)
    cbox = next((b for b in boxes if "chit" in b), None)
    if chk and cbox and rng.random() < 0.55:
        for o in [str(s) for s in rng.permutation(alive)[:int(rng.integers(1, len(alive) + 1))]]:
            p = try_place(rng, layout, style, cbox, o, chk, placed.setdefault(cbox, []))
            if p is not None:
                pieces.append(p)
    # the die, rolled into the tray
    dk = die_kind(layout)
    tray = next(iter(spaces_of(layout, "dice")), None)
    if dk and tray and rng.random() < 0.45:
        p = try_place(rng, layout, style, tray, "neutral", dk, placed.setdefault(tray, []), margin=2.0)
        if p is not None:
            pieces.append(p)
    return pieces, truth_of(layout, pieces)


def enrolment_plan(layout):
    """Where one piece of each type goes for the enrolment photo, as the project's enrolment plan
    places them (mirrored here from its description, no project code): the types are one chit per
    state, one army counter per state with the values in turn (1, 2, 3, 4, 1, ...), and each owned
    talent with its state; larger pieces first; the first on the space of a kind that holds it nearest
    the board's centre, each next on the one farthest from all chosen (ties: the larger space id).
    Returns [(space id, owner, kind)]."""
    states = owners(layout)
    P = layout.pieces
    vk = sorted(value_kinds(layout), key=lambda k: value_kinds(layout)[k])
    types = [(o, vk[i % len(vk)]) for i, o in enumerate(states)]
    chk = chit_kind(layout)
    if chk:
        types += [(o, chk) for o in states]
    types += [(o, k) for k, v in P.items() if k.startswith("talent-") for o in states if o in (v.get("owned_by") or [])]

    def area(k):
        s = P[k]["size_mm"]
        return math.pi * (s[0] / 2) ** 2 if P[k].get("footprint") == "circle" else s[0] * s[-1]
    types.sort(key=lambda t: -area(t[1]))
    holds = layout.raw.get("holds", {})
    cent = {s["id"]: centroid(layout, s["id"]) for s in layout.spaces}
    cx, cy = layout.W / 2, layout.H / 2
    chosen, plan = [], []
    for o, k in types:
        kinds = [sk for sk, ks in holds.items() if k in ks]
        cands = [s for s in layout.spaces if s["id"] not in chosen and (not kinds or s["kind"] in kinds)]
        if not cands:
            cands = [s for s in layout.spaces if s["id"] not in chosen]
        if not chosen:
            best = min(cands, key=lambda s: ((cent[s["id"]][0] - cx) ** 2 + (cent[s["id"]][1] - cy) ** 2, s["id"]))
        else:
            best = max(cands, key=lambda s: (min((cent[s["id"]][0] - cent[c][0]) ** 2 + (cent[s["id"]][1] - cent[c][1]) ** 2
                                                 for c in chosen), s["id"]))
        chosen.append(best["id"])
        plan.append((best["id"], o, k))
    return plan


def enrol_position(rng, layout, style):
    """The enrolment photo: each planned piece alone near its space's centre (any turn)."""
    pieces, truth = [], {}
    for sid, o, k in enrolment_plan(layout):
        c = centroid(layout, sid)
        p = try_place(rng, layout, style, sid, o, k, [], centre=c, spread=3.0)
        if p is None:
            p = _piece(rng, layout, style, o, k, c[0], c[1], sid)
        pieces.append(p)
        truth[sid] = [f"{o}:{k}"]
    return pieces, truth


def counter_rows(layout, pieces):
    """counters/<stem>.json rows: every value counter's space, `<owner>:<kind>` and where it lies."""
    vk = value_kinds(layout)
    rows = [{"space": p["space"], "piece": f"{p['owner']}:{p['tk']}", "at_mm": [round(p["x_mm"], 2), round(p["y_mm"], 2)]}
            for p in pieces if p["tk"] in vk]
    return sorted(rows, key=lambda r: r["space"])


def frame_meta(pieces):
    """Each piece (owner, kind, space, x, y mm, turn deg, lifted mm, tilt deg, top value), for overlay.py."""
    return [[p["owner"], p["tk"], p["space"], round(p["x_mm"], 1), round(p["y_mm"], 1), round(math.degrees(p["rot"]), 1),
             round(p["z"] * 1000, 2), round(math.degrees(p.get("ry", 0.0)), 1), p.get("value")] for p in pieces]


make_artwork = zart.make_artwork

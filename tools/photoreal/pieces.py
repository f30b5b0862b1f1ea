"""Piece meshes (numpy vertex/face lists), per-table appearance and random positions.

Mesh convention: dict(verts=(N,3) metres, faces=[tuple], smooth=[bool]) in the piece's
local frame (origin at the centre of its footprint, base at z=0, +z up).
"""
import colorsys
import math

import numpy as np

PLAYERS = ["blue", "green", "violet", "red", "yellow"]


def house_mesh(w, l, h):
    """Little house: box walls + gabled roof, ridge along local y. Sizes in metres."""
    hw = h * 0.58
    x, y = w / 2, l / 2
    v = [(-x, -y, 0), (x, -y, 0), (x, y, 0), (-x, y, 0),
         (-x, -y, hw), (x, -y, hw), (x, y, hw), (-x, y, hw),
         (0, -y, h), (0, y, h)]
    f = [(0, 3, 2, 1),            # bottom
         (0, 1, 5, 8, 4),         # gable front
         (2, 3, 7, 9, 6),         # gable back
         (1, 2, 6, 5),            # side wall +x
         (3, 0, 4, 7),            # side wall -x
         (5, 6, 9, 8),            # roof +x
         (7, 4, 8, 9)]            # roof -x
    return dict(verts=np.array(v, float), faces=f, smooth=[False] * len(f))


def box_bevel_mesh(w, l, h, b):
    x, y = w / 2, l / 2
    v = [(-x, -y, 0), (x, -y, 0), (x, y, 0), (-x, y, 0),
         (-x, -y, h - b), (x, -y, h - b), (x, y, h - b), (-x, y, h - b),
         (-x + b, -y + b, h), (x - b, -y + b, h), (x - b, y - b, h), (-x + b, y - b, h)]
    f = [(0, 3, 2, 1), (0, 1, 5, 4), (1, 2, 6, 5), (2, 3, 7, 6), (3, 0, 4, 7),
         (4, 5, 9, 8), (5, 6, 10, 9), (6, 7, 11, 10), (7, 4, 8, 11), (8, 9, 10, 11)]
    return dict(verts=np.array(v, float), faces=f, smooth=[False] * len(f))


def disc_mesh(d, h, b, n=40):
    r = d / 2
    rings = [(r - b * 0.5, 0.0), (r, b * 0.5), (r, h - b), (r - b * 0.25, h - b * 0.25), (r - b, h)]
    t = np.linspace(0, 2 * math.pi, n, endpoint=False)
    v = []
    for rr, z in rings:
        v += [(rr * math.cos(a), rr * math.sin(a), z) for a in t]
    f, sm = [], []
    f.append(tuple(range(n - 1, -1, -1))); sm.append(False)
    for k in range(len(rings) - 1):
        for i in range(n):
            j = (i + 1) % n
            f.append((k * n + i, k * n + j, (k + 1) * n + j, (k + 1) * n + i)); sm.append(True)
    top = (len(rings) - 1) * n
    f.append(tuple(top + i for i in range(n))); sm.append(False)
    return dict(verts=np.array(v, float), faces=f, smooth=sm)


def _hsv_jitter(rng, rgb, amt=0.25, hue_deg=10):
    r, g, b = (c / 255.0 for c in rgb)
    h, s, v = colorsys.rgb_to_hsv(r, g, b)
    h = (h + rng.uniform(-hue_deg, hue_deg) / 360.0) % 1
    s = float(np.clip(s * rng.uniform(1 - amt, 1 + amt), 0.05, 1))
    v = float(np.clip(v * rng.uniform(1 - amt, 1 + amt), 0.05, 1))
    return tuple(int(round(c * 255)) for c in colorsys.hsv_to_rgb(h, s, v))


def table_piece_style(layout, rng):
    """Per-table sizes (metres) and colours (sRGB 0..255) of each piece type."""
    P = layout.pieces
    def f():
        return rng.uniform(0.75, 1.25)
    hw, hl = P["house"]["size_mm"]; hh = P["house"]["height_mm"]
    ed = P["emissary"]["size_mm"][0]; eh = P["emissary"]["height_mm"]
    fw, fl = P["fortress"]["size_mm"]; fh = P["fortress"]["height_mm"]
    sizes = {
        "house": (hw * f() / 1000, hl * f() / 1000, hh * f() / 1000),
        "emissary": (ed * f() / 1000, eh * f() / 1000),
        "fortress": (fw * f() / 1000, fl * f() / 1000, fh * f() / 1000),
    }
    colours = {p: _hsv_jitter(rng, layout.players[p]) for p in layout.players}
    fort_rgb = tuple(P["fortress"].get("rgb", [32, 32, 36]))
    colours["neutral"] = tuple(int(np.clip(c * rng.uniform(0.75, 1.4), 0, 255)) for c in fort_rgb)
    return dict(sizes=sizes, colours=colours,
                roughness=rng.uniform(0.3, 0.65), grain=rng.uniform(0.08, 0.25),
                grain_scale=rng.uniform(0.6, 1.6))


def piece_meshes(style):
    hw, hl, hh = style["sizes"]["house"]
    ed, eh = style["sizes"]["emissary"]
    fw, fl, fh = style["sizes"]["fortress"]
    return {
        "house": house_mesh(hw, hl, hh),
        "emissary": disc_mesh(ed, eh, min(eh * 0.25, 0.0015)),
        "fortress": box_bevel_mesh(fw, fl, fh, min(fh * 0.2, 0.001)),
    }


def footprint_radius(style, kind):
    s = style["sizes"][kind]
    if kind == "emissary":
        return s[0] / 2
    return 0.5 * math.hypot(s[0], s[1])


def top_height(style, kind):
    return style["sizes"][kind][-1]


def _piece(rng, kind, owner, x_mm, y_mm, z_m=0.0, rot=None):
    return dict(kind=kind, owner=owner, x_mm=float(x_mm), y_mm=float(y_mm), z=float(z_m),
                rot=float(rng.uniform(0, 2 * math.pi) if rot is None else rot),
                scale=tuple(rng.uniform(0.97, 1.03, 3)))


def _disc_offset(rng, rmax):
    if rmax <= 0:
        return 0.0, 0.0
    a = rng.uniform(0, 2 * math.pi); r = rmax * math.sqrt(rng.random())
    return r * math.cos(a), r * math.sin(a)


def place_emissaries(rng, layout, style, sid, owners):
    cx, cy = layout.space_centre(sid)
    R = layout.space_radius(sid)
    d = style["sizes"]["emissary"][0] * 1000 * 1.03
    rmax = max(0.0, R - d / 2 - 0.5)
    for attempt in range(400):
        pts = []
        ok = True
        for _ in owners:
            for _try in range(60):
                dx, dy = _disc_offset(rng, rmax)
                if all(math.hypot(dx - px, dy - py) > d + 0.8 for px, py in pts):
                    pts.append((dx, dy)); break
            else:
                ok = False; break
        if ok:
            break
    else:  # fall back to a ring arrangement
        n = len(owners); rr = min(rmax, (d + 1) / (2 * math.sin(math.pi / max(n, 2))))
        a0 = rng.uniform(0, 2 * math.pi)
        pts = [(rr * math.cos(a0 + 2 * math.pi * k / n), rr * math.sin(a0 + 2 * math.pi * k / n)) for k in range(n)]
    return [_piece(rng, "emissary", o, cx + dx, cy + dy) for o, (dx, dy) in zip(owners, pts)]


def place_site(rng, layout, style, sid, has_fortress, house_owner):
    cx, cy = layout.space_centre(sid)
    out = []
    z = 0.0
    if has_fortress:
        dx, dy = _disc_offset(rng, 2.5)
        out.append(_piece(rng, "fortress", "neutral", cx + dx, cy + dy))
        z = top_height(style, "fortress")
        cx, cy = cx + dx, cy + dy
    if house_owner:
        dx, dy = _disc_offset(rng, 2.0 if has_fortress else 3.5)
        out.append(_piece(rng, "house", house_owner, cx + dx, cy + dy, z_m=z))
    return out


def random_position(rng, layout, style):
    """Return (pieces, truth_map). truth_map: space id -> ['owner:kind', ...]."""
    pieces, truth = [], {}
    for sid in layout.sites:
        u = rng.random()
        if u < 0.45:
            continue
        if u < 0.90:
            fort, owner = False, PLAYERS[rng.integers(5)]
        elif u < 0.94:
            fort, owner = True, None
        else:
            fort, owner = True, PLAYERS[rng.integers(5)]
        ps = place_site(rng, layout, style, sid, fort, owner)
        for p in ps:
            p["space"] = sid
        pieces += ps
        truth[sid] = [f"{p['owner']}:{p['kind']}" for p in ps]
    for sid in layout.dragons:
        if rng.random() < 0.40:
            continue
        n = int(rng.integers(1, 7))
        owners = [PLAYERS[rng.integers(5)] for _ in range(n)]
        ps = place_emissaries(rng, layout, style, sid, owners)
        for p in ps:
            p["space"] = sid
        pieces += ps
        truth[sid] = [f"{p['owner']}:{p['kind']}" for p in ps]
    return pieces, truth


def enrol_position(rng, layout, style):
    """One piece of each of the 11 types, each alone on its own space."""
    sites = list(rng.permutation(layout.sites))
    dragons = list(rng.permutation(layout.dragons))
    pieces, truth = [], {}
    for p in PLAYERS:
        sid = sites.pop()
        ps = place_site(rng, layout, style, sid, False, p)
        ps[0]["space"] = sid
        pieces += ps; truth[sid] = [f"{p}:house"]
    sid = sites.pop()
    ps = place_site(rng, layout, style, sid, True, None)
    ps[0]["space"] = sid
    pieces += ps; truth[sid] = ["neutral:fortress"]
    for p in PLAYERS:
        sid = dragons.pop() if dragons else sites.pop()
        cx, cy = layout.space_centre(sid)
        dx, dy = _disc_offset(rng, 3.0)
        pieces.append(_piece(rng, "emissary", p, cx + dx, cy + dy)); pieces[-1]["space"] = sid; truth[sid] = [f"{p}:emissary"]
    return pieces, truth


def piece_world_vertices(layout, style, meshes, piece):
    """Vertices of a placed piece in world metres (for masks / clearance)."""
    m = meshes[piece["kind"]]
    v = m["verts"] * np.array(piece["scale"])
    if piece.get("ry"):  # a tilt about local y before the turn (Blender's XYZ Euler: Rz @ Ry)
        cy, sy = math.cos(piece["ry"]), math.sin(piece["ry"])
        v = v @ np.array([[cy, 0, sy], [0, 1, 0], [-sy, 0, cy]]).T
    c, s = math.cos(piece["rot"]), math.sin(piece["rot"])
    Rz = np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]])
    o = layout.to_world(piece["x_mm"], piece["y_mm"]) + np.array([0, 0, piece["z"]])
    return v @ Rz.T + o

"""The Great Wall for the photoreal renderer: card and token meshes, per-table style, game-like
positions, the enrolment board and the occlusion parts -- designed here (no project code). The
printed art is in greatwall_art.py.

Reads from the layout JSON only: `pieces` (card kinds: flat rects owned by players, `crosswise`;
tokens: neutral discs with `face.label`), `players` (deck colours), `spaces` (section-<n>),
`regions` (<section>-row, <section>-token-<k>, <section>-tokens) and `markers`.

How cards lie (docs/great-wall.md, "Camera", the convention of the game's camera): one row per
section in the order played, upright, side by side while they fit and then fanned (each new card on
the last); a dragon turned 90 degrees across the lower part of the card it covers; a claimed token
on one of its owner's cards below the index; face-up tokens on the token spots.

Pieces are dicts as in pieces.py (kind = the mesh key "<kind>|<owner>" for cards, "<token kind>"
for tokens; owner, x_mm, y_mm, z, rot, scale, space) plus `ry`: a tilt about the card's long axis
(a fanned card rests on the card before it and on the mat).
"""
import math

import numpy as np

import greatwall_art as gart
from pieces import _hsv_jitter

DECK = {"wall": 7, "gate": 3, "tower": 1, "soldier": 4, "cavalry": 2, "dragon": 2, "noble": 1}  # rules' placeholder split
TOKEN_MIX = {1: 2, 2: 6, 3: 7, 4: 7, 5: 8, 7: 4, 8: 2}  # rules 1: 36 tokens
MARGIN_MM, TOP_MM = 3.0, 3.0  # first card / card tops this far inside the row box
CROSS_TOP_MM = 40.0  # a dragon's top edge this far below the covered card's top (the covered index shows above)
GAP_Z = 0.00005  # 0.05 mm air between stacked pieces (no coincident faces for the path tracer)
SET_NOTES = ("printed cards (own face art per kind and deck colour; index = owner square + type panel), cardboard "
             "tokens with printed values, fanned rows, dragons across cards, game-like positions, ")


def is_great_wall(layout):
    return layout.raw.get("game") == "great_wall" or layout.id == "great-wall"


# ----------------------------------------------------------------------------- layout helpers
def card_kinds(layout):
    return [k for k, v in layout.pieces.items()
            if v.get("footprint") == "rect" and v.get("height_mm", 1) <= 1.0 and v.get("owners") != "neutral"]


def cross_kinds(layout):
    return [k for k in card_kinds(layout) if layout.pieces[k].get("crosswise")]


def token_kinds(layout):
    return [k for k, v in layout.pieces.items() if v.get("owners") == "neutral"]


def token_value(layout, kind):
    return int(layout.pieces[kind].get("face", {}).get("label") or kind.split("-")[-1])


def _region(layout, rid):
    for r in layout.regions:
        if r.get("id") == rid:
            return np.array(r["polygon"], float)
    return None


def sections(layout):
    return [s["id"] for s in layout.spaces if _region(layout, s["id"] + "-row") is not None]


def row_box(layout, sid):
    p = _region(layout, sid + "-row")
    return float(p[:, 0].min()) + MARGIN_MM, float(p[:, 0].max()) - MARGIN_MM, float(p[:, 1].min()) + TOP_MM


def token_spots(layout, sid):
    out, k = [], 1
    while (p := _region(layout, f"{sid}-token-{k}")) is not None:
        out.append(tuple(p.mean(axis=0)))
        k += 1
    return out


# ----------------------------------------------------------------------------- meshes
def _rounded_rect(w, h, r, n=4):
    pts = []
    for cx, cy, a0 in ((w / 2 - r, h / 2 - r, 0), (-w / 2 + r, h / 2 - r, 90), (-w / 2 + r, -h / 2 + r, 180), (w / 2 - r, -h / 2 + r, 270)):
        for t in np.linspace(a0, a0 + 90, n + 1):
            pts.append((cx + r * math.cos(math.radians(t)), cy + r * math.sin(math.radians(t))))
    return pts  # counter-clockwise seen from +z


def slab_mesh(outline, t, u_of, v_of):
    """A flat prism: bottom and sides material 0 (core), top material 1 (the print), planar UVs."""
    n = len(outline)
    V = [(x, y, 0.0) for x, y in outline] + [(x, y, t) for x, y in outline]
    F = [tuple(range(n - 1, -1, -1))] + [(i, (i + 1) % n, n + (i + 1) % n, n + i) for i in range(n)] + [tuple(range(n, 2 * n))]
    mat = [0] * (n + 1) + [1]
    V = np.array(V, float)
    uv = [[(u_of(V[i, 0]), v_of(V[i, 1])) for i in f] for f in F]
    return dict(verts=V, faces=F, smooth=[False] * len(F), uv=uv, mat=mat)


def card_mesh(w, h, t, r):
    """A card, face up, local +y = the card's top edge, +x its right (u right, v up the face)."""
    return slab_mesh(_rounded_rect(w, h, r), t, lambda x: (x + w / 2) / w, lambda y: (y + h / 2) / h)


def token_mesh(d, t, n=40):
    r = d / 2
    pts = [(r * math.cos(a), r * math.sin(a)) for a in np.linspace(0, 2 * math.pi, n, endpoint=False)]
    return slab_mesh(pts, t, lambda x: (x + r) / d, lambda y: (y + r) / d)


# ----------------------------------------------------------------------------- per-table style
def table_piece_style(layout, rng, set_seed):
    """Per table: card and token sizes (metres), deck colours, the print run (faces per mesh key)."""
    P = layout.pieces
    ck = card_kinds(layout)
    cw, ch = (v / 1000 for v in P[ck[0]]["size_mm"])
    f = rng.uniform(0.985, 1.015)
    card = (cw * f, ch * f * rng.uniform(0.995, 1.005), rng.uniform(0.28, 0.42) / 1000)
    tk = token_kinds(layout)
    tok = (P[tk[0]]["size_mm"][0] * rng.uniform(0.95, 1.05) / 1000, rng.uniform(1.6, 2.5) / 1000)
    decks = {o: _hsv_jitter(rng, rgb, 0.15, 8) for o, rgb in layout.players.items()}
    design = gart.table_design(rng, ck)
    faces, sizes = {}, {}
    for kind in ck:
        for o, rgb in decks.items():
            key = f"{kind}|{o}"
            faces[key] = gart.card_face(kind, rgb, card[0] * 1000, card[1] * 1000, design, rng)
            sizes[key] = card
    tprint = gart.token_print(tuple(P[tk[0]].get("rgb", (214, 180, 90))), rng)
    for kind in tk:
        faces[kind] = gart.token_face(str(token_value(layout, kind)), tprint)
        sizes[kind] = tok
    return dict(sizes=sizes, colours={}, faces=faces, card=card, token=tok, decks=decks,
                card_rgb=[(238, 236, 230), (228, 224, 214), (214, 206, 190)][rng.integers(3)],
                print_rough=rng.uniform(0.3, 0.7), roughness=0.5, grain=0.1, grain_scale=1.0,
                corner_r=rng.uniform(2.0, 3.5) / 1000)


def piece_meshes(layout, style):
    out = {}
    w, h, t = style["card"]
    d, tt = style["token"]
    for key in style["faces"]:
        out[key] = token_mesh(d, tt) if key in token_kinds(layout) else card_mesh(w, h, t, style["corner_r"])
    return out


def truth_parts(layout, style, p):
    """Extra (world vertices, faces) that count for occlusion: a card's index (owner square and
    type panel, what a reader needs to see), besides its whole silhouette."""
    if "|" not in p["kind"]:
        return []
    w, h, t = style["card"]
    x0, x1 = -w / 2 + 0.0015, -w / 2 + 0.0125
    y0, y1 = h / 2 - 0.037, h / 2 - 0.0015
    V = np.array([(x0, y0, t), (x1, y0, t), (x1, y1, t), (x0, y1, t)]) * np.array(p["scale"])
    c, s = math.cos(p["rot"]), math.sin(p["rot"])
    Rz = np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]])
    o = layout.to_world(p["x_mm"], p["y_mm"]) + np.array([0, 0, p["z"]])
    return [(V @ Rz.T + o, [(0, 1, 2, 3)])]


# ----------------------------------------------------------------------------- placing pieces
def _card(rng, style, kind, owner, left, top, rot_deg, z=0.0, ry=0.0, sid=None):
    """A card whose top-left corner (upright) lies at (left, top) mm, turned `rot_deg` about its centre."""
    w, h, _ = (v * 1000 for v in style["card"])
    sj = rng.uniform(0.997, 1.003)
    return dict(kind=f"{kind}|{owner}", owner=owner, card=kind, x_mm=left + w / 2, y_mm=top + h / 2, z=float(z),
                rot=math.radians(rot_deg), ry=float(ry), scale=(sj, sj, 1.0), space=sid)


def _token(rng, kind, owner, x, y, z, rot, sid):
    return dict(kind=kind, owner=owner, card=None, x_mm=float(x), y_mm=float(y), z=float(z), rot=float(rot),
                scale=(1.0, 1.0, 1.0), space=sid)


def _token_rot(rng, careful=False):
    if careful:
        return math.radians(rng.uniform(-4, 4))
    if rng.random() < 0.6:  # laid roughly square to someone's seat
        return rng.integers(4) * math.pi / 2 + math.radians(rng.uniform(-8, 8))
    return rng.uniform(0, 2 * math.pi)


def lay_row(rng, layout, style, sid, upright, dragons, claimed, habit):
    """Pieces of one section's row. upright: [(owner, kind)] in the order played; dragons:
    [(owner, target index)]; claimed: (token kind, card index) or None. Returns (pieces, placed
    dragons, claimed placed)."""
    x0, x1, top = row_box(layout, sid)
    w, h, t = (v * 1000 for v in style["card"])
    n = len(upright)
    side = w + habit["gap"]
    pitch = side if n <= 1 or x0 + (n - 1) * side + w <= x1 else (x1 - x0 - w) / (n - 1)
    fanned = pitch < w
    jx = min(habit["jx"], max(0.0, (pitch - 14.5) / 2))  # every index stays whole
    lefts, out = [], []
    hz = min(t * w / pitch, 3 * t) if fanned else 0.0  # a fanned card's left edge rests this high (mm)
    for k, (o, kind) in enumerate(upright):
        left = x0 + k * pitch + rng.uniform(-jx, jx)
        lefts.append(left)
        ry = math.atan2(hz, w) if (fanned and k > 0) else 0.0
        z = (hz / 2 / 1000 + GAP_Z) if (fanned and k > 0) else GAP_Z * (0.3 + k)
        out.append(_card(rng, style, kind, o, left, top + rng.uniform(-habit["jy"], habit["jy"]), rng.uniform(-habit["rot"], habit["rot"]),
                         z=z, ry=ry, sid=sid))
    vis = [min(pitch, w) if k < n - 1 else w for k in range(n)]
    stack = (hz + 2 * t) / 1000 + GAP_Z * (2 + (0 if fanned else n))  # above any card of the row
    d = style["token"][0] * 1000
    tok_x = None
    if claimed is not None:
        kind, k = claimed
        tok_x = lefts[k] + vis[k] / 2 + rng.uniform(-1, 1)
        claimed_p = _token(rng, kind, upright[k][0], tok_x, top + rng.uniform(51, 57), stack + t / 1000 + 2 * GAP_Z,
                           _token_rot(rng), sid)
    placed, xs = [], []
    for j, (o, k) in enumerate(dragons):
        x = lefts[k] + vis[k] / 2 + rng.uniform(-1.5, 1.5)
        if any(abs(x - q) < h + 2 for q in xs) or (tok_x is not None and abs(x - tok_x) < h / 2 + d / 2 + 1):
            continue
        xs.append(x)
        c = _card(rng, style, "dragon", o, x - w / 2, top + CROSS_TOP_MM + rng.uniform(-1.5, 1.5) + w / 2 - h / 2,
                  -90 + rng.uniform(-2.5, 2.5), z=stack + j * (t / 1000 + GAP_Z), sid=sid)
        out.append(c)
        placed.append((o, k))
    if claimed is not None:
        out.append(claimed_p)
    return out, placed


def _deal_tokens(rng, pool, two_players):
    while True:
        a, b = pool.pop(), pool.pop()
        if not two_players or a != b or len(pool) < 2:
            return [a, b]
        pool[:0] = [a, b]  # back (to the bottom) and a new pair


def game_position(rng, layout, style):
    """A position of a game under way. Returns (pieces, truth)."""
    players = list(layout.players)
    n_pl = int(rng.choice([2, 3, 4, 5], p=[0.2, 0.25, 0.3, 0.25]))
    who = [players[i] for i in rng.permutation(len(players))[:n_pl]]
    secs = sections(layout)[:{2: 2, 3: 3}.get(n_pl, 4)]
    kinds = [k for k in card_kinds(layout) if k in DECK] or card_kinds(layout)
    wts = np.array([DECK.get(k, 1) for k in kinds], float); wts /= wts.sum()
    cross = set(cross_kinds(layout))
    tk = {token_value(layout, k): k for k in token_kinds(layout)}
    pool = [tk[v] for v, c in TOKEN_MIX.items() if v in tk for _ in range(c)]
    pool = [pool[i] for i in rng.permutation(len(pool))]
    stage = rng.uniform(0, 1)
    habit = dict(gap=rng.uniform(1.5, 8.0), jx=rng.uniform(0.5, 2.5), jy=rng.uniform(0.5, 2.5), rot=rng.uniform(0.5, 2.5))
    pieces, truth = [], {}
    for sid in secs:
        n = int(rng.integers(0, 3 + int(13 * stage)))
        drawn = [(who[rng.integers(n_pl)], kinds[rng.choice(len(kinds), p=wts)]) for _ in range(n)]
        upright = [c for c in drawn if c[1] not in cross]
        tokens = _deal_tokens(rng, pool, n_pl == 2) if len(pool) >= 2 else []
        claimed = None
        if upright and tokens and rng.random() < 0.35:
            k = int(rng.integers(len(upright)))
            claimed = (tokens.pop(int(rng.integers(2))), k)
        free = [k for k in range(len(upright)) if claimed is None or k != claimed[1]]
        dragons = []
        for o, kind in drawn:
            if kind not in cross:
                continue
            cands = [k for k in free if upright[k][0] != o]
            if cands:
                k = cands[int(rng.integers(len(cands)))]
                free.remove(k)
                dragons.append((o, k))
        ps, placed = lay_row(rng, layout, style, sid, upright, dragons, claimed, habit)
        spots = token_spots(layout, sid)
        left_spot = [0, 1] if len(tokens) == 2 else [int(rng.integers(2))]
        for kind, si in zip(tokens, left_spot):
            x, y = spots[si]
            ps.append(_token(rng, kind, "neutral", x + rng.uniform(-2, 2), y + rng.uniform(-2, 2), GAP_Z, _token_rot(rng), sid))
        pieces += ps
        items = [f"{o}:{kind}" for o, kind in upright] + [f"{o}:dragon" for o, _ in placed] + [f"neutral:{k}" for k in tokens]
        if claimed is not None:
            items.append(f"{upright[claimed[1]][0]}:{claimed[0]}")
        if items:
            truth[sid] = sorted(items)
    return pieces, truth


def enrol_position(rng, layout, style):
    """The enrolment photo (docs/great-wall.md, "Enrolment"): in the first section's row one card
    of each upright kind in the layout's order, the owners taking turns in the players' order, side
    by side (card + 4 mm apart); each crosswise kind across a card of another owner; one token of
    each value on the token spots in the layout's order, two per section. Laid with care."""
    players = list(layout.players)
    cross = cross_kinds(layout)
    upright = [k for k in card_kinds(layout) if k not in cross]
    secs = sections(layout)
    sid = secs[0]
    cards = [(players[i % len(players)], k) for i, k in enumerate(upright)]
    drag = [(players[(len(upright) + j) % len(players)], k) for j, k in enumerate(cross)]
    x0, x1, top = row_box(layout, sid)
    nominal_w = layout.pieces[card_kinds(layout)[0]]["size_mm"][0]
    w, h, t = (v * 1000 for v in style["card"])
    pieces, truth = [], {}
    lefts = []
    for k, (o, kind) in enumerate(cards):
        left = x0 + k * (nominal_w + 4.0) + rng.uniform(-0.5, 0.5)
        lefts.append(left)
        pieces.append(_card(rng, style, kind, o, left, top + rng.uniform(-0.5, 0.5), rng.uniform(-0.7, 0.7), z=GAP_Z * 0.3, sid=sid))
    used = set()
    for j, (o, kind) in enumerate(drag):
        cands = [k for k in range(len(cards)) if cards[k][0] != o and k not in used and all(abs(k - u) > 1 for u in used)]
        k = cands[int(rng.integers(len(cands)))]
        used.add(k)
        x = lefts[k] + w / 2 + rng.uniform(-0.8, 0.8)
        pieces.append(_card(rng, style, kind, o, x - w / 2, top + CROSS_TOP_MM + w / 2 - h / 2 + rng.uniform(-0.5, 0.5),
                            -90 + rng.uniform(-0.7, 0.7), z=(t / 1000 + 2 * GAP_Z) * (1 + j), sid=sid))
    truth[sid] = [f"{o}:{k}" for o, k in cards + drag]
    toks = token_kinds(layout)
    at = 0
    for s in secs:
        for x, y in token_spots(layout, s):
            if at < len(toks):
                pieces.append(_token(rng, toks[at], "neutral", x + rng.uniform(-0.8, 0.8), y + rng.uniform(-0.8, 0.8), GAP_Z,
                                     _token_rot(rng, careful=True), s))
                truth.setdefault(s, []).append(f"neutral:{toks[at]}")
                at += 1
    return pieces, {k: sorted(v) for k, v in truth.items()}


def make_artwork(layout, rng, ppm=4):
    return gart.make_artwork(layout, rng, layout.regions, ppm)

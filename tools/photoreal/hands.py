"""Hand + arm meshes built from capsules (numpy), in world metres.

A long tapered arm comes from outside the board (high up, towards the player), ends at the
wrist; a flattened palm; four fingers of three segments each with a random curl; a thumb.
Parts are returned separately so the arm can carry a sleeve material.
"""
import math

import numpy as np


def _unit(v):
    return v / (np.linalg.norm(v) + 1e-12)


def capsule(p0, p1, r0, r1, up, flat=1.0, n=14, cap=0.8):
    """Tapered capsule from p0 to p1; cross-section ellipse (r, r*flat) with minor axis along `up`."""
    p0, p1 = np.asarray(p0, float), np.asarray(p1, float)
    a = _unit(p1 - p0)
    b = _unit(np.cross(a, up))
    if np.linalg.norm(np.cross(a, up)) < 1e-6:
        b = _unit(np.cross(a, [1.0, 0, 0]))
    c = np.cross(b, a)  # ~up
    t = np.linspace(0, 2 * math.pi, n, endpoint=False)
    rings = []
    # rounded ends: a few rings shrinking towards the tips
    prof = [(-cap, 0.55), (-cap * 0.6, 0.85), (0.0, 1.0), (1.0, 1.0), (1 + cap * 0.6, 0.85), (1 + cap, 0.55)]
    L = np.linalg.norm(p1 - p0)
    verts = []
    for s, k in prof:
        if s <= 0:
            centre = p0 + a * (s * r0); r = r0 * k
        elif s >= 1:
            centre = p1 + a * ((s - 1) * r1); r = r1 * k
        else:
            centre = p0 + a * (s * L); r = r0 + (r1 - r0) * s
        ring = centre + np.outer(np.cos(t) * r, b) + np.outer(np.sin(t) * r * flat, c)
        verts.append(ring)
    V = np.vstack(verts + [(p0 - a * r0 * cap * 1.05)[None], (p1 + a * r1 * cap * 1.05)[None]])
    m = len(prof)
    F = []
    for k in range(m - 1):
        for i in range(n):
            j = (i + 1) % n
            F.append((k * n + i, k * n + j, (k + 1) * n + j, (k + 1) * n + i))
    s0, s1 = m * n, m * n + 1
    for i in range(n):
        j = (i + 1) % n
        F.append((s0, j, i))
        F.append(((m - 1) * n + i, (m - 1) * n + j, s1))
    return V, F


def _merge(parts):
    V, F, off = [], [], 0
    for v, f in parts:
        V.append(v); F += [tuple(i + off for i in face) for face in f]; off += len(v)
    return np.vstack(V), F


def sample_hand(rng, layout):
    """Random hand+arm over the board. Returns dict(parts={name:(V,F)}, params)."""
    W, H = layout.W / 1000, layout.H / 1000
    scale = rng.uniform(0.85, 1.15)
    # wrist position over (or near) the board
    wx = rng.uniform(-W / 2 * 0.95, W / 2 * 0.95)
    wy = rng.uniform(-H / 2 * 0.95, H / 2 * 0.95)
    # arm comes from a board side, typically the nearest one
    sides = np.array([W / 2 - wx, wx + W / 2, H / 2 - wy, wy + H / 2])  # +x, -x, +y, -y
    side = int(np.argmin(sides)) if rng.random() < 0.6 else int(rng.integers(4))
    out_dir = [np.array([1, 0, 0]), np.array([-1, 0, 0]), np.array([0, 1, 0]), np.array([0, -1, 0])][side]
    # the shoulder: outside the board edge, high
    along = rng.uniform(-0.15, 0.15)
    perp = np.array([-out_dir[1], out_dir[0], 0])
    edge_dist = (W / 2 if side < 2 else H / 2)
    shoulder_xy = out_dir * (edge_dist + rng.uniform(0.12, 0.35)) + perp * (along + (wx if side >= 2 else wy) * 0.5)
    palm_h = rng.uniform(0.010, 0.080)
    wrist = np.array([wx, wy, palm_h + 0.012 * scale + rng.uniform(0.0, 0.02)])
    d = _unit(np.array([wrist[0] - shoulder_xy[0], wrist[1] - shoulder_xy[1], 0.0]))
    up = np.array([0.0, 0.0, 1.0])
    handed = 1 if rng.random() < 0.7 else -1  # right hand / left hand
    parts = {}
    # shoulder outside the board edge (the player sits there); elbow by two-link IK
    shoulder = np.array([shoulder_xy[0], shoulder_xy[1], rng.uniform(0.28, 0.45)])
    fa_len = rng.uniform(0.24, 0.28) * scale
    ua_len = rng.uniform(0.28, 0.32) * scale
    u = shoulder - wrist
    D = np.linalg.norm(u); u = u / D
    if D > 0.98 * (fa_len + ua_len):
        k = D / (0.98 * (fa_len + ua_len)); fa_len *= k; ua_len *= k
    cos_a = (fa_len ** 2 + D ** 2 - ua_len ** 2) / (2 * fa_len * D)
    sin_a = math.sqrt(max(0.0, 1 - cos_a ** 2))
    lat = _unit(np.cross(u, up)) * handed
    nrm = -up * rng.uniform(0.3, 1.0) + lat * rng.uniform(0.3, 1.0)
    nrm = _unit(nrm - u * np.dot(nrm, u))
    elbow = wrist + fa_len * (cos_a * u + sin_a * nrm)
    elbow[2] = max(elbow[2], wrist[2] + 0.02, 0.05)
    beyond = shoulder + _unit(shoulder - elbow) * 0.6  # the arm continues out of view
    fe = wrist - elbow; fe[2] = 0.0
    if np.linalg.norm(fe) > 1e-3:
        d = _unit(fe)
    # let the hand yaw a bit relative to the arm
    yaw = rng.uniform(-0.5, 0.5)
    c, s = math.cos(yaw), math.sin(yaw)
    dh = np.array([c * d[0] - s * d[1], s * d[0] + c * d[1], 0.0])
    side_v = _unit(np.cross(dh, up))  # to the right of the hand direction

    palm_len = 0.095 * scale; palm_w = 0.082 * scale; palm_t = 0.028 * scale
    pitch = rng.uniform(-0.35, 0.05)  # palm tilt (down towards the fingers)
    pd = _unit(dh * math.cos(pitch) + up * math.sin(pitch))
    knuck = wrist + pd * palm_len
    fa_r0, fa_r1 = 0.036 * scale, 0.026 * scale
    ua_r = 0.043 * scale
    sleeve = rng.random() < 0.6
    sleeve_frac = rng.uniform(0.0, 0.8) if sleeve else 0.0
    if sleeve:
        mid = elbow + (wrist - elbow) * sleeve_frac
        rm = fa_r0 + (fa_r1 - fa_r0) * sleeve_frac
        sl = [capsule(mid, elbow, rm * 1.18, fa_r0 * 1.2, up, 0.9, 18, cap=0.3),
              capsule(elbow, beyond, fa_r0 * 1.25, ua_r * 1.25, up, 0.9, 18, cap=0.5)]
        parts["sleeve"] = _merge(sl)
        parts["arm"] = capsule(mid - (wrist - elbow) * 0.03, wrist, rm, fa_r1, up, 0.8, 18)
    else:
        parts["arm"] = _merge([capsule(elbow, wrist, fa_r0, fa_r1, up, 0.8, 18),
                               capsule(beyond, elbow, ua_r, fa_r0 * 1.05, up, 0.9, 18, cap=0.5)])
    skin = []
    skin.append(capsule(wrist - pd * 0.005, knuck, palm_w * 0.42, palm_w * 0.5, up, palm_t / palm_w * 1.6, 18, cap=0.35))
    # fingers: index..little
    lengths = np.array([0.080, 0.088, 0.082, 0.066]) * scale * rng.uniform(0.95, 1.05)
    radii = np.array([0.0095, 0.0098, 0.0092, 0.0080]) * scale
    spread = rng.uniform(0.0, 0.25)
    curl = rng.uniform(0.0, 0.9)
    for i in range(4):
        off = (-1.5 + i) * palm_w / 4.0 * 0.95 * handed
        base = knuck + side_v * off - pd * 0.004
        ang = (-1.5 + i) * spread * 0.35 * handed
        ca, sa = math.cos(ang), math.sin(ang)
        fdir = _unit(pd * ca + side_v * sa)
        p = base
        seg = lengths[i] * np.array([0.45, 0.30, 0.25])
        bend = 0.0
        for k in range(3):
            bend += curl * rng.uniform(0.6, 1.0) * (0.6 if k == 0 else 1.0)
            dd = _unit(fdir * math.cos(bend) - up * math.sin(bend))
            q = p + dd * seg[k]
            r = radii[i] * (1.0 - 0.1 * k)
            skin.append(capsule(p, q, r, r * 0.95, up, 0.85, 10, cap=0.6))
            p = q
    # thumb
    tb = wrist + pd * palm_len * 0.3 - side_v * palm_w * 0.45 * handed
    tdir = _unit(pd * 0.7 - side_v * 0.7 * handed - up * rng.uniform(0.1, 0.6))
    t1 = tb + tdir * 0.042 * scale
    tdir2 = _unit(tdir + pd * 0.4 - up * rng.uniform(0.0, 0.5))
    t2 = t1 + tdir2 * 0.032 * scale
    skin.append(capsule(tb, t1, 0.013 * scale, 0.011 * scale, up, 0.85, 10))
    skin.append(capsule(t1, t2, 0.011 * scale, 0.0095 * scale, up, 0.85, 10))
    parts["hand"] = _merge(skin)
    return dict(parts=parts, params=dict(side=side, palm_height_m=palm_h, scale=scale, handed=handed))


def lift_hand(hand, piece_vert_sets, min_z=0.0015):
    """Raise the whole hand/arm so that nothing dips into the board or into a piece."""
    allV = np.vstack([v for v, _ in hand["parts"].values()])
    lift = max(0.0, min_z - allV[:, 2].min())
    for pv in piece_vert_sets:
        lo, hi = pv[:, :2].min(0) - 0.003, pv[:, :2].max(0) + 0.003
        top = pv[:, 2].max() + 0.002
        sel = np.all((allV[:, :2] >= lo) & (allV[:, :2] <= hi), axis=1)
        if sel.any():
            lift = max(lift, top - allV[sel, 2].min())
    if lift > 0:
        for k, (v, f) in list(hand["parts"].items()):
            hand["parts"][k] = (v + np.array([0, 0, lift]), f)
    return hand

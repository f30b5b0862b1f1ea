"""A die of its own: a cube with rounded edges, ray-marched through a signed distance field,
lit by a directional light (diffuse + specular), with painted pips on every face.

Styles vary what a die can look like: pip shape (round or square), pip size and spacing, pip
colour, the Chinese convention (the one-pip large and red, the four pips red), body colour and
the roundness of the edges; sizes vary by +-25 % around the layout's nominal die.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

# pip positions on a face, in units of the pip spacing (opposite faces add up to 7)
LAYOUT = {
    1: [(0, 0)],
    2: [(-1, 1), (1, -1)],
    3: [(-1, 1), (0, 0), (1, -1)],
    4: [(-1, -1), (-1, 1), (1, -1), (1, 1)],
    5: [(-1, -1), (-1, 1), (0, 0), (1, -1), (1, 1)],
    6: [(-1, -1), (0, -1), (1, -1), (-1, 1), (0, 1), (1, 1)],
}


@dataclass(frozen=True)
class DieStyle:
    size: float  # mm
    body: tuple[float, float, float]  # BGR albedo 0..1
    pip: tuple[float, float, float]
    red: tuple[float, float, float]
    chinese: bool
    square: bool
    spacing: float  # share of the side
    radius: float  # share of the side
    one_radius: float
    edge: float  # share of the side rounded off each edge
    gloss: float

    def describe(self) -> dict:
        return {"size_mm": round(self.size, 2), "chinese": self.chinese, "square_pips": self.square,
                "spacing": round(self.spacing, 3), "radius": round(self.radius, 3), "edge": round(self.edge, 3)}


def random_style(rng: np.random.Generator, nominal_mm: float, nominal_rgb) -> DieStyle:
    size = nominal_mm * float(rng.uniform(0.75, 1.25))
    base = np.asarray(nominal_rgb, float)[::-1] / 255
    body = np.clip(base * rng.uniform(0.9, 1.02, 3) - rng.uniform(0, 0.06) * np.array([1.0, 0.3, 0.0]), 0, 1)
    chinese = bool(rng.random() < 0.35)
    square = bool(rng.random() < 0.2)
    dark = rng.uniform(0.02, 0.2)
    pip = (dark, dark * rng.uniform(0.8, 1.2), dark * rng.uniform(0.8, 1.6))
    if rng.random() < 0.15:
        pip = (rng.uniform(0.3, 0.6), rng.uniform(0.1, 0.3), rng.uniform(0.05, 0.15))  # dark blue pips
    red = (rng.uniform(0.05, 0.2), rng.uniform(0.05, 0.2), rng.uniform(0.55, 0.85))
    radius = float(rng.uniform(0.075, 0.11))
    return DieStyle(size, tuple(body), tuple(pip), tuple(red), chinese, square, float(rng.uniform(0.24, 0.3)), radius,
                    float(rng.uniform(0.15, 0.21)) if chinese else radius * float(rng.uniform(1.0, 1.25)),
                    float(rng.uniform(0.06, 0.16)), float(rng.uniform(0.05, 0.35)))


def face_values(top: int, rng: np.random.Generator) -> dict[tuple[int, int], int]:
    """Values on the die's six faces, keyed by (axis, sign) in the die's own frame (axis 2 up)."""
    others = [v for v in range(1, 7) if v not in (top, 7 - top)]
    a = int(rng.choice(others))
    b = int(rng.choice([v for v in others if v not in (a, 7 - a)]))
    return {(2, 1): top, (2, -1): 7 - top, (0, 1): a, (0, -1): 7 - a, (1, 1): b, (1, -1): 7 - b}


def _sdf(p: np.ndarray, half: float, r: float) -> np.ndarray:
    q = np.abs(p) - (half - r)
    outside = np.linalg.norm(np.maximum(q, 0), axis=-1)
    inside = np.minimum(q.max(axis=-1), 0)
    return outside + inside - r


def shade_die(origins: np.ndarray, dirs: np.ndarray, centre: np.ndarray, yaw: float, style: DieStyle,
              faces: dict[tuple[int, int], int], turns: dict[tuple[int, int], int], light: np.ndarray,
              ambient: float, diffuse: float) -> tuple[np.ndarray, np.ndarray]:
    """Ray-march rays (world origins and unit directions, (N, 3)) into the die standing at
    ``centre`` (its bottom face's centre on the board) turned ``yaw`` radians. Returns each ray's
    colour (N, 3; BGR, linear) and whether it hit."""
    s = style.size
    half = s / 2
    c, sn = math.cos(yaw), math.sin(yaw)
    rot = np.array([[c, sn, 0], [-sn, c, 0], [0, 0, 1.0]])  # world -> die
    o = (origins - (centre + [0, 0, half])) @ rot.T
    d = dirs @ rot.T
    # start on the bounding sphere
    b = np.einsum("ij,ij->i", o, d)
    cc = np.einsum("ij,ij->i", o, o) - (half * 1.75) ** 2
    disc = b * b - cc
    hit = disc > 0
    t = np.where(hit, -b - np.sqrt(np.maximum(disc, 0)), 0.0)
    r_edge = style.edge * s
    done = np.zeros(len(o), bool)
    for _ in range(60):
        p = o + d * t[:, None]
        dist = _sdf(p, half, r_edge)
        done |= hit & (dist < 1e-3 * s)
        t = np.where(done | ~hit, t, t + dist)
        if not (hit & ~done).any():
            break
        hit &= t < 3 * s + np.abs(b) + s
    ok = done
    p = o + d * t[:, None]
    eps = 1e-3 * s
    n = np.zeros_like(p)
    for k in range(3):
        e = np.zeros(3)
        e[k] = eps
        n[:, k] = _sdf(p + e, half, r_edge) - _sdf(p - e, half, r_edge)
    n /= np.linalg.norm(n, axis=1, keepdims=True) + 1e-12
    colour = np.tile(np.asarray(style.body), (len(p), 1))
    axis = np.argmax(np.abs(p), axis=1)
    sign = np.where(p[np.arange(len(p)), axis] >= 0, 1, -1)
    step = style.spacing * s
    for (ax, sg), value in faces.items():
        sel = ok & (axis == ax) & (sign == sg)
        if not sel.any():
            continue
        uv = np.delete(p[sel], ax, axis=1)
        k = turns[(ax, sg)]
        for _ in range(k):
            uv = np.column_stack([-uv[:, 1], uv[:, 0]])
        paint = np.zeros(len(uv), bool)
        red = np.zeros(len(uv), bool)
        for i, j in LAYOUT[value]:
            rad = (style.one_radius if value == 1 else style.radius) * s
            dx, dy = uv[:, 0] - i * step, uv[:, 1] - j * step
            inside = (np.maximum(np.abs(dx), np.abs(dy)) <= rad * 0.9) if style.square else (dx * dx + dy * dy <= rad * rad)
            paint |= inside
            if style.chinese and value in (1, 4):
                red |= inside
        idx = np.flatnonzero(sel)
        colour[idx[paint]] = style.pip
        colour[idx[paint & red]] = style.red
    nw = n @ rot  # back to world
    lam = np.clip(nw @ light, 0, None)
    view = -dirs
    hv = light[None, :] + view
    hv /= np.linalg.norm(hv, axis=1, keepdims=True)
    spec = style.gloss * np.clip(np.einsum("ij,ij->i", nw, hv), 0, 1) ** 40
    out = colour * (ambient + diffuse * lam)[:, None] + spec[:, None]
    return out, ok

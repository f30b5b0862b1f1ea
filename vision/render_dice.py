"""Dice for the project's renderer (``vision.render``): a cube with pips on its top face and on the
walls the camera sees, so that rendered frames of a dice tray have a known roll.

Kept apart from ``render.py``: the renderer only hands each die placement (``Placement.face``)
here. A die is any piece kind the layout's dice spaces hold (``vision.dice.die_kinds``); its size
and colour are the layout's. Pip size and spacing are this renderer's choice of a common western
die (black pips, 3 mm on a 16 mm die); the independent evaluation generator
(``tools/dice_eval``) draws other styles.
"""

from __future__ import annotations

import math
from typing import Sequence

import cv2
import numpy as np

from vision.dice import PIP_SITES
from vision.geometry import Camera

PIP_OFFSET = 0.27  # pip lattice step, as a share of the die's side
PIP_RADIUS = 0.095  # pip radius, as a share of the die's side
PIP_BGR = (38.0, 36.0, 34.0)


def side_faces(top: int, rng: np.random.Generator) -> tuple[int, int, int, int]:
    """The four walls' values, in the order of the footprint's edges, for a die showing ``top``
    (opposite faces add up to 7)."""
    others = [v for v in range(1, 7) if v not in (top, 7 - top)]
    a = int(rng.choice(others))
    b = int(rng.choice([v for v in others if v not in (a, 7 - a)]))
    return a, b, 7 - a, 7 - b


def _pip_polygons(value: int, origin: np.ndarray, ex: np.ndarray, ey: np.ndarray, side: float, turn: int,
                  n: int = 14) -> list[np.ndarray]:
    """Each pip of ``value`` as a polygon (3-D points) on a face spanned by unit vectors ``ex``,
    ``ey`` from its centre ``origin``; ``turn`` quarter turns of the pattern."""
    t = np.linspace(0, 2 * math.pi, n, endpoint=False)
    circle = np.stack([np.cos(t), np.sin(t)], axis=1) * PIP_RADIUS * side
    out = []
    for i, j in PIP_SITES[value]:
        for _ in range(turn % 4):
            i, j = -j, i
        c = np.array([i, j], float) * PIP_OFFSET * side
        pts = c + circle
        out.append(origin[None, :] + pts[:, :1] * ex[None, :] + pts[:, 1:] * ey[None, :])
    return out


SUPERSAMPLE = 8  # pips are a pixel or two wide in a far frame: their coverage is drawn at 8x, then averaged


def _fill3d(img: np.ndarray, cam: Camera, pts3: np.ndarray, bgr: Sequence[float]) -> None:
    """A small convex polygon (3-D points) blended into ``img`` by its exact pixel coverage
    (OpenCV's anti-aliased fill widens a polygon of a pixel or two by its outline)."""
    p = cam.project(pts3[:, :2], pts3[:, 2])
    H, W = img.shape[:2]
    x0, y0 = np.floor(p.min(axis=0)).astype(int)
    x1, y1 = np.ceil(p.max(axis=0)).astype(int) + 1
    x0, y0, x1, y1 = max(0, x0), max(0, y0), min(W, x1), min(H, y1)
    if x1 <= x0 or y1 <= y0:
        return
    k = SUPERSAMPLE
    cover = np.zeros(((y1 - y0) * k, (x1 - x0) * k), np.float32)
    # pixel (i, j) covers [j, j + 1) x [i, i + 1) once its centre sits at (j + 0.5, i + 0.5) in the frame
    q = (p - [x0, y0] + 0.5) * k - 0.5
    cv2.fillConvexPoly(cover, np.round(q * 16).astype(np.int32), 1.0, cv2.LINE_8, 4)
    alpha = cv2.resize(cover, (x1 - x0, y1 - y0), interpolation=cv2.INTER_AREA)[..., None]
    roi = img[y0:y1, x0:x1]
    roi[:] = np.clip(roi * (1 - alpha) + np.asarray(bgr, np.float32) * alpha + 0.5, 0, 255).astype(img.dtype)


def draw_die_pips(img: np.ndarray, cam: Camera, outline: np.ndarray, z0: float, z1: float, face: int,
                  light: np.ndarray, rng: np.random.Generator) -> None:
    """Pips on a die drawn (as a prism) over ``outline`` (board mm) from height z0 to z1: the top
    face shows ``face``; the walls facing the camera show their own values, shaded as the
    renderer shades walls. Heights are in mm above the board (the camera's z is negative up)."""
    side = float(np.linalg.norm(outline[1] - outline[0]))
    centroid = outline.mean(axis=0)
    C = cam.centre
    walls = side_faces(face, rng)
    turn = int(rng.integers(4))
    for k in range(4):
        a, b = outline[k], outline[(k + 1) % 4]
        mid = (a + b) / 2
        normal = np.array([b[1] - a[1], -(b[0] - a[0])])
        if normal @ (mid - centroid) < 0:
            normal = -normal
        normal /= np.linalg.norm(normal) + 1e-9
        if normal @ (C[:2] - mid) <= 0:
            continue
        f = 0.5 + 0.3 * max(0.0, float(normal @ light))
        origin = np.array([mid[0], mid[1], -(z0 + z1) / 2])
        ex = np.array([(b - a)[0], (b - a)[1], 0.0]) / (np.linalg.norm(b - a) + 1e-9)
        ey = np.array([0.0, 0.0, -1.0])
        for poly in _pip_polygons(walls[k], origin, ex, ey, side, int(rng.integers(4))):
            _fill3d(img, cam, poly, [v * f for v in PIP_BGR])
    origin = np.array([centroid[0], centroid[1], -z1])
    ex = np.array([*(outline[1] - outline[0]), 0.0]) / side
    ey = np.array([*(outline[3] - outline[0]), 0.0]) / side
    for poly in _pip_polygons(face, origin, ex, ey, side, turn):
        _fill3d(img, cam, poly, PIP_BGR)

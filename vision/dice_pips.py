"""The pips of a die's top face (pure logic, no I/O): the last step of ``vision.dice``.

The face is sampled on a square grid and compared, by least squares (the face's level, a light
gradient and its rounded rim projected out), with the six faces (and the two orientations of 2, 3
and 6), each over pip spacings, pip sizes, blur, small shifts and turns. ``locate`` moves a face to
where a pattern fits best; ``read_pips`` says which value and how sure (a likelihood ratio counting
the frame's own pixels); ``unexplained_pips`` finds the pips a wrongly placed face leaves out;
``pip_centre`` finds the middle of the pips seen on the die's brightest surface.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

from vision.dice_face import Face, sample_turned
from vision.dice_tray import Blob

PIP_SITES: dict[int, tuple[tuple[int, int], ...]] = {
    1: ((0, 0),),
    2: ((-1, -1), (1, 1)),
    3: ((-1, -1), (0, 0), (1, 1)),
    4: ((-1, -1), (1, -1), (-1, 1), (1, 1)),
    5: ((-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)),
    6: ((-1, -1), (-1, 0), (-1, 1), (1, -1), (1, 0), (1, 1)),
}

PATCH = 28  # samples across the face
PATCH_SPAN = 0.94  # of the face's side sampled (the rounded rim left out)
SPACINGS = (0.22, 0.25, 0.28, 0.31)  # pip lattice step, share of the side
RADII = (0.07, 0.095, 0.12)
BIG_ONE = (0.16, 0.2, 0.24)  # the one-pip of Chinese dice
BLURS = (0.025, 0.045, 0.07, 0.1, 0.14, 0.19)  # Gaussian sigma, share of the side
SHIFTS = (-0.03, 0.0, 0.03)  # share of the side, around the located face
TURNS_DEG = (-1.5, 0.0, 1.5)
LOCATE_SHIFT = 0.18  # the pips may move the edges' face this far (share of the side)
LOCATE_TURNS_DEG = (-4.0, 0.0, 4.0)
MIN_USABLE = 0.8  # share of the face's samples that must be neither glare nor clipped
EXTRA_PIP_DEPTH = 0.5  # a spot at least this share as dark as the fitted pips counts as a pip
ROUND_SPOT = 0.3  # a pip's core: its narrow axis's variance at least this share of its long axis's
EXTRA_PIP_SURFACE = 0.85  # ... when what surrounds it is this bright (of the face's level): a face, not a wall


def pip_centre(view: np.ndarray, blob: Blob, side: float) -> tuple[float, float] | None:
    """Where the top face's pips centre (view px): every face's pattern is centred on its face, so
    the middle of the pip-sized dark spots on the brightest surface of the die is the face's centre
    whatever its value. Wall pips lie on the shaded walls and are left out. None: no pips seen."""
    m = view.astype(np.float32).min(axis=2)
    r = max(1.0, 0.09 * side)
    k = int(2.8 * r) | 1
    dark = cv2.morphologyEx(m, cv2.MORPH_BLACKHAT, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    h, w = m.shape
    pad = int(0.3 * side)
    x0, y0 = max(0, blob.box[0] - pad), max(0, blob.box[1] - pad)
    x1, y1 = min(w, blob.box[2] + pad), min(h, blob.box[3] + pad)
    region = dark[y0:y1, x0:x1]
    if region.size == 0 or region.max() <= 0:
        return None
    peaks = (region >= cv2.dilate(region, np.ones((k, k), np.uint8))) & (region > 0.35 * float(region.max()))
    ring = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (int(5 * r) | 1, int(5 * r) | 1))
    rr = ring.shape[0] // 2
    spots = []
    for py, px in zip(*np.nonzero(peaks)):
        x, y = int(px + x0), int(py + y0)
        if rr <= y < h - rr and rr <= x < w - rr:
            spots.append((x, y, float(np.percentile(m[y - rr:y + rr + 1, x - rr:x + rr + 1][ring > 0], 30))))
    if not spots:
        return None
    top = max(s[2] for s in spots)
    on_top = [(x, y) for x, y, v in spots if v >= EXTRA_PIP_SURFACE * top]
    # the brightest spot's neighbours: the top face's pips lie within a face's width of each other
    bx, by = max(spots, key=lambda s: s[2])[:2]
    near = [(x, y) for x, y in on_top if math.hypot(x - bx, y - by) <= 0.8 * side]
    return (float(np.mean([p[0] for p in near])), float(np.mean([p[1] for p in near]))) if near else None


@dataclass(frozen=True)
class PipFit:
    value: int | None
    confidence: float
    scores: tuple[float, ...]  # per value 1..6: the log-likelihood against the best (0 = best)
    contrast: float  # pip darkness against the face, in noise units
    quality: float  # share of the face's variation the best fit explains
    blur: float  # the best fit's blur, share of the side
    spacing: float  # the best fit's pip step, share of the side
    pips: tuple[tuple[float, float], ...] = ()  # where the best fit puts its pips (view px)
    radius: float = 0.0  # their radius (view px)


@lru_cache(maxsize=1)
def _templates() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every face pattern as pip darkness on the patch grid: (n, PATCH*PATCH), each row's value,
    and each row's (spacing, radius, blur)."""
    g = np.linspace(-PATCH_SPAN / 2, PATCH_SPAN / 2, PATCH)
    uu, vv = np.meshgrid(g, g)
    rows, values, params = [], [], []
    for value, sites in PIP_SITES.items():
        turns = (0, 1) if value in (2, 3, 6) else (0,)
        radii = RADII + BIG_ONE if value == 1 else RADII
        for turn in turns:
            pts = [(j, -i) if turn else (i, j) for i, j in sites]
            for a in SPACINGS:
                for r in radii:
                    for s in BLURS:
                        sig = math.sqrt(s * s + (0.25 * r) ** 2)
                        dark = np.zeros_like(uu)
                        for i, j in pts:
                            d = np.hypot(uu - i * a, vv - j * a)
                            # a disc blurred: a logistic edge of the blur's width
                            dark += 1.0 / (1.0 + np.exp((d - r) / (0.6 * sig)))
                        rows.append(np.minimum(dark, 1.0).ravel())
                        values.append(value)
                        params.append((a, r, s, turn))
    return np.asarray(rows, np.float32), np.asarray(values), np.asarray(params, np.float32)


def _coarse_rows() -> np.ndarray:
    """The templates the face is located with: a middle pip size, two blurs."""
    _, values, params = _templates()
    r_ok = np.isclose(params[:, 1], RADII[1]) | ((values == 1) & np.isclose(params[:, 1], BIG_ONE[1]))
    b_ok = np.isclose(params[:, 2], BLURS[1]) | np.isclose(params[:, 2], BLURS[3])
    return np.flatnonzero(r_ok & b_ok)


def _patches(view: np.ndarray, face: Face, shifts: tuple[float, ...], turns: tuple[float, ...]
             ) -> tuple[np.ndarray, np.ndarray, list[tuple[float, float, float]]]:
    """The face sampled at each shift (share of the side, both axes) and turn (degrees): pip
    darkness (k, PATCH*PATCH) in 0..1 of the face's level, weights (a highlight far brighter
    than the face counts for nothing) and each patch's (du, dv, dturn). All patches in one remap."""
    half = face.side * PATCH_SPAN / 2
    g = np.linspace(-half, half, PATCH)
    uu, vv = np.meshgrid(g, g)
    poses = [(du, dv, dt) for dt in turns for du in shifts for dv in shifts]
    t = np.radians(face.angle_deg + np.array([p[2] for p in poses]))
    cos, sin = np.cos(t)[:, None, None], np.sin(t)[:, None, None]
    du = np.array([p[0] for p in poses])[:, None, None] * face.side
    dv = np.array([p[1] for p in poses])[:, None, None] * face.side
    u, v = uu[None] + du, vv[None] + dv  # face coordinates about the face's centre, per pose
    mx = (face.centre[0] + u * cos - v * sin).astype(np.float32)
    my = (face.centre[1] + u * sin + v * cos).astype(np.float32)
    k = len(poses)
    p = cv2.remap(view, mx.reshape(k * PATCH, PATCH), my.reshape(k * PATCH, PATCH), cv2.INTER_LINEAR,
                  borderMode=cv2.BORDER_REPLICATE).astype(np.float32).reshape(k, PATCH * PATCH, 3)
    level = np.partition(p, int(0.75 * (PATCH * PATCH - 1)), axis=1)[:, int(0.75 * (PATCH * PATCH - 1))] + 1.0
    norm = p / level[:, None, :]
    lo = np.minimum(np.minimum(norm[..., 0], norm[..., 1]), norm[..., 2])  # (axis reductions of 3 are slow)
    hi = np.maximum(np.maximum(norm[..., 0], norm[..., 1]), norm[..., 2])
    return (1.0 - lo).astype(np.float32), (hi <= 1.25).astype(np.float32), poses


@lru_cache(maxsize=1)
def _nuisance() -> tuple[np.ndarray, np.ndarray]:
    """What a face shows besides its pips, on the patch grid: its level, a gradient of light across
    it, and the shading of its rounded rim. Returns the basis (4, n) and its projector's pseudo-inverse."""
    g = np.linspace(-1.0, 1.0, PATCH)
    uu, vv = np.meshgrid(g, g)
    rim = np.maximum(np.abs(uu), np.abs(vv)) ** 6
    N = np.stack([np.ones_like(uu), uu, vv, rim]).reshape(4, -1).astype(np.float64)
    return N, np.linalg.inv(N @ N.T) @ N


@lru_cache(maxsize=4)
def _projected(rows: tuple[int, ...] | None) -> tuple[np.ndarray, np.ndarray]:
    """The templates (all, or ``rows``) with the nuisance projected out, and their squared norms."""
    T = _templates()[0].astype(np.float64)
    if rows is not None:
        T = T[list(rows)]
    N, A = _nuisance()
    Tr = T - (T @ A.T) @ N
    return Tr, (Tr * Tr).sum(axis=1)


def _least_squares(P: np.ndarray, W: np.ndarray, rows: tuple[int, ...] | None = None
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Least squares of each patch (rows of P; weights W, 0 for glare) by the nuisance (level,
    light gradient, rim) plus beta times each template (``rows`` of the templates), beta >= 0:
    residual sums of squares (k, m), betas, what the nuisance leaves of each patch (k, 1) and the
    weight sums (k, 1)."""
    N, A = _nuisance()
    Tr, tt = _projected(rows)
    k, m = len(P), len(Tr)
    sse, beta = np.empty((k, m)), np.empty((k, m))
    var_p, sw = np.empty((k, 1)), W.sum(axis=1, keepdims=True).astype(np.float64)
    # a few highlight pixels (under a third of a pip) cannot hide a pip: such a patch is fitted
    # whole, its highlights counted as bare face
    plain = (1.0 - W).mean(axis=1) < 0.01
    if plain.any():
        Pp = np.maximum(P[plain].astype(np.float64), 0.0)
        Pr = Pp - (Pp @ A.T) @ N
        cov = Pr @ Tr.T
        vp = (Pr * Pr).sum(axis=1, keepdims=True)
        b = cov / np.maximum(tt, 1e-12)
        sse[plain] = vp - np.where(b > 0, cov * b, 0.0)
        beta[plain], var_p[plain] = b, vp
    rest = np.flatnonzero(~plain)
    if len(rest):  # highlights: each patch's own weights, all patches at once (normal equations)
        T = _templates()[0].astype(np.float64)
        T = T if rows is None else T[list(rows)]
        w = W[rest].astype(np.float64)  # (r, n)
        p = P[rest].astype(np.float64)
        Nw = w[:, None, :] * N[None]  # (r, 4, n)
        A = np.linalg.pinv(Nw @ N.T)  # (r, 4, 4)
        b = (Nw.reshape(-1, Nw.shape[2]) @ T.T).reshape(len(rest), 4, -1)  # N W t: (r, 4, m)
        d = Nw @ p[:, :, None]  # N W p: (r, 4, 1)
        c = w @ (T * T).T  # t W t: (r, m)
        e = (w * p) @ T.T  # t W p: (r, m)
        f = (w * p * p).sum(axis=1, keepdims=True)
        Ab, Ad = A @ b, A @ d
        t_res = c - (b * Ab).sum(axis=1)
        p_res = f - (d * Ad).sum(axis=1)
        cross = e - (b * Ad).sum(axis=1)
        bb = cross / np.maximum(t_res, 1e-12)
        sse[rest] = p_res - np.where(bb > 0, cross * bb, 0.0)
        beta[rest], var_p[rest] = bb, p_res
    return sse, beta, np.maximum(var_p, 1e-12), sw


def locate(view: np.ndarray, face: Face) -> tuple[Face, float]:
    """The face moved to where a pip pattern fits it best: shifts up to ``LOCATE_SHIFT`` of the
    side and turns of ``LOCATE_TURNS_DEG`` around the edges' estimate (the pips of every face
    are centred on it), and how well a pattern fits there (the share of the face's variation,
    light and rim aside, that its pips explain)."""
    rows = _coarse_rows()
    shifts = tuple(np.linspace(-LOCATE_SHIFT, LOCATE_SHIFT, 7))
    P, W, poses = _patches(view, face, shifts, LOCATE_TURNS_DEG)
    ok = W.mean(axis=1) >= MIN_USABLE
    if not ok.any():
        return face, 0.0
    sse, _, var_p, _ = _least_squares(P[ok], W[ok], tuple(int(r) for r in rows))
    r2 = 1 - sse.min(axis=1) / var_p[:, 0]
    best = int(np.argmax(r2))
    du, dv, dt = [poses[i] for i in np.flatnonzero(ok)][best]
    t = math.radians(face.angle_deg + dt)
    e1, e2 = np.array([math.cos(t), math.sin(t)]), np.array([-math.sin(t), math.cos(t)])
    c = np.asarray(face.centre) + (du * e1 + dv * e2) * face.side
    return Face((float(c[0]), float(c[1])), (face.angle_deg + dt) % 90.0, face.side, face.score), float(r2[best])


def read_pips(view: np.ndarray, face: Face, independent_px: float) -> PipFit:
    """Which face the patch shows. ``independent_px``: how many of the frame's own pixels the
    face spans (samples closer than a frame pixel are not independent evidence)."""
    T, values, params = _templates()
    P, W, poses = _patches(view, face, SHIFTS, TURNS_DEG)
    usable = W.mean(axis=1)
    if usable.max() < MIN_USABLE:  # glare over the face
        return PipFit(None, 0.0, (0.0,) * 6, 0.0, 0.0, 0.0, 0.0)
    poses = [p for p, u in zip(poses, usable) if u >= MIN_USABLE]
    P, W = P[usable >= MIN_USABLE], W[usable >= MIN_USABLE]
    sse, beta, var_p, sw = _least_squares(P, W)
    best_per_value = np.array([sse[:, values == v].min() for v in range(1, 7)])
    i_best = int(np.argmin(best_per_value))
    k, j = np.unravel_index(int(np.argmin(np.where(values[None, :] == i_best + 1, sse, np.inf))), sse.shape)
    n = float(sw[k, 0])
    resid = max(float(sse[k, j]) / max(n - 5, 1.0), 1e-6)
    quality = 1 - float(sse[k, j]) / float(var_p[k, 0])
    contrast = float(beta[k, j]) / math.sqrt(resid)
    eff = min(1.0, independent_px / n)
    ll = (best_per_value - best_per_value[i_best]) / (2 * resid) * eff
    conf = float(1.0 / np.exp(-ll).sum())
    a, r, blur, turn = (float(v) for v in params[j])
    du, dv, dt = poses[k]
    t = math.radians(face.angle_deg + dt)
    e1, e2 = np.array([math.cos(t), math.sin(t)]), np.array([-math.sin(t), math.cos(t)])
    c = np.asarray(face.centre) + (du * e1 + dv * e2) * face.side
    sites = [(j2, -i2) if turn else (i2, j2) for i2, j2 in PIP_SITES[i_best + 1]]
    pips = tuple((float(p[0]), float(p[1])) for p in (c + (i2 * e1 + j2 * e2) * a * face.side for i2, j2 in sites))
    return PipFit(i_best + 1, conf, tuple(float(v) for v in ll), contrast, quality, blur, a, pips, r * face.side)


def pip_depth(image: np.ndarray, face: Face, fit: PipFit) -> float:
    """How dark the fitted pips are in ``image`` (darkest channel) against the face's level there
    (its upper quartile over the face), as a share of that level. The view gives the die's pips;
    the empty tray seen the same way gives what the board itself shows at those places: a die's
    pips are the die's, a "face" whose pips the board shows as well is print (a corner, a line)."""
    if not fit.pips:
        return 0.0
    lo = image.astype(np.float32).min(axis=2) if image.ndim == 3 else image.astype(np.float32)
    samples, _ = sample_turned(lo, np.asarray(face.centre), face.angle_deg, face.side * PATCH_SPAN / 2, PATCH)
    level = float(np.percentile(samples, 75))
    r = max(1.0, 0.5 * fit.radius)
    soft = cv2.GaussianBlur(lo, (0, 0), r)
    h, w = lo.shape
    at = [float(soft[int(round(y)), int(round(x))]) for x, y in fit.pips if 0 <= round(x) < w and 0 <= round(y) < h]
    if not at or level <= 0:
        return 0.0
    return max(0.0, (level - float(np.median(at))) / level)


def _round_spot(dark: np.ndarray, x: int, y: int, r: float) -> bool:
    """Whether the dark spot at (x, y) is pip-like: its core (over half its depth) is compact and
    about as wide as long, as a pip seen on the top face is."""
    R = int(math.ceil(3 * r))
    h, w = dark.shape
    y0, y1, x0, x1 = max(0, y - R), min(h, y + R + 1), max(0, x - R), min(w, x + R + 1)
    patch = dark[y0:y1, x0:x1] > 0.5 * float(dark[y, x])
    n, lab = cv2.connectedComponents(patch.astype(np.uint8), 4)
    core = lab == lab[y - y0, x - x0]
    ys, xs = np.nonzero(core)
    if len(xs) < 3:
        return True
    if xs.min() == 0 or ys.min() == 0 or xs.max() == core.shape[1] - 1 or ys.max() == core.shape[0] - 1:
        return False  # runs on beyond three pip radii: a line or an edge
    ev = np.linalg.eigvalsh(np.cov(np.vstack([xs, ys]).astype(float)))
    return bool(ev[0] >= ROUND_SPOT * ev[1])


def _on_walls(face: Face, lean: np.ndarray, x: float, y: float) -> bool:
    """Whether a view point lies on the walls the camera sees: outside the top face, and the face
    within a die's height up the lean from it (``lean``: view px per px of height, to the nadir)."""
    t = math.radians(face.angle_deg)
    e1, e2 = np.array([math.cos(t), math.sin(t)]), np.array([-math.sin(t), math.cos(t)])
    d = np.array([x - face.centre[0], y - face.centre[1]])
    u, v = float(d @ e1), float(d @ e2)
    hs = face.side / 2 * 1.05
    if abs(u) <= hs and abs(v) <= hs:
        return False
    D = np.asarray(lean, float) * face.side * 1.3  # the walls run this far, a little more for a larger die
    du, dv = float(D @ e1), float(D @ e2)
    lo, hi = 0.0, 1.0
    for q, dq in ((u, du), (v, dv)):
        if abs(dq) < 1e-9:
            if abs(q) > hs:
                return False
            continue
        a, b = (q - hs) / dq, (q + hs) / dq
        lo, hi = max(lo, min(a, b)), min(hi, max(a, b))
    return lo <= hi


def unexplained_pips(view: np.ndarray, face: Face, fit: PipFit, reach: float, lean: np.ndarray | None = None) -> int:
    """Dark spots the size of a pip, on a surface as bright as the face around its own pips,
    within ``reach`` (px) of its centre, that the fitted pattern does not account for. A face found in
    the wrong place shows them: one pip of a 2 or a 4 taken for the middle of a 1 leaves the other
    pips beside it, half a 4 taken for a 2 the other half. Spots on the walls the camera sees (the
    side faces' pips: where the face lies up the ``lean`` from them, or on a darker surface) and
    spots that are not round (seams, edges, print) do not count."""
    if fit.value is None or not fit.pips or fit.radius <= 0:
        return 0
    m = view.astype(np.float32).min(axis=2)
    r = max(1.0, fit.radius)
    k = int(2.8 * r) | 1
    dark = cv2.morphologyEx(m, cv2.MORPH_BLACKHAT, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    h, w = m.shape
    cx, cy = face.centre
    x0, y0 = max(0, int(cx - reach)), max(0, int(cy - reach))
    x1, y1 = min(w, int(cx + reach) + 1), min(h, int(cy + reach) + 1)
    if x1 <= x0 or y1 <= y0:
        return 0
    ring = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (int(5 * r) | 1, int(5 * r) | 1))
    rr = ring.shape[0] // 2

    def surface(x: int, y: int) -> float | None:  # how bright the surface around a spot is
        if y - rr < 0 or x - rr < 0 or y + rr >= h or x + rr >= w:
            return None
        return float(np.percentile(m[y - rr:y + rr + 1, x - rr:x + rr + 1][ring > 0], 30))

    own = [(int(round(x)), int(round(y))) for x, y in fit.pips]
    own = [(x, y) for x, y in own if 0 <= x < w and 0 <= y < h]
    levels = [v for v in (surface(x, y) for x, y in own) if v is not None]
    depth = float(np.median([dark[y, x] for x, y in own])) if own else 0.0
    if depth <= 0 or not levels:
        return 0
    level = float(np.median(levels))  # the face around its own pips
    region = dark[y0:y1, x0:x1]
    peaks = (region >= cv2.dilate(region, np.ones((k, k), np.uint8))) & (region > EXTRA_PIP_DEPTH * depth)
    count = 0
    for py, px in zip(*np.nonzero(peaks)):
        x, y = int(px + x0), int(py + y0)
        if min(math.hypot(x - qx, y - qy) for qx, qy in fit.pips) <= 2.0 * r:
            continue  # one of the fitted pips
        if lean is not None and _on_walls(face, lean, x, y):
            continue  # a side face's pip
        if not _round_spot(dark, x, y, r):
            continue  # a seam, an edge, a line: not a pip
        around = surface(x, y)
        if around is not None and around >= EXTRA_PIP_SURFACE * level:  # a pip on the face, not on a wall
            count += 1
    return count

"""Finding a die in the top view of the tray (``vision.dice_view``) and counting its pips (pure
logic, no I/O).

1. **Where the tray differs from the empty board**: the view against the table's empty-board
   reference seen the same way, light divided out block by block, differences beyond the range
   of the reference's 2 mm neighbourhood (a registration a little off is no die), in units of
   the noise measured in this view. A die (top, walls, pips, its shadow) is a blob of a die's
   size; a blob reaching the edge of the view or much larger than a die is a hand.
2. **The top face**: its orientation from the gradients around the blob (a square's edges all
   lie at one angle modulo 90 degrees), then its centre and side by the edges a die must show
   in this view: the four edges of the top face, and the far edges of the walls, which lean
   towards the point under the camera by the parallax of the die's height. The side is searched
   within +-30 % of the nominal (layout or enrolment).
3. **The pips**: the face is sampled on a square grid and compared, by least squares with a free
   face level and pip darkness, with the six faces (and the two orientations of 2, 3 and 6),
   each over pip spacings, pip sizes, blur, small shifts and turns. A value is given only when
   the best explains the face far better than every other (a likelihood ratio with the number of
   independent pixels the frame really has on the face); else the die is *unreadable*.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

PIP_SITES: dict[int, tuple[tuple[int, int], ...]] = {
    1: ((0, 0),),
    2: ((-1, -1), (1, 1)),
    3: ((-1, -1), (0, 0), (1, 1)),
    4: ((-1, -1), (1, -1), (-1, 1), (1, 1)),
    5: ((-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)),
    6: ((-1, -1), (-1, 0), (-1, 1), (1, -1), (1, 0), (1, 1)),
}

TOLERANCE_MM = 2.0  # a difference within the reference's neighbourhood of this radius is no piece
REF_SIGMA_PX = 0.8  # the reference's blur, in its own pixels (enrolment smooths it by 0.6 px)
SEEDS_SIGMA = 5.0  # foreground seeds, in units of the view's noise
GROW_SIGMA = 3.0
SIZE_RANGE = (0.7, 1.3)  # of the nominal die side
SILHOUETTE_PX = 16  # the silhouette is fitted at about this many px per side
PIP_DARK = 0.45  # a pixel darker than this share of the die's bright part is a pip
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
EXTRA_PIP_SURFACE = 0.85  # ... when what surrounds it is this bright (of the face's level): a face, not a wall


@dataclass(frozen=True)
class Blob:
    """A part of the view that differs from the empty tray: its pixels' bounding box and mask."""

    box: tuple[int, int, int, int]  # x0, y0, x1, y1 (view px)
    mask: np.ndarray  # bool, the box's size
    area_mm2: float
    touches_edge: bool
    peak: float  # the largest difference in it, in noise units


@dataclass(frozen=True)
class Foreground:
    blobs: tuple[Blob, ...]
    noise: float  # grey levels
    expected: np.ndarray  # the empty tray as this frame would show it (float32 BGR)
    difference: np.ndarray  # beyond the reference's neighbourhood (float32, grey levels)


def _smooth_gain(img: np.ndarray, ref: np.ndarray, mask: np.ndarray | None) -> np.ndarray:
    """This frame's light against the reference's, per channel, as a smooth (quadratic) field
    fitted robustly over the tray (``mask``): a die, its pips and a shadow's core are outliers.
    A clipped pixel says nothing about the light: a channel clipped over most of the tray gets
    one gain (its expected values are clipped the same way)."""
    h, w = img.shape[:2]
    step = max(1, int(math.sqrt(h * w / 3000)))
    ys, xs = np.mgrid[0:h:step, 0:w:step]
    f = img[::step, ::step].reshape(-1, 3)
    r = ref[::step, ::step].reshape(-1, 3)
    region = np.ones(len(f), bool) if mask is None else mask[::step, ::step].ravel()
    x, y = xs.ravel() / w - 0.5, ys.ravel() / h - 0.5
    A = np.column_stack([np.ones_like(x), x, y, x * x, x * y, y * y])
    gx, gy = np.meshgrid(np.arange(w) / w - 0.5, np.arange(h) / h - 0.5)
    B = np.stack([np.ones_like(gx), gx, gy, gx * gx, gx * gy, gy * gy], axis=-1)
    out = np.ones((h, w, 3), np.float32)
    if region.sum() < 30:
        return out
    for c in range(3):
        t = np.log((f[:, c] + 4.0) / (r[:, c] + 4.0))
        ok = region & (f[:, c] < 250) & (r[:, c] > 8)
        if ok.sum() < 0.3 * region.sum():
            out[..., c] = math.exp(float(np.median(t[region])))
            continue
        use = ok.copy()
        coef = np.zeros(6)
        for _ in range(4):
            Au = A[use]
            coef = np.linalg.solve(Au.T @ Au + 1e-6 * np.eye(6), Au.T @ t[use])
            res = t - A @ coef
            mad = float(np.median(np.abs(res[use]))) * 1.4826 + 1e-3
            use = ok & (np.abs(res) < 2.5 * mad)
            if use.sum() < 12:
                use = ok
                break
        out[..., c] = np.exp(np.clip(B @ coef, -1.5, 1.5))
    return out


def foreground(img: np.ndarray, ref: np.ndarray, px_per_mm: float, frame_px_per_mm: float, ref_px_per_mm: float,
               inside: np.ndarray | None = None, light_mask: np.ndarray | None = None) -> Foreground:
    """Where ``img`` (the view) differs from ``ref`` (the empty board seen the same way). Both are
    first brought to the same sharpness: the coarser of the frame's and the reference's pixels,
    and the frame's own blur (the one of three that makes the two agree best)."""
    coarse = max(1.0 / frame_px_per_mm, 1.0 / ref_px_per_mm) * px_per_mm  # view px per coarse pixel
    f0 = img.astype(np.float32)
    r0 = ref.astype(np.float32)
    gain = _smooth_gain(cv2.GaussianBlur(f0, (0, 0), 0.5 * coarse), r0, light_mask if light_mask is not None else inside)
    best = None
    # the sharper of the two is blurred to the other: the frame by its pixels and its own blur
    # (unknown: three guesses), the reference by its pixels and its enrolment's smoothing
    ref_sigma = REF_SIGMA_PX * px_per_mm / ref_px_per_mm
    for extra in (0.5, 1.2, 2.0):
        frame_sigma = math.hypot(0.5, extra) * px_per_mm / frame_px_per_mm
        common = max(frame_sigma, ref_sigma)
        f = cv2.GaussianBlur(f0, (0, 0), math.sqrt(max(common**2 - frame_sigma**2, 0.0)) + 0.3)
        e = np.minimum(cv2.GaussianBlur(r0, (0, 0), math.sqrt(max(common**2 - ref_sigma**2, 0.0)) + 0.3) * gain, 255.0)
        d = np.abs(f - e).mean(axis=2)
        score = float(np.mean(np.square(d if inside is None else d[inside])))  # the print's lines decide
        if best is None or score < best[0]:
            best = (score, e, d, f)
    assert best is not None
    _, expect, raw, f = best
    k = max(3, int(round(TOLERANCE_MM * px_per_mm)) | 1)
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
    lo, hi = cv2.erode(expect, kernel), cv2.dilate(expect, kernel)
    out = np.maximum(lo - f, 0) + np.maximum(f - hi, 0)
    dist = np.sqrt((out * out).sum(axis=2))
    noise = max(1.0, float(np.median(raw if inside is None else raw[inside])) * 1.4826)
    seeds = dist > SEEDS_SIGMA * noise
    grown = dist > GROW_SIGMA * noise
    grown = cv2.morphologyEx(grown.astype(np.uint8), cv2.MORPH_CLOSE, kernel)
    h, w = grown.shape
    if inside is not None:
        grown &= inside.astype(np.uint8)
        rim = inside & ~cv2.erode(inside.astype(np.uint8), np.ones((3, 3), np.uint8)).astype(bool)
    else:
        rim = np.zeros((h, w), bool)
        rim[0, :] = rim[-1, :] = rim[:, 0] = rim[:, -1] = True
    n, lab, stats, _ = cv2.connectedComponentsWithStats(grown, 8)
    keep = np.zeros(n, bool)
    keep[np.unique(lab[seeds & (grown > 0)])] = True
    at_rim = np.zeros(n, bool)
    at_rim[np.unique(lab[rim & (grown > 0)])] = True
    blobs = []
    for i in range(1, n):
        if not keep[i]:
            continue
        x, y, bw, bh, area = stats[i]
        if area < (1.5 * px_per_mm) ** 2:
            continue
        edge = bool(at_rim[i])
        m = lab[y:y + bh, x:x + bw] == i
        blobs.append(Blob((int(x), int(y), int(x + bw), int(y + bh)), m, float(area) / px_per_mm**2, bool(edge),
                          float(dist[y:y + bh, x:x + bw][m].max()) / noise))
    return Foreground(tuple(blobs), noise, expect, dist)


def merge_near(blobs: tuple[Blob, ...], gap_px: float, reach_px: float) -> list[Blob]:
    """Blobs closer than ``gap_px`` joined while the union spans at most ``reach_px`` (a white die
    on a white tray shows as its walls and pips, apart)."""
    out = list(blobs)
    merged = True
    while merged:
        merged = False
        for i in range(len(out)):
            for j in range(i + 1, len(out)):
                a, b = out[i], out[j]
                dx = max(a.box[0] - b.box[2], b.box[0] - a.box[2], 0)
                dy = max(a.box[1] - b.box[3], b.box[1] - a.box[3], 0)
                span = max(max(a.box[2], b.box[2]) - min(a.box[0], b.box[0]), max(a.box[3], b.box[3]) - min(a.box[1], b.box[1]))
                if math.hypot(dx, dy) <= gap_px and span <= reach_px:
                    out[i] = _union(a, b)
                    del out[j]
                    merged = True
                    break
            if merged:
                break
    return out


def _union(a: Blob, b: Blob) -> Blob:
    x0, y0 = min(a.box[0], b.box[0]), min(a.box[1], b.box[1])
    x1, y1 = max(a.box[2], b.box[2]), max(a.box[3], b.box[3])
    m = np.zeros((y1 - y0, x1 - x0), bool)
    for o in (a, b):
        m[o.box[1] - y0:o.box[3] - y0, o.box[0] - x0:o.box[2] - x0] |= o.mask
    return Blob((x0, y0, x1, y1), m, a.area_mm2 + b.area_mm2, a.touches_edge or b.touches_edge, max(a.peak, b.peak))


# ------------------------------------------------------------------------------- the top face

@dataclass(frozen=True)
class Face:
    centre: tuple[float, float]  # view px
    angle_deg: float  # of the face's edges, modulo 90
    side: float  # view px
    score: float


def _orientation(gray: np.ndarray, weight: np.ndarray) -> float:
    """The dominant edge orientation modulo 90 degrees."""
    gx = cv2.Sobel(gray, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(gray, cv2.CV_32F, 0, 1, ksize=3)
    mag2 = (gx * gx + gy * gy) * weight
    ang = (np.degrees(np.arctan2(gy, gx)) % 90.0)
    hist, _ = np.histogram(ang, bins=90, range=(0, 90), weights=mag2)
    ext = np.concatenate([hist[-6:], hist, hist[:6]])
    smooth = np.convolve(ext, np.exp(-0.5 * (np.arange(-6, 7) / 2.0) ** 2), mode="same")[6:-6]
    i = int(np.argmax(smooth))
    # sub-degree peak
    a, b, c = smooth[(i - 1) % 90], smooth[i], smooth[(i + 1) % 90]
    den = a - 2 * b + c
    off = 0.5 * (a - c) / den if den < 0 else 0.0
    return float((i + 0.5 + off) % 90.0)


def _sample(img: np.ndarray, centre: np.ndarray, angle_deg: float, half: float, n: int) -> tuple[np.ndarray, np.ndarray]:
    """``img`` resampled on an n x n grid of side ``2 half`` (px) turned ``angle_deg`` about
    ``centre``; returns the samples and the grid's step (px)."""
    t = math.radians(angle_deg)
    e1, e2 = np.array([math.cos(t), math.sin(t)]), np.array([-math.sin(t), math.cos(t)])
    g = np.linspace(-half, half, n)
    uu, vv = np.meshgrid(g, g)
    mx = (centre[0] + uu * e1[0] + vv * e2[0]).astype(np.float32)
    my = (centre[1] + uu * e1[1] + vv * e2[1]).astype(np.float32)
    return cv2.remap(img, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE), g[1] - g[0]


def fit_face(view: np.ndarray, expected: np.ndarray, blob: Blob, side: float, lean: np.ndarray,
             candidates: int = 1) -> list[Face]:
    """The die's top face in the view, as the die's silhouette that best explains it: the top
    face (one colour), the walls the camera sees (one colour each), running from the face
    towards the nadir by ``lean`` (view px per px of the die's height), and around them the
    empty tray (``expected``, the reference seen the same way, up to a gain). ``side``: the
    nominal side (px), searched within ``SIZE_RANGE``. Pip-dark pixels count for nothing here.
    Returns the best ``candidates`` faces at distinct places (a shadow or a wall may fit nearly as
    well as the face: the pips decide between them), best first."""
    x0, y0, x1, y1 = blob.box
    pad = int(math.ceil(side * 0.6))
    h, w = view.shape[:2]
    X0, Y0, X1, Y1 = max(0, x0 - pad), max(0, y0 - pad), min(w, x1 + pad), min(h, y1 + pad)
    gray = view[Y0:Y1, X0:X1].astype(np.float32).mean(axis=2)
    weight = np.zeros(gray.shape, np.float32)
    m = cv2.dilate(blob.mask.astype(np.uint8), np.ones((max(3, pad // 2) | 1,) * 2, np.uint8))
    weight[y0 - Y0:y0 - Y0 + m.shape[0], x0 - X0:x0 - X0 + m.shape[1]] = m
    theta = _orientation(gray, weight)
    ys, xs = np.nonzero(blob.mask)
    c0 = np.array([xs.mean() + x0, ys.mean() + y0], float)
    span = max(x1 - x0, y1 - y0) / 2 + side * 0.6
    fit = _Silhouette(view, expected, c0, side, span, lean)
    # coarse: centres every 0.15 side over the blob, four sizes, the edges' angle; then fine around the best three
    t = math.radians(theta)
    e1, e2 = np.array([math.cos(t), math.sin(t)]), np.array([-math.sin(t), math.cos(t)])
    rel = np.column_stack([xs + x0 - c0[0], ys + y0 - c0[1]])
    pu, pv = rel @ e1, rel @ e2
    step = 0.15 * side
    gu = np.arange(pu.min(), pu.max() + 1e-9, step) if pu.max() > pu.min() else np.zeros(1)
    gv = np.arange(pv.min(), pv.max() + 1e-9, step) if pv.max() > pv.min() else np.zeros(1)
    sizes = np.linspace(SIZE_RANGE[0], SIZE_RANGE[1], 4) * side
    cu, cv, ss = (a.ravel() for a in np.meshgrid(gu, gv, sizes, indexing="ij"))
    sse = fit.score(theta, cu, cv, ss)
    if sse is None:
        return []
    # the best coarse places, at least a third of a side apart, each refined
    starts: list[int] = []
    for i in np.argsort(sse):
        if all(math.hypot(cu[i] - cu[j], cv[i] - cv[j]) >= side / 3 for j in starts):
            starts.append(int(i))
        if len(starts) >= max(3, candidates):
            break
    fine = np.linspace(-0.1, 0.1, 5) * side
    dsize = np.linspace(-0.1, 0.1, 5) * side
    found: list[Face] = []
    for i in starts:
        fu, fv, fs = (a.ravel() for a in np.meshgrid(cu[i] + fine, cv[i] + fine, ss[i] + dsize, indexing="ij"))
        best: Face | None = None
        for dt in (-2.5, 0.0, 2.5):
            sf = fit.score(theta + dt, fu, fv, fs)
            if sf is None:
                continue
            j = int(np.argmin(sf))
            if best is None or sf[j] < best.score:
                t = math.radians(theta + dt)
                e1, e2 = np.array([math.cos(t), math.sin(t)]), np.array([-math.sin(t), math.cos(t)])
                centre = c0 + fu[j] * e1 + fv[j] * e2
                best = Face((float(centre[0]), float(centre[1])), float((theta + dt) % 90.0), float(fs[j]), float(sf[j]))
        if best is not None and all(math.dist(best.centre, f.centre) >= side / 3 for f in found):
            found.append(best)
    return sorted(found, key=lambda f: f.score)[:candidates]


class _Silhouette:
    """Scores die silhouettes (centre in face coordinates about ``c0``, side) against the view.

    In face coordinates the top face is an axis-aligned square and the walls its sweep towards
    the nadir: every row of the sampled window meets the silhouette in one interval and the face
    in one interval, so each class's sums are differences of the rows' prefix sums."""

    def __init__(self, view: np.ndarray, expected: np.ndarray, c0: np.ndarray, side: float, span: float,
                 lean: np.ndarray) -> None:
        self.view = view.astype(np.float32)
        self.expected = np.maximum(expected.astype(np.float32), 1.0)
        self.c0, self.span, self.lean = c0, span, np.asarray(lean, float)
        self.n = max(8, int(round(2 * span / max(1.0, side / SILHOUETTE_PX))))
        self.h = 2 * span / (self.n - 1)
        self._cache: dict[float, tuple] = {}

    def _data(self, theta: float) -> tuple:
        key = round(theta, 4)
        if key not in self._cache:
            x, _ = _sample(self.view, self.c0, theta, self.span, self.n)
            e, _ = _sample(self.expected, self.c0, theta, self.span, self.n)
            lum = x.min(axis=2)
            w = (lum >= PIP_DARK * np.percentile(lum, 90)).astype(np.float64)[..., None]  # pips are not the silhouette
            x, e = x.astype(np.float64), e.astype(np.float64)
            quantities = np.concatenate([w, w * x, w * x * x, w * x * e, w * e * e], axis=2)  # (rows, n, 13)
            prefix = np.zeros((self.n, self.n + 1, quantities.shape[2]))
            prefix[:, 1:] = np.cumsum(quantities, axis=1)
            self._cache[key] = prefix
        return self._cache[key]

    def _sums(self, prefix: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """Sums over u in [a, b] on every row: a, b (H, rows) -> (H, quantities)."""
        lo = np.clip(np.ceil((a + self.span) / self.h - 1e-9), 0, self.n).astype(np.intp)
        hi = np.clip(np.floor((b + self.span) / self.h + 1e-9) + 1, 0, self.n).astype(np.intp)
        hi = np.maximum(hi, lo)
        rows = np.arange(self.n)[None, :]
        return (prefix[rows, hi] - prefix[rows, lo]).sum(axis=1)

    def score(self, theta: float, cu: np.ndarray, cv: np.ndarray, ss: np.ndarray) -> np.ndarray | None:
        prefix = self._data(theta)
        total = prefix[:, -1].sum(axis=0)
        if total[0] < 16:
            return None
        t = math.radians(theta)
        du = float(self.lean @ np.array([math.cos(t), math.sin(t)]))
        dv = float(self.lean @ np.array([-math.sin(t), math.cos(t)]))
        v = (np.arange(self.n) * self.h - self.span)[None, :]
        cu, cv, hs = cu[:, None], cv[:, None], ss[:, None] / 2
        Du, Dv = du * 2 * hs, dv * 2 * hs  # the sweep: the die's height is its side
        # the rows' t-range in which the swept square meets them
        if abs(dv) > 1e-9:
            t1, t2 = (v - cv - hs) / Dv, (v - cv + hs) / Dv
            tlo, thi = np.maximum(np.minimum(t1, t2), 0.0), np.minimum(np.maximum(t1, t2), 1.0)
        else:
            inside = np.abs(v - cv) <= hs
            tlo, thi = np.where(inside, 0.0, 1.0), np.where(inside, 1.0, 0.0) * np.ones_like(cu)
        meets = thi >= tlo
        sa = np.where(meets, cu - hs + np.minimum(tlo * Du, thi * Du), 1e9)
        sb = np.where(meets, cu + hs + np.maximum(tlo * Du, thi * Du), -1e9)
        face_row = np.abs(v - cv) <= hs
        fa = np.where(face_row, cu - hs, 1e9)
        fb = np.where(face_row, cu + hs, -1e9)
        sil = self._sums(prefix, sa, sb)
        face = self._sums(prefix, fa, fb)
        # walls beside the face (on face rows) and beyond it (other rows)
        wa = np.where(face_row, 1e9, sa)
        wb = np.where(face_row, -1e9, sb)
        wall_v = self._sums(prefix, wa, wb)
        wall_u = sil - face - wall_v
        tray = total[None, :] - sil

        def sse(q: np.ndarray) -> np.ndarray:
            cnt = np.maximum(q[:, :1], 1.0)
            s1, s2 = q[:, 1:4], q[:, 4:7]
            return (s2 - s1 * s1 / cnt).sum(axis=1)

        sxx, sxe, see = tray[:, 4:7], tray[:, 7:10], tray[:, 10:13]
        out = sse(face) + sse(wall_u) + sse(wall_v) + (sxx - sxe * sxe / np.maximum(see, 1e-6)).sum(axis=1)
        return out / total[0]


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


# ------------------------------------------------------------------------------- the pips

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
    than the face counts for nothing) and each patch's (du, dv, dturn)."""
    img = view.astype(np.float32)
    half = face.side * PATCH_SPAN / 2
    out, wts, poses = [], [], []
    for dt in turns:
        t = math.radians(face.angle_deg + dt)
        e1, e2 = np.array([math.cos(t), math.sin(t)]), np.array([-math.sin(t), math.cos(t)])
        for du in shifts:
            for dv in shifts:
                c = np.asarray(face.centre) + (du * e1 + dv * e2) * face.side
                p, _ = _sample(img, c, face.angle_deg + dt, half, PATCH)
                level = np.percentile(p.reshape(-1, 3), 75, axis=0) + 1.0
                norm = p / level
                out.append((1.0 - norm.min(axis=2)).ravel())
                wts.append((norm.max(axis=2) <= 1.25).astype(np.float32).ravel())
                poses.append((du, dv, dt))
    return np.asarray(out, np.float32), np.asarray(wts, np.float32), poses


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
    plain = W.min(axis=1) >= 1.0
    if plain.any():
        Pp = P[plain].astype(np.float64)
        Pr = Pp - (Pp @ A.T) @ N
        cov = Pr @ Tr.T
        vp = (Pr * Pr).sum(axis=1, keepdims=True)
        b = cov / np.maximum(tt, 1e-12)
        sse[plain] = vp - np.where(b > 0, cov * b, 0.0)
        beta[plain], var_p[plain] = b, vp
    T = None
    for i in np.flatnonzero(~plain):  # glare: the projection with this patch's weights
        if T is None:
            T = _templates()[0].astype(np.float64)
            T = T if rows is None else T[list(rows)]
        w = W[i].astype(np.float64)
        Nw = N * w
        Aw = np.linalg.pinv(Nw @ N.T) @ Nw
        p = P[i].astype(np.float64)
        pr = p - N.T @ (Aw @ p)
        Trw = T - (T @ Aw.T) @ N
        cov = (Trw * w) @ pr
        ttw = (Trw * Trw * w).sum(axis=1)
        vp = float((w * pr * pr).sum())
        b = cov / np.maximum(ttw, 1e-12)
        sse[i] = vp - np.where(b > 0, cov * b, 0.0)
        beta[i], var_p[i] = b, vp
    return sse, beta, np.maximum(var_p, 1e-12), sw


def locate(view: np.ndarray, face: Face) -> tuple[Face, float]:
    """The face moved to where a pip pattern fits it best: shifts up to ``LOCATE_SHIFT`` of the
    side and turns of ``LOCATE_TURNS_DEG`` around the edges' estimate (the pips of every face
    are centred on it), and how well a pattern fits there (the share of the face's variation,
    light and rim aside, that its pips explain)."""
    rows = _coarse_rows()
    shifts = tuple(np.linspace(-LOCATE_SHIFT, LOCATE_SHIFT, 9))
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


def unexplained_pips(view: np.ndarray, face: Face, fit: PipFit, reach: float) -> int:
    """Dark spots the size of a pip, on a surface as bright as the face around its own pips,
    within ``reach`` (px) of its centre, that the fitted pattern does not account for. A face found in
    the wrong place shows them: one pip of a 2 or a 4 taken for the middle of a 1 leaves the other
    pips beside it (the one pattern a shifted face can show whole). Spots on the die's shaded walls
    (its side faces' pips) do not count; on walls lit as brightly as the top they do, and the die
    is then left unread."""
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
        around = surface(x, y)
        if around is not None and around >= EXTRA_PIP_SURFACE * level:  # a pip on the face, not on a wall
            count += 1
    return count

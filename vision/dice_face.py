"""The die's top face in the view of the tray (pure logic, no I/O): the second step of
``vision.dice``.

Its orientation from the gradients around the die's blob (a square's edges all lie at one angle
modulo 90 degrees); then its centre and side as the silhouette that best explains the view: the top
face (one colour), the walls the camera sees (running from it towards the point under the camera by
the die's height) and the empty tray around. The side is searched within +-30 % of the nominal
(layout or enrolment). A few distinct places are returned: the pips decide between them
(``vision.dice_pips``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from vision.dice_tray import Blob

SIZE_RANGE = (0.7, 1.3)  # of the nominal die side
SILHOUETTE_PX = 16  # the silhouette is fitted at about this many px per side
PIP_DARK = 0.45  # a pixel darker than this share of the die's bright part is a pip
UNLIKE_TRAY = 0.7  # ... and darker than this share of the empty tray there (a tray as dark as pips is tray)


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


def sample_turned(img: np.ndarray, centre: np.ndarray, angle_deg: float, half: float, n: int) -> tuple[np.ndarray, np.ndarray]:
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
    nominal side (px), searched within ``SIZE_RANGE``. Pip-dark pixels count for nothing here,
    unless the empty tray is as dark there (black felt: were it left out, any square around the
    face would explain the view as well as the face, and the face would come out too large).
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
            x, _ = sample_turned(self.view, self.c0, theta, self.span, self.n)
            e, _ = sample_turned(self.expected, self.c0, theta, self.span, self.n)
            lum = np.minimum(np.minimum(x[..., 0], x[..., 1]), x[..., 2])
            lum_e = np.minimum(np.minimum(e[..., 0], e[..., 1]), e[..., 2])
            dark = (lum < PIP_DARK * np.percentile(lum, 90)) & (lum < UNLIKE_TRAY * lum_e)
            w = (~dark).astype(np.float64)[..., None]  # pips (and a shadow) are not the silhouette
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

"""Where the dice tray differs from the empty board (pure logic, no I/O): the first step of
``vision.dice``.

The view of the tray on the plane of a die's top (``vision.dice_view``) against the table's
empty-board reference seen the same way: both brought to the same sharpness, the light divided out
as a smooth gain fitted robustly over the tray, differences beyond the range of the reference's
~1 mm neighbourhood (a registration a little off is no die), in units of the noise measured in the
view. A die (top, walls, pips, its shadow) is a blob of a die's size; what is larger, or comes in
over the tray's edge, or changes the tray in a way no light does, is a hand (``vision.dice``
decides).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

# a difference within the reference's neighbourhood is no piece. The kernel is this many mm wide (rounded up to odd
# px), so its radius is about half of it; the full radius read worse on tools/dice_eval's tuning rolls (2560 px:
# 70.86 -> 70.12 %, twenty-eighth sitting)
TOLERANCE_MM = 2.0
# channel gains further apart than this are no light. Issue 12's frames have casts of +-15 % per channel, and so
# may the empty photo the frame is compared with: their ratio reaches (1.15 / 0.85)^2 = 1.83. At 1.4 (one cast's
# reach) 16 of 199 rolls without a hand in tools/dice_eval's tuning tables (3840 px) read "a hand over the tray";
# every hand in the tray there that 1.4 caught, the spread (LIGHT_SPREAD) catches too
LIGHT_CAST = (1.15 / 0.85) ** 2
LIGHT_SPREAD = 1.6  # nor a gain varying more than this over the tray (vignetting, uneven light: less)
NOISE_PER_GRAIN = 4.0  # the difference's noise is at most this many times the view's pixel grain (plus 4 levels)
REF_SIGMA_PX = 0.8  # the reference's blur, in its own pixels (enrolment smooths it by 0.6 px)
SEEDS_SIGMA = 5.0  # foreground seeds, in units of the view's noise
GROW_SIGMA = 3.0


@dataclass(frozen=True)
class Blob:
    """A part of the view that differs from the empty tray: its pixels' bounding box and mask."""

    box: tuple[int, int, int, int]  # x0, y0, x1, y1 (view px)
    mask: np.ndarray  # bool, the box's size
    area_mm2: float
    touches_edge: bool
    peak: float  # the largest difference in it, in noise units
    thickness_mm: float = 0.0  # twice its largest inscribed radius: a printed line left over is thin, a hand is not


@dataclass(frozen=True)
class Foreground:
    blobs: tuple[Blob, ...]
    noise: float  # grey levels
    expected: np.ndarray  # the empty tray as this frame would show it (float32 BGR)
    difference: np.ndarray  # beyond the reference's neighbourhood (float32, grey levels)
    light_ok: bool = True  # False: what changed the tray is no light (a colour or an unevenness light does not make)


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


def _light_like(gain: np.ndarray, mask: np.ndarray | None) -> bool:
    """Whether the fitted change of the tray could be light: a colour cast within
    ``LIGHT_CAST`` between channels and a field that varies by less than ``LIGHT_SPREAD`` over
    the tray. A hand or an arm over most of the tray fits as a "light" of its own colour."""
    g = gain.reshape(-1, 3) if mask is None else gain[mask]
    if len(g) < 10:
        return True
    mid = np.median(g, axis=0)
    if float(mid.max() / max(mid.min(), 1e-6)) > LIGHT_CAST:
        return False
    lo, hi = np.percentile(g, 5, axis=0), np.percentile(g, 95, axis=0)
    return bool(np.all(hi / np.maximum(lo, 1e-6) <= LIGHT_SPREAD))


def foreground(img: np.ndarray, ref: np.ndarray, px_per_mm: float, frame_px_per_mm: float, ref_px_per_mm: float,
               inside: np.ndarray | None = None, light_mask: np.ndarray | None = None) -> Foreground:
    """Where ``img`` (the view) differs from ``ref`` (the empty board seen the same way). Both are
    first brought to the same sharpness: the coarser of the frame's and the reference's pixels,
    and the frame's own blur (the one of three that makes the two agree best)."""
    coarse = max(1.0 / frame_px_per_mm, 1.0 / ref_px_per_mm) * px_per_mm  # view px per coarse pixel
    f0 = img.astype(np.float32)
    r0 = ref.astype(np.float32)
    gain = _smooth_gain(cv2.GaussianBlur(f0, (0, 0), 0.5 * coarse), r0, light_mask if light_mask is not None else inside)
    light_ok = _light_like(gain, light_mask if light_mask is not None else inside)
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
    # the lower quartile of the difference (a hand over most of the tray does not raise it much),
    # at most a few times the view's own grain (which a hand does not raise at all)
    region = raw if inside is None else raw[inside]
    grain = np.abs(f0 - cv2.GaussianBlur(f0, (0, 0), 1.5)).mean(axis=2)
    grain = float(np.median(grain if inside is None else grain[inside])) * 1.4826
    noise = max(1.0, min(float(np.percentile(region, 25)) * 3.14, NOISE_PER_GRAIN * grain + 4.0))
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
        inscribed = cv2.distanceTransform(np.pad(m.astype(np.uint8), 1), cv2.DIST_L2, 3).max()
        blobs.append(Blob((int(x), int(y), int(x + bw), int(y + bh)), m, float(area) / px_per_mm**2, bool(edge),
                          float(dist[y:y + bh, x:x + bw][m].max()) / noise, 2.0 * float(inscribed) / px_per_mm))
    return Foreground(tuple(blobs), noise, expect, dist, light_ok)


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
    return Blob((x0, y0, x1, y1), m, a.area_mm2 + b.area_mm2, a.touches_edge or b.touches_edge, max(a.peak, b.peak),
                max(a.thickness_mm, b.thickness_mm))

"""Foreground pixel -> whose piece: the nearest colour the table model learned, or unknown.

A lookup table over quantised Lab makes this one indexing operation per frame. A pixel far from
every learned colour (skin, a sleeve, a glare spot) is *unknown*: never a piece, and evidence of
a hand when there is much of it.
"""

from __future__ import annotations

import functools
import math

import cv2
import numpy as np

from vision.blobs import clusters
from vision.enrolment import TableModel
from vision.foreground import DARK_RATIO

Q = 4  # Lab levels per lookup cell
Q_SHIFT = 2  # log2(Q): the cell of a level is level >> Q_SHIFT
L_WEIGHT = 0.5  # shading moves a colour along L: weigh lightness less than hue
UNKNOWN = -1
UNKNOWN_MIN = 16.0  # a colour is never tighter than this (Lab units): blur and JPEG mix edges
DARK_HUE_L = 110.0  # below this lightness (of 255) hue counts for less ...
DARK_HUE_MIN = 0.3  # ... down to this weight
UNKNOWN_SPREAD = 2.0
GREY_CHROMA = 20.0  # Lab |a|+|b| off grey: a player colour below this has too little chroma to be found by
AMBIGUOUS_RATIO = 1.3  # second-nearest colour within this factor of the nearest: ambiguous  # ... or this many times its own pixels' spread


@functools.cache
def lut_cells() -> np.ndarray:
    """The centre of every quantised Lab lookup cell (``Q`` levels each way), one row of L, a, b per cell.
    Made once (3 MB; each colour table of a reader's set-up asked for it anew) and read-only."""
    n = 256 // Q
    g = (np.arange(n, dtype=np.float32) + 0.5) * Q
    cells = np.stack(np.meshgrid(g, g, g, indexing="ij"), axis=-1).reshape(-1, 3)
    cells.flags.writeable = False
    return cells


def lab_norm(d: np.ndarray) -> np.ndarray:
    """The size of Lab differences ``d`` (last axis L, a, b), lightness weighed by ``L_WEIGHT``."""
    return np.sqrt((L_WEIGHT * d[..., 0]) ** 2 + d[..., 1] ** 2 + d[..., 2] ** 2)


def colour_distance(cells: np.ndarray, proto: np.ndarray, limit: float) -> np.ndarray:
    """How far Lab ``cells`` lie from one learned colour, in units of its ``limit`` (1: the edge of what it
    explains). Lightness weighs less than hue (shading moves a colour along L), and the hue of a dark
    pixel less still: it is mostly noise and colour cast."""
    w = np.clip(np.minimum(cells[:, 0], proto[0]) / DARK_HUE_L, DARK_HUE_MIN, 1.0)
    dL = (cells[:, 0] - proto[0]) * L_WEIGHT
    dab2 = (cells[:, 1] - proto[1]) ** 2 + (cells[:, 2] - proto[2]) ** 2
    return np.sqrt(dL * dL + w * w * dab2) / limit


class ColourClassifier:
    def __init__(self, model: TableModel):
        self.owners: tuple[str, ...] = tuple(sorted(model.colours))
        protos, owner_of, limit = [], [], []
        for i, o in enumerate(self.owners):
            for p in model.colours[o]:
                protos.append(p)
                owner_of.append(i)
                limit.append(max(UNKNOWN_MIN, UNKNOWN_SPREAD * float(model.spreads.get(o, 12.0))))
        P = np.asarray(protos, np.float32)
        cells = lut_cells()
        n = 256 // Q
        best = np.full(len(cells), np.inf, np.float32)
        arg = np.zeros(len(cells), np.int32)
        owner_best = np.full((len(cells), len(self.owners)), np.inf, np.float32)
        for j in range(len(P)):
            d = colour_distance(cells, P[j], limit[j])
            better = d < best
            best[better] = d[better]
            arg[better] = j
            o = owner_of[j]
            owner_best[:, o] = np.minimum(owner_best[:, o], d)
        lut = np.asarray(owner_of, np.int8)[arg]
        lut[best > 1.0] = UNKNOWN
        self.lut = lut.reshape(n, n, n)
        # how well each owner's learned colours explain a cell (1 on a prototype, 0.37 at the
        # unknown limit): the per-table colour evidence the learned classifier reads
        self.affinity_lut = np.round(255 * np.exp(-np.minimum(owner_best, 8.0) ** 2)).astype(np.uint8).reshape(
            n, n, n, len(self.owners))
        # a colour nearly as close to a second player colour (a violet that leans blue): which of
        # the two is decided by the pixel's neighbours (see ``resolve_ambiguous``)
        second = np.sort(owner_best, axis=1)[:, 1] if len(self.owners) > 1 else np.full(len(cells), np.inf)
        amb = (best <= 1.0) & (second < AMBIGUOUS_RATIO * best)
        if "neutral" in self.owners:
            amb &= lut != self.owners.index("neutral")
        self.ambiguous_lut = amb.reshape(n, n, n)
        self.neutral = self.owners.index("neutral") if "neutral" in self.owners else None
        self._lut_flat = self.lut.reshape(-1)
        self._ambiguous_flat = self.ambiguous_lut.reshape(-1)
        self._affinity_flat = self.affinity_lut.reshape(-1, len(self.owners))
        self._affinity_words = _as_words(self._affinity_flat)
        # player colours darker than the foreground's "dark" test and with little chroma to be found
        # by (a near-black army): their pieces are found by darkness, as a neutral black piece
        board_l = float(np.median(cv2.cvtColor(model.reference, cv2.COLOR_BGR2LAB)[::4, ::4, 0]))
        self.grey = tuple(i for i, o in enumerate(self.owners) if o != "neutral"
                          and float(np.median(model.colours[o][:, 0])) < DARK_RATIO * board_l
                          and float(np.median(np.abs(model.colours[o][:, 1:] - 128.0).sum(axis=1))) < GREY_CHROMA)

    def affinity(self, lab: np.ndarray) -> np.ndarray:
        """Per pixel and owner (``owners`` order), how well that owner's learned colours explain
        the pixel, 0-255 (uint8, shape ``lab.shape[:2] + (len(owners),)``)."""
        idx = lut_index(lab)
        if self._affinity_words is None:
            return self._affinity_flat[idx]
        # one 8-byte word per cell gathered (several times faster than rows of bytes), its bytes are the row's
        return self._affinity_words[idx].view(np.uint8).reshape(idx.shape + (8,))[..., :len(self.owners)]

    def classify(self, lab: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Owner index per pixel (``UNKNOWN`` where unknown, -2 where not foreground); pixels
        between two colours take the colour of the nearest unambiguous pixel. Only the ``mask``
        pixels are looked up (most of a board is bare)."""
        # the mask's pixels found once and addressed by their flat index (a boolean mask is scanned
        # whole at each use: three times here)
        at = np.flatnonzero(mask)
        out = np.full(mask.shape, -2, np.int16)
        idx = lut_index(np.take(lab.reshape(-1, lab.shape[-1]), at, axis=0))  # (rows by take: 4x fancy indexing's speed)
        out.reshape(-1)[at] = self._lut_flat[idx]
        amb_px = self._ambiguous_flat[idx]
        if not amb_px.any():
            return out
        amb = np.zeros(mask.shape, bool)
        amb.reshape(-1)[at] = amb_px
        return resolve_ambiguous(out, amb, in_place=True)


def _as_words(table: np.ndarray) -> np.ndarray | None:
    """A (cells, k) uint8 table as one uint64 per cell, each row's bytes first and zeros after (k <= 8),
    so that gathering cells moves one word each; None for more than 8 columns."""
    if table.shape[1] > 8:
        return None
    padded = np.zeros((table.shape[0], 8), np.uint8)
    padded[:, :table.shape[1]] = table
    return padded.view(np.uint64).reshape(-1)


def lut_index(lab: np.ndarray) -> np.ndarray:
    """The flat lookup-table cell of each Lab value (any shape ending in 3): one index array
    instead of three, which numpy gathers several times faster."""
    # 8-bit Lab (``ForegroundMaps.lab8``) is already what clipping and rounding down would give
    q = (lab if lab.dtype == np.uint8 else np.clip(lab, 0, 255).astype(np.uint8)) >> Q_SHIFT
    n = 256 // Q
    return (q[..., 0].astype(np.intp) * n + q[..., 1]) * n + q[..., 2]


def resolve_ambiguous(labels: np.ndarray, ambiguous: np.ndarray, reach_px: float = 3.0, *,
                      in_place: bool = False) -> np.ndarray:
    """Give each ambiguous pixel the colour of the nearest sure pixel of a colour, if one is
    within ``reach_px``: a piece is one colour, so its doubtful pixels follow its sure ones.
    ``in_place``: ``labels`` itself is changed and returned (the caller's own array), not a copy.

    The distances are taken around each cluster of ambiguous pixels (``blobs.clusters``: the rims of a
    few pieces), the box of its pixels (``_pixels_box``) grown by ``_reach_margin``, not over the whole
    board: OpenCV's labelled distance transform steps at most 2 px at a time and at least 1 in distance,
    so a distance within ``reach_px``, and the sure pixel it comes from, is found through pixels no farther
    than twice that, all inside the grown box; what lies beyond only ever gives more."""
    sure = (labels >= 0) & ~ambiguous
    if not sure.any():
        return labels
    out = labels if in_place else labels.copy()  # (only ambiguous pixels are written, never the sure ones read)
    m = _reach_margin(reach_px)
    h, w = labels.shape
    src = cv2.compare(sure.view(np.uint8), 0, cv2.CMP_EQ)  # 0 on a sure pixel, 255 elsewhere
    for cells in clusters(ambiguous):
        cx0, cy0, cx1, cy1 = _pixels_box(ambiguous, cells)
        x0, y0, x1, y1 = max(0, cx0 - m), max(0, cy0 - m), min(w, cx1 + m), min(h, cy1 + m)
        box_sure = sure[y0:y1, x0:x1]
        if not box_sure.any():
            continue  # no colour within reach of this cluster
        dist, idx = cv2.distanceTransformWithLabels(src[y0:y1, x0:x1], cv2.DIST_L2, 3,
                                                    labelType=cv2.DIST_LABEL_PIXEL)
        owners = np.concatenate([[-2], labels[y0:y1, x0:x1][box_sure]]).astype(np.int16)  # zero pixels in raster order
        # the cluster's own box only: all its pixels may reach lies inside the grown one
        core = (slice(cy0 - y0, cy1 - y0), slice(cx0 - x0, cx1 - x0))
        take = ambiguous[cy0:cy1, cx0:cx1] & (dist[core] <= reach_px)
        out[cy0:cy1, cx0:cx1][take] = owners[idx[core][take]]
    return out


def _pixels_box(mask: np.ndarray, box: tuple[int, int, int, int]) -> tuple[int, int, int, int]:
    """The bounding box (x0, y0, x1, y1) of ``mask``'s pixels inside ``box`` (which holds at least one): a
    cluster's whole cells reach up to 7 px past its pixels on each side, board the distances need not cover."""
    x0, y0, x1, y1 = box
    x, y, w, h = cv2.boundingRect(mask[y0:y1, x0:x1].view(np.uint8))
    return x0 + x, y0 + y, x0 + x + w, y0 + y + h


def _reach_margin(reach_px: float) -> int:
    """How far beyond the ambiguous pixels ``resolve_ambiguous`` looks: a path of distance ``reach_px``
    takes at most that many steps of the 5x5 mask (each at least 1, at most 2 px), and one more for safety."""
    return 2 * int(math.ceil(reach_px)) + 2

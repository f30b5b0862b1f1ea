"""How many pieces a colour's blobs hold, from their shape: the peaks of the distance transform.

Pieces of one colour side by side merge into one blob, and their area alone says little about
how many there are (in a heap they hide each other's sides). But each piece keeps a core a
good part of its width from the blob's edge, and the cores of two pieces are apart by about a
piece's width: the local maxima of the distance to the blob's edge, at least a quarter of the
smallest piece's width deep and that far apart, count the pieces. The count is a hint for the
area explanation (``piece_sets``), not a reading on its own: a leaning tall piece can show two.
"""

from __future__ import annotations

from collections import Counter
from typing import Callable

import cv2
import numpy as np

CORE_SHARE = 0.25  # of the smallest piece's width: how deep a core lies inside its blob
APART_SHARE = 0.42  # ... and how far apart two cores are at least (a radius, as a share of that width)


class PeakCounter:
    """Counts piece cores per space for one owner's pixels. ``space_at(x_px, y_px)``: the space
    index a core at that board pixel belongs to (-1: none)."""

    def __init__(self, piece_width_mm: float, px_per_mm: float):
        self.depth = CORE_SHARE * piece_width_mm * px_per_mm
        r = max(1, int(round(APART_SHARE * piece_width_mm * px_per_mm)))
        self.kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * r + 1, 2 * r + 1))
        self.open = np.ones((3, 3), np.uint8)

    def count(self, mask: np.ndarray, space_at: Callable[[float, float], int]) -> Counter:
        """Cores per space index in the bool ``mask`` (one owner's pixels)."""
        bx, by, bw, bh = cv2.boundingRect(mask.view(np.uint8) if mask.dtype == bool else mask.astype(np.uint8))
        if not bw:
            return Counter()
        pad = self.kernel.shape[0]  # only the part of the board with pixels of this owner (a partial read's crop)
        h, w = mask.shape
        x0, y0 = max(0, bx - pad), max(0, by - pad)
        x1, y1 = min(w, bx + bw + pad), min(h, by + bh + pad)
        m = cv2.morphologyEx(mask[y0:y1, x0:x1].astype(np.uint8), cv2.MORPH_OPEN, self.open)
        if not m.any():
            return Counter()
        dt = cv2.distanceTransform(m, cv2.DIST_L2, 5)
        peaks = (dt >= self.depth) & (dt >= cv2.dilate(dt, self.kernel) - 1e-3)
        n, _, _, cents = cv2.connectedComponentsWithStats(peaks.astype(np.uint8), connectivity=8)  # a plateau is one core
        out: Counter = Counter()
        for j in range(1, n):
            sp = space_at(float(cents[j][0]) + x0, float(cents[j][1]) + y0)
            if sp >= 0:
                out[sp] += 1
        return out

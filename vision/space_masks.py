"""Where each space lies in board pixels, made once per reader (``TableReader``'s set-up): each space's
outline grown a little (the pieces on it), grown by how far its pieces lean (heaps, for the hand
test), and which space each board pixel belongs to."""

from __future__ import annotations

import cv2
import numpy as np

from vision.layout import Layout, SpaceShape

SPACE_MARGIN_MM = 8.0  # a piece this far outside its space's outline still belongs to it
LEAN_PER_HEIGHT = 0.8  # a piece's top shows up to this share of its height away from its foot (oblique views)

Box = tuple[int, int, int, int]


def heap_zones(layout: Layout, s: float, w: int, h: int) -> list[tuple[Box, np.ndarray]]:
    """Where a heap of pieces on a space that holds heaps can show: the space grown by how far
    its tallest held piece leans in an oblique view (for the hand test)."""
    out = []
    for sp in layout.spaces:
        if layout.heap_kinds(sp):
            tallest = max(layout.pieces[k].height for k in layout.held_kinds(sp))
            out.append(grown_mask(sp, LEAN_PER_HEIGHT * tallest + 4.0, s, w, h))
    return out


def space_masks(layout: Layout, s: float, w: int, h: int) -> list[tuple[Box, np.ndarray]]:
    return [grown_mask(sp, 4.0, s, w, h) for sp in layout.spaces]


def grown_mask(sp: SpaceShape, grow_mm: float, s: float, w: int, h: int) -> tuple[Box, np.ndarray]:
    """A space's outline grown by ``grow_mm``, as (bbox, mask) in board pixels (``s`` of them a mm)."""
    g = int(round(grow_mm * s))
    poly = np.asarray(sp.polygon) * s
    x0, y0 = np.floor(poly.min(axis=0)).astype(int) - g
    x1, y1 = np.ceil(poly.max(axis=0)).astype(int) + g + 1
    x0, y0, x1, y1 = max(0, x0), max(0, y0), min(w, x1), min(h, y1)
    m = np.zeros((y1 - y0, x1 - x0), np.uint8)
    cv2.fillPoly(m, [np.round((poly - [x0, y0])).astype(np.int32)], 1)
    m = cv2.dilate(m, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * g + 1, 2 * g + 1)))
    return (x0, y0, x1, y1), m


def space_map(layout: Layout, s: float, w: int, h: int) -> np.ndarray:
    """Each board pixel's space index (int16; -1: none), the nearest within ``SPACE_MARGIN_MM``. Each
    space's distances are taken in its box grown past that margin only, the same numbers as over the whole
    board (a pixel's nearest outline pixel is reached without leaving the box round both) at a fraction
    of the cost (Cheops' 85 spaces: ~5 ms each over the whole board). A pixel as far from two spaces (to
    1/1000 mm) is the first one's."""
    lab = np.full((h, w), -1, np.int16)
    dist = np.full((h, w), np.inf, np.float32)
    # the chamfer steps of DIST_L2 with a 3x3 mask are shorter than a pixel (0.955): reach a little further
    reach = int(np.ceil(SPACE_MARGIN_MM * s / 0.95)) + 2
    for i, sp in enumerate(layout.spaces):
        poly = np.round(np.asarray(sp.polygon) * s).astype(np.int32)
        x0, y0 = np.maximum(poly.min(axis=0) - reach, 0)
        x1, y1 = np.minimum(poly.max(axis=0) + reach + 1, (w, h))
        if x1 <= x0 or y1 <= y0:
            continue
        m = np.ones((y1 - y0, x1 - x0), np.uint8)
        cv2.fillPoly(m, [poly - (x0, y0)], 0)
        # rounded: OpenCV's float distances differ in the last bit between a box and the whole board, and a pixel
        # as far from two spaces goes to the first of them, not to whichever that bit favours
        d = np.round(cv2.distanceTransform(m, cv2.DIST_L2, 3) / s, 3)
        box_lab, box_dist = lab[y0:y1, x0:x1], dist[y0:y1, x0:x1]
        better = (d <= SPACE_MARGIN_MM) & (d < box_dist)
        box_lab[better] = i
        box_dist[better] = d[better]
    return lab

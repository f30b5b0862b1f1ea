"""Connected blobs of a mask, computed only inside the mask's bounding box (one colour's pieces
usually cover a small part of the board: this keeps the per-colour passes cheap)."""

from __future__ import annotations

import cv2
import numpy as np


def stats_components(mask: np.ndarray) -> tuple[int, np.ndarray, np.ndarray, np.ndarray]:
    """``cv2.connectedComponentsWithStats(mask, connectivity=8)``: the same labels, stats and centroids,
    by the block-based algorithm (BBDT, ``CCL_GRANA``) instead of OpenCV's default for 8-connectivity
    (Spaghetti, which numbers the blobs the same way), as that one gathers the stats about three times
    slower (a 610x540 board: 2.0 ms against 0.7)."""
    return cv2.connectedComponentsWithStatsWithAlgorithm(mask, 8, cv2.CV_32S, cv2.CCL_GRANA)


def components(mask: np.ndarray) -> tuple[int, np.ndarray, np.ndarray, np.ndarray]:
    """Like ``cv2.connectedComponentsWithStats(mask, connectivity=8)`` on the whole image."""
    m = mask.astype(np.uint8, copy=False)
    x, y, w, h = cv2.boundingRect(m)
    lbl = np.zeros(m.shape, np.int32)
    if w == 0 or h == 0:
        return 1, lbl, np.zeros((1, 5), np.int32), np.zeros((1, 2))
    n, sub, stats, cents = stats_components(m[y:y + h, x:x + w])
    lbl[y:y + h, x:x + w] = sub
    stats = stats.copy()
    stats[:, 0] += x
    stats[:, 1] += y
    return n, lbl, stats, cents + [x, y]


def dilated(mask: np.ndarray, kernel: np.ndarray) -> np.ndarray:
    """``cv2.dilate(mask, kernel)`` (uint8; ``kernel`` of odd sides, anchored at its centre) computed over
    the bounding box of ``mask`` grown by the kernel's reach alone: nothing beyond it is reached, and
    what lies beyond the box inside it is empty, as the crop's border is to OpenCV. A hand covers a
    part of the board; its dilations by a finger's reach cost 2-9 ms each over the whole board."""
    m = mask.view(np.uint8) if mask.dtype == bool else mask.astype(np.uint8, copy=False)
    out = np.zeros(m.shape, np.uint8)
    x, y, w, h = cv2.boundingRect(m)
    if w == 0 or h == 0:
        return out
    ry, rx = kernel.shape[0] // 2, kernel.shape[1] // 2
    x0, y0 = max(0, x - rx), max(0, y - ry)
    x1, y1 = min(m.shape[1], x + w + rx), min(m.shape[0], y + h + ry)
    out[y0:y1, x0:x1] = cv2.dilate(m[y0:y1, x0:x1], kernel)
    return out


def dilated_in(mask: np.ndarray, kernel: np.ndarray, box: tuple[int, int, int, int]) -> np.ndarray:
    """``dilated(mask, kernel)[y0:y1, x0:x1]`` for ``box`` (x0, y0, x1, y1): only the part of ``mask`` the
    kernel reaches into the box from is dilated (a hand grown by 45 mm, asked about a few blobs only)."""
    x0, y0, x1, y1 = box
    ry, rx = kernel.shape[0] // 2, kernel.shape[1] // 2
    h, w = mask.shape[:2]
    gx0, gy0, gx1, gy1 = max(0, x0 - rx), max(0, y0 - ry), min(w, x1 + rx), min(h, y1 + ry)
    grown = dilated(mask[gy0:gy1, gx0:gx1], kernel)
    return grown[y0 - gy0:y1 - gy0, x0 - gx0:x1 - gx0]


CLUSTER_CELL = 8  # px: ``clusters`` groups a mask's pixels by cells this big


def clusters(mask: np.ndarray, cell: int = CLUSTER_CELL) -> list[tuple[int, int, int, int]]:
    """Boxes (x0, y0, x1, y1) together holding every pixel of ``mask`` (bool): its pixels grouped by
    ``cell``-px cells, cells that touch (8-neighbours) in one box. Scattered pixels (the rims of a few
    pieces) then make a few small boxes, where work done around them (``colour_classes.resolve_ambiguous``,
    ``OcclusionFinder._near_pieces``) covers far less of the board than the one box of them all."""
    h, w = mask.shape
    gh, gw = -(-h // cell), -(-w // cell)
    u8 = cv2.compare(mask.view(np.uint8), 0, cv2.CMP_GT)  # 255 where set
    padded = cv2.copyMakeBorder(u8, 0, gh * cell - h, 0, gw * cell - w, cv2.BORDER_CONSTANT, value=0)
    # each cell's mean: one pixel of 255 in it is at least 255 / cell**2 (> 0.5 up to 16 px cells), so above 0
    cells = (cv2.resize(padded, (gw, gh), interpolation=cv2.INTER_AREA) > 0).view(np.uint8)
    _, _, stats, _ = stats_components(cells)
    return [(x * cell, y * cell, min(w, (x + bw) * cell), min(h, (y + bh) * cell))
            for x, y, bw, bh in stats[1:, :4].tolist()]


def members(lbl: np.ndarray, ids: np.ndarray, n: int) -> np.ndarray:
    """``np.isin(lbl, ids)`` for a label image with labels below ``n``: one lookup in a table of the labels
    (isin sorted the whole board's labels: some 3 ms a call, several a frame with a hand)."""
    table = np.zeros(n, bool)
    table[ids] = True
    return table[lbl]

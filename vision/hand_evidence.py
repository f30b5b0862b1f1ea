"""What the hand test weighs on a board whose pieces are read by their look (Cheops' tiles and
scarabs, ``vision.appearance``): the foreground evidence with what those pieces explain taken out.
Split from ``vision.appearance``, which reads the pieces; this decides what of the rest is evidence.
"""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np

from vision.blobs import stats_components
from vision.foreground import ForegroundMaps

LOST_REACH_MM = 10.0  # lost print counts this near unexplained colour ...
LOST_EDGE_MM = 20.0  # ... or when it reaches this near the board's edge


def masked(maps: ForegroundMaps, labels: np.ndarray, lost: np.ndarray, explained: np.ndarray,
           arm: np.ndarray | None = None, px_per_mm: float = 1.0) -> tuple[ForegroundMaps, np.ndarray, np.ndarray]:
    """The foreground maps, colour labels and lost print with the explained pixels taken out:
    what the hand test should weigh. ``arm``: an arm the colour of the board (``vision.pale_arm``),
    weighed as unknown colour."""
    keep = ~explained
    maps = replace(maps, piece=maps.piece & keep, strict=maps.strict & keep, seeds=maps.seeds & keep,
                   dark=maps.dark & keep, weak=maps.weak & keep, weak_chroma=maps.weak_chroma & keep)
    # every piece of these spaces is read by its look: a colour no piece read explains is unknown
    # (a hand's skin can be near a tile's print colours, which the neutral colour classes learned)
    labels = np.where(explained, np.int16(-2), np.where(labels >= 0, np.int16(-1), labels))
    if arm is not None:
        labels[arm & keep] = -1
    # print lost far from any colour a piece does not explain is blur taking the board's thin
    # print (labels, outlines), not a hand: a hand shows its own colour somewhere near, or its arm
    # comes in over the board's edge (an arm the colour of the board loses print there too)
    colour = ((labels == -1) | maps.weak_chroma).astype(np.uint8)
    reach = max(1, int(round(LOST_REACH_MM * px_per_mm)))
    near = cv2.dilate(colour, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * reach + 1,) * 2)) > 0
    lost = lost & keep
    n, lbl, stats, _ = stats_components(lost.astype(np.uint8))
    h, w = lost.shape
    e = int(round(LOST_EDGE_MM * px_per_mm))
    at_edge = np.zeros(n, bool)
    if n > 1:
        x0, y0 = stats[:, cv2.CC_STAT_LEFT], stats[:, cv2.CC_STAT_TOP]
        x1, y1 = x0 + stats[:, cv2.CC_STAT_WIDTH], y0 + stats[:, cv2.CC_STAT_HEIGHT]
        at_edge = (x0 <= e) | (y0 <= e) | (x1 >= w - e) | (y1 >= h - e)
        at_edge[0] = False
    return maps, labels, lost & (near | at_edge[lbl])

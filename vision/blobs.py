"""Connected blobs of a mask, computed only inside the mask's bounding box (one colour's pieces
usually cover a small part of the board: this keeps the per-colour passes cheap)."""

from __future__ import annotations

import cv2
import numpy as np


def components(mask: np.ndarray) -> tuple[int, np.ndarray, np.ndarray, np.ndarray]:
    """Like ``cv2.connectedComponentsWithStats(mask, connectivity=8)`` on the whole image."""
    m = mask.astype(np.uint8, copy=False)
    x, y, w, h = cv2.boundingRect(m)
    lbl = np.zeros(m.shape, np.int32)
    if w == 0 or h == 0:
        return 1, lbl, np.zeros((1, 5), np.int32), np.zeros((1, 2))
    n, sub, stats, cents = cv2.connectedComponentsWithStats(m[y:y + h, x:x + w], connectivity=8)
    lbl[y:y + h, x:x + w] = sub
    stats = stats.copy()
    stats[:, 0] += x
    stats[:, 1] += y
    return n, lbl, stats, cents + [x, y]

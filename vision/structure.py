"""Has the board's print vanished somewhere? A hand as pale as the board hides its lines.

Per 8-px block, the gradient energy of the frame is compared with the empty board's, after
taking off each image's noise floor (the energy of blocks without print) and relative to the
frame's own typical ratio (so blur, focus and noise level cancel out). Blocks with print whose
energy dropped far below the frame's typical ratio have lost their print.
"""

from __future__ import annotations

import cv2
import numpy as np

BLOCK = 8
PRINT_FACTOR = 3.0  # a block "has print" when its energy is this many times the plain blocks'
LOST_RATIO = 0.35  # of the frame's median ratio: print this much fainter is hidden


def _energy(l: np.ndarray, small: tuple[int, int]) -> np.ndarray:
    gx = cv2.Sobel(l, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(l, cv2.CV_32F, 0, 1, ksize=3)
    return cv2.resize(np.abs(gx) + np.abs(gy), small, interpolation=cv2.INTER_AREA)


class PrintWatcher:
    def __init__(self, reference_l: np.ndarray):
        h, w = reference_l.shape
        self.size = (w, h)
        self.small = (max(1, w // BLOCK), max(1, h // BLOCK))
        e = _energy(cv2.GaussianBlur(reference_l, (0, 0), 1.0), self.small)
        floor = float(np.percentile(e, 30))
        self.has_print = e > PRINT_FACTOR * max(floor, 1e-3)
        self.ref = np.maximum(e - floor, 1e-3)

    def lost(self, frame_l: np.ndarray) -> np.ndarray:
        """Blocks whose print vanished, as a full-size bool mask."""
        if not self.has_print.any():
            return np.zeros((self.size[1], self.size[0]), bool)
        e = _energy(cv2.GaussianBlur(frame_l, (0, 0), 1.0), self.small)
        plain = e[~self.has_print]
        floor = float(np.percentile(plain, 50)) if plain.size else 0.0
        ratio = np.maximum(e - floor, 0.0) / self.ref
        typical = float(np.median(ratio[self.has_print]))
        lost = (self.has_print & (ratio < LOST_RATIO * typical)).astype(np.uint8)
        return cv2.resize(lost, self.size, interpolation=cv2.INTER_NEAREST) > 0

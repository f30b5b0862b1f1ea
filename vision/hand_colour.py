"""The colour of the hand in a frame, as the frame itself shows it: what a blob beside the hand must
be like to be taken for its skin rather than a piece (``AppearanceRead.touching``). Skin tones differ from
hand to hand and light to light; no colour of skin is assumed here."""

from __future__ import annotations

import cv2
import numpy as np

from vision.colour_classes import lab_norm

SKIN_INSIDE_MM = 3.0  # the hand's colour is measured on its mask shrunk by this (its margin, its blurred edge) ...
SKIN_MIN_MM2 = 50.0  # ... when at least this much of it is left


def skin_colour(hand: np.ndarray, explained: np.ndarray, lab: np.ndarray, px_per_mm: float) -> np.ndarray | None:
    """The hand's colour in this frame (Lab): the median of its inside (the mask shrunk by its margin,
    ``SKIN_INSIDE_MM``) that no piece read explains; None when too little of it is left (``SKIN_MIN_MM2``)."""
    k = max(1, int(round(SKIN_INSIDE_MM * px_per_mm)))
    inside = (cv2.erode(hand.view(np.uint8), np.ones((2 * k + 1, 2 * k + 1), np.uint8)) > 0) & ~explained
    if inside.sum() < SKIN_MIN_MM2 * px_per_mm ** 2:
        return None
    return np.median(np.asarray(lab, np.float32)[inside], axis=0)


def lab_distance(a: np.ndarray, b: np.ndarray) -> float:
    """Colour distance in Lab, lightness weighed less (``lab_norm``: shading moves a colour along L)."""
    return float(lab_norm(np.asarray(a, np.float32) - np.asarray(b, np.float32)))

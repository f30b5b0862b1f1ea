"""Tiles seen but not told apart are no hand by themselves (Cheops' laws in a blurred frame).

A tile whose face is not matched sure (``vision.appearance``: the space covered, which tile not sure)
is left unread, and its pixels stay evidence for the hand test (a hand over a tile looks the same
to the face match: a face score does not separate them, photoreal Cheops tune: 77 of 626 spaces
under a hand scored 0.55 or more, 78 of 144 unmatched tiles). Several such tiles side by side made
an "inner hand" of three pieces or more, and its margin hid every space round them: in the photoreal
Cheops tuning sets most false flags of frames without a hand (cheops12 t00-002..004: 94), and many in
frames whose hand lies elsewhere. A hand is not shaped like tiles: an evidence region that lies
mostly (``TILE_SHARE``) inside such tiles' outlines, and does not reach in over the board's edge, is
no hand by this test; the tiles stay unread. Near a hand found otherwise (``TILE_NEAR_MM``) it still
is one: an arm lying over the pyramid covers whole tiles, which the face match leaves unread too
(own render-set cheops seed 7401 t1-0076: its forearm's far part, over the pyramid's edge, was read
through when its covered squares were taken for tiles).
"""

from __future__ import annotations

import cv2
import numpy as np

TILE_SHARE = 0.75  # of a region's unexplained evidence inside unread tiles' outlines: tiles, not a hand
TILE_NEAR_MM = 50.0  # ... unless a hand found otherwise comes this near


def inside_tiles(lbl: np.ndarray, n: int, unexplained: np.ndarray, seen: np.ndarray,
                 tiles: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per region of ``lbl`` (``n`` labels): its unexplained pixels (``unexplained``, bool) inside
    ``tiles`` (bool, board px: unread tiles' outlines), and of them those seen (``seen``: colour or
    difference, not print lost alone)."""
    inside = unexplained & tiles
    return (np.bincount(lbl[inside], minlength=n).astype(np.float64),
            np.bincount(lbl[inside & seen], minlength=n).astype(np.float64))


def near_a_hand(lbl: np.ndarray, n: int, candidates: np.ndarray, is_hand: np.ndarray, px_per_mm: float) -> np.ndarray:
    """Which of the regions ``candidates`` (bool per label) come within ``TILE_NEAR_MM`` of a region
    ``is_hand`` marks (bool per label)."""
    out = np.zeros(n, bool)
    if not candidates.any() or not is_hand.any():
        return out
    r = max(1, int(round(TILE_NEAR_MM * px_per_mm)))
    reach = cv2.dilate(is_hand[lbl].astype(np.uint8), cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * r + 1,) * 2)) > 0
    out[np.unique(lbl[reach])] = True
    return out & candidates

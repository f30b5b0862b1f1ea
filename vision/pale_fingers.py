"""A hand's pale fingers: bare board joined to a hand found, whose colour lies nearer the hand's than the board's.

The hand test (``vision.occlusion``) finds a hand by evidence pixel by pixel; a pale finger over a pale
board may show none (a noisy frame). Averaged over a window, its colour still lies nearer the hand's own
than the empty board's: that is part of the hand.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.blobs import dilated, members

# a pale finger over a pale board differs from it by a few units of chroma per pixel, under a noisy frame's
# weak threshold: it was read through (photoreal-train tune t01-010, zhao-1 under a fingertip some 25 mm beyond
# the palm found). Averaged over a window, bare board only, a colour nearer the hand's own than the empty
# board's is the hand (the test compares two colours; the frame's noise moves both alike and averages away)
HAND_LIKE_MM = 7.0  # the window (a finger is 10-15 mm wide)
HAND_LIKE = 3.0  # Lab units the window's mean lies past the midpoint from the board's colour towards the hand's
HAND_CONTRAST = 4.0  # Lab (a, b): where the hand's colour is nearer the board's than this, it cannot be told
HAND_LIKE_BARE = 0.3  # of a window: at least this much bare board (no piece near), else it is not weighed
# a fingertip over a pale board blurs into it: its colour lies only a little past the midpoint (ming render-set
# seed 1345 t1-0008: half a unit on average, the fingertips 13 mm beyond the hand and its margin, over a province
# space that was read). Within a finger's length of the hand, a little nearer the hand's colour than the board's
# is enough (bare board there averages half the contrast the other way)
FINGER_REACH_MM = 25.0
HAND_NEARER = 0.5  # Lab units past the midpoint, within FINGER_REACH_MM of the hand (0.0: 1 more false flag on
                   # each china-a set)


class PaleFingers:
    """``find``: the pale fingers joined to a hand, from the empty board in Lab (``reference_lab``,
    ``Foreground.ref``; None: never looked for)."""

    def __init__(self, reference_lab: np.ndarray | None, px_per_mm: float, piece_px: float, marker_print: np.ndarray):
        self.ref_ab = None if reference_lab is None else np.ascontiguousarray(reference_lab[..., 1:], np.float32)
        # ... and its two planes apart (``towards``)
        self.ref_a, self.ref_b = (None, None) if self.ref_ab is None else \
            (np.ascontiguousarray(self.ref_ab[..., 0]), np.ascontiguousarray(self.ref_ab[..., 1]))
        k = max(3, int(round(HAND_LIKE_MM * px_per_mm)) | 1)
        self.hand_like_window = (k, k)
        f = max(1, int(round(FINGER_REACH_MM * px_per_mm)))
        self.finger_reach = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * f + 1, 2 * f + 1))
        self.piece_px = piece_px
        self.marker_print = marker_print  # bool, board px: the corner markers' print (no colour of a hand)

    def towards(self, lab: np.ndarray, h: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Per pixel: how far the hand's colour ``h`` (a, b) lies from the empty board's (``contrast``), and how
        far the pixel's (a, b) in ``lab`` lies along that line past their midpoint (``along``), Lab units.
        Computed a channel at a time, the same operations in the same order as on the (h, w, 2) arrays it
        was written with: numpy's loops over a last axis of two cost ten to twenty times more."""
        da, db = h[0] - self.ref_a, h[1] - self.ref_b
        contrast = np.sqrt(da * da + db * db)
        along = ((lab[..., 1] - self.ref_a) * da + (lab[..., 2] - self.ref_b) * db - contrast * contrast / 2) / \
            np.maximum(contrast, 1e-3)
        return contrast, along

    def find(self, lab: np.ndarray, hand: np.ndarray, near_piece: np.ndarray) -> np.ndarray | None:
        """Bare board joined to ``hand`` (bool, board px, with its margin) whose colour, averaged over
        ``HAND_LIKE_MM``, is nearer the hand's (the median a, b of its bare pixels, the corner markers'
        print left out) than the empty board's there: its pale fingers. Per pixel: how far its (a, b)
        lies along the line from the board's colour ``r`` to the hand's ``h``, past their midpoint (Lab
        units); the window's mean of that must exceed ``HAND_LIKE``, or ``HAND_NEARER`` within
        ``FINGER_REACH_MM`` of the hand (a fingertip blurred into the board). None: nothing (no
        reference, too little hand to take its colour)."""
        if self.ref_ab is None or lab.shape[:2] != self.ref_ab.shape[:2]:
            return None
        bare = ~near_piece
        # a covered corner marker (black and white print) joined to the hand is no colour of its skin: it
        # pulled the hand's colour to grey and a tan arm over a beige board went unfound (ming render-set seed
        # 1345 t2-0027: 19501 px of the hand's 26388 missed, p4d1-city read under a fingertip)
        core = hand & bare & ~self.marker_print
        if core.sum() < self.piece_px:
            return None
        ab = lab[..., 1:]
        h = np.median(ab[core], axis=0).astype(np.float32)
        contrast, along = self.towards(lab, h)
        use = (bare & (contrast >= HAND_CONTRAST)).astype(np.float32)
        n = cv2.boxFilter(use, -1, self.hand_like_window, normalize=False)
        mean = cv2.boxFilter(along * use, -1, self.hand_like_window, normalize=False) / np.maximum(n, 1.0)
        area = self.hand_like_window[0] * self.hand_like_window[1]
        near_hand = dilated(hand, self.finger_reach) > 0
        like = (((mean > HAND_LIKE) | ((mean > HAND_NEARER) & near_hand)) & (n >= HAND_LIKE_BARE * area)).astype(np.uint8)
        n_like, lbl = cv2.connectedComponents(like, connectivity=8)
        if n_like <= 1:
            return None
        joined = np.unique(lbl[hand & (like > 0)])
        joined = joined[joined > 0]
        if not joined.size:
            return None
        return members(lbl, joined, n_like) & ~hand

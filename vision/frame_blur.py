"""How much more blurred a frame is than the empty board it is compared with (focus, motion).

A printed piece is told by its face (``vision.faces``): a sharp face learned at enrolment
correlates poorly with the same tile seen out of focus, so a blurred frame's tiles went unmatched,
their spaces unread, and their print -- no piece read explains it -- made a hand of the lower rows
of Cheops' pyramid (photoreal-cheops2 tune t00-006: 49 spaces flagged in a frame without a hand;
face scores 0.45-0.62 against a sure match's 0.65). The corner markers are always on the board and
always printed the same: the Gaussian blur that makes the empty board's markers look most like the
frame's says how blurred the frame is, and a face not matched sure as enrolled is matched again
blurred as much (``match_either``). With it, and the blur round tiles read counted as theirs
(``vision.occlusion``), photoreal-cheops2 tune went from 81.2 % of the spaces right and 175 false
hand flags to 83.0 % and 122; nothing read through a hand on any tuning set.
"""

from __future__ import annotations

from typing import Sequence

import cv2
import numpy as np

from scorer.core.types import Piece
from vision.faces import FaceBook, FaceMatch

# px at the board's scale: the blurs tried. Measured on photoreal-cheops2 tune: sharp frames 0-1,
# most 1-3, the worst (t00-006, t03-004) 4-5 and more (the grid up to 7: one more space read there)
SIGMAS = (0.0, 0.7, 1.0, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 7.0)
MIN_FIT = 0.5  # correlation: a marker fitting worse than this at every blur is covered (a hand): not weighed


class BlurMeter:
    """Measures a frame's blur on fixed regions of the board (the corner markers and their margin)."""

    def __init__(self, reference: np.ndarray, regions: np.ndarray):
        """``reference``: the empty board (BGR, board px); ``regions``: bool, board px (the markers)."""
        ref = cv2.cvtColor(reference, cv2.COLOR_BGR2GRAY).astype(np.float32)
        n, lbl, stats, _ = cv2.connectedComponentsWithStats(regions.astype(np.uint8), connectivity=8)
        self.boxes = [tuple(int(v) for v in stats[j, :4]) for j in range(1, n)]
        # each region's reference at each blur, flattened: computed once, the frame is compared with all
        self.blurred = [np.stack([_blur(ref[y:y + h, x:x + w], s).ravel() for s in SIGMAS]) for x, y, w, h in self.boxes]
        self._last: tuple[np.ndarray, float] | None = None  # the last frame measured: asked twice in a read (faces, hands)

    def sigma(self, corrected: np.ndarray) -> float:
        """The frame's extra blur (px): per region, the one whose blurred reference correlates best
        with the frame (light and contrast do not matter); the median over the regions that fit at
        all. 0.0 when none does."""
        if self._last is not None and self._last[0] is corrected:
            return self._last[1]
        gray = cv2.cvtColor(corrected, cv2.COLOR_BGR2GRAY).astype(np.float32)
        found = []
        for (x, y, w, h), refs in zip(self.boxes, self.blurred):
            fits = _correlations(gray[y:y + h, x:x + w].ravel(), refs)
            if fits.max() >= MIN_FIT:
                found.append(SIGMAS[int(np.argmax(fits))])
        sigma = float(np.median(found)) if found else 0.0
        self._last = (corrected, sigma)
        return sigma


def books_for(book: FaceBook, sigma: float) -> list[FaceBook]:
    """The faces as enrolled and, in a frame ``sigma`` px more blurred, as blurred as it."""
    blurred = book.blurred(sigma)
    return [book] if blurred is book else [book, blurred]


def match_either(books: list[FaceBook], corrected: np.ndarray, centre_mm: Sequence[float],
                 candidates: Sequence[Piece]) -> tuple[FaceBook, FaceMatch]:
    """A face matched as enrolled (``books[0]``); when that is not sure, as blurred too (``books[1]``),
    and the better of the two kept, with the book that matched it. Not the blurred faces alone: a
    tile stands nearer the camera than the markers and may be sharper than they say (photoreal-cheops2
    tune t00-004, t00-007: laws sure as enrolled, not as blurred; 18 spaces lost)."""
    m = books[0].match(corrected, centre_mm, candidates)
    if m.piece is not None or len(books) == 1:
        return books[0], m
    again = books[1].match(corrected, centre_mm, candidates)
    return (books[1], again) if again.score > m.score else (books[0], m)


def _blur(img: np.ndarray, sigma: float) -> np.ndarray:
    return cv2.GaussianBlur(img, (0, 0), sigma) if sigma > 0 else img


def _correlations(a: np.ndarray, refs: np.ndarray) -> np.ndarray:
    """Pearson correlation of ``a`` with each row of ``refs``."""
    a = a - a.mean()
    r = refs - refs.mean(axis=1, keepdims=True)
    den = np.sqrt((a * a).sum() * (r * r).sum(axis=1))
    return (r @ a) / np.maximum(den, 1e-6)

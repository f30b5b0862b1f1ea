"""The board's pose from its corner markers' squares when their bits cannot be read.

A bumped camera smears a frame, or a far board blurs it: each marker's cells run together and no
marker is decoded, yet its black square in a white margin is still the sharpest, darkest thing at
the board's corner, and a hand seldom lies on all four corners. The print refinement
(``PoseRefiner``) matches the play area, which an arm across the board hides and which blur
flattens; the markers are neither. So, only when the usual ways failed, each marker's
neighbourhood in the empty board's photo (rectified, ``TableModel.reference``) is looked for in
the frame near where the known pose puts it (normalised correlation, the template blurred as the
frame may be), and the pose is corrected by the shifts of the markers found:

* at least ``MIN_MARKERS`` must be found, each with a clear peak (``MIN_PEAK``);
* the correction (a homography from four, an affine map from three) must be what a bump does to a
  mounted camera's view: board distances kept within ``MAX_STRETCH`` (a square seen elsewhere, a
  marker matched on the print, would stretch it); when four do not, any three that do.

Photoreal Cheops tune (data/vision/photoreal-cheops10, -8): frames smeared 6-13 px or blurred
at 0.5 px/mm whose markers were not decoded and whose print refinement failed.
"""

from __future__ import annotations

import itertools

import cv2
import numpy as np

from scorer.core.types import Message
from vision.layout import Layout

MARGIN_MM = 6.0  # of the board round each marker's black square kept in its template (the white margin)
SEARCH_MM = 110.0  # a marker is looked for this far from where the known pose puts it (a bump of 2° swings a board 2.9 m below by ~100 mm)
BLURS_MM = (0.0, 1.5, 3.0)  # the template blurred as a blurred or smeared frame shows it (σ, mm)
MIN_PEAK = 0.6  # normalised correlation of a marker's neighbourhood found in the frame
MIN_MARKERS = 3
MAX_STRETCH = 0.12  # a bump keeps the board's distances to this share (the correction's local scales)

SQUARES_MESSAGE = Message.t('vision.marker_squares.board_registered_from_marker_squares')


class MarkerSquares:
    """Finds a table's markers by their look in its empty board's photo (``reference_bgr``,
    rectified at ``px_per_mm``)."""

    def __init__(self, reference_bgr: np.ndarray, px_per_mm: float, layout: Layout):
        self.s = float(px_per_mm)
        gray = cv2.cvtColor(reference_bgr, cv2.COLOR_BGR2GRAY).astype(np.float32)
        self.half_mm = layout.marker_size / 2.0 + MARGIN_MM
        self.markers: list[tuple[np.ndarray, list[np.ndarray]]] = []
        h, w = gray.shape
        for m in layout.markers:
            c = np.asarray(m.centre, float)
            x0, y0 = np.round((c - self.half_mm) * self.s).astype(int)
            n = int(round(2 * self.half_mm * self.s))
            if x0 < 0 or y0 < 0 or x0 + n > w or y0 + n > h:
                continue  # a marker printed beyond the rectified board: not matched
            patch = gray[y0:y0 + n, x0:x0 + n]
            self.markers.append((c, [patch if b == 0 else cv2.GaussianBlur(patch, (0, 0), b * self.s)
                                     for b in BLURS_MM]))

    def _found(self, gray: np.ndarray, H0: np.ndarray, centre: np.ndarray, templates: list[np.ndarray]
               ) -> np.ndarray | None:
        """Where the marker's centre lies, in board mm by ``H0``; None when no clear peak (``MIN_PEAK``)."""
        reach = self.half_mm + SEARCH_MM
        n = int(round(2 * reach * self.s))
        # board mm -> region px: x' = (x - (centre - reach)) * s
        T = np.array([[self.s, 0, -(centre[0] - reach) * self.s], [0, self.s, -(centre[1] - reach) * self.s], [0, 0, 1.0]])
        region = cv2.warpPerspective(gray, H0 @ np.linalg.inv(T), (n, n),
                                     flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP, borderValue=0)
        region = region.astype(np.float32)
        best = None
        for t in templates:
            if t.shape[0] >= n:
                continue
            score = cv2.matchTemplate(region, t, cv2.TM_CCOEFF_NORMED)
            _, peak, _, loc = cv2.minMaxLoc(score)
            if best is None or peak > best[0]:
                best = (float(peak), loc, t.shape[0], subpixel_peak(score, loc))
        if best is None or best[0] < MIN_PEAK:
            return None
        _, (x, y), size, sub = best
        return (np.array([x, y], float) + sub + size / 2.0) / self.s + (centre - reach)

    def find(self, gray: np.ndarray, H0: np.ndarray) -> tuple[np.ndarray, int] | None:
        """The pose (board mm -> image px) the markers' squares give, and how many were found; None
        when too few are found or their shifts are not a bump's."""
        src, dst = [], []
        for centre, templates in self.markers:
            at = self._found(gray, H0, centre, templates)
            if at is not None:
                src.append(centre)
                dst.append(at)
        if len(src) < MIN_MARKERS:
            return None
        src_a, dst_a = np.float32(src), np.float32(dst)
        subsets = [list(range(len(src)))] if len(src) == 4 else []
        subsets += [list(k) for k in itertools.combinations(range(len(src)), 3)]  # one of four matched elsewhere
        for keep in subsets:
            C = _bump(src_a[keep], dst_a[keep])
            if C is not None:
                return H0 @ C, len(keep)
        return None


def subpixel_peak(score: np.ndarray, loc: tuple[int, int]) -> np.ndarray:
    """The offset (x, y) of a correlation map's peak from its best pixel ``loc``: a parabola through
    it and its two neighbours, per axis (also ``vision.tag_patterns``)."""
    x, y = loc
    h, w = score.shape
    out = np.zeros(2)
    if 0 < x < w - 1:
        out[0] = _vertex(score[y, x - 1], score[y, x], score[y, x + 1])
    if 0 < y < h - 1:
        out[1] = _vertex(score[y - 1, x], score[y, x], score[y + 1, x])
    return out


def _vertex(lo: float, mid: float, hi: float) -> float:
    den = lo - 2 * mid + hi
    return float(np.clip(0.5 * (lo - hi) / den, -0.5, 0.5)) if den < 0 else 0.0


def _bump(src: np.ndarray, dst: np.ndarray) -> np.ndarray | None:
    """The correction (3x3, board mm -> board mm) taking ``src`` to ``dst`` (four points: a
    homography; three: an affine map), when it is a bump's: distances kept within ``MAX_STRETCH``
    at each point (its local scales there)."""
    C = cv2.getPerspectiveTransform(src, dst) if len(src) == 4 else np.vstack([cv2.getAffineTransform(src, dst), [0, 0, 1.0]])
    for x, y in src:
        w = C[2, 0] * x + C[2, 1] * y + C[2, 2]
        if w <= 0:
            return None
        u = (C[0, 0] * x + C[0, 1] * y + C[0, 2]) / w
        v = (C[1, 0] * x + C[1, 1] * y + C[1, 2]) / w
        J = np.array([[C[0, 0] - u * C[2, 0], C[0, 1] - u * C[2, 1]],
                      [C[1, 0] - v * C[2, 0], C[1, 1] - v * C[2, 1]]]) / w
        sv = np.linalg.svd(J, compute_uv=False)
        if sv.max() > 1 + MAX_STRETCH or sv.min() < 1 - MAX_STRETCH:
            return None
    return C

"""The board's pose in a motion-blurred frame: no marker decoded, and the known pose not refined.

A bumped camera smears the frame: the corner markers' cells run together and none is decoded,
and the print's fine lines, which ``PoseRefiner`` matches, are gone (photoreal Ming tune: 3 of 16
frames, blur ~12 px, the board 4-31 px from where the enrolment photo had it). What is left is
the board's outline (a light board on a dark table, or the reverse) and the print's coarse
shapes. So, only after the usual refinement failed:

* the starts are the known pose and each outline of the board (``board_quads``) turned the way
  the known pose has the board, when its corners lie within a bump of the known pose's;
* from each, the print is matched on a coarser band than usual (``COARSE_SIGMA_PX``);
* the pose that lays the frame's coarse print best on the empty board's wins, and only when that
  correlation reaches ``MIN_ALIGNMENT``: a wrong pose lays print on paper (correlation ~0).
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.board_outline import board_quads
from vision.pose_refine import PoseRefiner

# band of the print matched in a blurred frame (rectified px, ~1 px/mm): on Ming tune σ 3 found
# the print of all three blurred frames (10-18 patches agreeing), σ 1 (the usual) and σ 2 of two
COARSE_SIGMA_PX = 3.0
# least correlation of the frame's coarse print with the empty board's. A wrong pose lays print on
# paper: the known pose of a camera bumped 16-31 px gave -0.03 and 0.05 on Ming tune. A pose slid
# several px along smeared lines still correlates 0.27-0.55: own Ming renders (seed 7100) smeared
# 9-21 px, of 21 poses found 7 were 4-10 px off at the board's edge, 5 of them under 0.4, and 1 of
# the 14 right ones (0.32). Ming tune's blurred frames: 0.30 (t00-004, so blurred that 54 of its 60
# spaces were flagged as under a hand: dropped), 0.47 and 0.77
MIN_ALIGNMENT = 0.4
# an outline farther than this share of the board's diagonal (in the frame) from the known pose
# is not a bump of a mounted camera (Ming tune's blurred frames: 1-5 %; the test's render: 7 %)
MAX_BUMP = 0.15


class BlurredPose:
    """Finds the pose of a blurred frame for one table (its empty board ``reference_bgr``)."""

    def __init__(self, reference_bgr: np.ndarray, px_per_mm: float, board_size: tuple[float, float]):
        self._reference = reference_bgr
        self._px_per_mm = px_per_mm
        self._coarse: PoseRefiner | None = None  # built at the first blurred frame
        w, h = board_size
        self._board = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float64)  # clockwise, as the quads

    @property
    def coarse(self) -> PoseRefiner:
        """The refiner on the coarse band: its template and patch centres cost ~40 ms, so built
        only when a frame needs it."""
        if self._coarse is None:
            self._coarse = PoseRefiner(self._reference, self._px_per_mm, detail_sigma=COARSE_SIGMA_PX)
        return self._coarse

    def starts(self, gray: np.ndarray, known: np.ndarray) -> list[np.ndarray]:
        """The known pose, then the board's outlines turned as the known pose has the board
        (the corners' order that lies closest to it), each within ``MAX_BUMP`` of it."""
        expected = cv2.perspectiveTransform(self._board.reshape(-1, 1, 2), known).reshape(4, 2)
        diagonal = float(np.linalg.norm(expected[2] - expected[0]))
        out = [known]
        for quad in board_quads(gray):
            turns = [np.roll(quad, -k, axis=0) for k in range(4)]
            far = [float(np.linalg.norm(t - expected, axis=1).max()) for t in turns]
            k = int(np.argmin(far))
            if far[k] <= MAX_BUMP * diagonal:
                out.append(cv2.getPerspectiveTransform(self._board.astype(np.float32), turns[k].astype(np.float32)))
        return out

    def find(self, gray: np.ndarray, known: np.ndarray) -> np.ndarray | None:
        """Board mm -> image homography of a blurred frame, or None (see the module's docstring).
        Only the coarse band is matched: the usual one has failed from the known pose, and from an
        outline it agrees on lines smeared into bands, on a pose slid along them (the test's render:
        11 patches agreeing, coarse print correlating 0.23 against the coarse band's 0.44)."""
        best: tuple[float, np.ndarray] | None = None
        for start in self.starts(gray, known):
            got = self.coarse.refine(gray, start)
            if got is None:
                continue
            score = self.coarse.alignment(gray, got[0])
            if best is None or score > best[0]:
                best = (score, got[0])
        if best is None or best[0] < MIN_ALIGNMENT:
            return None
        return best[1]

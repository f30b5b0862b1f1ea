"""The board's pose in a smeared frame: the print matched with the empty board smeared alike.

A camera bumped during the exposure smears the frame along a line. ``PoseRefiner`` matching the
sharp empty board then agrees on a pose slid along the smear: on the project's renders of three
boards (Ming, China, Cheops; seeds 11-13, 40 frames each), smeared 9-21 px, 69 of 101 print
registrations were 4-155 px off at the board's corners. So, when too few markers are decoded,
the frame's smear is measured (``vision.smear``); a frame smeared surely (``is_smeared``: long,
explaining the frame, along one direction) is matched with the empty board smeared the same way,
from the usual pose, the known pose and each outline of the board near it; the pose that lays
the frame's print best on the smeared board's, refined again with the smear measured there, is
accepted only when it lays it well and enough patches agree. When none passes, the caller keeps
the usual pose only where it agrees with the best one tried, or where the smear does not explain
the frame at all (``TableRegistration._pose_on_print``); otherwise the frame is not registered:
a wrong pose reads every space from the wrong place, which is worse than none. The same renders:
112 registered by the print, 106 within 3 px, 4 4-9 px off (before: 98, 13 and 69).

Known weak spot: a smear along the print's dominant lines (Ming's box lines, horizontal) is
measured too long or turned, and the pose can still slide along it (the tests' Ming render
smeared 15 px at 0 degrees: 6.9 px off, not registered before; 11 px: 3.1, 1.5 before).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable

import cv2
import numpy as np

from vision.pose_refine import PoseRefiner
from vision.smear import Smear, measure_smear

# rectified px (~mm): shorter than this, the frame is taken as sharp and the usual refinement and
# BlurredPose run as before. Own renders (seeds 11-13) smeared 9-21 frame px measured 10-50; those
# smeared 1-7 px (seeds 21-23) 0-20
MIN_SMEAR = 10.0
SHORTER = 0.6  # the shorter length tried besides the measured one (``_lengths``)
# and the smear must explain the frame: its patches correlate this much better smeared than sharp.
# Own renders smeared 1-4 px measured up to 50 px long on China's print but gained 0.03-0.04 (the
# smeared route refused 3 of them and put 1 4 px off, all right before); smeared 9-21 px gained
# 0.05-0.33 (one China frame 0.047)
MIN_GAIN = 0.05
# and it must be a smear, not a blur of every direction (focus, a soft lens: then the usual route,
# which found those frames' pose before): the smeared patches fit this much better than smeared as
# long across. Own renders smeared 13-21 px: 0.10-0.35; 9-12 px: 0.03-0.24; 1-7 px: -0.02-0.02.
# Photoreal tune frames without markers: most 0.0-0.07 (sensor blur, no motion); the ones smeared
# by a bump 0.14-0.28. Ming tune t00-000 (0.08) and t01-005 (0.09) read better by the usual route
# (27 and 39 spaces right against 17 and 23), China train tune lost 10 frames at 0.03-0.07
MIN_ANISOTROPY = 0.1
# least correlation of the frame's print with the smeared board's (PoseRefiner.alignment with the
# smeared template). Own renders (Ming, China, Cheops seeds 11-13): poses within 3 px 0.43-0.83,
# poses 6-15 px off 0.10-0.31 (and one 0.71: 6 px off, smear over-measured)
MIN_ALIGNMENT = 0.4
# least patches (of 20) agreeing with the fitted homography: the same renders, poses within 3 px had
# 16-20, most poses off by more had 8-15
MIN_AGREEING = 16
# frame px at the board's corners: a pose found by the usual route (sharp board) is kept for a smeared
# frame whose own pose did not pass when the two lie this close: two matchings agreeing. Own renders:
# of 11 smeared frames refused, the one usual pose right (0.8 px off) lay 3.4 px from the smeared
# route's best, the 9 wrong ones 4.8-186 px; photoreal Ming tune t01-003 (read right before): 2.2
AGREE_PX = 3.5
# the smeared board laying this well at its best pose, passed or not, says the frame is smeared as
# measured: the usual pose is then kept only where it agrees (``AGREE_PX``); below it the smear does
# not explain the frame and the usual pose stands. Photoreal tune frames read right by the usual
# pose: China train t00-007 0.24, t05-010 0.01, Cheops evalsets t01-009 0.40; own renders whose
# usual pose was 5-30 px off: 0.19-0.65 (5 of 8 below this: registered wrong as before)
MIN_EXPLAINED = 0.45


@dataclass(frozen=True)
class SmearedFit:
    smear: Smear
    pose: np.ndarray | None  # board mm -> image; None: smeared, and no pose passed
    alignment: float = 0.0
    agreeing: int = 0
    best: np.ndarray | None = None  # the pose that laid the print best, passed or not


def is_smeared(smear: Smear) -> bool:
    """Smeared enough, and surely, for the print to be matched only smeared alike."""
    return (smear.length >= MIN_SMEAR and smear.fit - smear.sharp_fit >= MIN_GAIN
            and smear.fit - smear.cross_fit >= MIN_ANISOTROPY)


def _lengths(length: float) -> list[float]:
    """The smear's measured length and, for a long one, a shorter: a smear along the print's lines
    measures too long (the tests' Ming render smeared 11 px along its box lines: 50 measured, the
    pose 9 px off; at 20 within 1 px, and laying the print better)."""
    return [length] + ([round(length * SHORTER)] if length * SHORTER >= MIN_SMEAR else [])


class SmearedPose:
    """Finds the pose of a smeared frame for one table (``base``: its usual refiner)."""

    def __init__(self, reference_bgr: np.ndarray, px_per_mm: float, base: PoseRefiner):
        self._reference = reference_bgr
        self._px_per_mm = px_per_mm
        self._base = base

    def smear(self, gray: np.ndarray, known: np.ndarray) -> Smear:
        """The frame's smear, measured with the known pose (within a bump of the true one)."""
        return measure_smear(self._base.gray, self._base.rectified(gray, known), self._base.centres)

    def find(self, gray: np.ndarray, smear: Smear, starts: Callable[[], list[np.ndarray]]) -> SmearedFit:
        """The pose of a frame smeared as ``smear`` (measured with the known pose), refined from each
        of ``starts()`` with the board smeared as measured and, for a long smear, shorter
        (``_lengths``); the pose laying the print best wins. The smear is measured again with it
        (the patches then lie where the frame has them: the length comes out nearer the truth) and
        the pose refined once more with that. Of the two, one that lays the print well with enough patches agreeing
        (``MIN_ALIGNMENT``, ``MIN_AGREEING``) is kept, the one more patches agree with; none: the
        pose is None."""
        starts_list = starts()
        found = []
        for length in _lengths(smear.length):
            refiner = self._refiner(replace(smear, length=length))
            found += [(refiner.alignment(gray, got[0]), got[1], got[0], refiner)
                      for got in (refiner.refine(gray, start) for start in starts_list) if got is not None]
        if not found:
            return SmearedFit(smear, None)
        first = max(found, key=lambda c: c[0])
        refiner = first[3]
        first = first[:3]
        again = self.smear(gray, first[2])
        same = (again.length, again.angle_deg) == (smear.length, smear.angle_deg)
        refiner = refiner if same or not is_smeared(again) else self._refiner(again)
        got = refiner.refine(gray, first[2])
        tried = [first] if got is None else [first, (refiner.alignment(gray, got[0]), got[1], got[0])]
        passed = [c for c in tried if c[0] >= MIN_ALIGNMENT and c[1] >= MIN_AGREEING]
        if not passed:
            return SmearedFit(smear, None, first[0], first[1], first[2])
        score, agreeing, H = max(passed, key=lambda c: (c[1], c[0]))
        return SmearedFit(smear, H, score, agreeing, H)

    def explains(self, fit: SmearedFit) -> bool:
        """Whether the smeared board lays well on the frame at ``fit``'s best pose: evidence that
        the frame is smeared as measured (``MIN_EXPLAINED``), whether or not the pose passed."""
        return fit.alignment >= MIN_EXPLAINED

    def agrees(self, fit: SmearedFit, other: np.ndarray, board_size: tuple[float, float]) -> bool:
        """Whether ``other`` (a pose found otherwise) lies within ``AGREE_PX`` of the best pose
        ``fit`` tried, at the board's corners."""
        if fit.best is None:
            return False
        w, h = board_size
        corners = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float64).reshape(-1, 1, 2)
        a, b = cv2.perspectiveTransform(corners, fit.best), cv2.perspectiveTransform(corners, other)
        return float(np.linalg.norm(a - b, axis=2).max()) <= AGREE_PX

    def _refiner(self, smear: Smear) -> PoseRefiner:
        return PoseRefiner(self._reference, self._px_per_mm, smear=smear.kernel())

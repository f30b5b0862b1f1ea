"""A frame registered for one table: by the board's corner markers, else by the board's print.

A mounted camera stays where the table's enrolment photo saw the board, give or take a bump: the
markers are first looked for where that photo (or the last registration) had them
(``Registrar.expect``); when too few are found, the last good pose (or the photo's) is refined on
the print (``PoseRefiner``); a registration by the board's outline or by three markers is checked
on the print too. Split from ``TableReader`` (vision/table_reader.py), which keeps one of these.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from vision.blurred_pose import BlurredPose
from vision.enrolment import TableModel
from vision.marker_squares import SQUARES_MESSAGE, MarkerSquares
from vision.pose_refine import PRINT_MESSAGE, PoseRefiner, print_registration
from vision.registration import OUTLINE_MESSAGE, Registrar, Registration, RegistrationStatus, obliqueness, to_detail
from vision.smeared_pose import SmearedPose, is_smeared


class TableRegistration:
    def __init__(self, registrar: Registrar, model: TableModel):
        self.registrar = registrar
        self.model = model
        self.refiner = PoseRefiner(model.reference, model.px_per_mm)
        self.blurred = BlurredPose(model.reference, model.px_per_mm, registrar.layout.size)
        self.smeared = SmearedPose(model.reference, model.px_per_mm, self.refiner)
        self.squares = MarkerSquares(model.reference, model.px_per_mm, registrar.layout)
        self.pose: np.ndarray | None = None  # the last homography that read the board
        self.registrar.expect(model.pose, model.frame_size)  # a mounted camera: the markers are where they were

    def reset(self) -> None:
        """As new: no pose remembered, the markers expected where the enrolment photo had them."""
        self.pose = None
        self.registrar.reset()
        self.registrar.expect(self.model.pose, self.model.frame_size)

    def known_pose(self, size: tuple[int, int]) -> np.ndarray | None:
        """The last good pose, or the enrolment photo's (a mounted camera stays there): scaled to
        ``size`` when the photo is the same view at another resolution (a still, as ``eval
        --detail`` enrols from, beside the watched stream)."""
        if self.pose is not None:
            return self.pose
        if self.model.pose is None or not self.model.frame_size:
            return None
        w, h = (int(v) for v in self.model.frame_size)
        if (w, h) == tuple(size):
            return self.model.pose
        if abs(w * size[1] - h * size[0]) > 0.01 * w * size[1]:
            return None  # another shape: another view
        return to_detail(self.model.pose, (h, w), (size[1], size[0]))

    def _by_print(self, gray: np.ndarray, reg: Registration) -> Registration:
        """Too few markers: the last good pose (or the enrolment photo's), refined on the print;
        failing that, a motion-blurred frame's pose from its outline and coarse print
        (``BlurredPose``); failing that, from the markers' squares, whose codes were not read
        (``MarkerSquares``)."""
        size = (gray.shape[1], gray.shape[0])
        H0 = self.known_pose(size)
        # "too oblique" from fewer than three markers is the board's outline guessed wrong (a hand across its
        # edge: photoreal Cheops tune t00-007, t00-009), not the view: the known pose is still worth refining
        guessed = len(reg.found) < 3
        if H0 is None or (reg.status == RegistrationStatus.TOO_OBLIQUE and not guessed):
            return reg if not reg.usable else Registration(RegistrationStatus.MARKERS_MISSING, None)
        H, message = self._pose_on_print(gray, H0), PRINT_MESSAGE
        if H is None:
            H, message = self._pose_by_squares(gray, H0), SQUARES_MESSAGE
        if H is None:
            return reg if not reg.usable else Registration(RegistrationStatus.MARKERS_MISSING, None)
        if guessed and obliqueness(H, self.registrar.layout) < self.registrar.min_obliqueness:
            return reg  # the view itself is too slanted to read
        self.pose = H
        return print_registration(H, reg.missing, reg.found, size, message)

    def _pose_by_squares(self, gray: np.ndarray, H0: np.ndarray) -> np.ndarray | None:
        """The pose the markers' squares give (``MarkerSquares``), refined on the print when
        that lays the print better (a bump's perspective; three markers extrapolate the fourth)."""
        got = self.squares.find(gray, H0)
        if got is None:
            return None
        H = got[0]
        refined = self.refiner.refine(gray, H)
        if refined is not None and self.refiner.alignment(gray, refined[0]) > self.refiner.alignment(gray, H):
            return refined[0]
        return H

    def _pose_on_print(self, gray: np.ndarray, H0: np.ndarray) -> np.ndarray | None:
        """The known pose refined on the print (failing that, a blurred frame's coarse pose:
        ``BlurredPose``). When the frame is smeared, measured where that pose puts the board (a big
        bump puts the known pose's print beyond the smear's search), it is matched with the empty
        board smeared alike (``SmearedPose``) from there and from the known pose and outlines. When
        that pose does not pass: if the smeared board lays well on the frame, the usual pose is kept
        only where it agrees with it (else none); if not, the smear does not explain the frame
        (photoreal China tune t00-007, t05-010, read right by the usual pose) and the usual pose stands."""
        usual = self._usual_pose(gray, H0)
        smear = self.smeared.smear(gray, usual if usual is not None else H0)
        if not is_smeared(smear):
            return usual
        starts = lambda: ([usual] if usual is not None else []) + self.blurred.starts(gray, H0)  # noqa: E731
        fit = self.smeared.find(gray, smear, starts)
        if fit.pose is not None:
            return fit.pose
        if fit.best is None or not self.smeared.explains(fit):
            return usual
        return usual if usual is not None and self.smeared.agrees(fit, usual, self.registrar.layout.size) else None

    def _usual_pose(self, gray: np.ndarray, H0: np.ndarray) -> np.ndarray | None:
        """The known pose refined on the print; failing that, a blurred frame's coarse pose. Refined with the
        whole board's shift first and without it: the one that lays the print best (``PoseRefiner.best_aligned``;
        of equals, the first). The shift alone can lock onto a print that repeats one repeat off and the patches
        then agree with it: own render Cheops seed 7401 t2-0029, a far blurred board, was read a pyramid row off
        (75 of 85 spaces wrong; alignment 0.08 against 0.67 refined without the shift)."""
        got = self.refiner.refine(gray, H0)
        if got is None:
            return self.blurred.find(gray, H0)
        plain = self.refiner.refine(gray, H0, whole_shift=False)
        return got[0] if plain is None else self.refiner.best_aligned(gray, [got[0], plain[0]])[2]

    def register(self, gray: np.ndarray) -> Registration:
        """By the corner markers; else by the print. Registered by the board's outline or by
        three markers only: checked and refined on the print (``_checked_on_print``)."""
        size = (gray.shape[1], gray.shape[0])
        if self.pose is None and tuple(self.model.frame_size or ()) not in ((), size):
            self.registrar.expect(self.known_pose(size), size)  # the photo's pose, at the watched frame's size
        reg = self.registrar.update(gray)
        if not reg.usable:
            reg = self._by_print(gray, reg)
        elif reg.message is OUTLINE_MESSAGE or (reg.fresh and reg.missing):
            reg = self._checked_on_print(gray, reg)
            self.pose = reg.homography
        else:
            self.pose = reg.homography
        return reg

    def _checked_on_print(self, gray: np.ndarray, reg: Registration) -> Registration:
        """The board's edge places it to a few pixels (worse where the lens bends it), and three
        markers in an L extrapolate the fourth corner by several mm when one of them is blurred.
        So that registration, and it and the known pose each refined on the print, are candidates;
        the one that lays the frame's print best on the empty board's wins (``PoseRefiner.alignment``)
        and is refined once more if that lays it better still."""
        candidates = [reg.homography]
        for start in (self.known_pose((gray.shape[1], gray.shape[0])), reg.homography):
            got = self.refiner.refine(gray, start) if start is not None else None
            if got is not None:
                candidates.append(got[0])
        score, i, H = self.refiner.best_aligned(gray, candidates)  # a tie: the earlier candidate
        again = self.refiner.refine(gray, H)
        if again is not None and self.refiner.alignment(gray, again[0]) > score:
            H, i = again[0], 1
        if i == 0:
            return reg
        if reg.message is OUTLINE_MESSAGE:
            return print_registration(H, reg.missing, reg.found, reg.image_size)
        return replace(reg, homography=H)

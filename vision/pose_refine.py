"""Registration without the corner markers: the table model's pose, refined on the board's print.

A mounted camera stays where it was for the empty-board photo, give or take a bump. When too
few corner markers are found (blurred, tiny, under a hand), that pose (or the last good one) is
refined on the board's print: the frame is rectified with it, patches on a grid are matched with
the empty board's by phase correlation (insensitive to brightness, contrast and a light
gradient), and a homography is fitted to their shifts with RANSAC (patches hidden by pieces or a
hand disagree and are dropped). It is accepted only when enough patches agree.
"""

from __future__ import annotations

import cv2
import numpy as np

from scorer.core.types import Message
from vision.registration import Registration, RegistrationStatus

PATCH_MM = 80.0
GRID = (5, 4)
MIN_RESPONSE = 0.06  # phase-correlation peak of a patch whose print was found
MIN_AGREEING = 8  # patches that agree with the fitted homography (of 20)
RANSAC_MM = 2.0
MAX_SHIFT_MM = 25.0  # farther than this, the camera was moved, not bumped: register by markers

PRINT_MESSAGE = Message.t('vision.pose_refine.board_registered_from_its_print')


class PoseRefiner:
    def __init__(self, reference_bgr: np.ndarray, px_per_mm: float):
        self.s = px_per_mm
        h, w = reference_bgr.shape[:2]
        self.size = (w, h)
        self.template = self._prep(cv2.cvtColor(reference_bgr, cv2.COLOR_BGR2GRAY))
        p = int(round(PATCH_MM * px_per_mm)) // 2 * 2
        self.p = p
        self.window = cv2.createHanningWindow((p, p), cv2.CV_32F)
        xs = np.linspace(p / 2, w - p / 2, GRID[0])
        ys = np.linspace(p / 2, h - p / 2, GRID[1])
        self.centres = [(float(x), float(y)) for y in ys for x in xs]
        self.S = np.diag([px_per_mm, px_per_mm, 1.0])
        self.board_window = cv2.createHanningWindow((w, h), cv2.CV_32F)

    @staticmethod
    def _prep(g: np.ndarray) -> np.ndarray:
        g = cv2.GaussianBlur(g.astype(np.float32), (0, 0), 1.0)
        return g - cv2.GaussianBlur(g, (0, 0), 10.0)

    def refine(self, gray: np.ndarray, H0: np.ndarray) -> tuple[np.ndarray, int] | None:
        """Refined board mm -> image homography and how many patches agree, or None: first the
        whole board's shift (a bumped camera moves everything), then patches, twice."""
        rect = self._prep(cv2.warpPerspective(gray, H0 @ np.linalg.inv(self.S), self.size,
                                              flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP))
        (dx, dy), response = cv2.phaseCorrelate(self.template, rect, self.board_window)
        if response >= MIN_RESPONSE / 2:
            H0 = H0 @ np.linalg.inv(self.S) @ np.array([[1, 0, dx], [0, 1, dy], [0, 0, 1.0]]) @ self.S
        best = None
        for _ in range(2):
            got = self._patches(gray, H0)
            if got is None:
                break
            best = got
            H0 = got[0]
        return best

    def _patches(self, gray: np.ndarray, H0: np.ndarray) -> tuple[np.ndarray, int] | None:
        rect = self._prep(cv2.warpPerspective(gray, H0 @ np.linalg.inv(self.S), self.size,
                                              flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP))
        src, dst = [], []
        half = self.p // 2
        for cx, cy in self.centres:
            x0, y0 = int(cx) - half, int(cy) - half
            # copies: OpenCV 5's phaseCorrelate writes into a non-contiguous input (it damaged
            # the empty board's template, frame after frame)
            a = np.ascontiguousarray(self.template[y0:y0 + self.p, x0:x0 + self.p])
            b = np.ascontiguousarray(rect[y0:y0 + self.p, x0:x0 + self.p])
            if a.shape != (self.p, self.p) or b.shape != a.shape:
                continue
            (dx, dy), response = cv2.phaseCorrelate(a, b, self.window)
            if response < MIN_RESPONSE or abs(dx) > MAX_SHIFT_MM * self.s or abs(dy) > MAX_SHIFT_MM * self.s:
                continue
            src.append((cx, cy))
            dst.append((cx + dx, cy + dy))
        if len(src) < MIN_AGREEING:
            return None
        W, inliers = cv2.findHomography(np.float32(src), np.float32(dst), cv2.RANSAC, RANSAC_MM * self.s)
        if W is None or int(inliers.sum()) < MIN_AGREEING:
            return None
        # rectified(x) = frame(H0 S^-1 x); the print at template x lies at rectified W x
        return H0 @ np.linalg.inv(self.S) @ W @ self.S, int(inliers.sum())


def print_registration(H: np.ndarray, missing: tuple[int, ...], found: tuple[int, ...],
                       size: tuple[int, int]) -> Registration:
    return Registration(RegistrationStatus.PARTIAL, H, found, missing, 0.0, 1.0, True, size, PRINT_MESSAGE)

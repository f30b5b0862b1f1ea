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
COARSE_RANSAC_MM = 4.0  # the first of the two rounds: a pose far off (a bumped camera, a tilted view) agrees loosely first
MIN_ISOTROPY = 0.25  # a patch's print must have structure in two directions (see _textured_centres)
MAX_SHIFT_MM = 25.0  # farther than this, the camera was moved, not bumped: register by markers
DETAIL_SIGMA_PX = 1.0  # the band of the print matched: finer than this is noise (sharp frames)

PRINT_MESSAGE = Message.t('vision.pose_refine.board_registered_from_its_print')


class PoseRefiner:
    def __init__(self, reference_bgr: np.ndarray, px_per_mm: float, detail_sigma: float = DETAIL_SIGMA_PX,
                 smear: np.ndarray | None = None):
        """``detail_sigma``: the finest detail of the print matched (rectified px). A coarser band
        finds the print of a motion-blurred frame, whose fine lines are gone (vision/blurred_pose.py).
        ``smear``: a kernel the empty board is smeared with first, as a smeared frame's print is
        (vision/smear.py, vision/smeared_pose.py)."""
        self.s = px_per_mm
        self.detail_sigma = float(detail_sigma)
        h, w = reference_bgr.shape[:2]
        self.size = (w, h)
        self.gray = cv2.cvtColor(reference_bgr, cv2.COLOR_BGR2GRAY).astype(np.float32)  # the empty board, unsmeared
        self.template = self._prep(self.gray if smear is None else cv2.filter2D(self.gray, -1, smear))
        p = int(round(PATCH_MM * px_per_mm)) // 2 * 2
        self.p = p
        self.window = cv2.createHanningWindow((p, p), cv2.CV_32F)
        xs = np.linspace(p / 2, w - p / 2, GRID[0])
        ys = np.linspace(p / 2, h - p / 2, GRID[1])
        cell = ((w - p) / max(1, GRID[0] - 1), (h - p) / max(1, GRID[1] - 1))
        self.centres = _textured_centres(self.template, [(float(x), float(y)) for y in ys for x in xs], p, cell)
        self.S = np.diag([px_per_mm, px_per_mm, 1.0])
        self.board_window = cv2.createHanningWindow((w, h), cv2.CV_32F)

    def _prep(self, g: np.ndarray) -> np.ndarray:
        g = cv2.GaussianBlur(g.astype(np.float32), (0, 0), self.detail_sigma)
        return g - cv2.GaussianBlur(g, (0, 0), 10.0)

    def rectified(self, gray: np.ndarray, H: np.ndarray) -> np.ndarray:
        """The frame ``gray`` seen through the pose ``H`` (board mm -> image), in the template's px."""
        return cv2.warpPerspective(gray, H @ np.linalg.inv(self.S), self.size,
                                   flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP)

    def refine(self, gray: np.ndarray, H0: np.ndarray, whole_shift: bool = True) -> tuple[np.ndarray, int] | None:
        """Refined board mm -> image homography and how many patches agree, or None: first the
        whole board's shift (a bumped camera moves everything; not with ``whole_shift`` False: on a
        print that repeats, a pyramid's rows, it can lock one repeat off), then patches, twice."""
        if whole_shift:
            rect = self._prep(cv2.warpPerspective(gray, H0 @ np.linalg.inv(self.S), self.size,
                                                  flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP))
            (dx, dy), response = cv2.phaseCorrelate(self.template, rect, self.board_window)
            if response >= MIN_RESPONSE / 2:
                H0 = H0 @ np.linalg.inv(self.S) @ np.array([[1, 0, dx], [0, 1, dy], [0, 0, 1.0]]) @ self.S
        best = None
        for tolerance in (COARSE_RANSAC_MM, RANSAC_MM):
            got = self._patches(gray, H0, tolerance)
            if got is None:
                if tolerance == COARSE_RANSAC_MM:
                    continue  # no coarse agreement: try the fine one from the start
                break
            best = got
            H0 = got[0]
        return best

    def best_aligned(self, gray: np.ndarray, candidates: list[np.ndarray]) -> tuple[float, int, np.ndarray]:
        """Of ``candidates`` (poses), the one that lays the frame's print best (``alignment``): its score,
        index and pose; of equals, the earlier."""
        scored = [(self.alignment(gray, H), i, H) for i, H in enumerate(candidates)]
        return max(scored, key=lambda c: (c[0], -c[1]))

    def alignment(self, gray: np.ndarray, H: np.ndarray) -> float:
        """How well ``H`` lays the frame's print on the empty board's: the normalised correlation
        of the two (band-passed: light, shading and contrast do not count), over the whole board."""
        rect = self._prep(cv2.warpPerspective(gray, H @ np.linalg.inv(self.S), self.size,
                                              flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP))
        a, b = self.template, rect
        den = float(np.sqrt((a * a).sum() * (b * b).sum()))
        return float((a * b).sum()) / den if den > 0 else 0.0

    def _patches(self, gray: np.ndarray, H0: np.ndarray, tolerance_mm: float = 2.0) -> tuple[np.ndarray, int] | None:
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
        W, inliers = cv2.findHomography(np.float32(src), np.float32(dst), cv2.RANSAC, tolerance_mm * self.s)
        if W is None or int(inliers.sum()) < MIN_AGREEING:
            return None
        # rectified(x) = frame(H0 S^-1 x); the print at template x lies at rectified W x
        return H0 @ np.linalg.inv(self.S) @ W @ self.S, int(inliers.sum())


def _textured_centres(template: np.ndarray, centres: list[tuple[float, float]], p: int,
                      cell: tuple[float, float]) -> list[tuple[float, float]]:
    """Patch centres whose print has structure in two directions. A patch showing only parallel
    lines (a long box edge, a row of city houses) matches anywhere along them -- the aperture
    problem: its shift along the lines is a guess, and many such patches agree on a wrong pose.
    Such a centre moves, within its grid cell, to where the print has the most two-directional
    structure (corners, circles, text); centres that already have it stay."""
    gx = cv2.Sobel(template, cv2.CV_32F, 1, 0)
    gy = cv2.Sobel(template, cv2.CV_32F, 0, 1)
    box = lambda a: cv2.boxFilter(a, cv2.CV_32F, (p, p), normalize=False, borderType=cv2.BORDER_CONSTANT)  # noqa: E731
    jxx, jyy, jxy = box(gx * gx), box(gy * gy), box(gx * gy)
    root = np.sqrt(((jxx - jyy) / 2) ** 2 + jxy ** 2)
    lo, hi = (jxx + jyy) / 2 - root, (jxx + jyy) / 2 + root  # the structure tensor's eigenvalues
    iso = lo / np.maximum(hi, 1e-6)
    h, w = template.shape
    half = p // 2
    out = []
    for cx, cy in centres:
        x, y = int(round(cx)), int(round(cy))
        if iso[y, x] >= MIN_ISOTROPY:
            out.append((cx, cy))
            continue
        x0, x1 = max(half, int(cx - cell[0] / 2)), min(w - half, int(cx + cell[0] / 2) + 1)
        y0, y1 = max(half, int(cy - cell[1] / 2)), min(h - half, int(cy + cell[1] / 2) + 1)
        win = lo[y0:y1, x0:x1]
        j, i = np.unravel_index(int(np.argmax(win)), win.shape)
        out.append((float(x0 + i), float(y0 + j)))
    return out


def print_registration(H: np.ndarray, missing: tuple[int, ...], found: tuple[int, ...],
                       size: tuple[int, int], message: Message = PRINT_MESSAGE) -> Registration:
    return Registration(RegistrationStatus.PARTIAL, H, found, missing, 0.0, 1.0, True, size, message)

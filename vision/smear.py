"""How a frame is smeared: the line a bumped camera moved along during the exposure.

A frame smeared along one direction keeps the print's lines that run along it and spreads the
others into bands. Matched with the sharp empty board, such a frame pulls the pose along the
smear (a band matches a line anywhere within it), and many patches agree on that wrong pose:
on the project's Ming renders smeared 9-21 px, ``PoseRefiner`` put 23 of 34 registrations 4-155
px off at the board's corners. Matched with the empty board smeared the same way, the bands
match bands and the pose comes out right (the same frames: most within 2 px).

The smear is measured on the board, in the refiner's rectified board px, without knowing the
pose to better than a bump: a few textured patches of the empty board are smeared with each
candidate line and searched for in the frame rectified with the known pose; the line whose
smeared patches correlate best with the frame (median over the patches) is the smear.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

# rectified board px (~mm at 1 px/mm). Lengths tried: the project's renders smeared 9-21 frame px
# (seeds 11-13) measured 10-50 here (Ming's board is drawn ~2 rectified px per frame px)
LENGTHS = (4, 7, 10, 13, 16, 20, 24, 28, 33, 38, 44, 50)
ANGLES = tuple(range(0, 180, 15))  # degrees; then +-5 and +-10 around the best
SEARCH_LENGTH = 16  # the length the direction is first looked for with
# not tuned, chosen once: on the renders above the direction came out within 15 degrees of the
# truth's with these (12 Ming frames checked by hand) at ~130 ms a frame
PATCH_PX = 112  # a patch of the empty board (rectified px)
PAD_PX = 32  # searched for this far around where the pose puts it: a bump after refinement
PATCHES = 6  # the most textured patch centres used
MARGIN_PX = 26  # extra board around a patch, so its smeared border is the print's, not zeros


@dataclass(frozen=True)
class Smear:
    length: float  # rectified px; 0: not smeared (the sharp board fits best)
    angle_deg: float  # direction of the smear in the rectified board, 0-180
    fit: float  # median correlation of the smeared patches with the frame
    sharp_fit: float = 0.0  # the same, of the patches unsmeared: how much the smear explains is fit - sharp_fit
    cross_fit: float = 0.0  # the same, smeared as long across: a blur of every direction fits both alike

    def kernel(self) -> np.ndarray:
        """The smear as a normalised line kernel (1x1 when not smeared)."""
        return line_kernel(self.length, self.angle_deg)


def line_kernel(length: float, angle_deg: float) -> np.ndarray:
    """A line ``length`` px long at ``angle_deg``, summing to 1: motion blur."""
    if length <= 1:
        return np.ones((1, 1), np.float32)
    d = np.array([np.cos(np.radians(angle_deg)), np.sin(np.radians(angle_deg))])
    n = int(np.ceil(length)) | 1
    k = np.zeros((n, n), np.float32)
    c = (n - 1) / 2
    for t in np.linspace(-(length - 1) / 2, (length - 1) / 2, 4 * n):
        k[int(round(c + t * d[1])), int(round(c + t * d[0]))] = 1.0
    return k / k.sum()


def _band(g: np.ndarray) -> np.ndarray:
    """Light, shading and contrast do not count: the print's detail only."""
    g = g.astype(np.float32)
    return g - cv2.GaussianBlur(g, (0, 0), 10.0)


class _Patches:
    """The empty board's most textured patches and the frame's search windows around them."""

    def __init__(self, template: np.ndarray, rect: np.ndarray, centres: list[tuple[float, float]]):
        t, r = _band(template), _band(rect)
        h, w = t.shape
        half, m = PATCH_PX // 2, MARGIN_PX
        edge = half + PAD_PX + m
        cs = [(int(x), int(y)) for x, y in centres if edge <= x < w - edge and edge <= y < h - edge]
        cs = sorted(cs, key=lambda c: -float(t[c[1] - half:c[1] + half, c[0] - half:c[0] + half].std()))[:PATCHES]
        self.boards = [t[y - half - m:y + half + m, x - half - m:x + half + m] for x, y in cs]
        self.windows = [r[y - half - PAD_PX:y + half + PAD_PX, x - half - PAD_PX:x + half + PAD_PX] for x, y in cs]
        self.scores: dict[tuple[float, float], float] = {}

    def fit(self, length: float, angle: float) -> float:
        """Median over the patches of the best correlation of the smeared patch in its window."""
        key = (float(length), float(angle % 180) if length > 1 else 0.0)
        if key not in self.scores:
            k, m = line_kernel(*key), MARGIN_PX
            got = [float(cv2.matchTemplate(win, cv2.filter2D(b, -1, k)[m:-m, m:-m], cv2.TM_CCOEFF_NORMED).max())
                   for b, win in zip(self.boards, self.windows)]
            self.scores[key] = float(np.median(got)) if got else 0.0
        return self.scores[key]


def measure_smear(template: np.ndarray, rect: np.ndarray, centres: list[tuple[float, float]]) -> Smear:
    """The smear of ``rect`` (the frame rectified with a pose within a bump of the true one)
    against ``template`` (the empty board, same px), over patches at ``centres``: the direction
    first (at ``SEARCH_LENGTH``), then the length along it, then the direction once more."""
    p = _Patches(template, rect, centres)
    if not p.boards:
        return Smear(0.0, 0.0, 0.0)
    angle = max(ANGLES, key=lambda a: p.fit(SEARCH_LENGTH, a))
    length = max((0,) + LENGTHS, key=lambda n: p.fit(n, angle))
    if length:
        angle = max((angle + d for d in (-10, -5, 0, 5, 10)), key=lambda a: p.fit(length, a)) % 180
    return Smear(float(length), float(angle), p.fit(length, angle), p.fit(0, 0), p.fit(length, angle + 90))

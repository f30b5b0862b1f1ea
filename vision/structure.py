"""Has the board's print vanished somewhere? A hand as pale as the board hides its lines.

Per 8-px block, the gradient energy of the frame is compared with the empty board's, after
taking off each image's noise floor (the energy of blocks without print) and relative to the
frame's own typical ratio (so focus and noise level cancel out). Blocks with print whose
energy dropped far below the frame's typical ratio have lost their print.

Blur takes more energy from thin lines than from bold print, so on a board of thin lines (Ming's
boxes) a blurred frame's lines would all look faint against its bold parts: the empty board is
also compared blurred as much as the frame is (of a few levels, the one against which the
frame's print blocks agree best). Print lost against that is lost; print that only faded against
the sharp board counts next to such a block (the edge of a hand), not on its own.

Print can also fade without being hidden: glare on a varnished board, a shadow or heavy blur take
most of its contrast, but what is left still follows the empty board's lines, while under a hand
only noise is left. So a lost block whose detail (the image minus its blur) still correlates with
the empty board's, over the lost blocks around it, is **faded** (``PrintLoss.faded``): the hand
test does not let faded print make a hand on its own, but lets a hand found otherwise grow over it.
"""

from __future__ import annotations

from typing import Callable

import cv2
import numpy as np

from vision.order_stats import sorted_median, sorted_percentile, sorted_percentiles

BLOCK = 8
PRINT_FACTOR = 3.0  # a block "has print" when its energy is this many times the plain blocks'
LOST_RATIO = 0.35  # of the frame's median ratio: print this much fainter is hidden
EDGE_BLOCKS = 1  # print faded against the sharp board counts this many blocks around print lost (a hand's edge)
BLUR_LEVELS = (0.0, 1.0, 1.5, 2.0, 3.0)  # px: how blurred the empty board is compared (the frame's blur is not known)
DETAIL_SIGMA = 3.0  # px: a picture's detail is what differs from it blurred this much
FADED_WINDOW = 3  # blocks: lost print is weighed for fading over the lost blocks in this square around each
# correlation of the frame's detail with the empty board's (blurred alike) over those blocks: glare and
# shadows on the photoreal tuning sets 0.4-0.9, a hand -0.1-0.1 (only noise is left under it)
FADED_NCC = 0.5
# float32: numpy interpolates float32 data's quartiles in float32 for these (in float64 for float64 ones)
QUARTILES = np.array([25.0, 75.0], np.float32)


class PrintLoss:
    """Full-size bool masks: ``lost``, every block whose print vanished (as before), and ``faded``,
    those of them whose print is still there, faint (a subset of ``lost``). ``faded`` is made when first
    asked for: the hand test weighs it only where print was lost away from pieces, which a frame without
    a hand seldom has, and its correlation over the whole board cost ~2 ms of every full read."""

    def __init__(self, lost: np.ndarray, faded: np.ndarray | Callable[[], np.ndarray]):
        """``faded``: the mask, or a function making it (called once, at the first ``faded``)."""
        self.lost = lost
        self._faded = faded

    @property
    def faded(self) -> np.ndarray:
        if callable(self._faded):
            self._faded = self._faded()
        return self._faded


def _energy(l: np.ndarray, small: tuple[int, int]) -> np.ndarray:
    gx, gy = cv2.Sobel(l, cv2.CV_32F, 1, 0, ksize=3), cv2.Sobel(l, cv2.CV_32F, 0, 1, ksize=3)
    gx = np.abs(gx, out=gx)
    gx += np.abs(gy, out=gy)  # |gx| + |gy|, in place
    return cv2.resize(gx, small, interpolation=cv2.INTER_AREA)


class PrintWatcher:
    def __init__(self, reference_l: np.ndarray):
        h, w = reference_l.shape
        self.size = (w, h)
        self.small = (max(1, w // BLOCK), max(1, h // BLOCK))
        # the empty board blurred as a frame may be (on top of the 1 px every frame is smoothed by)
        blurred = [cv2.GaussianBlur(reference_l, (0, 0), float(np.hypot(1.0, sigma))) for sigma in BLUR_LEVELS]
        energies = [_energy(b, self.small) for b in blurred]
        e = energies[0]  # BLUR_LEVELS[0] is 0: the board as it is
        floor = float(np.percentile(e, 30))
        self.has_print = e > PRINT_FACTOR * max(floor, 1e-3)
        self.refs = []  # the empty board's print energy at each blur level
        for eb in energies:
            fb = float(np.percentile(eb, 30))
            self.refs.append(np.maximum(eb - fb, 1e-3))
        self.ref = self.refs[0]
        self.ref_detail = [_detail(b) for b in blurred]  # and its detail, blurred alike
        # its detail's power per block, the same every frame (``_correlation``: OpenCV resizes each channel alone)
        self.ref_power = [cv2.resize(d * d, self.small, interpolation=cv2.INTER_AREA) for d in self.ref_detail]

    def lost(self, frame_l: np.ndarray) -> np.ndarray:
        """Blocks whose print vanished, as a full-size bool mask."""
        return self.look(frame_l).lost

    def look(self, frame_l: np.ndarray) -> PrintLoss:
        """Blocks whose print vanished, and which of them only faded. ``frame_l``: the frame's Lab lightness,
        float32 or the whole numbers of the 8-bit Lab it was made from (the same)."""
        if not self.has_print.any():
            none = np.zeros((self.size[1], self.size[0]), bool)
            return PrintLoss(none, none)
        # (a channel of a Lab image is strided: copied into one block first, which OpenCV's own copy of it did
        # several times slower; the 8-bit Lab's, ``ForegroundMaps.lookup_lab``, gives the same floats from a
        # quarter of the bytes)
        soft = cv2.GaussianBlur(np.ascontiguousarray(frame_l, np.float32), (0, 0), 1.0)
        e = _energy(soft, self.small)
        plain = e[~self.has_print]
        floor = float(sorted_percentile(np.sort(plain), 50)) if plain.size else 0.0
        energy = np.maximum(e - floor, 0.0)
        found = []
        for ref in self.refs:
            ratio = energy / ref
            r = np.sort(ratio[self.has_print])  # (sorted once for the median and quartiles: numpy's values)
            typical = float(sorted_median(r))
            q25, q75 = sorted_percentiles(r, QUARTILES)  # (float32, as numpy interpolates them)
            spread = float(q75 - q25) / max(typical, 1e-6)
            found.append((spread, len(found), self.has_print & (ratio < LOST_RATIO * typical)))
        sharp = found[0][2]  # against the empty board as it is
        _, level, matched = min(found, key=lambda f: f[0])  # against it blurred as much as the frame
        # what faded against the sharp board counts where it joins print lost against the matched
        # one (a hand's edge); alone it is only blur taking thin lines
        lost = _grow_into(matched, sharp, EDGE_BLOCKS)
        return PrintLoss(self._full(lost), lambda: self._faded(lost, soft, level))

    def _faded(self, lost: np.ndarray, soft: np.ndarray, level: int) -> np.ndarray:
        """``PrintLoss.faded`` (full size) of the ``lost`` blocks, ``soft`` the frame's lightness as ``look``
        smoothed it, ``level`` the empty board's blur it matched."""
        return self._full(lost & (self._correlation(lost, _detail(soft), level) > FADED_NCC) if lost.any() else lost)

    def _full(self, blocks: np.ndarray) -> np.ndarray:
        """A bool mask per block as a full-size one."""
        return cv2.resize(blocks.astype(np.uint8), self.size, interpolation=cv2.INTER_NEAREST) > 0

    def _correlation(self, lost: np.ndarray, frame_detail: np.ndarray, level: int) -> np.ndarray:
        """Per block: the normalised correlation of the frame's detail with the empty board's (blurred to
        ``level``) over the lost blocks in the ``FADED_WINDOW`` square around it."""
        ref_detail = self.ref_detail[level]
        products = cv2.merge([frame_detail * ref_detail, frame_detail * frame_detail])
        blocks = np.dstack([cv2.resize(products, self.small, interpolation=cv2.INTER_AREA), self.ref_power[level]])
        per_block = blocks * lost[..., None].astype(np.float32)
        fr, ff, rr = cv2.split(cv2.boxFilter(per_block, -1, (FADED_WINDOW, FADED_WINDOW), normalize=False,
                                             borderType=cv2.BORDER_CONSTANT))
        return fr / np.sqrt(np.maximum(ff * rr, 1e-9))


def _detail(l: np.ndarray) -> np.ndarray:
    return l - cv2.GaussianBlur(l, (0, 0), DETAIL_SIGMA)


def _grow_into(seeds: np.ndarray, mask: np.ndarray, steps: int) -> np.ndarray:
    """``seeds`` grown ``steps`` blocks (8-connected) into ``mask``."""
    if seeds is mask or not seeds.any():
        return seeds
    out = seeds
    ring = np.ones((3, 3), np.uint8)
    for _ in range(steps):
        out = out | (mask & (cv2.dilate(out.astype(np.uint8), ring) > 0))
    return out

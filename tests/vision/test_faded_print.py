"""Print that faded is not print hidden (vision/structure.py ``PrintLoss.faded``, vision/occlusion.py).

Photoreal China (a fresh seed-3 set, then used for tuning): glare on a varnished board took most of
the print's contrast over a few spaces, its blocks counted as print lost, and they made a hand in a
frame without one (8 spaces flagged). What is left of faded print still follows the empty board's
lines; under a hand only noise is left. Synthetic board crops at 1 px per mm."""

from __future__ import annotations

import cv2
import numpy as np

from vision.foreground import ForegroundMaps
from vision.occlusion import OcclusionFinder
from vision.structure import PrintWatcher

W, H = 320, 240  # mm = px
PATCH = (slice(80, 160), slice(100, 220))  # 80 x 120 mm: a palm and fingers, or a glare spot


def _board(rng: np.random.Generator) -> np.ndarray:
    """A pale board printed with lines and rings, as L (0-255)."""
    img = np.full((H, W), 200.0, np.float32)
    for x in range(10, W, 23):
        cv2.line(img, (x, 0), (x + 30, H), 120.0, 2)
    for y in range(12, H, 29):
        cv2.line(img, (0, y), (W, y + 10), 140.0, 1)
    for _ in range(25):
        c = (int(rng.integers(0, W)), int(rng.integers(0, H)))
        cv2.circle(img, c, int(rng.integers(6, 16)), 100.0, 2)
    return img


def _noisy(img: np.ndarray, rng: np.random.Generator, sigma: float = 3.0) -> np.ndarray:
    return (img + rng.normal(0, sigma, img.shape)).astype(np.float32)


def test_glare_fades_the_print_a_hand_hides_it():
    rng = np.random.default_rng(7)
    board = _board(rng)
    watcher = PrintWatcher(board)
    glare = board.copy()
    glare[PATCH] = 235.0 + 0.15 * (board[PATCH] - 200.0)  # washed out: 15 % of the print's contrast left
    hand = board.copy()
    hand[PATCH] = 190.0 + rng.normal(0, 1.0, hand[PATCH].shape)  # a pale, plain palm: nothing of the print
    seen_glare = watcher.look(_noisy(glare, rng))
    seen_hand = watcher.look(_noisy(hand, rng))
    inner = (slice(PATCH[0].start + 16, PATCH[0].stop - 16), slice(PATCH[1].start + 16, PATCH[1].stop - 16))
    for seen in (seen_glare, seen_hand):  # both lose the print ...
        assert seen.lost[inner].mean() > 0.3
        assert not (seen.faded & ~seen.lost).any()
    # ... but only under the glare is what is left of it the board's own
    assert seen_glare.faded[inner][seen_glare.lost[inner]].mean() > 0.8
    assert seen_hand.faded[inner].mean() < 0.05


def _finder() -> OcclusionFinder:
    space = np.ones((40, 40), np.uint8)
    return OcclusionFinder([((140, 100, 180, 140), space), ((20, 20, 60, 60), space)], (W, H), 1.0, 400.0)


def _maps(weak: np.ndarray | None = None) -> ForegroundMaps:
    none = np.zeros((H, W), bool)
    weak = none if weak is None else weak
    lab = np.zeros((H, W, 3), np.float32)
    return ForegroundMaps(lab=lab, chroma=np.zeros((H, W), np.float32), piece=weak, strict=none, seeds=none,
                          dark=none, weak=weak, weak_chroma=none, noise=2.0)


def test_faded_print_alone_makes_no_hand():
    lost = np.zeros((H, W), bool)
    lost[PATCH] = True  # 9600 mm²: lost, this is a hand
    labels = np.full((H, W), -2, np.int16)
    assert _finder().find(_maps(), labels, lost).spaces == frozenset({0})
    # the same print only faded (glare): no hand
    assert _finder().find(_maps(), labels, lost, faded_print=lost.copy()).spaces == frozenset()


def test_a_hand_found_otherwise_grows_over_faded_print():
    """An arm over the board's edge (weak evidence from the edge in) whose fingers lie over print that
    only faded (their shadow, a blurred frame): the fingers' space is hidden all the same."""
    weak = np.zeros((H, W), bool)
    weak[0:95, 150:170] = True  # the arm, from the board's top edge down
    lost = np.zeros((H, W), bool)
    lost[90:150, 130:190] = True  # print lost over the space (its centre 160, 120), all of it faded
    labels = np.full((H, W), -2, np.int16)
    found = _finder().find(_maps(weak), labels, lost, faded_print=lost.copy())
    assert 0 in found.spaces and 1 not in found.spaces
    arm_only = _finder().find(_maps(weak), labels)
    assert arm_only.mask[lost].mean() < found.mask[lost].mean()

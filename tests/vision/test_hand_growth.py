"""What a hand found grows over (vision/occlusion.py, the growth rounds): colour or difference near it, not
print lost alone.

A hand found grows, a few rounds of a finger's reach, into loose evidence beside it (a wrist or a cuff can
break the evidence between arm and palm). Print lost alone beside an arm is the frame's noise taking the
8 px blocks the print is compared in (a dark, noisy photoreal China table, seed 9 t02-010: blocks beside an
arm grew the hand 8-15 mm into spaces it did not cover); a finger shows colour or difference too. Grown
over colour and difference only, the tuning sets read 2-9 fewer false flags each and no more through a hand
(docs/vision.md, tenth sitting).
"""

from __future__ import annotations

import numpy as np

from vision.colour_classes import UNKNOWN
from vision.foreground import ForegroundMaps
from vision.occlusion import OcclusionFinder

W, H = 320, 240  # mm = px


def _finder() -> OcclusionFinder:
    space = np.ones((40, 40), np.uint8)
    return OcclusionFinder([((140, 40, 180, 80), space), ((200, 20, 240, 60), space)], (W, H), 1.0, 900.0)


def _maps(weak: np.ndarray | None = None) -> ForegroundMaps:
    none = np.zeros((H, W), bool)
    return ForegroundMaps(lab=np.zeros((H, W, 3), np.float32), chroma=np.zeros((H, W), np.float32), piece=none,
                          strict=none, seeds=none, dark=none, weak=none if weak is None else weak, weak_chroma=none,
                          noise=2.0)


def _hand() -> np.ndarray:
    labels = np.full((H, W), -2, np.int16)
    labels[0:70, 130:185] = UNKNOWN  # an arm over space 0, from the board's edge
    return labels


def _block() -> np.ndarray:
    """A 10 mm block 8 mm beside the arm, over space 1's edge."""
    block = np.zeros((H, W), bool)
    block[30:40, 193:203] = True
    return block


def test_print_lost_beside_a_hand_is_not_grown_over() -> None:
    occ = _finder().find(_maps(), _hand(), _block())
    assert occ.spaces == frozenset({0})


def test_difference_beside_a_hand_is_grown_over() -> None:
    """The same block seen as weak difference (a pale finger) is part of the hand."""
    occ = _finder().find(_maps(_block()), _hand())
    assert occ.spaces == frozenset({0, 1})

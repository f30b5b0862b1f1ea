"""Print "lost" that is only faint print under noise is no hand (vision/occlusion.py, ``PRINT_HAND_MM2``).

Photoreal Ming, tune split: far, blurred, noisy frames show the board's thin lines and wash barely
above the noise; blocks of such print lose their energy to noise alone (``vision.structure``), and on
a game of small pieces (Ming's 3 pieces: ~600-850 mm²) a few such blocks together made a hand (with
the print test off, 4 % of the visible spaces were flagged instead of 24 %). Here a patch of print
lost on a synthetic board crop (1 px per mm)."""

from __future__ import annotations

import numpy as np

from vision.colour_classes import UNKNOWN
from vision.foreground import ForegroundMaps
from vision.occlusion import OcclusionFinder

W, H = 320, 240  # mm = px


def _finder(piece_mm2: float) -> OcclusionFinder:
    space = np.ones((40, 40), np.uint8)
    return OcclusionFinder([((140, 100, 180, 140), space)], (W, H), 1.0, piece_mm2)


def _maps() -> ForegroundMaps:
    none = np.zeros((H, W), bool)
    lab = np.zeros((H, W, 3), np.float32)
    return ForegroundMaps(lab, np.zeros((H, W), np.float32), none, none, none, none, none, none, 2.0)


PATCH = (slice(95, 125), slice(135, 175))  # 30 x 40 mm over the space: 1200 mm²


def test_a_patch_of_print_lost_is_no_hand_on_a_game_of_small_pieces():
    """1200 mm² of print lost, no colour: four of Ming's pieces' area but less than a hand's."""
    lost = np.zeros((H, W), bool)
    lost[PATCH] = True
    labels = np.full((H, W), -2, np.int16)
    assert _finder(piece_mm2=250.0).find(_maps(), labels, lost).spaces == frozenset()


def test_the_same_patch_of_unknown_colour_is_a_hand():
    labels = np.full((H, W), -2, np.int16)
    labels[PATCH] = UNKNOWN
    assert _finder(piece_mm2=250.0).find(_maps(), labels).spaces == frozenset({0})


def test_a_pale_palm_hiding_the_print_is_still_a_hand():
    """A hand's worth of print lost (a pale palm over a pale board shows no colour) hides the space."""
    lost = np.zeros((H, W), bool)
    lost[80:140, 120:180] = True  # 60 x 60 mm: 3600 mm²
    labels = np.full((H, W), -2, np.int16)
    assert _finder(piece_mm2=250.0).find(_maps(), labels, lost).spaces == frozenset({0})

"""A tan hand over a beige board (vision/pale_fingers.py, ``PaleFingers.find``): the renderer's Ming frames
(render-set --seed 1345) read two spaces under a fingertip.

t2-0027: a covered corner marker (black and white print) was part of the hand found, and the hand's
colour taken over it came out grey: the arm, a few units of chroma redder than the board, went unfound.
t1-0008: the fingertips, blurred into the board, lay only half a unit past the midpoint between the
board's colour and the hand's, 13 mm beyond the hand found. Here both on a synthetic board crop (1 px
per mm), in a noisy frame, with no per-pixel evidence on the arm or the fingers."""

from __future__ import annotations

import cv2
import numpy as np

from vision.colour_classes import UNKNOWN
from vision.foreground import ForegroundMaps
from vision.occlusion import OcclusionFinder

W, H = 240, 200  # mm = px
BOARD_LAB = (200.0, 133.0, 149.0)  # a beige board
NOISE = 6.0  # per pixel and channel: no per-pixel test sees the skin
HOUSE_MM2 = 300.0
SITES = {"under-fingertip": (120, 64), "beside-finger": (175, 95), "far": (50, 45)}  # circle sites, 15 mm radius


def _site(cx: int, cy: int, r: int = 15, grow: int = 4) -> tuple[tuple[int, int, int, int], np.ndarray]:
    x0, y0, x1, y1 = cx - r - grow, cy - r - grow, cx + r + grow + 1, cy + r + grow + 1
    m = np.zeros((y1 - y0, x1 - x0), np.uint8)
    cv2.circle(m, (cx - x0, cy - y0), r + grow, 1, -1)
    return (x0, y0, x1, y1), m


def _finder(markers: bool = False) -> OcclusionFinder:
    ref = np.empty((H, W, 3), np.uint8)
    ref[:] = BOARD_LAB
    corners = [np.array([[2.0, 165.0], [32.0, 165.0], [32.0, 195.0], [2.0, 195.0]])] if markers else None
    return OcclusionFinder([_site(*c) for c in SITES.values()], (W, H), 1.0, HOUSE_MM2, markers_mm=corners,
                           reference_lab=ref)


def _maps(lab: np.ndarray, labels: np.ndarray) -> ForegroundMaps:
    lab = lab + np.random.default_rng(7).normal(0.0, NOISE, lab.shape).astype(np.float32)
    none = np.zeros((H, W), bool)
    return ForegroundMaps(lab, np.zeros((H, W), np.float32), none, none, none, none, none, none, NOISE)


def _board() -> tuple[np.ndarray, np.ndarray]:
    lab = np.empty((H, W, 3), np.float32)
    lab[:] = BOARD_LAB
    return lab, np.full((H, W), -2, np.int16)


def _fingertip(finger: float) -> set[str]:
    """The sites occluded: a palm at the board's lower edge (evidence no piece explains) and a finger
    ``finger`` of the way from the board's colour to the palm's, its tip 26 mm beyond the palm, over the
    first site's lower edge."""
    lab, labels = _board()
    skin = np.float32([10.0, 3.0])
    palm = (slice(110, H), slice(95, 145))
    lab[palm][..., 1:] += skin
    labels[palm] = UNKNOWN
    lab[(slice(84, 110), slice(113, 127))][..., 1:] += np.float32(finger) * skin
    names = list(SITES)
    return {names[i] for i in _finder().find(_maps(lab, labels), labels).spaces}


def _tan_arm(arm: bool) -> set[str]:
    """The sites occluded: a covered corner marker (grey print, unexplained), a small patch of the arm
    at the board's lower edge that shows as evidence, and (``arm``) the rest of a tan arm, 7 units of
    chroma redder than the board and no per-pixel evidence, its fingertips over the first site."""
    lab, labels = _board()
    if arm:
        lab[(slice(84, H), slice(100, 140))][..., 1:] += np.float32([7.0, 0.0])
    patch = (slice(178, H), slice(110, 130))
    lab[patch][..., 1:] = np.float32(BOARD_LAB[1:]) + np.float32([7.0, 0.0])
    labels[patch] = UNKNOWN
    marker = (slice(165, H), slice(2, 32))
    lab[marker] = (110.0, 128.0, 128.0)
    labels[marker] = UNKNOWN
    names = list(SITES)
    return {names[i] for i in _finder(markers=True).find(_maps(lab, labels), labels).spaces}


def test_a_fingertip_blurred_into_the_board_hides_its_site():
    """Six tenths of the way to the palm's colour: a little nearer the hand's than the board's
    (1.0 Lab units past the midpoint: the test away from the hand asks for 3)."""
    assert _fingertip(0.6) == {"under-fingertip"}


def test_bare_board_within_a_fingers_reach_is_not_taken_for_a_finger():
    assert _fingertip(0.0) == set()


def test_a_covered_marker_does_not_grey_the_hands_colour():
    """The arm, found by its colour alone, hides the site under its fingertips; with no arm there,
    nothing but the marker and the patch (far from every site)."""
    assert _tan_arm(True) == {"under-fingertip"}
    assert _tan_arm(False) == set()

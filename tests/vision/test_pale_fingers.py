"""A pale finger reaching beyond the palm the hand test found (vision/pale_fingers.py, ``PaleFingers.find``).

Photoreal-train tune t01-010 (china-a, a noisy frame): a pale hand's palm was found (its print hidden,
colours no piece explains) but its fingers differ from the pale board by a few units of chroma per
pixel, under the frame's weak threshold, and zhao-1 under a fingertip 25 mm beyond the palm was read as
empty. Here the same on a synthetic board crop (1 px per mm): a palm at the board's edge that is
unexplained evidence, and a finger of the palm's colour but without any per-pixel evidence, in a noisy
frame."""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np

from vision.colour_classes import UNKNOWN
from vision.foreground import ForegroundMaps
from vision.occlusion import OcclusionFinder

W, H = 240, 200  # mm = px
BOARD_LAB = (200.0, 124.0, 140.0)  # a pale, slightly green board
SKIN = (8.0, 8.0)  # a, b: the hand is this much redder and yellower than the board
NOISE = 6.0  # per pixel and channel: a noisy frame (the finger is under any per-pixel test)
HOUSE_MM2 = 300.0
SITES = {"under-fingertip": (120, 60), "beside-finger": (175, 95), "far": (50, 60)}  # circle sites, 15 mm radius
PALM = (slice(150, H), slice(90, 150))  # rows, cols: reaches the board's lower edge
FINGER = (slice(62, 150), slice(113, 127))  # 14 mm wide, its tip over the lower half of the first site


def _site(cx: int, cy: int, r: int = 15, grow: int = 4) -> tuple[tuple[int, int, int, int], np.ndarray]:
    x0, y0, x1, y1 = cx - r - grow, cy - r - grow, cx + r + grow + 1, cy + r + grow + 1
    m = np.zeros((y1 - y0, x1 - x0), np.uint8)
    cv2.circle(m, (cx - x0, cy - y0), r + grow, 1, -1)
    return (x0, y0, x1, y1), m


def _finder() -> OcclusionFinder:
    ref = np.empty((H, W, 3), np.uint8)
    ref[:] = BOARD_LAB
    return OcclusionFinder([_site(*c) for c in SITES.values()], (W, H), 1.0, HOUSE_MM2, reference_lab=ref)


def _maps(with_finger: bool) -> tuple[ForegroundMaps, np.ndarray]:
    rng = np.random.default_rng(7)
    lab = np.empty((H, W, 3), np.float32)
    lab[:] = BOARD_LAB
    lab[PALM][..., 1:] += SKIN
    if with_finger:
        lab[FINGER][..., 1:] += SKIN
    lab += rng.normal(0.0, NOISE, lab.shape).astype(np.float32)
    none = np.zeros((H, W), bool)
    labels = np.full((H, W), -2, np.int16)
    labels[PALM] = UNKNOWN  # the palm is evidence no piece explains; the finger is not
    maps = ForegroundMaps(lab, np.zeros((H, W), np.float32), none, none, none, none, none, none, NOISE)
    return maps, labels


def _occluded(with_finger: bool) -> set[str]:
    maps, labels = _maps(with_finger)
    occ = _finder().find(maps, labels)
    names = list(SITES)
    return {names[i] for i in occ.spaces}


def test_a_pale_fingertip_beyond_the_palm_found_hides_its_site():
    assert "under-fingertip" in _occluded(with_finger=True)


def test_the_fingers_test_does_not_spread_over_bare_board():
    """Beside the finger, far from it, and with no finger at all: the sites stay visible (the noise
    moves the board's pixels toward the hand's colour as often as away, and averages out)."""
    assert _occluded(with_finger=True) == {"under-fingertip"}
    assert _occluded(with_finger=False) == set()


def test_pieces_read_by_their_look_are_not_taken_for_fingers():
    """A tile beside the hand whose print lies towards the hand's colour (Cheops: tiles are read by
    their look before the hand test and taken out of its maps) is ``covered``: not bare board, so it
    never joins the hand as a pale finger (on the project's Cheops renderer that cost 1.3 points of
    false flags)."""
    maps, labels = _maps(with_finger=False)
    tile = (slice(105, 140), slice(155, 195))  # over the site beside the finger's line, touching the palm's reach
    lab = maps.lab.copy()
    lab[tile][..., 1:] += np.float32(SKIN[0])  # printed art of the hand's hue
    lab[(slice(140, 150), slice(145, 160))][..., 1:] += np.float32(SKIN[0])  # ... joined to the palm
    maps = replace(maps, lab=lab)
    names = list(SITES)
    as_board = {names[i] for i in _finder().find(maps, labels).spaces}
    covered = np.zeros(labels.shape, bool)
    covered[tile] = True
    as_tile = {names[i] for i in _finder().find(maps, labels, covered=covered).spaces}
    assert "beside-finger" in as_board  # the test it guards against: the tile's print taken for a finger
    assert "beside-finger" not in as_tile

"""Tiles seen but not told apart are no hand by themselves (vision/unread_tiles.py, ``OcclusionFinder.find``'s
``tiles``).

Cheops' laws in a blurred frame cover their spaces but match no face sure: they are left unread, and their
pixels stay evidence no piece explains. Four side by side made an "inner hand" (three pieces or more of such
evidence) whose margin hid every space round them (photoreal Cheops tuning sets: most false flags of frames
without a hand). A region lying mostly inside such tiles' outlines is no hand; near a hand found otherwise it
still is (an arm lying over tiles covers whole squares too); a region mostly outside them is a hand as before.
Synthetic maps, 1 px = 1 mm.
"""

from __future__ import annotations

import numpy as np

from vision.colour_classes import UNKNOWN
from vision.foreground import ForegroundMaps
from vision.occlusion import OcclusionFinder

W, H = 400, 300
TILE = 38  # mm: Cheops' tiles
PIECE_MM2 = TILE * TILE
# a 2 x 2 block of tile spaces in the middle of the board, 3 mm apart, and a space beside them
SPACES = [(150 + c * 41, 100 + r * 41) for r in range(2) for c in range(2)] + [(150 + 2 * 41, 100)]


def _finder() -> OcclusionFinder:
    square = np.ones((TILE, TILE), np.uint8)
    return OcclusionFinder([((x, y, x + TILE, y + TILE), square) for x, y in SPACES], (W, H), 1.0, PIECE_MM2)


def _maps() -> ForegroundMaps:
    none = np.zeros((H, W), bool)
    return ForegroundMaps(np.zeros((H, W, 3), np.float32), np.zeros((H, W), np.float32), none, none, none, none,
                          none, none, 2.0)


def _unread_tiles_and_their_outlines(grow: int = 6) -> tuple[np.ndarray, np.ndarray]:
    """Labels with the four tiles' pixels (and a rim of 2 mm beyond: blur, shadow) unknown, and the tiles' outlines
    grown as ``AppearanceRead.unread_tiles`` grows them."""
    labels = np.full((H, W), -2, np.int16)
    tiles = np.zeros((H, W), bool)
    for x, y in SPACES[:4]:
        labels[y - 2:y + TILE + 2, x - 2:x + TILE + 2] = UNKNOWN
        tiles[y - grow:y + TILE + grow, x - grow:x + TILE + grow] = True
    return labels, tiles


def test_unread_tiles_side_by_side_are_no_hand() -> None:
    labels, tiles = _unread_tiles_and_their_outlines()
    assert _finder().find(_maps(), labels).spaces == frozenset(range(5))  # without the outlines: a "hand"
    assert _finder().find(_maps(), labels, tiles=tiles).spaces == frozenset()


def test_a_palm_over_the_tiles_reaching_beyond_them_is_a_hand() -> None:
    """A palm lying over two of the tiles and as much board beyond them: less than ``TILE_SHARE`` of its
    evidence inside the outlines."""
    labels, tiles = _unread_tiles_and_their_outlines()
    labels[60:100, 150:229] = UNKNOWN  # fingers above the tiles, as big as the two tiles
    labels[40:60, 170:210] = UNKNOWN
    assert _finder().find(_maps(), labels, tiles=tiles).spaces >= {0, 1, 2, 3}


def test_unread_tiles_near_a_hand_are_part_of_it() -> None:
    """An arm over the board's edge 30 mm from the tiles (``TILE_NEAR_MM``: 50): the tiles beside it may be
    its skin over squares; 80 mm away they are tiles."""
    labels, tiles = _unread_tiles_and_their_outlines()
    arm = labels.copy()
    arm[:70, 160:220] = UNKNOWN  # from the top edge to 30 mm above the tiles
    assert _finder().find(_maps(), arm, tiles=tiles).spaces == frozenset(range(5))
    far = labels.copy()
    far[:, 20:70] = UNKNOWN  # an arm down the left side, 80 mm from the tiles
    assert _finder().find(_maps(), far, tiles=tiles).spaces == frozenset()

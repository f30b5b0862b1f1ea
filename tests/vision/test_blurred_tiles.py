"""A blurred frame's tiles are no hand (vision/frame_blur.py, vision/faces.py ``FaceBook.blurred``,
vision/occlusion.py).

Photoreal Cheops (photoreal-cheops2 tune t00-006, no hand): a frame out of focus matched few of its
tiles' faces, their print -- explained by no piece read -- and the blur round the tiles that were
read made a hand of the pyramid's lower rows (49 spaces flagged). The frame's blur is measured on
the corner markers and the faces are matched as blurred; and weak difference just beside a piece
read by its look is its blur, as beside a piece of a learned colour. Synthetic, 1 px per mm."""

from __future__ import annotations

import cv2
import numpy as np

from scorer.core.types import Piece
from vision.foreground import ForegroundMaps
from vision.frame_blur import BlurMeter
from vision.faces import FaceBook, token
from vision.layout import load_layout
from vision.occlusion import OcclusionFinder

W, H = 320, 240  # mm = px


def _texture(rng: np.random.Generator, h: int, w: int, cell: int) -> np.ndarray:
    """A printed pattern (BGR): random colour cells of ``cell`` px, as tile art or a marker's squares."""
    small = rng.integers(20, 236, (h // cell + 1, w // cell + 1, 3)).astype(np.uint8)
    return cv2.resize(small, (small.shape[1] * cell, small.shape[0] * cell), interpolation=cv2.INTER_NEAREST)[:h, :w]


def _blur(img: np.ndarray, sigma: float) -> np.ndarray:
    return cv2.GaussianBlur(img, (0, 0), sigma)


def test_the_blur_is_measured_on_the_markers():
    rng = np.random.default_rng(3)
    board = np.full((H, W, 3), 200, np.uint8)
    markers = np.zeros((H, W), bool)
    for x, y in ((10, 10), (270, 10), (10, 190), (270, 190)):
        board[y:y + 40, x:x + 40] = _texture(rng, 40, 40, 6).mean(axis=2, keepdims=True) > 128
        board[y:y + 40, x:x + 40] *= 255
        markers[y - 5:y + 45, x - 5:x + 45] = True
    meter = BlurMeter(board, markers)
    assert meter.sigma(board) == 0.0
    assert meter.sigma(_blur(board, 3.0)) == 3.0
    assert 4.0 <= meter.sigma(_blur(board, 4.5)) <= 5.0
    covered = _blur(board, 3.0)
    covered[5:55, 5:55] = (120, 150, 200)  # a hand over one marker: the others say
    assert meter.sigma(covered) == 3.0


def test_a_blurred_tile_is_matched_by_its_blurred_face():
    cheops = load_layout("cheops")
    rng = np.random.default_rng(5)
    kinds = [Piece("neutral", k) for k in ("family-A", "family-B", "family-C", "family-D")]
    faces = {token(p): _texture(rng, 30, 30, 3) for p in kinds}
    book = FaceBook(cheops, faces, 1.0)
    board = np.full((H, W, 3), 190, np.uint8)
    tile = _texture(rng, 38, 38, 3)
    tile[4:34, 4:34] = faces[token(kinds[2])]
    board[100:138, 140:178] = tile
    centre = (159.0, 119.0)
    assert book.match(board, centre, kinds).piece == kinds[2]  # sharp: as enrolled
    seen = _blur(board, 4.0)
    assert book.match(seen, centre, kinds).piece is None  # out of focus: the sharp faces are not sure
    assert book.blurred(4.0).match(seen, centre, kinds).piece == kinds[2]
    assert book.blurred(4.0) is book.blurred(4.0) and book.blurred(0.0) is book


def _maps(weak: np.ndarray) -> ForegroundMaps:
    none = np.zeros((H, W), bool)
    return ForegroundMaps(lab=np.zeros((H, W, 3), np.float32), chroma=np.zeros((H, W), np.float32), piece=weak,
                          strict=none, seeds=none, dark=none, weak=weak, weak_chroma=none, noise=2.0)


def test_the_blur_round_tiles_read_is_no_hand():
    """Four tiles read by their look (explained, taken out of the maps) with a 3 mm rim of weak
    difference round them (their blur) in a frame out of focus: no hand. Skin there is one."""
    space = np.ones((40, 40), np.uint8)
    finder = OcclusionFinder([((100, 80, 140, 120), space), ((160, 80, 200, 120), space)], (W, H), 1.0, 300.0)
    covered = np.zeros((H, W), bool)
    covered[60:160, 80:240] = True
    rim = np.zeros((H, W), bool)
    rim[57:163, 77:243] = True
    rim &= ~covered
    labels = np.full((H, W), -2, np.int16)
    assert not finder.find(_maps(rim), labels, covered=covered).mask.any()
    assert finder.find(_maps(rim), labels).mask.any()  # without the tiles read, that rim is a hand's size
    skin = labels.copy()
    skin[100:160, 30:78] = -1  # a palm beside the tiles: colour no piece explains
    assert finder.find(_maps(rim), skin, covered=covered).mask[100:160, 30:78].all()

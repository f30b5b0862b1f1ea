"""vision/face_correlation.py: OpenCV's TM_CCOEFF_NORMED for a stack of templates at once, and
FaceBook.match on it choosing what one cv2.matchTemplate call per template and turn chose."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from scorer.core.types import Piece
from vision.face_correlation import TemplateStack, ccoeff_normed
from vision.faces import COLOUR_SCALE, COLOUR_WEIGHT, SMOOTH_SIGMA, FaceBook, _chromaticity, _crop
from vision.layout import load_layout


def _blurred_noise(rng: np.random.Generator, shape: tuple[int, ...], dtype) -> np.ndarray:
    return cv2.GaussianBlur((rng.random(shape) * 255).astype(dtype), (0, 0), 1.5)


@pytest.mark.parametrize("dtype", [np.uint8, np.float32])
@pytest.mark.parametrize("channels", [1, 3])
def test_each_template_scores_as_opencvs_match_template(dtype, channels):
    rng = np.random.default_rng(3 + channels)
    for _ in range(40):
        th, tw = (int(v) for v in rng.integers(4, 36, 2))
        size = (th + int(rng.integers(0, 12)), tw + int(rng.integers(0, 12)))
        extra = (channels,) if channels == 3 else ()
        window = _blurred_noise(rng, size + extra, dtype)
        templates = [_blurred_noise(rng, (th, tw) + extra, dtype) for _ in range(4)]
        got = ccoeff_normed(window, TemplateStack.of(templates))
        assert got.shape == (4, size[0] - th + 1, size[1] - tw + 1) and got.dtype == np.float32
        for t, g in zip(templates, got):
            # OpenCV's own rounding is ~1e-5 (its correlation in float32 by DFT); this one's ~1e-7
            assert np.abs(cv2.matchTemplate(window, t, cv2.TM_CCOEFF_NORMED) - g).max() < 1e-4


def test_a_flat_window_or_template_scores_zero_and_wrong_shapes_are_refused():
    rng = np.random.default_rng(5)
    templates = [_blurred_noise(rng, (10, 12, 3), np.uint8) for _ in range(2)]
    flat = np.full((16, 16, 3), 90, np.uint8)
    assert (ccoeff_normed(flat, TemplateStack.of(templates)) == 0).all()
    assert (cv2.matchTemplate(flat, templates[0], cv2.TM_CCOEFF_NORMED) == 0).all()  # as OpenCV
    window = _blurred_noise(rng, (16, 16, 3), np.uint8)
    assert (ccoeff_normed(window, TemplateStack.of([np.full((10, 12, 3), 7, np.uint8)])) == 0).all()
    with pytest.raises(ValueError):
        TemplateStack.of([templates[0], templates[0][:5]])
    with pytest.raises(ValueError):
        ccoeff_normed(window[:8], TemplateStack.of(templates))  # smaller than the templates
    with pytest.raises(ValueError):
        ccoeff_normed(window[..., 0], TemplateStack.of(templates))  # one channel against three


def _match_one_by_one(book: FaceBook, corrected: np.ndarray, centre_mm, candidates, search_mm: float = 4.5):
    """FaceBook.match as it was: one cv2.matchTemplate per candidate and turn (best score, turn, offset per piece)."""
    r = int(round(search_mm * book.s))
    cx, cy = centre_mm[0] * book.s, centre_mm[1] * book.s
    best = {}
    for piece in candidates:
        for k, tmpl in book.turned[piece]:
            th, tw = tmpl.shape[:2]
            win = cv2.GaussianBlur(_crop(corrected, cx, cy, tw + 2 * r, th + 2 * r), (0, 0), SMOOTH_SIGMA)
            _, v, _, loc = cv2.minMaxLoc(cv2.matchTemplate(win, tmpl, cv2.TM_CCOEFF_NORMED))
            if piece in best and v <= best[piece][0]:
                continue
            d = float(np.linalg.norm(_chromaticity(win[loc[1]:loc[1] + th, loc[0]:loc[0] + tw]) - book.chroma[piece]))
            v = float(v) - COLOUR_WEIGHT * min(1.0, d / COLOUR_SCALE)
            if piece not in best or v > best[piece][0]:
                best[piece] = (v, k, ((loc[0] - r) / book.s, (loc[1] - r) / book.s))
    return max(best.items(), key=lambda kv: kv[1][0])


def test_face_book_match_chooses_what_one_match_template_per_turn_chose():
    """Faces of two sizes (square tiles in four turns, an oblong card in two) and crops with each
    face pasted turned and shifted, among noise: the same piece, turn and place, the score to 1e-4."""
    layout = load_layout("cheops")
    rng = np.random.default_rng(11)
    faces = {f"neutral:{k}": _blurred_noise(rng, (30, 30, 3), np.uint8) for k in ("family-A", "family-B", "neighbour")}
    book = FaceBook(layout, faces, 1.0)
    book.turned[Piece("neutral", "law")] = [(k, _blurred_noise(rng, (20, 34, 3), np.uint8)) for k in (0, 2)]
    book.chroma[Piece("neutral", "law")] = np.full(3, 1 / 3, np.float32)
    candidates = [Piece("neutral", k) for k in ("family-A", "family-B", "neighbour", "law")]
    for trial in range(12):
        board = _blurred_noise(rng, (80, 80, 3), np.uint8)
        piece = candidates[trial % 3]
        turn, tmpl = book.turned[piece][trial % 4]
        y, x = 25 + int(rng.integers(-4, 5)), 25 + int(rng.integers(-4, 5))
        board[y:y + 30, x:x + 30] = np.clip(tmpl.astype(int) + rng.integers(-8, 9, tmpl.shape), 0, 255)
        m = book.match(board, (40.0, 40.0), candidates)
        top, (score, k, offset) = _match_one_by_one(book, board, (40.0, 40.0), candidates)
        assert m.best == top == piece and m.turn == k == turn and m.offset_mm == offset
        assert abs(m.score - score) < 1e-4

"""Work the hand test skips when it cannot change the answer (vision/occlusion.py, vision/structure.py):
the colour blobs when no region of evidence is big enough to hold one too big, and the faded print when
no print was lost away from pieces. Each against the same call made the long way."""

from __future__ import annotations

import numpy as np
import pytest

import vision.occlusion as occlusion
from vision.foreground import ForegroundMaps
from vision.occlusion import OcclusionFinder
from vision.structure import PrintWatcher

W, H = 320, 240  # mm = px
PIECE_MM2 = 400.0


def _finder() -> OcclusionFinder:
    spaces = [((x, y, x + 40, y + 40), np.ones((40, 40), np.uint8)) for x in range(20, 280, 60) for y in range(20, 200, 60)]
    return OcclusionFinder(spaces, (W, H), 1.0, PIECE_MM2)


def _maps(rng: np.random.Generator, labels: np.ndarray) -> ForegroundMaps:
    weak = (labels >= -1) | (rng.random(labels.shape) < 0.002)
    none = np.zeros(labels.shape, bool)
    return ForegroundMaps(lab=np.zeros(labels.shape + (3,), np.float32), chroma=np.zeros(labels.shape, np.float32),
                          piece=labels >= -1, strict=labels >= -1, seeds=none, dark=none, weak=weak,
                          weak_chroma=weak, noise=2.0)


def _pieces(rng: np.random.Generator, count: int, big: int = 0) -> np.ndarray:
    """Owner labels (-2 bare) with ``count`` piece-sized squares of random colours, and ``big`` blobs of one
    colour far bigger than a heap (a palm that looks red)."""
    labels = np.full((H, W), -2, np.int16)
    for _ in range(count):
        x, y = int(rng.integers(14, W - 34)), int(rng.integers(14, H - 34))
        labels[y:y + 20, x:x + 20] = int(rng.integers(0, 5))
    for _ in range(big):
        x, y = int(rng.integers(20, W - 120)), int(rng.integers(20, H - 80))
        labels[y:y + 60, x:x + 100] = 3
    return labels


def _both_ways(monkeypatch, finder, maps, labels, lost=None, faded=None):
    quick = finder.find(maps, labels, lost, faded_print=faded)
    with monkeypatch.context() as m:
        m.setattr(occlusion, "_largest", lambda stats: np.inf)  # never skip the colour blobs
        slow = finder.find(maps, labels, lost, faded_print=None if faded is None else (faded() if callable(faded) else faded))
    return quick, slow


@pytest.mark.parametrize("big", [0, 1])
def test_hands_found_without_the_colour_blobs_are_those_found_with_them(monkeypatch, big):
    rng = np.random.default_rng(41 + big)
    finder = _finder()
    for count in (0, 3, 12, 40, 90):
        labels = _pieces(rng, count, big)
        maps = _maps(rng, labels)
        lost = np.zeros((H, W), bool)
        lost[100:124, 150:190] = rng.random() < 0.5  # print lost somewhere (under a piece, or not)
        quick, slow = _both_ways(monkeypatch, finder, maps, labels, lost, lost.copy())
        assert quick.spaces == slow.spaces and np.array_equal(quick.mask, slow.mask)
    if big:
        assert quick.spaces  # a blob of one colour that big is a hand: the blobs were looked at


def test_faded_print_is_asked_for_only_where_print_was_lost_away_from_pieces(monkeypatch):
    rng = np.random.default_rng(43)
    finder = _finder()
    labels = _pieces(rng, 0)
    labels[100:130, 140:180] = 2  # a piece, and print lost under it only
    maps = _maps(rng, labels)
    lost = np.zeros((H, W), bool)
    lost[104:128, 144:176] = True
    asked = []

    def faded():
        asked.append(1)
        return lost.copy()

    quick, slow = _both_ways(monkeypatch, finder, maps, labels, lost, faded)
    assert quick.spaces == slow.spaces and np.array_equal(quick.mask, slow.mask) and len(asked) == 1  # (slow only)
    lost[20:80, 200:300] = True  # and print lost away from it: now it counts
    asked.clear()
    quick, slow = _both_ways(monkeypatch, finder, maps, labels, lost, faded)
    assert quick.spaces == slow.spaces and np.array_equal(quick.mask, slow.mask) and len(asked) == 2


def test_faded_print_is_made_once_when_first_asked_for_within_the_print_lost():
    rng = np.random.default_rng(44)
    board = np.full((H, W), 200.0, np.float32)
    for x in range(10, W, 23):
        board[:, x:x + 2] = 120.0
    watcher = PrintWatcher(board)
    frame = board.copy()
    frame[80:160, 100:220] = 235.0 + 0.15 * (board[80:160, 100:220] - 200.0)  # glare
    frame[40:70, 20:90] = 190.0  # a pale palm
    seen = watcher.look((frame + rng.normal(0, 3.0, frame.shape)).astype(np.float32))
    assert seen.lost.any()
    first = seen.faded
    assert seen.faded is first and first.any() and not (first & ~seen.lost).any()

"""The reader's work done in boxes around scattered pixels, or skipped until asked for, gives what the
plain computation gave (vision: ``blobs.clusters`` and its users, ``blobs.dilated_in`` and the hand's
skin reached through it, the print watcher's 8-bit lightness and quartiles, ``ForegroundMaps.lab`` made
when asked)."""

from __future__ import annotations

import cv2
import numpy as np

from test_reader_speedups import _resolve_on_the_whole_board  # the same reference as there

from vision.blobs import clusters, dilated_in, members
from vision.colour_classes import resolve_ambiguous
from vision.foreground import Foreground
from vision.occlusion import OcclusionFinder
from vision.structure import PrintWatcher


def _scattered(rng: np.random.Generator, shape: tuple[int, int], patches: int) -> np.ndarray:
    """A few patches of scattered pixels (the rims of pieces) on an empty board."""
    m = np.zeros(shape, bool)
    for _ in range(patches):
        y, x = int(rng.integers(0, shape[0])), int(rng.integers(0, shape[1]))
        m[y:y + 25, x:x + 25] = rng.random(m[y:y + 25, x:x + 25].shape) < rng.random() * 0.3
    return m


def test_clusters_hold_every_pixel_in_few_boxes():
    rng = np.random.default_rng(21)
    for i in range(300):
        shape = (int(rng.integers(1, 300)), int(rng.integers(1, 300)))
        m = _scattered(rng, shape, int(rng.integers(0, 8))) if i % 2 else rng.random(shape) < rng.random() * 0.01
        for cell in (8, 16):
            covered = np.zeros(shape, bool)
            boxes = clusters(m, cell)
            for x0, y0, x1, y1 in boxes:
                assert 0 <= x0 < x1 <= shape[1] and 0 <= y0 < y1 <= shape[0]
                covered[y0:y1, x0:x1] = True
            assert not (m & ~covered).any()
            assert m.any() or not boxes


_resolved_on_the_whole_board = _resolve_on_the_whole_board  # the reference: every pixel's nearest sure one


def test_ambiguous_colours_resolved_per_cluster_in_place_as_on_the_whole_board():
    rng = np.random.default_rng(22)
    for _ in range(40):
        shape = (int(rng.integers(20, 200)), int(rng.integers(20, 200)))
        labels = np.where(_scattered(rng, shape, 12), rng.integers(-1, 4, shape), -2).astype(np.int16)
        amb = (labels >= 0) & (rng.random(shape) < rng.random())
        for reach in (3.0, 1.5):
            want = _resolved_on_the_whole_board(labels, amb, reach)
            assert np.array_equal(resolve_ambiguous(labels, amb, reach), want)
            mine = labels.copy()
            assert resolve_ambiguous(mine, amb, reach, in_place=True) is mine and np.array_equal(mine, want)


def test_pieces_near_scattered_lost_print_are_the_whole_board_dilation_there():
    rng = np.random.default_rng(23)
    shape = (240, 300)
    finder = OcclusionFinder([], (shape[1], shape[0]), 1.0, 400.0)
    for _ in range(20):
        known = _scattered(rng, shape, 10).astype(np.uint8)
        where = _scattered(rng, shape, int(rng.integers(0, 6)))
        whole = cv2.dilate(known, finder.piece_reach) > 0
        assert np.array_equal(finder._near_pieces(known, where) & where, whole & where)


def test_a_mask_dilated_in_a_box_is_the_whole_boards_dilation_there():
    rng = np.random.default_rng(29)
    for i in range(200):
        shape = (int(rng.integers(1, 200)), int(rng.integers(1, 200)))
        m = _scattered(rng, shape, int(rng.integers(0, 6)))
        r = int(rng.integers(1, 30))
        kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * r + 1, 2 * r + 1))
        x0, y0 = int(rng.integers(0, shape[1])), int(rng.integers(0, shape[0]))
        box = (x0, y0, int(rng.integers(x0, shape[1] + 1)), int(rng.integers(y0, shape[0] + 1)))
        whole = cv2.dilate(m.astype(np.uint8), kernel)
        assert np.array_equal(dilated_in(m, kernel, box), whole[box[1]:box[3], box[0]:box[2]])


def _skin_reached_on_the_whole_board(finder: OcclusionFinder, skin: np.ndarray, hand: np.ndarray) -> np.ndarray:
    n, lbl = cv2.connectedComponents(skin.view(np.uint8), connectivity=8)
    taken = np.zeros(n, bool)
    reached = hand
    for _ in range(n - 1):
        near = np.unique(lbl[(cv2.dilate(reached.astype(np.uint8), finder.skin_kernel) > 0) & skin])
        near = near[(near > 0) & ~taken[near]]
        if not near.size:
            break
        taken[near] = True
        reached = hand | members(lbl, np.flatnonzero(taken), n)
    return members(lbl, np.flatnonzero(taken), n)


def test_skin_reached_from_a_hand_is_the_whole_boards():
    rng = np.random.default_rng(31)
    shape = (240, 300)
    finder = OcclusionFinder([], (shape[1], shape[0]), 1.0, 400.0)
    some = 0
    for _ in range(30):
        hand = np.zeros(shape, bool)
        y, x = (int(v) for v in rng.integers(0, 200, 2))
        hand[y:y + 40, x:x + int(rng.integers(5, 90))] = True
        skin = _scattered(rng, shape, int(rng.integers(0, 12)))
        skin[hand] = False
        got = finder._skin_reached(skin, hand)
        assert np.array_equal(got, _skin_reached_on_the_whole_board(finder, skin, hand))
        some += bool(got.any()) and bool((skin & ~got).any())  # some skin reached, some not
    assert some >= 5


def test_print_watched_on_the_8_bit_lightness_as_on_its_floats():
    rng = np.random.default_rng(24)
    board = np.full((240, 300, 3), 200, np.uint8)
    for _ in range(40):  # print: lines and boxes
        p, q = rng.integers(0, 300, 2), rng.integers(0, 240, 2)
        cv2.line(board, (int(p[0]), int(q[0])), (int(p[1]), int(q[1])), (40, 60, 90), 2)
    ref_l = Foreground.lab8_of(board)[..., 0].astype(np.float32)
    watcher = PrintWatcher(ref_l)
    frame = board.copy()
    cv2.circle(frame, (150, 120), 40, (150, 170, 210), -1)  # a hand over the print
    lab8 = Foreground.lab8_of(np.clip(frame + rng.normal(0, 3, frame.shape), 0, 255).astype(np.uint8))
    a, b = watcher.look(lab8[..., 0]), watcher.look(lab8.astype(np.float32)[..., 0])
    assert a.lost.any() and np.array_equal(a.lost, b.lost) and np.array_equal(a.faded, b.faded)


def test_the_foreground_float_lab_is_made_when_asked_from_the_8_bit_one():
    rng = np.random.default_rng(25)
    reference = rng.integers(0, 256, (60, 80, 3), np.uint8)
    maps = Foreground(reference).measure(rng.integers(0, 256, (60, 80, 3), np.uint8))
    assert maps.lab.dtype == np.float32 and np.array_equal(maps.lab, maps.lab8.astype(np.float32))
    assert maps.lab is maps.lab  # made once


def test_both_quartiles_at_once_are_each_taken_alone():
    """``PrintWatcher.look`` takes a float32 array's quartiles in one call: the values (and float32) of two."""
    from vision.structure import QUARTILES

    rng = np.random.default_rng(27)
    for i in range(500):
        r = (rng.random(int(rng.integers(1, 6000))) * rng.random() * 10).astype(np.float32)
        if i % 3 == 0:
            r = np.round(r, 1).astype(np.float32)
        q25, q75 = np.percentile(r, QUARTILES)
        assert q25 == np.percentile(r, 25) and q75 == np.percentile(r, 75)
        assert float(q75 - q25) == float(np.percentile(r, 75) - np.percentile(r, 25))

"""The reader's faster paths give what the plain ones give (vision: foreground, colour lookup,
colour blobs, bare spaces). Each compares against the straightforward computation it replaced."""

from __future__ import annotations

import cv2
import numpy as np

from vision.colour_classes import Q, lut_index
from vision.foreground import Foreground, _outside8
from vision.occlusion import _colour_components
from vision.space_crops import bare_spaces


def _per_colour_components(labels: np.ndarray) -> list[tuple[int, frozenset]]:
    """Each colour's 8-connected blobs found one colour at a time: (colour, pixel set) each."""
    out = []
    for oi in np.unique(labels[labels >= 0]):
        n, lbl = cv2.connectedComponents((labels == oi).astype(np.uint8), connectivity=8)
        for k in range(1, n):
            out.append((int(oi), frozenset(np.flatnonzero(lbl.ravel() == k).tolist())))
    return out


def _random_labels(rng: np.random.Generator, shape=(90, 120)) -> np.ndarray:
    """Touching rectangles and discs of a few colours on a bare board (-2), some unknown (-1)."""
    labels = np.full(shape, -2, np.int16)
    for _ in range(25):
        colour = int(rng.integers(-1, 5))
        x, y = int(rng.integers(0, shape[1])), int(rng.integers(0, shape[0]))
        if rng.random() < 0.5:
            labels[y:y + int(rng.integers(2, 15)), x:x + int(rng.integers(2, 15))] = colour
        else:
            cv2.circle(labels, (x, y), int(rng.integers(1, 9)), colour, -1)
    return labels


def test_colour_blobs_in_one_pass_are_each_colours_own_blobs():
    rng = np.random.default_rng(7)
    for _ in range(30):
        labels = _random_labels(rng)
        lbl, areas = _colour_components(labels)
        got = []
        for k in np.unique(lbl[lbl > 0]):
            px = np.flatnonzero(lbl.ravel() == k)
            colours = np.unique(labels.ravel()[px])
            assert len(colours) == 1, "a blob holds two colours"
            assert areas[k] == len(px)
            got.append((int(colours[0]), frozenset(px.tolist())))
        assert sorted(got, key=lambda c: min(c[1])) == sorted(_per_colour_components(labels), key=lambda c: min(c[1]))


def test_colour_blobs_bigger_than_the_limit_are_split_exactly():
    """With ``min_area``, blobs of two colours no bigger than it stay whole (no colour of them can
    be bigger), every blob bigger than it is exactly one colour's blob."""
    rng = np.random.default_rng(8)
    for _ in range(30):
        labels = _random_labels(rng)
        lbl, areas = _colour_components(labels, min_area=60)
        want = {px for _, px in _per_colour_components(labels) if len(px) > 60}
        got = {frozenset(np.flatnonzero(lbl.ravel() == k).tolist()) for k in np.flatnonzero(areas > 60)}
        assert got == want


def test_one_flat_index_finds_the_same_lookup_cell():
    rng = np.random.default_rng(9)
    lab = rng.uniform(-20, 280, (40, 50, 3)).astype(np.float32)
    n = 256 // Q
    table = rng.integers(0, 100, n ** 3).reshape(n, n, n)
    q = np.clip(lab, 0, 255).astype(np.uint8) // Q
    assert np.array_equal(table.reshape(-1)[lut_index(lab)], table[q[..., 0], q[..., 1], q[..., 2]])


def test_the_8_bit_difference_outside_a_range_is_the_float_one():
    rng = np.random.default_rng(10)
    ref = rng.integers(0, 256, (60, 70)).astype(np.uint8)
    lo, hi = cv2.erode(ref, np.ones((3, 3), np.uint8)), cv2.dilate(ref, np.ones((3, 3), np.uint8))
    v = rng.integers(0, 256, (60, 70)).astype(np.uint8)
    vf, lof, hif = (x.astype(np.float32) for x in (v, lo, hi))
    assert np.array_equal(_outside8(v, lo, hi).astype(np.float32), np.maximum(np.maximum(vf - hif, lof - vf), 0.0))


def test_dark_pixels_are_those_below_half_the_print_and_well_below_it():
    """``Foreground.measure``'s dark map (one comparison with a precomputed map) against its rule."""
    board = np.full((40, 40, 3), 200, np.uint8)
    board[:, 20:] = 90  # darker print on the right
    fg = Foreground(board)
    frame = board.copy()
    frame[5:15, 5:15] = 40  # very dark on the pale half: dark
    frame[25:35, 25:35] = 50  # on the dark print: L above half of it -> not dark
    frame[25:35, 5:15] = 120  # a shadow on the pale half: darker, not dark
    maps = fg.measure(frame, noise=2.0)
    L = cv2.cvtColor(cv2.GaussianBlur(frame, (0, 0), 0.7), cv2.COLOR_BGR2LAB)[..., 0].astype(np.float32)
    lo = fg.lo[0].astype(np.float32)
    assert np.array_equal(maps.dark, (L < 0.5 * lo) & (lo - L > 30.0))
    assert maps.dark[10, 10] and not maps.dark[30, 30] and not maps.dark[30, 10]


def test_a_space_with_nothing_on_it_is_bare_and_one_with_a_piece_is_not():
    box = np.ones((10, 10), np.uint8)
    masks = [((0, 0, 10, 10), box), ((20, 0, 30, 10), box), ((40, 0, 50, 10), box)]
    piece = np.zeros((20, 60), bool)
    piece[2:6, 22:26] = True  # a piece on space 1
    piece[0, 40:42] = True  # two stray pixels on space 2: noise, still bare
    assert bare_spaces(masks, range(3), piece, 1.0) == {0, 2}
    # a part of the board (a partial read) starting at x=15: space 0 is not wholly inside it
    assert bare_spaces(masks, range(3), piece[:, 15:], 1.0, origin=(15, 0)) == {2}


def test_a_reader_looks_for_the_markers_where_the_enrolment_photo_had_them(china_layout, enrolled_table, tmp_path):
    """A new reader, and one reset, expects the board where the table's enrolment photo showed it (a
    mounted camera): its first registration searches small crops there, not the whole frame."""
    from dataclasses import replace

    from scorer.core.types import Board
    from vision.render import Conditions, render
    from vision.table_reader import TableReader

    camera = Conditions(size=(1280, 720), tilt_deg=8, seed=40)
    model = enrolled_table(china_layout, camera, tmp_path)
    reader = TableReader(china_layout, model)
    seen = []
    detector = reader.registrar.detector

    class Spy:
        def detectMarkers(self, img):
            seen.append(img.shape[:2])
            return detector.detectMarkers(img)

        def getDetectorParameters(self):
            return detector.getDetectorParameters()

    reader.registrar.detector = Spy()  # the whole-frame detector (the crops have their own)
    frame = render(china_layout, Board(), replace(camera, seed=44)).image
    assert reader.read(frame).registration.status.value == "ok"
    assert not seen
    moved = render(china_layout, Board(), replace(camera, seed=45, tilt_deg=16, offset=(0.1, 0.04))).image
    assert reader.read(moved).registration.usable and seen == [(720, 1280)]
    reader.reset()  # as new: the enrolment photo's place again, not the moved board's
    seen.clear()
    assert reader.read(frame).registration.status.value == "ok" and not seen

"""The reader's faster set-up and per-space paths give what the plain ones give: the space map
(vision/space_masks.py: each space's distances in a box round it, not over the whole board; a pixel as
far from two spaces is the first one's), the plain kinds' colour table (vision/local_light.py
``kind_lut``: each colour over the cells it can reach) and the light measured on a space's box
(``local_difference``: numpy's means and medians taken faster)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.colour_classes import Q, colour_distance, lab_norm, lut_cells
from vision.foreground import Foreground
from vision.layout import load_layout, shipped_layouts
from vision.local_light import FG_MIN, FG_NOISE, kind_lut, local_difference
from vision.space_masks import SPACE_MARGIN_MM, space_map


def _whole_board_map(layout, s: float, w: int, h: int) -> np.ndarray:
    lab = np.full((h, w), -1, np.int16)
    dist = np.full((h, w), np.inf, np.float32)
    for i, sp in enumerate(layout.spaces):
        m = np.ones((h, w), np.uint8)
        cv2.fillPoly(m, [np.round(np.asarray(sp.polygon) * s).astype(np.int32)], 0)
        d = np.round(cv2.distanceTransform(m, cv2.DIST_L2, 3) / s, 3)
        better = (d <= SPACE_MARGIN_MM) & (d < dist)
        lab[better] = i
        dist[better] = d[better]
    return lab


@pytest.mark.parametrize("layout_id,s", [(lid, 1.0) for lid in shipped_layouts()] + [("china-a", 1.37), ("cheops", 0.5)])
def test_the_space_map_is_the_whole_boards(layout_id, s):
    layout = load_layout(layout_id)
    w, h = int(round(layout.size[0] * s)), int(round(layout.size[1] * s))
    got = space_map(layout, s, w, h)
    assert got.dtype == np.int16 and got.shape == (h, w)
    assert np.array_equal(got, _whole_board_map(layout, s, w, h))
    assert (got >= 0).any() and set(np.unique(got)) <= set(range(-1, len(layout.spaces)))


def _kind_lut_over_every_cell(protos, owner_of, limits) -> np.ndarray:
    cells = lut_cells()
    best = np.full(len(cells), np.inf, np.float32)
    arg = np.zeros(len(cells), np.int32)
    for j in range(len(protos)):
        d = colour_distance(cells, protos[j], limits[j])
        better = d < best
        best[better] = d[better]
        arg[better] = j
    lut = owner_of[arg].astype(np.int8)
    lut[best > 1.0] = -1
    return lut.reshape((256 // Q,) * 3)


def test_the_kind_table_is_the_one_over_every_cell():
    rng = np.random.default_rng(17)
    for trial in range(24):
        k = int(rng.integers(1, 30))
        protos = (rng.random((k, 3)) * 255).astype(np.float32)
        if trial % 3 == 0:
            protos[:, 0] = rng.random(k) * 60  # dark colours: their hue weighs less, they reach further in a and b
        if trial % 4 == 0:
            protos[1:] = protos[:1] + rng.normal(0, 3, (k - 1, 3)).astype(np.float32)  # close rivals
        owner_of = rng.integers(0, 6, k)
        limits = (rng.random(k) * [60, 8][trial % 2] + [5, 24][trial % 2]).astype(np.float32)
        got = kind_lut(protos, owner_of, limits)
        assert np.array_equal(got, _kind_lut_over_every_cell(protos, owner_of, limits))
        assert (got >= 0).any()


def _local_difference_with_numpy(rect, reference, ref_lab, box, noise, ignore):
    x0, y0, x1, y1 = box
    r = rect[y0:y1, x0:x1]
    ratio = (r.astype(np.float32) + 1.0) / (reference[y0:y1, x0:x1].astype(np.float32) + 1.0)
    use = ~ignore[y0:y1, x0:x1]
    vals = ratio[use] if use.sum() > 16 else ratio.reshape(-1, 3)
    lum = vals.mean(axis=1)
    hist, edges = np.histogram(lum, bins=np.arange(0.0, max(0.1, float(lum.max())) + 0.04, 0.03))
    mode = float(edges[int(np.argmax(hist))] + 0.015)
    near = np.abs(lum - mode) < 0.06 * max(mode, 0.05)
    gain = np.median(vals[near], axis=0) if near.sum() > 8 else np.median(vals, axis=0)
    corr = np.clip(r.astype(np.float32) / gain[None, None, :], 0, 255).astype(np.uint8)
    lab = Foreground.lab_of(corr)
    return lab_norm(lab - ref_lab[y0:y1, x0:x1]) > max(FG_MIN, FG_NOISE * noise), lab


def test_the_light_on_a_space_box_is_numpys():
    rng = np.random.default_rng(23)
    reference = cv2.GaussianBlur((rng.random((160, 200, 3)) * 200 + 30).astype(np.uint8), (0, 0), 3)
    ref_lab = Foreground.lab_of(reference)
    for trial in range(30):
        gain = rng.uniform(0.6, 1.3, 3)
        rect = np.clip(reference * gain + rng.normal(0, 3, reference.shape), 0, 255).astype(np.uint8)
        for _ in range(4):  # pieces
            x, y = (int(v) for v in rng.integers(0, 180, 2))
            rect[y % 150:y % 150 + 20, x:x + 20] = rng.integers(0, 255, 3)
        ignore = np.zeros(reference.shape[:2], bool)
        if trial % 2:
            ignore[40:90, 30:100] = True
        if trial % 5 == 0:
            ignore[:] = True  # too little left to measure on: the whole box
        x0, y0 = (int(v) for v in rng.integers(0, 100, 2))
        box = (x0, y0, x0 + int(rng.integers(8, 100)), y0 + int(rng.integers(8, 60)))
        differs, lab = local_difference(rect, reference, ref_lab, box, 3.0, ignore, judge_ignored=True)
        want_differs, want_lab = _local_difference_with_numpy(rect, reference, ref_lab, box, 3.0, ignore)
        assert np.array_equal(lab, want_lab) and np.array_equal(differs, want_differs)

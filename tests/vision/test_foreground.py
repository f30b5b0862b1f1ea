"""The light correction (vision/foreground.py ``LightNormaliser``): a crowd of pieces does not bend the light
field, and a hand keeps its own light for the hand test."""

from __future__ import annotations

import numpy as np

from vision.foreground import BLOCK, LightNormaliser

SKIN = (120, 160, 230)  # BGR, tinted enough to count as coloured
RED = (40, 40, 205)


def _field(light: LightNormaliser, x0: int, y0: int, x1: int, y1: int) -> float:
    """The mean correction over a box of the board (px), all channels."""
    return float(light.field[y0 // BLOCK:y1 // BLOCK, x0 // BLOCK:x1 // BLOCK].mean())


def _corrected(ref: np.ndarray, frame: np.ndarray, most_tinted_cells: float | None = None) -> LightNormaliser:
    light = LightNormaliser(ref, 1.0)
    if most_tinted_cells is not None:
        light.most_tinted_cells = most_tinted_cells
    light.correct(frame)
    return light


def test_a_crowd_of_pieces_does_not_bend_the_light_but_a_palm_keeps_its_own():
    rng = np.random.default_rng(3)
    ref = np.clip(200 + rng.normal(0, 4, (480, 640, 3)), 0, 255).astype(np.uint8)
    frame = ref.copy()
    frame[96:144, 96:144] = RED  # a crowd of pieces, 48 x 48 mm at 1 px/mm
    frame[200:320, 300:420] = SKIN  # a palm, 120 x 120 mm, away from the board's edge
    light = _corrected(ref, frame)
    lit = _field(light, 0, 0, 64, 64)
    assert abs(_field(light, 104, 104, 136, 136) - lit) < 0.02  # the pieces' cells took the light around them
    unfilled = _corrected(ref, frame, most_tinted_cells=0)  # nothing filled in: the palm as it is
    filled = _corrected(ref, frame, most_tinted_cells=10 ** 6)  # everything filled in, the palm too
    palm = (332, 232, 388, 288)
    assert abs(_field(light, *palm) - _field(unfilled, *palm)) < 1e-6  # the palm kept its own light ...
    assert abs(_field(filled, *palm) - _field(light, *palm)) > 0.05  # ... which filling in would have changed
    assert abs(_field(unfilled, 104, 104, 136, 136) - lit) > 0.05  # and the crowd would bend an unfilled field

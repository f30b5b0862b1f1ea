"""Registration from the board's print must not wear out: refining never alters the empty
board's template (OpenCV 5's phaseCorrelate writes into non-contiguous inputs)."""

from __future__ import annotations

import dataclasses

import cv2
import numpy as np

from scorer.core.types import Board
from vision.calibration import rectify
from vision.pose_refine import PoseRefiner
from vision.render import Conditions, random_board, render


def test_refining_leaves_the_template_as_it_was_and_repeats_exactly(china_layout):
    cam = Conditions(size=(1280, 720), fov_deg=62.0, fill=0.86, tilt_deg=12.0, noise_sigma=2.0, seed=5)
    empty = render(china_layout, Board.from_counts({}), cam)
    refiner = PoseRefiner(rectify(empty.image, empty.truth.homography, china_layout, 1.0), 1.0)
    template = refiner.template.copy()
    frame = render(china_layout, random_board(china_layout, np.random.default_rng(3)), dataclasses.replace(cam, seed=6))
    gray = cv2.cvtColor(frame.image, cv2.COLOR_BGR2GRAY)
    bumped = frame.truth.homography @ np.array([[1, 0, 3.0], [0, 1, -2.0], [0, 0, 1]])  # a camera knocked 3 mm
    first = refiner.refine(gray, bumped)
    assert first is not None
    assert np.array_equal(refiner.template, template)
    for _ in range(3):
        again = refiner.refine(gray, bumped)
        assert again is not None and np.allclose(again[0], first[0])

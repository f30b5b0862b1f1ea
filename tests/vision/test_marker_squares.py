"""The board's pose from its corner markers' squares when their codes cannot be read
(``vision.marker_squares``): the project's renders of the Cheops layout seen through a knocked
camera and smeared until no marker is decoded; the truth is the render's homography."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from smear_testkit import enrolled, knocked_frame, smeared, worst_px
from vision.layout import load_layout
from vision.marker_squares import MarkerSquares
from vision.registration import Registrar


@pytest.fixture(scope="module")
def cheops():
    return load_layout("cheops")


@pytest.fixture(scope="module")
def model(cheops):
    return enrolled(cheops)


@pytest.fixture(scope="module")
def frame(cheops):
    return knocked_frame(cheops)


def _squares(cheops, model) -> MarkerSquares:
    return MarkerSquares(model.reference, model.px_per_mm, cheops)


@pytest.mark.parametrize("smear_px", [9, 15])
def test_a_smeared_frame_of_a_knocked_camera_is_placed_by_its_markers_squares(cheops, model, frame, smear_px):
    gray = cv2.cvtColor(smeared(frame.image, smear_px, 20.0), cv2.COLOR_BGR2GRAY)
    assert not Registrar(cheops).detect(gray).found  # no code read
    assert worst_px(cheops, model.pose, frame.truth.homography) > 30  # the known pose is far off
    got = _squares(cheops, model).find(gray, model.pose)
    assert got is not None
    H, found = got
    assert found == 4
    assert worst_px(cheops, H, frame.truth.homography) < 2.5  # px, over the whole board


def test_without_the_markers_no_pose(cheops, model, frame):
    """The corners painted over with the board's margin colour: nothing to find, no pose guessed
    from the print."""
    img = frame.image.copy()
    for c in cheops.marker_corners_mm().values():
        quad = cv2.perspectiveTransform(c.reshape(-1, 1, 2).astype(np.float64), frame.truth.homography)
        centre = quad.reshape(-1, 2).mean(axis=0)
        cv2.circle(img, tuple(int(v) for v in centre), 40, (200, 215, 225), -1)
    gray = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
    assert _squares(cheops, model).find(gray, model.pose) is None


def test_a_board_moved_farther_than_a_bump_is_not_placed(cheops, model, frame):
    """The known pose 150 mm off (the camera was moved, not bumped): the markers are beyond the
    search, and squares found elsewhere would not make a bump."""
    gray = cv2.cvtColor(smeared(frame.image, 9, 20.0), cv2.COLOR_BGR2GRAY)
    moved = model.pose @ np.array([[1, 0, 150.0], [0, 1, 0], [0, 0, 1]])
    assert _squares(cheops, model).find(gray, moved) is None

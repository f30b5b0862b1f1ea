"""A frame smeared by a bumped camera is registered on the print only where the board lies, or not
at all (``vision.smeared_pose``): matched with the sharp empty board, the print's lines smeared into
bands pulled the pose 4-6 px along the smear (this render, 11 px smears at 70 and 90 degrees).

The frames are the project's renders of the provisional Ming layout, as in test_blurred_pose.py.
"""

from __future__ import annotations

import dataclasses

import cv2
import numpy as np
import pytest

from scorer.core.types import Board
from vision.enrolment import model_from_photos
from vision.layout import load_layout
from vision.pose_refine import PoseRefiner
from vision.registration import Registrar
from vision.render import Conditions, render
from vision.scenes import random_board
from vision.table_registration import TableRegistration

CAMERA = Conditions(size=(1280, 720), fov_deg=62.0, fill=0.62, tilt_deg=14.0, tilt_azimuth_deg=30.0, roll_deg=2.0,
                    brightness=0.95, gradient=0.1, blur_sigma=0.6, noise_sigma=1.5, jpeg_quality=90, seed=21)
BUMPED = dataclasses.replace(CAMERA, offset=(0.03, -0.02), roll_deg=5.0, seed=22)


def _smeared(image: np.ndarray, length: int, angle_deg: float) -> np.ndarray:
    """Motion blur: the image averaged along a line ``length`` px long."""
    k = np.zeros((length, length), np.float32)
    c = (length - 1) / 2
    d = np.array([np.cos(np.radians(angle_deg)), np.sin(np.radians(angle_deg))])
    for t in np.linspace(-c, c, 4 * length):
        k[int(round(c + t * d[1])), int(round(c + t * d[0]))] = 1.0
    return cv2.filter2D(image, -1, k / k.sum())


@pytest.fixture(scope="module")
def ming():
    return load_layout("ming-provisional")


@pytest.fixture(scope="module")
def model(ming):
    return model_from_photos(ming, render(ming, Board(), CAMERA).image)


@pytest.fixture(scope="module")
def frame(ming):
    return render(ming, random_board(ming, np.random.default_rng(4)), BUMPED)


def _corner_error(ming, H: np.ndarray, truth: np.ndarray) -> float:
    w, h = ming.size
    c = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float64).reshape(-1, 1, 2)
    return float(np.linalg.norm(cv2.perspectiveTransform(c, H) - cv2.perspectiveTransform(c, truth), axis=2).max())


@pytest.mark.parametrize("angle", [70.0, 90.0])
def test_a_smeared_frame_is_registered_where_the_board_lies_or_not_at_all(ming, model, frame, angle):
    """Before: 4.7 and 5.7 px off at the board's corners."""
    gray = cv2.cvtColor(_smeared(frame.image, 11, angle), cv2.COLOR_BGR2GRAY)
    reg = TableRegistration(Registrar(ming), model).register(gray)
    if reg.usable:
        assert _corner_error(ming, reg.homography, frame.truth.homography) < 2.5  # px


def test_the_smear_is_measured_along_its_direction_and_a_soft_focus_is_no_smear(ming, model, frame):
    from vision.smear import measure_smear
    from vision.smeared_pose import is_smeared

    refiner = PoseRefiner(model.reference, model.px_per_mm)
    smeared = cv2.cvtColor(_smeared(frame.image, 15, 90.0), cv2.COLOR_BGR2GRAY)
    smear = measure_smear(refiner.gray, refiner.rectified(smeared, model.pose), refiner.centres)
    assert is_smeared(smear)
    assert min(abs(smear.angle_deg - 90.0), 180 - abs(smear.angle_deg - 90.0)) <= 20  # the board is turned a little
    soft = cv2.cvtColor(cv2.GaussianBlur(frame.image, (0, 0), 3.0), cv2.COLOR_BGR2GRAY)
    assert not is_smeared(measure_smear(refiner.gray, refiner.rectified(soft, model.pose), refiner.centres))

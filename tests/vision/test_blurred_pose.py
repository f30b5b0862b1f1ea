"""A motion-blurred frame of a bumped camera is registered from the board's outline and coarse
print (``vision.blurred_pose``), and nothing that is not the enrolled board's print is.

The frames are the project's renders of the provisional Ming layout (thin box lines, small corner
markers), smeared along one direction as a camera knocked during the exposure smears them: no
corner marker is decoded, and the known pose refined on the print's fine lines finds no agreement.
"""

from __future__ import annotations

import dataclasses

import cv2
import numpy as np
import pytest

from scorer.core.types import Board
from vision.enrolment import model_from_photos
from vision.layout import load_layout
from vision.registration import Registrar
from vision.render import Conditions, render
from vision.scenes import random_board
from vision.table_registration import TableRegistration

CAMERA = Conditions(size=(1280, 720), fov_deg=62.0, fill=0.62, tilt_deg=14.0, tilt_azimuth_deg=30.0, roll_deg=2.0,
                    brightness=0.95, gradient=0.1, blur_sigma=0.6, noise_sigma=1.5, jpeg_quality=90, seed=21)
# the camera knocked: the board 2-3 % of its size off and turned 3 degrees
BUMPED = dataclasses.replace(CAMERA, offset=(0.03, -0.02), roll_deg=5.0, seed=22)


def _smeared(image: np.ndarray, length: int = 15, angle_deg: float = 20.0) -> np.ndarray:
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
def blurred(ming):
    frame = render(ming, random_board(ming, np.random.default_rng(4)), BUMPED)
    return cv2.cvtColor(_smeared(frame.image), cv2.COLOR_BGR2GRAY), frame.truth.homography


def _registration(ming, model) -> TableRegistration:
    return TableRegistration(Registrar(ming), model)


def test_the_blurred_frame_has_no_decodable_marker(ming, blurred):
    gray, _ = blurred
    assert len(Registrar(ming).detect(gray).found) == 0


def test_a_blurred_frame_of_a_bumped_camera_is_registered_where_the_board_lies(ming, model, blurred):
    gray, truth = blurred
    reg = _registration(ming, model).register(gray)
    assert reg.usable
    w, h = ming.size
    grid = np.array([[x, y] for x in np.linspace(0, w, 7) for y in np.linspace(0, h, 5)], np.float64)
    got = cv2.perspectiveTransform(grid.reshape(-1, 1, 2), reg.homography).reshape(-1, 2)
    want = cv2.perspectiveTransform(grid.reshape(-1, 1, 2), truth).reshape(-1, 2)
    assert float(np.linalg.norm(got - want, axis=1).max()) < 2.0  # px, over the whole board


def test_a_board_whose_print_is_not_the_enrolled_one_is_not_registered(ming, model, blurred):
    """The same frame turned upside down: an outline where the board was, but print that does not
    lie on the empty board's."""
    gray, _ = blurred
    reg = _registration(ming, model).register(cv2.flip(gray, -1))
    assert not reg.usable

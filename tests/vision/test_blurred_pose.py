"""A motion-blurred frame of a bumped camera is registered from the board's outline and coarse
print (``vision.blurred_pose``), and nothing that is not the enrolled board's print is.

The frames are the project's renders of the provisional Ming layout (thin box lines, small corner
markers), smeared along one direction as a camera knocked during the exposure smears them: no
corner marker is decoded, and the known pose refined on the print's fine lines finds no agreement.
"""

from __future__ import annotations

import cv2
import pytest

from smear_testkit import enrolled, knocked_frame, smeared, worst_px
from vision.layout import load_layout
from vision.registration import Registrar
from vision.table_registration import TableRegistration


@pytest.fixture(scope="module")
def ming():
    return load_layout("ming-provisional")


@pytest.fixture(scope="module")
def model(ming):
    return enrolled(ming)


@pytest.fixture(scope="module")
def blurred(ming):
    frame = knocked_frame(ming)
    return cv2.cvtColor(smeared(frame.image, 15, 20.0), cv2.COLOR_BGR2GRAY), frame.truth.homography


def _registration(ming, model) -> TableRegistration:
    return TableRegistration(Registrar(ming), model)


def test_the_blurred_frame_has_no_decodable_marker(ming, blurred):
    gray, _ = blurred
    assert len(Registrar(ming).detect(gray).found) == 0


def test_a_blurred_frame_of_a_bumped_camera_is_registered_where_the_board_lies(ming, model, blurred):
    gray, truth = blurred
    reg = _registration(ming, model).register(gray)
    assert reg.usable
    assert worst_px(ming, reg.homography, truth) < 2.0  # px, over the whole board


def test_a_board_whose_print_is_not_the_enrolled_one_is_not_registered(ming, model, blurred):
    """The same frame turned upside down: an outline where the board was, but print that does not
    lie on the empty board's."""
    gray, _ = blurred
    reg = _registration(ming, model).register(cv2.flip(gray, -1))
    assert not reg.usable

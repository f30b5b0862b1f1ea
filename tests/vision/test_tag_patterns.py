"""An enrolment photo of a board so far from the camera that no corner marker decodes is placed by
the board's outline, turned as the markers' printed patterns say (``vision.tag_patterns``). The
truth is the project's render's homography."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from scorer.core.types import Board
from vision.enrolment import model_from_photos
from vision.errors import NotRegistered
from vision.layout import load_layout
from vision.registration import OUTLINE_MESSAGE, Registrar, RegistrationStatus
from vision.render import render
from vision.render_conditions import Conditions
from vision.tag_patterns import homography_from_tag_patterns

# a board filling half of a 1280x720 frame, seen tilted and turned, blurred: its markers ~16 px across
FAR = dict(fill=0.5, blur_sigma=2.2, noise_sigma=4.0, jpeg_quality=80)


def _worst_px(layout, H, truth) -> float:
    grid = np.float64([[x, y] for x in np.linspace(0, layout.size[0], 5)
                       for y in np.linspace(0, layout.size[1], 5)]).reshape(-1, 1, 2)
    return float(np.linalg.norm(cv2.perspectiveTransform(grid, H) - cv2.perspectiveTransform(grid, truth), axis=2).max())


@pytest.mark.parametrize("name,tilt,azimuth", [("china-a", 0, 200), ("china-a", 25, 30), ("cheops", 25, 200),
                                                 ("ming-provisional", 0, 30)])
def test_a_far_board_whose_markers_do_not_decode_is_placed_by_its_outline_and_patterns(name, tilt, azimuth):
    layout = load_layout(name)
    c = Conditions(tilt_deg=tilt, tilt_azimuth_deg=azimuth, roll_deg=azimuth / 10, seed=tilt + azimuth, **FAR)
    frame = render(layout, Board({}), c)
    gray = cv2.cvtColor(frame.image, cv2.COLOR_BGR2GRAY)
    reg = Registrar(layout).detect(gray)
    assert reg.found == ()  # not one code read
    assert reg.status == RegistrationStatus.PARTIAL and reg.message == OUTLINE_MESSAGE
    assert _worst_px(layout, reg.homography, frame.truth.homography) < 1.0  # 0.3-0.6 px when written


def test_the_enrolment_photo_of_a_far_board_enrols_and_the_pose_is_kept_while_nothing_moves():
    layout = load_layout("china-a")
    frame = render(layout, Board({}), Conditions(tilt_deg=25, tilt_azimuth_deg=30, roll_deg=3, seed=55, **FAR))
    model = model_from_photos(layout, frame.image)  # raised NotRegistered before
    assert _worst_px(layout, model.pose, frame.truth.homography) < 1.0
    registrar = Registrar(layout)
    gray = cv2.cvtColor(frame.image, cv2.COLOR_BGR2GRAY)
    first = registrar.update(gray)
    again = registrar.update(gray)
    assert first.usable and again.usable and registrar.full_detections == 1  # the markers' spots are watched


def test_a_turn_the_patterns_do_not_clearly_choose_is_not_taken():
    """Markers covered by blank white stickers: the outline is there, the turn is not known."""
    layout = load_layout("china-a")
    frame = render(layout, Board({}), Conditions(tilt_deg=0, tilt_azimuth_deg=200, roll_deg=20, seed=3, **FAR))
    img = frame.image.copy()
    half = layout.marker_size / 2 + 1.0
    for m in layout.markers:
        x, y = m.centre
        sq = np.float64([[x - half, y - half], [x + half, y - half], [x + half, y + half], [x - half, y + half]])
        px = cv2.perspectiveTransform(sq.reshape(-1, 1, 2), frame.truth.homography).reshape(-1, 2)
        cv2.fillConvexPoly(img, np.round(px).astype(np.int32), (235, 235, 235))
    gray = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
    assert homography_from_tag_patterns(gray, layout) is None
    with pytest.raises(NotRegistered, match="corner markers"):
        model_from_photos(layout, img)


def test_a_table_without_a_board_is_not_registered():
    layout = load_layout("china-a")
    frame = render(layout, Board({}), Conditions(seed=4, **FAR))
    gray = cv2.cvtColor(frame.image, cv2.COLOR_BGR2GRAY)
    h, w = gray.shape
    table = cv2.resize(gray[: h // 8, : w // 8], (w, h))  # a corner of the table, blown up
    reg = Registrar(layout).detect(table)
    assert not reg.usable and reg.status == RegistrationStatus.MARKERS_MISSING

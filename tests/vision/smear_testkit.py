"""The scene of the blurred- and smeared-frame registration tests (a uniquely named helper module):
the project's renders of the provisional Ming layout (thin box lines, small corner markers), the
empty board enrolled from one camera, the frame taken after the camera was knocked, and motion blur
laid on it as a camera moving during the exposure does. The blur is made here, independently of
``vision.smear`` (the code under test measures it)."""

from __future__ import annotations

import dataclasses

import cv2
import numpy as np

from scorer.core.types import Board
from vision.enrolment import TableModel, model_from_photos
from vision.layout import Layout
from vision.render import Conditions, Rendered, render
from vision.scenes import random_board

CAMERA = Conditions(size=(1280, 720), fov_deg=62.0, fill=0.62, tilt_deg=14.0, tilt_azimuth_deg=30.0, roll_deg=2.0,
                    brightness=0.95, gradient=0.1, blur_sigma=0.6, noise_sigma=1.5, jpeg_quality=90, seed=21)
# the camera knocked: the board 2-3 % of its size off and turned 3 degrees
BUMPED = dataclasses.replace(CAMERA, offset=(0.03, -0.02), roll_deg=5.0, seed=22)


def smeared(image: np.ndarray, length: int, angle_deg: float) -> np.ndarray:
    """Motion blur: the image averaged along a line ``length`` px long."""
    k = np.zeros((length, length), np.float32)
    c = (length - 1) / 2
    d = np.array([np.cos(np.radians(angle_deg)), np.sin(np.radians(angle_deg))])
    for t in np.linspace(-c, c, 4 * length):
        k[int(round(c + t * d[1])), int(round(c + t * d[0]))] = 1.0
    return cv2.filter2D(image, -1, k / k.sum())


def enrolled(layout: Layout) -> TableModel:
    """The table enrolled from the empty board's photo through ``CAMERA``."""
    return model_from_photos(layout, render(layout, Board(), CAMERA).image)


def knocked_frame(layout: Layout) -> Rendered:
    """A game position seen through the knocked camera, sharp."""
    return render(layout, random_board(layout, np.random.default_rng(4)), BUMPED)


def worst_px(layout: Layout, H: np.ndarray, truth: np.ndarray) -> float:
    """How far (px) the pose ``H`` puts any point of a 7 x 5 grid over the whole board from where the
    render's homography ``truth`` has it."""
    w, h = layout.size
    grid = np.array([[x, y] for x in np.linspace(0, w, 7) for y in np.linspace(0, h, 5)], np.float64).reshape(-1, 1, 2)
    got = cv2.perspectiveTransform(grid, H).reshape(-1, 2)
    want = cv2.perspectiveTransform(grid, truth).reshape(-1, 2)
    return float(np.linalg.norm(got - want, axis=1).max())

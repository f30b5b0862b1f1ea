"""The camera and the enrolled table of the Ming reader tests (a uniquely named helper module, for
test_ming_camera.py and test_reader_speedups_princes.py): the project's renders of the provisional Ming
layout seen from one camera, the table enrolled from its empty board and one piece of each type."""

from __future__ import annotations

import dataclasses
from collections import Counter

from scorer.core.types import Board
from vision.enrolment import TableModel, enrolment_plan, model_from_photos
from vision.layout import Layout
from vision.render import Conditions, render

CAMERA = Conditions(size=(1280, 720), fov_deg=62.0, fill=0.9, tilt_deg=12.0, tilt_azimuth_deg=30.0, roll_deg=2.0,
                    brightness=0.95, white_balance=(1.05, 1.0, 0.93), gradient=0.15, blur_sigma=0.6, noise_sigma=1.5,
                    jpeg_quality=90, seed=11)


def enrolled_ming(ming: Layout) -> TableModel:
    """The table enrolled from ``CAMERA``'s empty board and, at seed 12, one piece of each type on the
    spaces the enrolment plan marks."""
    plan = enrolment_plan(ming)
    empty = render(ming, Board(), CAMERA).image
    pieces = render(ming, Board.from_counts({s: Counter({p: 1}) for s, p in plan.items()}),
                    dataclasses.replace(CAMERA, seed=12)).image
    return model_from_photos(ming, empty, pieces, plan)

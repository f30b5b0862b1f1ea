"""A table's colour calibration from photos: the empty board and, optionally, a photo with
known pieces on known spaces. What ``tableref vision calibrate`` does, as a function (the
evaluation of a frame set calibrates each table with it too)."""

from __future__ import annotations

import numpy as np

from scorer.core.types import Board
from vision.calibration import PX_PER_MM, Calibration, calibrate, rectify
from vision.errors import NotRegistered
from vision.layout import Layout
from vision.registration import Registrar


def calibration_from_photos(layout: Layout, empty: np.ndarray, samples: np.ndarray | None = None,
                            samples_board: Board | None = None, *, empty_name: str = "empty-board photo",
                            samples_name: str = "samples photo") -> Calibration:
    """Register each photo by its corner markers, rectify it and build the calibration.
    Raises ``NotRegistered`` (naming the photo) when a photo's markers are not found."""
    reg = Registrar(layout).detect(empty)
    if not reg.usable:
        raise NotRegistered(f"{empty_name}: {reg.message.en} / {reg.message.zh}")
    empty_r = rectify(empty, reg.homography, layout, PX_PER_MM)
    samples_r = None
    if samples is not None and samples_board is not None:
        reg2 = Registrar(layout).detect(samples)
        if not reg2.usable:
            raise NotRegistered(f"{samples_name}: {reg2.message.en} / {reg2.message.zh}")
        samples_r = rectify(samples, reg2.homography, layout, PX_PER_MM)
    return calibrate(layout, empty_r, PX_PER_MM, samples_r, samples_board if samples_r is not None else None)

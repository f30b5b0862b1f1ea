"""Did anything on the board move since the last read? A cheap test on a 1/8-size thumbnail of
the board's part of the frame, so an unmoved board costs a few milliseconds."""

from __future__ import annotations

import cv2
import numpy as np

from vision.registration import Registration

THUMB = 8
TOLERANCE = 6.0  # grey levels of an 8x8 block mean: sensor noise averages out, a piece does not


class ChangeWatcher:
    def __init__(self, board_size_mm: tuple[float, float]):
        self.size = board_size_mm
        self.last: np.ndarray | None = None

    def reset(self) -> None:
        self.last = None

    def thumbnail(self, gray: np.ndarray, reg: Registration) -> np.ndarray:
        w, h = self.size
        box = reg.board_to_image(np.array([[0, 0], [w, 0], [w, h], [0, h]], float))
        H, W = gray.shape[:2]
        x0, y0 = np.clip(np.floor(box.min(axis=0)).astype(int), 0, [W - 1, H - 1])
        x1, y1 = np.clip(np.ceil(box.max(axis=0)).astype(int), [x0 + 1, y0 + 1], [W, H])
        crop = gray[y0:y1, x0:x1]
        return cv2.resize(crop, (max(1, crop.shape[1] // THUMB), max(1, crop.shape[0] // THUMB)),
                          interpolation=cv2.INTER_AREA)

    def unchanged(self, thumb: np.ndarray) -> bool:
        last = self.last
        if last is None or last.shape != thumb.shape:
            return False
        return int(cv2.absdiff(thumb, last).max()) <= TOLERANCE

    def remember(self, thumb: np.ndarray) -> None:
        self.last = thumb

"""Did anything on the board move since the last read? A cheap test on a 1/8-size thumbnail of
the board's part of the frame, so an unmoved board costs a few milliseconds."""

from __future__ import annotations

import cv2
import numpy as np

from vision.registration import Registration

THUMB = 8
TOLERANCE = 6.0
MOSTLY_CHANGED = 0.3  # of the thumbnail: more than this changed, read everything  # grey levels of an 8x8 block mean: sensor noise averages out, a piece does not


class ChangeWatcher:
    def __init__(self, board_size_mm: tuple[float, float]):
        self.size = board_size_mm
        self.last: np.ndarray | None = None
        self.origin = (0, 0)

    def reset(self) -> None:
        self.last = None

    def thumbnail(self, gray: np.ndarray, reg: Registration) -> np.ndarray:
        w, h = self.size
        box = reg.board_to_image(np.array([[0, 0], [w, 0], [w, h], [0, h]], float))
        H, W = gray.shape[:2]
        x0, y0 = np.clip(np.floor(box.min(axis=0)).astype(int), 0, [W - 1, H - 1])
        x1, y1 = np.clip(np.ceil(box.max(axis=0)).astype(int), [x0 + 1, y0 + 1], [W, H])
        crop = gray[y0:y1, x0:x1]
        self.origin = (int(x0), int(y0))
        return cv2.resize(crop, (max(1, crop.shape[1] // THUMB), max(1, crop.shape[0] // THUMB)),
                          interpolation=cv2.INTER_AREA)

    def unchanged(self, thumb: np.ndarray) -> bool:
        last = self.last
        if last is None or last.shape != thumb.shape:
            return False
        return int(cv2.absdiff(thumb, last).max()) <= TOLERANCE

    def remember(self, thumb: np.ndarray) -> None:
        self.last = thumb

    def changed_points_mm(self, thumb: np.ndarray, reg: Registration) -> np.ndarray | None:
        """Board positions (mm) of the thumbnail blocks that changed since the last read, or
        None when there is no last read or much of the board changed (the light, a bump)."""
        last = self.last
        if last is None or last.shape != thumb.shape:
            return None
        changed = cv2.absdiff(thumb, last) > TOLERANCE
        if changed.mean() > MOSTLY_CHANGED:
            return None
        v, u = np.nonzero(changed)
        x0, y0 = self.origin
        img = np.stack([x0 + THUMB * u + THUMB / 2, y0 + THUMB * v + THUMB / 2], axis=1).astype(np.float64)
        return reg.image_to_board(img) if len(img) else np.zeros((0, 2))

"""BoardReader's change detection: which spaces to read again after a frame changed.

A 1/8-scale thumbnail of the board's bounding box is compared with the one of the last read;
unchanged frames reuse the last reading, and the changed 10 mm blocks of the board pick the
spaces within reach (30 mm, as for occlusion) to read again in a crop of the board. A mixin of
``vision.reader.BoardReader``: it uses the reader's set-up (``_space_masks``, ``_block_spaces``,
``_blocks``, ``_space_of``) and its last reading (``_last``).
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.detection import Detection, SpaceResult
from vision.layout import Layout
from vision.legacy_occlusion import BLOCK_MM
from vision.registration import Registration


class ChangeTracking:
    """Per-space change detection and the merging of a partial read into the last reading."""

    layout: Layout
    s: float
    incremental: bool
    _last: tuple[np.ndarray, Detection] | None

    def _board_thumbnail(self, gray: np.ndarray, reg: Registration) -> np.ndarray:
        """The board's bounding box in the frame at 1/8 size: what the change test compares
        (people moving around the table do not count)."""
        w, h = self.layout.size
        box = reg.board_to_image(np.array([[0, 0], [w, 0], [w, h], [0, h]], float))
        H, W = gray.shape[:2]
        x0, y0 = np.clip(np.floor(box.min(axis=0)).astype(int), 0, [W - 1, H - 1])
        x1, y1 = np.clip(np.ceil(box.max(axis=0)).astype(int), [x0 + 1, y0 + 1], [W, H])
        crop = gray[y0:y1, x0:x1]
        self._thumb_origin = (int(x0), int(y0))
        return cv2.resize(crop, (max(1, crop.shape[1] // 8), max(1, crop.shape[0] // 8)), interpolation=cv2.INTER_AREA)

    def _unchanged(self, small: np.ndarray, last_small: np.ndarray, tol: float = 6.0) -> bool:
        """True when no 8x8-pixel block of the frame changed by more than ``tol`` grey levels
        since the last frame that was read in full (so slow drifts add up and are noticed)."""
        if small.shape != last_small.shape:
            return False
        return float(cv2.absdiff(small, last_small).max()) <= tol

    def _changed_spaces(self, small: np.ndarray, reg: Registration) -> set[int] | None:
        """Spaces to read again: those within reach (30 mm, as for occlusion) of a part of the
        board whose image changed since the last read (8x8-pixel blocks of the frame, more than
        6 grey levels). ``None``: read everything (no earlier read with this registration, or
        much of the board changed, e.g. the light)."""
        if not self.incremental or self._last is None or reg.fresh or self._last[0].shape != small.shape:
            return None
        changed = cv2.absdiff(small, self._last[0]) > 6
        if changed.mean() > 0.3:
            return None
        changed = cv2.dilate(changed.view(np.uint8), np.ones((3, 3), np.uint8)) > 0
        blocks = self._thumb_blocks(small.shape, reg)
        bx, by = blocks[0][changed], blocks[1][changed]
        ok = (bx >= 0) & (by >= 0) & (bx < self._blocks[0]) & (by < self._blocks[1])
        if not ok.any():
            return set()
        hit = self._block_spaces[by[ok], bx[ok]].any(axis=0)
        return set(np.flatnonzero(hit).tolist())

    def _thumb_blocks(self, shape: tuple[int, ...], reg: Registration) -> tuple[np.ndarray, np.ndarray]:
        """For each thumbnail pixel, the 10 mm board block it shows (cached per registration)."""
        key = (id(reg.homography), shape, self._thumb_origin)
        if self._thumb_map is None or self._thumb_map[0] != key or self._thumb_map[1] is not reg.homography:
            x0, y0 = self._thumb_origin
            v, u = np.mgrid[0:shape[0], 0:shape[1]].astype(np.float64)
            img = np.dstack([x0 + 8 * u + 4, y0 + 8 * v + 4]).reshape(-1, 1, 2)
            board = cv2.perspectiveTransform(img, np.linalg.inv(reg.homography)).reshape(shape[0], shape[1], 2)
            blk = BLOCK_MM
            bx = np.floor(board[..., 0] / blk).astype(np.int32)
            by = np.floor(board[..., 1] / blk).astype(np.int32)
            self._thumb_map = (key, reg.homography, (bx, by))
        return self._thumb_map[2]

    def _roi(self, redo: set[int]) -> tuple[int, int, int, int]:
        """Board pixels to process for a partial read: the re-read spaces with their 30 mm reach
        and 15 mm more (a piece's blob must lie wholly inside)."""
        h, w = self._space_of.shape
        m = int(round(15 * self.s))
        boxes = np.array([self._space_masks[i][0] for i in redo])
        x0, y0 = boxes[:, :2].min(axis=0) - m
        x1, y1 = boxes[:, 2:].max(axis=0) + m
        return int(max(0, x0)), int(max(0, y0)), int(min(w, x1)), int(min(h, y1))

    def _merge(self, redo: set[int], occ_spaces: set[int], spaces: tuple[SpaceResult, ...],
               off: tuple[tuple[str, float, float], ...], roi: tuple[int, int, int, int]
               ) -> tuple[tuple[SpaceResult, ...], tuple[tuple[str, float, float], ...]]:
        """A partial read: new results for the spaces read again (and any space a hand found in
        the changed part now hides), the last results for the others."""
        prev = self._last[1]
        out = []
        for i, (old, new) in enumerate(zip(prev.spaces, spaces)):
            out.append(new if i in redo or i in occ_spaces else old)
        x0, y0, x1, y1 = (v / self.s for v in roi)
        kept = tuple(o for o in prev.off_space if not (x0 <= o[1] < x1 and y0 <= o[2] < y1))
        new_off = tuple(o for o in off if x0 <= o[1] < x1 and y0 <= o[2] < y1)
        return tuple(out), kept + new_off

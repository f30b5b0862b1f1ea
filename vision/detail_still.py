"""The detail still of a read: a higher-resolution frame of the same view, taken only when a
printed value must be read finer than the watched frame shows it (Zhang Yi's counters)."""

from __future__ import annotations

from typing import Callable

import numpy as np

from vision.counted_values import readable_view
from vision.registration import Registrar, Registration, to_detail

Detail = np.ndarray | Callable[[], np.ndarray] | None  # a higher-resolution frame of the same view, or how to take it


class DetailStill:
    """The detail still of the read in progress (``read``'s ``detail``), taken at most once and only
    when something asks for it; None when there is none (or its frame is gone)."""

    def __init__(self, detail: Detail, registrar: Registrar | None = None):
        """``registrar``: finds the still's own corner markers (``homography``); without one the
        watched frame's pose is scaled."""
        self.detail = detail
        self.registrar = registrar
        self._taken: list[np.ndarray | None] = []
        self._pose: np.ndarray | None = None

    def get(self) -> np.ndarray | None:
        if self.detail is None:
            return None
        if not self._taken:
            big = self.detail() if callable(self.detail) else self.detail
            self._taken.append(big if big is not None and big.ndim == 3 else None)
        return self._taken[0]

    def homography(self, reg: Registration, frame_shape: tuple[int, ...]) -> np.ndarray:
        """Board mm -> still px (the still taken): its own corner markers, each looked for where the
        watched frame's pose (``reg``, of a frame of ``frame_shape``) puts it, when all are found
        there; else that pose scaled (``to_detail``). Scaled, an error of half a watched pixel is
        two still pixels at 4x: a printed value's view is cut that far off."""
        big = self.get()
        assert big is not None and reg.homography is not None
        if self._pose is None:
            scaled = to_detail(reg.homography, frame_shape, big.shape)
            own = self.registrar.found_near(big, scaled) if self.registrar is not None else None
            self._pose = own.homography if own is not None else scaled
        return self._pose


def frame_view(frame: np.ndarray, reg: Registration, still: DetailStill
                ) -> Callable[[tuple[float, float], float, float], np.ndarray | None]:
    """A printed counter's top as the camera shows it (its value is read finer than the board): in
    the detail still when there is one, else in ``frame``; None where that is too coarse to read it."""

    def view(at_mm: tuple[float, float], angle: float, side_mm: float) -> np.ndarray | None:
        big = still.get()
        if big is None:
            return readable_view(frame, reg.homography, at_mm, angle, side_mm)
        return readable_view(big, still.homography(reg, frame.shape), at_mm, angle, side_mm)

    return view

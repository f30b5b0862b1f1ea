"""What the dashboard shows of the camera: a rectified picture of the board (PNG bytes) with
the layout's spaces drawn on it, and the state of the four corner markers."""

from __future__ import annotations

from typing import Iterable

import cv2
import numpy as np

from vision.calibration import rectify
from vision.layout import Layout
from vision.markers import CORNER_NAMES
from vision.registration import Registration


def rectified_image(frame: np.ndarray, registration: Registration, layout: Layout, px_per_mm: float = 1.5,
                    draw_spaces: bool = True, occluded: Iterable[str] = ()) -> np.ndarray:
    """The board seen from straight above; spaces outlined (occluded ones in red)."""
    if not registration.usable:
        raise ValueError("the board is not registered in this frame")
    img = rectify(frame, registration.homography, layout, px_per_mm)
    if draw_spaces:
        occ = set(occluded)
        for sp in layout.spaces:
            pts = np.round(np.asarray(sp.polygon) * px_per_mm * 16).astype(np.int32)
            colour = (40, 40, 230) if sp.id in occ else (40, 200, 40)
            cv2.polylines(img, [pts], True, colour, 1, cv2.LINE_AA, 4)
    return img


def rectified_snapshot_png(frame: np.ndarray, registration: Registration, layout: Layout, px_per_mm: float = 1.5,
                           draw_spaces: bool = True, occluded: Iterable[str] = ()) -> bytes:
    ok, buf = cv2.imencode(".png", rectified_image(frame, registration, layout, px_per_mm, draw_spaces, occluded))
    if not ok:  # pragma: no cover - encoding a valid image does not fail
        raise ValueError("PNG encoding failed")
    return buf.tobytes()


def marker_status(registration: Registration, layout: Layout) -> dict[str, object]:
    """Registration status plus, per corner marker, whether it was seen."""
    found = set(registration.found)
    return {
        **registration.to_json(),
        "markers": [
            {"id": m.id, "corner": name, "centre_mm": list(m.centre), "seen": m.id in found}
            for m, name in zip(layout.markers, CORNER_NAMES)
        ],
    }

"""How well the hand test outlines the hand, where a set knows the hand's true outline.

A set may hold ``hands/<stem>.png`` beside each frame: the frame's pixels a hand or arm covers
(non-zero), as the renderer drew it (``tools/photoreal/render_set.py`` writes them). The reader's
hand (``Detection.hand_mask``, board pixels, margin included) is compared with that outline brought
onto the board the same way the frame was:

* **missed**: hand over the board the reader did not take for a hand (what a reading through a
  hand starts from);
* **beyond**: what the reader took for a hand farther than ``NEAR_MM`` from any true hand (a
  shadow, a piece's blur, lost print): what false occlusion flags start from.

Both in mm² of board, so boards imaged at different scales add up. Spaces are scored as before;
this says where the flags and readings come from, pixel by pixel.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

import cv2
import numpy as np

HANDS_DIR = "hands"
NEAR_MM = 5.0  # the reader's margin round a hand (3 mm) and the outline's own blur: still the hand


@dataclass(frozen=True)
class HandOutline:
    hand_mm2: float  # true hand over the board
    missed_mm2: float  # of it, not in the reader's hand
    beyond_mm2: float  # the reader's hand farther than NEAR_MM from the true one

    def to_json(self) -> dict[str, float]:
        return {"hand_mm2": round(self.hand_mm2, 1), "missed_mm2": round(self.missed_mm2, 1),
                "beyond_mm2": round(self.beyond_mm2, 1)}


def hand_mask_path(root: Path, stem: str) -> Path | None:
    """The true hand outline of frame ``stem`` in set ``root``, if the set has one."""
    p = root / HANDS_DIR / f"{stem}.png"
    return p if p.is_file() else None


def load_hand_mask(path: Path) -> np.ndarray:
    """A hand outline (uint8, 255 where the hand is), as the frame's pixels."""
    m = cv2.imread(str(path), cv2.IMREAD_GRAYSCALE)
    if m is None:
        raise ValueError(f"{path}: not an image")
    return np.where(m > 0, 255, 0).astype(np.uint8)


def outline_score(true_board: np.ndarray, read_board: np.ndarray, px_per_mm: float) -> HandOutline:
    """``true_board``, ``read_board``: bool masks of the same board pixels (``px_per_mm``)."""
    if true_board.shape != read_board.shape:
        raise ValueError(f"hand masks of different sizes: {true_board.shape} and {read_board.shape}")
    mm2 = 1.0 / (px_per_mm * px_per_mm)
    r = max(1, int(round(NEAR_MM * px_per_mm)))
    near = cv2.dilate(true_board.astype(np.uint8), cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * r + 1, 2 * r + 1))) > 0
    return HandOutline(float(true_board.sum()) * mm2, float((true_board & ~read_board).sum()) * mm2,
                       float((read_board & ~near).sum()) * mm2)


def summarise_outlines(outlines: Sequence[HandOutline]) -> dict[str, Any] | None:
    """The set's figures (None when no frame had a true outline to compare with)."""
    if not outlines:
        return None
    with_hand = [o for o in outlines if o.hand_mm2 > 0]
    hand = sum(o.hand_mm2 for o in with_hand)
    missed = sum(o.missed_mm2 for o in with_hand)
    return {
        "frames": len(outlines),
        "frames_with_hand": len(with_hand),
        "hand_mm2": round(hand, 1),
        "missed_mm2": round(missed, 1),
        "missed_percent": round(100.0 * missed / hand, 3) if hand else None,
        "beyond_mm2": round(sum(o.beyond_mm2 for o in outlines), 1),
        "beyond_mm2_per_hand_frame": round(sum(o.beyond_mm2 for o in with_hand) / len(with_hand), 1) if with_hand else None,
        "frames_without_hand_with_one_read": sum(1 for o in outlines if o.hand_mm2 == 0 and o.beyond_mm2 > 0),
    }

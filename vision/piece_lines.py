"""Touching pieces in a line, counted by the line's length (Cheops' price columns).

A heap's area says how many pieces it holds only roughly: touching pieces hide each other's sides,
and on the independent photoreal renderer's Cheops tables a column of 3 scarabs showed 1.5 to 3.5
scarabs' worth of colour (4: 2.0 to 4.5), so counting by area was one short in a third of such columns.
Its length is steadier: n touching pieces in a row are n pieces long (there 40-51 mm for 2, 63-75 for 3,
84-101 for 4, one scarab 17-31 mm). What one piece measures in this frame (its size, its parallax
and the frame's blur all in it) is taken from the single pieces the same frame shows elsewhere (a
pyramid's scarabs): the median length of the blobs read as one piece. A heap no wider than
``MAX_WIDTH`` of that is a line and holds about its length over it; a wider heap (a pile) keeps its
count by area. Nothing here names a game: which spaces hold heaps comes from the layout.
"""

from __future__ import annotations

import numpy as np

MIN_SINGLES = 3  # single pieces the frame must show to say what one piece measures
MAX_WIDTH = 1.5  # of one piece's length: a heap this narrow is a line of pieces


def extent_mm(mask: np.ndarray, px_per_mm: float) -> tuple[float, float]:
    """A blob's length along its main axis and its width across it, in mm (bool ``mask``)."""
    ys, xs = np.nonzero(mask)
    if len(xs) < 3:
        return 0.0, 0.0
    pts = np.stack([xs, ys], 1).astype(np.float64)
    pts -= pts.mean(axis=0)
    _, vec = np.linalg.eigh(pts.T @ pts)
    along, across = pts @ vec[:, 1], pts @ vec[:, 0]
    return (float(along.max() - along.min() + 1) / px_per_mm, float(across.max() - across.min() + 1) / px_per_mm)


def one_piece_mm(singles: list[float]) -> float | None:
    """What one piece measures in this frame: the median length of the single pieces' blobs; None
    with fewer than ``MIN_SINGLES``."""
    return float(np.median(singles)) if len(singles) >= MIN_SINGLES else None


def in_line(length_mm: float, width_mm: float, piece_mm: float) -> int | None:
    """How many pieces a heap of these length and width holds if it is a line of them; None when it
    is wider than a line (``MAX_WIDTH``)."""
    if piece_mm <= 0 or length_mm <= 0 or width_mm > MAX_WIDTH * piece_mm:
        return None
    return max(1, int(round(length_mm / piece_mm)))


def in_lines(blobs: list[tuple[float, tuple[float, float], int]], piece_mm: float, one_max: float) -> int:
    """The pieces a heap's blobs hold: each blob (its share of one piece's area, its ``extent_mm``, the
    pieces its area says) as many as its area says, or if bigger than one piece (``one_max``) and a
    line, at least its length over ``piece_mm``."""
    n = 0
    for share, extent, by_area in blobs:
        line = in_line(*extent, piece_mm) if share > one_max else None
        n += by_area if line is None else max(by_area, line)
    return n

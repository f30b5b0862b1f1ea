"""Bare spaces under a bright band: a pale arm the light correction took for light.

``LightNormaliser`` divides out a smooth light field made from the frame's light ratio to the empty board
(median-filtered, so pieces do not bend it). A pale arm over the board's dark fill raises that ratio in all
three channels alike (not tinted, not dark) over a patch wider than the median's window: the field took it for
light and divided it out, and the spaces under it read bare with full confidence (photoreal Cheops seed 95
t02-001: eight pyramid spaces read through a bare arm).

So the light field itself is weighed (``lift``). Lamps light the board in gradients wider than the board, and a
shadow's edge is one step: neither makes a patch lit more than what lies on *both* sides of it (a cell against
the cells ``SIDES_MM`` away on either side, in four directions; a grey opening, tried first, took the lit top of a
shadow's edge on a steep gradient for a band). A lit strip between two shadows is, but it is lit only as the board
is; the arm was lit 1.9 times the board's median light (``LEVEL_SHARE``). Brighter patches than that are still
common: the field follows a crowd of pale tiles or scarabs over Cheops' slate fill, 1.5-2 times as light, and
taking every such patch for an object (tried in the light field itself) flagged tens of spaces in frames without
a hand. What a crowd never does is lie over a space read bare: a space read bare under such a band is not bare
(nothing on it would make it lighter); something the light correction divided out covers it, as a hand does
(``lifted_spaces``). Sizes are in mm; nothing here names a game.
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Iterable, Sequence

import cv2
import numpy as np

SIDES_MM = (50.0, 100.0)  # a cell is weighed against the cells this far on either side (an arm is 60-90 mm wide) ...
BAND_SHARE = 1.4  # ... and lit this many times the more lit of them or more (an arm over slate fill: 1.85) is a band
LEVEL_SHARE = 1.3  # ... and lit this many times the board's median light or more (that arm: 1.93)
MEDIAN_CELLS = 5  # cells: the light ratio's median first (a piece is not light)
LOG_STEPS = 40.0  # the log light ratio in steps of 1/40 (2.5 %) for OpenCV's 8-bit median
COVERED = 0.5  # of a space read bare, at least this share of its cells in such a patch: the patch is an object ...
TOUCHED = 0.25  # ... and every space with this share of its cells in it lies under it


def lift(light: np.ndarray, cell_mm: float) -> np.ndarray:
    """Per light-field cell (``light``: the light field, ``LightNormaliser.light``; cells ``cell_mm`` wide) how many
    times it is lit the more lit of the two cells ``SIDES_MM`` away on either side of it, in the direction that gives
    most (1 or less: not lit more than both sides); 1 where it is lit less than ``LEVEL_SHARE`` times the board's
    median light.
    The light's median over ``MEDIAN_CELLS`` is taken first (a piece is not light, nor is a sample that falls on one)."""
    log = np.log(np.maximum(light, 1e-3))
    q = np.clip(np.round(log * LOG_STEPS + 128), 0, 255).astype(np.uint8)
    med = (cv2.medianBlur(q, MEDIAN_CELLS).astype(np.float32) - 128) / LOG_STEPS
    h, w = med.shape
    padded_by = max(1, int(round(max(SIDES_MM) / cell_mm)))
    big = cv2.copyMakeBorder(med, padded_by, padded_by, padded_by, padded_by, cv2.BORDER_REPLICATE)
    best = np.full((h, w), -np.inf, np.float32)
    for d_mm in SIDES_MM:
        for dy, dx in ((0, 1), (1, 0), (1, 1), (1, -1)):
            step = d_mm / cell_mm / float(np.hypot(dy, dx))
            oy, ox = int(round(dy * step)), int(round(dx * step))
            a = big[padded_by + oy:padded_by + oy + h, padded_by + ox:padded_by + ox + w]
            b = big[padded_by - oy:padded_by - oy + h, padded_by - ox:padded_by - ox + w]
            np.maximum(best, med - np.maximum(a, b), out=best)
    # ... and lit more than the board: a lit strip between two shadows (an arm's and the shadow it casts, China
    # held-out t06) is lit more than both sides, but only as the board is lit (0.98-0.99 of its median light)
    best[med - float(np.median(med)) < math.log(LEVEL_SHARE)] = 0.0
    return np.exp(best)


def space_cells(masks: Sequence[tuple[tuple[int, int, int, int], np.ndarray]], block: int,
                cells_shape: tuple[int, int]) -> list[tuple[np.ndarray, np.ndarray]]:
    """Each space's light-field cells (rows, cols): those whose ``block``-px square its mask (box, mask in board px)
    covers half or more of."""
    h, w = cells_shape
    out = []
    for (x0, y0, x1, y1), m in masks:
        x1, y1 = min(x1, w * block), min(y1, h * block)
        cy0, cx0, cy1, cx1 = y0 // block, x0 // block, -(-y1 // block), -(-x1 // block)
        part = np.zeros(((cy1 - cy0) * block, (cx1 - cx0) * block), np.float32)
        part[y0 - cy0 * block:y1 - cy0 * block, x0 - cx0 * block:x1 - cx0 * block] = m[:y1 - y0, :x1 - x0]
        share = part.reshape(cy1 - cy0, block, cx1 - cx0, block).mean(axis=(1, 3))
        ys, xs = np.nonzero(share >= 0.5)
        out.append((ys + cy0, xs + cx0))
    return out


def lifted_results(results: list, light: np.ndarray | None, cell_mm: float,
                   cells: Sequence[tuple[np.ndarray, np.ndarray]]) -> tuple[list, set[int]]:
    """``results`` (``SpaceResult`` per space) with the spaces ``lifted_spaces`` finds under a band turned occluded,
    and their indices. ``light``: the light field (``LightNormaliser.light``; None: no frame yet)."""
    if light is None or BAND_SHARE <= 0:
        return results, set()
    if float(light.max()) < 0.9 * LEVEL_SHARE * float(np.median(light)):  # (0.9: the median filter and 2.5 % steps)
        return results, set()  # nothing lit enough (most frames): ``lift`` would be 1 everywhere
    bare = [i for i, r in enumerate(results) if not (r.occluded or r.unsure or r.pieces)]
    lifted = lifted_spaces(lift(light, cell_mm), cells, bare, BAND_SHARE)
    return [replace(r, pieces=(), confidence=0.0, occluded=True) if i in lifted else r
            for i, r in enumerate(results)], lifted


def mask_of(masks: Sequence[tuple[tuple[int, int, int, int], np.ndarray]], spaces: Iterable[int],
            shape: tuple[int, ...]) -> np.ndarray:
    """The board pixels (bool, ``shape``) the masks (box, mask) of ``spaces`` cover: for the hand's outline."""
    out = np.zeros(shape[:2], bool)
    for i in spaces:
        (x0, y0, x1, y1), m = masks[i]
        out[y0:y1, x0:x1] |= m > 0
    return out


def lifted_spaces(lifted: np.ndarray, cells: Sequence[tuple[np.ndarray, np.ndarray]], bare: Iterable[int],
                  share: float = BAND_SHARE) -> set[int]:
    """The spaces a bright band covers that something the light correction divided out lies over: a space read
    ``bare`` (indices into ``cells``) with ``COVERED`` of its cells lit ``share`` times the light round them
    (``lifted``: what ``lift`` gives) proves the band an object; every space with ``TOUCHED`` of its cells in that
    band is under it too (the band grown by the median's reach), whatever it was read as (an arm's edge over bare
    fill read as a yellow scarab: seed 95 t02-001)."""
    band = (lifted >= np.float32(share)).astype(np.uint8)
    if not band.any():
        return set()
    n, parts = cv2.connectedComponents(band, connectivity=8)
    objects = np.zeros(n, bool)
    for i in bare:
        ys, xs = cells[i]
        if len(ys) and float(band[ys, xs].mean()) >= COVERED:
            objects[parts[ys, xs]] = True
    objects[0] = False
    if not objects.any():
        return set()
    # grown back by what the median took off its edges
    under = cv2.dilate(objects[parts].astype(np.uint8), np.ones((MEDIAN_CELLS,) * 2, np.uint8)) > 0
    return {i for i, (ys, xs) in enumerate(cells) if len(ys) and float(under[ys, xs].mean()) >= TOUCHED}

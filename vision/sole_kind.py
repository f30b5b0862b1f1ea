"""Spaces that can hold only one plain kind (a Cheops column's dot: the scarab of its own colour,
the layout space's ``holds``), read by size alone, for ``vision.appearance``.

Where a space holds one plain kind only, the piece's colour says nothing the space does not: a
scarab on a dot printed in its own colour differs from the empty board by its shading, highlight
and shadow only, and the board there has the kind's colour (``board_kinds`` takes such pixels
away). So any blob that differs from the empty board (in the light measured around the space,
``local_difference``) whose foot lies on the space is weighed as that kind: by its area against the
kind's apparent area from the layout's nominal footprint (swept by parallax). Not the enrolled area,
as the colour blobs use: a difference blob is the whole piece with its shading, not the share of it
in the piece's colour that enrolment measured (on one photoreal table, 6 mm² for a white scarab and
500 mm² for a blue one, of a nominal 254). A blob's holes are filled (a piece whose top
has the board's colour shows as a ring: its shaded side and lit rim). A blob much bigger than a
piece is not one (a hand, its shadow, a tile pushed over the space): the caller leaves the space
unread rather than guess.

Seen blurred, with a colour cast, a scarab on its own colour's printed dot differs from it by less
than the difference threshold nearly everywhere: on the independent photoreal renderer's Cheops
tuning sets half the occupied dots showed no blob of a piece's size. What still shows is its shape:
a domed body is lit on one side and shaded on the other, where the printed dot under it is flat. So
when no blob is big enough, the middle of the space (``BODY_SHARE`` of the kind's width round its
centre) is asked how much its lightness varies off the empty board's there (``shading``); more than
the frame's noise scale (``SHADED_NOISE``, at least ``SHADED_MIN``) is a piece.
"""

from __future__ import annotations

from typing import Callable, Mapping, Sequence

import cv2
import numpy as np

from scorer.core.types import Piece
from vision.enrolment import apparent_area
from vision.geometry import parallax
from vision.layout import Layout

SHADED_NOISE = 1.0  # a body whose lightness varies (std off the empty board's) by this many of the frame's noise is there
SHADED_MIN = 5.0  # ... and by this many L units at least (a flawless frame's flat print still varies by 2-3: JPEG, grain)
BODY_SHARE = 1 / 3  # of the kind's least width: the body's middle, round the space's centre, where shading is measured
JOIN_SHARE = 0.25  # of the kind's width: parts of one piece this near are joined (its walls either side of a top
                   # the colour of the board show as two crescents)


def sole_kinds(layout: Layout, indices: list[int], plain: list[Piece]) -> dict[int, int]:
    """Space index -> index in ``plain`` of the one plain kind the space can hold (its only held
    kind, not printed, and enrolled); spaces that can hold more kinds are not listed."""
    out: dict[int, int] = {}
    for i in indices:
        held = layout.held_kinds(layout.spaces[i])
        if len(held) != 1 or layout.pieces[held[0]].printed:
            continue
        js = [j for j, p in enumerate(plain) if p.kind == held[0]]
        if js:
            out[i] = js[0]
    return out


def fill_holes(mask: np.ndarray, join_px: int = 0) -> np.ndarray:
    """The mask with parts nearer than ``join_px`` joined and every hole inside its blobs filled
    (a ring becomes a disc), uint8 0/1."""
    m = mask.astype(np.uint8)
    if join_px > 0:
        k = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * join_px + 1,) * 2)
        m = cv2.morphologyEx(m, cv2.MORPH_CLOSE, k)
    contours, _ = cv2.findContours(m, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    out = np.zeros_like(m)
    cv2.drawContours(out, contours, -1, 1, thickness=cv2.FILLED)
    return out


def sole_blobs(differs: np.ndarray, box: tuple[int, int, int, int], s: float, cam: np.ndarray | None,
               height: float, footprint: float, width: float,
               on_space: Callable[[float, float], bool], speck: float) -> list[tuple[float, np.ndarray]]:
    """The blobs of ``differs`` (bool, the box of the board ``box``) whose foot lies on the space
    (``on_space(x_mm, y_mm)``), each as (its area over the kind's apparent area there, its mask);
    ``width``: the kind's least width (mm); blobs smaller than ``speck`` of that area are noise."""
    x0, y0 = box[:2]
    filled = fill_holes(differs, int(round(JOIN_SHARE * width * s / 2)))
    n, lbl, stats, cents = cv2.connectedComponentsWithStats(filled, connectivity=8)
    out: list[tuple[float, np.ndarray]] = []
    for b in range(1, n):
        cx, cy = (cents[b] + [x0, y0]) / s
        par = parallax(np.array([[cx, cy]]), cam, height)[0]
        if not on_space(cx - par[0] / 2, cy - par[1] / 2):
            continue
        app = apparent_area(footprint, float(np.linalg.norm(par)))
        v = stats[b, cv2.CC_STAT_AREA] / s ** 2 / app
        if v >= speck:
            out.append((float(v), lbl == b))
    return out


def _distance_mm(box: tuple[int, int, int, int], s: float, centre_mm: tuple[float, float]) -> np.ndarray:
    """Each pixel of the board's box ``box`` (``s`` px/mm): its distance in mm from ``centre_mm``."""
    x0, y0, x1, y1 = box
    yy, xx = np.mgrid[y0:y1, x0:x1]
    return np.hypot(xx / s - centre_mm[0], yy / s - centre_mm[1])


def _spread(lab: np.ndarray, ref_lab: np.ndarray, inside: np.ndarray) -> float:
    return float((lab[..., 0] - ref_lab[..., 0])[inside].std()) if inside.sum() >= 5 else 0.0


def shading(lab: np.ndarray, ref_lab: np.ndarray, box: tuple[int, int, int, int], s: float,
            centre_mm: tuple[float, float], radius_mm: float) -> float:
    """The spread (standard deviation) of the lightness difference from the empty board within
    ``radius_mm`` of ``centre_mm``: ``lab`` and ``ref_lab`` are the box ``box`` of the board
    (``s`` px/mm). A flat print under the same light differs by noise only; a raised body by its
    highlight and shade. 0.0 when the circle holds fewer than 5 pixels of the box."""
    return _spread(lab, ref_lab, _distance_mm(box, s, centre_mm) < radius_mm)


def shaded_body(lab: np.ndarray, ref_lab: np.ndarray, explained: np.ndarray, box: tuple[int, int, int, int],
                s: float, centre_mm: tuple[float, float], width_mm: float, noise: float) -> list[tuple[float, np.ndarray]]:
    """A piece ``width_mm`` wide on the space round ``centre_mm`` found by its shading alone: [(its share
    of one piece, its disc in the box)], or [] when the middle (``shading`` within ``BODY_SHARE`` of its
    width) varies no more than the frame's noise (``SHADED_NOISE``, at least ``SHADED_MIN``) or another
    piece's blob (``explained``, the box's) reaches into the disc. ``lab``, ``ref_lab``: the frame's and the
    empty board's Lab in ``box``."""
    d = _distance_mm(box, s, centre_mm)
    body = d < width_mm / 2
    if explained[body].any():
        return []
    shade = _spread(lab, ref_lab, d < BODY_SHARE * width_mm)
    least = max(SHADED_MIN, SHADED_NOISE * noise)
    return [(min(1.0, 0.5 * shade / least), body)] if shade > least else []


BODY_LEAD = 2.0  # a body's kind holds this many times more of its pixels than any other kind's colour


def body_kind(kind_of: np.ndarray, body: np.ndarray, kinds: Sequence[int], least: Mapping[int, float]) -> int | None:
    """The kind of a piece's body (``body``, bool, as ``kind_of``: kind index per pixel, -1 none) seen
    whole by its difference from the empty board: the kind of ``kinds`` whose colour covers at least
    ``least[kind]`` pixels of it and ``BODY_LEAD`` times any other's; None when no kind does. A pale
    piece on a pale print shows its colour on its lit side only (photoreal Cheops held-out: a white
    scarab's lit top 137 px of the 320 enrolment measured), yet its shaded side still differs."""
    inside = kind_of[body]
    counts = {j: int((inside == j).sum()) for j in kinds}
    if not counts:
        return None
    best = max(counts, key=counts.__getitem__)
    others = max((n for j, n in counts.items() if j != best), default=0)
    return best if counts[best] >= least[best] and counts[best] >= BODY_LEAD * others else None

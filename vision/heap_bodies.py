"""Pieces of one kind lying in a heap on a space for several (a Cheops price table), counted by
their bodies' length instead of their colour's area (for ``vision.appearance``).

On the independent photoreal renderer's Cheops tables, the scarabs sold onto a price table lie in a
touching line on a pale paper table: a line of 4 showed 1.1 to 1.7 scarabs' worth of their colour
each (their lit tops take the white of the paper, their shaded sides a darker colour), so that a line
of blue ones was read as 7 white scarabs, a green one as 1. Their bodies differ from the empty board
whole, shadows included (``vision.sole_kind.sole_blobs``: holes filled), and a line of n of them is
about n times as long as one. What one measures, shadow and blur included, is taken from this frame:
the median length of the body of a single piece read on a space for one (a pyramid's scarab, the
same kind of body). A body that reaches the edge of the box looked at is not a heap's (light bent
across the table's edge, a hand, a tile pushed over), a pile is not a line, and a white scarab on
white paper shows no body: the colour's count then stands. The body count is low by nature (a line of n is n - 1
entry pitches and one body long, and a body, shadow and blur included, is longer than a pitch), so the reader keeps
the larger of the two (``plain_kinds.HEAP_AT_LEAST_COLOUR``). Nothing here names a game: which spaces hold heaps
of one kind comes from the layout's ``holds``.
"""

from __future__ import annotations

import numpy as np

from vision.piece_lines import extent_mm, in_line

SINGLES_LOOKED_AT = 5  # single pieces whose body is measured (each costs a look at its box: ~0.5 ms)
MIN_WIDTH = 0.5  # of one body's length: a narrower blob is print, not a piece (photoreal Cheops: a table's ruled lines)


def touches_border(mask: np.ndarray) -> bool:
    """Whether a blob (bool) reaches the edge of its box."""
    return bool(mask[0].any() or mask[-1].any() or mask[:, 0].any() or mask[:, -1].any())


def single_length(blobs: list[tuple[float, np.ndarray]], present: float, one_max: float,
                  px_per_mm: float) -> float | None:
    """The length (mm) of the one body of a single piece on its space, from the bodies seen there
    (each (its share of one piece's area, its mask)); None unless exactly one is a piece's size and
    lies inside the box."""
    pieces = [(v, m) for v, m in blobs if v >= present]
    if len(pieces) != 1 or pieces[0][0] > one_max or touches_border(pieces[0][1]):
        return None
    return extent_mm(pieces[0][1], px_per_mm)[0]


def heap_count(blobs: list[tuple[float, np.ndarray]], body_mm: float, present: float, one_max: float,
               px_per_mm: float) -> int | None:
    """How many pieces the bodies on a space for several show: each body of up to ``one_max`` pieces'
    area one, a bigger one as long as it is (``piece_lines.in_line``); bodies narrower than
    ``MIN_WIDTH`` of one are print (a table's ruled lines), not pieces. None, so that the caller keeps
    what the colour said, when a body reaches the box's edge (not a heap's), is wider than a line (a
    pile, whose length says nothing) or no body is seen at all (a white piece on white paper)."""
    n = 0
    for v, mask in blobs:
        if v < present:
            continue
        length, width = extent_mm(mask, px_per_mm)
        if width < MIN_WIDTH * body_mm:
            continue
        if touches_border(mask):
            return None
        if v <= one_max:
            n += 1
            continue
        line = in_line(length, width, body_mm)
        if line is None:
            return None
        n += line
    return n or None

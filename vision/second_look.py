"""A second look, by counting colour blobs, at spaces the learned network reads empty.

Why: on tables whose colours or blur the network never saw, its site head calls a plain piece
"empty" with near certainty. On the photoreal seed-2 China set (tuning), table t03's dark blue
houses in motion blur read empty at P 0.97-0.999 (26 missed, 8 of them in one frame), while
this table's learned colours still cover a good part of the space and the counting reader
(``reader="table"``) read 30 of 34 such pieces right. Where the network reads a space empty but a
player's learned colour covers at least ``SHARE`` of it, the reader counts blobs; counting's
reading is taken only when it is one piece, of a kind the space holds, counted with confidence
``MIN_CONFIDENCE`` or more. Everything else stays the network's: on the three China tuning sets
(photoreal tune, seed-2, seed-3: 8,499 visible spaces) no space the network read right was
taken from counting where counting was wrong (emissaries counted on sites are not held there;
the two on dragon spaces are not single-piece spaces).

The count costs a full counting pass (~30-40 ms here), only in frames where a space qualifies:
18 of the seed-2 set's 80 frames. Nothing under a hand is looked at: candidates exclude the
occluded spaces, and counting is given the hand's mask.
"""

from __future__ import annotations

from typing import Iterable, Mapping, Sequence

import numpy as np

from vision.counting import SpaceCount

# share of a space's (grown) outline covered by one player's learned colour (``ColourClassifier``
# labels of ``ForegroundMaps.piece``). Photoreal seed-2 (tuning): missed houses 0.10-0.29 (28 of
# 34 at 0.10 or more), truly empty sites above 0.10 in 86 of 1,810 (spill from neighbours).
SHARE = 0.10
# counting's own confidence. Seed-2/seed-3 (tuning): pieces counted right 0.45-0.93; counted wrong
# where the network was right 0.00-0.46, all of them emissaries (not held by a site, or on a dragon).
MIN_CONFIDENCE = 0.4


def missed_spaces(counts: Mapping[int, SpaceCount], single: Sequence[bool], labels: np.ndarray,
                  space_masks: Sequence[tuple[tuple[int, int, int, int], np.ndarray]],
                  players: Sequence[int], origin: tuple[int, int] = (0, 0)) -> list[int]:
    """Spaces read empty by a single-piece network head (``single[i]``) on which one player's
    colour (``labels``: owner index per pixel, a part of the board starting at ``origin``; owner
    indices ``players``) covers ``SHARE`` of the space or more."""
    ox, oy = origin
    h, w = labels.shape[:2]
    out = []
    for i, c in counts.items():
        if not single[i] or sum(c.pieces.values()):
            continue
        (x0, y0, x1, y1), m = space_masks[i]
        ax, ay, bx, by = x0 - ox, y0 - oy, x1 - ox, y1 - oy
        if ax < 0 or ay < 0 or bx > w or by > h:
            continue
        need = SHARE * max(1, int(np.count_nonzero(m)))
        inside = labels[ay:by, ax:bx][m > 0]
        inside = inside[inside >= 0]
        if len(inside) < need:
            continue  # not that much of any colour (most spaces)
        per_owner = np.bincount(inside, minlength=max(players, default=0) + 1)
        if max((int(per_owner[k]) for k in players), default=0) >= need:
            out.append(int(i))
    return out


def adopt(counts: Mapping[int, SpaceCount], counted: Mapping[int, SpaceCount], spaces: Iterable[int],
          holds: Sequence[frozenset[str]]) -> dict[int, SpaceCount]:
    """``counts`` with counting's reading of ``spaces`` where it is one piece of a kind the space
    holds (``holds[i]``), counted with ``MIN_CONFIDENCE`` or more."""
    out = dict(counts)
    for i in spaces:
        c = counted.get(i)
        if c is None or sum(c.pieces.values()) != 1 or c.confidence < MIN_CONFIDENCE:
            continue
        (piece,) = c.pieces
        if piece.kind in holds[i]:
            out[i] = c
    return out

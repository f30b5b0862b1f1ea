"""Spaces whose pieces are markers the rules set out once and never move, take or score.

Cheops puts one scarab of each colour on its price column's dot at setup (C18: "a marker only"). No
move touches it and no score counts it, but a sensor reads it with the rest: a camera that misses it
(a scarab on a dot printed in its own colour, about half of them on the photoreal renders) made the
referee see "treasure-red missing from dot-red" and flag every turn as illegal until it was "put
back", though it stood there. A game names such spaces (``Game.fixed_spaces``); the referee keeps
what the state has there whatever a sensor reads. Pure code: boards in, boards out.
"""

from __future__ import annotations

from collections.abc import Set

from scorer.core.types import Board


def keep_fixed(sensed: Board, expected: Board, fixed: Set[str]) -> Board:
    """``sensed`` with each of the ``fixed`` spaces holding what ``expected`` holds there."""
    if not fixed:
        return sensed
    cells = sensed.as_dict()
    changed = False
    for space in fixed:
        want = expected.pieces(space)
        if cells.get(space, {}) != want:
            cells[space], changed = dict(want), True
    return Board.from_counts(cells) if changed else sensed

"""Pieces a sensor cannot see because another piece lies on them, which the game state knows are there.

China's fortress variant puts a house on a neutral fortress. From above the house often covers the
fortress whole (a fortress no larger than the house in one direction shows a rim of 0-2 px, or
none), so a camera reports the house alone. The engine saw the fortress placed; reading "the house
alone" as "the fortress was removed" would flag every later turn. A game names such pieces
(``Game.hidden_under``: the piece, and the kinds that hide it when they lie on it in the same space),
and where the expected board has such a piece under such a cover and the sensed board has the cover
but not the piece, the piece is taken to be still there.

Only what the state already holds is restored: a fortress placed under a house in the same turn,
never seen, is not invented (it stays a declaration). Pure code: boards in, boards out.
"""

from __future__ import annotations

from collections import Counter
from typing import Mapping

from scorer.core.types import Board, Piece

HiddenUnder = Mapping[Piece, frozenset[str]]  # a piece -> the kinds that hide it when lying on it


def restore_content(content: Mapping[Piece, int], expected: Mapping[Piece, int], hidden_under: HiddenUnder) -> Counter[Piece]:
    """``content`` with each hideable piece ``expected`` holds put back where the sensor read fewer,
    at most one per covering piece it read there."""
    out = Counter({p: n for p, n in content.items() if n > 0})
    for piece, covers in hidden_under.items():
        want = expected.get(piece, 0)
        if want <= out[piece]:
            continue
        covering = sum(n for p, n in out.items() if p.kind in covers)
        covered = sum(n for p, n in expected.items() if p.kind in covers)
        out[piece] += max(0, min(want - out[piece], covering, covered))
    return +out


def restore(sensed: Board, expected: Board, hidden_under: HiddenUnder) -> Board:
    """``sensed`` with the hidden pieces ``expected`` holds under a cover the sensor read put back."""
    if not hidden_under:
        return sensed
    cells = sensed.as_dict()
    changed = False
    for space in expected.spaces():
        if space not in cells:
            continue
        got = restore_content(cells[space], expected.pieces(space), hidden_under)
        if got != cells[space]:
            cells[space], changed = got, True
    return Board.from_counts(cells) if changed else sensed


class SeenThisTurn:
    """Hideable pieces a sensor saw placed since the engine's board last changed, kept under their
    cover. A player lays the fortress, then a house on it, in one turn: the camera saw the fortress
    stand alone for a moment, then sees the house alone. The engine does not have the fortress yet
    (``restore`` cannot help), but what was seen there is still there while a cover lies on it. A
    space seen with neither the piece nor a cover forgets it (the fortress was taken back)."""

    def __init__(self) -> None:
        self._expected: Board | None = None
        self._seen: dict[str, Counter[Piece]] = {}

    def apply(self, sensed: Board, expected: Board, hidden_under: HiddenUnder) -> Board:
        """``sensed`` (after ``restore``) with what was seen this turn under a cover put back; it also
        remembers what ``sensed`` shows."""
        if not hidden_under:
            return sensed
        if expected != self._expected:  # a move was taken (or undone): a new turn on the table
            self._expected, self._seen = expected, {}
        cells = sensed.as_dict()
        changed = False
        for space in set(cells) | set(self._seen):
            got = Counter(cells.get(space, Counter()))
            want = expected.pieces(space)
            seen = self._seen.setdefault(space, Counter())
            for piece, covers in hidden_under.items():
                covering = sum(n for p, n in got.items() if p.kind in covers)
                if got[piece] > want[piece]:
                    seen[piece] = max(seen[piece], got[piece] - want[piece])  # placed this turn, and seen
                elif not covering:
                    seen.pop(piece, None)  # neither more of it nor a cover there: taken back
                target = want[piece] + seen[piece]
                if covering and got[piece] < target:
                    got[piece] = min(target, got[piece] + covering)
                    cells[space], changed = got, True
            if not +seen:
                del self._seen[space]
        return Board.from_counts(cells) if changed else sensed


__all__ = ["HiddenUnder", "SeenThisTurn", "restore", "restore_content"]

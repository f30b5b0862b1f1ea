"""A neutral piece read under another (China's fortress under a house) is believed only where the
reader saw it before the cover went on.

From above, a house's own walls and shadow can look like the rim of a fortress under it. One frame
read alone cannot tell them apart at 0.6-0.8 px per mm: on one photoreal table (tools/photoreal
seed 63, t05) the site network read 28 houses in 25 frames standing on a fortress that was not
there. A live referee takes such a reading as a move (a fortress and a house laid together, which
doubles that house's score) or flags it (no fortress variant); either is wrong.

A live reader has seen the space before. A player lays the fortress first, then a house on it, so
the camera sees the fortress bare before it is covered. ``CoveredPieces`` remembers, per space, which
of these base pieces the reader last saw there, and drops a base read under a cover where the
space was last seen without it. The memory changes only where the base could be seen: a space read
with the base remembers it; a space read with neither the base nor a cover forgets it; a space read
with the cover alone keeps what it had (the cover may hide the base whole). A space under a hand, or
not read sure, changes nothing. A space this reader has not read yet (its first look, after
``reset``) is taken as read.

A fortress laid under a house in one motion, never seen bare, is dropped too: as for a fortress the
camera never saw (``scorer.core.hidden``), it is then a declaration. Which pieces are bases and
which kinds cover them comes from the layout, as the classifier's classes do
(``space_classifier.heads_for``: a player's piece standing on a neutral one). Pure: results in,
results out.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from typing import Mapping, Sequence

from scorer.core.hidden import HiddenUnder
from scorer.core.types import Piece
from vision.detection import SpaceResult
from vision.layout import Layout
from vision.space_classifier import ClassifierError, heads_for


class CoveredPieces:
    """``bases``: a neutral piece -> the kinds that may stand on it and hide it (as ``Game.hidden_under``)."""

    def __init__(self, bases: HiddenUnder):
        self.bases = dict(bases)
        self._seen: dict[str, frozenset[Piece]] = {}  # space -> the bases last seen there

    @classmethod
    def for_layout(cls, layout: Layout) -> "CoveredPieces":
        """The bases of ``layout``: in every single-choice head, a neutral piece a player's piece may stand on."""
        try:
            heads = heads_for(layout)
        except ClassifierError:  # a space kind the learned classifier cannot describe: then none
            return cls({})
        bases: dict[Piece, set[str]] = {}
        for head in heads.values():
            for combo in head.classes if head.mode == "single" else ():
                if len(combo) != 2:
                    continue
                base = [p for p in combo if p.owner == "neutral"]
                cover = [p for p in combo if p.owner != "neutral"]
                if len(base) == 1 and len(cover) == 1:
                    bases.setdefault(base[0], set()).add(cover[0].kind)
        return cls({b: frozenset(k) for b, k in bases.items()})

    def __bool__(self) -> bool:
        return bool(self.bases)

    def reset(self) -> None:
        """Forget every space (a new reader: its first look is taken as read)."""
        self._seen = {}

    def apply(self, spaces: Sequence[SpaceResult]) -> tuple[SpaceResult, ...]:
        """``spaces`` with each base read under a cover dropped where the space was last seen without it;
        remembers what each readable space shows."""
        if not self.bases:
            return tuple(spaces)
        out = []
        for r in spaces:
            if r.occluded or r.unsure:
                out.append(r)
                continue
            pieces = dict(r.pieces)
            before = self._seen.get(r.space)
            seen = set(before or ())
            for base, covers in self.bases.items():
                covered = any(n > 0 and p.kind in covers for p, n in pieces.items())
                if pieces.get(base, 0) > 0:
                    if covered and before is not None and base not in before:
                        del pieces[base]  # first seen under its cover: the cover's own walls and shadow
                    else:
                        seen.add(base)
                elif not covered:
                    seen.discard(base)  # the base would show here: it is gone
            self._seen[r.space] = frozenset(seen)
            if len(pieces) != len(r.pieces):
                r = replace(r, pieces=tuple((p, n) for p, n in r.pieces if p in pieces))
            out.append(r)
        return tuple(out)


def seen_before(content: Mapping[Piece, int], expected: Mapping[Piece, int], bases: HiddenUnder) -> Counter[Piece]:
    """``content`` (one space's reading) as a live reader that saw the space as ``expected`` before would
    report it: a base read under a cover beyond what ``expected`` holds dropped. For ``tableref vision eval``'s
    figures "with the state", which take each frame's truth as what the reader saw there before."""
    out = Counter({p: n for p, n in content.items() if n > 0})
    for base, covers in bases.items():
        if out[base] > expected.get(base, 0) and any(p.kind in covers for p in out):
            out[base] = expected.get(base, 0)
    return +out


__all__ = ["CoveredPieces", "seen_before"]

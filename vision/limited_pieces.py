"""An owner's few pieces of a kind (layout ``per_owner``: a Ming prince, one each) placed over the
whole board in a partial read too.

``piece_sets.allocate`` gives such a piece to the space where it lowers the cost of an explanation
most, of all the spaces it is offered: a full read offers every space. A partial read counts again
only the spaces near a change, and the others keep what the last read saw on them; but their claim
on the owner's few pieces is not settled by that. A prince taken from a re-read space may now fit
best on a kept one (read as two family members while the prince stood elsewhere); a re-read space
may now fit the prince better than the kept space that had it. ``Placements`` keeps, per owner and
space, the explanations of the last read (``piece_sets.options``), the one chosen and each space's
count; a partial count allocates again with the kept spaces' explanations beside its own
(``Counter_.count``'s ``kept``), as the full read of the same frame would (the kept spaces'
pixels did not change), and reads again the kept spaces whose explanation changed.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from vision.piece_sets import Option

Key = tuple[int, ...]  # how many of each limited kind (``piece_sets.options``' keys)


@dataclass
class Placements:
    """One read's explanations: ``options[owner][space]`` (all of them), ``chosen[owner][space]``
    (the key taken) and ``counts[space]`` (the space's pieces and confidence, ``counting.SpaceCount``)."""

    options: dict[int, dict[int, dict[Key, Option]]] = field(default_factory=dict)
    chosen: dict[int, dict[int, Key]] = field(default_factory=dict)
    counts: dict = field(default_factory=dict)

    def offered(self, owner: int, kept: frozenset[int]) -> dict[int, dict[Key, Option]]:
        """The owner's explanations of the spaces ``kept`` (not counted now)."""
        return {sp: o for sp, o in self.options.get(owner, {}).items() if sp in kept}

    def moved(self, owner: int, keys: dict[int, Key], kept: frozenset[int]) -> set[int]:
        """The kept spaces whose explanation for ``owner`` changed in the allocation ``keys``."""
        mine = self.chosen.get(owner, {})
        return {sp for sp in keys if sp in kept and keys[sp] != mine.get(sp)}

    def recounted(self, sp: int, changes: dict[int, Key], space_count):
        """The kept space ``sp``'s count with the owners ``changes`` names taking their new
        explanation (the others', neutral pieces included, as last read)."""
        last = self.counts.get(sp)
        pieces = Counter(last.pieces) if last is not None else Counter()
        for oi, key in changes.items():
            opts = self.options[oi][sp]
            pieces.subtract(opts[self.chosen[oi][sp]].pieces)
            pieces.update(opts[key].pieces)
        confidence = 1.0
        for oi, per_space in self.chosen.items():
            key = changes.get(oi, per_space.get(sp))
            if key is not None and sp in self.options[oi] and self.options[oi][sp][key].pieces:
                confidence = min(confidence, self.options[oi][sp][key].confidence)
        return space_count(+pieces, confidence)

    def merged(self, now: "Placements", kept: frozenset[int]) -> "Placements":
        """This read's placements for the spaces ``kept``, ``now``'s (a partial count's) for the others."""
        out = Placements()
        for oi in set(self.options) | set(now.options):
            out.options[oi] = {**self.offered(oi, kept), **now.options.get(oi, {})}
            out.chosen[oi] = {**{sp: k for sp, k in self.chosen.get(oi, {}).items() if sp in kept},
                              **now.chosen.get(oi, {})}
        out.counts = {**{sp: c for sp, c in self.counts.items() if sp in kept}, **now.counts}
        return out

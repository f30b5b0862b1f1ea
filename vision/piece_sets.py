"""Which pieces explain one colour's area on a space, and where an owner's few pieces of a kind stand.

An explanation of an area is a set of one owner's pieces whose apparent areas (each kind's
enrolled footprint swept by the parallax of its height at that spot) add up nearest to it in
log-area, with at least as many pieces as separate blobs. Every piece costs a little (of two
near fits, fewer pieces win) and a kind the space does not normally hold costs more.

A kind an owner has only a few of on the whole board (the layout's ``per_owner``: a Ming prince,
one each) is placed over the whole board, not space by space: each space's best explanation with
0, 1, ... of them is known, and the owner's few go where they improve an explanation most. Two
family members and a prince cover about the same area from some angles; a player never has two
princes, so the second-best space gets family members.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from itertools import product
from typing import Mapping, Sequence

from scorer.core.types import Piece

PIECE_COST = 0.06  # each extra piece must explain this much more of the log-area
UNUSUAL_WHOLE = 0.7  # a kind the space does not normally hold must be at least this much of a whole piece
OTHER_KINDS = 2  # of each kind but the smallest, at most this many on one space's explanation
HEAP_SHRINK = 0.07  # per further piece in a heap, times the share of a piece's area that is side
CORE_COST = 0.1  # per piece more or fewer than the blobs' shape shows
EXPECTED = 0.15  # an owner's few pieces of a kind are on the board (a Ming prince, once placed, stays):
                # one goes where it explains the area almost as well as the other pieces do


@dataclass(frozen=True)
class Kind:
    """One of an owner's piece kinds as it appears on one space."""

    piece: Piece
    area: float  # apparent area there, mm^2
    wall: float  # the part of it that is the piece's side, leaning away (hidden by neighbours in a heap)
    unusual: float  # extra cost when the space does not normally hold it (0: it does)
    capacity: int  # how many stand on the space at most
    limited: bool  # the owner has only a few on the board (``per_owner``)


@dataclass(frozen=True)
class Option:
    pieces: Counter
    cost: float

    @property
    def confidence(self) -> float:
        return max(0.0, 1.0 - self.cost)


def options(kinds: Sequence[Kind], total: float, min_pieces: int, others: int = 0,
            cores: int | None = None) -> dict[tuple[int, ...], Option]:
    """The best explanation of ``total`` (mm^2) for every count of the limited kinds (the key:
    their counts, in ``kinds`` order); ``others``: how many pieces of other owners stand on the
    same space (they hide sides too); ``cores``: how many pieces the blobs' shape shows
    (``piece_peaks``; a count that differs costs). A space's explanation that uses only kinds it
    does not normally hold must be a whole piece of them (else nothing, at no cost, with no
    limited kind)."""
    if not kinds:
        return {}
    smallest = min(k.area for k in kinds)
    ranges = []
    for k in kinds:
        if k.area == smallest and not k.limited:
            top = max(8, int(math.ceil(1.5 * total / k.area)) + 1)
        else:
            top = OTHER_KINDS
        ranges.append(range(0, min(top, k.capacity) + 1))
    limited = [i for i, k in enumerate(kinds) if k.limited]
    best: dict[tuple[int, ...], tuple[float, tuple[int, ...]]] = {}
    for combo in product(*ranges):
        n = sum(combo)
        if n < min_pieces:
            continue
        pred = heap_area(combo, kinds, others)
        cost = abs(math.log(total / pred)) + PIECE_COST * n + sum(k.unusual for c, k in zip(combo, kinds) if c)
        if cores is not None:
            cost += CORE_COST * abs(n - cores)
        key = tuple(combo[i] for i in limited)
        if key not in best or cost < best[key][0]:
            best[key] = (cost, combo)
    out: dict[tuple[int, ...], Option] = {}
    zero = tuple(0 for _ in limited)
    for key, (cost, combo) in best.items():
        used = [(c, k) for c, k in zip(combo, kinds) if c]
        if all(k.unusual for _, k in used) and total < UNUSUAL_WHOLE * min(k.area for _, k in used):
            if key == zero:
                out[key] = Option(Counter(), 0.0)  # only kinds it does not hold, and less than one: nothing
            continue
        out[key] = Option(Counter({k.piece: c for c, k in used}), cost)
    return out


def best(opts: Mapping[tuple[int, ...], Option]) -> Option | None:
    """The cheapest of a space's explanations, whatever the limited kinds (None: there is none)."""
    return min(opts.values(), key=lambda o: o.cost) if opts else None


def heap_area(counts: Sequence[int], kinds: Sequence[Kind], others: int = 0) -> float:
    """The area ``counts`` pieces of ``kinds`` cover side by side on one space among ``others``
    pieces of other owners. Each alone covers its apparent area; in a heap the pieces hide each
    other's sides and their blurred rims overlap, so every further piece adds less, the more so
    the more of it is side."""
    n = sum(counts)
    total = sum(c * k.area for c, k in zip(counts, kinds))
    if n + others <= 1 or total <= 0:
        return total
    wall_share = sum(c * k.wall for c, k in zip(counts, kinds)) / total
    return total / (1.0 + HEAP_SHRINK * wall_share * (n + others - 1))


def allocate(per_space: Mapping[int, Mapping[tuple[int, ...], Option]], budgets: Sequence[int]) -> dict[int, Option]:
    """Each space's explanation, the limited kinds (``budgets``: how many of each are left for
    these spaces) going one by one to where they lower the cost most."""
    return {sp: per_space[sp][key] for sp, key in allocate_keys(per_space, budgets).items()}


def allocate_keys(per_space: Mapping[int, Mapping[tuple[int, ...], Option]], budgets: Sequence[int]
                  ) -> dict[int, tuple[int, ...]]:
    """``allocate``'s choice as each space's key (its counts of the limited kinds)."""
    choice: dict[int, tuple[int, ...]] = {}
    used = [0] * len(budgets)
    for sp, opts in per_space.items():
        key = min(opts, key=lambda k: (sum(k), opts[k].cost))  # none of the limited kinds, if it can be
        choice[sp] = key
        for j, c in enumerate(key):
            used[j] += c
    while True:
        best: tuple[float, int, tuple[int, ...], int] | None = None
        for sp, key in choice.items():
            opts = per_space[sp]
            for j in range(len(budgets)):
                if used[j] >= budgets[j]:
                    continue
                nxt = key[:j] + (key[j] + 1,) + key[j + 1:]
                if nxt in opts:
                    gain = opts[key].cost - opts[nxt].cost + EXPECTED
                    if gain > 0 and (best is None or gain > best[0]):
                        best = (gain, sp, nxt, j)
        if best is None:
            break
        _, sp, nxt, j = best
        choice[sp] = nxt
        used[j] += 1
    return choice

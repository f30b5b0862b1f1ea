"""The army counter limit (rules/zhang-yi.md A12): can a state show its strengths with its counters?

Each state has 8 double-sided counters: some show 1 or 2, the others 3 or 4. Counters are
change (3-6-3): any mix may be used inside an area. ``s`` counters of 1/2 and ``t`` of 3/4 can
show every strength from ``s + 3t`` to ``2s + 4t`` (the range has no gaps), and an area with
army needs at least one counter. Pure functions over ints; the engine uses them only when the
``counter_limit`` variant is on.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Iterable


@lru_cache(maxsize=4096)
def _options(x: int, a: int, b: int) -> tuple[tuple[int, int], ...]:
    """Minimal (small, big) counter pairs that can show strength ``x`` (Pareto front)."""
    out = []
    for t in range(b + 1):
        for s in range(a + 1):
            if s + t >= 1 and s + 3 * t <= x <= 2 * s + 4 * t:
                out.append((s, t))
                break  # more small counters with the same t only cost more
    return tuple(out)


def representable(strengths: Iterable[int], a: int, b: int) -> bool:
    """True if areas with these strengths (0 = no army) can all be shown at once."""
    reach = {(0, 0)}
    for x in strengths:
        if x <= 0:
            continue
        opts = _options(x, a, b)
        if not opts:
            return False
        reach = {(s0 + s, t0 + t) for s0, t0 in reach for s, t in opts if s0 + s <= a and t0 + t <= b}
        if not reach:
            return False
    return True


def max_addable(strengths: tuple[int, ...], want: int, a: int, b: int, single_area: bool = False) -> int:
    """The largest ``r <= want`` that can be added to these areas (split freely, or into one
    area) so that the result is still representable; ``-1`` if the current board is not."""
    if not representable(strengths, a, b):
        return -1
    if single_area:
        best = 0
        for i in range(len(strengths)):
            for r in range(want, best, -1):
                trial = list(strengths)
                trial[i] += r
                if representable(trial, a, b):
                    best = r
                    break
        return best
    # reach: (small used, big used) -> set of totals added so far
    reach: dict[tuple[int, int], set[int]] = {(0, 0): {0}}
    for x in strengths:
        if x <= 0:
            continue
        nxt: dict[tuple[int, int], set[int]] = {}
        for d in range(want + 1):
            for s, t in _options(x + d, a, b):
                for (s0, t0), adds in reach.items():
                    if s0 + s > a or t0 + t > b:
                        continue
                    bucket = nxt.setdefault((s0 + s, t0 + t), set())
                    bucket.update(v + d for v in adds if v + d <= want)
        reach = nxt
    return max((v for adds in reach.values() for v in adds), default=0)

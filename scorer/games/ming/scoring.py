"""Ming scoring as pure functions over plain ints (rules/ming.md section 5, phase 4).

Kept free of engine types so the tests can compare them with independent reference
implementations.
"""

from __future__ import annotations

from typing import Sequence

CITY_POINTS = {2: 4, 4: 3, 6: 0}  # per family member left in the city
SET6_POINTS = {2: 28, 4: 24, 6: 20}  # per set of 6 province colours
SET5_POINTS = 10  # per set of 5 colours, after the round-6 scoring only
TILE_POINT = 1  # per tile left at the very end
CITY_BONUS = 4
CLOISTER_POINTS = 4
CITY_HOUSES = 3  # per district


def district_majority(counts: Sequence[int]) -> list[int]:
    """How many family members each owner moves from a district's open area into its 3 city houses.

    ``counts`` are the open-area family members per owner (cloisters never count). The table of
    4.1: a sole leader moves 2 (1 if he has only 1), and a sole runner-up moves 1; 2 or 3 tied
    leaders move 1 each and nobody else moves; 4 tied leaders move nothing; a tie for second moves
    nothing for second place.
    """
    out = [0] * len(counts)
    top = max(counts, default=0)
    if top <= 0:
        return out
    leaders = [i for i, c in enumerate(counts) if c == top]
    if len(leaders) >= 4:
        return out
    if len(leaders) >= 2:
        for i in leaders:
            out[i] = 1
        return out
    leader = leaders[0]
    out[leader] = min(2, top)
    second = max((c for i, c in enumerate(counts) if i != leader), default=0)
    if second <= 0:
        return out
    runners = [i for i, c in enumerate(counts) if i != leader and c == second]
    if len(runners) == 1:
        out[runners[0]] = 1
    return out


def achievable_totals(values: Sequence[int]) -> frozenset[int]:
    """Totals of every non-empty subset of a player's return cards (1 or more cards face down)."""
    sums: set[int] = set()
    n = len(values)
    for mask in range(1, 1 << n):
        sums.add(sum(v for i, v in enumerate(values) if mask >> i & 1))
    return frozenset(sums)


def neutral_keep(neutral: int, real: Sequence[int]) -> int:
    """2-player 4.2: how many neutral family members stay in the city.

    With the sole majority the start player trims the neutral colour to the fewest that still
    leave it the sole majority; otherwise all of them go back.
    """
    best = max(real, default=0)
    if neutral > best:
        return best + 1
    return 0


def city_bonus(totals: Sequence[int], area_key: Sequence[int], bonus: int = CITY_BONUS) -> list[int]:
    """The +4 for the most family members left in a city (4.2 step 7).

    ``totals`` are the family members each contender has left in the city; ``area_key`` the
    tie-break key (recommended reading A6: each player's largest count in one district's city
    area). Still tied: the bonus is split, rounding down. Nobody left: no bonus (A21).
    """
    out = [0] * len(totals)
    top = max(totals, default=0)
    if top <= 0:
        return out
    tied = [i for i, t in enumerate(totals) if t == top]
    if len(tied) > 1:
        best = max(area_key[i] for i in tied)
        tied = [i for i in tied if area_key[i] == best]
    share = bonus // len(tied)
    for i in tied:
        out[i] = share
    return out


def six_sets(tiles: Sequence[int]) -> int:
    """Complete sets of the 6 province colours in a player's tiles."""
    return min(tiles) if len(tiles) == 6 else 0


def five_sets(tiles: Sequence[int]) -> int:
    """The most sets of 5 different colours that can be turned in (after the round-6 scoring).

    k sets are possible exactly when every colour can give at most one tile per set and there are
    enough tiles: sum(min(count, k)) >= 5k (a greedy fill of k sets, largest colours first).
    """
    total = sum(tiles)
    k = total // 5
    while k > 0 and sum(min(c, k) for c in tiles) < 5 * k:
        k -= 1
    return k


def final_tile_points(tiles: Sequence[int]) -> tuple[int, int, int]:
    """(sets of 5 turned in, their points, points for the tiles left) at the end of the game."""
    k = five_sets(tiles)
    left = sum(tiles) - 5 * k
    return k, k * SET5_POINTS, left * TILE_POINT

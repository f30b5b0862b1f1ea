"""Cheops final scoring as pure functions over plain values (rules/cheops.md 8).

Each player's total is cash plus the end value of every kept treasure; a paid law 9 is a joker
treasure of the colour its owner chooses. A colour's end value comes from its price table's
topmost uncovered entry (C21), or 20 with law 7 under it. Kept free of engine types so the
independent reference in the tests can be compared against exactly these functions.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from scorer.games.cheops.data import Entry, Number, Pair, Times
from scorer.games.cheops.state import LAW7_VALUE


@dataclass(frozen=True, slots=True)
class ScoringOptions:
    x_own_count: bool = False  # C6
    single_holder_not_majority: bool = False  # C7
    jokers_not_counted: bool = False  # C8
    value_last_covered: bool = False  # C21


def end_entry(entries: Sequence[Entry], covered: int, last_covered: bool = False) -> Entry:
    """The entry that sets the end value: the topmost uncovered one (C21), or with the
    ``value_last_covered`` reading the last covered one (the first entry when none is covered)."""
    if last_covered and covered > 0:
        return entries[covered - 1]
    return entries[covered]


def unit_values(entry: Entry | None, counts: Sequence[int], opts: ScoringOptions = ScoringOptions()) -> list[int]:
    """Value of one treasure of the colour for each player, given everyone's counted holdings.

    ``entry`` None means law 7 (a flat 20).
    """
    n = len(counts)
    if entry is None:
        return [LAW7_VALUE] * n
    if isinstance(entry, Number):
        return [entry.value] * n
    if isinstance(entry, Times):
        if opts.x_own_count:
            return [c * entry.x for c in counts]
        return [sum(counts) * entry.x] * n
    assert isinstance(entry, Pair)
    top = max(counts, default=0)
    leaders = [i for i, c in enumerate(counts) if c == top and c > 0]
    holders = sum(1 for c in counts if c > 0)
    sole = len(leaders) == 1 and (holders > 1 or not opts.single_holder_not_majority)
    return [entry.sole_majority if sole and i == leaders[0] else entry.others for i in range(n)]


@dataclass(frozen=True, slots=True)
class Result:
    """Per player: cash, points per colour (kept treasures), joker points, total; joker colours."""

    cash: tuple[int, ...]
    colours: tuple[tuple[int, ...], ...]  # [colour][player]
    joker: tuple[int, ...]
    joker_colour: tuple[int | None, ...]  # [player] colour index chosen for the joker, or None
    units: tuple[tuple[int, ...], ...]  # [colour][player] value of one treasure

    @property
    def totals(self) -> tuple[int, ...]:
        return tuple(
            self.cash[p] + sum(col[p] for col in self.colours) + self.joker[p] for p in range(len(self.cash))
        )


def _score_with(
    cash: Sequence[int],
    kept: Sequence[Sequence[int]],
    entries: Sequence[Entry | None],
    jokers: Sequence[int | None],
    opts: ScoringOptions,
) -> Result:
    n = len(cash)
    colours, units = [], []
    joker_pts = [0] * n
    for c, entry in enumerate(entries):
        counts = [kept[p][c] + (0 if opts.jokers_not_counted else sum(1 for j in [jokers[p]] if j == c)) for p in range(n)]
        u = unit_values(entry, counts, opts)
        units.append(tuple(u))
        colours.append(tuple(u[p] * kept[p][c] for p in range(n)))
        for p in range(n):
            if jokers[p] == c:
                joker_pts[p] += u[p]
    return Result(tuple(cash), tuple(colours), tuple(joker_pts), tuple(jokers), tuple(units))


def score(
    cash: Sequence[int],
    kept: Sequence[Sequence[int]],
    entries: Sequence[Entry | None],
    joker_owners: Sequence[int] = (),
    opts: ScoringOptions = ScoringOptions(),
) -> Result:
    """Final scores. Each joker owner (in seating order) gives the joker the colour that is best
    for them, given the choices made before (C8); ties go to the first colour in board order."""
    n = len(cash)
    jokers: list[int | None] = [None] * n
    for owner in joker_owners:
        best, best_total = 0, None
        for c in range(len(entries)):
            jokers[owner] = c
            total = _score_with(cash, kept, entries, jokers, opts).totals[owner]
            if best_total is None or total > best_total:
                best, best_total = c, total
        jokers[owner] = best
    return _score_with(cash, kept, entries, jokers, opts)

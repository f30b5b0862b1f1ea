"""China scoring as pure functions over plain ints (rules/china.md 4.4 and 4.6).

Kept free of engine types so the independent reference implementations in the tests can be
compared against exactly these functions.
"""

from __future__ import annotations

from typing import Sequence

ROAD_MINIMUM = 4
# Exhaustive road splitting is exponential; beyond this many search nodes we report the
# comparison as not made instead of hanging the referee.
ROAD_SEARCH_BUDGET = 20_000


def house_points(counts: Sequence[int]) -> list[int]:
    """Points per player for one province's houses: dense ranks; rank 1 scores the total,
    rank k scores the count of one player of rank k-1 (4.4)."""
    total = sum(counts)
    levels = sorted({c for c in counts if c > 0}, reverse=True)
    above = {c: (total if i == 0 else levels[i - 1]) for i, c in enumerate(levels)}
    return [above[c] if c > 0 else 0 for c in counts]


def province_points(counts: Sequence[int], on_fortress: Sequence[bool]) -> list[int]:
    """House points with the fortress variant: a player with a house on a fortress in the
    province doubles their points there, whatever their rank, once (ambiguities 8 and 18)."""
    return [p * 2 if f else p for p, f in zip(house_points(counts), on_fortress)]


def alliance_points(
    alliances: Sequence[tuple[int, int, int]], emissaries: Sequence[Sequence[int]], players: int
) -> list[int]:
    """Alliances 1..15 (4.6.2): players leading (ties included, at least 1 emissary) in both
    provinces each score the total emissaries of both provinces."""
    points = [0] * players
    for _, a, b in alliances:
        la, lb = _leaders(emissaries[a]), _leaders(emissaries[b])
        winners = la & lb
        if winners:
            value = sum(emissaries[a]) + sum(emissaries[b])
            for w in winners:
                points[w] += value
    return points


def _leaders(counts: Sequence[int]) -> set[int]:
    top = max(counts, default=0)
    if top <= 0:
        return set()
    return {i for i, c in enumerate(counts) if c == top}


class RoadResult:
    """Road points of one player, and whether an exhaustive split would have scored more."""

    __slots__ = ("points", "runs", "exhaustive_points", "compared")

    def __init__(self, points: int, runs: list[list[int]], exhaustive_points: int | None, compared: bool):
        self.points = points
        self.runs = runs
        self.exhaustive_points = exhaustive_points
        self.compared = compared

    @property
    def split_disputed(self) -> bool:
        return self.exhaustive_points is not None and self.exhaustive_points > self.points


def road_points(
    owned: Sequence[int], neighbours: Sequence[Sequence[int]], doubled: Sequence[bool] = ()
) -> RoadResult:
    """Greedy longest-run scoring for one player's houses (4.6.3, ambiguities 7 and 17).

    ``owned`` are the player's house sites; ``neighbours`` the road graph; ``doubled[site]`` marks
    a house standing on a fortress (its run scores double, once). Among equally long longest runs
    the choice giving the highest total is taken; an exhaustive split is computed for comparison
    where the houses branch or form a cycle.
    """
    mine = set(owned)
    adj = {s: tuple(n for n in neighbours[s] if n in mine) for s in mine}
    total, runs = 0, []
    exhaustive_total: int | None = 0
    compared = True
    for comp in _components(mine, adj):
        if len(comp) < ROAD_MINIMUM:
            continue
        simple = all(len(adj[s]) <= 2 for s in comp) and sum(len(adj[s]) for s in comp) == 2 * (len(comp) - 1)
        if simple:
            path = _order_path(comp, adj)
            pts = _run_value(path, doubled)
            total += pts
            runs.append(path)
            if exhaustive_total is not None:
                exhaustive_total += pts
            continue
        search = _GreedySearch(adj, doubled)
        pts, chosen = search.best(frozenset(comp))
        total += pts
        runs.extend(chosen)
        ex = _exhaustive(comp, adj, doubled)
        if ex is None:
            compared = False
            exhaustive_total = None
        elif exhaustive_total is not None:
            exhaustive_total += ex
    return RoadResult(total, runs, exhaustive_total, compared)


def _run_value(path: Sequence[int], doubled: Sequence[bool]) -> int:
    if len(path) < ROAD_MINIMUM:
        return 0
    return len(path) * (2 if doubled and any(doubled[s] for s in path) else 1)


def _components(nodes: set[int], adj: dict[int, tuple[int, ...]]) -> list[list[int]]:
    seen: set[int] = set()
    out = []
    for start in sorted(nodes):
        if start in seen:
            continue
        comp, todo = [], [start]
        seen.add(start)
        while todo:
            cur = todo.pop()
            comp.append(cur)
            for n in adj[cur]:
                if n not in seen:
                    seen.add(n)
                    todo.append(n)
        out.append(sorted(comp))
    return out


def _order_path(comp: list[int], adj: dict[int, tuple[int, ...]]) -> list[int]:
    ends = [s for s in comp if len(adj[s]) <= 1]
    cur, prev, path = ends[0], None, []
    while cur is not None:
        path.append(cur)
        nxt = [n for n in adj[cur] if n != prev]
        prev, cur = cur, (nxt[0] if nxt else None)
    return path


def _simple_paths(nodes: frozenset[int], adj: dict[int, tuple[int, ...]]) -> list[tuple[int, ...]]:
    """All simple paths (as vertex tuples, each listed once) inside ``nodes``."""
    out: list[tuple[int, ...]] = []

    def walk(path: list[int], on: set[int]) -> None:
        if path[0] <= path[-1]:
            out.append(tuple(path))
        for n in adj[path[-1]]:
            if n in nodes and n not in on:
                path.append(n)
                on.add(n)
                walk(path, on)
                on.discard(n)
                path.pop()

    for s in sorted(nodes):
        walk([s], {s})
    return out


class _GreedySearch:
    """Repeatedly take a longest run; branch only over ties, keeping the best total."""

    def __init__(self, adj: dict[int, tuple[int, ...]], doubled: Sequence[bool]):
        self.adj, self.doubled = adj, doubled
        self.memo: dict[frozenset[int], tuple[int, list[list[int]]]] = {}

    def best(self, free: frozenset[int]) -> tuple[int, list[list[int]]]:
        if free in self.memo:
            return self.memo[free]
        paths = [p for p in _simple_paths(free, self.adj) if len(p) >= ROAD_MINIMUM]
        if not paths:
            result: tuple[int, list[list[int]]] = (0, [])
        else:
            longest = max(len(p) for p in paths)
            result = (-1, [])
            for p in (p for p in paths if len(p) == longest):
                rest_pts, rest_runs = self.best(free - set(p))
                pts = _run_value(p, self.doubled) + rest_pts
                if pts > result[0]:
                    result = (pts, [list(p)] + rest_runs)
        self.memo[free] = result
        return result


def _exhaustive(comp: list[int], adj: dict[int, tuple[int, ...]], doubled: Sequence[bool]) -> int | None:
    """Best total over every split into disjoint runs of 4+; None if the search is too large."""
    budget = [ROAD_SEARCH_BUDGET]
    memo: dict[frozenset[int], int] = {}

    def best(free: frozenset[int]) -> int:
        if len(free) < ROAD_MINIMUM:
            return 0
        if free in memo:
            return memo[free]
        budget[0] -= 1
        if budget[0] < 0:
            raise _TooBig
        v = min(free)
        result = best(free - {v})  # v belongs to no run
        for p in _simple_paths(free, adj):
            if v in p and len(p) >= ROAD_MINIMUM:
                result = max(result, _run_value(p, doubled) + best(free - set(p)))
        memo[free] = result
        return result

    try:
        return best(frozenset(comp))
    except _TooBig:
        return None


class _TooBig(Exception):
    pass

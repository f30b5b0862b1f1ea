"""Read a sensed board as Ming moves (sensors report positions; the rules infer moves).

The difference between the board the engine expects and the sensed one is turned into candidate
moves of the current phase: a prince placed, a family member put on a province space, one taken
off for a dragon card, a prince that went from A to B with family members deployed behind it,
city pieces sent back. Each candidate is checked twice: by the rules (``violations``, leaving out
``cards.required`` because the cards are declared separately), and by replaying its own change on
the expected board and comparing with what was sensed (``residual``). Sensors see only where a
prince ended, so a move is read along the shortest paths, those the known hand can pay first.
Cards taken from the display, return cards, passes and start-player choices are invisible and
come in as declared moves.
"""

from __future__ import annotations

from collections import Counter, deque
from typing import Iterable

from scorer.core.game import Explanation
from scorer.core.types import Board, BoardDiff, Message, SpaceId, Violation
from scorer.games.ming.effects import effect
from scorer.games.ming.engine import MingEngine
from scorer.games.ming.moves import (
    FAMILY,
    NEUTRAL,
    PRINCE,
    MingMove,
    MovePrince,
    PlaceFamily,
    PlaceNeutral,
    PlacePrince,
    SendBack,
    Stay,
    TakeDragon,
)
from scorer.games.ming.state import (
    EMPTY,
    MAX_DEPLOY,
    PH_CARDS,
    PH_MOVE,
    PH_NEUTRAL,
    PH_PRINCES,
    PH_SCORING,
    PH_SPACES,
    ST_COMMIT,
    ST_NEUTRAL,
    ST_NEUTRAL_FIRST,
    MingState,
)
from scorer.games.ming.visible import visible_board

IGNORED_RULES = ("cards.required",)
MAX_PATHS = 12


def classify(space: str) -> tuple[str, str]:
    """('district'|'cloister'|'city'|'province_space'|'other', id) for a space id."""
    if space.startswith("province-space-"):
        return "province_space", space[len("province-space-"):]
    if space.endswith("-cloister"):
        return "cloister", space[: -len("-cloister")]
    if space.endswith("-city"):
        return "city", space[: -len("-city")]
    if len(space) == 4 and space[0] == "p" and space[2] == "d":
        return "district", space
    return "other", space


def explain(game: MingEngine, state: MingState, sensed: Board) -> tuple[Explanation[MingMove], ...]:
    expected = visible_board(state)
    diff = expected.diff(sensed)
    if not diff:
        return (Explanation(moves=(), complete=False),)
    if state.finished:
        return (Explanation((), True, (Violation("game.over", Message.t('ming.explain.the_game_is_over_the')),), diff, 100.0),)
    out: list[Explanation[MingMove]] = []
    for move, extra_cost, complete in _candidates(state, diff):
        out.append(_reading(game, state, sensed, move, extra_cost, complete))
    out.append(_nothing(diff))
    unique: dict[tuple, Explanation[MingMove]] = {}
    for e in out:
        key = (e.moves, e.residual)
        if key not in unique or e.cost < unique[key].cost:
            unique[key] = e
    return tuple(sorted(unique.values(), key=lambda e: e.cost))


def _reading(game, state: MingState, sensed: Board, move: MingMove, extra_cost: float, complete: bool) -> Explanation[MingMove]:
    found = tuple(v for v in game.violations(state, move) if v.rule not in IGNORED_RULES)
    try:
        after = visible_board(effect(state, move))
        residual = after.diff(sensed)
    except (ValueError, KeyError, IndexError, AssertionError):
        residual = visible_board(state).diff(sensed)
    cost = 10.0 * len(found) + _size(residual) + extra_cost
    return Explanation((move,), complete, found, residual, cost)


def _nothing(diff: BoardDiff) -> Explanation[MingMove]:
    found = []
    for change, pieces in (("appeared", diff.added), ("missing", diff.removed)):
        for space, piece, n in pieces:
            what = {"n": n, "owner": piece.owner, "kind": _kind_label(piece.kind), "space": space}
            found.append(Violation("board.unexpected_change", Message.t(f"ming.board.unexpected_change.{change}", **what),
                                   (SpaceId(space),), Message.t(f"ming.board.unexpected_change.{change}.fix", **what)))
    return Explanation((), False, tuple(found), diff, 10.0 * len(found) + _size(diff) + 5.0)


def _kind_label(kind: str) -> Message:
    """A piece kind's name (ming.piece.<kind>); an unknown kind as given."""
    if kind in (FAMILY, PRINCE):
        return Message.t(f"ming.piece.{kind}")
    return Message.t("name.as_given", name=kind)


def _size(diff: BoardDiff) -> int:
    return sum(n for _, _, n in diff.added) + sum(n for _, _, n in diff.removed)


def _candidates(state: MingState, diff: BoardDiff) -> Iterable[tuple[MingMove, float, bool]]:
    phase = state.phase
    added = [(classify(s), p, n) for s, p, n in diff.added]
    removed = [(classify(s), p, n) for s, p, n in diff.removed]
    active = state.players[state.active] if 0 <= state.active < state.n else None
    if phase == PH_PRINCES:
        for (kind, where), piece, _ in added:
            if kind == "district" and piece.kind == PRINCE:
                yield PlacePrince(piece.owner, where), 0.0, True
    elif phase == PH_NEUTRAL and active:
        for (kind, where), piece, _ in added:
            if kind == "district" and piece.kind == FAMILY and piece.owner == NEUTRAL:
                yield PlaceNeutral(active, where), 0.0, True
    elif phase == PH_SPACES:
        for (kind, where), piece, _ in added:
            if kind == "province_space" and piece.kind == FAMILY:
                yield PlaceFamily(piece.owner, where), 0.0, True
    elif phase == PH_CARDS and active:
        for (kind, where), piece, _ in removed:
            if kind == "province_space" and piece.kind == FAMILY:
                owner = None if piece.owner == active else piece.owner
                yield TakeDragon(active, where, owner), 0.0, True
    elif phase == PH_MOVE:
        yield from _prince_turns(state, added, removed)
    elif phase == PH_SCORING and state.scoring is not None and state.scoring.stage != ST_COMMIT:
        sc = state.scoring
        chooser = state.players[sc.chooser]
        owner = NEUTRAL if sc.stage in (ST_NEUTRAL, ST_NEUTRAL_FIRST) else chooser
        back: list[str] = []
        for (kind, where), piece, n in removed:
            if kind == "city" and piece.owner == owner and piece.kind == FAMILY:
                back += [where] * n
        if back:
            want = sc.to_send[state.neutral if owner == NEUTRAL else sc.chooser]
            yield SendBack(chooser, tuple(sorted(back)), NEUTRAL if owner == NEUTRAL else None), 0.0, len(back) >= want


def _prince_turns(state: MingState, added, removed) -> Iterable[tuple[MingMove, float, bool]]:
    board = state.board
    movers: dict[str, tuple[str | None, str | None]] = {}
    for (kind, where), piece, _ in removed:
        if kind == "district" and piece.kind == PRINCE:
            movers.setdefault(piece.owner, (None, None))
            movers[piece.owner] = (where, movers[piece.owner][1])
    for (kind, where), piece, _ in added:
        if kind == "district" and piece.kind == PRINCE:
            movers.setdefault(piece.owner, (None, None))
            movers[piece.owner] = (movers[piece.owner][0], where)
    active = state.players[state.active]
    if not movers:
        movers[active] = (None, None)  # a stay: the prince did not move
    for player, (src, dst) in movers.items():
        p = state.player_index(player)
        if p < 0:
            continue
        here = board.districts[state.princes[p]] if state.princes[p] != EMPTY else None
        end = dst or here
        if end is None:
            continue
        deploy, cloister = _deployed(added, player, end)
        have = state.spaces[board.district_province[board.district_index[end]]][p] if end in board.district_index else 0
        complete = deploy >= min(MAX_DEPLOY, have)
        if dst is None or dst == here:
            if deploy == 0 and dst is None:
                continue
            yield Stay(player, None, deploy, cloister), 0.0, complete
            continue
        for rank, path in enumerate(_paths(state, p, dst)):
            yield MovePrince(player, path, None, deploy, cloister), 0.1 * rank, complete


def _deployed(added, player: str, district: str) -> tuple[int, bool]:
    deploy, cloister = 0, False
    for (kind, where), piece, n in added:
        if piece.owner != player or piece.kind != FAMILY or where != district:
            continue
        if kind == "district":
            deploy += n
        elif kind == "cloister":
            deploy += n
            cloister = True
    return deploy, cloister


def _paths(state: MingState, p: int, target: str) -> list[tuple[str, ...]]:
    """Paths from the prince to ``target``, payable ones first, then shortest (at most MAX_PATHS).

    With a known hand, walks up to two steps longer than the shortest are tried (a detour the hand
    can pay is likelier than a short cut it cannot); with an unknown hand only shortest paths.
    """
    board = state.board
    start = state.princes[p]
    goal = board.district_index.get(target)
    if goal is None or start == EMPTY:
        return []
    dist = {goal: 0}
    todo = deque([goal])
    while todo:
        cur = todo.popleft()
        for nb in board.neighbours[cur]:
            if nb not in dist:
                dist[nb] = dist[cur] + 1
                todo.append(nb)
    if start not in dist:
        return []
    hand = state.hands[p]
    shortest = dist[start]
    limit = max(shortest, min(hand.total, shortest + 2)) if hand.exact else shortest
    paths: list[list[int]] = []

    def walk(at: int, acc: list[int]) -> None:
        if len(paths) >= 400:
            return
        if at == goal and acc:
            paths.append(list(acc))
        left = limit - len(acc)
        for nb in board.neighbours[at]:
            if dist[nb] <= left - 1:
                acc.append(nb)
                walk(nb, acc)
                acc.pop()

    walk(start, [])

    def payable(path: list[int]) -> bool:
        if not hand.exact:
            return True
        have = Counter({k: c for k, c in enumerate(hand.lb) if c})
        prev = start
        # matching cards first, dragons last (exact when every border carries one symbol)
        need_dragon = 0
        for d in path:
            syms = [s for s in board.border_symbols[(prev, d)] if have[s] > 0]
            if syms:
                have[syms[0]] -= 1
            else:
                need_dragon += 1
            prev = d
        return have[board.dragon_kind] >= need_dragon

    ranked = sorted(paths, key=lambda path: (not payable(path), len(path), path))[:MAX_PATHS]
    return [tuple(board.districts[d] for d in path) for path in ranked]


__all__ = ["explain", "classify"]

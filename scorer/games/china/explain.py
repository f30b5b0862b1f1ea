"""Read a sensed board as China moves (sensors report positions; the rules infer moves).

China only ever adds pieces, and all pieces of a turn belong to the active player (plus a
neutral fortress the active player put down). So the difference between the expected and the
sensed board is read as one ``Place`` move of the active player; anything else is residual --
noise to wait out, or an illegal change to flag.
"""

from __future__ import annotations

from itertools import combinations, permutations

from scorer.core.game import Explanation
from scorer.core.types import Board, BoardDiff, Message, Piece, SpaceId, Violation
from scorer.games.china.engine import ChinaEngine
from scorer.games.china.moves import EMISSARY, FORTRESS, HOUSE, ChinaMove, Place, Placement
from scorer.games.china.state import ChinaState

CARD_RULES = ("cards.",)


def explain(game: ChinaEngine, state: ChinaState, sensed: Board) -> tuple[Explanation[ChinaMove], ...]:
    expected = game.visible_board(state)
    diff = expected.diff(sensed)
    if not diff:
        return (Explanation(moves=(), complete=False),)
    if state.finished is not None:
        return (Explanation((), True, (Violation("game.over", Message.t('china.explain.the_game_is_over_the')),), diff, 100.0),)
    player = state.players[state.active]
    removed = diff.removed
    mine: list[Placement] = []
    foreign: list[tuple[SpaceId, Piece, int]] = []
    for space, piece, n in diff.added:
        if piece.owner == player and piece.kind in (HOUSE, EMISSARY):
            mine += [Placement(piece.kind, space)] * n
        elif piece.kind == FORTRESS and piece.owner == "neutral":
            mine += [Placement(FORTRESS, space)] * n
        else:
            foreign.append((space, piece, n))
    noise_violations = _removed_violations(removed) + _foreign_violations(state, foreign)
    residual_fixed = BoardDiff(tuple(foreign), removed)
    candidates: list[Explanation[ChinaMove]] = []
    if not mine:
        candidates.append(Explanation((), False, tuple(noise_violations), residual_fixed, cost=_cost(residual_fixed, noise_violations)))
        return tuple(candidates)
    # the literal reading: everything the active player added is this turn's placement
    candidates.append(_reading(game, state, player, mine, [], noise_violations, residual_fixed))
    # partial readings: a legal subset, with the rest left as residual (a piece in flight, a misread)
    if len(mine) > 1:
        for k in range(len(mine) - 1, 0, -1):
            for subset in combinations(range(len(mine)), k):
                chosen = [mine[i] for i in subset]
                rest = [mine[i] for i in range(len(mine)) if i not in subset]
                candidates.append(_reading(game, state, player, chosen, rest, noise_violations, residual_fixed))
    unique: dict[tuple, Explanation[ChinaMove]] = {}
    for c in candidates:
        key = (c.moves, c.residual)
        if key not in unique or c.cost < unique[key].cost:
            unique[key] = c
    return tuple(sorted(unique.values(), key=lambda e: e.cost))


def _reading(game, state, player, placed, rest, noise_violations, residual_fixed) -> Explanation[ChinaMove]:
    """Best order of ``placed`` (the emissary cap depends on it); cards are not known here."""
    best: tuple[tuple[Violation, ...], tuple[Placement, ...]] | None = None
    for order in dict.fromkeys(permutations(placed)):
        found = tuple(v for v in game.violations(state, Place(player, tuple(order))) if not v.rule.startswith(CARD_RULES))
        if best is None or len(found) < len(best[0]):
            best = (found, tuple(order))
        if not found:
            break
    assert best is not None
    violations, order = best
    residual = BoardDiff(residual_fixed.added + tuple(_as_added(state, player, rest)), residual_fixed.removed)
    move = Place(player, order)
    complete = len(order) >= 2 or _single_piece_ends_turn(state, order)
    all_violations = violations + tuple(noise_violations)
    return Explanation((move,), complete, all_violations, residual, cost=_cost(residual, all_violations))


def _single_piece_ends_turn(state: ChinaState, order: tuple[Placement, ...]) -> bool:
    """After one piece the turn is over when the province was empty or nothing more fits."""
    board = state.board
    pl = order[0]
    prov = board.site_province[board.site_index[pl.space]] if pl.kind != EMISSARY else board.dragon_index[pl.space]
    return state.province_empty(prov)


def _as_added(state: ChinaState, player: str, rest: list[Placement]):
    for pl in rest:
        owner = "neutral" if pl.kind == FORTRESS else player
        yield (pl.space, Piece(owner, pl.kind), 1)


def _cost(residual: BoardDiff, violations) -> float:
    return 10.0 * len(violations) + sum(n for _, _, n in residual.added) + sum(n for _, _, n in residual.removed)


def _removed_violations(removed) -> list[Violation]:
    out = []
    for space, piece, n in removed:
        out.append(Violation(
            "board.piece_removed",
            Message.t('china.explain.s_disappeared_from_pieces_in', n=n, owner=piece.owner, kind=piece.kind, space=space),
            (space,),
            Message.t('china.explain.put_the_back_on', owner=piece.owner, kind=piece.kind, space=space),
        ))
    return out


def _foreign_violations(state: ChinaState, foreign) -> list[Violation]:
    out = []
    active = state.players[state.active]
    for space, piece, n in foreign:
        out.append(Violation(
            "turn.not_your_turn",
            Message.t('china.explain.a_appeared_on_but_it', owner=piece.owner, kind=piece.kind, space=space, active=active),
            (space,),
            Message.t('china.explain.take_the_off', owner=piece.owner, kind=piece.kind, space=space),
        ))
    return out

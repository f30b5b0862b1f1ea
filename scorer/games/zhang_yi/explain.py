"""Read a sensed board as Zhang Yi moves (sensors report positions; the rules infer moves).

What the sensors can show depends on the awaited input: new strength (recruitment), one army
moving (march), a talent appearing (placement) or disappearing (assassination), the loser's army
leaving the battle area (retreat). Draws, die rolls and destiny chits are invisible: while one
of them is awaited, any change on the board is unexplained.

Each reading is scored by replaying it: a legal move is applied and the board the rules expect
afterwards is compared with the sensed one (e.g. an army that crossed a river but still shows
its full strength leaves 1 strength of residual: attrition not taken off yet). An illegal
literal reading is kept with its violations, so the referee can say what is wrong.
"""

from __future__ import annotations

from collections import Counter
from typing import Iterable

from scorer.core.game import Explanation
from scorer.core.types import Board, BoardDiff, Message, Piece, SpaceId, Violation
from scorer.games.zhang_yi.data import ARMY, STATES, TALENT_IDS, TALENT_PREFIX
from scorer.games.zhang_yi.engine import ZhangYiEngine
from scorer.games.zhang_yi.moves import Assassinate, March, PlaceTalent, Recruit, Retreat, ZhangYiMove
from scorer.games.zhang_yi.rules import awaiting_text
from scorer.games.zhang_yi.state import A_ASSASSIN, A_MOVE, A_RECRUIT, A_RETREAT, A_TALENT_PLACE, ZhangYiState

MAX_READINGS = 8


def explain(game: ZhangYiEngine, state: ZhangYiState, sensed: Board) -> tuple[Explanation[ZhangYiMove], ...]:
    expected = game.visible_board(state)
    diff = expected.diff(sensed)
    if not diff:
        return (Explanation(moves=(), complete=False),)
    if state.finished is not None:
        v = Violation("game.over", Message.t('zhang_yi.explain.the_game_is_over_the'))
        return (Explanation((), True, (v,), diff, _cost(diff, (v,))),)
    a = state.awaiting
    player = state.players[state.actors[0]] if state.actors else ""
    if a == A_RECRUIT:
        moves = _recruit(state, player, diff)
    elif a == A_MOVE:
        moves = _march(state, player, diff)
    elif a == A_TALENT_PLACE:
        moves = _place(state, player, diff)
    elif a == A_RETREAT:
        moves = _retreat(state, player, diff)
    elif a == A_ASSASSIN:
        moves = _assassin(state, player, diff)
    else:
        moves = []
    if not moves:
        want = awaiting_text(a)
        v = Violation(
            "sensed.unexpected_change",
            Message.t('zhang_yi.explain.the_board_changed_but_the', want=want),
            diff.spaces,
            Message.t('zhang_yi.explain.put_the_pieces_back_as'),
        )
        return (Explanation((), False, (v,), diff, _cost(diff, (v,))),)
    readings = [_evaluate(game, state, m, sensed, expected) for m in dict.fromkeys(moves)]
    readings.sort(key=lambda e: e.cost)
    return tuple(readings[:MAX_READINGS])


def _evaluate(game: ZhangYiEngine, state: ZhangYiState, move: ZhangYiMove, sensed: Board, expected: Board) -> Explanation[ZhangYiMove]:
    found = game.violations(state, move)
    if not found:
        after = game.visible_board(game.apply_unchecked(state, move))
        residual = after.diff(sensed)
    else:
        residual = _physical(state, move, expected).diff(sensed)
    complete = not (isinstance(move, Recruit) and move.total < state.recruit_due)
    if not complete:
        found = tuple(v for v in found if v.rule != "recruit.total")
    return Explanation((move,), complete, tuple(found), residual, _cost(residual, found))


def _physical(state: ZhangYiState, move: ZhangYiMove, expected: Board) -> Board:
    """The board after the pieces were moved as the move says, with no rule applied."""
    gmap = state.map
    cells = expected.as_dict()

    def shift(area_id: str, piece: Piece, n: int) -> None:
        i = gmap.area_index.get(area_id)
        if i is None:
            return
        c = cells.setdefault(SpaceId(gmap.areas[i].space_id), Counter())
        c[piece] += n

    s = STATES[state.active_state] if state.active_state >= 0 else ""
    if isinstance(move, Recruit):
        for area, n in move.placements:
            shift(area, Piece(s, ARMY), n)
    elif isinstance(move, March):
        shift(move.origin, Piece(s, ARMY), -move.strength)
        shift(move.dest, Piece(s, ARMY), move.strength)
        for t in move.talents:
            kind = TALENT_PREFIX + t
            owner = _talent_owner(state, t)
            shift(move.origin, Piece(owner, kind), -1)
            shift(move.dest, Piece(owner, kind), 1)
    elif isinstance(move, PlaceTalent):
        shift(move.area, Piece(_talent_owner(state, move.talent), TALENT_PREFIX + move.talent), 1)
    elif isinstance(move, Retreat) and state.retreat is not None and move.to is not None:
        r = state.retreat
        loser = Piece(STATES[r.state], ARMY)
        shift(gmap.areas[r.area].id, loser, -r.strength)
        shift(move.to, loser, r.strength)
    elif isinstance(move, Assassinate):
        t = TALENT_IDS.index(move.target) if move.target in TALENT_IDS else -1
        if t >= 0 and state.talent_loc[t] >= 0:
            shift(gmap.areas[state.talent_loc[t]].id, Piece(_talent_owner(state, move.target), TALENT_PREFIX + move.target), -1)
    out = {sp: Counter({p: n for p, n in c.items() if n > 0}) for sp, c in cells.items()}
    return Board.from_counts(out)


def _talent_owner(state: ZhangYiState, talent: str) -> str:
    if talent not in TALENT_IDS:
        return "neutral"
    s = state.map.talent_state[TALENT_IDS.index(talent)]
    return STATES[s] if s >= 0 else "neutral"


def _area_of(state: ZhangYiState, space: str) -> str | None:
    i = state.map.space_area.get(space)
    return state.map.areas[i].id if i is not None else None


def _army_delta(state: ZhangYiState, diff: BoardDiff, s: str) -> dict[str, int]:
    delta: dict[str, int] = {}
    for sign, rows in ((1, diff.added), (-1, diff.removed)):
        for space, piece, n in rows:
            if piece.owner == s and piece.kind == ARMY:
                area = _area_of(state, space) or str(space)
                delta[area] = delta.get(area, 0) + sign * n
    return delta


def _talent_moves(state: ZhangYiState, diff: BoardDiff) -> tuple[dict[str, str], dict[str, str]]:
    """talent -> area it vanished from / appeared in."""
    gone, came = {}, {}
    for rows, into in ((diff.removed, gone), (diff.added, came)):
        for space, piece, _ in rows:
            if piece.kind.startswith(TALENT_PREFIX):
                into[piece.kind[len(TALENT_PREFIX):]] = _area_of(state, space) or str(space)
    return gone, came


def _recruit(state: ZhangYiState, player: str, diff: BoardDiff) -> list[ZhangYiMove]:
    delta = _army_delta(state, diff, STATES[state.active_state])
    placements = tuple(sorted((a, n) for a, n in delta.items() if n > 0))
    return [Recruit(player, placements)] if placements else []


def _march(state: ZhangYiState, player: str, diff: BoardDiff) -> list[ZhangYiMove]:
    s = STATES[state.active_state]
    delta = _army_delta(state, diff, s)
    gone, came = _talent_moves(state, diff)
    origins = [a for a, n in delta.items() if n < 0]
    dests = [a for a, n in delta.items() if n > 0]
    gmap = state.map
    out: list[ZhangYiMove] = []
    for o in origins:
        m = -delta[o]
        talents = tuple(sorted(t for t, where in gone.items() if where == o))
        targets: Iterable[str] = dests
        if not dests and o in gmap.area_index:
            # the army vanished: wiped out by attrition on a river or mountain border
            i = gmap.area_index[o]
            targets = [gmap.areas[j].id for j, t in gmap.neighbours[i] if t != "open"] or [gmap.areas[j].id for j, _ in gmap.neighbours[i]]
        for d in targets:
            out.append(March(player, o, d, m, talents))
    if not origins and dests:
        # pieces put down in the destination before being taken from the origin: a move in flight
        for d in dests:
            i = gmap.area_index.get(d)
            if i is None:
                continue
            for j, _ in gmap.neighbours[i]:
                if state.owner[j] == state.active_state and state.strength[j] > delta[d]:
                    out.append(March(player, gmap.areas[j].id, d, delta[d], tuple(sorted(t for t, w in came.items() if w == d))))
    return out


def _place(state: ZhangYiState, player: str, diff: BoardDiff) -> list[ZhangYiMove]:
    _, came = _talent_moves(state, diff)
    return [PlaceTalent(player, t, area) for t, area in sorted(came.items())]


def _retreat(state: ZhangYiState, player: str, diff: BoardDiff) -> list[ZhangYiMove]:
    r = state.retreat
    if r is None:
        return []
    delta = _army_delta(state, diff, STATES[r.state])
    return [Retreat(player, a) for a, n in sorted(delta.items(), key=lambda x: -x[1]) if n > 0]


def _assassin(state: ZhangYiState, player: str, diff: BoardDiff) -> list[ZhangYiMove]:
    gone, _ = _talent_moves(state, diff)
    return [Assassinate(player, t) for t in sorted(gone)]


def _cost(residual: BoardDiff, violations: Iterable[Violation]) -> float:
    return 10.0 * len(tuple(violations)) + sum(n for _, _, n in residual.added) + sum(n for _, _, n in residual.removed)

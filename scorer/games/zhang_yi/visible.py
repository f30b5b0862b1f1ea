"""What the sensors should see on a Zhang Yi table (``visible_board``): pieces per area."""

from __future__ import annotations

from scorer.core.types import Board, Piece
from scorer.games.zhang_yi.data import ARMY, STATES, TALENT_IDS, talent_piece_kind
from scorer.games.zhang_yi.state import ZhangYiState


def visible_board(state: ZhangYiState) -> Board:
    """Army strength as ``Piece(state, "army")`` counted by strength; talents as
    ``Piece(state, "talent-<id>")``; per area's ``space_id``. A battle waiting for its die
    shows the attacker in the battle area; a loser waiting to retreat is still there."""
    gmap = state.map
    cells: dict[str, dict[Piece, int]] = {}

    def add(area: int, piece: Piece, n: int) -> None:
        if n > 0:
            cell = cells.setdefault(gmap.areas[area].space_id, {})
            cell[piece] = cell.get(piece, 0) + n

    for i, (o, n) in enumerate(zip(state.owner, state.strength)):
        if o >= 0:
            add(i, Piece(STATES[o], ARMY), n)
    ts = gmap.talent_state
    for t, loc in enumerate(state.talent_loc):
        if loc >= 0:
            add(loc, Piece(STATES[ts[t]], talent_piece_kind(TALENT_IDS[t])), 1)
    if state.battle is not None:
        b = state.battle
        add(b.dest, Piece(STATES[state.active_state], ARMY), b.attacker)
        for t in b.talents:
            add(b.dest, Piece(STATES[ts[t]], talent_piece_kind(TALENT_IDS[t])), 1)
    if state.retreat is not None:
        r = state.retreat
        add(r.area, Piece(STATES[r.state], ARMY), r.strength)
    return Board.from_counts(cells)


__all__ = ["visible_board"]

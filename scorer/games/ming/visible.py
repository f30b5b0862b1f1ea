"""What the sensors should see on a Ming table (``visible_board``): pieces per space id."""

from __future__ import annotations

from scorer.core.types import Board, Piece
from scorer.games.ming.board import city_space, cloister_space, province_space
from scorer.games.ming.moves import FAMILY, NEUTRAL, PRINCE
from scorer.games.ming.state import EMPTY, MingState


def visible_board(state: MingState) -> Board:
    board = state.board
    names = state.players + (NEUTRAL,)
    cells: dict[str, dict[Piece, int]] = {}
    for d, name in enumerate(board.districts):
        for o, k in enumerate(state.open[d]):
            if k:
                cells.setdefault(name, {})[Piece(names[o], FAMILY)] = k
        if state.cloister[d] != EMPTY:
            cells[cloister_space(name)] = {Piece(names[state.cloister[d]], FAMILY): 1}
        for o, k in enumerate(state.city[d]):
            if k:
                cells.setdefault(city_space(name), {})[Piece(names[o], FAMILY)] = k
    for i, prov in enumerate(board.provinces):
        for p, k in enumerate(state.spaces[i]):
            if k:
                cells.setdefault(province_space(prov.id), {})[Piece(names[p], FAMILY)] = k
    for p, d in enumerate(state.princes):
        if d != EMPTY:
            cells.setdefault(board.districts[d], {})[Piece(names[p], PRINCE)] = 1
    return Board.from_counts(cells)


__all__ = ["visible_board"]

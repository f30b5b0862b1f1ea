"""What the sensors should see on a Cheops table (``visible_board``), and the piece kinds they name."""

from __future__ import annotations

from scorer.core.types import Board, Piece
from scorer.games.cheops.data import FACES, SPACES, CheopsBoard, column_spaces
from scorer.games.cheops.state import EMPTY, NEIGHBOUR_TILE, NO_TILE, CheopsState, is_treasure


NEUTRAL = "neutral"


def family_kind(face: int) -> str:
    return f"family-{FACES[face]}"


def treasure_kind(colour: str) -> str:
    return f"treasure-{colour}"


LAW_FACE_DOWN = "law"


def law_kind(n: int) -> str:
    return f"law-{n}"


def dot_spaces(board: CheopsBoard) -> frozenset[str]:
    """The price columns' dots, where each colour's marker scarab lies all game (``Game.fixed_spaces``)."""
    return frozenset(column_spaces(c)[0] for c in board.colours)


def visible_board(state: CheopsState) -> Board:
    """Tiles and what lies open on the pyramid, scarabs on the price tables, laws under them.

    Face-down laws are seen only as ``law``; kept treasures, hands, money and held laws lie
    in front of the players and are not part of the board.
    """
    cells: dict[str, dict[Piece, int]] = {}
    for i, s in enumerate(SPACES):
        t = state.tile[i]
        if t != NO_TILE:
            cells[s] = {Piece(NEUTRAL, "neighbour" if t == NEIGHBOUR_TILE else family_kind(t)): 1}
            continue
        code = state.content[i]
        if code == EMPTY:
            continue
        if is_treasure(code):
            cells[s] = {Piece(NEUTRAL, treasure_kind(state.colours[code])): 1}
        else:
            cells[s] = {Piece(NEUTRAL, LAW_FACE_DOWN): 1}
    for c, colour in enumerate(state.colours):
        dot, price, law = column_spaces(colour)
        cells[dot] = {Piece(NEUTRAL, treasure_kind(colour)): 1}
        if state.covered[c]:
            cells[price] = {Piece(NEUTRAL, treasure_kind(colour)): state.covered[c]}
        if state.table_law[c]:
            cells[law] = {Piece(NEUTRAL, law_kind(state.table_law[c])): 1}
    return Board.from_counts(cells)

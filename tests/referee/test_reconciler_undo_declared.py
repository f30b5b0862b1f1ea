"""After an undo of a *declared* move (Cheops: each turn is completed on the dashboard with the tile
drawn, which no sensor sees), the undone move's pieces still on the table are read as "take these
back", not as a new move -- although the move read from the table never equals the declared one."""

from __future__ import annotations

from scorer.core import Piece, SetupOptions, get_game
from scorer.referee.reconciler import AcceptMove, ReadingChanged, Reconciler, ReconcilerSettings, TableMatched, shows_part_of
from scorer.referee.stabiliser import StableView

GAME = get_game("cheops")
SETTINGS = ReconcilerSettings(complete_grace=1.0, quiet_timeout=10.0, max_busy=5.0, signal_ttl=5.0,
                              close_on_complete=False)
N = "neutral"


def start():
    return GAME.setup(SetupOptions.from_json({"players": ["blue", "red", "green"], "seed": 4}))


def turn(space: str, tile: str, *, sell: bool, draw: bool = True):
    data = {"type": "turn", "player": "blue", "steps": [{"do": "place", "tile": tile, "space": space, "sell": sell}]}
    if draw:
        data["draws"] = [{"stack": 0}]
    return GAME.move_from_json(data)


def view(state, board, now: float) -> StableView:
    spaces = tuple(dict.fromkeys(tuple(GAME.visible_board(state).spaces()) + tuple(board.spaces())))
    return StableView(now, board, spaces, (), (), changed_at=now)


def of(kind: type, decisions: list) -> list:
    return [d for d in decisions if isinstance(d, kind)]


def test_the_declared_move_read_again_from_the_table_is_a_takeback() -> None:
    state = start()
    undone = turn("r11c8", "B", sell=False)  # red treasure of r11c8 kept (off the table), a tile drawn
    shown = GAME.visible_board(GAME.apply(state, undone))
    assert turn("r11c8", "B", sell=False, draw=False) != undone  # the table cannot show the draw
    r = Reconciler(GAME, SETTINGS)
    r.after_undo((undone,))
    d = r.evaluate(state, view(state, shown, 0.0), 0.0)
    assert of(ReadingChanged, d)[0].reading.takeback and not of(TableMatched, d)
    assert not of(AcceptMove, r.evaluate(state, view(state, shown, 60.0), 60.0))  # never re-accepted by waiting
    d = r.evaluate(state, view(state, GAME.visible_board(state), 61.0), 61.0)
    assert of(TableMatched, d) and r.suppressed is None


def test_a_different_turn_on_the_same_space_ends_the_wait() -> None:
    state = start()
    undone = turn("r11c8", "B", sell=False)
    sold = GAME.visible_board(GAME.apply(state, turn("r11c8", "B", sell=True)))  # the treasure onto its price table
    assert not shows_part_of(GAME, state, GAME.explain(state, sold)[0].moves, (undone,))
    r = Reconciler(GAME, SETTINGS)
    r.after_undo((undone,))
    d = r.evaluate(state, view(state, sold, 0.0), 0.0)
    assert of(TableMatched, d) and not of(ReadingChanged, d)[0].reading.takeback
    assert Piece(N, "treasure-red") in dict(sold.pieces("price-red"))

"""A reading that is legal only as the start of a move (The Great Wall: one token revealed beside a
section where two are due) is pending while the player goes on; left as it is past the quiet timeout
it is flagged with the rule it breaks as it stands -- before, it was accepted, the session refused it
as illegal and the table logged an error and read on as if nothing had happened."""

from __future__ import annotations

from scorer.core import Piece, SetupOptions, get_game
from scorer.core.types import Board
from scorer.referee.reconciler import AcceptMove, ClearFlag, FlagKind, RaiseFlag, Reconciler, ReconcilerSettings
from scorer.referee.stabiliser import StableView

GAME = get_game("great_wall")
SETTINGS = ReconcilerSettings(complete_grace=1.0, quiet_timeout=4.0, max_busy=5.0, signal_ttl=5.0)
N = "neutral"


def start():
    return GAME.setup(SetupOptions.from_json({"players": ["blue", "red", "green"]}))


def with_tokens(state, space: str, *values: int) -> Board:
    """The set-up's table with these tokens face up beside ``space``."""
    board = GAME.visible_board(state)
    cells = {s: dict(board.pieces(s)) for s in board.spaces()}
    cell = cells.setdefault(space, {})
    for v in values:
        p = Piece(N, f"token-{v}")
        cell[p] = cell.get(p, 0) + 1
    return Board.from_counts(cells)


def view(board, now: float) -> StableView:
    return StableView(now, board, tuple(board.spaces()) or ("section-1",), (), (), changed_at=0.0)


def of(kind: type, decisions: list) -> list:
    return [d for d in decisions if isinstance(d, kind)]


def test_one_token_of_two_left_alone_is_flagged_not_recorded() -> None:
    state = start()
    one = with_tokens(state, "section-1", 5)
    r = Reconciler(GAME, SETTINGS)
    assert not of(RaiseFlag, r.evaluate(state, view(one, 0.0), 0.0)) and r.reading is not None  # pending: more may come
    assert not of(AcceptMove, r.evaluate(state, view(one, 2.0), 2.0))
    d = r.evaluate(state, view(one, 4.5), 4.5)  # the quiet timeout
    assert not of(AcceptMove, d)
    (raised,) = of(RaiseFlag, d)
    assert raised.flag.kind == FlagKind.UNFINISHED and [v.rule for v in raised.flag.violations] == ["reveal.count"]
    assert raised.flag.spaces == ("section-1",) and "2" in raised.flag.violations[0].message.en
    assert not of(RaiseFlag, r.evaluate(state, view(one, 9.0), 9.0))  # raised once, kept while the table stays so
    # the second token laid: the flag clears and the reveal is the move
    both = with_tokens(state, "section-1", 5, 3)
    d = r.evaluate(state, view(both, 9.5), 9.5)
    assert of(ClearFlag, d)
    d = r.evaluate(state, view(both, 11.0), 11.0)
    (accepted,) = of(AcceptMove, d)
    assert [GAME.move_to_json(m)["type"] for m in accepted.moves] == ["reveal"]
    assert not GAME.violations(state, accepted.moves[0])

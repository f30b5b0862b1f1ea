"""visible_board and explain: what the sensors should see, and reading a sensed board as a turn."""

from __future__ import annotations

from collections import Counter

from cheops_helpers import fresh, position
from scorer.core.game import SetupOptions
from scorer.core.results import Termination
from scorer.core.types import Board, Piece
from scorer.games.cheops import GAME, BuyNeighbour, PlaceTile, Take, Turn, UseLaw11, UseLaw12
from scorer.games.cheops.data import SPACES
from scorer.games.cheops.simulate import random_game

N = "neutral"
DECLARED_ONLY = {"law.undeclared", "law.remove_missing"}


def test_visible_board_at_setup():
    s = fresh()
    b = GAME.visible_board(s)
    kinds = Counter(p.kind for sp, p, n in b.items() if sp in SPACES for _ in range(n))
    assert sum(kinds.values()) == 66
    assert kinds["law"] == 6 and sum(v for k, v in kinds.items() if k.startswith("treasure-")) == 60
    for e in s.board.eye_spaces:
        assert b.pieces(e) == {Piece(N, "law"): 1}
    assert all(b.count(f"dot-{c}") == 1 for c in s.colours)


def test_explain_reads_every_move_of_random_games():
    """The best reading of the board after each move is that move (up to what is invisible)."""
    for seed in (1, 2, 3, 4):
        setup, moves, _ = random_game(seed, 3)
        state = GAME.setup(SetupOptions.from_json(setup))
        for move in moves:
            nxt = GAME.apply(state, move)
            readings = GAME.explain(state, GAME.visible_board(nxt))
            best = readings[0]
            assert not best.residual, (move, best)
            assert {v.rule for v in best.violations} <= DECLARED_ONLY
            if move.step_b is not None and type(move.step_b).__name__ != "Pass":
                visible = [s for s in move.steps if isinstance(s, (PlaceTile, UseLaw11, BuyNeighbour))]
                got = [s for s in best.moves[0].steps if isinstance(s, (PlaceTile, UseLaw11, BuyNeighbour))]
                assert [(type(s), s.space) for s in got] == [(type(s), s.space) for s in visible]
                # sold vs kept is read off the price tables (which of two same-colour scarabs was sold
                # is not visible, and does not matter)
                assert sorted(str(a.take.sell) for a in got) == sorted(str(b.take.sell) for b in visible)
                for a, b in zip(got, visible):
                    if b.take.table:
                        assert a.take.table == b.take.table
                assert best.complete
                if best.legal:
                    replayed = GAME.apply(state, Turn(move.player, best.moves[0].steps, move.draws))
                    assert GAME.visible_board(replayed) == GAME.visible_board(nxt)
            state = nxt


def test_explain_partial_and_illegal_readings():
    s = position(content={"r11c1": "red"})
    # the tile is down but the scarab is still there: not complete yet
    sensed = GAME.visible_board(s).with_added("r11c1", Piece(N, "family-A"))
    best = GAME.explain(s, sensed)[0]
    assert not best.complete and best.moves and best.residual
    # lifted and put on the red table: a sale
    sensed = (GAME.visible_board(s).with_removed("r11c1", Piece(N, "treasure-red"))
              .with_added("r11c1", Piece(N, "family-A")).with_added("price-red", Piece(N, "treasure-red")))
    best = GAME.explain(s, sensed)[0]
    assert best.legal and best.complete and best.moves[0].steps == (PlaceTile("A", "r11c1", Take(sell=True)),)
    # a tile on a space not supported: explained, with the violated rule
    sensed = GAME.visible_board(s).with_removed("r10c1", GAME.visible_board(s).pieces("r10c1").most_common(1)[0][0]).with_added(
        "r10c1", Piece(N, "family-B"))
    best = GAME.explain(s, sensed)[0]
    assert {v.rule for v in best.violations} == {"place.support"}
    # an unexplained piece stays residual
    sensed = GAME.visible_board(s).with_added("price-red", Piece(N, "treasure-blue"))
    best = GAME.explain(s, sensed)[0]
    assert best.residual and not best.moves
    # nothing changed
    assert GAME.explain(s, GAME.visible_board(s))[0].moves == ()


def test_explain_normalises_owners_and_law_numbers():
    s = position(content={"r11c2": 4})
    board = GAME.visible_board(s)
    sensed_law = Board.from_counts({**{sp: dict(board.pieces(sp)) for sp in board.spaces()}, "r11c2": {Piece("red", "law-4"): 1}})
    assert GAME.explain(s, sensed_law)[0].moves == ()  # an RFID-identified face-down law is still just "law"
    # law 4 attached under the blue table is read as the law taken
    after = (board.with_removed("r11c2", Piece(N, "law")).with_added("r11c2", Piece("blue", "family-C"))
             .with_added("price-blue-law", Piece(N, "law-4")))
    best = GAME.explain(s, after)[0]
    assert best.legal and best.moves[0].steps == (PlaceTile("C", "r11c2", Take(law=4, table="blue")),)


def test_explain_face_down_law_needs_a_declaration():
    s = position(content={"r11c2": "law"})
    board = GAME.visible_board(s)
    after = board.with_removed("r11c2", Piece(N, "law")).with_added("r11c2", Piece(N, "family-C"))
    best = GAME.explain(s, after)[0]
    assert {v.rule for v in best.violations} == {"law.undeclared"}


def test_explain_law8_lifting_a_face_down_law_off_the_pyramid():
    """Law 8 may remove a face-down law on the pyramid (issue 13): the table shows it as a law gone
    from an open space, which explain reads as law 8's target."""
    s = position(content={"r11c2": 8, "r11c6": "law"})
    board = GAME.visible_board(s)
    after = (board.with_removed("r11c2", Piece(N, "law")).with_added("r11c2", Piece(N, "family-C"))
             .with_removed("r11c6", Piece(N, "law")))
    best = GAME.explain(s, after)[0]
    assert best.legal and best.complete and not best.residual
    assert best.moves[0].steps == (PlaceTile("C", "r11c2", Take(law=8, remove_space="r11c6")),)
    # with the old reading the lifted law stays unexplained
    old = position(fresh(variants=["law8_face_up_only"]), content={"r11c2": 8, "r11c6": "law"})
    best = GAME.explain(old, after)[0]
    assert best.residual.removed == (("r11c6", Piece(N, "law"), 1),)


def test_explain_law12_swap():
    s = position(content={"r11c1": "red", "r11c2": "blue"}, held={"blue": [12]})
    board = GAME.visible_board(s)
    sensed = (board.with_removed("r11c1", Piece(N, "treasure-red")).with_added("r11c1", Piece(N, "treasure-blue"))
              .with_removed("r11c2", Piece(N, "treasure-blue")).with_added("r11c2", Piece(N, "treasure-red")))
    best = GAME.explain(s, sensed)[0]
    assert best.moves[0].steps == (UseLaw12("r11c1", "r11c2"),) and not best.complete and not best.residual


def test_explain_after_the_end():
    s = position(fresh())
    from dataclasses import replace

    over = replace(s, finished=Termination.BLOCKED)
    sensed = GAME.visible_board(over).with_added("r11c1", Piece(N, "family-A"))
    assert GAME.explain(over, sensed)[0].violations[0].rule == "game.over"

"""Reading sensed boards as moves: literal, partial, foreign and removed pieces."""

from __future__ import annotations

from scorer.core.types import Piece
from scorer.games.china import GAME, Place, Placement


def sensed(state, *added, removed=()):
    board = GAME.visible_board(state)
    for space, owner, kind in added:
        board = board.with_added(space, Piece(owner, kind))
    for space, owner, kind in removed:
        board = board.with_removed(space, Piece(owner, kind))
    return board


def test_unchanged_board_is_no_move(make_position):
    s = make_position(houses={"wei-1": "blue"}, active="green")
    (e,) = GAME.explain(s, GAME.visible_board(s))
    assert e.moves == () and e.legal and not e.complete


def test_one_house_in_a_non_empty_province_is_a_partial_move(make_position):
    s = make_position(houses={"wei-1": "blue"}, active="green")
    best = GAME.explain(s, sensed(s, ("wei-2", "green", "house")))[0]
    assert best.moves == (Place("green", (Placement("house", "wei-2"),)),)
    assert best.legal and not best.complete  # a second piece may follow


def test_one_house_in_an_empty_province_completes_the_turn(make_position):
    s = make_position(active="green")
    best = GAME.explain(s, sensed(s, ("wei-2", "green", "house")))[0]
    assert best.legal and best.complete


def test_second_piece_in_an_empty_province_is_flagged_with_the_fix(make_position):
    s = make_position(active="green")
    found = GAME.explain(s, sensed(s, ("wei-2", "green", "house"), ("wei-3", "green", "house")))
    literal = next(e for e in found if len(e.moves[0].placements) == 2)
    assert [v.rule for v in literal.violations] == ["place.empty_province_one_piece"]
    assert "Take the second house off" in literal.violations[0].fix.en
    # the most likely reading is a legal single house with the other left over (in flight / to remove)
    best = found[0]
    assert not best.violations and len(best.moves[0].placements) == 1 and best.residual


def test_house_then_emissary_order_is_found(make_position):
    """An emissary that is only legal after the new house (cap from the same turn) is accepted."""
    s = make_position(houses={"qi-1": "blue"}, active="green")
    board = sensed(s, ("qi-dragon", "green", "emissary"), ("qi-2", "green", "house"))
    best = GAME.explain(s, board)[0]
    assert best.legal
    # the emissary needs cap 1: it exists already (blue has 1 house), so both orders work; now cap 0 case:
    s2 = make_position(houses={}, emissaries={}, active="green")
    s2 = GAME.apply(s2, Place("green", (Placement("house", "qi-1"),)))  # green's single piece
    s2 = GAME.apply(s2, Place("red", (Placement("house", "wei-1"),)))
    s2 = GAME.apply(s2, Place("yellow", (Placement("house", "han-1"),)))
    s2 = GAME.apply(s2, Place("blue", (Placement("house", "qi-2"),), ))
    best2 = GAME.explain(s2, sensed(s2, ("qi-dragon", "green", "emissary"), ("qi-3", "green", "house")))[0]
    assert best2.legal


def test_foreign_piece_is_flagged(make_position):
    s = make_position(houses={"wei-1": "blue"}, active="green")
    best = GAME.explain(s, sensed(s, ("wei-2", "red", "house")))[0]
    assert [v.rule for v in best.violations] == ["turn.not_your_turn"]
    assert best.violations[0].spaces == ("wei-2",)


def test_removed_piece_is_flagged_with_put_back(make_position):
    s = make_position(houses={"wei-1": "blue"}, active="green")
    best = GAME.explain(s, sensed(s, removed=[("wei-1", "blue", "house")]))[0]
    assert [v.rule for v in best.violations] == ["board.piece_removed"]
    assert "Put the blue house back on wei-1" in best.violations[0].fix.en


def test_visible_board_shows_fortress_and_house_on_one_site(make_position):
    s = make_position(houses={"qi-2": "blue"}, fortresses=("qi-2",), variants=("fortress",))
    board = GAME.visible_board(s)
    assert board.pieces("qi-2") == {Piece("blue", "house"): 1, Piece("neutral", "fortress"): 1}

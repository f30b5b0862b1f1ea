"""Sensing: what the sensors should see, and reading a sensed board back as Ming moves."""

from __future__ import annotations

from dataclasses import replace

from ming_helpers import commit_all, position, score_now
from scorer.core.game import SetupOptions
from scorer.core.types import Piece
from scorer.games.ming import GAME
from scorer.games.ming.engine import effect
from scorer.games.ming.moves import MovePrince, PlaceFamily, PlacePrince, SendBack, Stay, TakeDragon
from scorer.games.ming.simulate import random_game
from scorer.games.ming.state import PH_CARDS, PH_SPACES


def test_visible_board_names_every_kind_of_space():
    s = position(princes={"yellow": "p1d1"}, open={"p1d1": {"red": 2}}, cloister={"p1d1": "green"}, spaces={"p3": {"blue": 4}})
    b = GAME.visible_board(s)
    assert b.pieces("p1d1") == {Piece("yellow", "prince"): 1, Piece("red", "family"): 2}
    assert b.pieces("p1d1-cloister") == {Piece("green", "family"): 1}
    assert b.pieces("province-space-p3") == {Piece("blue", "family"): 4}
    during = score_now(position(round=2, open={"p2d3": {"red": 3}}))
    assert GAME.visible_board(during).pieces("p2d3-city") == {Piece("red", "family"): 2}
    two = position(("red", "blue"), open={"p4d2": {"neutral": 3}})
    assert GAME.visible_board(two).pieces("p4d2") == {Piece("neutral", "family"): 3}


def test_nothing_changed():
    s = position()
    (e,) = GAME.explain(s, GAME.visible_board(s))
    assert e.moves == () and not e.complete


def test_prince_move_with_deployment_and_ousting_read_back():
    s = position(princes={"yellow": "p1d1", "green": "p6d3"}, hands={"yellow": ["horse", "junk"]},
                 spaces={"p1": {"yellow": 3}}, cloister={"p1d3": "red"})
    move = MovePrince("yellow", ("p1d2", "p1d3"), ("horse", "junk"), deploy=2, cloister=True)
    sensed = GAME.visible_board(effect(s, move))
    best = GAME.explain(s, sensed)[0]
    assert best.legal and best.moves == (replace(move, cards=None),)
    assert not best.complete  # one more family member could still come


def test_partial_deployment_is_incomplete_and_full_one_complete():
    s = position(princes={"yellow": "p1d1"}, hands={"yellow": ["horse"]}, spaces={"p1": {"yellow": 5}})
    part = GAME.visible_board(effect(s, Stay("yellow", "horse", deploy=1)))
    e = GAME.explain(s, part)[0]
    assert e.moves == (Stay("yellow", None, 1, False),) and not e.complete and e.legal
    full = GAME.visible_board(effect(s, Stay("yellow", "horse", deploy=3)))
    e = GAME.explain(s, full)[0]
    assert e.moves == (Stay("yellow", None, 3, False),) and e.complete


def test_illegal_end_on_a_prince_is_flagged():
    s = position(princes={"yellow": "p1d1", "green": "p1d2"}, hands={"yellow": ["horse"]})
    sensed = GAME.visible_board(s).with_removed("p1d1", Piece("yellow", "prince")).with_added("p1d2", Piece("yellow", "prince"))
    best = GAME.explain(s, sensed)[0]
    assert isinstance(best.moves[0], MovePrince)
    assert [v.rule for v in best.violations] == ["move.ends_on_prince"]


def test_dragon_take_seen_as_a_family_member_leaving_a_province_space():
    s = position(phase=PH_CARDS, spaces={"p2": {"yellow": 2}})
    sensed = GAME.visible_board(s).with_removed("province-space-p2", Piece("yellow", "family"))
    best = GAME.explain(s, sensed)[0]
    assert best.moves == (TakeDragon("yellow", "p2"),) and best.legal


def test_out_of_turn_placement_and_noise():
    s = position(phase=PH_SPACES, active="green")
    s = replace(s, in_hand=(5, 5, 5, 5))
    sensed = GAME.visible_board(s).with_added("province-space-p4", Piece("red", "family"))
    best = GAME.explain(s, sensed)[0]
    assert best.moves == (PlaceFamily("red", "p4"),) and [v.rule for v in best.violations] == ["turn.not_your_turn"]
    noise = GAME.visible_board(s).with_added("p3d3-cloister", Piece("red", "family"))
    best = GAME.explain(s, noise)[0]
    assert best.moves == () and best.residual and best.violations[0].rule == "board.unexpected_change"


def test_city_returns_read_as_send_back():
    state = position(round=2, open={"p1d1": {"red": 2}, "p1d2": {"red": 2}, "p1d3": {"blue": 1}})
    s = commit_all(score_now(state), {"red": 1})
    sensed = GAME.visible_board(effect(s, SendBack("red", ("p1d1",))))
    best = GAME.explain(s, sensed)[0]
    assert best.moves == (SendBack("red", ("p1d1",)),) and best.legal and best.complete


def test_every_visible_move_of_a_random_game_is_read_back():
    setup, moves, _ = random_game(4, 3)
    s = GAME.setup(SetupOptions.from_json(setup))
    read = 0
    for m in moves:
        sensed = GAME.visible_board(effect(s, m))
        if sensed != GAME.visible_board(s):
            best = GAME.explain(s, sensed)[0]
            assert best.legal, (m, best)
            # the best reading reproduces exactly what was sensed (the path may differ: sensors see only the end)
            assert GAME.visible_board(effect(s, best.moves[0])) == sensed
            read += 1
        s = GAME.apply(s, m)
    assert read > 100


def test_prince_placement_read():
    s = GAME.setup(SetupOptions.from_json({"players": ["red", "blue", "green"]}))
    sensed = GAME.visible_board(s).with_added("p5d2", Piece("red", "prince"))
    assert GAME.explain(s, sensed)[0].moves == (PlacePrince("red", "p5d2"),)

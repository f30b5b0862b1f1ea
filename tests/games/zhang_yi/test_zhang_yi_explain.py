"""Reading sensed boards as Zhang Yi moves (``visible_board`` and ``explain``)."""

from __future__ import annotations

from zhang_yi_helpers import chit, make_map, new_game, play, talents

from scorer.core.types import Board, Piece
from scorer.games.zhang_yi import GAME, Assassinate, DrawTalent, March, PlaceTalent, Recruit, Retreat, RollDie

QIN, HAN = Piece("qin", "army"), Piece("han", "army")
BAI_QI = Piece("qin", "talent-bai_qi")


def _game():
    gmap = make_map([("o", False, "qin", 5), ("e", False, "han", 2), ("x", False, None, 0), ("r", False, None, 0)],
                    [("o", "e", "open"), ("e", "x", "open"), ("o", "r", "river"), ("o", "x", "open")])
    st = new_game(gmap)
    return talents(st, ("bai_qi", "o"), ("han_fei", "e"))


def moved(board: Board, space: str, piece: Piece, n: int) -> Board:
    return board.with_added(space, piece, n) if n > 0 else board.with_removed(space, piece, -n)


def test_visible_board_counts_strength_and_talents():
    st = _game()
    board = GAME.visible_board(st)
    assert board.count("o", QIN) == 5 and board.count("o", BAI_QI) == 1 and board.count("e", HAN) == 2
    assert board.count("x") == 0 and board.count("e", Piece("han", "talent-han_fei")) == 1


def test_no_change_means_nothing_to_read():
    st = chit(_game(), "qin")
    (only,) = GAME.explain(st, GAME.visible_board(st))
    assert only.moves == () and not only.complete


def test_recruitment_partial_then_complete():
    st = chit(_game(), "qin")
    assert st.recruit_due == 1
    board = GAME.visible_board(st)
    best = GAME.explain(st, moved(board, "o", QIN, 1))[0]
    assert best.moves == (Recruit("red", (("o", 1),)),) and best.legal and best.complete
    wrong = GAME.explain(st, moved(board, "x", QIN, 1))[0]
    assert [v.rule for v in wrong.violations] == ["recruit.own_territory"]


def test_march_into_neutral_with_general():
    st = play(chit(_game(), "qin"), Recruit("red", (("o", 1),)))
    board = GAME.visible_board(st)
    sensed = moved(moved(moved(moved(board, "o", QIN, -4), "x", QIN, 4), "o", BAI_QI, -1), "x", BAI_QI, 1)
    best = GAME.explain(st, sensed)[0]
    assert best.moves == (March("red", "o", "x", 4, ("bai_qi",)),) and best.legal


def test_march_across_river_reports_attrition_not_taken_off():
    st = play(chit(_game(), "qin"), Recruit("red", (("o", 1),)))
    board = GAME.visible_board(st)
    sensed = moved(moved(board, "o", QIN, -3), "r", QIN, 3)  # forgot to take 1 off for the river
    best = GAME.explain(st, sensed)[0]
    assert best.moves == (March("red", "o", "r", 3),) and not best.violations
    assert best.residual.added == (("r", QIN, 1),)  # the referee asks for 1 strength off
    fixed = moved(moved(board, "o", QIN, -3), "r", QIN, 2)
    assert GAME.explain(st, fixed)[0].legal


def test_vanished_army_read_as_wiped_out_by_attrition():
    gmap = make_map([("o", False, "qin", 1), ("r", False, None, 0)], [("o", "r", "river")])
    st = talents(new_game(gmap), ("han_fei", "home_han"), ("guo_wei", "home_yan"))
    st = play(chit(st, "qin"), Recruit("red", (("o", 1),)))
    sensed = moved(GAME.visible_board(st), "o", QIN, -1)
    best = GAME.explain(st, sensed)[0]
    assert best.moves == (March("red", "o", "r", 1),) and best.legal


def test_illegal_march_is_explained_with_its_rule():
    st = play(chit(_game(), "qin"), Recruit("red", (("o", 1),)))
    board = GAME.visible_board(st)
    sensed = moved(moved(board, "o", QIN, -6), "x", QIN, 6)  # the whole army left
    best = GAME.explain(st, sensed)[0]
    assert best.moves == (March("red", "o", "x", 6),) and [v.rule for v in best.violations] == ["march.leave_one"]


def test_battle_and_retreat_are_read():
    st = play(chit(_game(), "qin"), Recruit("red", (("o", 1),)))
    board = GAME.visible_board(st)
    sensed = moved(board, "o", QIN, -4).with_added("e", QIN, 4)
    best = GAME.explain(st, sensed)[0]
    assert best.moves == (March("red", "o", "e", 4),) and best.legal
    st = play(st, March("red", "o", "e", 4), RollDie("red", 4))
    assert st.awaiting == "retreat_choice"
    board = GAME.visible_board(st)
    assert board.count("e", HAN) == 2 and board.count("e", QIN) == 4  # the loser still stands there
    best = GAME.explain(st, moved(moved(board, "e", HAN, -2), "x", HAN, 2))[0]
    assert best.moves == (Retreat("blue", "x"),) and best.legal


def test_talent_placement_and_assassination_are_read():
    gmap = make_map([("o", False, "qin", 2)], [])
    st = play(new_game(gmap), DrawTalent("red", "jing_ke"), DrawTalent("blue", "bai_qi"))
    best = GAME.explain(st, GAME.visible_board(st).with_added("o", BAI_QI))[0]
    assert best.moves == (PlaceTalent("blue", "bai_qi", "o"),) and best.legal
    st = play(st, PlaceTalent("blue", "bai_qi", "o"))
    best = GAME.explain(st, GAME.visible_board(st).with_removed("o", BAI_QI))[0]
    assert best.moves == (Assassinate("red", "bai_qi"),) and best.legal


def test_change_while_a_die_is_awaited_is_unexplained():
    st = play(chit(_game(), "qin"), Recruit("red", (("o", 1),)), March("red", "o", "e", 4))
    assert st.awaiting == "die_roll"
    (only,) = GAME.explain(st, moved(GAME.visible_board(st), "o", QIN, -1))
    assert only.moves == () and only.violations[0].rule == "sensed.unexpected_change" and only.residual

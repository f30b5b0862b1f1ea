"""What the sensors should see (``visible_board``) and how a sensed board is read as moves (``explain``)."""

from __future__ import annotations

import random

from gw_testkit import end_turn, position, setup

from scorer.core.types import Piece
from scorer.games.great_wall import GAME, CardRef, Claim, Play, Reveal
from scorer.games.great_wall.simulate import random_game
from scorer.core.game import SetupOptions


def _table():
    cards = [("blue", "tower"), ("blue", "wall"), ("red", "gate"), ("red", "dragon", 2)]
    return position(sections=[{"tokens": [7], "cards": cards, "claimed": ("blue", 3, 1)}, {"tokens": [5, 2]}], actions_done=0)


def test_visible_board_shows_cards_covered_cards_dragons_and_tokens():
    board = GAME.visible_board(_table())
    s1 = board.pieces("section-1")
    assert s1 == {Piece("blue", "tower"): 1, Piece("blue", "wall"): 1, Piece("red", "gate"): 1, Piece("red", "dragon"): 1,
                  Piece("neutral", "token-7"): 1, Piece("blue", "token-3"): 1}
    assert board.pieces("section-2") == {Piece("neutral", "token-5"): 1, Piece("neutral", "token-2"): 1}


def test_nothing_changed():
    st = _table()
    (e,) = GAME.explain(st, GAME.visible_board(st))
    assert e.moves == () and not e.complete and e.legal


def test_reveal_read_from_tokens_appearing():
    st = setup(("blue", "red", "green"))
    sensed = GAME.visible_board(st).with_added("section-1", Piece("neutral", "token-8")).with_added("section-1", Piece("neutral", "token-2"))
    best = GAME.explain(st, sensed)[0]
    assert best.moves == (Reveal("section-1", (8, 2)),) and best.complete and best.legal
    half = GAME.visible_board(st).with_added("section-1", Piece("neutral", "token-8"))
    best = GAME.explain(st, half)[0]
    assert best.moves == (Reveal("section-1", (8,)),) and not best.complete and not best.violations


def test_claim_read_from_a_token_moved_onto_a_card():
    st = position(sections=[{"tokens": [7, 3], "cards": [("blue", "gate")]}, {"tokens": [5, 2]}], active="red")
    st = end_turn(st)
    board = GAME.visible_board(st)
    picked = board.with_removed("section-1", Piece("neutral", "token-7"))
    best = GAME.explain(st, picked)[0]
    assert best.moves == (Claim("blue", "section-1", 7),) and not best.complete
    laid = picked.with_added("section-1", Piece("blue", "token-7"))
    best = GAME.explain(st, laid)[0]
    assert best.moves == (Claim("blue", "section-1", 7),) and best.complete and best.legal


def test_plays_of_the_active_player():
    st = position(sections=[{"tokens": [7, 3]}, {"tokens": [5, 2]}], actions_done=0)
    board = GAME.visible_board(st)
    two = board.with_added("section-1", Piece("blue", "wall"), 2)
    best = GAME.explain(st, two)[0]
    assert best.moves == (Play("blue", "section-1", ("wall", "wall")),) and best.legal and not best.complete
    three = two.with_added("section-2", Piece("blue", "gate")).with_added("section-2", Piece("blue", "cavalry"))
    best = GAME.explain(st, three)[0]
    assert best.legal and best.complete and len(best.moves) == 3
    assert {m.cards[0] for m in best.moves} == {"wall", "gate", "cavalry"}
    after = st
    for m in best.moves:
        after = GAME.apply(after, m)
    assert GAME.visible_board(after) == three


def test_dragon_readings_offer_each_possible_target_most_valuable_first():
    st = position(sections=[{"tokens": [7, 3], "cards": [("blue", "wall"), ("blue", "tower")]}, {"tokens": [5, 2]}],
                  active="red", actions_done=0)
    sensed = GAME.visible_board(st).with_added("section-1", Piece("red", "dragon"))
    readings = [e for e in GAME.explain(st, sensed) if e.legal]
    targets = [e.moves[0].targets for e in readings if len(e.moves) == 1]
    assert targets[:2] == [(CardRef("blue", "tower"),), (CardRef("blue", "wall"),)]


def test_illegal_and_unexplained_changes_are_flagged():
    st = _table()
    board = GAME.visible_board(st)
    gone = board.with_removed("section-1", Piece("red", "gate"))
    best = GAME.explain(st, gone)[0]
    assert best.moves == () and [v.rule for v in best.violations] == ["board.piece_removed"] and best.residual
    foreign = board.with_added("section-2", Piece("red", "wall"))
    best = GAME.explain(st, foreign)[0]
    assert [v.rule for v in best.violations] == ["board.unexpected_piece"]
    mixed = board.with_added("section-2", Piece("blue", "wall")).with_added("section-2", Piece("blue", "gate")).with_added("section-1", Piece("blue", "soldier"))
    best = GAME.explain(st, mixed)[0]
    assert not best.legal  # three non-cavalry plays are one too many


def test_a_won_section_still_on_the_table_asks_to_clear_it():
    blue = [("blue", k) for k in ("tower", "gate", "gate", "wall", "wall")]
    red = [("red", k) for k in ("gate", "gate", "wall", "wall")]
    st = position(sections=[{"tokens": [4], "cards": blue + red, "claimed": ("blue", 2)}, {"tokens": [5, 3]}], active="red")
    before = GAME.visible_board(st)
    st = end_turn(st)  # blue's check takes the section; the cards are still on the table
    best = GAME.explain(st, before)[0]
    assert any(v.rule == "table.clear_section" for v in best.violations)


def test_explain_reproduces_random_sensed_plays():
    """For plays in random games (no automatic effect after them), the best legal reading rebuilds the sensed board."""
    rng = random.Random(5)
    checked = 0
    for seed in range(6):
        setup_json, moves, _ = random_game(seed, rng.choice([2, 3, 4, 5]))
        st = GAME.setup(SetupOptions.from_json(setup_json))
        for m in moves:
            after = GAME.apply(st, m)
            if isinstance(m, Play) and not any(e.kind in ("first_token", "section_cleared", "last_round") for e in after.effects) \
                    and after.active == st.active:
                sensed = GAME.visible_board(after)
                best = next(e for e in GAME.explain(st, sensed) if e.legal)
                rebuilt = st
                for mm in best.moves:
                    rebuilt = GAME.apply(rebuilt, mm)
                assert GAME.visible_board(rebuilt) == sensed
                assert GAME.explain(st, sensed)[0].legal
                checked += 1
            st = after
    assert checked > 50


def test_a_won_dead_section_still_on_the_table_is_cards_to_clear_not_a_play_there():
    """With the supply empty a won section is dead: its old row still lying there is not read as the next
    player's play into a dead section (``play.dead_section``), only as the section to clear."""
    from dataclasses import replace

    cards = [("blue", "tower"), ("blue", "gate"), ("red", "wall")]
    st = position(sections=[{"tokens": [4], "cards": cards, "claimed": ("red", 2)}, {"tokens": [5, 3]}], active="red")
    st = replace(st, supply=())
    before = GAME.visible_board(st)
    st = end_turn(st)  # blue's check: 5 against red's 1 - 2, blue takes the 4 and red's 2 goes to red's pile
    assert st.sections[0].dead and GAME.turn(st).awaiting == "move" and GAME.turn(st).active == ("blue",)
    best = GAME.explain(st, before)[0]
    assert best.moves == () and [v.rule for v in best.violations] == ["table.clear_section"]
    # a play elsewhere is still read as one, the old row as still to be cleared
    also = before.with_added("section-2", Piece("blue", "wall"))
    best = GAME.explain(st, also)[0]
    assert best.moves == (Play("blue", "section-2", ("wall",)),) and [v.rule for v in best.violations] == ["table.clear_section"]

"""The worked examples W1-W8 of rules/great-wall.md section 5, played through the engine."""

from __future__ import annotations

from gw_testkit import end_turn, position, progress_of, totals

from scorer.games.great_wall import GAME, CardRef, Claim, Draw, Play, Reveal
from scorer.games.great_wall.values import Card, Valuation, player_values

WALL3 = [("blue", "gate"), ("blue", "gate"), ("blue", "wall")]  # 2 + 2 + 1 = 5


def draw_twice(state):
    p = state.players[state.active]
    state = GAME.apply(state, Draw(p))
    return GAME.apply(state, Draw(p))


def test_w1_progress_subtracts_own_claimed_token():
    state = position(sections=[{"tokens": [7], "cards": WALL3, "claimed": ("blue", 2)}])
    assert progress_of(state) == {"blue": 3, "red": 0}  # 5 - 2


def _w2(choice: int):
    cards = [("blue", "wall"), ("blue", "gate"), ("blue", "tower"), ("red", "gate"), ("red", "gate"), ("red", "wall")]
    state = position(sections=[{"tokens": [7, 3], "cards": cards}, {"tokens": [5, 2]}], active="red")
    state = end_turn(state)  # blue's check: 6 > 5
    info = GAME.turn(state)
    assert info.awaiting == "claim_choice" and info.active == ("blue",)
    state = GAME.apply(state, Claim("blue", "section-1", choice))
    return state


def test_w2_take_the_7_then_b_takes_the_3_and_a_keeps_the_7():
    state = _w2(7)
    assert progress_of(state) == {"blue": -1, "red": 5}
    state = draw_twice(state)  # red's check: 5 > -1, red takes the remaining 3; blue's 7 goes to blue's pile
    assert totals(state) == {"blue": 7, "red": 3}
    board = GAME.score(state)
    assert board.of("blue").category("first_tokens") == 7 and board.of("red").category("second_tokens") == 3
    assert state.sections[0].cards == () and GAME.turn(state).awaiting == "token_reveal"


def test_w2_take_the_3_then_b_takes_the_7():
    state = _w2(3)
    assert progress_of(state) == {"blue": 3, "red": 5}
    state = draw_twice(state)
    assert totals(state) == {"blue": 3, "red": 7}


def test_w3_first_claimant_takes_both_tokens_and_the_section_is_refilled():
    blue = [("blue", k) for k in ("tower", "gate", "gate", "wall", "wall")]  # 9
    red = [("red", k) for k in ("gate", "gate", "wall", "wall")]  # 6
    state = position(sections=[{"tokens": [4], "cards": blue + red, "claimed": ("blue", 2)}, {"tokens": [5, 3]}])
    assert progress_of(state) == {"blue": 7, "red": 6}
    state = end_turn(state)  # red's check: 6 > 7 is false
    assert totals(state) == {"blue": 0, "red": 0} and state.sections[0].claimed_owner == 0
    state = draw_twice(state)  # blue's check: 7 > 6
    assert totals(state) == {"blue": 6, "red": 0}
    assert GAME.score(state).of("blue").breakdown == (("first_tokens", 2), ("second_tokens", 4))
    assert state.sections[0].cards == () and state.sections[0].awaiting_reveal
    state = GAME.apply(state, Reveal("section-1", (8, 1)))
    assert state.sections[0].tokens == (8, 1)


def test_w4_a_tie_claims_nothing():
    cards = WALL3 + [("red", "gate"), ("red", "gate"), ("red", "wall")]
    state = position(sections=[{"tokens": [7, 3], "cards": cards}, {"tokens": [5, 2]}], active="red")
    state = end_turn(state)  # blue's check: 5 > 5 is false
    assert GAME.turn(state).awaiting == "move" and state.sections[0].tokens == (7, 3)
    state = draw_twice(state)  # red's check: the same
    assert GAME.turn(state).awaiting == "move" and state.sections[0].claimed_owner == -1


def test_w4_with_the_seeds_greater_or_equal_the_active_player_claims():
    cards = WALL3 + [("red", "gate"), ("red", "gate"), ("red", "wall")]
    state = position(sections=[{"tokens": [7, 3], "cards": cards}], active="red", variants=["claim_on_tie"])
    state = end_turn(state)
    assert GAME.turn(state).awaiting == "claim_choice" and GAME.turn(state).active == ("blue",)


def test_w5_noble_sets_every_card_to_1():
    cards = [("blue", "tower"), ("blue", "gate"), ("red", "wall"), ("red", "wall"), ("red", "noble")]
    state = position(sections=[{"tokens": [7, 3], "cards": cards}], active="blue")
    assert progress_of(state) == {"blue": 2, "red": 3}
    state = end_turn(state)  # red's check: 3 > 2
    assert GAME.turn(state).awaiting == "claim_choice" and GAME.turn(state).active == ("red",)


def test_w6_three_soldiers_are_worth_six():
    cards = [Card(0, "soldier"), Card(0, "soldier"), Card(0, "soldier")]
    assert player_values(cards, 2) == [6, 0]
    assert player_values(cards, 2, Valuation(soldiers_square=True)) == [9, 0]  # ambiguity 4, other reading
    state = position(sections=[{"tokens": [7, 3], "cards": [("blue", "soldier")] * 3}])
    assert progress_of(state) == {"blue": 6, "red": 0}


def test_w7_dragon_on_a_tower():
    state = position(sections=[{"tokens": [7, 3], "cards": [("blue", "tower"), ("blue", "wall"), ("red", "wall")]}],
                     active="red", actions_done=0)
    assert progress_of(state) == {"blue": 4, "red": 1}
    state = GAME.apply(state, Play("red", "section-1", ("dragon",), (CardRef("blue", "tower"),)))
    assert progress_of(state) == {"blue": 1, "red": 2}  # A loses 3, B gains 1
    assert state.sections[0].cards[-1] == Card(1, "dragon", 0)


def _w8(variants=()):
    state = position(sections=[{"tokens": [7, 3], "cards": [("blue", "gate")]}, {"tokens": [5, 2]}], active="red", variants=variants)
    state = end_turn(state)  # blue's check: 2 > 0
    state = GAME.apply(state, Claim("blue", "section-1", 7))
    assert progress_of(state) == {"blue": -5, "red": 0}
    assert state.sections[0].exception == 0
    return state


def test_w8_first_token_exception_takes_the_second_token_at_the_next_turn():
    state = _w8()
    state = draw_twice(state)  # red's check: red has no card here and cannot claim (ambiguity 11)
    assert totals(state) == {"blue": 0, "red": 0}
    state = draw_twice(state)  # blue's next check: the exception applies despite -5
    assert totals(state) == {"blue": 10, "red": 0}
    assert state.sections[0].cards == ()


def test_w8_exception_lapses_once_another_player_has_cards_there_recommended_reading():
    state = _w8()
    state = draw_twice(state)
    state = GAME.apply(state, Play("red", "section-1", ("wall",)))
    state = GAME.apply(state, Draw("red"))  # blue's check: red has a card now, the normal comparison decides
    assert totals(state) == {"blue": 0, "red": 0} and state.sections[0].exception == -1
    state = draw_twice(state)  # red's check: 1 > -5
    assert totals(state) == {"blue": 7, "red": 3}


def test_w8_literal_exception_option_judges_only_when_the_first_token_was_taken():
    state = _w8(variants=["first_token_exception_literal"])
    state = draw_twice(state)
    state = GAME.apply(state, Play("red", "section-1", ("wall",)))
    state = GAME.apply(state, Draw("red"))
    assert totals(state) == {"blue": 10, "red": 0}


def test_w8_claim_without_cards_option_lets_an_idle_player_take_the_remaining_token():
    state = _w8(variants=["claim_without_cards"])
    state = draw_twice(state)  # red's check: 0 > -5 and red may claim without cards
    assert totals(state) == {"blue": 7, "red": 3}

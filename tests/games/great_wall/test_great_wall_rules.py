"""Set-up, the turn, every constraint (with English and Chinese messages), automatic effects and both endings."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

import pytest
from gw_testkit import end_turn, position, progress_of, rules_of, setup, totals

from scorer.core.results import Termination
from scorer.core.schema import validate
from scorer.core.types import IllegalMove, InvalidRecord
from scorer.games.great_wall import GAME, CardRef, Claim, Draw, Pass, Play, Reveal
from scorer.games.great_wall.data import load_deck
from scorer.referee.reconciler import invisible_move

TOKENS = [1, 1] + [2] * 6 + [3] * 7 + [4] * 7 + [5] * 8 + [7] * 4 + [8] * 2


def deck_order(first: list[str]) -> list[str]:
    """A 20-card deck (provisional list) whose top cards are ``first``."""
    rest = Counter(load_deck().card_list())
    rest.subtract(first)
    assert all(v >= 0 for v in rest.values())
    return list(first) + sorted(rest.elements())


def tracked(players=("blue", "red"), hands=None, tokens=None, **extra):
    hands = hands or {}
    orders = {p: deck_order(hands.get(p, ["wall"] * 5)) for p in players}
    return setup(players, cards="tracked", token_order=tokens or TOKENS[::-1], deck_orders=orders, **extra)


def only(violations) -> str:
    assert len(violations) == 1, violations
    v = violations[0]
    assert v.message.en and v.message.zh and v.message.en != v.message.zh
    return v.rule


# -- set-up --------------------------------------------------------------------------------------

@pytest.mark.parametrize("n, sections", [(2, 2), (3, 3), (4, 4), (5, 4)])
def test_sections_hand_and_deck_by_player_count(n, sections):
    players = ("blue", "red", "yellow", "green", "grey")[:n]
    st = setup(players, cards="tracked", seed=1)
    assert len(st.sections) == sections and all(len(s.tokens) == 2 for s in st.sections)
    assert st.hand_sizes == (5,) * n and st.deck_sizes == (15,) * n
    assert all(sum(h) == 5 for h in st.hands)
    assert len(st.supply) + sum(len(s.tokens) for s in st.sections) + len(st.boxed) == 36
    table = setup(players)
    assert len(table.sections) == sections and GAME.turn(table).awaiting == "token_reveal"


@pytest.mark.parametrize("bad, where", [
    ({"players": ["blue"]}, "setup.players"),
    ({"players": ["blue", "red", "yellow", "green", "grey", "violet"]}, "setup.players"),
    ({"players": ["blue", "violet"]}, "setup.players"),
    ({"players": ["blue", "blue"]}, "setup.players"),
    ({"players": ["blue", "red"], "variants": ["nope"]}, "setup.variants"),
    ({"players": ["blue", "red"], "cards": "maybe"}, "setup.cards"),
    ({"players": ["blue", "red"], "cards": "tracked"}, "setup.seed"),
    ({"players": ["blue", "red"], "cards": "tracked", "token_order": [1] * 36, "seed": 1}, "setup.token_order"),
    ({"players": ["blue", "red"], "token_order": TOKENS}, "setup.cards"),
    ({"players": ["blue", "red"], "special_counts": {"noble": 1, "soldier": 1, "cavalry": 1, "dragon": 1}}, "setup.special_counts"),
])
def test_bad_setups_are_refused_naming_the_field(bad, where):
    from scorer.core.game import SetupOptions

    with pytest.raises(InvalidRecord) as exc:
        GAME.setup(SetupOptions.from_json(bad))
    assert where in str(exc.value)


def test_tracked_orders_give_hands_and_token_pairs():
    st = tracked(hands={"blue": ["tower", "gate", "gate", "wall", "dragon"]})
    assert st.hands[0] == (1, 2, 1, 0, 0, 0, 1)  # wall, gate, tower, noble, soldier, cavalry, dragon
    order = [7, 3, 8, 2] + list((Counter(TOKENS) - Counter([7, 3, 8, 2])).elements())
    st = tracked(tokens=order)
    assert [s.tokens for s in st.sections] == [(7, 3), (8, 2)]


def test_two_player_equal_pair_goes_back_in_the_box_tracked():
    order = [5, 5, 7, 3, 4, 2] + list((Counter(TOKENS) - Counter([5, 5, 7, 3, 4, 2])).elements())
    st = tracked(tokens=order)
    assert st.boxed == (5, 5) and [s.tokens for s in st.sections] == [(7, 3), (4, 2)]
    assert len(st.supply) == 30
    three = tracked(players=("blue", "red", "green"), tokens=order)
    assert three.boxed == () and three.sections[0].tokens == (5, 5)


def test_two_player_equal_pair_reveal_at_a_table():
    st = setup()
    st = GAME.apply(st, Reveal("section-1", (5, 5)))
    assert st.boxed == (5, 5) and st.sections[0].awaiting_reveal and GAME.turn(st).awaiting == "token_reveal"
    assert any(e.kind == "pair_boxed" for e in st.effects)
    st = GAME.apply(st, Reveal("section-1", (7, 3)))
    st = GAME.apply(st, Reveal("section-2", (4, 2)))
    assert GAME.turn(st).awaiting == "move" and GAME.turn(st).active == ("blue",)


def test_reveal_constraints():
    st = setup(("blue", "red", "green"))
    assert only(GAME.violations(st, Reveal("section-1", (7,)))) == "reveal.count"
    st = GAME.apply(st, Reveal("section-1", (8, 8)))
    assert only(GAME.violations(st, Reveal("section-2", (8, 1)))) == "reveal.not_in_supply"
    assert only(GAME.violations(st, Reveal("section-1", (5, 1)))) == "reveal.wrong_section"
    assert only(GAME.violations(st, Play("blue", "section-1", ("wall",)))) == "input.awaiting_reveal"
    st = GAME.apply(st, Reveal("section-2", (5, 1)))
    st = GAME.apply(st, Reveal("section-3", (5, 1)))
    assert only(GAME.violations(st, Reveal("section-3", (5, 1)))) == "reveal.not_awaited"
    assert only(GAME.violations(tracked(), Reveal("section-1", (5, 1)))) == "reveal.tracked"


# -- the turn --------------------------------------------------------------------------------------

def _live(players=("blue", "red"), **kw):
    secs = [{"tokens": [7, 3]}, {"tokens": [5, 2]}, {"tokens": [4, 4]}, {"tokens": [8, 1]}]
    return position(players, sections=secs[: {2: 2, 3: 3}.get(len(players), 4)], actions_done=0, **kw)


def test_two_actions_then_the_next_player_and_free_cavalry_is_extra():
    st = _live()
    st = GAME.apply(st, Play("blue", "section-1", ("cavalry",)))  # free play (unused so far)
    assert st.free_used and st.actions_done == 0
    st = GAME.apply(st, Play("blue", "section-1", ("wall",)))
    assert only(GAME.violations(st, Play("blue", "section-1", ("cavalry",), free=True))) == "cavalry.free_used"
    st = GAME.apply(st, Draw("blue"))
    assert GAME.turn(st).active == ("red",) and st.actions_done == 0 and not st.free_used
    v = GAME.violations(st, Draw("blue"))
    assert only(v) == "turn.not_your_turn" and "red" in v[0].message.en and "红方" in v[0].message.zh and v[0].fix


def test_cavalry_may_also_spend_an_action_and_free_play_must_be_cavalry():
    st = _live()
    st = GAME.apply(st, Play("blue", "section-1", ("cavalry",), free=False))
    assert st.actions_done == 1 and not st.free_used
    assert only(GAME.violations(st, Play("blue", "section-1", ("wall",), free=True))) == "cavalry.free_only_cavalry"
    st = GAME.apply(st, Play("blue", "section-2", ("cavalry",)))  # the free one
    assert st.free_used and st.actions_done == 1 and GAME.turn(st).active == ("blue",)


def test_cavalry_set_as_free_play_and_the_single_card_option():
    st = _live()
    assert not GAME.violations(st, Play("blue", "section-1", ("cavalry", "cavalry"), free=True))
    one = _live(variants=["cavalry_single_card"])
    assert only(GAME.violations(one, Play("blue", "section-1", ("cavalry", "cavalry"), free=True))) == "cavalry.free_single"
    after = GAME.apply(one, Play("blue", "section-1", ("cavalry", "cavalry")))  # inferred: an action
    assert after.actions_done == 1 and not after.free_used


def test_play_shape_constraints():
    st = _live()
    assert only(GAME.violations(st, Play("blue", "section-1", ("wall", "gate")))) == "play.identical_cards"
    assert only(GAME.violations(st, Play("blue", "section-3", ("wall",)))) == "play.unknown_section"
    assert only(GAME.violations(st, Play("blue", "section-1", ("archer",)))) == "play.unknown_card"
    assert only(GAME.violations(st, Play("blue", "section-1", ()))) == "play.no_cards"
    assert only(GAME.violations(st, Play("blue", "section-1", ("wall",), (CardRef("red", "wall"),)))) == "play.targets_not_dragon"
    assert only(GAME.violations(st, Play("grey", "section-1", ("wall",)))) == "turn.unknown_player"
    dead = position(sections=[{"tokens": [7, 3]}], actions_done=0)  # section-2 cleared, supply "empty" there
    assert only(GAME.violations(dead, Play("blue", "section-2", ("wall",)))) == "play.dead_section"


def test_hand_size_and_deck_mix_at_a_table():
    st = _live(hand_sizes=(2, 5))
    assert only(GAME.violations(st, Play("blue", "section-1", ("wall",) * 3))) == "hand.too_few"
    st = GAME.apply(st, Play("blue", "section-1", ("tower",)))
    v = GAME.violations(st, Play("blue", "section-2", ("tower",)))
    assert only(v) == "deck.mix" and "1 tower" in v[0].message.en and "provisional" not in v[0].message.en
    many = replace(st, hand_sizes=(9, 5))
    v = GAME.violations(many, Play("blue", "section-2", ("soldier",) * 5))
    assert only(v) == "deck.mix" and "provisional" in v[0].message.en and "临时" in v[0].message.zh


def test_tracked_hand_must_hold_the_cards():
    st = tracked(hands={"blue": ["tower", "gate", "gate", "wall", "wall"]})
    assert rules_of(GAME.violations(st, Play("blue", "section-1", ("dragon",), (CardRef("red", "wall"),)))) == [
        "hand.not_in_hand", "dragon.target_missing"]
    assert only(GAME.violations(st, Play("blue", "section-1", ("gate",) * 3))) == "hand.not_in_hand"
    assert not GAME.violations(st, Play("blue", "section-1", ("gate",) * 2))
    assert only(GAME.violations(st, Draw("blue", "noble"))) == "draw.wrong_card"
    top = st.decks[0][0]
    st = GAME.apply(st, Draw("blue", top))
    assert st.hand_sizes[0] == 6 and sum(st.hands[0]) == 6


def _dragon_table(**kw):
    cards = [("blue", "tower"), ("blue", "wall"), ("red", "gate"), ("red", "dragon", 2)]
    return position(sections=[{"tokens": [7], "cards": cards, "claimed": ("blue", 3, 1)}, {"tokens": [5, 2]}],
                    active="red", actions_done=0, **kw)


def test_dragon_targets():
    st = _dragon_table()
    assert progress_of(st) == {"blue": 3 + 0 - 3, "red": 2 + 1}
    assert only(GAME.violations(st, Play("red", "section-1", ("dragon",), (CardRef("blue", "tower"),)))) == "dragon.target_token"
    assert only(GAME.violations(st, Play("red", "section-1", ("dragon",), (CardRef("blue", "wall"),)))) == "dragon.target_covered"
    assert only(GAME.violations(st, Play("red", "section-1", ("dragon",), (CardRef("red", "gate"),)))) == "dragon.target_own"
    assert only(GAME.violations(st, Play("red", "section-1", ("dragon",), (CardRef("blue", "noble"),)))) == "dragon.target_missing"
    assert only(GAME.violations(st, Play("red", "section-1", ("dragon",), ()))) == "dragon.targets"
    v = GAME.violations(st, Play("red", "section-1", ("dragon",), (CardRef("blue", "tower"),)))
    assert "令牌" not in v[0].message.zh and "标记" in v[0].message.zh


def test_dragon_any_target_option():
    st = _dragon_table(variants=["dragon_any_target"])
    assert not GAME.violations(st, Play("red", "section-1", ("dragon",), (CardRef("blue", "tower"),)))
    assert not GAME.violations(st, Play("red", "section-1", ("dragon",), (CardRef("red", "gate"),)))
    after = GAME.apply(st, Play("red", "section-1", ("dragon",), (CardRef("blue", "tower"),)))
    assert progress_of(after) == {"blue": 0 - 3, "red": 4}  # the token still counts against blue


def test_two_dragons_cover_two_different_cards_and_positions_can_be_named():
    st = position(sections=[{"tokens": [7, 3], "cards": [("blue", "wall"), ("blue", "wall"), ("blue", "gate")]}, {"tokens": [5, 2]}],
                  active="red", actions_done=0)
    st = GAME.apply(st, Play("red", "section-1", ("dragon", "dragon"), (CardRef("blue", "wall"), CardRef("blue", "wall"))))
    assert [c.covers for c in st.sections[0].cards] == [-1, -1, -1, 1, 0]
    assert progress_of(st) == {"blue": 2, "red": 2}
    st2 = position(sections=[{"tokens": [7, 3], "cards": [("blue", "wall"), ("blue", "wall")]}, {"tokens": [5, 2]}],
                   active="red", actions_done=0)
    st2 = GAME.apply(st2, Play("red", "section-1", ("dragon",), (CardRef(position=1),)))
    assert st2.sections[0].cards[-1].covers == 0


def test_draw_and_pass_constraints():
    st = _live(deck_sizes=(0, 5))
    assert only(GAME.violations(st, Draw("blue"))) == "draw.deck_empty"
    assert not GAME.violations(st, Pass("blue"))  # hand unknown: accepted on declaration
    full = _live()
    assert only(GAME.violations(full, Pass("blue"))) == "pass.can_draw"
    assert not GAME.violations(_live(variants=["voluntary_pass"]), Pass("blue"))
    st = GAME.apply(st, Pass("blue"))
    board = GAME.score(st)
    assert any(u.check == "pass.unplayable" for u in board.not_checked) and any("passes" in d for d in board.declared)


def test_tracked_pass_only_when_nothing_is_playable_and_auto_end_when_nothing_is_possible():
    st = tracked(hands={"blue": ["wall", "wall", "wall", "wall", "dragon"]})
    st = replace(st, deck_sizes=(0, 15))
    assert only(GAME.violations(st, Pass("blue"))) == "pass.can_play"
    # blue holds only a dragon, no target anywhere and no deck: the turn ends by itself
    hands = list(st.hands)
    hands[0] = (0, 0, 0, 0, 0, 0, 1)
    st = replace(st, hands=tuple(hands), hand_sizes=(2, 5), deck_sizes=(0, 15))
    hands[0] = (1, 0, 0, 0, 0, 0, 1)
    st = replace(st, hands=tuple(hands))
    after = GAME.apply(st, Play("blue", "section-1", ("wall",)))  # one action left, but only an unplayable dragon
    assert GAME.turn(after).active == ("red",) and after.declared_passes == 0


def test_claim_choice_constraints_and_the_card_the_token_lies_on():
    cards = [("blue", "tower"), ("blue", "wall"), ("red", "wall")]
    st = position(sections=[{"tokens": [7, 3], "cards": cards}, {"tokens": [5, 2]}], active="red")
    assert only(GAME.violations(st, Claim("red", "section-1", 7))) == "claim.not_awaited"
    st = end_turn(st)
    assert only(GAME.violations(st, Draw("blue"))) == "input.awaiting_claim"
    assert only(GAME.violations(st, Claim("blue", "section-1", 5))) == "claim.token_not_there"
    assert only(GAME.violations(st, Claim("blue", "section-2", 5))) == "claim.wrong_section"
    assert only(GAME.violations(st, Claim("red", "section-1", 7))) == "turn.not_your_turn"
    assert only(GAME.violations(st, Claim("blue", "section-1", 7, CardRef(kind="gate")))) == "claim.on_card"
    default = GAME.apply(st, Claim("blue", "section-1", 7))
    assert default.sections[0].claimed_card == 0  # the tower: the most valuable card is protected
    named = GAME.apply(st, Claim("blue", "section-1", 7, CardRef(kind="wall")))
    assert named.sections[0].claimed_card == 1


def test_several_sections_in_one_check_and_equal_tokens_need_no_choice():
    secs = [
        {"tokens": [4, 4], "cards": [("blue", "gate")]},
        {"tokens": [5], "cards": [("blue", "tower")], "claimed": ("blue", 2)},
        {"tokens": [8, 1], "cards": [("red", "wall")]},
    ]
    st = position(("blue", "red", "green"), sections=secs, active="green")
    st = end_turn(st)  # blue's check: section-1 first token (no choice), section-2 second token
    assert st.sections[0].claimed_owner == 0 and st.sections[0].tokens == (4,)
    assert totals(st) == {"blue": 7, "red": 0, "green": 0}
    assert st.sections[1].awaiting_reveal and GAME.turn(st).awaiting == "token_reveal"


def _equal_tokens_claimed():
    """3 players; blue's check takes the first of two equal 3s (no choice) at section-1, where blue
    has tower + gate + wall (6) and red a gate (2). The engine's default card is the tower."""
    secs = [{"tokens": [3, 3], "cards": [("blue", "tower"), ("blue", "gate"), ("blue", "wall"), ("red", "gate")]}, {"tokens": [5, 2]}]
    st = end_turn(position(("blue", "red", "green"), sections=secs, active="green"))
    assert GAME.turn(st).active == ("blue",) and GAME.turn(st).awaiting == "move"
    assert st.sections[0].claimed_owner == 0 and st.sections[0].claimed_card == 0  # default: the tower
    return st


def _to_red(st):
    st = GAME.apply(st, Draw("blue"))
    st = GAME.apply(st, Draw("blue"))
    assert GAME.turn(st).active == ("red",) and GAME.turn(st).awaiting == "move"  # red (2) does not lead blue (6 - 3)
    return st


def test_equal_tokens_the_player_lays_the_token_on_a_less_valuable_card_and_a_later_dragon_is_judged_by_it():
    """rules/great-wall.md 3.1: the token goes "on one of your cards in that section" -- the player's
    choice, also when the two tokens are equal and the engine claims by itself."""
    st = _equal_tokens_claimed()
    dragon_on_tower = Play("red", "section-1", ("dragon",), (CardRef("blue", "tower"),))
    dragon_on_wall = Play("red", "section-1", ("dragon",), (CardRef("blue", "wall"),))
    # nobody names the card: the default (the tower) holds the token
    unnamed = _to_red(st)
    assert only(GAME.violations(unnamed, dragon_on_tower)) == "dragon.target_token"
    assert not GAME.violations(unnamed, dragon_on_wall)
    # blue laid the 3 on the wall: the record (or the dashboard) says so
    named_move = Claim("blue", "section-1", 3, CardRef(kind="wall"))
    assert named_move in set(GAME.legal_moves(st)) or Claim("blue", "section-1", 3, CardRef("blue", "wall", 3)) in set(GAME.legal_moves(st))
    assert not GAME.violations(st, named_move)
    named = GAME.apply(st, named_move)
    assert named.sections[0].claimed_card == 2 and GAME.state_to_json(named)["sections"][0]["claimed"] == {"player": "blue", "token": 3, "card": 3}
    assert "wall" in GAME.describe_move(named_move).en and "城墙" in GAME.describe_move(named_move).zh
    after = _to_red(named)
    assert only(GAME.violations(after, dragon_on_wall)) == "dragon.target_token"
    assert not GAME.violations(after, dragon_on_tower)
    after = GAME.apply(after, dragon_on_tower)
    assert progress_of(after) == {"blue": 0, "red": 3, "green": 0}  # gate 2 + wall 1 - 3; gate 2 + dragon 1


def test_naming_the_card_of_a_first_token_constraints():
    st = _equal_tokens_claimed()
    assert only(GAME.violations(st, Claim("blue", "section-1", 3))) == "claim.name_card"
    assert only(GAME.violations(st, Claim("blue", "section-1", 5, CardRef(kind="wall")))) == "claim.token_not_there"
    assert only(GAME.violations(st, Claim("red", "section-1", 3, CardRef(kind="gate")))) == "turn.not_your_turn"
    assert only(GAME.violations(st, Claim("blue", "section-1", 3, CardRef("red", "gate")))) == "claim.on_card"
    assert only(GAME.violations(st, Claim("blue", "section-2", 5, CardRef(kind="wall")))) == "claim.not_awaited"
    # later in the same turn: still possible, but only on a card that was there when the token was laid
    st = GAME.apply(st, Play("blue", "section-1", ("soldier",)))
    assert only(GAME.violations(st, Claim("blue", "section-1", 3, CardRef(kind="soldier")))) == "claim.on_card"
    assert only(GAME.violations(st, Claim("blue", "section-1", 3, CardRef(position=5)))) == "claim.on_card"
    st = GAME.apply(st, Claim("blue", "section-1", 3, CardRef(position=2)))
    assert st.sections[0].claimed_card == 1
    # named once: settled
    assert only(GAME.violations(st, Claim("blue", "section-1", 3, CardRef(kind="wall")))) == "claim.not_awaited"
    # not after the claimant's turn
    st2 = _to_red(_equal_tokens_claimed())
    assert only(GAME.violations(st2, Claim("blue", "section-1", 3, CardRef(kind="wall")))) == "claim.not_awaited"
    assert st2.sections[0].unnamed_claim == -1


def test_a_choice_without_a_card_can_be_completed_by_naming_it():
    """The camera sees which token was taken, not on which card it lies (explain offers claims
    without ``on``): the dashboard or the record then names the card."""
    cards = [("blue", "tower"), ("blue", "wall"), ("red", "wall")]
    st = end_turn(position(sections=[{"tokens": [7, 3], "cards": cards}, {"tokens": [5, 2]}], active="red"))
    chosen = GAME.apply(st, Claim("blue", "section-1", 7))
    assert chosen.sections[0].claimed_card == 0 and chosen.sections[0].unnamed_claim == 3  # the row had 3 cards
    placed = GAME.apply(chosen, Claim("blue", "section-1", 7, CardRef(kind="wall")))
    assert placed.sections[0].claimed_card == 1
    # a choice that named the card is settled at once
    direct = GAME.apply(st, Claim("blue", "section-1", 7, CardRef(kind="wall")))
    assert direct.sections[0].unnamed_claim == -1 and replace(direct, effects=()) == placed


def test_a_card_is_named_after_the_check_not_while_another_section_awaits_the_token_choice():
    """The check first (the live referee must not take a "turn done" on an unchanged table for a
    naming during the choice); the card of the equal token is named right after it."""
    secs = [{"tokens": [4, 4], "cards": [("blue", "tower"), ("blue", "wall")]},
            {"tokens": [8, 1], "cards": [("blue", "gate"), ("blue", "wall")]}]
    st = end_turn(position(("blue", "red", "green"), sections=secs, active="green"))
    assert GAME.turn(st).awaiting == "claim_choice" and st.pending_claim == 1 and st.sections[0].claimed_owner == 0
    naming = Claim("blue", "section-1", 4, CardRef("blue", "wall", 2))
    assert only(GAME.violations(st, naming)) == "claim.wrong_section"
    assert all(m.section == "section-2" for m in GAME.legal_moves(st))
    assert invisible_move(GAME, st) is None  # a "turn done" now closes nothing
    st = GAME.apply(st, Claim("blue", "section-2", 8, CardRef(kind="wall")))
    assert st.sections[1].claimed_card == 1 and GAME.turn(st).awaiting == "move"
    assert naming in set(GAME.legal_moves(st))
    st = GAME.apply(st, naming)
    assert st.sections[0].claimed_card == 1


def test_a_record_names_the_card_of_an_equal_token_and_replays():
    st = _equal_tokens_claimed()
    entry = {"type": "claim", "player": "blue", "section": "section-1", "token": 3, "on": {"kind": "wall"}}
    validate(entry, GAME.move_schema(), "move")
    move = GAME.move_from_json(entry)
    assert move == Claim("blue", "section-1", 3, CardRef(kind="wall")) and GAME.move_to_json(move) == entry
    assert GAME.apply(st, move).sections[0].claimed_card == 2


# -- ending ------------------------------------------------------------------------------------------

def _last_round(variants=()):
    secs = [{"tokens": [7, 3], "cards": [("red", "gate")]}, {"tokens": [5, 2]}]
    st = position(sections=secs, actions_done=0, hand_sizes=(1, 5), deck_sizes=(0, 4), variants=variants)
    st = GAME.apply(st, Play("blue", "section-2", ("wall",)))  # blue's last card
    assert st.last_round_by == 0 and any(e.kind == "last_round" for e in st.effects)
    assert GAME.turn(st).active == ("red",)  # blue can do nothing more: the turn ended by itself
    return st


def test_last_round_other_players_take_one_more_turn_then_final_checks():
    st = _last_round()
    # red's check claimed section-1 (2 > 0): choose
    st = GAME.apply(st, Claim("red", "section-1", 7))
    st = GAME.apply(st, Draw("red"))
    st = GAME.apply(st, Draw("red"))
    # back to blue: final checks for blue (1 > 0 at section-2, first token), then red (section-1: -5 vs 0, alone -> exception)
    assert GAME.turn(st).phase == "final_checks" and GAME.turn(st).awaiting == "claim_choice"
    assert only(GAME.violations(st, Play("blue", "section-2", ("wall",)))) == "last_round.no_actions"
    st = GAME.apply(st, Claim("blue", "section-2", 5))
    assert st.finished == Termination.LAST_ROUND
    assert totals(st) == {"blue": 0, "red": 10}  # red's exception check took both tokens; blue's 5 lies on a card
    assert GAME.state_to_json(st)["tokens_on_cards_at_end"] == {"blue": 5}
    out = GAME.outcome(st)
    assert out.winners == ("red",) and out.termination == Termination.LAST_ROUND


def test_final_check_announcer_only_option():
    st = _last_round(variants=["final_check_announcer_only"])
    st = GAME.apply(st, Claim("red", "section-1", 7))
    st = GAME.apply(st, Draw("red"))
    st = GAME.apply(st, Draw("red"))
    st = GAME.apply(st, Claim("blue", "section-2", 5))
    assert st.finished == Termination.LAST_ROUND and totals(st) == {"blue": 0, "red": 0}


def test_immediate_end_when_the_last_token_is_taken():
    secs = [{"tokens": [3], "cards": [("blue", "tower"), ("red", "wall")], "claimed": ("red", 4, 2)}]
    st = position(sections=secs, active="red")
    st = replace(st, supply=())
    st = end_turn(st)
    assert st.finished == Termination.LAST_TOKEN
    assert totals(st) == {"blue": 3, "red": 4}
    assert GAME.outcome(st).winners == ("red",)
    assert only(GAME.violations(st, Draw("blue"))) == "game.over"


def test_shared_victory_on_equal_totals():
    secs = [{"tokens": [4], "cards": [("blue", "tower"), ("red", "wall")], "claimed": ("red", 4, 2)}]
    st = replace(position(sections=secs, active="red"), supply=())
    st = end_turn(st)
    out = GAME.outcome(st)
    assert out.winners == ("blue", "red") and "Shared" in out.reason.en and "共同" in out.reason.zh


def test_blocked_when_nobody_can_do_anything_for_a_whole_round():
    st = position(sections=[{"tokens": [7, 3]}, {"tokens": [5, 2]}], actions_done=0, hand_sizes=(1, 1), deck_sizes=(0, 0))
    for _ in range(4):
        st = GAME.apply(st, Pass(st.players[st.active]))
    assert st.finished == Termination.BLOCKED


def test_apply_raises_illegal_move_with_violations():
    st = _live()
    with pytest.raises(IllegalMove) as exc:
        GAME.apply(st, Play("blue", "section-1", ("wall", "gate")))
    assert exc.value.violations[0].rule == "play.identical_cards"

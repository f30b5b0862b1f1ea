"""Card payments, the draw pile, the two endings, passing, and untracked (sensor-only) play."""

from __future__ import annotations

from dataclasses import replace

import pytest

from scorer.core.game import SetupOptions
from scorer.core.results import Termination
from scorer.core.types import InvalidRecord
from scorer.games.china import GAME, DeclarePileExhausted, Exchange, Place, Placement
from scorer.games.china.cards import CardState, build_deck, payment_ok
from scorer.games.china.moves import Pass


@pytest.mark.parametrize(
    "cards, colour, pieces, ok",
    [
        (("red",), "red", 1, True),
        (("red", "red"), "red", 2, True),
        (("green", "green"), "red", 1, True),
        (("red", "green", "green"), "red", 2, True),
        (("red", "red", "red"), "red", 2, False),  # a card too many
        (("red", "red"), "red", 1, False),  # a pair of the province's own colour is not a wild pair
        (("green", "yellow"), "red", 1, False),  # a pair must match
        (("green",), "red", 1, False),
        (("green", "green", "yellow", "yellow"), "red", 2, False),  # 4 cards: never
        ((), "red", 1, False),
    ],
)
def test_payments(cards, colour, pieces, ok):
    assert payment_ok(cards, colour, pieces) is ok


@pytest.mark.parametrize("players, size", [(3, 47), (4, 52), (5, 57)])
def test_deck_size_by_player_count(players, size):
    assert len(build_deck(players)) == size


def test_deal_gives_three_cards_and_four_on_display():
    cs = CardState.deal(4, 1)
    assert [len(h) for h in cs.hands] == [3, 3, 3, 3]
    assert len(cs.display) == 4 and len(cs.pile) == 52 - 12 - 4


def _tracked(players=3, seed=5):
    return GAME.setup(SetupOptions.from_json({"players": ["blue", "green", "red", "yellow", "violet"][:players], "seed": seed, "cards": "tracked"}))


def test_tracked_cards_must_be_in_hand_and_refilled():
    s = _tracked()
    hand = s.cards.hands[0]
    colour = hand[0]
    prov = next(p for p in s.board.provinces if p.colour == colour)
    move = Place("blue", (Placement("house", prov.sites[0]),), (colour,), None)
    assert {v.rule for v in GAME.violations(s, move)} == {"cards.draws_required"}
    assert {v.rule for v in GAME.violations(s, replace(move, draws=()))} == {"cards.draws"}
    assert not GAME.violations(s, replace(move, draws=("pile",)))
    assert {v.rule for v in GAME.violations(s, replace(move, draws=("pile", "pile")))} == {"cards.draws"}
    missing = next(c for c in ("violet", "yellow", "orange", "green", "red") if c not in hand)
    prov2 = next(p for p in s.board.provinces if p.colour == missing)
    bad = Place("blue", (Placement("house", prov2.sites[0]),), (missing,), ("pile",))
    assert {v.rule for v in GAME.violations(s, bad)} == {"cards.not_in_hand"}
    after = GAME.apply(s, replace(move, draws=("display:2",)))
    assert len(after.cards.hands[0]) == 3 and all(c is not None for c in after.cards.display)


def test_exchange_takes_a_card_and_refills_the_display():
    s = _tracked()
    discard = s.cards.hands[0][0]
    after = GAME.apply(s, Exchange("blue", discard, "display:0"))
    assert after.cards.discard == (discard,)
    assert len(after.cards.hands[0]) == 3 and after.cards.display[0] is not None
    assert after.active == 1


def test_second_exhaustion_finishes_the_round_with_the_player_right_of_the_emperor():
    """Pile empties twice during some player's turn; the game ends after the last seat's turn."""
    s = _tracked(players=3)
    # play exchanges until the end; count turns after the trigger
    trigger_turn = None
    while s.finished is None:
        hand = s.cards.hands[s.active]
        take = "pile" if s.cards.pile else next((f"display:{i}" for i, c in enumerate(s.cards.display) if c), None)
        move = Exchange(s.players[s.active], hand[0], take) if take and hand else Pass(s.players[s.active])
        s = GAME.apply(s, move)
        if s.end_triggered and trigger_turn is None:
            trigger_turn = s.turn_number - 1
    assert s.finished is Termination.DECK_EXHAUSTED
    # the last turn was taken by the last seat (to the right of the start player / emperor)
    assert (s.turn_number - 1) % 3 == 2
    assert s.turn_number - 1 - trigger_turn < 3


def test_untracked_declared_end_finishes_after_the_last_seat():
    s = GAME.setup(SetupOptions.from_json({"players": ["blue", "green", "red"]}))
    s = GAME.apply(s, Place("blue", (Placement("house", "wei-1"),)))
    s = GAME.apply(s, DeclarePileExhausted())  # declared during green's turn: the round finishes
    assert s.end_triggered and s.finished is None
    s = GAME.apply(s, Exchange("green"))
    assert s.finished is None
    s = GAME.apply(s, Exchange("red"))
    assert s.finished is Termination.DECK_EXHAUSTED
    board = GAME.score(s)
    assert "end of game (pile exhausted, declared)" in board.declared
    checks = {u.check for u in board.not_checked}
    assert {"cards.payment", "cards.hands", "board.provisional"} <= checks


def test_untracked_payment_is_checked_when_declared_and_listed_when_not():
    s = GAME.setup(SetupOptions.from_json({"players": ["blue", "green", "red"]}))
    bad = Place("blue", (Placement("house", "wei-1"),), ("green",))
    assert {v.rule for v in GAME.violations(s, bad)} == {"cards.payment"}
    s = GAME.apply(s, Place("blue", (Placement("house", "wei-1"),), ("red",)))
    assert not any(u.check == "cards.payment" for u in GAME.score(s).not_checked)
    s = GAME.apply(s, Place("green", (Placement("house", "wei-2"),)))
    assert any(u.check == "cards.payment" for u in GAME.score(s).not_checked)


def test_no_legal_placement_ends_the_game():
    """Every site filled and every emissary cap reached: nobody can place, final scoring follows."""
    s = GAME.setup(SetupOptions.from_json({"players": ["blue", "green", "red"]}))
    b = s.board
    owner = [i % 3 for i in range(len(b.sites))]
    last = len(b.sites) - 1
    owner[last] = -1
    emiss = []
    for prov in range(len(b.provinces)):
        counts = [0, 0, 0]
        for site in b.province_sites[prov]:
            if owner[site] >= 0:
                counts[owner[site]] += 1
        cap = max(counts)
        emiss.append((cap, 0, 0))
    houses_left = tuple(20 - owner.count(i) for i in range(3))
    s = replace(s, site_owner=tuple(owner), emissaries=tuple(emiss), houses_left=houses_left,
                emissaries_left=tuple(8 - sum(e[i] for e in emiss) for i in range(3)))
    # the last free site: whoever fills it ends the game (caps are reached everywhere else)
    site = b.sites[last]
    prov = b.site_province[last]
    player = s.players[s.active]
    # the house on the last site must not raise the cap: its owner (the active player) is not
    # the province leader by a margin of zero
    counts = s.houses_in(prov)
    assert counts[s.active] + 1 <= max(counts)
    after = GAME.apply(s, Place(player, (Placement("house", site),)))
    assert after.finished is Termination.NO_LEGAL_PLACEMENT
    assert GAME.outcome(after).termination is Termination.NO_LEGAL_PLACEMENT
    assert GAME.score(after).final


def test_pass_is_refused_while_an_action_is_possible():
    s = _tracked()
    assert {v.rule for v in GAME.violations(s, Pass("blue"))} == {"pass.not_allowed"}


def test_turn_order_and_game_over_refusals():
    s = GAME.setup(SetupOptions.from_json({"players": ["blue", "green", "red"]}))
    v = GAME.violations(s, Place("green", (Placement("house", "wei-1"),)))
    assert v[0].rule == "turn.not_your_turn" and "blue" in v[0].message.en and "蓝" in v[0].message.zh
    assert GAME.violations(s, Place("black", (Placement("house", "wei-1"),)))[0].rule == "turn.unknown_player"
    done = replace(s, finished=Termination.DECLARED)
    assert GAME.violations(done, Place("blue", (Placement("house", "wei-1"),)))[0].rule == "game.over"


@pytest.mark.parametrize(
    "setup, field",
    [
        ({"players": ["blue", "green"]}, "setup.players"),
        ({"players": ["blue", "green", "pink"]}, "setup.players"),
        ({"players": ["blue", "green", "red"], "variants": ["castles"]}, "setup.variants"),
        ({"players": ["blue", "green", "red"], "board": "china-b"}, "setup.board"),
        ({"players": ["blue", "green", "red"], "cards": "tracked"}, "setup.seed"),
    ],
)
def test_bad_setup_names_the_field(setup, field):
    with pytest.raises(InvalidRecord) as err:
        GAME.setup(SetupOptions.from_json(setup))
    assert field in str(err.value)

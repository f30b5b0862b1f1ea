"""Rules of play: phase order, turn order, every violation, the ambiguity readings and their options."""

from __future__ import annotations

from dataclasses import replace

import pytest

from ming_helpers import category, commit_all, hand_of, opened, position, score_now, tiles
from scorer.core.game import SetupOptions
from scorer.core.types import IllegalMove, InvalidRecord
from scorer.games.ming import GAME
from scorer.games.ming.engine import start_player_chooser
from scorer.games.ming.moves import (
    ChooseStartPlayer,
    MovePrince,
    Pass,
    PlaceFamily,
    PlaceNeutral,
    PlacePrince,
    ReturnCards,
    SendBack,
    Stay,
    TakeCard,
    TakeDragon,
)
from scorer.games.ming.state import (
    PH_CARDS,
    PH_MOVE,
    PH_NEUTRAL,
    PH_OVER,
    PH_PRINCES,
    PH_ROUND_END,
    PH_SCORING,
    PH_SPACES,
)

P4 = ("yellow", "green", "blue", "red")


def new(players=P4, **setup):
    return GAME.setup(SetupOptions.from_json({"players": list(players), **setup}))


def rules_of(state, move):
    return [v.rule for v in GAME.violations(state, move)]


def play(state, *moves):
    for m in moves:
        state = GAME.apply(state, m)
    return state


# -- set-up ---------------------------------------------------------------------------------------------

def test_setup_rejects_bad_options():
    with pytest.raises(InvalidRecord):
        new(("yellow",))
    with pytest.raises(InvalidRecord):
        new(("yellow", "violet"))
    with pytest.raises(InvalidRecord):
        new(P4, variants=["nonsense"])
    with pytest.raises(InvalidRecord):
        new(P4, start_player="violet")
    with pytest.raises(InvalidRecord):
        new(P4, cards="required")  # needs the display
    with pytest.raises(InvalidRecord):
        new(P4, display=["horse"] * 5 + ["camel"])


def test_prince_placement_clockwise_from_start_player_and_a_tile_each():
    s = new(P4, start_player="blue")
    assert GAME.turn(s).active == ("blue",) and s.phase == PH_PRINCES
    assert rules_of(s, PlacePrince("yellow", "p1d1")) == ["turn.not_your_turn"]
    s = GAME.apply(s, PlacePrince("blue", "p1d1"))
    assert rules_of(s, PlacePrince("red", "p1d1")) == ["prince.occupied"]
    assert rules_of(s, PlacePrince("red", "p9d9")) == ["board.unknown_district"]
    s = play(s, PlacePrince("red", "p2d1"), PlacePrince("yellow", "p3d1"), PlacePrince("green", "p4d1"))
    assert s.phase == PH_SPACES and s.round == 1
    assert tiles(s, "blue", "p1") == 1 and tiles(s, "green", "p4") == 1
    assert GAME.turn(s).active == ("blue",)
    assert s.in_hand == (5, 5, 5, 5) and s.supply == (25, 25, 25, 25)


def test_phase_1_five_each_in_rotation_then_phase_2():
    s = play(new(P4), PlacePrince("yellow", "p1d1"), PlacePrince("green", "p2d1"), PlacePrince("blue", "p3d1"), PlacePrince("red", "p4d1"))
    assert rules_of(s, TakeCard("yellow", "p1")) == ["phase.wrong_move"]
    order = []
    for _ in range(20):
        who = GAME.turn(s).active[0]
        order.append(who)
        s = GAME.apply(s, PlaceFamily(who, "p1"))
    assert order == list(P4) * 5
    assert s.phase == PH_CARDS and s.spaces[0] == (5, 5, 5, 5)


# -- phase 2 ------------------------------------------------------------------------------------------

def cards_position(**kw):
    base = dict(phase=PH_CARDS, spaces={"p1": {"yellow": 1, "green": 1}, "p2": {"blue": 1}}, display=["horse", "junk", "rickshaw", "horse", "junk", "rickshaw"])
    base.update(kw)
    return position(**base)


def test_display_card_needs_own_family_member_next_to_it():
    s = cards_position()
    assert rules_of(s, TakeCard("yellow", "p2")) == ["cards.no_family_member"]
    assert rules_of(s, TakeCard("yellow", "p1", "junk")) == ["cards.display_mismatch"]
    assert rules_of(s, TakeCard("yellow", "p1", "camel")) == ["cards.unknown_symbol"]
    s2 = GAME.apply(s, TakeCard("yellow", "p1", "horse", "junk"))
    assert s2.spaces[0][0] == 1  # the family member stays
    assert s2.hands[0].total == 2 and s2.hands[0].lb[s2.board.kind_index("horse")] == 1
    assert s2.display[0] == s2.board.kind_index("junk")


def test_dragon_costs_own_family_member_a3_and_the_other_reading():
    s = cards_position()
    assert rules_of(s, TakeDragon("yellow", "p2", owner="blue")) == ["dragon.own_member_only"]
    assert rules_of(s, TakeDragon("yellow", "p2")) == ["dragon.no_family_member"]
    s2 = GAME.apply(s, TakeDragon("yellow", "p1"))
    assert s2.spaces[0][0] == 0 and s2.boxed[0] == 1
    assert s2.hands[0].lb[s2.board.dragon_kind] == 2
    v = cards_position(variants=("dragon_any_member",))
    assert rules_of(v, TakeDragon("yellow", "p2", owner="blue")) == []
    v2 = GAME.apply(v, TakeDragon("yellow", "p2", owner="blue"))
    assert v2.spaces[1][2] == 0 and v2.boxed[2] == 1


def test_hand_limit_and_players_who_cannot_take_are_done_a4():
    # red has no family member on any province space; blue has a full hand
    s = cards_position(hands={"blue": ["horse"] * 5})
    s = replace(s, active=0)
    s = GAME.apply(s, TakeCard("yellow", "p1", "horse", "junk"))
    assert GAME.turn(s).active == ("green",)
    assert rules_of(s, TakeCard("blue", "p2")) == ["cards.hand_limit"]
    s = GAME.apply(s, TakeCard("green", "p1", "junk", "horse"))
    assert GAME.turn(s).active == ("yellow",)  # blue full, red cannot pay: both skipped
    for _ in range(6):
        who = GAME.turn(s).active[0]
        if s.phase != PH_CARDS:
            break
        s = GAME.apply(s, TakeCard(who, "p1"))
    assert s.phase == PH_MOVE
    assert s.hands[0].total == 5 and s.hands[1].total == 5 and s.hands[3].total == 1  # red stays at 1 (A4)


def test_empty_dragon_supply():
    s = cards_position(hands={"green": ["dragon"] * 5, "blue": ["dragon"] * 5, "red": ["dragon"] * 5})
    s = replace(s, hands=(hand_of(s, ["dragon"] * 3),) + s.hands[1:])
    assert s.dragon_supply() == (0, 0)
    assert rules_of(s, TakeDragon("yellow", "p1")) == ["dragon.supply_empty"]


def test_declared_cards_may_not_exceed_the_deck():
    s = cards_position(hands={"green": ["horse"] * 5, "blue": ["horse"] * 5, "red": ["horse"] * 5})
    s = replace(s, hands=(hand_of(s, ["horse", "dragon"]),) + s.hands[1:])
    # 16 horses in hands + 2 on display = 18 = all horse cards; a third one cannot be turned up
    assert rules_of(s, TakeCard("yellow", "p2", None, "horse")) == ["cards.no_family_member"]
    assert rules_of(s, TakeCard("yellow", "p1", "horse", "horse")) == ["cards.too_many"]


# -- phase 3 ------------------------------------------------------------------------------------------

def move_position(**kw):
    base = dict(
        princes={"yellow": "p1d1", "green": "p1d2", "blue": "p5d2", "red": "p6d2"},
        hands={"yellow": ["horse", "junk", "dragon"], "green": ["rickshaw"], "blue": ["junk"], "red": ["horse"]},
        spaces={"p1": {"yellow": 4}, "p2": {"yellow": 1}},
    )
    base.update(kw)
    return position(**base)


def test_prince_passes_through_but_never_ends_on_another_prince():
    s = move_position()
    # p1d1 -horse- p1d2 (green's prince) -junk- p1d3
    assert rules_of(s, MovePrince("yellow", ("p1d2",), ("horse",))) == ["move.ends_on_prince"]
    assert rules_of(s, MovePrince("yellow", ("p1d2", "p1d3"), ("horse", "junk"))) == []
    assert rules_of(s, MovePrince("yellow", ("p1d3",), ("horse",))) == ["cards.wrong_symbol"]  # p1d1-p1d3 is rickshaw
    assert rules_of(s, MovePrince("yellow", ("p1d3",), ("dragon",))) == []
    assert rules_of(s, MovePrince("yellow", ("p3d1",), ("dragon",))) == ["move.not_adjacent"]
    assert rules_of(s, MovePrince("yellow", ("p1d3",), ("rickshaw",))) == ["cards.not_in_hand"]
    assert rules_of(s, MovePrince("yellow", ("p1d3",), ("dragon", "junk"))) == ["cards.count"]
    assert rules_of(s, MovePrince("green", ("p1d3",), ("junk",))) == ["turn.not_your_turn"]


def test_revisiting_is_allowed_a12_unless_no_revisit():
    s = move_position()
    # p1d1 -rickshaw- p1d3 -rickshaw- p1d1 ... pay with dragon + rickshaw? yellow has horse, junk, dragon
    back_and_forth = MovePrince("yellow", ("p2d1", "p1d1"), ("junk", "dragon"))
    assert rules_of(s, back_and_forth) == []
    v = move_position(variants=("no_revisit",))
    assert rules_of(v, back_and_forth) == ["move.revisit"]


def test_stay_always_costs_one_card_a15_and_pass_ends_the_phase_for_the_player():
    s = move_position()
    s2 = GAME.apply(s, Stay("yellow", "junk"))
    assert s2.hands[0].total == 2 and GAME.turn(s2).active == ("green",)
    empty = move_position(hands={"yellow": [], "green": ["rickshaw"]})
    empty = replace(empty, hands=(replace(empty.hands[0], total=0, lb=(0, 0, 0, 0)),) + empty.hands[1:])
    assert rules_of(empty, Stay("yellow")) == ["cards.not_enough"]
    s3 = play(s, Pass("yellow"), Stay("green", "rickshaw"))
    assert GAME.turn(s3).active == ("blue",)
    s3 = play(s3, Stay("blue", "junk"), Stay("red", "horse"))
    # yellow passed: skipped; green/blue/red have no cards left: they pass by force, the phase ends
    assert s3.phase == PH_SPACES and s3.round == 2
    assert any(e.kind == "auto_pass" for e in s3.effects)


def test_passed_player_gets_a_clear_message():
    s = play(move_position(), Pass("yellow"))
    assert rules_of(s, Stay("yellow", "junk")) == ["turn.passed"]


def test_deploy_from_the_matching_province_space_only():
    s = move_position()
    assert rules_of(s, Stay("yellow", "junk", deploy=3)) == []
    # p2 space has only 1 yellow: after moving to p2d1 (junk) only 1 can be deployed
    assert rules_of(s, MovePrince("yellow", ("p2d1",), ("junk",), deploy=2)) == ["deploy.not_on_space"]
    assert rules_of(s, MovePrince("yellow", ("p2d1",), ("junk",), deploy=1, cloister=True)) == []
    assert rules_of(s, Stay("yellow", "junk", deploy=4)) == ["deploy.max_three"]
    assert rules_of(s, Stay("yellow", "junk", deploy=0, cloister=True)) == ["deploy.cloister_needs_member"]


def test_cloister_ousting_and_the_cloister_lock_a16():
    s = move_position(cloister={"p1d1": "red"})
    s2 = GAME.apply(s, Stay("yellow", "junk", deploy=2, cloister=True))
    d = s2.board.district_index["p1d1"]
    assert s2.cloister[d] == 0 and opened(s2, "p1d1", "red") == 1 and opened(s2, "p1d1", "yellow") == 1
    assert any(e.kind == "ousted" for e in s2.effects)
    # yellow now sits in the cloister: no more deployment into p1d1 at all
    locked = replace(s2, active=0)
    assert rules_of(locked, Stay("yellow", "horse", deploy=1)) == ["deploy.cloister_lock"]
    assert rules_of(locked, Stay("yellow", "horse", deploy=0)) == []


def test_undeclared_cards_are_accepted_but_reported_not_checked():
    s = move_position()
    s2 = GAME.apply(s, MovePrince("yellow", ("p1d2", "p1d3"), None, deploy=0))
    assert s2.hands[0].total == 1 and not s2.hands[0].exact
    checks = {u.check for u in GAME.score(s2).not_checked}
    assert {"cards.payment", "cards.hands", "dragon.supply"} <= checks
    assert rules_of(s, MovePrince("yellow", ("p1d2", "p1d3", "p1d1", "p1d2"), None)) == ["move.ends_on_prince"]
    assert rules_of(s, MovePrince("yellow", ("p1d2", "p1d3", "p1d1", "p1d3"), None)) == ["cards.not_enough"]


def test_required_card_mode_rejects_undeclared_cards():
    s = move_position(cards="required", display=["horse"] * 6)
    assert rules_of(s, MovePrince("yellow", ("p1d3",), None)) == ["cards.required"]
    assert rules_of(s, Stay("yellow")) == ["cards.required"]


# -- phase 4 ------------------------------------------------------------------------------------------

def test_return_cards_are_secret_simultaneous_and_checked():
    state = position(round=2, open={"p1d1": {"red": 3, "blue": 1}})
    s = score_now(state)
    info = GAME.turn(s)
    assert info.awaiting == "return_cards" and set(info.active) == {"red", "blue"}
    assert rules_of(s, ReturnCards("yellow", (0,))) == ["returns.not_in_city"]
    assert rules_of(s, ReturnCards("red", (0, 0))) == ["returns.not_your_cards"]
    assert rules_of(s, ReturnCards("red", total=7)) == ["returns.impossible_total"]
    assert rules_of(s, ReturnCards("red", ())) == ["returns.at_least_one"]
    assert rules_of(s, ReturnCards("red", (1,), 1)) == ["returns.shape"]
    s = GAME.apply(s, ReturnCards("red", (1, 2)))
    assert rules_of(s, ReturnCards("red", (0,))) == ["returns.already_committed"]
    assert GAME.turn(s).active == ("blue",)
    assert "scoring" in GAME.state_to_json(s) and GAME.state_to_json(s)["scoring"]["committed"] == ["red"]
    assert "3" not in str(GAME.state_to_json(s)["scoring"])  # the total stays secret
    s = GAME.apply(s, ReturnCards("blue", (0,)))
    # A5: red returned 3 > 2 in the city: both go back, the excess is ignored
    assert opened(s, "p1d1", "red") == 3
    assert category(s, "red", "city") == 0 and category(s, "blue", "city") == 4 and category(s, "blue", "city_bonus") == 4


def test_strict_return_total_option_a5():
    s = score_now(position(round=2, open={"p1d1": {"red": 3, "blue": 1}}, variants=("strict_return_total",)))
    assert rules_of(s, ReturnCards("red", total=3)) == ["returns.more_than_in_city"]
    assert rules_of(s, ReturnCards("red", total=2)) == []


def test_owner_chooses_which_city_pieces_return_a7():
    state = position(round=2, open={"p1d1": {"red": 2}, "p1d2": {"red": 2}, "p1d3": {"blue": 1}})
    s = commit_all(score_now(state), {"red": 1})
    info = GAME.turn(s)
    assert info.awaiting == "send_back" and info.active == ("red",)
    assert rules_of(s, SendBack("red", ("p1d1", "p1d2"))) == ["sendback.count"]
    assert rules_of(s, SendBack("red", ("p1d3",))) == ["sendback.not_there"]
    assert rules_of(s, SendBack("red", ("p2d1",))) == ["sendback.wrong_province"]
    assert rules_of(s, SendBack("blue", ("p1d3",))) == ["turn.not_your_turn"]
    s = GAME.apply(s, SendBack("red", ("p1d2",)))
    assert opened(s, "p1d2", "red") == 1
    assert category(s, "red", "city") == 12 and category(s, "red", "city_bonus") == 4


def test_bonus_tiebreak_fullest_area_option_a6():
    # after returns: red 2 in p1d1 area; blue 1 in p1d1 + 1 in p1d2 ... make p1d2 the fullest area
    # p1d1: red 2 blue 1 -> red 2, blue 1 (3 pieces); p1d2: blue 1, green 1, yellow 1 -> 3-way tie (3 pieces)
    # p1d3: green 3, yellow 1 -> green 2, yellow 1
    open_ = {"p1d1": {"red": 3, "blue": 1}, "p1d2": {"blue": 1, "green": 1, "yellow": 1}, "p1d3": {"green": 3, "yellow": 1}}
    base = commit_all(score_now(position(round=2, open=open_)), {"blue": 0})
    # totals: red 2, blue 2, green 3, yellow 2 -> green wins outright
    assert category(base, "green", "city_bonus") == 4
    # returns of 1 for green leave green 2: four-way tie on 2
    rec = commit_all(score_now(position(round=2, open=open_)), {"green": 1})
    s = GAME.apply(rec, SendBack("green", ("p1d3",)))
    # recommended: largest own count in one area -> red (2 in p1d1) alone
    assert [category(s, c, "city_bonus") for c in ("red", "blue", "green", "yellow")] == [4, 0, 0, 0]
    var = commit_all(score_now(position(round=2, open=open_, variants=("bonus_tiebreak_fullest_area",))), {"green": 1})
    v = GAME.apply(var, SendBack("green", ("p1d3",)))
    # fullest areas hold 3 pieces: p1d1 (red 2, blue 1) and p1d2 (1/1/1): red 2 beats the rest
    assert category(v, "red", "city_bonus") == 4
    var2 = commit_all(score_now(position(round=2, open=open_, variants=("bonus_tiebreak_fullest_area",))), {"green": 1})
    v2 = GAME.apply(var2, SendBack("green", ("p1d2",)))
    # now p1d3 (green 2, yellow 1) and p1d1 (red 2, blue 1) are fullest: red and green tie on 2 -> split
    assert category(v2, "red", "city_bonus") == 2 and category(v2, "green", "city_bonus") == 2


def test_no_bonus_when_nobody_is_left_a21():
    s = commit_all(score_now(position(round=2, open={"p1d1": {"red": 1}})), {"red": 1})
    assert category(s, "red", "city_bonus") == 0 and opened(s, "p1d1", "red") == 1


def scarce_red_round4(variants: tuple[str, ...] = ()):
    """Round 4, start player yellow. Yellow and green kept 12 red (p1) tiles from round 2 (the most
    a colour can have out by then: 3 prince tiles + 9 city houses), so 6 are left; p1d1 and p1d2 take
    5 of them. In p1d3 red has the majority (3) and blue is second (1): one red tile for two players --
    and blue holds the other 5 colours, a set worth 24."""
    five = {p: 1 for p in ("p2", "p3", "p4", "p5", "p6")}
    open_ = {"p1d1": {"yellow": 2, "green": 1}, "p1d2": {"yellow": 2}, "p1d3": {"red": 3, "blue": 1}}
    state = position(round=4, open=open_, tiles={"yellow": {"p1": 6}, "green": {"p1": 6}, "blue": five}, variants=variants)
    assert state.tile_supply[0] == 6
    return score_now(state)


def test_scarce_tiles_go_to_the_district_leader_first_a13():
    s = scarce_red_round4()
    short = [e.message.en for e in s.effects if e.kind == "tiles_short"]
    assert len(short) == 2 and short[0].startswith("red gets 1 tile") and short[1].startswith("blue gets 1 tile")
    s = commit_all(s)
    # the leader (red, 3 members) moves first and takes the last tile; blue gets none and no set
    assert tiles(s, "red", "p1") == 1 and tiles(s, "blue", "p1") == 0
    assert category(s, "blue", "sets6") == 0 and [tiles(s, "blue", p) for p in ("p2", "p3", "p4", "p5", "p6")] == [1] * 5


def test_scarce_tiles_in_turn_order_variant_a13():
    s = commit_all(scarce_red_round4(("tiles_in_turn_order",)))
    # clockwise from yellow, blue comes before red: blue takes the last tile and completes a set (24);
    # the set's red tile goes back to the supply and red takes it
    assert category(s, "blue", "sets6") == 24 and all(tiles(s, "blue", f"p{i}") == 0 for i in range(1, 7))
    assert tiles(s, "red", "p1") == 1 and category(s, "red", "sets6") == 0


@pytest.mark.parametrize(("start", "first"), [("yellow", "green"), ("red", "red"), ("blue", "red")])
def test_scarce_tiles_equal_counts_go_clockwise_from_the_start_player_a13(start, first):
    state = position(round=2, start=start, open={"p1d1": {"green": 2, "red": 2}})
    state = replace(state, tile_supply=(1,) + state.tile_supply[1:])
    s = commit_all(score_now(state))
    other = "red" if first == "green" else "green"
    assert tiles(s, first, "p1") == 1 and tiles(s, other, "p1") == 0


def test_a_set_completed_by_the_first_member_frees_a_tile_for_the_second_a13_a14():
    # one red tile left; red (leader, 2 moved) holds the other 5 colours: the first member's tile
    # completes a set at once (28), the set's red tile returns and the second member takes it
    five = {p: 1 for p in ("p2", "p3", "p4", "p5", "p6")}
    state = position(round=2, open={"p1d1": {"red": 3, "blue": 1}}, tiles={"red": five})
    state = replace(state, tile_supply=(1,) + state.tile_supply[1:])
    s = commit_all(score_now(state))
    assert category(s, "red", "sets6") == 28 and tiles(s, "red", "p1") == 1 and tiles(s, "blue", "p1") == 0


def test_neutral_before_returns_option_a8():
    open_ = {"p1d1": {"neutral": 3, "red": 1}, "p1d2": {"neutral": 2, "blue": 1}, "p1d3": {"red": 1}}
    s = score_now(position(("red", "blue"), round=2, open=open_, variants=("neutral_before_returns",)))
    info = GAME.turn(s)
    assert info.awaiting == "send_back" and info.active == ("red",)  # neutral trimmed first
    s = GAME.apply(s, SendBack("red", ("p1d1",), "neutral"))
    assert GAME.turn(s).awaiting == "return_cards"
    # red returns both: neutral 3 vs blue 1 -- still the sole majority, no bonus
    s = commit_all(s, {"red": 2})
    assert category(s, "blue", "city") == 4 and category(s, "blue", "city_bonus") == 0


def test_neutral_without_sole_majority_returns_completely():
    open_ = {"p1d1": {"neutral": 1, "red": 2}, "p1d2": {"red": 2}}
    s = commit_all(score_now(position(("red", "blue"), round=2, open=open_)))
    assert opened(s, "p1d1", "neutral") == 1 and category(s, "red", "city_bonus") == 4


def test_two_player_neutral_placement_order_a20_and_limit_a10():
    s = play(new(("red", "blue")), PlacePrince("red", "p1d1"), PlacePrince("blue", "p2d1"))
    assert s.phase == PH_NEUTRAL
    order = []
    for _ in range(6):
        who = GAME.turn(s).active[0]
        order.append(who)
        s = GAME.apply(s, PlaceNeutral(who, "p3d1" if len(order) <= 3 else "p3d2"))
        if len(order) == 3:
            assert rules_of(s, PlaceNeutral(GAME.turn(s).active[0], "p3d1")) == ["neutral.max_three"]
    assert order == ["red", "blue"] * 3
    assert s.phase == PH_SPACES and s.round == 1
    b = play(new(("red", "blue"), variants=["neutral_in_blocks"]), PlacePrince("red", "p1d1"), PlacePrince("blue", "p2d1"))
    assert b.queue == (0, 0, 0, 1, 1, 1)


def test_two_player_neutral_again_before_rounds_3_and_5():
    s = position(("red", "blue"), round=2, start="red")
    s = score_now(s)
    assert s.phase == PH_NEUTRAL and s.round == 3 and GAME.turn(s).active == ("blue",)  # start player passed left


# -- phase 5 and the end ------------------------------------------------------------------------------

def test_start_player_passes_left_normally():
    s = score_now(position(round=1, start="green"))
    assert s.round == 2 and s.players[s.start] == "blue"


def test_four_players_second_fewest_picks_after_round_4_with_monk_and_seat_ties_a11():
    # points: yellow 10, green 20, blue 20, red 30 -> second-fewest = 20: green and blue tied
    pts = {"yellow": 10, "green": 20, "blue": 20, "red": 30}
    s = score_now(position(round=4, points=pts, cloister={"p2d2": "blue"}))
    # blue's monk scores +4 in the round-4 scoring (24): green (20) is now second-fewest alone
    assert s.phase == PH_ROUND_END and GAME.turn(s).active == ("green",)
    assert rules_of(s, ChooseStartPlayer("red", "red")) == ["turn.not_your_turn"]
    assert rules_of(s, ChooseStartPlayer("green", "violet")) == ["start.unknown_player"]
    s = GAME.apply(s, ChooseStartPlayer("green", "green"))
    assert s.round == 5 and s.players[s.start] == "green" and s.phase == PH_SPACES
    tie = position(round=4, points=pts, cloister={"p2d2": "blue", "p3d3": "green"})
    assert start_player_chooser(tie) in (1, 2)
    tie = replace(tie, start=3)  # red starts: clockwise red, yellow, green, blue -> green first (A11)
    assert start_player_chooser(tie) == 1
    more_monks = position(round=4, points=pts, cloister={"p2d2": "blue", "p3d3": "blue"})
    assert start_player_chooser(more_monks) == 2


def test_four_players_fewest_picks_after_round_5():
    s = score_now(position(round=5, points={"yellow": 10, "green": 5, "blue": 20, "red": 30}))
    assert s.phase == PH_ROUND_END and GAME.turn(s).active == ("green",)


def test_three_players_never_choose():
    s = score_now(position(("yellow", "green", "blue"), round=4, start="yellow"))
    assert s.round == 5 and s.players[s.start] == "green"


def test_shared_victory_a17_and_the_monk_tiebreak_option():
    s = score_now(position(("red", "blue"), round=6, cloister={"p1d1": "red"}, points={"blue": 4}))
    out = GAME.outcome(s)
    assert s.phase == PH_OVER and out.winners == ("red", "blue") and not out.tiebreak_used
    v = score_now(position(("red", "blue"), round=6, cloister={"p1d1": "red"}, points={"blue": 4}, variants=("tiebreak_monks",)))
    out = GAME.outcome(v)
    assert out.winners == ("red",) and out.tiebreak_used
    assert rules_of(s, Pass("red")) == ["game.over"]


def test_violations_are_bilingual_and_apply_raises():
    s = move_position()
    with pytest.raises(IllegalMove) as err:
        GAME.apply(s, MovePrince("yellow", ("p1d2",), ("horse",)))
    v = err.value.violations[0]
    assert v.message.en and v.message.zh and v.fix is not None and v.fix.zh
    assert "p1d2" in v.spaces


def test_scoreboard_names_declared_figures_and_provisional_data():
    s = commit_all(score_now(position(round=2, open={"p1d1": {"red": 1}})))
    board = GAME.score(s)
    assert board.provisional_data
    assert any("return-card" in d for d in board.declared)
    assert {"board.provisional", "returns.values"} <= {u.check for u in board.not_checked}
    explicit = commit_all(score_now(position(round=2, open={"p1d1": {"red": 1}}, return_cards=[0, 1, 2, 3])))
    assert "returns.values" not in {u.check for u in GAME.score(explicit).not_checked}


def test_turn_info_reports_phase_round_and_awaited_input():
    s = score_now(position(round=2, open={"p1d1": {"red": 1}}))
    info = GAME.turn(s)
    assert (info.phase, info.round, info.awaiting) == (PH_SCORING, 2, "return_cards")
    assert info.prompt is not None and info.prompt.zh
    s = cards_position()
    assert GAME.turn(s).awaiting == "card"


def test_legal_moves_are_all_legal_and_include_passing():
    s = move_position()
    moves = list(GAME.legal_moves(s))
    assert Pass("yellow") in moves
    assert MovePrince("yellow", ("p1d2", "p1d3"), ("horse", "junk")) in moves
    assert all(not GAME.violations(s, m) for m in moves)
    assert not any(isinstance(m, MovePrince) and m.path[-1] == "p1d2" for m in moves)


# -- legal_moves offers every form a record may give (found by the self-checks, issue 13) -----------

def test_legal_moves_offer_undeclared_and_declared_card_forms():
    s = cards_position()  # cards "declared" (the default), display declared
    moves = set(GAME.legal_moves(s))
    # the display card taken need not be named, the refill may be named or not
    assert {TakeCard("yellow", "p1", None, "junk"), TakeCard("yellow", "p1", "horse", None), TakeCard("yellow", "p1")} <= moves
    s = move_position()  # yellow's hand is known exactly, and the cards still need not be declared
    moves = set(GAME.legal_moves(s))
    assert {Stay("yellow"), Stay("yellow", None, 2, True), MovePrince("yellow", ("p1d3",)), MovePrince("yellow", ("p1d3",), ("dragon",))} <= moves
    assert all(not GAME.violations(s, m) for m in moves)


def test_legal_moves_offer_declared_cards_from_a_hand_known_in_part():
    s = move_position()
    board = s.board
    # yellow took 3 cards nobody named: any movement card may be declared, a dragon may not
    s = replace(s, hands=(replace(s.hands[0], lb=(0,) * len(board.kinds)),) + s.hands[1:])
    moves = set(GAME.legal_moves(s))
    assert {MovePrince("yellow", ("p1d3",), ("rickshaw",)), MovePrince("yellow", ("p1d3",)), Stay("yellow", "junk")} <= moves
    assert MovePrince("yellow", ("p1d3",), ("dragon",)) not in moves
    assert rules_of(s, MovePrince("yellow", ("p1d3",), ("dragon",))) == ["cards.not_in_hand"]


def test_legal_moves_offer_return_cards_as_a_total():
    s = score_now(position(round=2, open={"p1d1": {"red": 2}}))
    moves = set(GAME.legal_moves(s))
    assert {ReturnCards("red", (1, 2)), ReturnCards("red", total=3), ReturnCards("red", total=6)} <= moves
    assert ReturnCards("red", total=7) not in moves


def test_moves_with_the_same_meaning_are_one_value():
    assert ReturnCards("red", (2, 0, 1)) == ReturnCards("red", (0, 1, 2))
    assert SendBack("red", ("p1d2", "p1d1"), "red") == SendBack("red", ("p1d1", "p1d2"))
    assert TakeDragon("red", "p1", "red") == TakeDragon("red", "p1")
    assert GAME.move_to_json(SendBack("red", ("p1d3", "p1d1"))) == {"type": "send_back", "player": "red", "districts": ["p1d1", "p1d3"]}

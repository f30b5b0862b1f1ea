"""The 12 laws, neighbours, draws, turn shape, game end, and the named options for the notes'
ambiguities (rules/cheops.md sections 5-7 and 12)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from cheops_helpers import fresh, position, rules_broken
from scorer.core.results import Termination
from scorer.games.cheops import GAME, BuyNeighbour, Draw, Pass, PlaceTile, Take, Turn, UseLaw10, UseLaw11, UseLaw12, rules
from scorer.games.cheops.data import SPACE_INDEX, SPACES
from scorer.games.cheops.engine import take_options
from scorer.games.cheops.reporting import final_scoring
from scorer.games.cheops.rules import placeable_spaces
from scorer.games.cheops.state import LAW_HIDDEN, NEIGHBOUR_TILE

SELL, KEEP = Take(sell=True), Take(sell=False)


def turn(*steps, player="blue", draws=()):
    return Turn(player, tuple(steps), tuple(Draw(d) for d in draws))


def colour(state, name):
    return state.colours.index(name)


# -- laws 1-3 ------------------------------------------------------------------------------------

def test_law2_then_law1_most_recent_sets_price_and_law8_restores_ten():
    s = position(content={"r11c1": 2, "r11c3": 1, "r11c5": 8})
    s = GAME.apply(s, turn(PlaceTile("A", "r11c1", Take(law=2))))
    assert s.market_price() == 15
    s = GAME.apply(s, turn(PlaceTile("A", "r11c3", Take(law=1)), player="red"))
    assert s.market_price() == 5 and s.market_laws == (1,) and 2 in s.out_of_play  # C12
    assert rules_broken(s, turn(PlaceTile("A", "r11c5", Take(law=8, remove=2)), player="green")) == {"law.remove_not_in_play"}
    s = GAME.apply(s, turn(PlaceTile("A", "r11c5", Take(law=8, remove=1)), player="green"))
    assert s.market_price() == 10


def test_market_laws_stack_variant():
    s = position(fresh(variants=["market_laws_stack"]), content={"r11c1": 2, "r11c3": 1, "r11c5": 8})
    s = GAME.apply(s, turn(PlaceTile("A", "r11c1", Take(law=2))))
    s = GAME.apply(s, turn(PlaceTile("A", "r11c3", Take(law=1)), player="red"))
    assert s.market_laws == (2, 1) and s.market_price() == 5
    s = GAME.apply(s, turn(PlaceTile("A", "r11c5", Take(law=8, remove=1)), player="green"))
    assert s.market_price() == 15


def test_law3_and_law8_removing_it_ends_the_game_at_once():
    s = position(content={"r11c1": 8}, law3=True, covered={"red": 9, "blue": 9},
                 tables={"red": [5, 10], "blue": [5, 10]})
    s = position(s, covered={"red": 1, "blue": 1})
    assert s.full_tables() == 2 and s.tables_to_end() == 3
    after = GAME.apply(s, turn(PlaceTile("A", "r11c1", Take(law=8, remove=3))))
    assert not after.law3 and after.finished == Termination.PRICE_TABLES_FULL


# -- laws 4-7 under price tables -------------------------------------------------------------------

def test_law4_must_sell_and_sells_for_nothing_when_full():
    s = position(content={"r11c1": "red", "r11c3": "red"}, table_law={"red": 4}, tables={"red": [5, 10, 15]}, covered={"red": 1})
    assert rules_broken(s, turn(PlaceTile("A", "r11c1", KEEP))) == {"treasure.must_sell"}
    s = GAME.apply(s, turn(PlaceTile("A", "r11c1", SELL)))
    red = colour(s, "red")
    assert s.cash[0] == 10 and s.table_full(red)
    # C13: full table + law 4: "sold" for 0 and the scarab leaves the game
    s = GAME.apply(s, turn(PlaceTile("B", "r11c3", SELL), player="red"))
    assert s.cash[1] == 0 and s.sold_for_nothing[red] == 1 and s.covered[red] == 2 and s.kept[1][red] == 0
    assert rules_broken(position(s, content={"r11c5": "red"}, active="green"),
                        turn(PlaceTile("C", "r11c5", KEEP), player="green")) == {"treasure.must_sell"}


def test_law4_full_keep_variant():
    s = position(fresh(variants=["law4_full_keep"]), content={"r11c1": "red"}, table_law={"red": 4},
                 tables={"red": [5, 10]}, covered={"red": 1})
    assert rules_broken(s, turn(PlaceTile("A", "r11c1", SELL))) == {"treasure.table_full"}
    assert rules_broken(s, turn(PlaceTile("A", "r11c1", KEEP))) == set()


def test_law5_must_keep_and_forbids_law10():
    s = position(content={"r11c1": "red"}, table_law={"red": 5}, kept={"blue": {"red": 1}}, held={"blue": [10]})
    assert rules_broken(s, turn(PlaceTile("A", "r11c1", SELL))) == {"treasure.must_keep"}
    assert rules_broken(s, turn(PlaceTile("A", "r11c1", KEEP))) == set()
    assert rules_broken(s, turn(UseLaw10("red"), PlaceTile("A", "r11c1", KEEP))) == {"law10.forbidden"}


def test_one_law_per_table_law6_blocks():
    s = position(content={"r11c1": 4}, table_law={"red": 6})
    assert rules_broken(s, turn(PlaceTile("A", "r11c1", Take(law=4, table="red")))) == {"law.table_taken"}
    assert rules_broken(s, turn(PlaceTile("A", "r11c1", Take(law=4, table="blue")))) == set()
    assert rules_broken(s, turn(PlaceTile("A", "r11c1", Take(law=4, discard=True)))) == set()
    assert rules_broken(s, turn(PlaceTile("A", "r11c1", Take(law=4)))) == {"law.table_missing"}
    assert rules_broken(s, turn(PlaceTile("A", "r11c1", Take(law=4, table="purple")))) == {"law.table_unknown"}
    after = GAME.apply(s, turn(PlaceTile("A", "r11c1", Take(law=4, table="blue"))))
    assert after.table_law[colour(s, "blue")] == 4
    assert GAME.visible_board(after).count("price-blue-law") == 1


# -- law 8 ---------------------------------------------------------------------------------------

def test_law8_removes_a_law_under_a_table_or_in_a_hand():
    s = position(content={"r11c1": 8}, table_law={"green": 5}, held={"red": [11]})
    after = GAME.apply(s, turn(PlaceTile("A", "r11c1", Take(law=8, remove=5))))
    assert after.table_law[colour(s, "green")] == 0 and 5 in after.out_of_play and 8 in after.out_of_play
    after = GAME.apply(s, turn(PlaceTile("A", "r11c1", Take(law=8, remove=11))))
    assert after.held[1] == ()
    assert rules_broken(s, turn(PlaceTile("A", "r11c1", Take(law=8)))) == {"law.remove_missing"}
    assert rules_broken(s, turn(PlaceTile("A", "r11c1", Take(law=8, remove=2)))) == {"law.remove_not_in_play"}
    assert rules_broken(s, turn(PlaceTile("A", "r11c1", Take(law=8, table="red")))) == {"law.resolution_invalid"}


def test_law8_removes_a_face_down_law_from_the_pyramid_by_default():
    """The seed: law 8 removes a law "from the board, from a player's hand or from under a price
    table" (可以從場上、玩家手上或是價格表上); a face-down law on the pyramid is on the board."""
    s = position(content={"r11c1": 8, "r11c5": "law"})
    move = turn(PlaceTile("A", "r11c1", Take(law=8, remove_space="r11c5")))
    assert rules_broken(s, move) == set()
    assert Take(law=8, remove_space="r11c5") in take_options(rules.Work(s), SPACE_INDEX["r11c1"])
    after = GAME.apply(s, move)
    assert after.content[SPACE_INDEX["r11c5"]] == -1 and 8 in after.out_of_play
    # the emptied space can still be covered; nothing is taken there
    after2 = GAME.apply(after, turn(PlaceTile("B", "r11c5"), player="red"))
    assert after2.cash == after.cash
    assert rules_broken(after, turn(PlaceTile("B", "r11c5", SELL), player="red")) == {"take.nothing_there"}
    # a known (seeded) law on the pyramid is face down as well, and goes out of play
    s3 = position(content={"r11c1": 8, "r11c5": 12})
    after3 = GAME.apply(s3, move)
    assert 12 in after3.out_of_play and after3.content[SPACE_INDEX["r11c5"]] == -1


def test_law8_face_up_only_variant_keeps_the_old_reading():
    s = position(fresh(variants=["law8_face_up_only"]), content={"r11c1": 8, "r11c5": "law"}, held={"red": [11]})
    move = turn(PlaceTile("A", "r11c1", Take(law=8, remove_space="r11c5")))
    found = GAME.violations(s, move)
    assert [v.rule for v in found] == ["law.remove_space_variant"]
    assert "law8_face_up_only" in found[0].message.en and "背面朝上" in found[0].message.zh and found[0].fix is not None
    assert all(t.remove_space is None for t in take_options(rules.Work(s), SPACE_INDEX["r11c1"]))
    assert rules_broken(s, turn(PlaceTile("A", "r11c1", Take(law=8, remove=11)))) == set()


def test_law8_on_the_pyramid_cannot_remove_its_own_space():
    """Regression: with law 8 on the pyramid, law 8 naming the space it was taken from passed the
    check (the space is not covered yet while the step is checked) and put a bogus law -101 out of play."""
    s = position(content={"r11c1": 8, "r11c5": "law"})
    own = turn(PlaceTile("A", "r11c1", Take(law=8, remove_space="r11c1")), draws=[0])
    found = GAME.violations(s, own)
    assert [v.rule for v in found] == ["law.remove_not_in_play"]
    assert "r11c1" in found[0].message.en and "8 号律法" in found[0].message.zh and found[0].fix is not None
    other = GAME.apply(s, turn(PlaceTile("A", "r11c1", Take(law=8, remove_space="r11c5")), draws=[0]))
    assert other.out_of_play == (8,) and all(n > 0 for n in other.out_of_play)


# -- laws 10-12: kept, used on a later turn ---------------------------------------------------------

def test_law10_sells_a_kept_treasure():
    s = position(kept={"blue": {"red": 2}}, held={"blue": [10]}, tables={"red": [5, 10, 15]})
    after = GAME.apply(s, turn(PlaceTile("A", "r11c1", KEEP), UseLaw10("red")))
    red = colour(s, "red")
    assert after.cash[0] == 10 and after.kept[0][red] == 1 and after.covered[red] == 1 and after.held[0] == ()
    assert rules_broken(s, turn(UseLaw10("blue"), PlaceTile("A", "r11c1", KEEP))) == {"law10.no_kept"}
    full = position(s, covered={"red": 2})
    assert rules_broken(full, turn(UseLaw10("red"), PlaceTile("A", "r11c1", KEEP))) == {"law10.table_full"}
    assert rules_broken(position(s, held={}), turn(UseLaw10("red"), PlaceTile("A", "r11c1", KEEP))) == {"law10.not_held"}


def test_kept_law_is_not_usable_on_the_turn_it_is_taken():
    s = position(content={"r11c1": 10}, kept={"blue": {"red": 1}})
    assert rules_broken(s, turn(PlaceTile("A", "r11c1", Take(law=10)), UseLaw10("red"))) == {"law.same_turn"}
    after = GAME.apply(s, turn(PlaceTile("A", "r11c1", Take(law=10))))
    assert after.held[0] == (10,)


def test_law11_waives_the_support_rule_not_the_same_face_rule():
    s = position(tiles={"r11c4": "A"}, content={"r4c2": "red"}, held={"blue": [11]})
    ok = turn(UseLaw11("A", "r4c2", SELL), draws=[0])
    assert rules_broken(s, ok) == set()
    after = GAME.apply(s, ok)
    assert after.held[0] == () and 11 in after.out_of_play and after.hand_size[0] == 4
    assert rules_broken(s, turn(UseLaw11("A", "r10c4", SELL))) == {"place.same_face"}
    assert rules_broken(s, turn(PlaceTile("A", "r4c2", SELL))) == {"place.support"}
    # law 11 replaces step B (C22) ...
    assert rules_broken(s, turn(UseLaw11("A", "r4c2", SELL), PlaceTile("B", "r11c9", SELL))) == {"turn.two_step_b"}
    # ... unless the variant makes it an extra placement
    s_extra = position(fresh(variants=["law11_extra"]), tiles={"r11c4": "A"}, content={"r4c2": "red"}, held={"blue": [11]})
    assert rules_broken(s_extra, turn(UseLaw11("A", "r4c2", SELL), PlaceTile("B", "r11c9", SELL), draws=[0, 1])) == set()
    # variant law11_support: the support rule stays
    s_sup = position(fresh(variants=["law11_support"]), content={"r4c2": "red"}, held={"blue": [11]})
    assert rules_broken(s_sup, turn(UseLaw11("A", "r4c2", SELL))) == {"place.support"}
    assert rules_broken(position(s, held={}), ok) == {"law11.not_held"}


def test_law12_swaps_treasures():
    s = position(content={"r11c1": "red", "r11c2": "blue", "r11c3": 4, "r11c5": "white"}, kept={"blue": {"green": 1}}, held={"blue": [12]})
    after = GAME.apply(s, turn(UseLaw12("r11c1", "r11c2"), PlaceTile("A", "r11c2", SELL)))
    assert after.content[SPACE_INDEX["r11c1"]] == colour(s, "blue")
    assert after.covered[colour(s, "red")] == 1  # the red one moved to r11c2 and was sold
    after = GAME.apply(s, turn(UseLaw12("kept:green", "r11c2"), PlaceTile("A", "r11c5", KEEP)))
    assert after.content[SPACE_INDEX["r11c2"]] == colour(s, "green")
    assert after.kept[0][colour(s, "blue")] == 1 and after.kept[0][colour(s, "green")] == 0
    assert rules_broken(s, turn(UseLaw12("r11c1", "r11c3"), PlaceTile("A", "r11c5", KEEP))) == {"law12.not_treasure"}
    assert rules_broken(s, turn(UseLaw12("kept:green", "kept:green"), PlaceTile("A", "r11c5", KEEP))) == {"law12.same"}
    assert rules_broken(s, turn(UseLaw12("kept:red", "r11c1"), PlaceTile("A", "r11c5", KEEP))) == {"law12.no_kept"}
    covered = position(s, tiles={"r11c1": "B"})
    assert rules_broken(covered, turn(UseLaw12("r11c1", "r11c2"), PlaceTile("A", "r11c5", KEEP))) == {"law12.not_treasure"}
    # C17 other reading: law tiles on the pyramid may be swapped too
    s_var = position(fresh(variants=["law12_laws"]), content={"r11c1": "red", "r11c3": 4}, held={"blue": [12]})
    after = GAME.apply(s_var, turn(UseLaw12("r11c1", "r11c3"), PlaceTile("A", "r11c5", KEEP)))
    assert after.content[SPACE_INDEX["r11c1"]] == 104


# -- face-down laws ---------------------------------------------------------------------------------

def test_face_down_laws_are_declared_when_taken():
    dealt = fresh()
    s = fresh(seed=None, tables={c: t.id for c, t in zip(dealt.colours, dealt.tables)},
              pyramid={SPACES[i]: dealt.colours[code] for i, code in enumerate(dealt.content) if code < 100})
    assert all(s.content[SPACE_INDEX[e]] == LAW_HIDDEN for e in s.board.eye_spaces)
    s = position(s, content={"r11c1": "law", "r11c3": "law"})
    assert rules_broken(s, turn(PlaceTile("A", "r11c1", Take()))) == {"law.undeclared"}
    after = GAME.apply(s, turn(PlaceTile("A", "r11c1", Take(law=3))))
    assert after.law3 and after.laws_declared == 1 and 3 in after.revealed
    assert rules_broken(after, turn(PlaceTile("B", "r11c3", Take(law=3)), player="red")) == {"law.already_revealed"}
    assert rules_broken(after, turn(PlaceTile("B", "r11c3", Take(law=9, discard=True)), player="red")) == set()
    assert any(d.startswith("law identities") for d in GAME.score(after).declared)


def test_known_law_must_match():
    s = position(content={"r11c1": 5})
    assert rules_broken(s, turn(PlaceTile("A", "r11c1", Take(law=6, table="red")))) == {"law.mismatch"}
    assert rules_broken(s, turn(PlaceTile("A", "r11c1", SELL))) == {"take.law_not_treasure"}
    assert rules_broken(s, turn(PlaceTile("A", "r11c2", Take(law=5, table="red")))) == {"take.treasure_not_law"}
    assert rules_broken(s, turn(PlaceTile("A", "r11c2"))) == {"treasure.decision_missing"}


# -- neighbours ----------------------------------------------------------------------------------

def test_neighbour_costs_twenty_and_gives_a_second_placement():
    s = position(cash={"blue": 25})
    move = turn(BuyNeighbour("r11c1", SELL), PlaceTile("A", "r11c2", SELL), draws=[0])
    after = GAME.apply(s, move)
    assert after.cash[0] == 25 - 20 + 10 + 10 and after.neighbours_left == 3
    assert after.hand_size[0] == 4  # one hand tile placed, one drawn (C20)
    assert rules_broken(s, turn(BuyNeighbour("r11c1", SELL), PlaceTile("A", "r11c2", SELL), draws=[0, 1])) == {"draw.too_many"}
    assert rules_broken(position(cash={"blue": 15}), move) == {"neighbour.cash"}
    assert rules_broken(replace(s, neighbours_left=0), move) == {"neighbour.none_left"}
    assert rules_broken(s, turn(PlaceTile("A", "r11c2", SELL), BuyNeighbour("r11c1", SELL))) == {"turn.neighbour_first"}
    assert rules_broken(s, turn(BuyNeighbour("r11c1", SELL), Pass())) == {"turn.neighbour_needs_step_b"}
    assert rules_broken(s, turn(BuyNeighbour("r11c1", SELL))) == {"turn.no_step_b"}
    assert rules_broken(s, turn(BuyNeighbour("r10c1", SELL), PlaceTile("A", "r11c2", SELL))) == {"place.support"}
    assert rules_broken(s, turn(BuyNeighbour("r11c1", Take(sell=True), save=True), PlaceTile("A", "r11c2", SELL))) == {"neighbour.no_saving"}


def test_save_neighbour_variant():
    s = position(fresh(variants=["save_neighbour"]), cash={"blue": 20})
    after = GAME.apply(s, turn(BuyNeighbour(None, save=True), PlaceTile("A", "r11c2", SELL), draws=[0]))
    assert after.saved_neighbours[0] == 1 and after.cash[0] == 10
    later = replace(after, active=0)
    done = GAME.apply(later, turn(BuyNeighbour("r11c5", KEEP, saved=True), PlaceTile("B", "r11c8", KEEP)))
    assert done.saved_neighbours[0] == 0 and done.cash[0] == 10 and done.neighbours_left == 3


def test_law9_under_a_bought_neighbour_is_paid_from_what_the_neighbour_left():
    """Regression (property test seed=3014, 3 players): 40 piasters, a neighbour bought for 20 lands
    on law 9; the law was checked against the 40 before the purchase and paid, leaving -5 (E16)."""
    s = position(cash={"blue": 40}, content={"r11c1": 9})
    pay = turn(BuyNeighbour("r11c1", Take(law=9)), PlaceTile("A", "r11c2", KEEP), draws=[0])
    found = GAME.violations(s, pay)
    assert [v.rule for v in found] == ["law.cannot_pay"]
    v = found[0]
    assert "neighbour" in v.message.en and "20" in v.message.en and "邻居" in v.message.zh
    assert v.fix is not None and v.fix.zh and v.spaces == ("r11c1",)
    # discarding it is legal and costs only the neighbour
    discard = turn(BuyNeighbour("r11c1", Take(law=9, discard=True)), PlaceTile("A", "r11c2", KEEP), draws=[0])
    assert GAME.apply(s, discard).cash[0] == 20
    # with 45 the player can afford both: 45 - 20 - 25 = 0
    rich = position(cash={"blue": 45}, content={"r11c1": 9})
    after = GAME.apply(rich, pay)
    assert after.cash[0] == 0 and 9 in after.held[0]
    # a saved neighbour (variant) was paid on an earlier turn: only law 9's 25 is needed now
    saved = position(fresh(variants=["save_neighbour"]), cash={"blue": 25}, content={"r11c1": 9})
    saved = replace(saved, saved_neighbours=(1, 0, 0), neighbours_left=3)
    done = GAME.apply(saved, turn(BuyNeighbour("r11c1", Take(law=9), saved=True), PlaceTile("A", "r11c2", KEEP), draws=[0]))
    assert done.cash[0] == 0 and 9 in done.held[0]


def test_law8_cannot_remove_the_law11_used_for_the_same_placement():
    """Regression (sweep seed 133): law 11 is used up when its tile goes down, before the law 8
    under it resolves; naming law 11 as law 8's target was accepted and put law 11 out of play
    twice (E17)."""
    s = position(content={"r11c1": 8}, held={"blue": [11], "red": [10]})
    bad = turn(UseLaw11("A", "r11c1", Take(law=8, remove=11)), draws=[0])
    found = GAME.violations(s, bad)
    assert [v.rule for v in found] == ["law.remove_not_in_play"]
    assert "law 11" in found[0].message.en.lower() and "11 号律法" in found[0].message.zh and found[0].fix is not None
    after = GAME.apply(s, turn(UseLaw11("A", "r11c1", Take(law=8, remove=10)), draws=[0]))
    assert sorted(after.out_of_play) == [8, 10, 11] and after.held == ((), (), ())
    # a law 11 held but not used this step is still a fair target for law 8
    plain = GAME.apply(s, turn(PlaceTile("A", "r11c1", Take(law=8, remove=11)), draws=[0]))
    assert sorted(plain.out_of_play) == [8, 11] and plain.held == ((), (10,), ())


def test_start_cash_and_neighbour_count_options():
    s = fresh(start_cash=30, neighbours=12)
    assert s.cash == (30, 30, 30) and s.neighbours_left == 12


# -- draws and passes ------------------------------------------------------------------------------

def test_draws_tracked_stacks():
    s = fresh(tiles="tracked")
    top = "ABCD"[s.stacks[1][-1]]
    wrong = next(f for f in "ABCD" if f != top)
    base = PlaceTile("A", "r11c1", SELL)
    assert rules_broken(s, Turn("blue", (base,), (Draw(1, wrong),))) == {"draw.tile_mismatch"}
    after = GAME.apply(s, Turn("blue", (base,), (Draw(1, top),)))
    assert after.hands[0][["A", "B", "C", "D"].index(top)] >= 1 and after.hand_size[0] == 4
    empty = replace(s, stacks=(s.stacks[0], (), s.stacks[2]), stack_size=(s.stack_size[0], 0, s.stack_size[2]))
    assert rules_broken(empty, Turn("blue", (base,), (Draw(1),))) == {"draw.stack_empty"}
    assert rules_broken(s, Turn("blue", (Pass(),))) == {"pass.could_place"}
    stuck = position(s, hands={"blue": ""})
    assert rules_broken(stuck, Turn("blue", (Pass(),), (Draw(0),))) == {"draw.after_pass"}
    assert rules_broken(stuck, Turn("blue", (Pass(),))) == set()


def test_forgotten_draw_and_later_refill():
    s = fresh(tiles="tracked")
    s = GAME.apply(s, Turn("blue", (PlaceTile("A", "r11c1", SELL),)))  # forgot to draw
    assert s.hand_size[0] == 3
    s = replace(s, active=0)
    assert rules_broken(s, Turn("blue", (PlaceTile("B", "r11c3", SELL),), (Draw(0), Draw(0), Draw(0)))) == {"draw.too_many"}
    s = GAME.apply(s, Turn("blue", (PlaceTile("B", "r11c3", SELL),), (Draw(0), Draw(1))))
    assert s.hand_size[0] == 4


def test_untracked_hands_become_unknown_and_are_reported():
    s = fresh()
    s = GAME.apply(s, Turn("blue", (PlaceTile("A", "r11c1", SELL),), (Draw(0),)))
    assert s.hands[0] is None and s.hand_size[0] == 4
    s = replace(s, active=0)
    s = GAME.apply(s, Turn("blue", (PlaceTile("A", "r11c5", SELL),), (Draw(0, "B"),)))
    assert s.unchecked_faces == 1
    checks = {u.check for u in GAME.score(s).not_checked}
    assert "tiles.hands" in checks
    # declared faces keep the hand known
    t = GAME.apply(fresh(), Turn("blue", (PlaceTile("A", "r11c1", SELL),), (Draw(0, "A"),)))
    assert t.hands[0] == (1, 1, 1, 1)
    assert rules_broken(t, Turn("red", (PlaceTile("A", "r11c2", SELL),))) == {"place.same_face"}


# -- turn shape ----------------------------------------------------------------------------------

def test_turn_order_and_shape():
    s = fresh()
    assert rules_broken(s, Turn("red", (PlaceTile("A", "r11c1", SELL),))) == {"turn.not_your_turn"}
    assert rules_broken(s, Turn("pink", (PlaceTile("A", "r11c1", SELL),))) == {"turn.unknown_player"}
    assert rules_broken(s, Turn("blue", (PlaceTile("A", "r11c1", SELL), PlaceTile("B", "r11c3", SELL)))) == {"turn.two_step_b"}
    assert rules_broken(s, Turn("blue", (Pass(), PlaceTile("A", "r11c1", SELL)))) == {"turn.pass_with_placement"}
    assert rules_broken(s, Turn("blue", (PlaceTile("A", "r12c1", SELL),))) == {"space.unknown"}
    covered = position(tiles={"r11c1": "B"})
    assert rules_broken(covered, Turn("blue", (PlaceTile("A", "r11c1", SELL),))) == {"space.covered"}
    hand = position(hands={"blue": "BC"})
    assert rules_broken(hand, Turn("blue", (PlaceTile("A", "r11c1", SELL),))) == {"place.tile_not_in_hand"}
    empty = position(hands={"blue": ""})
    assert rules_broken(empty, Turn("blue", (PlaceTile("A", "r11c1", SELL),))) == {"place.hand_empty"}
    assert rules_broken(empty, Turn("blue", (Pass(),))) == set()


# -- game end (C2, C3) -----------------------------------------------------------------------------

def _crowded(state, hands):
    """Everything covered except r1c1 and r2c2; r2c1 holds A (so A never fits on the apex)."""
    tiles = {}
    for i, sp in enumerate(SPACES):
        if sp in ("r1c1", "r2c2"):
            continue
        tiles[sp] = "ABCD"[i % 4] if sp != "r2c1" else "A"
    tiles["r3c2"], tiles["r3c3"] = "C", "D"
    return position(state, tiles=tiles, hands=hands)


def test_game_ends_after_a_closing_round_of_passes():
    """C3 by the rulebook: a player who cannot place passes, and the game ends when every player
    has passed in succession -- not at once when nobody can place. A passing player may still use
    law 10 in that turn (E4), so the sale is not lost."""
    s = _crowded(fresh(), {"blue": "B", "red": "A", "green": "AA"})
    red = colour(s, "red")
    s = position(s, held={"green": [10]}, kept={"green": {"red": 1}})
    after = GAME.apply(s, Turn("blue", (PlaceTile("B", "r2c2", SELL),)))
    assert after.finished is None and GAME.turn(after).active == ("red",)
    mid = GAME.apply(after, Turn("red", (Pass(),)))
    assert mid.finished is None and mid.passes_in_row == 1
    mid = GAME.apply(mid, Turn("green", (Pass(), UseLaw10("red"))))
    assert mid.finished is None and mid.cash[2] == 10 and mid.kept[2][red] == 0 and mid.covered[red] == after.covered[red] + 1
    end = GAME.apply(mid, Turn("blue", (Pass(),)))
    assert end.finished == Termination.BLOCKED and end.passes_in_row == 3
    assert any(e.kind == "end_condition" and "passed in succession" in e.message.en and "依次放弃" in e.message.zh
               for e in end.effects)
    assert rules_broken(end, Turn("red", (Pass(),))) == {"game.over"}
    # a placement between the passes starts the count again
    s2 = _crowded(fresh(), {"blue": "B", "red": "A", "green": "B"})
    s2 = replace(s2, active=1)
    s2 = GAME.apply(s2, Turn("red", (Pass(),)))
    s2 = GAME.apply(s2, Turn("green", (PlaceTile("B", "r2c2", SELL),)))
    assert s2.passes_in_row == 0 and s2.finished is None


def test_closing_passes_replay_from_a_record():
    """Regression: the record of a game that ends by the closing round was refused as game.over at
    the first of those passes, since the engine had already ended the game."""
    from scorer.core.game import SetupOptions
    from scorer.games.cheops.simulate import random_game
    from scorer.records import parse_record, replay, to_record

    for seed in range(12):
        setup, moves, final = random_game(seed, 3)
        if final.finished == Termination.BLOCKED:
            break
    else:
        pytest.fail("no random game among 12 ended by the closing round of passes")
    assert all(m.step_b == Pass() for m in moves[-3:])
    result = replay(parse_record(to_record(GAME, SetupOptions.from_json(setup), moves)))
    assert result.ok and result.state.finished == Termination.BLOCKED


def _neighbour_example(variants=()):
    """Issue 13, part 1: row 11 ``D C B A C D C A B N B``, row 10 ``A . N . B A B . D C``; green is
    about to put B on r9c9. Nobody holds a face that fits anywhere then, but blue (A A B B, 50
    piasters, 2 neighbours left) can buy a neighbour for r10c8 and then put A on r9c8."""
    tiles = {}
    for c, t in enumerate("D C B A C D C A B N B".split(), 1):
        tiles[f"r11c{c}"] = "neighbour" if t == "N" else t
    for c, t in enumerate("A . N . B A B . D C".split(), 1):
        if t != ".":
            tiles[f"r10c{c}"] = "neighbour" if t == "N" else t
    s = position(fresh(variants=variants), tiles=tiles, hands={"blue": "AABB", "red": "AABB", "green": "AABB"},
                 cash={"blue": 50}, active="green")
    return replace(s, neighbours_left=2)


NEIGHBOUR_THEN_A = Turn("blue", (BuyNeighbour("r10c8", SELL), PlaceTile("A", "r9c8", SELL)))


@pytest.mark.parametrize("variants", [(), ("end_when_blocked",)])
def test_game_goes_on_while_a_neighbour_would_let_a_player_place(variants):
    """Regression (issue 13): the blocked test ignored step A and ended the game although blue could
    still buy a neighbour and then place a family tile normally."""
    s = _neighbour_example(variants)
    after = GAME.apply(s, Turn("green", (PlaceTile("B", "r9c9", SELL),)))
    assert after.finished is None
    assert not any(placeable_spaces(after.tile, f) for f in range(2))  # no A or B fits without step A
    assert rules_broken(after, NEIGHBOUR_THEN_A) == set()
    assert NEIGHBOUR_THEN_A in set(GAME.legal_moves(after))
    assert rules_broken(after, Turn("blue", (Pass(),))) == set()  # step A is optional
    done = GAME.apply(after, NEIGHBOUR_THEN_A)
    assert done.tile[SPACE_INDEX["r10c8"]] == NEIGHBOUR_TILE and done.cash[0] == 50 - 20 + 20


def test_end_when_blocked_counts_step_a_only_when_it_can_be_paid():
    s = _neighbour_example(("end_when_blocked",))
    green_b = Turn("green", (PlaceTile("B", "r9c9", SELL),))
    poor = position(s, cash={"blue": 15})
    assert GAME.apply(poor, green_b).finished == Termination.BLOCKED
    assert GAME.apply(replace(s, neighbours_left=0), green_b).finished == Termination.BLOCKED
    # a neighbour saved earlier (variant save_neighbour) costs nothing now
    saved = replace(_neighbour_example(("end_when_blocked", "save_neighbour")), cash=(15, 0, 0), saved_neighbours=(1, 0, 0))
    after = GAME.apply(saved, green_b)
    assert after.finished is None
    assert rules_broken(after, Turn("blue", (BuyNeighbour("r10c8", SELL, saved=True), PlaceTile("A", "r9c8", SELL)))) == set()


def test_end_when_blocked_variant_ends_at_once():
    s = _crowded(fresh(variants=["end_when_blocked"]), {"blue": "B", "red": "A", "green": "AA"})
    after = GAME.apply(s, Turn("blue", (PlaceTile("B", "r2c2", SELL),)))
    assert after.finished == Termination.BLOCKED
    assert any("no family tile can be placed" in e.message.en for e in after.effects)
    # untracked hands: unknown hands could hold a face that fits, so play goes on until all pass
    s2 = _crowded(fresh(variants=["end_when_blocked"]), {"blue": "B"})
    s2 = replace(s2, hands=(s2.hands[0], None, None))
    mid = GAME.apply(s2, Turn("blue", (PlaceTile("B", "r2c2", SELL),)))
    assert mid.finished is None
    mid = GAME.apply(mid, Turn("red", (Pass(),)))
    assert mid.finished is None and mid.unchecked_passes == 1
    mid = GAME.apply(mid, Turn("green", (Pass(),)))
    assert mid.finished is None
    end = GAME.apply(mid, Turn("blue", (Pass(),)))
    assert end.finished == Termination.BLOCKED


def test_end_on_first_pass_variant():
    s = _crowded(fresh(variants=["end_on_first_pass"]), {"blue": "B"})
    s = replace(s, hands=(s.hands[0], None, None))
    mid = GAME.apply(s, Turn("blue", (PlaceTile("B", "r2c2", SELL),)))
    end = GAME.apply(mid, Turn("red", (Pass(),)))
    assert end.finished == Termination.NO_LEGAL_PLACEMENT


def test_pyramid_empty_ends_the_game():
    s = position(content={sp: None for sp in SPACES})
    s = position(s, content={"r11c1": "red"})
    after = GAME.apply(s, Turn("blue", (PlaceTile("A", "r11c1", KEEP),)))
    assert after.finished == Termination.PYRAMID_COMPLETE


def test_tiles_exhausted_ends_by_the_closing_round_or_at_once_with_the_variant():
    s = position(hands={"blue": "A", "red": "", "green": ""})
    s = replace(s, stack_size=(0, 0, 0), stack_faces=(0, 0, 0, 0))
    after = GAME.apply(s, Turn("blue", (PlaceTile("A", "r11c1", KEEP),)))
    assert after.finished is None  # nobody holds a tile: three passes follow
    for player in ("red", "green"):
        after = GAME.apply(after, Turn(player, (Pass(),)))
    assert after.finished is None
    assert GAME.apply(after, Turn("blue", (Pass(),))).finished == Termination.BLOCKED
    s2 = replace(position(fresh(variants=["end_when_blocked"]), hands={"blue": "A", "red": "", "green": ""}),
                 stack_size=(0, 0, 0), stack_faces=(0, 0, 0, 0))
    assert GAME.apply(s2, Turn("blue", (PlaceTile("A", "r11c1", KEEP),))).finished == Termination.DECK_EXHAUSTED


# -- scoring options (C7, C8, C19, C21) -------------------------------------------------------------

def test_single_holder_of_a_pair_colour():
    s = position(tables={"red": [{"sole_majority": 5, "others": 20}, 30]}, kept={"blue": {"red": 2}})
    red = colour(s, "red")
    assert final_scoring(s).colours[red][0] == 10  # C7: the only holder is the sole majority
    s2 = position(fresh(variants=["single_holder_not_majority"]), tables={"red": [{"sole_majority": 5, "others": 20}, 30]},
                  kept={"blue": {"red": 2}})
    assert final_scoring(s2).colours[red][0] == 40


def test_joker_counts_toward_majorities():
    pair = {"red": [{"sole_majority": 5, "others": 20}, 30]}
    for c in ("blue", "green", "yellow", "white", "black"):
        pair[c] = [0, 0]
    s = position(tables=pair, kept={"blue": {"red": 1}, "red": {"red": 1}}, held={"blue": [9]})
    res = final_scoring(s)
    red = colour(s, "red")
    # as red, the joker would give blue the sole majority (2 x 5 = 10); any other colour keeps the
    # tie (20 for the red treasure) and the joker is worth 0 there: the best choice is elsewhere
    assert res.joker_colour[0] != red and res.totals[0] == 20
    s2 = position(fresh(variants=["jokers_not_counted"]), tables=pair, kept={"blue": {"red": 1}, "red": {"red": 1}}, held={"blue": [9]})
    res2 = final_scoring(s2)
    assert res2.joker_colour[0] == red and res2.totals[0] == 40


def test_shared_win_and_cash_tiebreak():
    s = position(cash={"blue": 30, "red": 10}, kept={"red": {"red": 1}}, tables={"red": [20, 30]})
    s = replace(s, finished=Termination.BLOCKED)
    out = GAME.outcome(s)
    assert set(out.winners) == {"blue", "red"}
    s2 = replace(position(fresh(variants=["tiebreak_cash"]), cash={"blue": 30, "red": 10}, kept={"red": {"red": 1}},
                          tables={"red": [20, 30]}), finished=Termination.BLOCKED)
    out2 = GAME.outcome(s2)
    assert out2.winners == ("blue",) and out2.tiebreak_used


def test_value_last_covered_variant():
    s = position(tables={"red": [5, 10, 15]}, covered={"red": 1}, kept={"blue": {"red": 1}})
    red = colour(s, "red")
    assert final_scoring(s).colours[red][0] == 10
    s2 = position(fresh(variants=["value_last_covered"]), tables={"red": [5, 10, 15]}, covered={"red": 1}, kept={"blue": {"red": 1}})
    assert final_scoring(s2).colours[red][0] == 5


def test_score_breakdown_adds_up_and_marks_provisional_data():
    s = position(cash={"blue": 15}, kept={"blue": {"red": 1}}, tables={"red": [20, 30]})
    board = GAME.score(s)
    blue = board.of("blue")
    assert blue.total == 35 and blue.category("cash") == 15 and blue.category("red") == 20
    assert board.provisional_data and not board.final
    assert {u.check for u in board.not_checked} >= {"price_tables.provisional", "board.provisional"}
    assert any(d.startswith("cash") for d in board.declared)


@pytest.mark.parametrize("bad", [{"players": ["a"]}, {"players": ["a", "b"], "variants": ["nope"]},
                                 {"players": ["a", "b"]}, {"players": ["a", "a"], "seed": 1},
                                 {"players": ["a", "b"], "seed": 1, "tables": {"red": "I-1"}},
                                 {"players": ["a", "b"], "tiles": "tracked"},
                                 {"players": ["a", "b"], "seed": 1, "stack_sizes": [1, 2, 3]},
                                 {"players": ["a", "b"], "seed": 1, "laws": {"r6c3": 1}}])
def test_bad_setups_are_rejected_with_a_named_field(bad):
    from scorer.core.game import SetupOptions
    from scorer.core.types import InvalidRecord

    with pytest.raises(InvalidRecord) as err:
        GAME.setup(SetupOptions.from_json(bad))
    assert "setup" in str(err.value)

"""Every worked example of rules/cheops.md section 11 (E1-E16, derived from the spec)."""

from __future__ import annotations

import pytest

from cheops_helpers import fresh, position, rules_broken
from scorer.core.results import Termination
from scorer.core.types import Piece
from scorer.games.cheops.data import SPACE_INDEX
from scorer.core.types import IllegalMove
from scorer.games.cheops import GAME, BuyNeighbour, Pass, PlaceTile, Take, Turn, UseLaw10
from scorer.games.cheops.reporting import final_scoring

SELL, KEEP = Take(sell=True), Take(sell=False)


def place(face, space, take=SELL, player="blue"):
    return Turn(player, (PlaceTile(face, space, take),))


# E1: empty pyramid; face A on r11c5 is legal (bottom row)
def test_e1_bottom_row_is_always_open():
    s = fresh()
    assert rules_broken(s, place("A", "r11c5")) == set()
    after = GAME.apply(s, place("A", "r11c5"))
    assert after.tile[SPACE_INDEX["r11c5"]] == 0 and after.placer[SPACE_INDEX["r11c5"]] == 0
    assert GAME.visible_board(after).pieces("r11c5") == {Piece("neutral", "family-A"): 1}
    assert after.active == 1 and after.cash[0] == 10


# E2: r11c5 covered, r11c6 empty; r10c5 needs both
def test_e2_support_rule_needs_both_spaces_below():
    s = position(tiles={"r11c5": "A"})
    assert rules_broken(s, place("B", "r10c5")) == {"place.support"}
    with pytest.raises(IllegalMove) as err:
        GAME.apply(s, place("B", "r10c5"))
    v = err.value.violations[0]
    assert v.spaces == ("r10c5",)
    assert "r11c5" in v.message.en and "r11c6" in v.message.en
    assert "r11c6" in v.message.zh and v.fix and "拿走" in v.fix.zh
    # once r11c6 is covered too, r10c5 opens
    s2 = position(tiles={"r11c5": "A", "r11c6": "C"})
    assert rules_broken(s2, place("B", "r10c5")) == set()


# E3: r11c5 = A, r11c6 = B; A on r10c5 rests on an A
def test_e3_same_face_below_is_adjacent():
    s = position(tiles={"r11c5": "A", "r11c6": "B"})
    assert rules_broken(s, place("A", "r10c5")) == {"place.same_face"}
    v = GAME.violations(s, place("A", "r10c5"))[0]
    assert set(v.spaces) == {"r10c5", "r11c5"}
    assert v.message.zh and "相邻" in v.message.zh


# E4: same position; face C on r10c5 is legal
def test_e4_other_face_is_fine():
    s = position(tiles={"r11c5": "A", "r11c6": "B"})
    assert rules_broken(s, place("C", "r10c5")) == set()


# E5 / E6: same row, next to / one apart
def test_e5_same_face_in_the_row():
    s = position(tiles={"r11c3": "A"})
    assert rules_broken(s, place("A", "r11c4")) == {"place.same_face"}


def test_e6_not_adjacent_is_fine():
    s = position(tiles={"r11c3": "A"})
    assert rules_broken(s, place("A", "r11c5")) == set()


# E7: a neighbour already on r11c7; a bought neighbour on r11c8 is adjacent to it
def test_e7_neighbours_never_touch():
    s = position(tiles={"r11c7": "neighbour"}, cash={"blue": 30})
    move = Turn("blue", (BuyNeighbour("r11c8", SELL), PlaceTile("A", "r11c1", SELL)))
    assert rules_broken(s, move) == {"neighbour.adjacent"}
    # elsewhere it is fine, and it may touch any family face
    ok = Turn("blue", (BuyNeighbour("r11c9", SELL), PlaceTile("A", "r11c1", SELL)))
    s_face = position(tiles={"r11c7": "neighbour", "r11c10": "B"}, cash={"blue": 30})
    assert rules_broken(s_face, ok) == set()
    # variant C5: neighbours may touch
    s_var = position(fresh(variants=["neighbours_may_touch"]), tiles={"r11c7": "neighbour"}, cash={"blue": 30})
    assert rules_broken(s_var, move) == set()


# E8: market 10, sell a red scarab on an empty [5,10,15,20,25] table
def test_e8_sale_pays_market_price_and_covers_one_number():
    s = position(content={"r11c1": "red"}, tables={"red": [5, 10, 15, 20, 25]}, covered={})
    after = GAME.apply(s, place("A", "r11c1", SELL))
    assert after.cash[0] == 10
    assert after.covered[s.colours.index("red")] == 1
    red = s.colours.index("red")
    assert after.tables[red].entries[after.covered[red]].value == 10  # 5 is covered, 10 shows
    assert GAME.visible_board(after).count("price-red") == 1


# E9: 4 of 5 covered: full; red can no longer be sold; end value 25
def test_e9_full_table_cannot_be_sold_and_values_its_bottom_number():
    s = position(content={"r11c1": "red"}, tables={"red": [5, 10, 15, 20, 25]}, covered={"red": 4})
    red = s.colours.index("red")
    assert s.table_full(red)
    assert rules_broken(s, place("A", "r11c1", SELL)) == {"treasure.table_full"}
    after = GAME.apply(s, place("A", "r11c1", KEEP))
    res = final_scoring(after)
    assert res.units[red][0] == 25 and res.colours[red][0] == 25


# E10: pair 5/20; P1 keeps 3, P2 1, P3 1: sole majority gets the smaller number
def test_e10_pair_sole_majority():
    s = position(tables={"red": [{"sole_majority": 5, "others": 20}, 30]},
                 kept={"blue": {"red": 3}, "red": {"red": 1}, "green": {"red": 1}})
    res = final_scoring(s)
    red = s.colours.index("red")
    assert res.colours[red] == (15, 20, 20)


# E11: pair 5/20; 2 and 2 tie for most: everyone gets the larger number
def test_e11_pair_tie_for_most():
    s = position(tables={"red": [{"sole_majority": 5, "others": 20}, 30]}, kept={"blue": {"red": 2}, "red": {"red": 2}})
    red = s.colours.index("red")
    assert final_scoring(s).colours[red] == (40, 40, 0)


# E12: X2; P1 3, P2 1: total reading 24/8, own-count reading 18/2
def test_e12_multiplier_total_and_own_count():
    kept = {"blue": {"blue": 3}, "red": {"blue": 1}}
    s = position(tables={"blue": [{"x": 2}, 10]}, kept=kept)
    b = s.colours.index("blue")
    assert final_scoring(s).colours[b] == (24, 8, 0)
    s_own = position(fresh(variants=["x_own_count"]), tables={"blue": [{"x": 2}, 10]}, kept=kept)
    assert final_scoring(s_own).colours[b] == (18, 2, 0)


# E13: law 7 under green; green table otherwise at 5
def test_e13_law7_flat_twenty():
    s = position(tables={"green": [5, 10, 15]}, table_law={"green": 7}, kept={"blue": {"green": 2}})
    g = s.colours.index("green")
    assert final_scoring(s).colours[g] == (40, 0, 0)
    # the law attaches through play as well
    s2 = position(content={"r11c2": 7}, tables={"green": [5, 10, 15]}, kept={"blue": {"green": 2}})
    after = GAME.apply(s2, place("A", "r11c2", Take(law=7, table="green")))
    assert after.table_law[g] == 7 and final_scoring(after).colours[g][0] == 40


# E14: law 1 taken, then a scarab sold: +5
def test_e14_law1_market_price_five():
    s = position(content={"r11c1": 1, "r11c3": "red"}, tables={"red": [5, 10, 15, 20, 25]})
    after = GAME.apply(s, place("A", "r11c1", Take(law=1)))
    assert after.market_price() == 5
    after = GAME.apply(after, place("B", "r11c3", SELL, player="red"))
    assert after.cash == (0, 5, 0)


# E15: law 9 with 30 cash: pay 25 and get a joker, or discard
def test_e15_law9_pay_or_discard():
    s = position(content={"r11c1": 9}, cash={"blue": 30})
    paid = GAME.apply(s, place("A", "r11c1", Take(law=9)))
    assert paid.cash[0] == 5 and 9 in paid.held[0]
    dropped = GAME.apply(s, place("A", "r11c1", Take(law=9, discard=True)))
    assert dropped.cash[0] == 30 and 9 not in dropped.held[0] and 9 in dropped.out_of_play
    poor = position(content={"r11c1": 9}, cash={"blue": 20})
    assert rules_broken(poor, place("A", "r11c1", Take(law=9))) == {"law.cannot_pay"}
    # the joker counts at the end as one treasure of the colour best for its owner
    red = s.colours.index("red")
    rich = position(paid, tables={"red": [40, 50]}, kept={"blue": {"red": 1}})
    res = final_scoring(rich)
    assert res.joker_colour[0] == red and res.joker[0] == 40


# E16: two tables full, no law 3: the game ends right after the triggering action
def test_e16_two_full_tables_end_the_game_at_once():
    s = position(content={"r11c1": "red", "r11c3": "blue"}, tables={"red": [5, 10], "blue": [5, 10, 15]},
                 covered={"blue": 2}, kept={"blue": {"red": 1}}, held={"blue": [10]})
    # selling the red treasure fills the second table: the game is over after this turn
    after = GAME.apply(s, place("A", "r11c1", SELL))
    assert after.finished == Termination.PRICE_TABLES_FULL
    assert GAME.outcome(after) is not None and GAME.score(after).final
    assert rules_broken(after, place("B", "r11c3", SELL, player="red")) == {"game.over"}
    # a turn that goes on after the end (law 10 first fills the table, then a placement) is rejected
    cont = Turn("blue", (UseLaw10("red"), PlaceTile("A", "r11c3", KEEP)))
    assert rules_broken(s, cont) == {"game.ended_mid_turn"}
    assert rules_broken(s, Turn("blue", (UseLaw10("red"),))) == set()
    # variant end_after_turn: the rest of the turn is still played
    s_var = position(fresh(variants=["end_after_turn"]), content={"r11c1": "red", "r11c3": "blue"},
                     tables={"red": [5, 10], "blue": [5, 10, 15]}, covered={"blue": 2},
                     kept={"blue": {"red": 1}}, held={"blue": [10]})
    done = GAME.apply(s_var, cont)
    assert done.finished == Termination.PRICE_TABLES_FULL and done.cash[0] == 10
    assert done.kept[0][s.colours.index("blue")] == 1
    # with law 3 in force two full tables are not enough
    s3 = position(s, law3=True)
    assert GAME.apply(s3, place("A", "r11c1", SELL)).finished is None


def test_pass_only_when_nothing_fits():
    s = fresh()
    assert rules_broken(s, Turn("blue", (Pass(),))) == {"pass.could_place"}

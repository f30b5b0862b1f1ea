"""Every worked example of rules/ming.md section 8 (8.1 rulebook examples, D1-D15 derived checks)."""

from __future__ import annotations

import pytest

from ming_helpers import category, city, commit_all, opened, position, score_now, tiles
from scorer.games.ming import GAME
from scorer.games.ming.moves import MovePrince, SendBack, Stay
from scorer.games.ming.scoring import city_bonus, district_majority, final_tile_points
from scorer.games.ming.state import PH_OVER, PH_ROUND_END

P4 = ("yellow", "green", "blue", "red")


def majority_in_engine(counts: dict[str, int], players=P4, round_=2):
    """Put the counts into district p1d1 and run the scoring up to the return cards of p1."""
    state = position(players, round=round_, open={"p1d1": counts})
    return score_now(state)


# -- 8.1 examples given in the rulebook ------------------------------------------------------------

def test_8_1_1_deployment_into_a_cloister():
    state = position(princes={"yellow": "p2d1", "green": "p1d1"}, spaces={"p2": {"yellow": 3}}, hands={"yellow": ["horse"]})
    after = GAME.apply(state, Stay("yellow", "horse", deploy=2, cloister=True))
    assert opened(after, "p2d1", "yellow") == 1
    assert after.cloister[after.board.district_index["p2d1"]] == 0  # yellow
    assert after.spaces[after.board.province_index["p2"]][0] == 1


def test_8_1_2_yellow_3_green_2_blue_1():
    assert district_majority([3, 2, 1, 0]) == [2, 1, 0, 0]
    s = majority_in_engine({"yellow": 3, "green": 2, "blue": 1})
    assert [city(s, "p1d1", c) for c in ("yellow", "green", "blue")] == [2, 1, 0]
    assert [tiles(s, c, "p1") for c in ("yellow", "green", "blue")] == [2, 1, 0]
    assert [opened(s, "p1d1", c) for c in ("yellow", "green", "blue")] == [1, 1, 1]


def test_8_1_3_three_way_tie_fills_all_three_houses():
    assert district_majority([2, 2, 2, 1]) == [1, 1, 1, 0]
    s = majority_in_engine({"yellow": 2, "green": 2, "blue": 2, "red": 1})
    assert [city(s, "p1d1", c) for c in P4] == [1, 1, 1, 0]
    assert sum(s.city[s.board.district_index["p1d1"]]) == 3


def test_8_1_4_two_way_tie_leaves_a_house_empty():
    assert district_majority([2, 1, 2, 0]) == [1, 0, 1, 0]
    s = majority_in_engine({"yellow": 2, "blue": 2, "green": 1})
    assert [city(s, "p1d1", c) for c in ("yellow", "blue", "green")] == [1, 1, 0]
    assert sum(s.city[s.board.district_index["p1d1"]]) == 2


def test_8_1_5_rule_text_cases():
    # sole first with only 1 family member moves 1
    assert district_majority([1, 0, 0, 0]) == [1, 0, 0, 0]
    # all four tied: nobody moves
    assert district_majority([2, 2, 2, 2]) == [0, 0, 0, 0]
    s = majority_in_engine({c: 1 for c in P4})
    assert sum(s.city[s.board.district_index["p1d1"]]) == 0
    # sole first and a tie for second: first moves 2, nobody else
    assert district_majority([3, 1, 1, 0]) == [2, 0, 0, 0]
    s = majority_in_engine({"yellow": 3, "green": 1, "blue": 1})
    assert [city(s, "p1d1", c) for c in ("yellow", "green", "blue")] == [2, 0, 0]


# -- 8.2 derived checks -------------------------------------------------------------------------------

def test_d1_red_4_blue_1():
    s = majority_in_engine({"red": 4, "blue": 1})
    assert (city(s, "p1d1", "red"), city(s, "p1d1", "blue")) == (2, 1)
    assert (tiles(s, "red", "p1"), tiles(s, "blue", "p1")) == (2, 1)


def test_d2_red_3_blue_1_green_1():
    s = majority_in_engine({"red": 3, "blue": 1, "green": 1})
    assert [city(s, "p1d1", c) for c in ("red", "blue", "green")] == [2, 0, 0]


def test_d3_red_alone_with_one():
    s = majority_in_engine({"red": 1})
    assert city(s, "p1d1", "red") == 1


def test_d4_all_four_tied_on_two():
    s = majority_in_engine({c: 2 for c in P4})
    assert sum(s.city[s.board.district_index["p1d1"]]) == 0
    assert all(tiles(s, c, "p1") == 0 for c in P4)


def test_d5_cloister_piece_is_ignored():
    state = position(round=2, open={"p1d1": {"red": 3}}, cloister={"p1d1": "blue"})
    s = score_now(state)
    assert (city(s, "p1d1", "red"), city(s, "p1d1", "blue")) == (2, 0)
    assert s.cloister[s.board.district_index["p1d1"]] == 2  # blue stays in the cloister


def test_d6_round_4_bonus_by_largest_area():
    state = position(round=4, open={"p1d1": {"red": 3, "blue": 1}, "p1d2": {"red": 1, "blue": 1}, "p1d3": {"blue": 1}})
    s = score_now(state)
    assert (city(s, "p1d1", "red"), city(s, "p1d2", "red")) == (2, 1)
    assert [city(s, d, "blue") for d in ("p1d1", "p1d2", "p1d3")] == [1, 1, 1]
    s = commit_all(s)
    assert category(s, "red", "city") == 9 and category(s, "red", "city_bonus") == 4
    assert category(s, "blue", "city") == 9 and category(s, "blue", "city_bonus") == 0
    assert sum(s.points[s.players.index("red")]) == 13
    assert s.phase == PH_ROUND_END  # 4 players after round 4: a start-player choice follows


def test_d7_round_2_bonus_split():
    state = position(round=2, open={"p1d1": {"red": 1, "blue": 1}, "p1d2": {"red": 1, "blue": 1}})
    s = commit_all(score_now(state))
    for c in ("red", "blue"):
        assert category(s, c, "city") == 8 and category(s, c, "city_bonus") == 2
        assert sum(s.points[s.players.index(c)]) == 10


def test_d8_round_6_city_scores_only_the_bonus():
    state = position(round=6, open={"p1d1": {"red": 3, "blue": 1}, "p1d2": {"red": 1}})
    s = commit_all(score_now(state))
    assert s.phase == PH_OVER
    assert category(s, "red", "city") == 0 and category(s, "red", "city_bonus") == 4
    assert category(s, "blue", "city") == 0 and category(s, "blue", "city_bonus") == 0


def test_d9_three_way_tie_splits_rounding_down():
    assert city_bonus([1, 1, 1, 0], [1, 1, 1, 0]) == [1, 1, 1, 0]
    state = position(round=2, open={"p1d1": {"red": 1, "blue": 1, "green": 1}})
    s = commit_all(score_now(state))
    assert [category(s, c, "city_bonus") for c in ("red", "blue", "green", "yellow")] == [1, 1, 1, 0]


def test_d10_set_of_six_during_round_4():
    state = position(round=4, open={"p1d1": {"red": 1}}, tiles={"red": {p: 1 for p in ("p2", "p3", "p4", "p5", "p6")}})
    s = score_now(state)
    assert category(s, "red", "sets6") == 24
    assert sum(s.tiles[s.players.index("red")]) == 0
    assert s.tile_supply == (18,) * 6


def test_d11_end_six_set_then_one_tile_left():
    # red holds a,a,b,c,d,e and gains f in the round-6 scoring
    state = position(round=6, open={"p6d1": {"red": 1}}, tiles={"red": {"p1": 2, "p2": 1, "p3": 1, "p4": 1, "p5": 1}})
    s = commit_all(score_now(state))
    assert s.phase == PH_OVER
    assert category(s, "red", "sets6") == 20
    assert category(s, "red", "sets5") == 0 and category(s, "red", "tiles") == 1
    assert category(s, "red", "city_bonus") == 4  # red alone in the p6 city


def test_d12_end_five_set_then_two_tiles():
    assert final_tile_points([3, 1, 1, 1, 1, 0]) == (1, 10, 2)
    state = position(round=6, tiles={"red": {"p1": 3, "p2": 1, "p3": 1, "p4": 1, "p5": 1}})
    s = score_now(state)
    assert s.phase == PH_OVER
    assert category(s, "red", "sets5") == 10 and category(s, "red", "tiles") == 2
    assert sum(s.points[s.players.index("red")]) == 12


def test_d13_two_monks_in_round_4():
    state = position(round=4, cloister={"p1d1": "red", "p4d2": "red"})
    s = score_now(state)
    assert category(s, "red", "cloisters") == 8


@pytest.mark.parametrize("variant, red_bonus", [((), 0), (("bonus_ignores_neutral",), 4)])
def test_d14_two_player_neutral_trimmed_to_smallest_sole_majority(variant, red_bonus):
    state = position(("red", "blue"), round=2, variants=variant,
                     open={"p1d1": {"neutral": 3, "red": 1}, "p1d2": {"neutral": 2, "blue": 1}, "p1d3": {"red": 1}})
    s = score_now(state)
    assert [city(s, d, "neutral") for d in ("p1d1", "p1d2")] == [2, 2]
    s = commit_all(s)
    info = GAME.turn(s)
    assert info.awaiting == "send_back" and info.active == ("red",)  # the start player chooses
    s = GAME.apply(s, SendBack("red", ("p1d2",), "neutral"))
    assert opened(s, "p1d2", "neutral") == 1  # 2 - 2 to the city + 1 back
    assert category(s, "red", "city") == 8 and category(s, "blue", "city") == 4
    assert category(s, "red", "city_bonus") == red_bonus and category(s, "blue", "city_bonus") == 0
    assert s.boxed[s.neutral] == 3  # the 3 neutral left in the city go to the box


def test_d15_move_cost_with_a_dragon():
    # p1d1 -horse- p1d2 -junk- p1d3 on the provisional board
    state = position(princes={"yellow": "p1d1", "green": "p6d3"}, hands={"yellow": ["horse", "dragon", "rickshaw"]})
    legal = MovePrince("yellow", ("p1d2", "p1d3"), ("horse", "dragon"))
    assert GAME.violations(state, legal) == ()
    after = GAME.apply(state, legal)
    hand = after.hands[0]
    assert hand.total == 1 and hand.lb[after.board.kind_index("rickshaw")] == 1
    bad = GAME.violations(state, MovePrince("yellow", ("p1d2", "p1d3"), ("horse", "rickshaw")))
    assert [v.rule for v in bad] == ["cards.wrong_symbol"]
    bad = GAME.violations(state, MovePrince("yellow", ("p1d2", "p1d3"), ("rickshaw", "dragon")))
    assert [v.rule for v in bad] == ["cards.wrong_symbol"]

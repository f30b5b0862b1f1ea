"""Every worked example of rules/china.md section 5 (seed examples 1-8) and derived cases D1-D4."""

from __future__ import annotations

from dataclasses import replace

import pytest

from scorer.core.types import IllegalMove
from scorer.games.china import GAME, Place, Placement
from scorer.games.china import scoring
from scorer.games.china.engine import final_scoring


def rules_broken(state, move) -> set[str]:
    return {v.rule for v in GAME.violations(state, move)}


H, E, F = "house", "emissary", "fortress"


def place(player, *pieces, cards=None):
    return Place(player, tuple(Placement(k, s) for k, s in pieces), tuple(cards) if cards else None)


# Ex 1a -- Zhang San (blue) holds violet, red, red; Wei (red) is empty.
def test_ex1a_empty_province_allows_one_piece(make_position):
    s = make_position(active="blue")
    assert rules_broken(s, place("blue", (H, "wei-1"), cards=["red"])) == set()
    broken = rules_broken(s, place("blue", (H, "wei-1"), (H, "wei-2"), cards=["red", "red"]))
    assert broken == {"place.empty_province_one_piece"}
    with pytest.raises(IllegalMove) as err:
        GAME.apply(s, place("blue", (H, "wei-1"), (H, "wei-2"), cards=["red", "red"]))
    v = err.value.violations[0]
    assert v.spaces == ("wei-2",) and "wei-2" in v.fix.en and "拿走" in v.fix.zh


# Ex 1b -- Li Si (green) plays red + green/green wild pair: 2 pieces into Wei, which holds a piece.
def test_ex1b_single_plus_wild_pair(make_position):
    s = make_position(houses={"wei-1": "blue"}, active="green")
    move = place("green", (H, "wei-2"), (H, "wei-3"), cards=["red", "green", "green"])
    assert rules_broken(s, move) == set()
    after = GAME.apply(s, move)
    assert after.houses_in(after.board.province_index["wei"]) == [1, 2, 0, 0]


# Ex 1c -- Wang Wu (red) holds yellow x3; Qi already has a piece.
def test_ex1c_at_most_two_pieces_and_no_own_colour_wild_pair(make_position):
    s = make_position(houses={"qi-1": "blue"}, active="red")
    assert rules_broken(s, place("red", (H, "qi-2"), (H, "qi-3"), cards=["yellow", "yellow"])) == set()
    assert "place.max_two_pieces" in rules_broken(s, place("red", (H, "qi-2"), (H, "qi-3"), (H, "qi-4"), cards=["yellow"] * 3))
    # a yellow wild pair into yellow Qi: illegal (ambiguity 6)
    assert rules_broken(s, place("red", (H, "qi-2"), cards=["yellow", "yellow"])) == {"cards.payment"}
    # Qin is empty: only 1 piece there
    assert "place.empty_province_one_piece" in rules_broken(s, place("red", (H, "qin-1"), (H, "qin-2"), cards=["yellow", "yellow"]))
    # a yellow wild pair for 1 piece in a non-yellow province is legal
    assert rules_broken(s, place("red", (H, "wei-1"), cards=["yellow", "yellow"])) == set()


# Inline example -- Zhao: red 3 houses, yellow 2: emissary capacity 3.
def test_inline_emissary_capacity(make_position):
    houses = {"zhao-1": "red", "zhao-2": "red", "zhao-3": "red", "zhao-4": "yellow", "zhao-5": "yellow"}
    s = make_position(houses=houses, emissaries={"zhao": {"blue": 2}}, active="green")
    assert rules_broken(s, place("green", (E, "zhao-dragon"), cards=["orange"])) == set()
    assert rules_broken(s, place("green", (E, "zhao-dragon"), (E, "zhao-dragon"), cards=["orange", "orange"])) == {"emissary.cap"}


# Ex 2 -- Chu: Li Si (green) 4 houses, 2 emissaries there; Zhang San (blue) places 2 emissaries.
def test_ex2_emissaries_without_houses(make_position):
    houses = {f"chu-{i}": "green" for i in range(1, 5)}
    s = make_position(houses=houses, emissaries={"chu": {"red": 2}}, active="blue")
    move = place("blue", (E, "chu-dragon"), (E, "chu-dragon"), cards=["violet", "orange", "orange"])
    assert rules_broken(s, move) == set()
    after = GAME.apply(s, move)
    chu = after.board.province_index["chu"]
    assert sum(after.emissaries[chu]) == 4
    # a 5th emissary is illegal until someone has 5 houses there
    after = replace(after, active=1)  # green to play
    assert rules_broken(after, place("green", (E, "chu-dragon"), cards=["violet"])) == {"emissary.cap"}
    assert rules_broken(after, place("green", (H, "chu-5"), (E, "chu-dragon"), cards=["violet", "violet"])) == set()


# Ex 3 -- Qin: Li Si 2, Zhao Liu 2 houses, no emissaries: capacity 2.
def test_ex3_tied_house_leaders(make_position):
    houses = {"qin-1": "green", "qin-2": "green", "qin-3": "yellow", "qin-4": "yellow"}
    s = make_position(houses=houses, active="blue")
    for pieces in [((E, "qin-dragon"), (E, "qin-dragon")), ((H, "qin-5"), (H, "qin-6")), ((H, "qin-5"), (E, "qin-dragon"))]:
        assert rules_broken(s, place("blue", *pieces, cards=["yellow", "yellow"])) == set()


# Ex 4 and 5 -- house scoring
def test_ex4_house_scoring():
    assert scoring.house_points([4, 2, 1]) == [7, 4, 2]


def test_ex5_tie_for_first():
    assert scoring.house_points([2, 2, 1]) == [5, 5, 2]


def test_ex4_through_the_engine(make_position, custom_board):
    def seven_sites_in_wei(doc):
        wei = next(p for p in doc["provinces"] if p["id"] == "wei")
        wei["sites"].append("wei-7")
        doc["roads"].append(["wei-6", "wei-7"])

    board = custom_board(seven_sites_in_wei)
    houses = {"wei-1": "green", "wei-2": "green", "wei-3": "green", "wei-4": "red", "wei-5": "red", "wei-6": "blue"}
    s = make_position(players=("green", "red", "blue", "yellow"), houses=houses, active="green", board=board)
    after = GAME.apply(s, place("green", (H, "wei-7"), cards=["red"]))
    assert [p[0] for p in after.points] == [7, 4, 2, 0]
    assert after.scored[after.board.province_index["wei"]]
    assert after.effects[0].kind == "province_scored"
    # a scored province is never house-scored again
    assert final_scoring(after)["provinces"] == [0, 0, 0, 0]


# Ex 6a and 6b -- alliances 3 (Wei-Qin) and 4 (Qin-Shu)
def test_ex6_alliances(make_position):
    s = make_position(
        players=("yellow", "green", "red", "blue", "violet"),
        emissaries={"wei": {"blue": 1, "red": 1}, "qin": {"blue": 2, "red": 1, "green": 1}, "shu": {"violet": 2, "blue": 1}},
    )
    board = s.board
    only_3_and_4 = [a for a in board.alliances if a[0] in (3, 4)]
    points = scoring.alliance_points(only_3_and_4, s.emissaries, 5)
    assert points == [0, 0, 0, 6, 0]  # blue 2 (Wei) + 4 (Qin) for alliance 3; nobody for 4


# Ex 7 -- a run of 5 across Qin and Shu plus a branch house: 5 points.
def test_ex7_road_with_branch():
    # sites 0..4 in a line, site 5 joined to site 1 (a branch)
    nbrs = [[1], [0, 2, 5], [1, 3], [2, 4], [3], [1]]
    assert scoring.road_points([0, 1, 2, 3, 4, 5], nbrs).points == 5


def test_ex7_on_the_board(make_position):
    # provisional board: qin-1..qin-6 form a chain with qin-7 branching off qin-3; qin-6 -- shu-1.
    houses = {f"qin-{i}": "blue" for i in (3, 4, 5, 6)} | {"shu-1": "blue", "qin-7": "blue"}
    s = make_position(houses=houses)
    assert final_scoring(s)["roads"][0] == 5


# Ex 8 -- fortress then house on it in Qi (which already holds a piece): legal, turn over.
def test_ex8_fortress(make_position):
    s = make_position(houses={"qi-1": "red"}, active="blue", variants=("fortress",))
    move = place("blue", (F, "qi-2"), (H, "qi-2"), cards=["yellow", "yellow"])
    assert rules_broken(s, move) == set()
    after = GAME.apply(s, move)
    assert after.active == 1 and after.fortresses_left[0] == 0
    # derived follow-up: rank 1 with T = 6 scores 12
    assert scoring.province_points([4, 2], [True, False]) == [12, 4]


def test_ex8_fortress_in_an_empty_province_needs_the_option(make_position):
    s = make_position(active="blue", variants=("fortress",))
    move = place("blue", (F, "qi-2"), (H, "qi-2"), cards=["yellow", "yellow"])
    assert rules_broken(s, move) == {"place.empty_province_one_piece"}
    s2 = make_position(active="blue", variants=("fortress", "fortress_house_in_empty"))
    assert rules_broken(s2, move) == set()


def test_fortress_needs_the_variant(make_position):
    s = make_position(houses={"qi-1": "red"}, active="blue")
    assert "fortress.not_in_play" in rules_broken(s, place("blue", (F, "qi-2"), cards=["yellow"]))


def test_bare_fortress_does_not_fill_a_province(make_position):
    s = make_position(houses={"lu-1": "red", "lu-2": "red", "lu-3": "green"}, fortresses=("lu-4",), active="blue", variants=("fortress",))
    assert not s.province_full(s.board.province_index["lu"])
    after = GAME.apply(s, place("blue", (H, "lu-4"), cards=["orange"]))
    lu = after.board.province_index["lu"]
    assert after.scored[lu]
    # blue's house on the fortress doubles blue's points: counts red 2, green 1, blue 1 -> blue 2*2
    assert [p[0] for p in after.points] == [4, 2, 4, 0]


# D1 -- 5 sites A2 B2 C1 -> 5,5,2; fortress under one of A's houses -> A 10
def test_d1():
    assert scoring.house_points([2, 2, 1]) == [5, 5, 2]
    assert scoring.province_points([2, 2, 1], [True, False, False]) == [10, 5, 2]


# D2 -- both provinces tied
def test_d2_alliance_ties():
    em = [[2, 2, 0], [1, 1, 1]]
    assert scoring.alliance_points([(1, 0, 1)], em, 3) == [7, 7, 0]


# D3 -- one province without emissaries: no score
def test_d3_alliance_empty_province():
    assert scoring.alliance_points([(1, 0, 1)], [[1, 0], [0, 0]], 2) == [0, 0]


# D4 -- path s1..s6 plus s7 joined to s3: 6 points
def test_d4_longest_run():
    nbrs = [[1], [0, 2], [1, 3, 6], [2, 4], [3, 5], [4], [2]]
    res = scoring.road_points(list(range(7)), nbrs)
    assert res.points == 6 and not res.split_disputed


def test_road_doubling_with_fortress():
    nbrs = [[1], [0, 2], [1, 3], [2]]
    assert scoring.road_points([0, 1, 2, 3], nbrs, [False, True, False, False]).points == 8
    assert scoring.road_points([0, 1, 2, 3], nbrs, [True, True, False, False]).points == 8  # doubled once


def test_road_split_dispute_is_reported():
    # a 'comb': greedy takes the long spine, an exhaustive split scores more with two runs
    # spine 0-1-2-3-4-5-6 ; teeth: 1-7-8-9 and 5-10-11-12
    edges = [(0, 1), (1, 2), (2, 3), (3, 4), (4, 5), (5, 6), (1, 7), (7, 8), (8, 9), (5, 10), (10, 11), (11, 12)]
    nbrs = [[] for _ in range(13)]
    for a, b in edges:
        nbrs[a].append(b)
        nbrs[b].append(a)
    res = scoring.road_points(list(range(13)), nbrs)
    assert res.compared and res.exhaustive_points >= res.points
    # the longest run is 9-8-7-1-2-3-4-5-10-11-12 (11 houses); the rest (0, 6) cannot score
    assert res.points == 11

"""The worked examples of rules/zhang-yi.md section 14 (E1-E7), played through the engine."""

from __future__ import annotations

import pytest
from zhang_yi_helpers import chit, make_map, new_game, owner, play, rules_of, strength, talents, where

from scorer.core.results import Termination
from scorer.games.zhang_yi import GAME, DrawChit, DrawTalent, Hold, March, NotBacked, PlaceTalent, Recruit, Retreat, RevealDestiny, RollDie
from scorer.games.zhang_yi.data import STATES, TALENT_IDS, TALENT_KIND
from scorer.games.zhang_yi.state import A_CHECK, A_DIE, A_MOVE, A_RECRUIT, A_RETREAT, A_REVEAL, A_TALENT_DRAW


# -- E1 recruitment ----------------------------------------------------------------------------

def _qin_map(cities: int, plains: int):
    areas = [(f"c{i}", True, "qin", 2) for i in range(cities)] + [(f"p{i}", False, "qin", 2) for i in range(plains)]
    ids = [a[0] for a in areas]
    return make_map(areas, [(a, b, "open") for a, b in zip(ids, ids[1:])])


@pytest.mark.parametrize(
    "cities, plains, ministers, due",
    [
        (1, 2, 0, 2),  # power 4 -> ceil(4/3) = 2
        (1, 2, 1, 3),  # one minister on the map
        (1, 2, 2, 4),  # two ministers
        (0, 3, 0, 1),  # three plains: power 3 -> 1
        (2, 1, 0, 2),  # two cities + one plain: power 5 -> 2
        (2, 3, 0, 3),  # two cities + three plains: power 7 -> 3
    ],
)
def test_e1_recruitment(cities, plains, ministers, due):
    gmap = _qin_map(cities, plains)
    st = new_game(gmap)
    first_area = gmap.areas[0].id
    draws = [("shang_yang", first_area), ("li_si", first_area)][:ministers]
    draws += [("han_fei", "home_han"), ("guo_wei", "home_yan")][: 2 - ministers]
    st = talents(st, *draws)
    st = chit(st, "qin")
    assert st.awaiting == A_RECRUIT and st.recruit_due == due
    assert st.power(0) == 2 * cities + plains
    # the exact total is compulsory, split as the player likes (A7)
    assert rules_of(st, Recruit("red", ((first_area, due + 1),))) == ["recruit.total"]
    if due > 1:
        assert rules_of(st, Recruit("red", ((first_area, due - 1),))) == ["recruit.total"]
        split = ((gmap.areas[0].id, 1), (gmap.areas[cities + plains - 1].id, due - 1))
        assert rules_of(st, Recruit("red", split)) == []
    assert rules_of(st, Recruit("red", (("home_han", due),))) == ["recruit.own_territory"]
    st = play(st, Recruit("red", ((first_area, due),)))
    assert strength(st, first_area) == 2 + due and st.awaiting == A_MOVE


# -- E2 attrition ----------------------------------------------------------------------------------

def _e2_map():
    return make_map(
        [("o", False, "qin", 9), ("r", False, None, 0), ("o2", False, "qin", 1), ("m", False, "wei", 3),
         ("o5", False, "qin", 4), ("n", False, None, 0)],
        [("o", "r", "river"), ("o2", "m", "mountain"), ("o5", "n", "open"), ("o", "o2", "open"), ("o2", "o5", "open")],
    )


def _e2_start(recruit_into: str):
    st = new_game(_e2_map())
    st = talents(st, ("bai_qi", "o2"), ("han_fei", "home_han"))
    st = chit(st, "qin")
    assert st.recruit_due == 1  # power 3 -> 1
    return play(st, Recruit("red", ((recruit_into, 1),)))


def test_e2_river_crossing_loses_one():
    st = _e2_start("o")  # o: 9 + 1 = 10
    st = play(st, March("red", "o", "r", 9))
    assert strength(st, "o") == 1 and strength(st, "r") == 8 and owner(st, "r") == "qin"


def test_e2_single_strength_across_mountain_is_destroyed_with_its_general():
    st = _e2_start("o2")  # o2: 1 + 1 = 2, with Bai Qi
    st = play(st, March("red", "o2", "m", 1, ("bai_qi",)))
    assert strength(st, "o2") == 1 and strength(st, "m") == 3 and owner(st, "m") == "wei"
    assert where(st, "bai_qi") == "graveyard"
    assert st.awaiting != A_DIE  # no battle
    assert any(e.kind == "attrition_destroyed" for e in st.effects)


def test_e2_strength_one_cannot_move():
    st = _e2_start("o")
    assert strength(st, "o2") == 1
    assert rules_of(st, March("red", "o2", "m", 1)) == ["march.leave_one"]
    assert not any(isinstance(m, March) and m.origin == "o2" for m in GAME.legal_moves(st))


def test_e2_open_border_into_neutral():
    st = _e2_start("o5")  # o5: 4 + 1 = 5
    st = play(st, March("red", "o5", "n", 4))
    assert strength(st, "n") == 4 and owner(st, "n") == "qin" and strength(st, "o5") == 1


# -- E3 battle, attacker wins / tie ---------------------------------------------------------------

def _e3(bonus: int, variants=()):
    gmap = make_map(
        [("o", False, "qin", 6), ("e", False, "han", 4), ("x", False, None, 0), ("h2", False, "han", 1)],
        [("o", "e", "river"), ("e", "x", "open"), ("e", "h2", "open"), ("o", "x", "open")],
        bonus={"bai_qi": bonus},
    )
    st = new_game(gmap, variants=variants)
    st = talents(st, ("bai_qi", "o"), ("han_fei", "e"))
    st = chit(st, "qin")
    st = play(st, Recruit("red", (("o", 1),)), March("red", "o", "e", 6, ("bai_qi",)))
    assert st.awaiting == A_DIE and st.battle is not None and st.battle.attacker == 5
    return play(st, RollDie("red", 2))


def test_e3_attacker_wins_with_general_bonus_2():
    st = _e3(2)  # 3 + 2 = 5 > 4
    assert st.awaiting == A_RETREAT and st.actors == (1,)  # the non-acting player chooses (A2)
    assert {st.map.areas[i].id for i in st.retreat.options} == {"x", "h2"}
    assert owner(st, "e") == "qin" and strength(st, "e") == 3 and where(st, "bai_qi") == "e"
    assert where(st, "han_fei") == "graveyard"  # talents cannot retreat
    assert rules_of(st, Retreat("blue", "o")) == ["retreat.area"]
    st = play(st, Retreat("blue", "x"))
    assert owner(st, "x") == "han" and strength(st, "x") == 4  # all 4 together


def test_e3_tie_defender_wins_and_attacker_general_dies():
    st = _e3(1)  # 3 + 1 = 4 vs 4: tie -> defender (A1)
    assert owner(st, "e") == "han" and strength(st, "e") == 4 and where(st, "han_fei") == "e"
    assert where(st, "bai_qi") == "graveyard"
    assert st.awaiting == A_RETREAT and {st.map.areas[i].id for i in st.retreat.options} == {"o", "x"}
    st = play(st, Retreat("blue", "o"))  # back to the origin, free of attrition across the river
    assert strength(st, "o") == 1 + 3


def test_e3_tie_with_option_attacker_wins():
    st = _e3(1, variants=("tie_attacker_wins",))
    assert owner(st, "e") == "qin" and where(st, "bai_qi") == "e"


# -- E4 battles decided by the die --------------------------------------------------------------

def _e4(att_after_recruit: int, def_strength: int, defender_only_area: bool = True):
    areas = [("o", False, "qin", att_after_recruit), ("e", False, "han", def_strength)]
    borders = [("o", "e", "open")]
    if not defender_only_area:
        areas.append(("h2", False, "han", 1))
        borders.append(("e", "h2", "open"))
    st = new_game(make_map(areas, borders))
    st = talents(st, ("bai_qi", "o"), ("guo_wei", "home_yan"))
    st = chit(st, "qin")
    return play(st, Recruit("red", (("o", 1),)))


def test_e4_defender_wiped_by_six_last_area_backer_loses():
    st = _e4(3, 1)  # o: 4 -> move 3
    st = play(st, March("red", "o", "e", 3, ("bai_qi",)), RollDie("red", 6))
    assert owner(st, "e") == "qin" and strength(st, "e") == 3 and where(st, "bai_qi") == "e"
    assert not st.alive[STATES.index("han")]
    assert st.awaiting == A_CHECK
    st = play(st, RevealDestiny("blue", "han"))
    out = GAME.outcome(st)
    assert out is not None and out.termination is Termination.ANNIHILATION and out.winners == ("red",)


def test_e4_defender_wiped_nobody_backs_it_game_goes_on():
    st = _e4(3, 1)
    st = play(st, March("red", "o", "e", 3), RollDie("red", 6))
    assert rules_of(st, NotBacked("qin")) == ["destiny.check_state"]
    st = play(st, NotBacked("han"))
    assert GAME.outcome(st) is None and st.awaiting == "action_chit" and st.actors == (1,)
    # a player cannot later claim the annihilated state's chit
    assert STATES.index("han") in st.not_backed


def test_e4_attacker_wiped_by_two():
    st = _e4(2, 5, defender_only_area=False)  # o: 3 -> move 2
    st = play(st, March("red", "o", "e", 2, ("bai_qi",)), RollDie("red", 2))
    assert owner(st, "e") == "han" and strength(st, "e") == 5
    assert where(st, "bai_qi") == "graveyard" and strength(st, "o") == 1
    assert st.awaiting == "action_chit"  # no retreat: nothing is left


# -- E5 hegemony ------------------------------------------------------------------------------------

def _e5(variants=()):
    ids = ["q1", "q2", "q3", "q4", "q5"]
    gmap = make_map([(i, False, "qin", 2) for i in ids] + [("n", False, None, 0)],
                    [(a, b, "open") for a, b in zip(ids, ids[1:])] + [("q1", "n", "open")])
    st = new_game(gmap, variants=variants)
    st = talents(st, ("han_fei", "home_han"), ("guo_wei", "home_yan"))
    st = chit(st, "qin")
    return play(st, Recruit("red", (("q1", 2),)), March("red", "q1", "n", 3))


def test_e5_hegemony_backer_wins():
    st = _e5()
    assert st.ending is Termination.HEGEMONY and st.awaiting == A_REVEAL
    assert GAME.outcome(st) is None  # the winner waits for the destiny chits
    st = play(st, RevealDestiny("blue", "chu"), RevealDestiny("red", "qin"))
    out = GAME.outcome(st)
    assert out.termination is Termination.HEGEMONY and out.winners == ("red",)
    board = GAME.score(st)
    assert board.of("red").total == 1 and board.of("red").category("backed_areas") == 6


def test_e5_hegemony_nobody_backs_it_everybody_loses():
    st = play(_e5(), RevealDestiny("red", "chu"), RevealDestiny("blue", "wei"))
    out = GAME.outcome(st)
    assert out.winners == () and st.verdict == "all_lose"
    assert rules_of(_e5(), RevealDestiny("red", "qin")) == []


def test_e5_two_players_cannot_reveal_the_same_chit():
    st = play(_e5(), RevealDestiny("red", "qin"))
    assert rules_of(st, RevealDestiny("blue", "qin")) == ["destiny.taken"]


def test_e5_hegemony_after_battle_only_option():
    st = _e5(variants=("hegemony_after_battle_only",))
    assert st.ending is None and st.awaiting == "action_chit"


def test_hegemony_by_four_cities():
    ids = ["c1", "c2", "c3"]
    gmap = make_map([(i, True, "qin", 2) for i in ids] + [("c4", True, None, 0)],
                    [(a, b, "open") for a, b in zip(ids, ids[1:])] + [("c3", "c4", "open")])
    st = new_game(gmap)
    st = talents(st, ("han_fei", "home_han"), ("guo_wei", "home_yan"))
    st = chit(st, "qin")
    st = play(st, Recruit("red", (("c3", 2),)), March("red", "c3", "c4", 1))
    assert st.ending is Termination.HEGEMONY and st.city_count(0) == 4 and st.area_count(0) == 4


# -- E6 game length, E7 activations ------------------------------------------------------------------

def _hold_everything(st, draws: list[str], chits: dict[str, list[str]] | None = None, stop=None):
    """Play Hold-only until ``stop(st)``; talents drawn in ``draws`` order (placed in the first legal
    area), chits in the fixed state order; returns (state, actions per player per turn)."""
    actions: dict[tuple[int, str], int] = {}
    draws = list(draws)
    while st.awaiting not in (A_REVEAL, "none") and not (stop and stop(st)):
        p = st.players[st.actors[0]]
        a = st.awaiting
        if a == A_TALENT_DRAW:
            st = play(st, DrawTalent(p, draws.pop(0)))
        elif a == "talent_placement":
            st = play(st, next(m for m in GAME.legal_moves(st) if isinstance(m, PlaceTalent)))
        elif a == "action_chit":
            s = next(STATES[c] for c in range(7) if c in st.cup and st.alive[c])
            actions[(st.turn, p)] = actions.get((st.turn, p), 0) + 1
            st = play(st, DrawChit(p, s))
        elif a == A_RECRUIT:
            area = st.map.areas[st.areas_of(st.active_state)[0]].id
            st = play(st, Recruit(p, ((area, st.recruit_due),)))
        elif a == A_MOVE:
            st = play(st, Hold(p))
        else:
            raise AssertionError(a)
    return st, actions


POOL_ORDER = [t for t in TALENT_IDS if TALENT_KIND[t] != "notable" and t != "jing_ke"]  # 12 talents


def test_e6_pool_runs_out_in_turn_7_and_e7_activations():
    gmap = make_map([("a", False, "qin", 1)], [])
    st = new_game(gmap)
    draws = POOL_ORDER + ["mengchang_jun", "lin_xiangru"]  # 14 draws
    st, actions = _hold_everything(st, draws)
    assert st.turn == 7 and st.pool_left == 0 and st.ending is Termination.TIME and st.awaiting == A_REVEAL
    # E7: with 7 live states the first player acts 4 times, the other 3; the first player alternates
    assert actions[(1, "red")] == 4 and actions[(1, "blue")] == 3
    assert actions[(2, "blue")] == 4 and actions[(2, "red")] == 3
    assert actions[(7, "red")] == 4


def test_e6_thrown_away_talents_shorten_the_game_and_e7_with_one_state_gone():
    gmap = make_map([("o", False, "qin", 3), ("e", False, "yan", 1)], [("o", "e", "open")])
    st = new_game(gmap)
    st = talents(st, ("han_fei", "home_han"), ("li_si", "o"))
    st = chit(st, "qin")
    st = play(st, Recruit("red", (("o", 2),)), March("red", "o", "e", 4), RollDie("red", 6), NotBacked("yan"))
    assert not st.alive[STATES.index("yan")]
    # Yan's two talents are thrown away when drawn and the same player draws again (A14)
    rest = ["yue_yi", "bai_qi", "guo_wei", "wu_qi", "lian_po", "pang_juan", "tian_dan", "xiang_yan",
            "shang_yang", "sun_bin", "mengchang_jun", "lin_xiangru"]
    st, actions = _hold_everything(st, rest)
    assert st.ending is Termination.TIME and st.turn == 6
    assert actions[(2, "blue")] == 3 and actions[(2, "red")] == 3  # 6 live states: 3 and 3
    assert where(st, "yue_yi") == "graveyard" and where(st, "guo_wei") == "graveyard"


def test_e6_end_by_time_result():
    gmap = make_map([("a", True, "qin", 1), ("b", False, "chu", 1)], [])
    st, _ = _hold_everything(new_game(gmap), POOL_ORDER + ["mengchang_jun", "lin_xiangru"])
    # Qin power 2 (a city) is the unique top; the others have 1
    st = play(st, RevealDestiny("red", "qin"), RevealDestiny("blue", "chu"))
    out = GAME.outcome(st)
    assert out.termination is Termination.TIME and out.winners == ("red",)

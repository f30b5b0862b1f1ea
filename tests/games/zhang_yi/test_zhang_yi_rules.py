"""Zhang Yi rules beyond the worked examples: battle and recruitment tables, talents, ambiguity
options, the 3-player changes, seeded chance and the refusal of the sample/incomplete maps."""

from __future__ import annotations

import itertools

import pytest
from zhang_yi_helpers import chit, make_map, map_doc, new_game, owner, play, rules_of, strength, talents, where

from scorer.core.game import SetupOptions
from scorer.core.results import Termination
from scorer.core.types import InvalidRecord
from scorer.games.zhang_yi import (
    GAME,
    Assassinate,
    DrawChit,
    DrawTalent,
    Hold,
    KeepDestiny,
    March,
    NotBacked,
    PlaceTalent,
    Recruit,
    Retreat,
    RevealDestiny,
    RollDie,
)
from scorer.games.zhang_yi.data import STATES
from scorer.games.zhang_yi.engine import final_scoring
from scorer.games.zhang_yi.flow import recruit_formula
from scorer.games.zhang_yi.state import A_ASSASSIN, A_CHECK, A_DIE, A_RETREAT, A_TALENT_DRAW, evolve


# -- battle table ---------------------------------------------------------------------------------

def reference_battle(a: int, d: int, die: int, ab: int, db: int, tie_attacker: bool = False) -> tuple[str, int, int]:
    """Independent restatement of section 9: (winner, attacker left, defender left)."""
    loss_a = {1: 1, 2: 2}.get(die, 0)
    loss_d = 1 if die == 6 else 0
    a2, d2 = a - loss_a, d - loss_d
    if a2 <= 0:
        return "defender", 0, d2
    if d2 <= 0:
        return "attacker", a2, 0
    if a2 + ab > d2 + db or (a2 + ab == d2 + db and tie_attacker):
        return "attacker", a2, d2
    return "defender", a2, d2


@pytest.mark.parametrize("tie_attacker", [False, True])
@pytest.mark.parametrize("ab, db", [(0, 0), (2, 0), (0, 1), (3, 2)])
def test_battle_table(ab, db, tie_attacker):
    variants = ("tie_attacker_wins",) if tie_attacker else ()
    maps = {}
    for a, d, die in itertools.product((1, 2, 3, 5), (1, 2, 4), range(1, 7)):
        if (a, d) not in maps:
            maps[(a, d)] = make_map([("o", False, "qin", a), ("e", False, "wei", d), ("x", False, None, 0)],
                                    [("o", "e", "open"), ("e", "x", "open"), ("o", "x", "open")], bonus={"bai_qi": ab, "wu_qi": db})
        st = new_game(maps[(a, d)], variants=variants)
        st = talents(st, ("bai_qi", "o"), ("wu_qi", "e"))
        st = chit(st, "qin")
        st = play(st, Recruit("red", (("o", 1),)), March("red", "o", "e", a, ("bai_qi",)), RollDie("red", die))
        winner, a_left, d_left = reference_battle(a, d, die, ab, db, tie_attacker)
        case = (a, d, die, ab, db)
        if winner == "attacker":
            assert owner(st, "e") == "qin" and strength(st, "e") == a_left, case
            assert where(st, "bai_qi") == "e" and where(st, "wu_qi") == "graveyard", case
            if d_left > 0:
                assert st.awaiting == A_RETREAT and st.retreat.strength == d_left and st.actors == (1,), case
                st = play(st, Retreat("blue", "x"))
                assert owner(st, "x") == "wei" and strength(st, "x") == d_left, case
            else:  # wiped out in its only area: annihilated
                assert st.awaiting == A_CHECK, case
        else:
            assert owner(st, "e") == "wei" and strength(st, "e") == d_left, case
            assert where(st, "bai_qi") == "graveyard" and where(st, "wu_qi") == "e", case
            if a_left > 0:
                assert st.awaiting == A_RETREAT and st.retreat.strength == a_left, case
                st = play(st, Retreat("blue", "o"))
                assert strength(st, "o") == 1 + a_left, case
            else:
                assert st.awaiting == "action_chit" and strength(st, "o") == 1, case


def test_only_the_best_general_counts():
    gmap = make_map([("o", False, "wei", 3), ("e", False, "qin", 4), ("x", False, None, 0)],
                    [("o", "e", "open"), ("e", "x", "open")], bonus={"wu_qi": 2, "pang_juan": 1})
    st = new_game(gmap)
    st = talents(st, ("wu_qi", "o"), ("pang_juan", "o"))
    st = chit(st, "wei")
    st = play(st, Recruit("red", (("o", 1),)), March("red", "o", "e", 3, ("wu_qi", "pang_juan")), RollDie("red", 4))
    # 3 + 2 (best only, not 3) = 5 > 4
    assert owner(st, "e") == "wei"
    st2 = new_game(gmap)
    st2 = talents(st2, ("wu_qi", "o"), ("pang_juan", "o"))
    st2 = chit(st2, "wei")
    # a general that stays behind does not count (A16): 3 + 1 = 4 vs 4 -> defender
    st2 = play(st2, Recruit("red", (("o", 1),)), March("red", "o", "e", 3, ("pang_juan",)), RollDie("red", 4))
    assert owner(st2, "e") == "qin" and where(st2, "wu_qi") == "o"


def test_retreat_nowhere_destroys_and_annihilates():
    gmap = make_map([("o", False, "qin", 6), ("e", False, "han", 2)], [("o", "e", "open")])
    st = new_game(gmap)
    st = talents(st, ("bai_qi", "o"), ("guo_wei", "home_yan"))
    st = chit(st, "qin")
    st = play(st, Recruit("red", (("o", 1),)), March("red", "o", "e", 6), RollDie("red", 4))
    assert any(e.kind == "retreat_destroyed" for e in st.effects)
    assert not st.alive[STATES.index("han")] and st.awaiting == A_CHECK


# -- recruitment table ------------------------------------------------------------------------------

@pytest.mark.parametrize("power, ministers", [(p, m) for p in range(1, 13) for m in range(3)])
def test_recruitment_table(power, ministers):
    cities = power // 2 if power <= 8 else 4  # any mix of cities and plains with that power
    plains = power - 2 * cities
    gmap = make_map([(f"a{i}", i < cities, None, 0) for i in range(12)], [])
    st = new_game(gmap)
    owner_ = [-1 if o == 0 else o for o in st.owner]  # drop Qin's filler area
    for i in range(cities + plains):
        owner_[i] = 0
    strength_ = tuple(1 if o >= 0 else 0 for o in owner_)
    loc = list(st.talent_loc)
    for t in (8, 11)[:ministers]:  # shang_yang, li_si (Qin ministers) on the map
        loc[t] = 0
    st = evolve(st, owner=tuple(owner_), strength=strength_, talent_loc=tuple(loc))
    assert st.power(0) == power
    lookup = {1: 1, 2: 1, 3: 1, 4: 2, 5: 2, 6: 2, 7: 3, 8: 3, 9: 3, 10: 4, 11: 4, 12: 4}
    assert recruit_formula(st, 0) == lookup[power] + ministers


# -- talents ------------------------------------------------------------------------------------

def _notable_map(border: str = "river"):
    return make_map(
        [("o", False, "qin", 4), ("q1", False, "qi", 2), ("q2", False, "qi", 2), ("x", False, None, 0)],
        [("o", "q1", border), ("q1", "q2", "open"), ("q1", "x", "open"), ("o", "q2", border)],
    )


def _invade(variants=(), strength_moved=3, border="river"):
    st = new_game(_notable_map(border), variants=variants)
    st = talents(st, ("bai_qi", "o"), ("mengchang_jun", "q2"))
    st = chit(st, "qin")
    return play(st, Recruit("red", (("o", 1),)), March("red", "o", "q1", strength_moved, ("bai_qi",)))


def test_notable_repels_invasion_of_any_area_of_its_state():
    st = _invade()
    assert any(e.kind == "repulsed" for e in st.effects)
    assert where(st, "mengchang_jun") == "graveyard" and where(st, "bai_qi") == "o"
    assert strength(st, "o") == 5 and strength(st, "q1") == 2  # no attrition: as if not moved (A6)
    assert st.awaiting == "action_chit" and st.actors == (1,)


def test_notable_own_area_only_option():
    st = _invade(variants=("notable_own_area_only",))
    assert st.awaiting == A_DIE and where(st, "mengchang_jun") == "q2"


def test_notable_attrition_option():
    st = _invade(variants=("notable_attrition",))
    assert strength(st, "o") == 2 + 2 and where(st, "mengchang_jun") == "graveyard"


def test_notable_does_not_fire_when_attrition_destroys_the_mover():
    st = new_game(_notable_map())
    st = talents(st, ("han_fei", "home_han"), ("mengchang_jun", "q2"))
    st = chit(st, "qin")
    st = play(st, Recruit("red", (("o", 1),)), March("red", "o", "q1", 1))
    assert where(st, "mengchang_jun") == "q2" and strength(st, "o") == 4


def test_notable_fires_once_then_battles_happen():
    gmap = make_map(
        [("o", False, "qin", 4), ("q1", False, "qi", 2), ("q2", False, "qi", 2), ("w", False, "wei", 4)],
        [("o", "q1", "open"), ("q1", "q2", "open"), ("w", "q1", "open")],
    )
    st = new_game(gmap)
    st = talents(st, ("bai_qi", "o"), ("mengchang_jun", "q2"))
    st = play(st, DrawChit("red", "qin"), Recruit("red", (("o", 1),)), March("red", "o", "q1", 3))
    assert where(st, "mengchang_jun") == "graveyard" and st.awaiting == "action_chit"
    st = play(st, DrawChit("blue", "wei"), Recruit("blue", (("w", 1),)), March("blue", "w", "q1", 3))
    assert st.awaiting == A_DIE


def test_assassin_kills_a_talent_placed_this_phase():
    gmap = make_map([("o", False, "qin", 2)], [])
    st = new_game(gmap)
    st = play(st, DrawTalent("red", "jing_ke"))
    assert st.awaiting == A_TALENT_DRAW and st.actors == (1,)  # Jing Ke waits for the end of the phase
    st = talents(st, ("bai_qi", "o"))
    assert st.awaiting == A_ASSASSIN and st.actors == (0,)
    assert rules_of(st, Assassinate("red", "li_si")) == ["assassin.target"]
    st = play(st, Assassinate("red", "bai_qi"))
    assert where(st, "bai_qi") == "graveyard" and where(st, "jing_ke") == "graveyard"
    assert st.awaiting == "action_chit"


def test_assassin_spares_new_option_and_no_target():
    gmap = make_map([("o", False, "qin", 2)], [])
    st = new_game(gmap, variants=("assassin_spares_new",))
    st = play(st, DrawTalent("red", "jing_ke"))
    st = talents(st, ("bai_qi", "o"))
    # the only talent on the map was placed this phase: Jing Ke has no target
    assert st.awaiting == "action_chit" and where(st, "jing_ke") == "graveyard" and where(st, "bai_qi") == "o"


def test_assassin_with_no_talent_on_the_map():
    gmap = make_map([("o", False, "qin", 2)], [])
    st = evolve(new_game(gmap), pool_left=1)  # e.g. the last talent of the game, nobody on the map
    st = play(st, DrawTalent("red", "jing_ke"))
    assert st.awaiting == "action_chit" and where(st, "jing_ke") == "graveyard" and st.pool_emptied
    assert any(e.kind == "assassin_idle" for e in st.effects)


def test_talent_goes_into_its_own_states_territory():
    gmap = make_map([("o", False, "qin", 2)], [])
    st = play(new_game(gmap), DrawTalent("red", "wu_qi"))
    assert rules_of(st, PlaceTalent("red", "wu_qi", "o")) == ["talent.own_territory"]
    assert rules_of(st, PlaceTalent("red", "bai_qi", "o")) == ["talent.not_drawn"]
    assert rules_of(st, PlaceTalent("red", "wu_qi", "home_wei")) == []
    st = play(st, PlaceTalent("red", "wu_qi", "home_wei"))
    assert rules_of(st, DrawTalent("blue", "wu_qi")) == ["talent.not_in_pool"]


def test_dead_chit_is_discarded_and_redrawn_or_used_up():
    gmap = make_map([("o", False, "qin", 3), ("e", False, "yan", 1)], [("o", "e", "open")])
    for variants, next_actor in (((), 1), (("no_redraw_after_dead",), 0)):
        st = new_game(gmap, variants=variants)
        st = talents(st, ("han_fei", "home_han"), ("li_si", "o"))
        st = play(st, DrawChit("red", "qin"), Recruit("red", (("o", 2),)), March("red", "o", "e", 4), RollDie("red", 6), NotBacked("yan"))
        assert st.actors == (1,)
        st = play(st, DrawChit("blue", "yan"))  # Yan's chit is still in the cup this turn
        assert any(e.kind == "chit_discarded" for e in st.effects)
        assert st.awaiting == "action_chit" and st.actors == (next_actor,)
        assert rules_of(st, DrawChit(st.players[next_actor], "qin")) == ["chit.not_in_cup"]


def test_dead_talent_no_redraw_option():
    gmap = make_map([("o", False, "qin", 3), ("e", False, "yan", 1)], [("o", "e", "open")])
    st = new_game(gmap, variants=("no_redraw_after_dead",))
    st = talents(st, ("han_fei", "home_han"), ("li_si", "o"))
    st = play(st, DrawChit("red", "qin"), Recruit("red", (("o", 2),)), March("red", "o", "e", 4), RollDie("red", 6), NotBacked("yan"))
    while st.awaiting != A_TALENT_DRAW:
        p = st.players[st.actors[0]]
        if st.awaiting == "action_chit":
            st = play(st, DrawChit(p, next(STATES[c] for c in st.cup if st.alive[c])))
        elif st.awaiting == "recruitment":
            st = play(st, Recruit(p, ((st.map.areas[st.areas_of(st.active_state)[0]].id, st.recruit_due),)))
        else:
            st = play(st, Hold(p))
    st = play(st, DrawTalent("blue", "yue_yi"))
    assert where(st, "yue_yi") == "graveyard" and st.actors == (0,) and st.pool_left == 11


# -- turn order, wrong inputs ----------------------------------------------------------------------

def test_wrong_input_and_wrong_player():
    gmap = make_map([("o", False, "qin", 3)], [])
    st = new_game(gmap)
    assert rules_of(st, RollDie("red", 3)) == ["turn.wrong_input"]
    assert rules_of(st, DrawTalent("blue", "bai_qi")) == ["turn.not_your_turn"]
    assert rules_of(st, DrawTalent("green", "bai_qi")) == ["turn.unknown_player"]
    st = talents(st, ("han_fei", "home_han"), ("li_si", "o"))
    st = chit(st, "qin")
    assert rules_of(st, March("red", "o", "home_han", 1)) == ["turn.wrong_input"]  # recruit first
    st = play(st, Recruit("red", (("o", 2),)))
    assert rules_of(st, March("red", "home_han", "o", 1)) == ["march.own_area"]
    assert rules_of(st, March("red", "o", "home_han", 1)) == ["march.adjacent"]
    assert rules_of(st, March("red", "o", "nowhere", 1)) == ["area.unknown"]
    assert rules_of(st, March("red", "o", "o", 1)) == ["march.adjacent"]


def test_three_players_order_draws_and_retreat_chooser():
    # seating clockwise a, b, c; the second player sits on the first player's right = c
    gmap = make_map([("o", False, "qin", 5), ("e", False, "wei", 3), ("x", False, None, 0)],
                    [("o", "e", "open"), ("e", "x", "open")])
    st = new_game(gmap, players=("a", "b", "c"), first="a")
    assert st.order() == (0, 2, 1)
    st = talents(st, ("han_fei", "home_han"))
    assert st.actors == (2,)
    st = talents(st, ("guo_wei", "home_yan"))
    assert st.awaiting == "action_chit" and st.actors == (0,)  # the third player draws no talent
    st = play(st, DrawChit("a", "qin"), Recruit("a", (("o", 1),)), March("a", "o", "e", 5), RollDie("a", 4))
    assert st.awaiting == A_RETREAT and st.actors == (2,)  # the second player of the turn (10-5)
    st = play(st, Retreat("c", "x"))
    actors = []
    while st.awaiting != A_TALENT_DRAW:
        p = st.players[st.actors[0]]
        if st.awaiting == "action_chit":
            actors.append(p)
            st = play(st, DrawChit(p, next(STATES[c] for c in st.cup if st.alive[c])))
        elif st.awaiting == "recruitment":
            st = play(st, Recruit(p, ((st.map.areas[st.areas_of(st.active_state)[0]].id, st.recruit_due),)))
        else:
            st = play(st, Hold(p))
    assert actors == ["c", "b", "a", "c", "b", "a"]
    assert st.turn == 2 and st.first == 2  # first player passes to the right (A13)
    opt = new_game(gmap, players=("a", "b", "c"), first="a", variants=("first_player_passes_left", "retreat_by_next_player"))
    opt = talents(opt, ("han_fei", "home_han"), ("guo_wei", "home_yan"))
    opt = play(opt, DrawChit("a", "qin"), Recruit("a", (("o", 1),)), March("a", "o", "e", 5), RollDie("a", 4))
    assert opt.actors == (2,)  # the player after a in turn order is also c
    opt = play(opt, Retreat("c", "x"), DrawChit("c", "wei"), Recruit("c", (("x", 1),)), March("c", "x", "e", 3), RollDie("c", 2))
    assert opt.awaiting == A_RETREAT and opt.actors == (1,)  # after c comes b (default: still c)


def test_three_players_backed_state_annihilated_player_is_out():
    gmap = make_map([("o", False, "qin", 3), ("e", False, "yan", 1)], [("o", "e", "open")])
    st = new_game(gmap, players=("a", "b", "c"), first="a")
    st = talents(st, ("han_fei", "home_han"), ("li_si", "o"))
    st = play(st, DrawChit("a", "qin"), Recruit("a", (("o", 2),)), March("a", "o", "e", 4), RollDie("a", 6))
    assert st.awaiting == A_CHECK and st.actors == (0, 1, 2)
    st = play(st, RevealDestiny("b", "yan"))
    assert GAME.outcome(st) is None and st.out == (False, True, False)
    assert st.order() == (0, 2) and st.actors == (2,)
    assert rules_of(st, DrawChit("b", "chu")) == ["turn.not_your_turn"]


def _action(st, state_id, march=None, die=None):
    """One action of the strategic phase: draw ``state_id``'s chit, recruit everything into its first
    area, then march (and roll) or hold. Returns the state and the player who acted."""
    p = st.players[st.actors[0]]
    st = play(st, DrawChit(p, state_id))
    if st.awaiting == "recruitment":
        st = play(st, Recruit(p, ((st.map.areas[st.areas_of(st.active_state)[0]].id, st.recruit_due),)))
    if march is None:
        return play(st, Hold(p)), p
    st = play(st, March(p, *march))
    return (play(st, RollDie(p, die)) if die else st), p


def _green_red_blue():
    """Seating clockwise green, blue, red; green first: turn order green, red (his right), blue (10-1)."""
    gmap = make_map([("o", False, "qin", 5), ("e", False, "yan", 1)], [("o", "e", "open")])
    st = new_game(gmap, players=("green", "blue", "red"), first="green")
    assert [st.players[p] for p in st.order()] == ["green", "red", "blue"]
    return talents(st, ("han_fei", "home_han"), ("lian_po", "home_zhao"))


def test_three_players_next_action_after_a_player_goes_out_mid_round():
    """Issue 13: green's action wipes out red's state; the next action is blue's, not green's again.
    Players act one at a time in turn order, cycling; the order skips the out player (10-4, A20)."""
    st = _green_red_blue()
    actors = []
    for s in ("chu", "zhao", "wei"):
        st, p = _action(st, s)
        actors.append(p)
    st, p = _action(st, "qin", march=("o", "e", 5), die=6)  # green's second action takes Yan's last area
    actors.append(p)
    assert st.awaiting == A_CHECK
    st = play(st, RevealDestiny("red", "yan"))
    assert st.out == (False, False, True) and GAME.outcome(st) is None
    assert st.players[st.actors[0]] == "blue"
    for s in ("han", "qi"):
        st, p = _action(st, s)
        actors.append(p)
    assert actors == ["green", "red", "blue", "green", "blue", "green"]
    # Yan's chit is left in the cup: the phase is over. The first player passes to the right, past red.
    assert st.turn == 2 and st.players[st.first] == "blue"
    assert [st.players[p] for p in st.drawers] == ["blue", "green"]  # talent draws skip red too
    st = talents(st, ("li_si", "o"), ("shang_yang", "o"))
    turn2 = []
    for s in ("chu", "zhao", "wei", "han", "qi", "qin"):
        st, p = _action(st, s)
        turn2.append(p)
    assert turn2 == ["blue", "green"] * 3


def test_three_players_acting_player_goes_out_in_his_own_action():
    """Green draws Qin and wipes out Yan, the state green himself backs: green is out, and the
    action passes to the player after him, red."""
    st = _green_red_blue()
    st, p = _action(st, "qin", march=("o", "e", 5), die=6)
    st = play(st, RevealDestiny("green", "yan"))
    assert st.out == (True, False, False)
    actors = [p]
    for s in ("chu", "zhao", "wei", "han", "qi"):
        st, p = _action(st, s)
        actors.append(p)
    assert actors == ["green", "red", "blue", "red", "blue", "red"]


def test_annihilation_and_hegemony_in_one_battle_a10():
    ids = ["q1", "q2", "q3", "q4", "q5"]
    gmap = make_map([(i, False, "qin", 2) for i in ids] + [("e", False, "yan", 1)],
                    [(a, b, "open") for a, b in zip(ids, ids[1:])] + [("q1", "e", "open")])
    for variants in ((), ("annihilation_first",)):
        st = new_game(gmap, variants=variants)
        st = talents(st, ("han_fei", "home_han"), ("li_si", "q2"))
        st = chit(st, "qin")
        st = play(st, Recruit("red", (("q1", 3),)), March("red", "q1", "e", 4), RollDie("red", 6))
        if not variants:  # hegemony first: the game ends by hegemony; annihilation does not decide
            assert st.ending is Termination.HEGEMONY
            st = play(st, RevealDestiny("red", "chu"), RevealDestiny("blue", "yan"))
            assert st.verdict == "all_lose"
        else:
            assert st.awaiting == A_CHECK
            st = play(st, RevealDestiny("blue", "yan"))
            assert GAME.outcome(st).termination is Termination.ANNIHILATION and GAME.outcome(st).winners == ("red",)


def _hegemony_of_qin():
    """Qin marches into a neutral area and holds 6 areas: hegemony, the destiny chits are awaited."""
    ids = ["q1", "q2", "q3", "q4", "q5"]
    gmap = make_map([(i, False, "qin", 2) for i in ids] + [("n", False, None, 0)],
                    [(a, b, "open") for a, b in zip(ids, ids[1:])] + [("q1", "n", "open")])
    st = talents(new_game(gmap), ("han_fei", "home_han"), ("guo_wei", "home_yan"))
    st = play(chit(st, "qin"), Recruit("red", (("q1", 2),)), March("red", "q1", "n", 3))
    assert st.ending is Termination.HEGEMONY
    return st


def _agrees_with_outcome(st):
    fs = final_scoring(st)
    out = GAME.outcome(st)
    assert out is not None and fs["ending"] == out.termination.value
    assert fs["winners"] == out.winners and fs["verdict"] == st.verdict
    return fs


def test_final_scoring_reports_how_the_game_ended():
    """Issue 13: after a hegemony or an annihilation, final_scoring reports that ending's result,
    never the end-by-time verdict (which here would be a draw both times)."""
    nobody = play(_hegemony_of_qin(), RevealDestiny("red", "chu"), RevealDestiny("blue", "wei"))
    fs = _agrees_with_outcome(nobody)
    assert fs["verdict"] == "all_lose" and fs["winners"] == () and fs["winning_states"] == ("qin",)
    assert fs["powers"]["qin"] == 6
    backed = play(_hegemony_of_qin(), RevealDestiny("red", "chu"), RevealDestiny("blue", "qin"))
    assert _agrees_with_outcome(backed)["winners"] == ("blue",)
    pending = play(_hegemony_of_qin(), RevealDestiny("red", "chu"))  # blue's chit not shown yet
    assert final_scoring(pending)["ending"] == "hegemony" and final_scoring(pending)["winning_states"] == ("qin",)
    gmap = make_map([("o", False, "qin", 3), ("e", False, "yan", 1)], [("o", "e", "open")])
    st = talents(new_game(gmap), ("han_fei", "home_han"), ("li_si", "o"))
    st = play(st, DrawChit("red", "qin"), Recruit("red", (("o", 2),)), March("red", "o", "e", 4), RollDie("red", 6),
              RevealDestiny("blue", "yan"))
    fs = _agrees_with_outcome(st)
    assert fs["ending"] == "annihilation" and fs["winners"] == ("red",) and fs["verdict"] == "win"
    assert fs["winning_states"] == () and "yan" not in fs["powers"]
    running = talents(new_game(gmap), ("han_fei", "home_han"), ("li_si", "o"))
    assert final_scoring(running)["ending"] is None  # a running game: the end-by-time view so far


def test_destiny_contradiction_is_flagged():
    gmap = make_map([("o", False, "qin", 3), ("e", False, "yan", 1)], [("o", "e", "open")])
    st = new_game(gmap)
    st = talents(st, ("han_fei", "home_han"), ("li_si", "o"))
    st = play(st, DrawChit("red", "qin"), Recruit("red", (("o", 2),)), March("red", "o", "e", 4), RollDie("red", 6), NotBacked("yan"))
    from scorer.games.zhang_yi import flow

    end = flow.game_end(st, Termination.TIME, -1)
    assert rules_of(end, RevealDestiny("red", "yan")) == ["destiny.contradiction"]


# -- ambiguity options on attrition, recruitment, counters --------------------------------------------

def test_river_and_mountain_border_a8():
    gmap = make_map([("o", False, "qin", 4), ("n", False, None, 0)], [("o", "n", "river_mountain")])
    for variants, arrive in (((), 3), (("attrition_stacks",), 2)):
        st = new_game(gmap, variants=variants)
        st = talents(st, ("han_fei", "home_han"), ("guo_wei", "home_yan"))
        st = chit(st, "qin")
        st = play(st, Recruit("red", (("o", 1),)), March("red", "o", "n", 4))
        assert strength(st, "n") == arrive


def test_recruit_one_area_option_a7():
    gmap = make_map([("a", True, "qin", 1), ("b", False, "qin", 1), ("c", False, "qin", 1)], [("a", "b", "open"), ("b", "c", "open")])
    st = new_game(gmap, variants=("recruit_one_area",))
    st = talents(st, ("han_fei", "home_han"), ("guo_wei", "home_yan"))
    st = chit(st, "qin")
    assert st.recruit_due == 2
    assert rules_of(st, Recruit("red", (("a", 1), ("b", 1)))) == ["recruit.one_area"]
    assert len(list(GAME.legal_moves(st))) == 3


def test_counter_limit_a12():
    # 5 counters of 1/2 and 3 of 3/4: at most 2*5 + 4*3 = 22 strength, at least one counter per area
    gmap = make_map([("a", False, "qin", 19), ("b", False, "qin", 1)], [("a", "b", "open")], counters=(5, 3))
    st = new_game(gmap, variants=("counter_limit",))
    st = talents(st, ("han_fei", "home_han"), ("guo_wei", "home_yan"))
    st = chit(st, "qin")
    assert st.recruit_due == 1  # formula 1 still fits: b shows 1 with a 1/2 counter, a up to 4*2 + 3*4 = 20
    assert rules_of(st, Recruit("red", (("a", 1),))) == []
    # b at 2 uses its counter's top side; a at 20 uses all the others: nothing more can be shown
    st2 = new_game(make_map([("a", False, "qin", 20), ("b", False, "qin", 2)], [("a", "b", "open")], counters=(5, 3)),
                   variants=("counter_limit",))
    st2 = talents(st2, ("han_fei", "home_han"), ("guo_wei", "home_yan"))
    st2 = chit(st2, "qin")
    assert st2.awaiting == "move" and any(e.kind == "recruit_none" for e in st2.effects)
    assert not any(u.check == "counters.limit" for u in GAME.score(st2).not_checked)
    with pytest.raises(InvalidRecord):
        new_game(make_map([("a", False, "qin", 2)], []), variants=("counter_limit",))  # map has no counter mix


def test_counter_mix_validation():
    doc = map_doc([("a", False, "qin", 30)], [], counters=(5, 3))
    from scorer.games.zhang_yi.board import semantic_problems

    problems, _ = semantic_problems(doc)
    assert any("cannot be shown" in p for p in problems)


# -- seeded chance --------------------------------------------------------------------------------

def test_seeded_game_draws_by_itself_and_is_reproducible():
    gmap = make_map([("o", False, "qin", 3)], [])
    a = new_game(gmap, chance="seeded", seed=5)
    b = new_game(gmap, chance="seeded", seed=5)
    assert a == b and a.awaiting == "destiny_keep" and a.actors == (0, 1)
    dealt = a.dealt[0]
    bad = next(STATES[s] for s in range(7) if s not in dealt)
    assert rules_of(a, KeepDestiny("red", bad)) == ["destiny.not_dealt"]
    a = play(a, KeepDestiny("blue", STATES[a.dealt[1][0]]), KeepDestiny("red", STATES[dealt[1]]))
    assert a.awaiting in ("talent_placement", "assassin_target", "recruitment")
    assert rules_of(a, RollDie("red", 3)) == ["turn.wrong_input"]
    assert "seed" in GAME.violations(a, DrawTalent("red", "bai_qi"))[0].message.en
    assert sum(1 for loc in a.talent_loc if loc == -3) == 2  # two put aside unseen


def test_sample_map_needs_confirmation_and_template_is_refused(tmp_path):
    with pytest.raises(InvalidRecord, match="sample_map_confirmed"):
        GAME.setup(SetupOptions.from_json({"players": ["red", "blue"]}))
    with pytest.raises(InvalidRecord, match="sample_map_confirmed"):
        GAME.setup(SetupOptions.from_json({"players": ["red", "blue"], "board": "sample", "sample_map_confirmed": False}))
    with pytest.raises(InvalidRecord, match="incomplete"):
        GAME.setup(SetupOptions.from_json({"players": ["red", "blue"], "board": "template"}))
    import json

    path = tmp_path / "mine.json"
    path.write_text(json.dumps(map_doc([("o", True, "qin", 3)], [])), encoding="utf-8")
    st = GAME.setup(SetupOptions.from_json({"players": ["red", "blue"], "board": str(path)}))
    assert st.map.id == "test" and not st.map.sample
    with pytest.raises(InvalidRecord, match="names a state"):
        GAME.setup(SetupOptions.from_json({"players": ["qin", "blue"], "board": str(path)}))
    with pytest.raises(InvalidRecord, match="unknown variant"):
        GAME.setup(SetupOptions.from_json({"players": ["red", "blue"], "board": str(path), "variants": ["nope"]}))

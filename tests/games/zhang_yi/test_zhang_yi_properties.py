"""Property tests: random legal play never reaches an invalid state, replays are exact, the move
enumeration agrees with ``violations``, and final scoring matches an independent brute force."""

from __future__ import annotations

import itertools
import json
import random
from dataclasses import replace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as hs

from zhang_yi_helpers import map_doc

from scorer.core.game import SetupOptions
from scorer.core.results import Termination
from scorer.games.zhang_yi import GAME
from scorer.games.zhang_yi.board import load_map
from scorer.games.zhang_yi.counters import max_addable, representable
from scorer.games.zhang_yi.data import STATES
from scorer.games.zhang_yi.engine import final_scoring
from scorer.games.zhang_yi.flow import finalize
from scorer.games.zhang_yi.simulate import Table, random_move
from scorer.games.zhang_yi.state import GRAVE, HELD, OUT, POOL, TRANSIT, ZhangYiState, evolve

VARIANT_SETS = [
    (),
    ("tie_attacker_wins", "notable_own_area_only", "recruit_one_area"),
    ("hegemony_after_battle_only", "notable_attrition", "annihilation_first", "no_redraw_after_dead"),
    ("counter_limit", "assassin_spares_new", "attrition_stacks", "tied_top_shared_win"),
    ("retreat_by_next_player", "first_player_passes_left"),
]


def check_invariants(st: ZhangYiState, draws: int) -> None:
    for o, n in zip(st.owner, st.strength):
        assert (o >= 0) == (n > 0), (o, n)
    ts = st.map.talent_state
    for t, loc in enumerate(st.talent_loc):
        assert loc in (POOL, GRAVE, OUT, HELD, TRANSIT) or 0 <= loc < len(st.map.areas)
        if loc >= 0:
            assert st.owner[loc] == ts[t], "a talent stands without army of its state"
    for s in range(7):
        if not st.alive[s]:
            assert st.area_count(s) == 0 and not any(loc >= 0 and ts[t] == s for t, loc in enumerate(st.talent_loc))
        elif st.ending is None:  # a loser whose army is retreating from its last area is still alive
            assert st.area_count(s) > 0 or (st.retreat is not None and st.retreat.state == s)
    pool = sum(1 for loc in st.talent_loc if loc == POOL)
    if st.rules.seeded:
        assert pool == st.pool_left == len(st.pool_order) and sum(1 for loc in st.talent_loc if loc == OUT) == 2
    else:
        assert pool == st.pool_left + 2 and st.pool_left == 14 - draws
    assert 1 <= st.turn <= 7
    if st.finished is None:
        assert st.actors, st.awaiting
    else:
        assert set(st.winners) <= set(st.players) and st.awaiting == "none"
    if st.battle is not None:
        assert st.awaiting == "die_roll"
    if st.retreat is not None:
        assert st.awaiting == "retreat_choice" and st.retreat.options


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=hs.integers(0, 10**6), players=hs.sampled_from([2, 2, 3]), chance=hs.sampled_from(["declared", "seeded"]),
       variants=hs.sampled_from(VARIANT_SETS))
def test_random_play_stays_valid_and_replays_exactly(seed, players, chance, variants):
    rng = random.Random(seed)
    setup = {"players": ["red", "blue", "green"][:players], "board": "sample", "sample_map_confirmed": True, "chance": chance,
             "variants": list(variants), "first_player": "blue"}
    if chance == "seeded":
        setup["seed"] = seed
    options = SetupOptions.from_json(setup)
    state = GAME.setup(options)
    table = Table.deal(rng, players) if chance == "declared" else None
    moves, draws = [], 0
    while state.finished is None:
        move = random_move(state, rng, table)
        assert not GAME.violations(state, move), (move, GAME.violations(state, move))
        draws += type(move).__name__ == "DrawTalent"
        before = state
        state = GAME.apply(state, move)
        assert type(state) is ZhangYiState and before is not state  # the working copy never escapes
        moves.append(move)
        check_invariants(state, draws)
        if state.battle is not None or state.retreat is not None or len(moves) % 9 == 0:
            json.dumps(GAME.state_to_json(state), ensure_ascii=False)
            GAME.turn(state).to_json()
        assert len(moves) < 3000
    replayed = GAME.setup(options)
    for m in moves:
        replayed = GAME.apply_unchecked(replayed, m)
    assert replayed == state
    assert GAME.outcome(state) is not None and GAME.score(state).final
    json.dumps(GAME.state_to_json(state), ensure_ascii=False)
    for m in moves[:40]:
        text = GAME.describe_move(m)
        assert text.en and text.zh and "(" not in text.en[:1]


def test_move_enumeration_agrees_with_violations():
    """Every enumerated move is legal; the simulator's (legal) choice is among them."""
    rng = random.Random(4)
    for seed, chance in ((1, "declared"), (2, "seeded"), (3, "declared")):
        setup = {"players": ["red", "blue"], "board": "sample", "sample_map_confirmed": True, "chance": chance, "seed": seed}
        state = GAME.setup(SetupOptions.from_json(setup))
        table = Table.deal(random.Random(seed), 2) if chance == "declared" else None
        steps = 0
        while state.finished is None and steps < 120:
            options = list(GAME.legal_moves(state))
            assert options
            for m in rng.sample(options, min(15, len(options))):
                assert not GAME.violations(state, m), m
            move = random_move(state, rng, table)
            plain = replace(move, source="dashboard") if hasattr(move, "source") else move  # enumeration uses one source
            assert plain in set(options), move
            state = GAME.apply(state, move)
            steps += 1


def test_replace_and_evolve_agree():
    state = GAME.setup(SetupOptions.from_json({"players": ["red", "blue"], "sample_map_confirmed": True}))
    assert evolve(state, turn=3, pool_left=2) == replace(state, turn=3, pool_left=2)


# -- counters: dynamic programme vs brute force ------------------------------------------------------

def brute_representable(strengths: list[int], a: int, b: int) -> bool:
    areas = [x for x in strengths if x > 0]
    options = []
    for x in areas:
        opts = [(s, t) for s in range(a + 1) for t in range(b + 1) if s + t >= 1 and s + 3 * t <= x <= 2 * s + 4 * t]
        options.append(opts)
    for combo in itertools.product(*options):
        if sum(s for s, _ in combo) <= a and sum(t for _, t in combo) <= b:
            return True
    return False


@settings(max_examples=150, deadline=None)
@given(strengths=hs.lists(hs.integers(0, 12), max_size=4), a=hs.integers(0, 8))
def test_counter_representability_matches_brute_force(strengths, a):
    b = 8 - a
    assert representable(strengths, a, b) == brute_representable(strengths, a, b)


@settings(max_examples=60, deadline=None)
@given(strengths=hs.lists(hs.integers(1, 8), min_size=1, max_size=3), a=hs.integers(0, 8), want=hs.integers(0, 4))
def test_max_addable_matches_brute_force(strengths, a, want):
    b = 8 - a
    if not brute_representable(strengths, a, b):
        assert max_addable(tuple(strengths), want, a, b) == -1
        return
    best = 0
    for adds in itertools.product(range(want + 1), repeat=len(strengths)):
        if sum(adds) <= want and brute_representable([x + d for x, d in zip(strengths, adds)], a, b):
            best = max(best, sum(adds))
    assert max_addable(tuple(strengths), want, a, b) == best


# -- final scoring vs an independent brute force on random end positions -------------------------------

def reference_time_winners(owner: list[int], cities: list[bool], alive: list[bool], backed: dict[str, int], shared: bool):
    power = [0] * 7
    for area, s in enumerate(owner):
        if s >= 0:
            power[s] += 2 if cities[area] else 1
    live = [s for s in range(7) if alive[s]]
    winners_states = [s for s in live if all(power[s] >= power[o] for o in live)]
    on_top = [p for p, s in backed.items() if s in winners_states]
    if len(on_top) == 1 or (on_top and shared):
        return tuple(on_top), "win", {STATES[s]: power[s] for s in live}
    return (), "draw", {STATES[s]: power[s] for s in live}


@settings(max_examples=200, deadline=None)
@given(data=hs.data())
def test_final_scoring_matches_brute_force(data):
    gmap = load_map("sample")
    state = GAME.setup(SetupOptions.from_json({"players": ["red", "blue", "green"], "sample_map_confirmed": True}))
    n_areas = len(gmap.areas)
    owner = data.draw(hs.lists(hs.integers(-1, 6), min_size=n_areas, max_size=n_areas))
    alive = [any(o == s for o in owner) for s in range(7)]
    if not any(alive):
        owner[0] = 0
        alive[0] = True
    strength = [data.draw(hs.integers(1, 9)) if o >= 0 else 0 for o in owner]
    players = ["red", "blue", "green"]
    chits = data.draw(hs.permutations(range(7)))
    backed = {p: chits[i] for i, p in enumerate(players)}
    shared = data.draw(hs.booleans())
    rules = evolve(state, rules=type(state.rules)(tied_top_shared_win=shared)).rules
    end = evolve(state, owner=tuple(owner), strength=tuple(strength), alive=tuple(alive), rules=rules,
                 revealed=tuple(backed[p] for p in players), kept=tuple(backed[p] for p in players),
                 ending=Termination.TIME)
    got = finalize(end)
    want_winners, want_verdict, want_powers = reference_time_winners(owner, list(gmap.is_city), alive, backed, shared)
    assert got.winners == want_winners and got.verdict == want_verdict
    fs = final_scoring(got)
    assert fs["powers"] == want_powers and fs["winners"] == want_winners
    board = GAME.score(got)
    for p in players:
        s = backed[p]
        assert board.of(p).category("backed_power") == (want_powers.get(STATES[s], 0))
        assert board.of(p).total == int(p in want_winners)


# -- a crowded map where states are annihilated often ------------------------------------------------

@pytest.fixture(scope="module")
def crowded_map(tmp_path_factory) -> str:
    """Seven states on one small ring of areas (plus two neutral areas and a centre city)."""
    ring = [(f"r{i}", i % 3 == 0, STATES[i], 1 + i % 2) for i in range(7)]
    areas = ring + [("n1", False, None, 0), ("n2", False, None, 0), ("centre", True, None, 0)]
    borders = [(f"r{i}", f"r{(i + 1) % 7}", "open" if i % 2 else "river") for i in range(7)]
    borders += [("r0", "n1", "open"), ("r3", "n2", "mountain"), ("n1", "centre", "open"), ("n2", "centre", "open"), ("r5", "centre", "open")]
    path = tmp_path_factory.mktemp("zy") / "crowded.json"
    path.write_text(json.dumps(map_doc(areas, borders, fill=False)), encoding="utf-8")
    return str(path)


def test_random_play_with_annihilations(crowded_map):
    from scorer.games.zhang_yi.simulate import random_game

    seen: dict[str, int] = {}
    for seed in range(40):
        players = 3 if seed % 2 else 2
        setup, moves, final = random_game(seed, players, "declared" if seed % 4 < 2 else "seeded", board=crowded_map)
        state, draws = GAME.setup(SetupOptions.from_json(setup)), 0
        for m in moves:
            draws += type(m).__name__ == "DrawTalent"
            state = GAME.apply(state, m)
            check_invariants(state, draws)
            for e in state.effects:
                seen[e.kind] = seen.get(e.kind, 0) + 1
        assert state == final
        seen[final.finished.value] = seen.get(final.finished.value, 0) + 1
        seen["player_out"] = seen.get("player_out", 0) + sum(final.out)
    assert seen.get("annihilated", 0) >= 5 and seen.get("player_out", 0) >= 1, seen

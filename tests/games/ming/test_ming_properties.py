"""Property tests: random legal play keeps every invariant, records replay exactly, and the scoring
phase agrees with an independent brute-force reference on random positions."""

from __future__ import annotations

import json
import random
from collections import Counter
from functools import lru_cache
from itertools import combinations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ming_helpers import position, score_now
from scorer.core.game import SetupOptions
from scorer.games.ming import GAME
from scorer.games.ming.moves import ReturnCards, SendBack
from scorer.games.ming.scoring import achievable_totals, five_sets
from scorer.games.ming.simulate import Deck, random_game, random_move
from scorer.games.ming.state import CATEGORIES, EMPTY, PH_OVER, PH_SCORING, SUPPLY_START
from scorer.records import parse_record, replay, to_record

FAST = settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
VARIANTS = ("dragon_any_member", "bonus_tiebreak_fullest_area", "neutral_before_returns", "bonus_ignores_neutral",
            "neutral_in_blocks", "no_revisit", "tiebreak_monks", "tiles_in_turn_order")


def check_invariants(state, before=None) -> None:
    n = state.n
    board = state.board
    for p in range(n):
        on_board = (state.supply[p] + state.in_hand[p] + sum(r[p] for r in state.spaces) + sum(r[p] for r in state.open)
                    + sum(1 for o in state.cloister if o == p) + sum(r[p] for r in state.city) + state.boxed[p])
        assert on_board == SUPPLY_START, f"family members of {state.players[p]} not conserved"
        h = state.hands[p]
        assert 0 <= h.total <= 5 and sum(h.lb) <= h.total and min(h.lb) >= 0
        assert min(state.tiles[p]) >= 0
    for i in range(len(board.provinces)):
        assert sum(t[i] for t in state.tiles) + state.tile_supply[i] == 18
    placed = [d for d in state.princes if d != EMPTY]
    assert len(placed) == len(set(placed)), "two princes share a district"
    for d in range(len(board.districts)):
        assert sum(state.city[d]) <= 3
        assert state.open[d][state.neutral] <= 3
        assert state.cloister[d] == EMPTY or 0 <= state.cloister[d] < n
        assert min(state.open[d]) >= 0 and min(state.city[d]) >= 0
        if state.phase != PH_SCORING:
            assert sum(state.city[d]) == 0, "city pieces outside the scoring phase"
    if n != 2:
        assert all(r[state.neutral] == 0 for r in state.open)
    lo, hi = state.dragon_supply()
    assert 0 <= lo <= hi <= board.dragons
    if before is not None:
        for p in range(n):
            assert all(a >= b for a, b in zip(state.points[p], before.points[p])), "points went down"
    if not state.finished:
        assert GAME.turn(state).active, "nobody to act in a running game"
    assert len(GAME.visible_board(state)) >= sum(1 for d in placed)


@FAST
@given(seed=st.integers(0, 10_000), players=st.sampled_from([2, 3, 4]), variants=st.sets(st.sampled_from(VARIANTS), max_size=3))
def test_random_legal_play_keeps_every_invariant(seed, players, variants):
    rng = random.Random(seed)
    colours = ["yellow", "green", "blue", "red"][:players]
    board = GAME.setup(SetupOptions.from_json({"players": colours})).board
    deck = Deck.shuffled(board, rng)
    setup = {"players": colours, "cards": "required", "display": [deck.draw() for _ in range(6)], "variants": sorted(variants)}
    state = GAME.setup(SetupOptions.from_json(setup))
    check_invariants(state)
    moves = 0
    while not state.finished:
        move = random_move(state, rng, deck)
        assert not GAME.violations(state, move)
        after = GAME.apply(state, move)
        assert after == GAME.apply_unchecked(state, move)
        check_invariants(after, state)
        if hasattr(move, "cards") and getattr(move, "cards", None):
            deck.discard.extend(c for c in move.cards if isinstance(c, str) and c != "dragon")
        if type(move).__name__ == "Stay" and move.card and move.card != "dragon":
            deck.discard.append(move.card)
        state = after
        moves += 1
    assert state.phase == PH_OVER and GAME.outcome(state) is not None
    assert moves > 50


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), players=st.sampled_from([2, 3, 4]))
def test_record_replay_gives_the_same_state_and_score(seed, players):
    setup, moves, final = random_game(seed, players)
    doc = json.loads(json.dumps(to_record(GAME, SetupOptions.from_json(setup), moves)))
    rec = parse_record(doc)
    assert rec.moves == tuple(moves)
    result = replay(rec)
    assert result.ok and result.applied == len(moves)
    assert result.state == final
    assert GAME.score(result.state) == GAME.score(final)


# -- an independent reference for the whole scoring phase ----------------------------------------------

CITY = {2: 4, 4: 3, 6: 0}
SET6 = {2: 28, 4: 24, 6: 20}


@lru_cache(maxsize=None)
def best_final_tiles(tiles: tuple[int, ...]) -> int:
    """Exhaustive: the best points from turning in sets of 5 colours (10 each) plus 1 per tile left."""
    best = sum(tiles)
    for combo in combinations(range(len(tiles)), 5):
        if all(tiles[i] > 0 for i in combo):
            rest = tuple(t - (i in combo) for i, t in enumerate(tiles))
            best = max(best, 10 + best_final_tiles(rest))
    return best


def reference_scoring(players, rnd, start, provinces, open_lists, cloister, tiles, returns, choices, variants=()):
    """Transcribes rules/ming.md 4.1-4.3 on explicit piece lists, comparing players pairwise."""
    two = len(players) == 2
    pts = {p: Counter() for p in players}
    tiles = {p: dict(t) for p, t in tiles.items()}
    order = players[start:] + players[:start]
    all6 = [pv for pv, _ in provinces]
    supply = {pv: 18 - sum(t.get(pv, 0) for t in tiles.values()) for pv in all6}
    opened = {d: list(v) for d, v in open_lists.items()}
    for prov, districts in provinces:
        city = {d: [] for d in districts}
        for d in districts:
            pieces = opened[d]
            owners = sorted(set(pieces))
            count = {o: pieces.count(o) for o in owners}
            leaders = [o for o in owners if all(count[o] >= count[q] for q in owners)]
            moves = {}
            if 2 <= len(leaders) <= 3:
                moves = {o: 1 for o in leaders}
            elif len(leaders) == 1:
                lead = leaders[0]
                moves[lead] = min(2, count[lead])
                rest = [o for o in owners if o != lead]
                runners = [o for o in rest if all(count[o] >= count[q] for q in rest)]
                if len(runners) == 1:
                    moves[runners[0]] = 1
            assert sum(moves.values()) <= 3  # the rulebook's rule of thumb
            if len(moves) >= 2 and len(set(moves.values())) > 1:
                assert max(moves.values()) > min(moves.values())  # second place moves fewer than first
            # tiles: most members first (A13; variant: clockwise from the start player), ties clockwise;
            # one tile per member while the supply lasts, a completed set of 6 back at once (A14)
            first = (lambda o: (order.index(o),)) if "tiles_in_turn_order" in variants else (lambda o: (-count[o], order.index(o)))
            for o in sorted(moves, key=lambda o: first(o) if o in order else (99,)):
                for _ in range(moves[o]):
                    pieces.remove(o)
                    city[d].append(o)
                    if o in players:
                        if supply[prov] > 0:
                            supply[prov] -= 1
                            tiles[o][prov] = tiles[o].get(prov, 0) + 1
                        # (the random positions may start with a complete set: it goes at the first member)
                        while all(tiles[o].get(c, 0) > 0 for c in all6):
                            for c in all6:
                                tiles[o][c] -= 1
                                supply[c] += 1
                            pts[o]["sets6"] += SET6[rnd]

        def send(owner, k, chosen):
            areas = [d for d in districts if owner in city[d]]
            have = sum(city[d].count(owner) for d in districts)
            if k >= have:
                take = [d for d in districts for _ in range(city[d].count(owner))]
            elif len(areas) == 1:
                take = [areas[0]] * k
            else:
                take = list(chosen)
            for d in take[:k]:
                city[d].remove(owner)
                opened[d].append(owner)

        def neutral_step():
            n_ = sum(city[d].count("neutral") for d in districts)
            best = max((sum(city[d].count(p) for d in districts) for p in players), default=0)
            keep = best + 1 if n_ > best else 0
            if n_ - keep > 0:
                send("neutral", n_ - keep, choices.get((prov, "neutral"), ()))

        if two and "neutral_before_returns" in variants:
            neutral_step()
        totals = {p: returns.get((prov, p), 0) for p in players if any(p in city[d] for d in districts)}
        for p in order:
            if p in totals:
                send(p, totals[p], choices.get((prov, p), ()))
        if two and "neutral_before_returns" not in variants:
            neutral_step()
        left = {p: sum(city[d].count(p) for d in districts) for p in players}
        for p in players:
            pts[p]["city"] += CITY[rnd] * left[p]
        neutral_left = sum(city[d].count("neutral") for d in districts)
        top = max(left.values())
        if top > 0 and not (two and neutral_left > top and "bonus_ignores_neutral" not in variants):
            tied = [p for p in players if left[p] == top]
            if len(tied) > 1:
                if "bonus_tiebreak_fullest_area" in variants:
                    full = max(len(city[d]) for d in districts)
                    areas = [d for d in districts if len(city[d]) == full]
                else:
                    areas = list(districts)
                key = {p: max(city[d].count(p) for d in areas) for p in tied}
                tied = [p for p in tied if key[p] == max(key.values())]
            for p in tied:
                pts[p]["city_bonus"] += 4 // len(tied)
    for d, o in cloister.items():
        pts[o]["cloisters"] += 4
    if rnd == 6:
        for p in players:
            vec = tuple(tiles[p].get(pv, 0) for pv, _ in provinces)
            best = best_final_tiles(vec)
            k = five_sets(vec)
            assert best == 10 * k + sum(vec) - 5 * k  # the closed formula is optimal
            pts[p]["sets5"] += 10 * k
            pts[p]["tiles"] += sum(vec) - 5 * k
    return pts, opened, tiles


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 1_000_000), players=st.sampled_from([2, 3, 4]), rnd=st.sampled_from([2, 4, 6]),
       variants=st.sets(st.sampled_from(["bonus_tiebreak_fullest_area", "neutral_before_returns", "bonus_ignores_neutral", "tiles_in_turn_order"]), max_size=2))
def test_scoring_phase_matches_brute_force_reference(seed, players, rnd, variants):
    rng = random.Random(seed)
    colours = ("yellow", "green", "blue", "red")[:players]
    owners = list(colours) + (["neutral"] if players == 2 else [])
    board = GAME.setup(SetupOptions.from_json({"players": list(colours)})).board
    open_counts = {}
    for d in board.districts:
        if rng.random() < 0.8:
            open_counts[d] = {o: rng.choice([0, 0, 1, 1, 2, 3, 4]) for o in owners}
            if "neutral" in open_counts[d]:
                open_counts[d]["neutral"] = min(3, open_counts[d]["neutral"])
    cloister = {d: rng.choice(colours) for d in board.districts if rng.random() < 0.25}
    tiles = {p: {prov.id: rng.choice([0, 0, 1, 1, 2]) for prov in board.provinces} for p in colours}
    if rng.random() < 0.5:  # a colour nearly used up (A13): the last tiles go to whoever moves first
        scarce = rng.choice(board.provinces).id
        for p in colours:
            tiles[p][scarce] = 0
        for _ in range(rng.randint(12, 18)):
            tiles[rng.choice(colours)][scarce] += 1
    start = rng.randrange(players)
    state = position(colours, round=rnd, start=colours[start], open=open_counts, cloister=cloister, tiles=tiles,
                     variants=tuple(sorted(variants)))
    before = [list(r) for r in state.points]
    values = sorted(achievable_totals((0, 1, 2, 3)))
    returns: dict = {}
    choices: dict = {}
    s = score_now(state)
    while s.phase == PH_SCORING:
        info = GAME.turn(s)
        prov = board.provinces[s.scoring.province].id
        if info.awaiting == "return_cards":
            for p in info.active:
                total = rng.choice(values[:4] + [0, 0])
                returns[(prov, p)] = total
                s = GAME.apply(s, ReturnCards(p, total=total))
        else:
            sc = s.scoring
            owner = s.neutral if sc.to_send[s.neutral] else sc.chooser
            name = "neutral" if owner == s.neutral else s.players[owner]
            pieces = [board.districts[d] for d in board.province_districts[sc.province] for _ in range(s.city[d][owner])]
            pick = tuple(sorted(rng.sample(pieces, sc.to_send[owner])))
            choices[(prov, name)] = pick
            s = GAME.apply(s, SendBack(info.active[0], pick, "neutral" if name == "neutral" else None))
    provinces = [(prov.id, [board.districts[d] for d in board.province_districts[i]]) for i, prov in enumerate(board.provinces)]
    open_lists = {d: [o for o, k in open_counts.get(d, {}).items() for _ in range(k)] for d in board.districts}
    ref_pts, ref_open, ref_tiles = reference_scoring(list(colours), rnd, start, provinces, open_lists, cloister, tiles, returns, choices, variants)
    for i, p in enumerate(colours):
        got = {c: s.points[i][k] - before[i][k] for k, c in enumerate(CATEGORIES)}
        want = {c: ref_pts[p][c] for c in CATEGORIES}
        assert got == want, (p, got, want)
        assert {prov.id: s.tiles[i][j] for j, prov in enumerate(board.provinces)} == {pv: ref_tiles[p].get(pv, 0) for pv, _ in provinces}
    names = list(colours) + ["neutral"]
    for d, name in enumerate(board.districts):
        got = Counter({names[o]: k for o, k in enumerate(s.open[d]) if k})
        assert got == Counter(ref_open[name]), name
        assert sum(s.city[d]) == 0


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 4), min_size=6, max_size=6))
def test_five_set_count_is_optimal(vec):
    k = five_sets(vec)
    assert best_final_tiles(tuple(vec)) == 10 * k + sum(vec) - 5 * k

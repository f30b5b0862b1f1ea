"""Property tests: random legal play, replay equivalence, and scoring against independent references."""

from __future__ import annotations

import itertools
import random
from collections import Counter

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scorer.core.game import SetupOptions
from scorer.games.china import GAME
from scorer.games.china import scoring
from scorer.games.china.board import load_board
from scorer.games.china.engine import final_scoring
from scorer.games.china.simulate import random_game, random_move
from scorer.games.china.state import EMISSARIES_PER_PLAYER, HOUSES_PER_PLAYER
from scorer.records import parse_record, replay, to_record

FAST = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def check_invariants(state) -> None:
    board = state.board
    n = state.n
    # supplies + pieces on the board are conserved
    houses_on_board = Counter(o for o in state.site_owner if o >= 0)
    for i in range(n):
        assert state.houses_left[i] + houses_on_board[i] == HOUSES_PER_PLAYER
        assert state.emissaries_left[i] + sum(e[i] for e in state.emissaries) == EMISSARIES_PER_PLAYER
        assert state.houses_left[i] >= 0 and state.emissaries_left[i] >= 0 and state.fortresses_left[i] >= 0
    for prov in range(len(board.provinces)):
        # the emissary cap holds in every province at every moment
        assert sum(state.emissaries[prov]) <= max(state.houses_in(prov))
        # a scored province is full
        if state.scored[prov]:
            assert state.province_full(prov)
    # cards are conserved when tracked
    if state.cards is not None:
        cs = state.cards
        total = len(cs.pile) + len(cs.discard) + sum(c is not None for c in cs.display) + sum(len(h) for h in cs.hands)
        from scorer.games.china.cards import build_deck

        assert total == len(build_deck(n))
        assert all(len(h) <= 3 for h in cs.hands)


@FAST
@given(seed=st.integers(0, 10_000), players=st.sampled_from([3, 4, 5]), fortress=st.booleans())
def test_random_legal_play_keeps_every_invariant(seed, players, fortress):
    rng = random.Random(seed)
    setup = {"players": ["blue", "green", "violet", "red", "yellow"][:players], "seed": seed, "cards": "tracked"}
    if fortress:
        setup["variants"] = ["fortress"]
    state = GAME.setup(SetupOptions.from_json(setup))
    check_invariants(state)
    while state.finished is None:
        move = random_move(state, rng)
        assert move is not None
        state = GAME.apply(state, move)
        check_invariants(state)
    assert GAME.outcome(state) is not None
    board = GAME.score(state)
    assert board.final
    for p in board.players:
        assert p.total == sum(v for _, v in p.breakdown)


@FAST
@given(seed=st.integers(0, 10_000), players=st.sampled_from([3, 4, 5]))
def test_apply_and_record_replay_give_the_same_state(seed, players):
    setup, moves, final = random_game(seed, players)
    doc = to_record(GAME, SetupOptions.from_json(setup), moves)
    result = replay(parse_record(doc))
    assert result.ok
    assert result.state == final
    assert GAME.score(result.state) == GAME.score(final)


def test_random_games_always_end():
    """Every random game reaches an ending; none runs forever."""
    endings = Counter()
    for seed in range(60):
        _, moves, final = random_game(seed, 3 + seed % 3)
        endings[final.finished] += 1
        assert len(moves) < 400
    assert sum(endings.values()) == 60


# -- independent references ------------------------------------------------------------------

def reference_house_points(counts):
    """Straight from the rule text: rank 1 scores the total; rank k scores one rank-(k-1) count."""
    total = sum(counts)
    result = []
    for c in counts:
        if c == 0:
            result.append(0)
            continue
        bigger = sorted({x for x in counts if x > c})
        result.append(total if not bigger else bigger[0])
    return result


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(0, 8), min_size=3, max_size=5))
def test_house_scoring_matches_brute_force(counts):
    assert scoring.house_points(counts) == reference_house_points(counts)


def reference_alliances(alliances, emissaries, n):
    points = [0] * n
    for _, a, b in alliances:
        for p in range(n):
            lead_a = emissaries[a][p] >= 1 and all(emissaries[a][p] >= emissaries[a][q] for q in range(n))
            lead_b = emissaries[b][p] >= 1 and all(emissaries[b][p] >= emissaries[b][q] for q in range(n))
            if lead_a and lead_b:
                points[p] += sum(emissaries[a]) + sum(emissaries[b])
    return points


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_alliance_scoring_matches_reference(data):
    board = load_board(data.draw(st.sampled_from(["china-a", "china-b"])))
    n = data.draw(st.integers(3, 5))
    em = [[data.draw(st.integers(0, 3)) for _ in range(n)] for _ in board.provinces]
    assert scoring.alliance_points(board.alliances, em, n) == reference_alliances(board.alliances, em, n)


def reference_roads(owned, neighbours):
    """Best split into disjoint runs of 4+ by brute force over all path sets (small inputs)."""
    mine = set(owned)
    paths = set()

    def walk(path):
        if len(path) >= 4:
            paths.add(tuple(path) if path[0] < path[-1] else tuple(reversed(path)))
        for nb in neighbours[path[-1]]:
            if nb in mine and nb not in path:
                walk(path + [nb])

    for s in mine:
        walk([s])
    paths = list(paths)
    best = 0
    for k in range(0, 5):
        for combo in itertools.combinations(paths, k):
            used = [v for p in combo for v in p]
            if len(used) == len(set(used)):
                best = max(best, sum(len(p) for p in combo))
    longest = max((len(p) for p in paths), default=0)
    return best, longest


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_road_scoring_against_reference(data):
    """On random boards' house sets: the greedy result never beats the best split, equals it when
    the houses form simple runs, always includes a longest run, and the exhaustive figure is exact."""
    board = load_board("china-a")
    k = data.draw(st.integers(0, 14))
    owned = data.draw(st.lists(st.integers(0, len(board.sites) - 1), min_size=k, max_size=k, unique=True))
    res = scoring.road_points(owned, board.neighbours)
    best, longest = reference_roads(owned, board.neighbours)
    assert res.points <= best
    if res.compared:
        assert res.exhaustive_points == best
    if longest >= 4:
        assert any(len(r) == longest for r in res.runs)
    mine = set(owned)
    if all(sum(1 for nb in board.neighbours[s] if nb in mine) <= 2 for s in owned):
        assert res.points == best or not res.compared


def test_final_scoring_totals_match_breakdown():
    _, _, final = random_game(3, 4)
    fs = final_scoring(final)
    sb = GAME.score(final)
    for i, p in enumerate(sb.players):
        assert p.category("alliances") == fs["alliances"][i]
        assert p.category("roads") == fs["roads"][i]


@settings(max_examples=80, deadline=None)
@given(st.data())
def test_road_scoring_on_random_road_graphs(data):
    """Random sparse road graphs (not just the shipped boards) against the brute-force reference."""
    n = data.draw(st.integers(4, 9))
    edges = data.draw(st.sets(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)).filter(lambda e: e[0] < e[1]), max_size=n))
    nbrs = [[] for _ in range(n)]
    for a, b in edges:
        nbrs[a].append(b)
        nbrs[b].append(a)
    owned = data.draw(st.lists(st.integers(0, n - 1), unique=True, max_size=n))
    res = scoring.road_points(owned, nbrs)
    best, longest = reference_roads(owned, nbrs)
    assert res.points <= best
    assert res.compared and res.exhaustive_points == best
    if longest >= 4:
        assert any(len(r) == longest for r in res.runs)
    # every scored run is a real run: consecutive along roads, own houses, disjoint, 4 or more
    used = [s for r in res.runs for s in r]
    assert len(used) == len(set(used)) and set(used) <= set(owned)
    for r in res.runs:
        assert len(r) >= 4 and all(b in nbrs[a] for a, b in zip(r, r[1:]))
    assert res.points == sum(len(r) for r in res.runs)

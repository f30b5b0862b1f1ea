"""Cheops checks itself (issue 13): random reachable games, and at sampled states the engine's
legal turns are compared with an independent generator of candidate turns.

A Cheops turn is a sequence of steps (neighbour, step B, laws 10/12) and then the draws, so the
checks work on sequences as well as on whole turns: where a state has too many legal turns to
list (a law-12 swap multiplies them by every pair of treasures), every step of a legal candidate
must be among the engine's ``next_steps`` after the steps before it, and the candidate among the
turns that begin with its steps (``legal_turns``). On states listed in full, ``legal_moves`` is
also compared with the union of those step-by-step continuations.

Everything the engine is checked against is written here, from the rules notes: the pyramid's
geometry, "can this player place" (with step A, a neighbour, then a normal placement), when the
game must be over, whose turn it is. ``--long`` plays thousands of games.
"""

from __future__ import annotations

import os
import random
import time
from dataclasses import replace
from functools import lru_cache

import pytest

from scorer.core.game import SetupOptions
from scorer.core.results import Termination
from scorer.games.cheops import GAME, BuyNeighbour, Draw, Pass, PlaceTile, Take, Turn, UseLaw10, UseLaw11, UseLaw12
from scorer.games.cheops.data import FACES, SPACE_INDEX, SPACES
from scorer.games.cheops.simulate import PLAYERS, random_move
from scorer.games.cheops.state import EMPTY, LAW_BASE, LAW_HIDDEN, NEIGHBOUR_TILE, NO_TILE, CheopsState
from tests.games.self_checks import Tally, check_move_round_trip, check_record_round_trip, check_state

CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")
LEGAL_CAP = 20_000  # beyond this, completeness is checked step by step
SEEN = {"listed": 0, "step_by_step": 0, "turns_by_steps": 0, "tree": 0, "spellings": 0}  # for the tally line
PLAY_VARIANTS = ("end_after_turn", "end_on_first_pass", "end_when_blocked", "save_neighbour", "neighbours_may_touch",
                 "law4_full_keep", "law11_support", "law12_laws", "law11_extra", "law8_face_up_only", "market_laws_stack")

# -- the pyramid, from the rules notes (section 9): row 1 the apex, row 11 the base --------------------

ROWS = 11
CELLS = [(r, c) for r in range(1, ROWS + 1) for c in range(1, r + 1)]


def name(r: int, c: int) -> str:
    return f"r{r}c{c}"


def on_board(r: int, c: int) -> bool:
    return 1 <= r <= ROWS and 1 <= c <= r


@lru_cache(maxsize=None)
def below(r: int, c: int) -> tuple[tuple[int, int], ...]:
    return ((r + 1, c), (r + 1, c + 1)) if r < ROWS else ()


@lru_cache(maxsize=None)
def touching(r: int, c: int) -> tuple[tuple[int, int], ...]:
    """Left/right, the two below, the two above: the same-face rule's neighbours."""
    near = [(r, c - 1), (r, c + 1), (r + 1, c), (r + 1, c + 1), (r - 1, c - 1), (r - 1, c)]
    return tuple(x for x in near if on_board(*x))


def tiles_of(state: CheopsState) -> dict[tuple[int, int], int]:
    return {(r, c): state.tile[SPACE_INDEX[name(r, c)]] for r, c in CELLS}


def rests(tiles, r: int, c: int) -> bool:
    return all(tiles[b] != NO_TILE for b in below(r, c))


def fits(tiles, face: int, r: int, c: int, *, support: bool = True) -> bool:
    return tiles[(r, c)] == NO_TILE and (not support or rests(tiles, r, c)) and all(tiles[x] != face for x in touching(r, c))


def faces_in_hand(state: CheopsState, p: int) -> list[int]:
    hand = state.hands[p]
    return [f for f in range(4) if hand is not None and hand[f] > 0]


def can_place(state: CheopsState, p: int) -> bool:
    """Can player ``p`` put a family tile down on a turn of theirs (rules/cheops.md 5): normally,
    by a law 11 they hold, or after buying (or placing a saved) neighbour that gives a space its
    support? Hands are known in the simulator's games."""
    if state.hand_size[p] <= 0:
        return False
    tiles = tiles_of(state)
    faces = faces_in_hand(state, p)
    r = state.rules
    if any(fits(tiles, f, *x) for f in faces for x in CELLS):
        return True
    if 11 in state.held[p] and not r.law11_support and any(fits(tiles, f, *x, support=False) for f in faces for x in CELLS):
        return True
    neighbour = (state.neighbours_left > 0 and state.cash[p] >= 20) or (r.save_neighbour and state.saved_neighbours[p] > 0)
    if not neighbour:
        return False
    for x in CELLS:
        if tiles[x] != NO_TILE or not rests(tiles, *x):
            continue
        if not r.neighbours_may_touch and any(tiles[y] == NEIGHBOUR_TILE for y in touching(*x)):
            continue
        after = {**tiles, x: NEIGHBOUR_TILE}
        if any(fits(after, f, *y) for f in faces for y in CELLS):
            return True
    return False


def must_be_over(state: CheopsState, history: list[Turn]) -> bool:
    """The end conditions of rules/cheops.md 7 (and C3 and its variants), judged from outside."""
    r = state.rules
    nothing_left = all(code == EMPTY for code in state.content)
    full = sum(1 for c, t in enumerate(state.tables) if state.covered[c] >= len(t.entries) - 1)
    passes = 0
    for m in reversed(history):
        if not any(isinstance(s, Pass) for s in m.steps):
            break
        passes += 1
    ended = nothing_left or full >= (3 if state.law3 else 2) or passes >= state.n
    if r.end_on_first_pass and history and passes >= 1:
        ended = True
    if r.end_when_blocked:
        used_up = not any(state.hand_size) and not any(state.stack_size)
        ended = ended or used_up or not any(can_place(state, p) for p in range(state.n))
    return ended


# -- the candidate generator ---------------------------------------------------------------------

class Candidates:
    """Turns for the position, legal and deliberately illegal, built without the engine's
    enumeration: random shapes of steps on spaces chosen by the geometry above."""

    def __init__(self, state: CheopsState, rng: random.Random):
        self.s = state
        self.rng = rng
        self.p = state.active
        self.me = state.players[self.p]
        self.colours = state.colours
        self._cache: dict[tuple, list] = {}

    def cached(self, tiles, what: str, make) -> list:
        """The geometry of one position, worked out once (most turns start from the same one)."""
        key = (what, tuple(tiles.values()))
        if key not in self._cache:
            self._cache[key] = make()
        return self._cache[key]

    # what lies on a space, as the turn so far left it (content codes of the state)
    def takes(self, code: int, own_space: str, content: dict[str, int]) -> list[Take]:
        rng = self.rng
        if code == EMPTY:
            return [Take(), Take(sell=True)]
        if 0 <= code < LAW_BASE:
            return [Take(sell=True), Take(sell=False), Take(), Take(law=3)]
        n = None if code == LAW_HIDDEN else code - LAW_BASE
        numbers = [n] if n is not None else rng.sample(range(1, 13), 3)
        out = [Take(sell=True), Take(law=rng.randint(1, 12), discard=True)]
        for k in numbers:
            out += [Take(law=k), Take(law=k, discard=True), Take(law=k, table=rng.choice(self.colours)),
                    Take(law=k, remove=rng.randint(1, 12))]
            if k in (4, 5, 6, 7):
                out += [Take(law=k, table=c) for c in self.colours]
            if k == 8:
                out += [Take(law=k, remove=x) for x in self.laws_in_sight()]
                laws_open = [sp for sp, v in content.items() if v >= LAW_BASE and self.free(sp)]
                out += [Take(law=k, remove_space=sp) for sp in laws_open] + [Take(law=k, remove_space=own_space)]
        return out

    def take(self, code: int, own_space: str, content: dict[str, int]) -> Take:
        """Usually what a player would say (sell or keep; a law's own use), sometimes anything."""
        rng = self.rng
        options = self.takes(code, own_space, content)
        if rng.random() < 0.15 or code == EMPTY:
            return rng.choice(options)
        if 0 <= code < LAW_BASE:
            return Take(sell=rng.random() < 0.5)
        n = code - LAW_BASE if code != LAW_HIDDEN else rng.randint(1, 12)
        plausible = [t for t in options if t.law == n and t.sell is None]
        if n in (4, 5, 6, 7):
            plausible = [t for t in plausible if t.table is not None or t.discard]
        elif n == 8:
            plausible = [t for t in plausible if t.remove is not None or t.remove_space is not None or t.discard]
        else:
            plausible = [t for t in plausible if t.table is None and t.remove is None]
        return rng.choice(plausible or options)

    def laws_in_sight(self) -> list[int]:
        s = self.s
        out = list(s.market_laws) + ([3] if s.law3 else []) + [x for x in s.table_law if x]
        for h in s.held:
            out += h
        return out

    def free(self, sp: str) -> bool:
        return self.s.tile[SPACE_INDEX[sp]] == NO_TILE

    def spaces(self, tiles, k: int) -> list[str]:
        """Mostly spaces a tile could rest on, some free ones that could not, a covered one, a bad id."""
        rng = self.rng
        open_ = self.cached(tiles, "open", lambda: [name(*x) for x in CELLS if tiles[x] == NO_TILE and rests(tiles, *x)])
        free = self.cached(tiles, "free", lambda: [name(*x) for x in CELLS if tiles[x] == NO_TILE])
        covered = self.cached(tiles, "covered", lambda: [name(*x) for x in CELLS if tiles[x] != NO_TILE])
        out = rng.sample(open_, min(k, len(open_)))
        out += rng.sample(free, min(2, len(free)))
        if covered and rng.random() < 0.3:
            out.append(rng.choice(covered))
        if rng.random() < 0.05:
            out.append("r12c1")
        return out

    def placement(self, tiles, content, kind: str) -> list:
        """Placements of ``kind`` (place, law11, neighbour): mostly where this file's geometry says
        they fit, some anywhere."""
        rng = self.rng
        s = self.s
        hand = faces_in_hand(s, self.p) or [0]
        if kind == "neighbour":
            good = self.cached(tiles, kind, lambda: [
                (None, name(*x)) for x in CELLS if tiles[x] == NO_TILE and rests(tiles, *x)
                and (s.rules.neighbours_may_touch or all(tiles[y] != NEIGHBOUR_TILE for y in touching(*x)))])
        else:
            support = kind == "place" or s.rules.law11_support
            good = self.cached(tiles, kind, lambda: [(f, name(*x)) for f in hand for x in CELLS if fits(tiles, f, *x, support=support)])
        pairs = rng.sample(good, min(4, len(good)))
        anywhere = self.spaces(tiles, 1)
        pairs += [(rng.choice(hand) if rng.random() < 0.9 else rng.randrange(4), sp)
                  for sp in rng.sample(anywhere, min(len(anywhere), 1 if good else 3))]
        out = []
        for f, sp in pairs:
            face = FACES[f if f is not None else 0]
            take = self.take(content.get(sp, EMPTY), sp, content) if sp in content else Take(sell=True)
            if kind == "place":
                out.append(PlaceTile(face, sp, take))
            elif kind == "law11":
                out.append(UseLaw11(face, sp, take))
            else:
                r = rng.random()
                if r < 0.85 or not s.rules.save_neighbour:
                    out.append(BuyNeighbour(sp, take, saved=r > 0.97))
                else:
                    out.append(BuyNeighbour(sp, take, saved=True) if r < 0.93 else BuyNeighbour(None, save=True))
        return out

    def law_step(self, content, kept: list[int]) -> list:
        rng = self.rng
        out: list = [UseLaw10(rng.choice(self.colours))]
        kept_colours = [self.colours[c] for c in range(len(self.colours)) if kept[c] > 0]
        if kept_colours:
            out.append(UseLaw10(rng.choice(kept_colours)))
        open_ = sorted((sp for sp, v in content.items() if v != EMPTY and self.free(sp)), key=SPACE_INDEX.__getitem__)
        if len(open_) >= 2:
            a, b = sorted(rng.sample(open_, 2), key=SPACE_INDEX.__getitem__)
            out.append(UseLaw12(a, b))
            if kept_colours:
                out.append(UseLaw12(f"kept:{rng.choice(kept_colours)}", rng.choice(open_)))
            out.append(UseLaw12(a, a))
        out.append(UseLaw12(f"kept:{rng.choice(self.colours)}", f"kept:{rng.choice(self.colours)}"))
        out.append(UseLaw12(*sorted(rng.sample(SPACES, 2), key=SPACE_INDEX.__getitem__)))  # board order: see respelled
        return out

    def shapes(self) -> list[tuple[str, float]]:
        """Turn shapes (B place, X law 11, N neighbour, P pass, L law 10/12) and their weights:
        mostly what the player could do, a little of everything else."""
        s = self.s
        p = self.p
        laws = 2.0 if {10, 12} & set(s.held[p]) else 0.15
        law11 = 2.0 if 11 in s.held[p] else 0.15
        buy = 3.0 if (s.neighbours_left > 0 and s.cash[p] >= 20) or s.saved_neighbours[p] else 0.3
        return [("B", 6), ("P", 1), ("BB", 0.5), ("NB", buy), ("N", 0.3), ("NP", 0.3), ("BN", 0.3), ("NNB", 0.2),
                ("NX", buy * law11 / 3), ("BL", laws), ("LB", laws), ("PL", laws), ("LP", 0.3 * laws), ("NBL", laws),
                ("LBL", 0.5 * laws), ("L", 0.2), ("X", law11), ("BX", law11 / 2), ("XB", law11 / 2)]

    def turn(self) -> Turn:
        """One random turn: a shape of steps, each chosen on the position the earlier ones left."""
        rng = self.rng
        s = self.s
        tiles = tiles_of(s)
        content = {sp: s.content[SPACE_INDEX[sp]] for sp in SPACES}
        kept = list(s.kept[self.p])
        shape = rng.choices(*zip(*self.shapes()))[0]
        steps = []
        for kind in shape:
            if kind == "B":
                options = self.placement(tiles, content, "place")
            elif kind == "X":
                options = self.placement(tiles, content, "law11")
            elif kind == "N":
                options = self.placement(tiles, content, "neighbour")
            elif kind == "P":
                options = [Pass()]
            else:
                options = self.law_step(content, kept)
            if not options:  # nowhere left to put a tile
                continue
            step = rng.choice(options)
            steps.append(step)
            # follow the position the step leaves (as far as the generator cares)
            sp = getattr(step, "space", None)
            if sp in SPACE_INDEX:
                r_c = tuple(int(x) for x in sp[1:].split("c"))
                tiles[r_c] = NEIGHBOUR_TILE if isinstance(step, BuyNeighbour) else FACES.index(step.tile)
                content[sp] = EMPTY
            if isinstance(step, UseLaw12) and step.first in content and step.second in content:
                content[step.first], content[step.second] = content[step.second], content[step.first]
        player = self.me
        r = rng.random()
        if r < 0.03:
            player = rng.choice(s.players)
        elif r < 0.04:
            player = "nobody"
        return Turn(player, tuple(steps), self.draws(steps))

    def draws(self, steps) -> tuple[Draw, ...]:
        rng = self.rng
        s = self.s
        placed = sum(isinstance(x, (PlaceTile, UseLaw11)) for x in steps)
        room = 4 - (s.hand_size[self.p] - placed)
        live = [k for k in range(3) if s.stack_size[k] > 0]
        r = rng.random()
        if r < 0.85 or not live:
            k = room if rng.random() < 0.9 else max(0, room - 1)  # sometimes one forgotten
        elif r < 0.9:
            k = room + 1
        else:
            k = rng.randint(0, 2)
        out = []
        sizes = list(s.stack_size)
        stacks = [list(x) for x in s.stacks] if s.stacks is not None else None
        for _ in range(k):
            options = [j for j in range(3) if sizes[j] > 0]
            j = rng.choice(options) if options and rng.random() < 0.95 else rng.randrange(4)
            face = None
            if j < 3:
                sizes[j] -= 1
                top = stacks[j].pop() if stacks and stacks[j] else None
                if top is not None and rng.random() < 0.05:
                    face = FACES[(top + 1) % 4]  # a declared face that is not the top one: refused
            out.append(Draw(j, face))
        return tuple(out)

    def many(self, k: int) -> list[Turn]:
        out = {self.turn() for _ in range(k)}
        out.add(Turn(self.me, (Pass(),)))
        return sorted(out, key=repr)


# -- the checks -------------------------------------------------------------------------------------

def check_by_steps(state: CheopsState, move: Turn, tally: Tally) -> None:
    """Completeness where the legal turns are too many to list: each step of a legal turn is a
    step the engine offers after the steps before it, and the turn one it offers after them."""
    for k, step in enumerate(move.steps):
        offered = GAME.next_steps(state, move.steps[:k])
        tally.legal_moves += len(offered)
        assert step in offered, f"step {k + 1} of the legal turn {move!r} is not among next_steps"
    assert any(m == move for m in GAME.legal_turns(state, move.steps)), f"{move!r} is legal but legal_turns does not offer it"


def check_tree(state: CheopsState, legal: list[Turn]) -> None:
    """legal_moves is the union of the turns that begin with each step next_steps offers."""
    union: set[Turn] = set()
    for step in GAME.next_steps(state):
        union.update(GAME.legal_turns(state, (step,)))
    assert union == set(legal), f"step by step {len(union)} turns, legal_moves {len(legal)}"


def respelled(state: CheopsState, move: Turn) -> list[Turn]:
    """The same turn spelled otherwise (docs: legal_moves spells each turn one way)."""
    out = []
    steps = []
    changed = False
    for s in move.steps:
        take = getattr(s, "take", None)
        if take is not None and take.law is not None and state.content[SPACE_INDEX[s.space]] not in (LAW_HIDDEN,) \
                and not any(isinstance(x, UseLaw12) for x in move.steps):
            s = replace(s, take=replace(take, law=None))
            changed = True
        if isinstance(s, UseLaw12):
            s = UseLaw12(s.second, s.first)
            changed = True
        steps.append(s)
    if changed:
        out.append(Turn(move.player, tuple(steps), move.draws))
    if move.draws and state.stacks is not None:
        stacks = [list(x) for x in state.stacks]
        out.append(Turn(move.player, move.steps, tuple(Draw(d.stack, FACES[stacks[d.stack].pop()]) for d in move.draws)))
    return out


def check_spellings(state: CheopsState, legal: list[Turn], rng: random.Random) -> None:
    for move in rng.sample(legal, min(6, len(legal))):
        after = GAME.apply(state, move)
        for other in respelled(state, move):
            SEEN["spellings"] += 1
            assert GAME.violations(state, other) == (), f"{other!r} (a spelling of the legal {move!r}) is refused"
            assert GAME.apply(state, other) == after, f"{other!r} does not do what {move!r} does"
            check_move_round_trip(GAME, other)


def check_position(state: CheopsState, rng: random.Random, tally: Tally, *, long: bool) -> None:
    cands = Candidates(state, rng).many(80 if long else 60)
    legal = check_state(GAME, state, cands, tally, legal_cap=LEGAL_CAP)
    me = state.players[state.active]
    if len(legal) >= LEGAL_CAP:
        SEEN["step_by_step"] += 1
        good = [m for m in cands if not GAME.violations(state, m)]
        for m in rng.sample(good, min(len(good), 12 if long else 4)):
            check_by_steps(state, m, tally)
            SEEN["turns_by_steps"] += 1
    else:
        SEEN["listed"] += 1
        if rng.random() < (0.3 if long else 0.15) and len(legal) < 4000:
            check_tree(state, legal)
            SEEN["tree"] += 1
    # the normal placements (face, space) the engine offers are the ones this file's geometry finds
    tiles = tiles_of(state)
    mine = {(FACES[f], name(*x)) for f in faces_in_hand(state, state.active) for x in CELLS if fits(tiles, f, *x)}
    offered = {(s.tile, s.space) for s in GAME.next_steps(state) if isinstance(s, PlaceTile)}
    assert offered == mine, f"placements offered but not fitting {sorted(offered - mine)}, fitting but not offered {sorted(mine - offered)}"
    # whoever is to play can always play: a placement when a tile fits, otherwise a pass
    fits_now = bool(mine)
    pass_ok = GAME.violations(state, Turn(me, (Pass(),))) == ()
    assert pass_ok != fits_now, f"a tile fits: {fits_now}, yet a pass is {'legal' if pass_ok else 'refused'}"
    if fits_now:
        assert any(isinstance(m.step_b, PlaceTile) for m in legal[:50]), "a tile fits but no placement is offered first"
    check_spellings(state, legal, rng)


def play_and_check(seed: int, players: int, variants: tuple[str, ...], tally: Tally, *, long: bool, every: int) -> None:
    rng = random.Random(seed)
    setup = {"players": list(PLAYERS[:players]), "seed": seed, "tiles": "tracked", "variants": list(variants)}
    state = GAME.setup(SetupOptions.from_json(setup))
    history: list[Turn] = []
    while True:
        k = len(history)
        where = f"seed {seed}, {players} players, variants {list(variants)}, turn {k + 1}"
        try:
            turn = GAME.turn(state)
            over = GAME.is_over(state)
            expected = must_be_over(state, history)
            # variant end_after_turn: the turn that met a condition goes on, and may take law 3 after it
            late_law3 = state.rules.end_after_turn and history and any(
                getattr(getattr(s, "take", None), "law", None) == 3 for s in history[-1].steps)
            assert over == expected or (over and late_law3), f"is_over says {over}, the end conditions say {expected}"
            if over:
                assert turn.active == () and turn.awaiting == "none"
                check_state(GAME, state, Candidates(state, rng).many(10), tally)
                break
            # turn order: every player is in the game to the end; one turn each per round, clockwise
            assert turn.active == (state.players[k % players],) and turn.round == k // players + 1, turn
            if k % every == 0 or rng.random() < 0.05:
                check_position(state, rng, tally, long=long)
            move = random_move(state, rng)
            assert move.player in turn.active
            state = GAME.apply(state, move)
            history.append(move)
            assert len(history) < 600, "no end after 600 turns"
        except AssertionError as err:
            raise AssertionError(f"{where}: {err}") from err
    check_record_round_trip(GAME, setup, history, state)
    tally.games += 1


def variant_sets(base: int, games: int) -> list[tuple[int, int, tuple[str, ...]]]:
    rng = random.Random(base)
    out = []
    for g in range(games):
        players = 2 + g % 4  # 2, 3, 4, 5 players in turn
        if g % 3 == 0:
            variants: tuple[str, ...] = ()
        else:
            variants = tuple(sorted(rng.sample(PLAY_VARIANTS, rng.randint(1, 3))))
        out.append((base + g, players, variants))
    return out


def test_cheops_engine_checks_itself(long_run):
    games = 2000 if long_run else 8
    base = 0 if CI else random.randrange(10**6)
    tally = Tally()
    start = time.perf_counter()
    for seed, players, variants in variant_sets(base, games):
        play_and_check(seed, players, variants, tally, long=long_run, every=4 if long_run else 5)
    print(tally.line("cheops", time.perf_counter() - start) + f" (seeds from {base})")
    print(f"self-check cheops: {SEEN['listed']} states listed in full ({SEEN['tree']} also rebuilt step by step), "
          f"{SEEN['step_by_step']} too many to list ({SEEN['turns_by_steps']} legal turns checked step by step), "
          f"{SEEN['spellings']} other spellings of legal turns")
    assert tally.games == games and tally.refused > 0 and len(tally.rule_ids) >= 15


def test_turns_too_many_to_list_are_checked_step_by_step():
    """A reachable position where the player to move holds law 12: every pair of open treasures
    multiplies the turns, so completeness is checked step by step (the path the long run takes)."""
    for seed in range(200):
        rng = random.Random(seed)
        state = GAME.setup(SetupOptions.from_json({"players": list(PLAYERS[:3]), "seed": seed, "tiles": "tracked"}))
        while state.finished is None and 12 not in state.held[state.active]:
            state = GAME.apply(state, random_move(state, rng))
        if state.finished is None:
            break
    else:
        pytest.fail("no random game among 200 gave a player law 12")
    before = dict(SEEN)
    check_position(state, random.Random(seed), Tally(), long=True)
    assert SEEN["step_by_step"] == before["step_by_step"] + 1 and SEEN["turns_by_steps"] > before["turns_by_steps"]
    # and a law-12 turn among them, both before and after step B
    law12 = [m for m in Candidates(state, random.Random(1)).many(400) if any(isinstance(s, UseLaw12) for s in m.steps)
             and not GAME.violations(state, m)]
    assert {type(m.steps[0]) for m in law12} >= {UseLaw12, PlaceTile}
    for m in law12[:6]:
        check_by_steps(state, m, Tally())


# -- disagreements the checks found (regressions) ----------------------------------------------------

def _empty_but(state: CheopsState, content: dict[str, str]) -> CheopsState:
    from cheops_helpers import position

    return position(position(state, content={sp: None for sp in SPACES}), content=content)


def test_a_neighbour_that_ends_the_game_is_a_whole_turn():
    """Step A taking the last treasure ends the game at once (C2), so no step B follows: that turn
    was legal, but legal_moves never offered it."""
    from cheops_helpers import fresh, position

    s = _empty_but(position(fresh(), cash={"blue": 20}), {"r11c1": "red"})
    move = Turn("blue", (BuyNeighbour("r11c1", Take(sell=True)),))
    assert GAME.violations(s, move) == ()
    assert move in set(GAME.legal_moves(s))
    assert GAME.apply(s, move).finished == Termination.PYRAMID_COMPLETE


def test_law11_extra_offers_the_second_placement():
    """With variant law11_extra a law-11 placement comes on top of the normal one: legal in either
    order, but legal_moves offered neither."""
    from cheops_helpers import fresh, position

    s = position(fresh(variants=["law11_extra"]), held={"blue": [11]})
    c = s.content[SPACE_INDEX["r5c3"]]
    take = Take(sell=True) if 0 <= c < LAW_BASE else Take(law=c - LAW_BASE, discard=True)
    both = (PlaceTile("A", "r11c1", Take(sell=True)), UseLaw11("B", "r5c3", take))
    for steps in (both, both[::-1]):
        move = Turn("blue", steps, (Draw(0), Draw(1)))
        assert GAME.violations(s, move) == ()
        check_by_steps(s, move, Tally())  # too many turns to list them all here


def test_draws_in_the_turn_that_ends_the_game_are_checked():
    """E9: the draws of a turn that ended the game are ignored -- but they were not checked either,
    so any draws (from a stack 7, more than the hand holds) passed; legal_moves could not offer them."""
    from cheops_helpers import fresh

    s = _empty_but(fresh(), {"r11c1": "red"})
    junk = Turn("blue", (PlaceTile("A", "r11c1", Take(sell=True)),), (Draw(7),))
    assert {v.rule for v in GAME.violations(s, junk)} == {"draw.stack_unknown"}
    many = Turn("blue", (PlaceTile("A", "r11c1", Take(sell=True)),), (Draw(0), Draw(0)))
    assert {v.rule for v in GAME.violations(s, many)} == {"draw.too_many"}
    fine = Turn("blue", (PlaceTile("A", "r11c1", Take(sell=True)),), (Draw(0),))
    assert GAME.violations(s, fine) == ()
    after = GAME.apply(s, fine)
    assert after.finished == Termination.PYRAMID_COMPLETE and after.hand_size[0] == 3  # ignored (E9)


def test_the_independent_end_test_agrees_on_the_issue_example():
    """The example of issue 13 through this file's own "can place" (step A included)."""
    from test_cheops_laws import NEIGHBOUR_THEN_A, _neighbour_example

    s = _neighbour_example(("end_when_blocked",))
    after = GAME.apply(s, Turn("green", (PlaceTile("B", "r9c9", Take(sell=True)),)))
    assert can_place(after, 0) and not can_place(after, 1) and not can_place(after, 2)
    assert not must_be_over(after, [Turn("green", (PlaceTile("B", "r9c9", Take(sell=True)),))])
    check_by_steps(after, NEIGHBOUR_THEN_A, Tally())

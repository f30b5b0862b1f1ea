"""Ming Dynasty checks itself (issue 13): random reachable games, checked state by state.

Games come from the simulator (``scorer/games/ming/simulate.py``) with 2, 3 and 4 players and
random sets of the named variants, in two forms:

* ``required`` -- as the simulator plays them: every card declared (``cards: required``), so
  every hand is known exactly;
* ``declared`` -- the same moves under the default ``cards: declared`` with the set-up display
  left out and some declarations dropped (a card taken or played, a refill, return cards given as
  a total), the way a real table feeds the referee: hands are then known only in part.

At sampled states the shared harness (``tests/games/self_checks.py``) compares ``legal_moves``
with ``violations`` over the candidates of the generator below, which is written from the rules
(docs/ming.md, rules/ming.md), not from ``legal_moves``: every move type in every phase, for the
player asked, another player and a stranger, legal and deliberately illegal (wrong phase, wrong
player, unknown places, too many pieces, cards not held or of the wrong symbol, too short
payments, impossible return cards...).

A ``Witness`` follows each game beside the engine and works out by itself, from the pieces on
the table, whom the rulebook asks to act next (rules/ming.md 4-5: clockwise from the start player
within each phase, a phase over only when it is over for everybody) and whether anybody can
still act; the engine's ``turn`` and ``is_over`` must agree with it at every state.

Default: 6 games (a few seconds). Soak: ``.venv/bin/python -m pytest tests/games/ming/test_ming_self_checks.py
-q -s --long -o timeout=0`` (3000 games, about half an hour; the suite's 300 s limit would stop it).
"""

from __future__ import annotations

import os
import random
import time
from dataclasses import dataclass, field, replace
from itertools import combinations, combinations_with_replacement
from typing import Any

from scorer.core.game import SetupOptions
from scorer.games.ming import GAME
from scorer.games.ming.moves import (
    NEUTRAL,
    ChooseStartPlayer,
    MingMove,
    MovePrince,
    Pass,
    PlaceFamily,
    PlaceNeutral,
    PlacePrince,
    ReturnCards,
    SendBack,
    Stay,
    TakeCard,
    TakeDragon,
)
from scorer.games.ming.simulate import random_game
from scorer.games.ming.state import EMPTY, MingRules, MingState
from tests.games.self_checks import Tally, check_record_round_trip, check_state

HAND_LIMIT = 5  # rules/ming.md phase 2
PER_ROUND = 5  # family members taken into hand each round
ROUNDS = 6
STRANGER = "violet"  # a colour no Ming table uses
DEPLOYS = ((0, False), (0, True), (1, False), (1, True), (2, False), (2, True), (3, False), (3, True), (4, False))


# -- the witness: whose turn the rulebook says it is ------------------------------------------------

def clockwise(state: MingState, first: int) -> list[int]:
    return [(first + k) % state.n for k in range(state.n)]


def dragons_left(state: MingState) -> int:
    return state.board.dragons - sum(h.lb[-1] for h in state.hands)


def owes_a_card(state: MingState, q: int) -> bool:
    """Phase 2: fewer than 5 cards and a way to pay for one (A4)."""
    if state.hands[q].total >= HAND_LIMIT:
        return False
    if any(row[q] > 0 for row in state.spaces):
        return True
    return state.rules.dragon_any_member and dragons_left(state) > 0 and any(sum(row) > 0 for row in state.spaces)


def city_of(state: MingState, province: int, owner: int) -> list[int]:
    return [state.city[d][owner] for d in state.board.province_districts[province]]


def has_choice(state: MingState, province: int, owner: int, k: int) -> bool:
    """Sending back k of the owner's city pieces is a choice: some stay, and they sit in 2+ areas."""
    areas = city_of(state, province, owner)
    return 0 < k < sum(areas) and sum(1 for a in areas if a) >= 2


def start_chooser(state: MingState) -> int:
    """4 players after round 4 (second-fewest points) and 5 (fewest): ties to the most monks,
    then the first of them clockwise from the start player (rules/ming.md 5, R1, A11)."""
    totals = [sum(state.points[q]) for q in range(state.n)]
    value = sorted(totals)[1 if state.round == 4 else 0]
    tied = [q for q in clockwise(state, state.start) if totals[q] == value]
    monks = {q: sum(1 for o in state.cloister if o == q) for q in tied}
    return next(q for q in tied if monks[q] == max(monks.values()))


@dataclass
class Witness:
    """Follows the table move by move; knows only what the rulebook says about turns."""

    phase: str = ""
    round: int = 0
    last: int | None = None  # the last player to act in this phase
    passed: set[int] = field(default_factory=set)
    moves_in_phase: int = 0
    committed: set[int] = field(default_factory=set)
    province: int = -1
    start_of_round: dict[int, int] = field(default_factory=dict)
    chosen_start: int | None = None

    def after(self, before: MingState, move: MingMove, after: MingState) -> None:
        p = before.player_index(move.player)
        if isinstance(move, Pass):
            self.passed.add(p)
        if isinstance(move, ReturnCards):
            self.committed.add(p)
        if isinstance(move, ChooseStartPlayer):
            self.chosen_start = after.player_index(move.start)
        self.last = p
        self.moves_in_phase += 1

    def expected(self, state: MingState) -> tuple[set[int], str]:
        """(players the rulebook asks to act now, what they are asked for); empty when nobody can act."""
        info = GAME.turn(state)
        phase = info.phase
        if phase != self.phase or info.round != self.round:
            self._new_phase(state, phase, info.round)
        n = state.n
        if phase == "prince_placement":
            placed = sum(1 for d in state.princes if d != EMPTY)
            return ({(state.start + placed) % n} if placed < n else set()), "move"
        if phase == "neutral_placement":
            per = state.rules.neutral_per_player
            order = clockwise(state, state.start)
            k = self.moves_in_phase
            if k >= per * n:
                return set(), "move"
            return {order[k // per] if state.rules.neutral_in_blocks else order[k % n]}, "move"
        if phase == "province_spaces":
            return self._rotation(state, lambda q: state.in_hand[q] > 0), "move"
        if phase == "movement_cards":
            return self._rotation(state, lambda q: owes_a_card(state, q)), "card"
        if phase == "move_and_deploy":
            return self._rotation(state, lambda q: q not in self.passed and state.hands[q].total > 0), "move"
        if phase == "scoring":
            sc = state.scoring
            assert sc is not None
            if sc.province != self.province:
                self.province, self.committed = sc.province, set()
            waiting = {q for q in range(n) if sum(city_of(state, sc.province, q)) > 0 and q not in self.committed}
            if sc.stage == "commit":
                return waiting, "return_cards"
            if sc.stage in ("neutral", "neutral_first"):
                return {state.start}, "send_back"
            first = next((q for q in clockwise(state, state.start) if sc.to_send[q] > 0), None)
            assert first is not None and has_choice(state, sc.province, first, sc.to_send[first]), \
                "the engine asks for a send-back where nobody has a choice"
            return {first}, "send_back"
        if phase == "round_end":
            assert n == 4 and state.round in (4, 5), f"a start-player choice after round {state.round} with {n} players"
            return {start_chooser(state)}, "start_player"
        assert phase == "over", phase
        return set(), "none"

    def _rotation(self, state: MingState, owes) -> set[int]:
        first = state.start if self.last is None else (self.last + 1) % state.n
        return next(({q} for q in clockwise(state, first) if owes(q)), set())

    def _new_phase(self, state: MingState, phase: str, rnd: int) -> None:
        old_phase = self.phase
        if old_phase == "neutral_placement":
            per = state.rules.neutral_per_player
            assert self.moves_in_phase == per * state.n, f"{self.moves_in_phase} neutral placements, not {per} each"
        if old_phase == "province_spaces":
            assert self.moves_in_phase == PER_ROUND * state.n, f"phase 1 took {self.moves_in_phase} placements"
        if rnd != self.round and rnd >= 1:
            # the start player passes one to the left; 4 players after rounds 4 and 5: the chooser's pick
            if rnd >= 2:
                prev = self.start_of_round[rnd - 1]
                want = self.chosen_start if (state.n == 4 and rnd - 1 in (4, 5)) else (prev + 1) % state.n
                assert state.start == want, f"round {rnd}: start player {state.players[state.start]}, expected {state.players[want]}"
            self.start_of_round[rnd] = state.start
            self.chosen_start = None
        if phase == "province_spaces":
            assert all(h == PER_ROUND for h in state.in_hand), f"phase 1 starts with {state.in_hand} in hand"
        self.phase, self.round = phase, rnd
        self.last, self.moves_in_phase = None, 0
        self.province, self.committed = -1, set()
        if phase == "move_and_deploy":
            self.passed = set()

    def check(self, state: MingState) -> None:
        """The engine asks exactly whom the rulebook asks, and is over exactly when nobody can act."""
        want, awaiting = self.expected(state)
        info = GAME.turn(state)
        asked = {state.player_index(a) for a in info.active}
        assert -1 not in asked, f"the engine asks {info.active}, not all of them at the table"
        over = GAME.is_over(state)
        assert over == (not want), f"is_over={over} but the rulebook asks {[state.players[q] for q in want]} ({info.phase})"
        if over:
            self.check_end(state)
            return
        assert asked == want, (f"round {info.round}, {info.phase}: the engine asks {sorted(info.active)}, "
                               f"the rulebook {sorted(state.players[q] for q in want)}")
        assert info.awaiting == awaiting, (info.awaiting, awaiting)

    def check_end(self, state: MingState) -> None:
        """The rulebook's end: 6 rounds played (all 30 family members used), the round-6 scoring done."""
        assert self.round == ROUNDS and state.round == ROUNDS
        assert all(s == 0 for s in state.supply) and all(h == 0 for h in state.in_hand)
        assert all(sum(row) == 0 for row in state.city), "the game ended with family members in a city"


# -- the candidate generator ------------------------------------------------------------------------

def paths_from(state: MingState, start: int, max_len: int) -> list[tuple[int, ...]]:
    nb = state.board.neighbours
    out: list[tuple[int, ...]] = []

    def walk(at: int, path: tuple[int, ...]) -> None:
        if path:
            out.append(path)
        if len(path) < max_len:
            for d in nb[at]:
                walk(d, path + (d,))

    walk(start, ())
    return out


def payments(state: MingState, p: int, path: tuple[int, ...], rng: random.Random) -> list[tuple[str, ...] | None]:
    """Ways to pay for a path: every one the known hand allows (or, with an unknown part, any
    matching card), a card of the wrong symbol, one card too few, and no declaration."""
    board = state.board
    hand = state.hands[p]
    here = state.princes[p]
    prev = (here,) + path[:-1]
    per_step = [sorted(board.border_symbols[(a, b)]) + [len(board.symbols)] for a, b in zip(prev, path)]
    out: list[tuple[str, ...] | None] = [None]
    have = list(hand.lb)
    free = hand.total - sum(hand.lb)

    def rec(i: int, chosen: list[int], spare: int) -> None:
        if len(out) > 40:
            return
        if i == len(per_step):
            out.append(tuple(board.kinds[k] for k in chosen))
            return
        for k in per_step[i]:
            if have[k] > 0:
                have[k] -= 1
                rec(i + 1, chosen + [k], spare)
                have[k] += 1
            elif spare > 0:
                rec(i + 1, chosen + [k], spare - 1)

    rec(0, [], free)
    wrong = [next((board.symbols[s] for s in range(len(board.symbols)) if s not in board.border_symbols[(a, b)]), "horse")
             for a, b in zip(prev, path)]
    out.append(tuple(wrong))
    out.append(tuple(board.kinds[rng.randrange(len(board.kinds))] for _ in path))
    if len(path) > 1:
        out.append(tuple(wrong[:-1]))
    return out


def candidates(state: MingState, rng: random.Random) -> list[Any]:
    board = state.board
    info = GAME.turn(state)
    players = list(state.players)
    asked = list(info.active)
    others = [q for q in players if q not in asked]
    who = asked + rng.sample(others, min(1, len(others))) + [STRANGER]
    districts = list(board.districts)
    provinces = [pv.id for pv in board.provinces]
    symbols = list(board.symbols)
    out: list[Any] = []
    # wrong phase, for everybody: one move of each kind
    for w in who:
        out += [PlacePrince(w, rng.choice(districts)), PlaceNeutral(w, rng.choice(districts)), PlaceFamily(w, rng.choice(provinces)),
                TakeCard(w, rng.choice(provinces)), TakeDragon(w, rng.choice(provinces)), MovePrince(w, (rng.choice(districts),)),
                Stay(w), Pass(w), ReturnCards(w, total=0), SendBack(w, (rng.choice(districts),)), ChooseStartPlayer(w, rng.choice(players))]
    phase = info.phase
    for w in who:
        if phase == "prince_placement":
            out += [PlacePrince(w, d) for d in districts + ["p7d1"]]
        elif phase == "neutral_placement":
            out += [PlaceNeutral(w, d) for d in districts + ["p7d1"]]
        elif phase == "province_spaces":
            out += [PlaceFamily(w, pv) for pv in provinces + ["p7"]]
        elif phase == "movement_cards":
            for pv in provinces + ["p7"]:
                for sym in [None, *symbols, "elephant"]:
                    for refill in [None, *symbols]:
                        out.append(TakeCard(w, pv, sym, refill))
                out.append(TakeCard(w, pv, None, "elephant"))
                for owner in [None, *players, NEUTRAL, STRANGER]:
                    out.append(TakeDragon(w, pv, owner))
        elif phase == "move_and_deploy":
            out += prince_turns(state, w, rng)
        elif phase == "scoring" and info.awaiting == "return_cards":
            values = list(state.rules.return_values)
            for k in range(len(values) + 2):
                for combo in combinations(values + [values[0]], k):
                    out.append(ReturnCards(w, tuple(combo)))
                    out.append(ReturnCards(w, tuple(reversed(combo))))
            out += [ReturnCards(w, total=t) for t in range(sum(values) + 2)]
            out += [ReturnCards(w, (values[-1],), values[-1]), ReturnCards(w, (9,)), ReturnCards(w)]
        elif phase == "scoring":
            out += send_backs(state, w, rng)
        elif phase == "round_end":
            out += [ChooseStartPlayer(w, q) for q in players + [STRANGER]]
    return out


def prince_turns(state: MingState, who: str, rng: random.Random) -> list[Any]:
    board = state.board
    p = state.player_index(who)
    out: list[Any] = [Pass(who)]
    for card in [None, *board.kinds, "elephant"]:
        out += [Stay(who, card, k, c) for k, c in DEPLOYS]
    if p < 0:
        out.append(MovePrince(who, (board.districts[0],), ("dragon",)))
        return out
    total = state.hands[p].total
    paths = paths_from(state, state.princes[p], min(3, total + 1))
    if total >= 4:
        longer = paths_from(state, state.princes[p], total + 1)
        paths += rng.sample(longer, min(10, len(longer)))
    for path in paths:
        names = tuple(board.districts[d] for d in path)
        every_deploy = rng.random() < 0.25  # each deployment for some paths, one at random for the rest
        for cards in payments(state, p, path, rng):
            deploys = DEPLOYS if every_deploy else ((0, False), rng.choice(DEPLOYS))
            out += [MovePrince(who, names, cards, k, c) for k, c in deploys]
    far = [d for d in board.districts if board.district_index[d] not in board.neighbours[state.princes[p]]]
    out += [MovePrince(who, (rng.choice(far),), ("dragon",)), MovePrince(who, ()), MovePrince(who, ("p7d1",), ("dragon",))]
    return out


def send_backs(state: MingState, who: str, rng: random.Random) -> list[Any]:
    board = state.board
    sc = state.scoring
    assert sc is not None
    mine = [board.districts[d] for d in board.province_districts[sc.province]]
    foreign = next(d for d in board.districts if d not in mine)
    want = max(sc.to_send)
    out: list[Any] = []
    for k in range(max(1, want - 1), want + 2):
        for combo in combinations_with_replacement(mine, k):
            for owner in (None, NEUTRAL, who):
                out.append(SendBack(who, combo, owner))
            out.append(SendBack(who, tuple(reversed(combo))))
    out += [SendBack(who, (foreign,) * max(1, want)), SendBack(who, mine[:1] * max(1, want), rng.choice(state.players))]
    return out


# -- games ----------------------------------------------------------------------------------------

def strip(setup: dict[str, Any], moves: list[MingMove], rng: random.Random) -> tuple[dict[str, Any], list[MingMove]]:
    """The same game as a table under ``cards: declared`` would record it: no set-up display, and
    about a third of the declarations left out."""
    setup = {k: v for k, v in setup.items() if k != "display"} | {"cards": "declared"}
    out: list[MingMove] = []
    for m in moves:
        if isinstance(m, TakeCard):
            m = replace(m, symbol=None if rng.random() < 0.3 else m.symbol, refill=None if rng.random() < 0.3 else m.refill)
        elif isinstance(m, MovePrince) and rng.random() < 0.3:
            m = replace(m, cards=None)
        elif isinstance(m, Stay) and rng.random() < 0.3:
            m = replace(m, card=None)
        elif isinstance(m, ReturnCards) and m.cards is not None and rng.random() < 0.3:
            m = ReturnCards(m.player, total=sum(m.cards))
        out.append(m)
    return setup, out


def check_commit_sequence(state: MingState, legal: list[Any]) -> None:
    """Several players put down return cards at once: each commit, in any order, takes exactly
    that player off the list of those awaited."""
    info = GAME.turn(state)
    if info.awaiting != "return_cards" or len(info.active) < 2:
        return
    for player in info.active:
        move = next(m for m in legal if m.player == player)
        after = GAME.apply(state, move)
        rest = GAME.turn(after)
        assert rest.awaiting == "return_cards" and set(rest.active) == set(info.active) - {player}, (player, rest)
        assert all(m.player != player for m in GAME.legal_moves(after))


def play_and_check(seed: int, players: int, form: str, tally: Tally, sample: float) -> None:
    rng = random.Random(seed * 7 + players)
    variants = tuple(sorted(rng.sample(MingRules.VARIANTS, rng.randint(0, 3))))
    setup, moves, _ = random_game(seed, players=players, variants=variants)
    if form == "declared":
        setup, moves = strip(setup, moves, rng)
    state = GAME.setup(SetupOptions.from_json(setup))
    witness = Witness()
    for move in moves:
        witness.check(state)
        # phase-3 states hold thousands of legal moves (paths x payments x deployments): fewer of them
        if rng.random() < (sample / 3 if state.phase == "move_and_deploy" else sample):
            legal = check_state(GAME, state, candidates(state, rng), tally)
            check_commit_sequence(state, legal)
        after = GAME.apply(state, move)
        witness.after(state, move, after)
        state = after
    witness.check(state)
    assert GAME.is_over(state)
    check_state(GAME, state, candidates(state, rng), tally)
    check_record_round_trip(GAME, setup, moves, state)
    tally.games += 1


def test_ming_checks_itself(long_run: bool) -> None:
    ci = os.environ.get("CI", "").lower() in ("1", "true", "yes")
    base = 0 if ci else random.randrange(1_000_000)
    count, sample = (500, 0.08) if long_run else (1, 0.08)
    tally = Tally()
    began = time.perf_counter()
    for seed in range(base, base + count):
        for players in (2, 3, 4):
            for form in ("required", "declared"):
                try:
                    play_and_check(seed, players, form, tally, sample)
                except AssertionError as exc:
                    raise AssertionError(f"seed {seed}, {players} players, {form}: {exc}") from exc
    seconds = time.perf_counter() - began
    print()
    print(tally.line("ming", seconds), f"(seeds {base}..{base + count - 1}; 2-4 players; required and declared cards)")

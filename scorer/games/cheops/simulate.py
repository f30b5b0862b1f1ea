"""Random legal play for property tests and benchmarks (tracked tiles, seeded, reproducible).

A turn is built step by step: each candidate step is checked against the position the earlier
steps left (``rules.resolve(..., partial=True)``), and the finished turn is checked once more
by ``violations``. Every move returned has passed the engine's own checks.
"""

from __future__ import annotations

import random
from typing import Any

from scorer.core.game import SetupOptions
from scorer.core.types import SpaceId
from scorer.games.cheops import rules
from scorer.games.cheops.data import FACES, SPACES
from scorer.games.cheops.engine import _law_steps, take_options
from scorer.games.cheops.game import GAME
from scorer.games.cheops.moves import BuyNeighbour, Draw, Pass, PlaceTile, Step, Turn, UseLaw11
from scorer.games.cheops.state import HAND_SIZE, NEIGHBOUR_PRICE, CheopsState

PLAYERS = ("blue", "green", "red", "yellow", "violet")


def _ok(state: CheopsState, player: str, steps: list[Step]) -> rules.Work | None:
    try:
        return rules.resolve(state, Turn(player, tuple(steps)), check=True, partial=True)
    except rules.TurnError:
        return None


def _placement(state: CheopsState, player: str, steps: list[Step], w: rules.Work, rng: random.Random, kind: str) -> Step | None:
    """A random legal placement of ``kind`` (place / law11 / neighbour) after ``steps``."""
    hand = w.hands[w.p]
    if kind == "neighbour":
        options = [(None, i) for i in rules.neighbour_spaces(w.tile, state.rules.neighbours_may_touch)]
    else:
        support = kind == "place" or state.rules.law11_support
        options = [(f, i) for f in rules.hand_faces(hand) for i in rules.placeable_spaces(w.tile, f, support=support)]
    rng.shuffle(options)
    for f, i in options[:12]:
        takes = take_options(w, i)
        rng.shuffle(takes)
        # prefer useful resolutions over discarding a law
        takes.sort(key=lambda t: t.discard)
        for take in takes[:8]:
            space = SpaceId(SPACES[i])
            if kind == "neighbour":
                step: Step = BuyNeighbour(space, take)
            elif kind == "place":
                step = PlaceTile(FACES[f], space, take)  # type: ignore[index]
            else:
                step = UseLaw11(FACES[f], space, take)  # type: ignore[index]
            if _ok(state, player, steps + [step]) is not None:
                return step
    return None


def _law_use(state: CheopsState, player: str, steps: list[Step], w: rules.Work, rng: random.Random) -> Step | None:
    for law in (10, 12):
        if law in w.held[w.p] and law not in w.acquired and rng.random() < 0.3:
            options = list(_law_steps(w, law))
            rng.shuffle(options)
            for step in options[:10]:
                if _ok(state, player, steps + [step]) is not None:
                    return step
    return None


def random_move(state: CheopsState, rng: random.Random) -> Turn:
    """A random legal turn of the active player (a pass when nothing fits)."""
    player = state.players[state.active]
    steps: list[Step] = []
    w = rules.Work(state)
    p = state.active

    def going(work: rules.Work) -> bool:
        """Does the turn go on? With variant end_after_turn (C2) it does after an end condition,
        and the engine then still requires step B (and checks and applies the draws)."""
        return work.ended is None or state.rules.end_after_turn

    if state.neighbours_left > 0 and state.cash[p] >= NEIGHBOUR_PRICE and rng.random() < 0.2:
        step = _placement(state, player, steps, w, rng, "neighbour")
        if step is not None:
            after = _ok(state, player, [step])
            if after is not None and going(after) and any(rules.placeable_spaces(after.tile, f) for f in rules.hand_faces(after.hands[p])):
                steps.append(step)
                w = after
    use = _law_use(state, player, steps, w, rng)
    if use is not None:
        steps.append(use)
        w = _ok(state, player, steps)  # type: ignore[assignment]
    b: Step | None = None
    if going(w):
        if 11 in w.held[p] and rng.random() < 0.5:
            b = _placement(state, player, steps, w, rng, "law11")
        if b is None:
            b = _placement(state, player, steps, w, rng, "place")
        if b is None and 11 in w.held[p]:
            b = _placement(state, player, steps, w, rng, "law11")
    if b is None and going(w):
        b = Pass()
    if b is not None:
        steps.append(b)
        w = _ok(state, player, steps)  # type: ignore[assignment]
        assert w is not None
        if going(w):
            use = _law_use(state, player, steps, w, rng)
            if use is not None:
                steps.append(use)
                w = _ok(state, player, steps)  # type: ignore[assignment]
    draws: list[Draw] = []
    if b is not None and not isinstance(b, Pass) and going(w):
        sizes = list(w.stack_size)
        forget = rng.random() < 0.03
        for _ in range(HAND_SIZE - w.hand_size[p]):
            live = [k for k in range(3) if sizes[k] > 0]
            if not live or forget:
                break
            k = rng.choice(live)
            sizes[k] -= 1
            draws.append(Draw(k))
    move = Turn(player, tuple(steps), tuple(draws))
    found = GAME.violations(state, move)
    if found:
        raise RuntimeError(f"simulator built an illegal turn {move!r}: {found[0]}")
    return move


def random_game(seed: int, players: int = 4, variants: tuple[str, ...] = (), max_turns: int = 1000) -> tuple[dict[str, Any], list[Turn], CheopsState]:
    """Play one complete random game; returns (setup json, moves, final state)."""
    rng = random.Random(seed)
    setup: dict[str, Any] = {"players": list(PLAYERS[:players]), "seed": seed, "tiles": "tracked"}
    if variants:
        setup["variants"] = list(variants)
    state = GAME.setup(SetupOptions.from_json(setup))
    moves: list[Turn] = []
    while state.finished is None and len(moves) < max_turns:
        move = random_move(state, rng)
        state = GAME.apply(state, move)
        moves.append(move)
    if state.finished is None:
        raise RuntimeError(f"seed {seed}: no end after {max_turns} turns")
    return setup, moves, state

"""Random legal play for property tests and benchmarks (tracked cards, seeded, reproducible).

Enumerating every legal move (``ChinaGame.legal_moves``) is exact but slow with cards; this
sampler builds a random candidate, keeps it if the engine finds no violation, and falls back to
an exchange. Every move it returns has passed ``violations``.
"""

from __future__ import annotations

import random
from typing import Any

from scorer.core.game import SetupOptions
from scorer.games.china import cards as cardlib
from scorer.games.china.engine import payment_options
from scorer.games.china.game import GAME
from scorer.games.china.moves import EMISSARY, FORTRESS, HOUSE, ChinaMove, Exchange, Place, Placement
from scorer.games.china.state import ChinaState

COLOURS = ("blue", "green", "violet", "red", "yellow")


def sample_draws(state: ChinaState, played: tuple[str, ...], rng: random.Random) -> tuple[str, ...]:
    assert state.cards is not None
    work = cardlib._Pile(state.cards)
    hand = work.hands[state.active]
    for c in played:
        hand.remove(c)
        work.discard.append(c)
    draws: list[str] = []
    size = cardlib.deck_spec()["hand_size"]
    while len(hand) < size and work.can_take():
        sources = (["pile"] if work.pile else []) + [f"display:{i}" for i, c in enumerate(work.display) if c is not None]
        src = rng.choice(sources)
        hand.append(work.take(src))  # type: ignore[arg-type]
        draws.append(src)
    return tuple(draws)


def random_move(state: ChinaState, rng: random.Random, tries: int = 40) -> ChinaMove | None:
    """A random legal move of the active player, or None if they have none."""
    assert state.cards is not None, "random play needs tracked cards"
    board, p = state.board, state.active
    player = state.players[p]
    hand = state.cards.hands[p]
    options = []
    for prov, province in enumerate(board.provinces):
        for pieces in (1, 2):
            for cards_ in payment_options(hand, province.colour, pieces):
                options.append((prov, cards_, pieces))
    rng.shuffle(options)
    for prov, cards_, pieces in options[:tries]:
        province = board.provinces[prov]
        free = [board.sites[s] for s in board.province_sites[prov] if state.site_owner[s] < 0]
        for _ in range(4):
            placements = []
            for _ in range(pieces):
                roll = rng.random()
                if state.fortresses_left[p] and roll < 0.08 and free:
                    placements.append(Placement(FORTRESS, rng.choice(free)))
                elif roll < 0.72 and free:
                    placements.append(Placement(HOUSE, rng.choice(free)))
                else:
                    placements.append(Placement(EMISSARY, province.dragon))
            move = Place(player, tuple(placements), cards_, None)
            move = Place(player, move.placements, cards_, sample_draws(state, cards_, rng))
            if not GAME.violations(state, move):
                return move
    # no placement found: exchange if a card can be taken
    takes = (["pile"] if state.cards.pile else []) + [f"display:{i}" for i, c in enumerate(state.cards.display) if c is not None]
    if hand and takes:
        move = Exchange(player, rng.choice(hand), rng.choice(takes))
        if not GAME.violations(state, move):
            return move
    for move in GAME.legal_moves(state):  # exact fallback (includes Pass when nothing else is possible)
        return move
    return None


def random_game(seed: int, players: int = 4, variants: tuple[str, ...] = (), max_turns: int = 2000) -> tuple[dict[str, Any], list[ChinaMove], ChinaState]:
    """Play one complete random game; returns (setup json, moves, final state)."""
    rng = random.Random(seed)
    setup: dict[str, Any] = {"players": list(COLOURS[:players]), "seed": seed, "cards": "tracked"}
    if variants:
        setup["variants"] = list(variants)
    state = GAME.setup(SetupOptions.from_json(setup))
    moves: list[ChinaMove] = []
    while state.finished is None and len(moves) < max_turns:
        move = random_move(state, rng)
        if move is None:
            raise RuntimeError(f"seed {seed}: player {state.players[state.active]} has no legal move at turn {state.turn_number}")
        state = GAME.apply(state, move)
        moves.append(move)
    return setup, moves, state

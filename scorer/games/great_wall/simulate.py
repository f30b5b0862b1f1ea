"""Random legal play for property tests and benchmarks (tracked cards, seeded, reproducible).

The sampler builds a random candidate action and keeps it if the engine finds no violation;
every move it returns has passed ``violations``. ``as_table_record`` turns a simulated game into
the record a referee would keep at a real table (token values entered as ``reveal`` moves,
draws without the card), which must replay to the same result.
"""

from __future__ import annotations

import random
from typing import Any

from scorer.core.game import SetupOptions
from scorer.games.great_wall.data import CAVALRY, DRAGON, KINDS
from scorer.games.great_wall.engine import _target_sets, own_card_refs
from scorer.games.great_wall.game import GAME
from scorer.games.great_wall.moves import Claim, Draw, GreatWallMove, Pass, Play, Reveal, section_space
from scorer.games.great_wall.state import GreatWallState

COLOURS = ("blue", "red", "yellow", "green", "grey")


def random_move(state: GreatWallState, rng: random.Random, name_cards: bool = False) -> GreatWallMove | None:
    """A random legal move for the input the state awaits, or None if there is none.

    ``name_cards``: the player also says which of their cards a first token lies on, at the choice
    or afterwards (equal tokens, a choice without a card); off by default, so seeded games stay as
    they were."""
    assert state.hands is not None, "random play needs tracked cards"
    if state.finished is not None:
        return None
    player = state.players[state.active]
    p = state.active
    if name_cards and rng.random() < 0.5:
        for s, sec in enumerate(state.sections):
            if sec.unnamed_claim >= 0 and state.pending_claim < 0 and sec.claimed_owner == p:
                ref = rng.choice(list(own_card_refs(state, sec, p, sec.unnamed_claim)))
                return Claim(player, section_space(s), sec.claimed_value, ref)
    if state.pending_claim >= 0:
        sec = state.sections[state.pending_claim]
        if name_cards and rng.random() < 0.5:
            ref = rng.choice(list(own_card_refs(state, sec, p)))
            return Claim(player, section_space(state.pending_claim), rng.choice(sec.tokens), ref)
        return Claim(player, section_space(state.pending_claim), rng.choice(sec.tokens))
    hand = state.hands[p]
    live = [s for s, sec in enumerate(state.sections) if sec.live]
    draw_weight = 0.6 if state.hand_sizes[p] < 3 else 0.3
    if state.deck_sizes[p] > 0 and (rng.random() < draw_weight or not live or not any(hand)):
        return Draw(player)
    kinds = [k for i, k in enumerate(KINDS) if hand[i] > 0]
    rng.shuffle(kinds)
    for kind in kinds:
        have = hand[KINDS.index(kind)]
        count = 1 if have == 1 or rng.random() < 0.6 else rng.randint(1, have)
        sections = live[:]
        rng.shuffle(sections)
        for s in sections:
            sec = state.sections[s]
            targets: tuple = ()
            if kind == DRAGON:
                options = list(_target_sets(state, sec, p, count))
                if not options:
                    options = list(_target_sets(state, sec, p, 1))
                    count = 1
                if not options:
                    continue
                targets = rng.choice(options)
            move = Play(player, section_space(s), (kind,) * count, targets)
            if kind == CAVALRY and not state.free_used and rng.random() < 0.2:
                move = Play(player, move.section, move.cards, (), False)  # spend an action although the free play is open
            if not GAME.violations(state, move):
                return move
    if state.deck_sizes[p] > 0:
        return Draw(player)
    move = Pass(player)
    if not GAME.violations(state, move):
        return move
    for move in GAME.legal_moves(state):  # exact fallback
        return move
    return None


def random_game(seed: int, players: int = 4, variants: tuple[str, ...] = (), max_moves: int = 2000, name_cards: bool = False
                ) -> tuple[dict[str, Any], list[GreatWallMove], GreatWallState]:
    """Play one complete random game; returns (setup json, moves, final state)."""
    rng = random.Random(seed)
    setup: dict[str, Any] = {"players": list(COLOURS[:players]), "seed": seed, "cards": "tracked"}
    if variants:
        setup["variants"] = list(variants)
    state = GAME.setup(SetupOptions.from_json(setup))
    moves: list[GreatWallMove] = []
    while state.finished is None and len(moves) < max_moves:
        move = random_move(state, rng, name_cards)
        if move is None:
            raise RuntimeError(f"seed {seed}: {state.players[state.active]} has no legal move at turn {state.turn_number}")
        state = GAME.apply(state, move)
        moves.append(move)
    if state.finished is None:
        raise RuntimeError(f"seed {seed}: the game did not end within {max_moves} moves")
    return setup, moves, state


def as_table_record(setup: dict[str, Any], moves: list[GreatWallMove]) -> tuple[dict[str, Any], list[GreatWallMove]]:
    """The same game as recorded at a real table: no simulated supply or decks; the revealed token
    values are entered as ``reveal`` moves and draws do not name the card."""
    state = GAME.setup(SetupOptions.from_json(setup))
    table_setup = {k: v for k, v in setup.items() if k not in ("seed", "cards", "token_order", "deck_orders")}
    table = GAME.setup(SetupOptions.from_json(table_setup))
    out: list[GreatWallMove] = []

    def emit(m: GreatWallMove) -> None:
        nonlocal table
        table = GAME.apply(table, m)
        out.append(m)

    def catch_up() -> None:
        # Where the simulation knew that a player's hand held nothing playable and ended the turn by
        # itself, the player at a real table declares a pass.
        while table.finished is None and GAME.turn(table).awaiting == "move" and (
                table.turn_number, table.active, table.actions_done) != (state.turn_number, state.active, state.actions_done):
            emit(Pass(table.players[table.active]))

    for r in _reveals(state):
        emit(r)
    catch_up()
    for move in moves:
        state = GAME.apply_unchecked(state, move)
        emit(Draw(move.player) if isinstance(move, Draw) else move)
        # the table may first have to pass a turn the simulation ended by itself (its check then
        # clears the sections whose new tokens are revealed below)
        catch_up()
        for r in _reveals(state):
            emit(r)
            catch_up()
    return table_setup, out


def _reveals(state: GreatWallState):
    for e in state.effects:
        if e.kind in ("tokens_revealed", "pair_boxed") and e.section is not None:
            yield Reveal(section_space(e.section), e.tokens)


__all__ = ["as_table_record", "random_game", "random_move"]

"""Random legal play for property tests and benchmarks (seeded, reproducible).

By default the game runs in ``declared`` chance mode, as at a real table: this simulator plays
the table's part too -- it shuffles the talents (two put aside unseen), deals and keeps destiny
chits, shuffles the action chits each turn and rolls the die -- and declares the results as
moves, so every declared-input path of the engine is exercised and checked by ``violations``.
With ``chance="seeded"`` the engine draws by itself and only decisions are moves.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from scorer.core.game import SetupOptions
from scorer.games.zhang_yi.data import STATES, TALENT_IDS
from scorer.games.zhang_yi.game import GAME
from scorer.games.zhang_yi.flow import assassin_targets
from scorer.games.zhang_yi.moves import (
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
    ZhangYiMove,
)
from scorer.games.zhang_yi.state import (
    A_ASSASSIN,
    A_CHECK,
    A_CHIT,
    A_DIE,
    A_KEEP,
    A_MOVE,
    A_RECRUIT,
    A_RETREAT,
    A_REVEAL,
    A_TALENT_DRAW,
    A_TALENT_PLACE,
    ZhangYiState,
)

PLAYERS = ("red", "blue", "green")


@dataclass
class Table:
    """What the physical table knows and the referee does not (declared games)."""

    pool: list[int] = field(default_factory=list)
    cup: list[int] = field(default_factory=list)
    kept: dict[int, int] = field(default_factory=dict)

    @classmethod
    def deal(cls, rng: random.Random, players: int) -> "Table":
        talents = list(range(len(TALENT_IDS)))
        rng.shuffle(talents)
        chits = list(range(7))
        rng.shuffle(chits)
        kept = {p: rng.choice(chits[2 * p: 2 * p + 2]) for p in range(players)}
        return cls(pool=talents[2:], kept=kept)


def random_move(state: ZhangYiState, rng: random.Random, table: Table | None) -> ZhangYiMove:
    """A random legal input for what the engine awaits (chance from ``table`` in declared games)."""
    a = state.awaiting
    gmap = state.map
    actor = state.players[state.actors[0]] if state.actors else ""
    if a == A_KEEP:
        p = state.actors[0]
        return KeepDestiny(state.players[p], STATES[rng.choice(state.dealt[p])])
    if a == A_TALENT_DRAW:
        assert table is not None
        return DrawTalent(actor, TALENT_IDS[table.pool.pop(0)], rng.choice(("dashboard", "card_reader")))
    if a == A_TALENT_PLACE:
        areas = state.areas_of(gmap.talent_state[state.held])
        return PlaceTalent(actor, TALENT_IDS[state.held], gmap.areas[rng.choice(areas)].id)
    if a == A_ASSASSIN:
        return Assassinate(actor, TALENT_IDS[rng.choice(assassin_targets(state))])
    if a == A_CHIT:
        assert table is not None
        if set(table.cup) != set(state.cup):
            table.cup = list(state.cup)
            rng.shuffle(table.cup)
        return DrawChit(actor, STATES[table.cup.pop(0)])
    if a == A_RECRUIT:
        areas = state.areas_of(state.active_state)
        if state.rules.recruit_one_area:
            return Recruit(actor, ((gmap.areas[rng.choice(areas)].id, state.recruit_due),))
        for _ in range(20):
            split: dict[int, int] = {}
            for _ in range(state.recruit_due):
                i = rng.choice(areas)
                split[i] = split.get(i, 0) + 1
            move = Recruit(actor, tuple((gmap.areas[i].id, n) for i, n in sorted(split.items())))
            if not GAME.violations(state, move):
                return move
        return next(iter(GAME.legal_moves(state)))  # type: ignore[return-value]
    if a == A_MOVE:
        if rng.random() < 0.15:
            return Hold(actor)
        if rng.random() < 0.4:
            attack = _best_attack(state)
            if attack is not None:
                return attack
        origins = [i for i in state.areas_of(state.active_state) if state.strength[i] >= 2]
        rng.shuffle(origins)
        for o in origins[:4]:
            d = rng.choice(gmap.neighbours[o])[0]
            have = state.strength[o]
            m = rng.randint(max(1, have // 2), have - 1)
            talents = tuple(TALENT_IDS[t] for t in state.talents_in(o) if rng.random() < 0.7)
            move = March(actor, gmap.areas[o].id, gmap.areas[d].id, m, talents)
            if not GAME.violations(state, move):
                return move
        return Hold(actor)
    if a == A_DIE:
        return RollDie(actor, rng.randint(1, 6), rng.choice(("dashboard", "camera")))
    if a == A_RETREAT:
        assert state.retreat is not None
        return Retreat(actor, gmap.areas[rng.choice(state.retreat.options)].id)
    if a == A_CHECK:
        kept = table.kept if table is not None else {p: s for p, s in enumerate(state.kept)}
        for p in state.actors:
            if kept.get(p) == state.check_state:
                return RevealDestiny(state.players[p], STATES[state.check_state])
        return NotBacked(STATES[state.check_state])
    if a == A_REVEAL:
        kept = table.kept if table is not None else {p: s for p, s in enumerate(state.kept)}
        p = state.actors[0]
        return RevealDestiny(state.players[p], STATES[kept[p]])
    raise RuntimeError(f"nothing to play while awaiting {a!r}")


def _best_attack(state: ZhangYiState) -> March | None:
    """The attack with the largest margin (so that states do get annihilated in simulations)."""
    from scorer.games.zhang_yi.flow import attrition

    gmap = state.map
    s = state.active_state
    best: tuple[int, March] | None = None
    for o in state.areas_of(s):
        m = state.strength[o] - 1
        if m < 1:
            continue
        for d, _ in gmap.neighbours[o]:
            if state.owner[d] < 0 or state.owner[d] == s:
                continue
            margin = m - attrition(state, o, d) - state.strength[d]
            move = March(state.players[state.acting], gmap.areas[o].id, gmap.areas[d].id, m,
                         tuple(TALENT_IDS[t] for t in state.talents_in(o)))
            if best is None or margin > best[0]:
                best = (margin, move)
    if best is None or GAME.violations(state, best[1]):
        return None
    return best[1]


def random_game(
    seed: int,
    players: int = 2,
    chance: str = "declared",
    variants: tuple[str, ...] = (),
    board: str = "sample",
    max_moves: int = 5000,
) -> tuple[dict[str, Any], list[ZhangYiMove], ZhangYiState]:
    """Play one complete random game; returns (setup json, moves, final state)."""
    rng = random.Random(seed)
    setup: dict[str, Any] = {"players": list(PLAYERS[:players]), "board": board, "sample_map_confirmed": True, "chance": chance}
    if chance == "seeded":
        setup["seed"] = seed
    setup["first_player"] = rng.choice(setup["players"])
    if variants:
        setup["variants"] = list(variants)
    state = GAME.setup(SetupOptions.from_json(setup))
    table = Table.deal(rng, players) if chance == "declared" else None
    moves: list[ZhangYiMove] = []
    while state.finished is None and len(moves) < max_moves:
        move = random_move(state, rng, table)
        state = GAME.apply(state, move)
        moves.append(move)
    if state.finished is None:
        raise RuntimeError(f"seed {seed}: the game did not end within {max_moves} moves")
    return setup, moves, state

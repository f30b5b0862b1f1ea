"""Random legal play for property tests and benchmarks (every card declared, seeded, reproducible).

The simulator plays the table: it shuffles the movement cards itself, deals the display (declared
in the set-up), declares each card taken and each refill, and plays cards it holds. The engine
sees only what a referee would be told. Every move is checked with ``violations`` before it is
applied; when a sampled move is illegal the simulator falls back to the engine's own
``legal_moves``.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from scorer.core.game import SetupOptions
from scorer.games.ming.board import MingBoard, load_board
from scorer.games.ming.game import GAME
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
from scorer.games.ming.state import (
    EMPTY,
    MAX_DEPLOY,
    NEUTRAL_MAX_PER_DISTRICT,
    PH_CARDS,
    PH_MOVE,
    PH_NEUTRAL,
    PH_PRINCES,
    PH_ROUND_END,
    PH_SCORING,
    PH_SPACES,
    PLAYER_COLOURS,
    ST_COMMIT,
    ST_NEUTRAL,
    ST_NEUTRAL_FIRST,
    MingState,
)


@dataclass
class Deck:
    """The face-down supply and the discard pile of movement cards, as the table holds them."""

    rng: random.Random
    supply: list[str]
    discard: list[str] = field(default_factory=list)

    @classmethod
    def shuffled(cls, board: MingBoard, rng: random.Random) -> "Deck":
        cards = [s for s, n in zip(board.symbols, board.deck) for _ in range(n)]
        rng.shuffle(cards)
        return cls(rng, cards)

    def draw(self) -> str | None:
        if not self.supply:
            self.supply, self.discard = self.discard, []
            self.rng.shuffle(self.supply)
        return self.supply.pop() if self.supply else None


def _hand(state: MingState, p: int) -> list[str]:
    board = state.board
    return [board.kinds[k] for k, c in enumerate(state.hands[p].lb) for _ in range(c)]


def sample_prince_turn(state: MingState, rng: random.Random, pass_chance: float = 0.12) -> MingMove:
    board = state.board
    p = state.active
    player = state.players[p]
    hand = _hand(state, p)
    if not hand or rng.random() < pass_chance:
        return Pass(player)
    others = {d for q, d in enumerate(state.princes) if q != p}
    best = None
    for _ in range(6):
        want = rng.randint(1, min(3, len(hand)))
        left = list(hand)
        at = state.princes[p]
        path: list[int] = []
        cards: list[str] = []
        for _ in range(want):
            nbs = list(board.neighbours[at])
            rng.shuffle(nbs)
            stepped = False
            for nb in nbs:
                syms = [board.symbols[s] for s in board.border_symbols[(at, nb)] if board.symbols[s] in left]
                card = syms[0] if syms else ("dragon" if "dragon" in left else None)
                if card is None:
                    continue
                left.remove(card)
                path.append(nb)
                cards.append(card)
                at = nb
                stepped = True
                break
            if not stepped:
                break
        while path and path[-1] in others:
            left.append(cards.pop())
            path.pop()
        if path:
            best = (path, cards)
            break
    if best is None:
        card = rng.choice(hand)
        return _with_deploy(state, rng, Stay(player, card), state.princes[p])
    path, cards = best
    return _with_deploy(state, rng, MovePrince(player, tuple(board.districts[d] for d in path), tuple(cards)), path[-1])


def _with_deploy(state: MingState, rng: random.Random, move: MingMove, district: int) -> MingMove:
    board = state.board
    p = state.active
    prov = board.district_province[district]
    have = state.spaces[prov][p]
    if state.cloister[district] == p or have == 0:
        return move
    deploy = rng.randint(0 if rng.random() < 0.2 else 1, min(MAX_DEPLOY, have))
    cloister = deploy > 0 and rng.random() < 0.35
    if isinstance(move, MovePrince):
        return MovePrince(move.player, move.path, move.cards, deploy, cloister)
    assert isinstance(move, Stay)
    return Stay(move.player, move.card, deploy, cloister)


def random_move(state: MingState, rng: random.Random, deck: Deck) -> MingMove:
    """A random legal move for whoever must act now (the first waiting player when several)."""
    board = state.board
    phase = state.phase
    info = GAME.turn(state)
    player = info.active[0]
    p = state.player_index(player)
    move: MingMove | None = None
    if phase == PH_PRINCES:
        free = [d for d in board.districts if board.district_index[d] not in state.princes]
        move = PlacePrince(player, rng.choice(free))
    elif phase == PH_NEUTRAL:
        free = [d for i, d in enumerate(board.districts) if state.open[i][state.neutral] < NEUTRAL_MAX_PER_DISTRICT]
        move = PlaceNeutral(player, rng.choice(free))
    elif phase == PH_SPACES:
        prince = state.princes[p]
        if prince != EMPTY and rng.random() < 0.4:
            move = PlaceFamily(player, board.province_of(prince).id)
        else:
            move = PlaceFamily(player, rng.choice(board.provinces).id)
    elif phase == PH_CARDS:
        mine = [i for i in range(len(board.provinces)) if state.spaces[i][p] > 0]
        if not mine:  # only with dragon_any_member: pay with somebody else's family member
            i = rng.choice([i for i in range(len(board.provinces)) if sum(state.spaces[i]) > 0])
            owner = rng.choice([q for q in range(state.n) if state.spaces[i][q] > 0])
            move = TakeDragon(player, board.provinces[i].id, state.players[owner])
        elif rng.random() < 0.12 and state.dragon_supply()[1] > 0:
            i = rng.choice(mine)
            move = TakeDragon(player, board.provinces[i].id)
        else:
            i = rng.choice(mine)
            shown = board.symbols[state.display[i]]
            refill = deck.draw()
            move = TakeCard(player, board.provinces[i].id, shown, refill)
            if refill is None:
                raise RuntimeError("the movement-card supply ran out, which the card counts make impossible")
    elif phase == PH_MOVE:
        move = sample_prince_turn(state, rng)
    elif phase == PH_SCORING and state.scoring is not None:
        sc = state.scoring
        if sc.stage == ST_COMMIT:
            values = list(state.rules.return_values)
            k = rng.randint(1, len(values))
            move = ReturnCards(player, tuple(sorted(rng.sample(values, k))))
        else:
            owner = state.neutral if sc.stage in (ST_NEUTRAL, ST_NEUTRAL_FIRST) else p
            pieces = [board.districts[d] for d in board.province_districts[sc.province] for _ in range(state.city[d][owner])]
            chosen = tuple(sorted(rng.sample(pieces, sc.to_send[owner])))
            move = SendBack(player, chosen, NEUTRAL if owner == state.neutral else None)
    elif phase == PH_ROUND_END:
        move = ChooseStartPlayer(player, rng.choice(state.players))
    if move is not None and not GAME.violations(state, move):
        return move
    for fallback in GAME.legal_moves(state):  # exact fallback
        return fallback
    raise RuntimeError(f"no legal move in phase {phase}")


def _discard_played(deck: Deck, move: MingMove) -> None:
    played: tuple[str, ...] = ()
    if isinstance(move, MovePrince) and move.cards:
        played = move.cards
    elif isinstance(move, Stay) and move.card:
        played = (move.card,)
    deck.discard.extend(c for c in played if c != "dragon")


def random_game(seed: int, players: int = 4, variants: tuple[str, ...] = (), max_moves: int = 5000) -> tuple[dict[str, Any], list[MingMove], MingState]:
    """Play one complete random game; returns (setup json, moves, final state)."""
    rng = random.Random(seed)
    board = load_board()
    deck = Deck.shuffled(board, rng)
    display = [deck.draw() for _ in board.provinces]
    colours = list(PLAYER_COLOURS)
    rng.shuffle(colours)
    setup: dict[str, Any] = {
        "players": colours[:players],
        "start_player": colours[rng.randrange(players)],
        "seed": seed,
        "cards": "required",
        "display": display,
    }
    if variants:
        setup["variants"] = list(variants)
    state = GAME.setup(SetupOptions.from_json(setup))
    moves: list[MingMove] = []
    while not state.finished:
        if len(moves) >= max_moves:
            raise RuntimeError(f"seed {seed}: no end after {max_moves} moves")
        move = random_move(state, rng, deck)
        state = GAME.apply(state, move)
        _discard_played(deck, move)
        moves.append(move)
    return setup, moves, state

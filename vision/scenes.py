"""Random positions to render: what a board can physically show, with its truth.

Two sources, both driven by data, never by a game's piece names:

* ``random_board`` -- from the layout alone: its pieces and which kinds each kind of space holds
  (``holds``). A space on which several of a held piece kind fit (China's dragon space, a Ming
  district, city or province space) gets a heap of pieces of several colours; one that holds one
  piece (a China site, a Ming cloister) gets one, or a neutral piece with one on top. Quick and
  uniform, with no notion of the rules (three princes in one district are possible).
* ``game_position`` -- a position reached in a random complete game of the layout's game (its
  engine's simulator, ``scorer.games.<game>.simulate.random_game``, replayed move by move): boards
  as they look in play, with the game's own counts (a Ming province space with a dozen family
  members, a prince and his family in a district, city houses during a scoring).
"""

from __future__ import annotations

import importlib
from collections import Counter
from functools import lru_cache
from typing import Sequence

import numpy as np

from scorer.core.types import Board, Piece
from vision.layout import Layout


def random_board(layout: Layout, rng: np.random.Generator, players: Sequence[str] | None = None,
                 occupancy: float = 0.5, max_several: int = 6) -> Board:
    """A random but physically possible position from the layout: on a space that holds a heap,
    1..``max_several`` pieces of random colours (with probability ``occupancy``); elsewhere one
    player piece, or (8 %) a neutral piece with (60 %) a player piece on top."""
    players = list(players or layout.players.keys())
    neutral = layout.neutral_kinds()
    cells: dict[str, Counter[Piece]] = {}
    for sp in layout.spaces:
        c: Counter[Piece] = Counter()
        # a printed counter standing for several pieces (layout ``counts_as``) is how the renderer shows them
        held = tuple(k for k in layout.held_kinds(sp) if layout.pieces[k].counts_as is None)
        heap = tuple(k for k in layout.heap_kinds(sp) if layout.pieces[k].counts_as is None)
        if not layout.player_kinds():
            # a game whose pieces are all neutral (Cheops: tiles and treasures): one piece of a held kind
            kinds = [k for k in held if layout.pieces[k].neutral] if sp.kind in layout.holds or not layout.holds else []
            if kinds and rng.random() < occupancy:
                c[Piece("neutral", kinds[int(rng.integers(len(kinds)))])] += 1
        elif heap:
            if rng.random() < occupancy:
                for _ in range(int(rng.integers(1, max_several + 1))):
                    kind = heap[0] if len(heap) == 1 else heap[int(rng.integers(len(heap)))]
                    c[Piece(players[int(rng.integers(len(players)))], kind)] += 1
        else:
            single = [k for k in held if not layout.pieces[k].neutral] or list(layout.player_kinds())
            kind = single[0] if len(single) == 1 else single[int(rng.integers(len(single)))]
            base = [k for k in neutral if k in held] if layout.holds else list(neutral)
            r = rng.random()
            if base and r < 0.08:
                c[Piece("neutral", base[0])] += 1
                if rng.random() < 0.6:
                    c[Piece(players[int(rng.integers(len(players)))], kind)] += 1
            elif r < occupancy + 0.08:
                c[Piece(players[int(rng.integers(len(players)))], kind)] += 1
        if c:
            cells[sp.id] = c
    return Board.from_counts(cells)


def showable(layout: Layout, piece: Piece) -> bool:
    """Whether the layout can draw (and the reader read) this piece: a known kind, a player
    colour for a player piece."""
    spec = layout.pieces.get(piece.kind)
    if spec is None:
        return False
    if spec.neutral and str(piece.owner) in layout.players:
        return True  # a neutral piece laid as a player's (The Great Wall: a claimed token on its owner's card)
    return str(piece.owner) == "neutral" if spec.neutral else str(piece.owner) in layout.players


@lru_cache(maxsize=16)
def game_positions(game_id: str, seed: int, players: int) -> tuple[Board, ...]:
    """Every visible board of one random complete game (after the set-up and after each move)."""
    from scorer.core.game import SetupOptions
    from scorer.core.registry import get_game

    sim = importlib.import_module(f"scorer.games.{game_id}.simulate")
    setup, moves, _ = sim.random_game(seed, players=players)
    game = get_game(game_id)
    state = game.setup(SetupOptions.from_json(setup))
    out = [game.visible_board(state)]
    for move in moves:
        state = game.apply(state, move)
        out.append(game.visible_board(state))
    return tuple(out)


def game_position(layout: Layout, rng: np.random.Generator, players: int | None = None) -> Board:
    """A board reached in a random game of the layout's game (``layout.source["game"]``), at a
    random move; ``players`` default: any count the game and the layout's colours allow. Pieces
    the layout cannot show are left off (Ming's neutral family members of a 2-player game: its
    layout has no colour for them)."""
    from scorer.core.registry import get_game

    game_id = str(layout.source.get("game") or "")
    if not game_id:
        raise ValueError(f"layout {layout.id} names no game: use random_board")
    game = get_game(game_id)
    if players is None:
        # as many players as the layout has colours for (a game whose pieces are all neutral, as
        # Cheops' tiles and treasures: any count the game allows)
        counts = [n for n in range(game.min_players, game.max_players + 1)
                  if n <= len(layout.players) or not layout.player_kinds()]
        players = counts[int(rng.integers(len(counts)))]
    boards = game_positions(game_id, int(rng.integers(2 ** 31)), players)
    board = boards[int(rng.integers(len(boards)))]
    cells = {s: Counter({p: n for p, n in board.pieces(s).items() if showable(layout, p)}) for s in board.spaces()}
    return Board.from_counts({s: c for s, c in cells.items() if c})


def random_position(layout: Layout, rng: np.random.Generator, source: str = "layout") -> Board:
    """``source`` ``layout`` (``random_board``) or ``game`` (``game_position``)."""
    if source == "layout":
        return random_board(layout, rng)
    if source == "game":
        return game_position(layout, rng)
    raise ValueError(f"unknown position source {source!r} (layout or game)")


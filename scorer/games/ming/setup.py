"""Setting up a table of Ming: the set-up options and variants, their JSON Schema, the initial state."""

from __future__ import annotations

from typing import Any

from scorer.core.game import Game, SetupOptions, check_players_and_variants
from scorer.core.types import InvalidRecord
from scorer.games.ming.board import TILES_PER_COLOUR, MingBoard, load_board
from scorer.games.ming.state import (
    CATEGORIES,
    EMPTY,
    PH_PRINCES,
    PLAYER_COLOURS,
    SUPPLY_START,
    UNKNOWN,
    Hand,
    MingRules,
    MingState,
)


def initial_state(game: Game, options: SetupOptions) -> MingState:
    """The set-up of ``engine.MingEngine.setup``: the table before the first prince is placed (``game`` gives the player limits)."""
    players = check_players_and_variants(
        options, label="Ming Dynasty", min_players=game.min_players, max_players=game.max_players,
        colours=tuple(PLAYER_COLOURS), colour_noun="Ming player colour", variants=tuple(MingRules.VARIANTS),
    )
    board = options.board if isinstance(options.board, MingBoard) else load_board(options.board)
    mode = options.get("cards", "declared")
    if mode not in ("declared", "required"):
        raise InvalidRecord("cards must be 'declared' or 'required'", where="setup.cards")
    values = options.get("return_cards")
    values_provisional = values is None and bool(board.source.get("return_cards", {}).get("provisional", False))
    values = tuple(int(v) for v in (values if values is not None else board.return_values))
    if len(values) != 4 or any(v < 0 for v in values):
        raise InvalidRecord("return_cards lists the 4 return-card values of a player", where="setup.return_cards")
    per = options.get("neutral_per_player", 3)
    if not isinstance(per, int) or not 0 <= per <= 9:
        raise InvalidRecord("neutral_per_player must be an integer from 0 to 9", where="setup.neutral_per_player")
    neutral = options.get("neutral_colour")
    if neutral is not None and (len(players) != 2 or neutral not in PLAYER_COLOURS or neutral in players):
        raise InvalidRecord("neutral_colour is for 2 players: a Ming colour nobody plays, whose family members are the "
                            f"neutral ones on this table (not {neutral!r})", where="setup.neutral_colour")
    start_name = options.get("start_player", players[0])
    if start_name not in players:
        raise InvalidRecord(f"start_player {start_name!r} is not one of the players", where="setup.start_player")
    variants = set(options.variants)
    rules_ = MingRules(
        return_values=values,
        cards_required=mode == "required",
        dragon_any_member="dragon_any_member" in variants,
        strict_return_total="strict_return_total" in variants,
        bonus_tiebreak_fullest_area="bonus_tiebreak_fullest_area" in variants,
        neutral_before_returns="neutral_before_returns" in variants,
        bonus_ignores_neutral="bonus_ignores_neutral" in variants,
        neutral_in_blocks="neutral_in_blocks" in variants,
        no_revisit="no_revisit" in variants,
        tiebreak_monks="tiebreak_monks" in variants,
        tiles_in_turn_order="tiles_in_turn_order" in variants,
        neutral_per_player=per,
        return_values_provisional=values_provisional,
    )
    n = len(players)
    kinds = len(board.kinds)
    display = _parse_display(board, options.get("display"))
    if mode == "required" and UNKNOWN in display:
        raise InvalidRecord("cards 'required' needs the initial display (6 symbols)", where="setup.display")
    start = players.index(start_name)
    dragon_lb = tuple(1 if k == board.dragon_kind else 0 for k in range(kinds))
    state = MingState(
        board=board,
        players=players,
        rules=rules_,
        round=0,
        phase=PH_PRINCES,
        start=start,
        active=start,
        supply=(SUPPLY_START,) * n,
        in_hand=(0,) * n,
        spaces=((0,) * n,) * len(board.provinces),
        open=((0,) * (n + 1),) * len(board.districts),
        cloister=(EMPTY,) * len(board.districts),
        city=((0,) * (n + 1),) * len(board.districts),
        princes=(EMPTY,) * n,
        hands=(Hand(1, dragon_lb),) * n,
        display=display,
        tiles=((0,) * len(board.provinces),) * n,
        tile_supply=(TILES_PER_COLOUR,) * len(board.provinces),
        points=((0,) * len(CATEGORIES),) * n,
        boxed=(0,) * (n + 1),
        passed=(False,) * n,
    )
    return state


SETUP_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["players"],
    "additionalProperties": False,
    "properties": {
        "players": {"type": "array", "minItems": 2, "maxItems": 4, "uniqueItems": True, "items": {"enum": list(PLAYER_COLOURS)},
                    "description": "player colours in clockwise seating order"},
        "start_player": {"enum": list(PLAYER_COLOURS), "description": "default: the first player"},
        "board": {"type": "string", "description": "shipped board id (ming-provisional) or a board file path"},
        "variants": {"type": "array", "items": {"enum": list(MingRules.VARIANTS)}, "uniqueItems": True},
        "seed": {"type": "integer"},
        "cards": {"enum": ["declared", "required"],
                  "description": "declared (default): card identities are checked when declared; required: every card taken and played must be declared"},
        "display": {"type": "array", "minItems": 6, "maxItems": 6, "items": {"type": ["string", "null"]},
                    "description": "the 6 display cards dealt at set-up, in province order (null = not declared)"},
        "return_cards": {"type": "array", "minItems": 4, "maxItems": 4, "items": {"type": "integer", "minimum": 0, "maximum": 6},
                         "description": "the values of one player's 4 return cards (default from the board file: 0,1,2,3, ambiguity A1)"},
        "neutral_per_player": {"type": "integer", "minimum": 0, "maximum": 9, "description": "2 players: neutral family members each player places (A10, default 3)"},
        "neutral_colour": {"enum": list(PLAYER_COLOURS),
                           "description": "2 players: the spare colour whose family members are the neutral ones on this table "
                                          "(the camera and the sensor board read them as that colour; the referee as neutral)"},
    },
}


def _parse_display(board: MingBoard, data: Any) -> tuple[int, ...]:
    if data is None:
        return (UNKNOWN,) * len(board.provinces)
    out = []
    for i, s in enumerate(data):
        if s is None:
            out.append(UNKNOWN)
            continue
        k = board.symbol_index.get(s)
        if k is None:
            raise InvalidRecord(f"{s!r} is not a transport symbol ({', '.join(board.symbols)})", where=f"setup.display[{i}]")
        out.append(k)
    for k, n in enumerate(board.deck):
        if out.count(k) > n:
            raise InvalidRecord(f"the display shows more {board.symbols[k]} cards than exist ({n})", where="setup.display")
    return tuple(out)


__all__ = ["SETUP_SCHEMA", "initial_state"]

"""Setting up a China table: players, board, variants and card tracking, checked and turned into
the initial state, and the JSON Schema of a record's ``setup`` (rules/china.md)."""

from __future__ import annotations

from typing import Any, Mapping

from scorer.core.game import SetupOptions, check_players_and_variants
from scorer.core.types import InvalidRecord
from scorer.games.china import cards as cardlib
from scorer.games.china.board import CARD_COLOURS, ChinaBoard, default_board_for, load_board
from scorer.games.china.state import (
    EMISSARIES_PER_PLAYER,
    EMPTY,
    FORTRESSES_PER_PLAYER,
    HOUSES_PER_PLAYER,
    ChinaRules,
    ChinaState,
)

CHINA_COLOURS = ("blue", "green", "violet", "red", "yellow")


def initial_state(options: SetupOptions, min_players: int, max_players: int) -> ChinaState:
    players = check_players_and_variants(
        options, label="China", min_players=min_players, max_players=max_players,
        colours=CHINA_COLOURS, colour_noun="China player colour", variants=ChinaRules.VARIANTS,
    )
    board = options.board if isinstance(options.board, ChinaBoard) else load_board(options.board or default_board_for(len(players)))
    if len(players) not in board.player_counts:
        raise InvalidRecord(
            f"board {board.id} is for {'/'.join(map(str, board.player_counts))} players, not {len(players)}", where="setup.board"
        )
    mode = options.get("cards", "untracked")
    if mode not in ("tracked", "untracked"):
        raise InvalidRecord("cards must be 'tracked' or 'untracked'", where="setup.cards")
    track = mode == "tracked"
    deck = options.get("deck")
    if track and options.seed is None and deck is None:
        raise InvalidRecord("tracked cards need a seed or an explicit deck order", where="setup.seed")
    rules_ = ChinaRules(
        fortress="fortress" in options.variants,
        bare_fortress_occupies="bare_fortress_occupies" in options.variants,
        fortress_house_in_empty="fortress_house_in_empty" in options.variants,
        track_cards=track,
    )
    n = len(players)
    return ChinaState(
        board=board,
        players=players,
        rules=rules_,
        site_owner=(EMPTY,) * len(board.sites),
        site_fortress=(False,) * len(board.sites),
        emissaries=((0,) * n,) * len(board.provinces),
        scored=(False,) * len(board.provinces),
        houses_left=(HOUSES_PER_PLAYER,) * n,
        emissaries_left=(EMISSARIES_PER_PLAYER,) * n,
        fortresses_left=(FORTRESSES_PER_PLAYER if rules_.fortress else 0,) * n,
        points=((0, 0, 0),) * n,
        cards=cardlib.CardState.deal(n, options.seed if options.seed is not None else 0, deck) if track else None,
    )


def setup_schema() -> Mapping[str, Any]:
    return {
        "type": "object",
        "required": ["players"],
        "additionalProperties": False,
        "properties": {
            "players": {"type": "array", "minItems": 3, "maxItems": 5, "uniqueItems": True,
                        "items": {"enum": list(CHINA_COLOURS)}},
            "board": {"type": "string", "description": "shipped board id (china-a, china-b) or a board file path"},
            "variants": {"type": "array", "items": {"enum": list(ChinaRules.VARIANTS)}, "uniqueItems": True},
            "seed": {"type": "integer"},
            "cards": {"enum": ["tracked", "untracked"]},
            "deck": {"type": "array", "items": {"enum": list(CARD_COLOURS)}},
        },
    }

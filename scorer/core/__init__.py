"""Game-independent rules core: value types, the `Game` interface and the registry.

Every game engine in `scorer.games` is built from these pieces, so the referee runtime,
the record CLI and the dashboard can treat all games alike.
"""

from scorer.core.types import (
    Board,
    BoardDiff,
    Colour,
    Message,
    Piece,
    SpaceId,
    Violation,
    IllegalMove,
    InvalidRecord,
    TableRefError,
)
from scorer.core.results import (
    Outcome,
    PlayerScore,
    Scoreboard,
    Termination,
    Unchecked,
)
from scorer.core.game import Explanation, Game, SetupOptions, TurnInfo
from scorer.core.registry import all_games, get_game, register

__all__ = [
    "Board",
    "BoardDiff",
    "Colour",
    "Explanation",
    "Game",
    "IllegalMove",
    "InvalidRecord",
    "Message",
    "Outcome",
    "Piece",
    "PlayerScore",
    "Scoreboard",
    "SetupOptions",
    "SpaceId",
    "TableRefError",
    "Termination",
    "TurnInfo",
    "Unchecked",
    "Violation",
    "all_games",
    "get_game",
    "register",
]
